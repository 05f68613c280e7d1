"""The benchmark's critique runner (resumable, sharded) and the ablation over an option inside a config group, on a
two-clip corpus rendered from the thrown-ball scene (a clean clip and a teleport, with real annotations)."""

import csv
import json

import pytest

from critic.run import CriticComponents
from experiments.benchmark.critique import critique_corpus
from experiments.benchmark.runs import load_corpus
from veriphy.errors import UserError

from .conftest import run_app, thrown_ball_corpus

PROMPT = "A red ball is thrown to the right and bounces; a medium-sized ball on a grey floor, pale background"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return thrown_ball_corpus(tmp_path_factory.mktemp("corpus"), PROMPT, flaws=("teleport",))


def test_dev_corpus_annotations_are_real(corpus):
    clips = load_corpus(corpus)
    assert [c.id for c in clips] == ["thrown_ball_clean", "thrown_ball_teleport"]
    clean, flawed = clips
    assert clean.clean and (corpus / clean.video).is_file()
    (d,) = flawed.defects
    assert d.category == "teleport" and d.object == "ball" and d.window.end_frame - d.window.start_frame == 1
    assert flawed.prompt[d.violates.start:d.violates.end] == "A red ball"


def test_critique_resumes_and_shards(corpus, tmp_path):
    out = tmp_path / "run"
    args = [f"corpus={corpus}", f"out={out}", "report=false"]
    first = run_app(["critique", *args, "shard=0", "num_shards=2"], tmp_path, module="experiments.benchmark")
    assert first.returncode == 0, first.stderr[-3000:]
    assert sorted(p.name for p in (out / "reports").glob("*.json")) == ["thrown_ball_clean.json"]
    assert "[1/1] shard 0/2 thrown_ball_clean:" in first.stderr
    done = (out / "reports" / "thrown_ball_clean.json")
    before = (done.read_bytes(), done.stat().st_mtime_ns)
    run = json.loads((out / "run.json").read_text())
    assert run["clips_done"] == 1 and not run["complete"]

    # both shards as a multirun: shard 0 has nothing left, shard 1 critiques the teleport
    second = run_app(["critique", "-m", *args, "shard=0,1", "num_shards=2"], tmp_path, module="experiments.benchmark")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "thrown_ball_clean: done before, skipped" in second.stderr
    assert "thrown_ball_teleport:" in second.stderr and "calls" in second.stderr
    assert (done.read_bytes(), done.stat().st_mtime_ns) == before
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] and set(run["cost"]) == {"thrown_ball_clean", "thrown_ball_teleport"}
    assert all(c["calls"] > 0 and c["calls"] == c["tool_calls"] + c["model_calls"] + c["planner_model_calls"]
               for c in run["cost"].values())
    assert run["critic"]["planner"]["_target_"] == "critic.planners.rules.RulesPlanner"

    # the same folder with another critic configuration is refused, not mixed
    other = {**run["critic"], "planner": {**run["critic"]["planner"], "implicit": False}}
    with pytest.raises(UserError, match="another critic configuration"):
        critique_corpus(corpus, out, CriticComponents(planner=None, specialists={}), critic_config=other)


def test_ablation_over_an_option_inside_the_planner_group(corpus, tmp_path):
    result = run_app(["-m", "experiment=ablate_planner", "tracker=none", f"job.corpus={corpus}", "critic/planner=rules",
                      "critic.planner.implicit=true,false"], tmp_path)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    sweep = tmp_path / "outputs" / "ablate_planner" / "ablate_planner"
    with open(sweep / "ablation.csv") as f:
        rows = {r["option"]: r for r in csv.DictReader(f)}
    options = sorted(o.lower() for o in rows)
    assert options == ["critic.planner.implicit=false,critic/planner=rules",
                       "critic.planner.implicit=true,critic/planner=rules"]
    on, off = (next(r for o, r in rows.items() if o.lower().startswith(f"critic.planner.implicit={v}"))
               for v in ("true", "false"))
    for row in (on, off):
        assert int(row["clips"]) == 2 and int(row["defects"]) == 1
        assert int(row["whole"]) + int(row["partial"]) + int(row["missed"]) == 1
    # the implicit obligations are operations of their own: turning them off costs fewer calls
    assert float(off["calls_per_clip"]) < float(on["calls_per_clip"])
    md = (sweep / "ablation.md").read_text()
    assert "critic.planner.implicit=" in md and "Wilson" in md
