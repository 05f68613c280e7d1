"""Run-directory outputs: byte-identical JSON for the same inputs, packets, a self-contained report."""

import json
import sys
from pathlib import Path

from hydra import compose, initialize_config_dir

from critic.planners.rules import RulesPlanner
from critic.run import CriticComponents, build_components, critique
from critic.testing import FakeGrounder, ScriptedSpecialist, fake_video

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402

CONF = Path(__file__).resolve().parents[2] / "conf"

PROMPT = "A blue ball bounces off the wall, then lands on the floor."
SCRIPT = {"default": {"state": "supported"},
          "bounce": {"state": "supported", "windows": {"contact": [10, 10]}, "window": [10, 10]},
          "contact": {"state": "supported", "windows": {"contact": [5, 5]}, "window": [5, 5]},
          "continuity": {"state": "contradicted", "window": [12, 13], "required": "jump < 2 radii/frame",
                         "measured": "jump of 9.1 radii at frame 13"}}


def run(tmp_path, name):
    spec = ScriptedSpecialist(SCRIPT)
    comp = CriticComponents(planner=RulesPlanner(), specialists={"ground": FakeGrounder(), "measure": spec})
    d = tmp_path / name
    v = critique("clip.mp4", PROMPT, comp, d, video=fake_video(num_frames=20, fps=16))
    return v, d


def test_same_inputs_give_byte_identical_json(tmp_path):
    _, a = run(tmp_path, "a")
    _, b = run(tmp_path, "b")
    for name in ("plan.json", "evidence.jsonl", "verdict.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "report.html").read_bytes() == (b / "report.html").read_bytes()
    assert (a / "filmstrips").is_dir()
    assert "seconds" in json.loads((a / "timings.json").read_text())


def test_verdict_packets_and_temporal_contradiction(tmp_path):
    v, d = run(tmp_path, "a")
    verdict = json.loads((d / "verdict.json").read_text())
    assert verdict["verdict"] == "contradicted" == v.verdict
    states = {c["text"]: c["state"] for c in verdict["claims"]}
    # the wall contact (frame 10) comes after the floor contact (frame 5): "then" is contradicted
    assert states[PROMPT.rstrip(".")] == "contradicted"
    assert states["A blue ball bounces off the wall"] == "supported"
    packets = {p["span_text"]: p for p in verdict["packets"]}
    temporal = packets[PROMPT.rstrip(".")]
    assert temporal["window"]["start_frame"] == 5 and temporal["window"]["end_frame"] == 10
    assert [e["op"] for e in temporal["evidence"]][0] == "before"
    # the implicit continuity claim points at the phrase that introduced the ball, and at the jump frames
    teleport = packets["A blue ball"]
    assert teleport["span"] == [0, 11]
    assert teleport["window"]["start_frame"] == 12 and teleport["window"]["start_s"] == 0.75
    assert teleport["required"] == ["jump < 2 radii/frame"] and "9.1 radii" in teleport["measured"][0]
    assert teleport["claim"] == "c4" and teleport["filmstrip"] == "filmstrips/c4.png"
    assert (d / teleport["filmstrip"]).is_file()
    assert {e["op"] for e in teleport["evidence"]} == {"measure", "ground"}
    assert verdict["cost"]["calls"] == verdict["cost"]["tool_calls"] > 0
    assert verdict["p_plausible"] < 0.5
    lines = (d / "evidence.jsonl").read_text().splitlines()
    assert len(lines) == len(json.loads((d / "plan.json").read_text())["operations"])
    assert all(json.loads(x)["cost"]["seconds"] == 0 for x in lines)


def test_report_is_self_contained_and_marks_spans(tmp_path):
    _, d = run(tmp_path, "a")
    page = (d / "report.html").read_text()
    assert "<mark>" in page and "data:image/png;base64," in page
    assert "src=\"http" not in page and "<script" not in page
    assert "contradicted" in page


def test_no_claim_prompt_is_unknown_without_decoding(tmp_path):
    comp = CriticComponents(planner=RulesPlanner(), specialists={})
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not even a video")
    v = critique(video, "A beautiful sunset over the ocean.", comp, tmp_path / "run")
    assert v.verdict == "unknown" and "no physical claim" in v.reason
    assert (tmp_path / "run" / "verdict.json").is_file()


def test_offline_defaults_end_to_end_on_synthetic_clips(tmp_path):
    """Smoke test of the whole chain with the configured offline specialists: a clean drop is not
    contradicted, a teleport is, with its packet on the teleport frames; two runs give identical JSON."""
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["progress=false"])
    prompt = "A red ball falls, then bounces on the floor."
    clean = S.drop_clip()
    v = critique("clean.mp4", prompt, build_components(cfg), tmp_path / "clean", video=clean.context("clean"))
    assert v.verdict != "contradicted", [(c.text, c.state, c.reason) for c in v.claims]
    bad = S.teleport(clean)
    runs = [critique("bad.mp4", prompt, build_components(cfg), tmp_path / f"bad{k}", video=bad.context("bad"))
            for k in range(2)]
    assert runs[0].verdict == "contradicted"
    packet = next(p for p in runs[0].packets if "no teleport" in next(c.text for c in runs[0].claims
                                                                       if c.id == p.claim))
    first, last = bad.doctored_frames
    assert packet.window.start_frame <= last and packet.window.end_frame >= first
    for name in ("plan.json", "evidence.jsonl", "verdict.json"):
        assert (tmp_path / "bad0" / name).read_bytes() == (tmp_path / "bad1" / name).read_bytes(), name
