"""``python -m critic``: single clip, prompt files, batch manifests, exit codes (0 whatever the verdict, 2 for
a user's error). Specialists are the deterministic fakes of ``critic.testing`` so this tests the command
line, not the backends."""

import json
import os
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pytest
from omegaconf import OmegaConf

from critic.__main__ import _read_prompt, run_batch
from critic.planners.rules import RulesPlanner
from critic.run import CriticComponents, critique
from veriphy.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
FAKES = ["~critic/specialists", "+critic.specialists.ground._target_=critic.testing.FakeGrounder",
         "+critic.specialists.measure._target_=critic.testing.ScriptedSpecialist",
         "+critic.specialists.measure.script.default.state=supported",
         "+critic.specialists.measure.script.continuity.state=contradicted",
         "+critic.specialists.measure.script.continuity.window=[3,4]"]


def write_clip(path: Path, n: int = 12) -> Path:
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=16)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        for k in range(n):
            f = np.full((48, 64, 3), 90, np.uint8)
            f[10:18, 4 + 3 * k:12 + 3 * k] = (220, 40, 40)
            for p in s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path


def cli(run_dir: Path, *args: str, fakes: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HYDRA_FULL_ERROR="0")
    cmd = [sys.executable, "-m", "critic", *args, *(FAKES if fakes else []), f"hydra.run.dir={run_dir}",
           "progress=false"]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    return write_clip(tmp_path_factory.mktemp("clips") / "ball.mp4")


def test_single_clip_writes_outputs_and_exits_zero_even_when_contradicted(tmp_path, clip):
    prompt = tmp_path / "prompt.txt"
    prompt.write_text('A red ball, "the fast one", rolls to the right, then falls.\n')
    r = cli(tmp_path / "run", f"video={clip}", f"prompt_file={prompt}")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("contradicted")
    run = tmp_path / "run"
    for name in ("plan.json", "evidence.jsonl", "verdict.json", "timings.json", "report.html", "manifest.json"):
        assert (run / name).is_file(), name
    plan = json.loads((run / "plan.json").read_text())
    assert plan["prompt"] == 'A red ball, "the fast one", rolls to the right, then falls.'
    verdict = json.loads((run / "verdict.json").read_text())
    assert verdict["verdict"] == "contradicted" and verdict["packets"]


def test_user_error_exits_two_without_traceback(tmp_path):
    r = cli(tmp_path / "a", f"video={tmp_path / 'missing.mp4'}", "prompt=A ball falls")
    assert r.returncode == 2 and "video file not found" in r.stderr and "Traceback" not in r.stderr


def test_bad_prompts_and_inputs_are_user_errors(tmp_path, clip):
    """The same checks the command line runs (in-process: a subprocess per case would be slow)."""
    comp = CriticComponents(planner=RulesPlanner(), specialists={})
    for prompt, words in ((" ", "prompt is empty"), ("", "prompt is empty"), ("a ball falls " * 400, "characters")):
        with pytest.raises(UserError, match=words):
            critique(clip, prompt, comp, tmp_path / "x")
    with pytest.raises(UserError, match="no prompt"):
        _read_prompt(OmegaConf.create({"prompt": None, "prompt_file": None}))
    with pytest.raises(UserError, match="prompt file not found"):
        _read_prompt(OmegaConf.create({"prompt": None, "prompt_file": str(tmp_path / "none.txt")}))
    with pytest.raises(UserError, match="not both"):
        _read_prompt(OmegaConf.create({"prompt": "x", "prompt_file": str(clip)}))
    with pytest.raises(UserError, match="manifest not found"):
        run_batch(tmp_path / "nope.jsonl", comp, tmp_path / "y")


def test_batch_continues_past_bad_lines(tmp_path, clip):
    manifest = tmp_path / "clips.jsonl"
    lines = [json.dumps({"id": "good", "video": str(clip), "prompt": "A red ball rolls to the right."}),
             "{this is not json",
             json.dumps({"id": "gone", "video": "missing.mp4", "prompt": "A ball falls."}),
             json.dumps({"id": "noprompt", "video": str(clip)}),
             json.dumps({"id": "sunset", "video": str(clip), "prompt": "A beautiful sunset, calm and warm."})]
    manifest.write_text("\n".join(lines) + "\n")
    r = cli(tmp_path / "run", f"manifest={manifest}")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()]
    assert [o["id"] for o in out] == ["good", "line2", "gone", "noprompt", "sunset"]
    by = {o["id"]: o for o in out}
    assert by["good"]["verdict"] == "contradicted" and by["good"]["calls"] > 0
    assert {"text", "span", "state", "window_s"} <= set(by["good"]["claims"][0])
    assert by["line2"]["verdict"] == "error" and "not JSON" in by["line2"]["error"]
    assert by["gone"]["verdict"] == "error" and "not found" in by["gone"]["error"]
    assert by["noprompt"]["verdict"] == "error" and "prompt" in by["noprompt"]["error"]
    assert by["sunset"]["verdict"] == "unknown"
    assert "line 2 (clip line2)" in r.stderr and "clip gone" in r.stderr
    assert (tmp_path / "run" / "good" / "verdict.json").is_file()


def test_repeated_ids_are_unique_in_folders_and_verdict_lines(tmp_path, clip):
    """A manifest that repeats an id gets one folder and one verdicts.jsonl id per line (``<id>_2`` ...), each
    renamed line keeping the manifest's id."""
    from critic.testing import FakeGrounder, ScriptedSpecialist

    manifest = tmp_path / "clips.jsonl"
    item = {"id": "ball", "video": str(clip), "prompt": "A red ball rolls to the right."}
    manifest.write_text("\n".join(json.dumps(x) for x in (item, item, {**item, "id": "ball_2"})) + "\n")
    comp = CriticComponents(planner=RulesPlanner(), report=False, specialists={
        "ground": FakeGrounder(), "measure": ScriptedSpecialist({"default": {"state": "supported"}})})
    run_batch(manifest, comp, tmp_path / "run")
    out = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()]
    assert [o["id"] for o in out] == ["ball", "ball_2", "ball_2_2"]
    assert [o.get("renamed_from") for o in out] == [None, "ball", "ball_2"]
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.is_dir()) == ["ball", "ball_2", "ball_2_2"]
