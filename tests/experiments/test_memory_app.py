"""``python -m experiments.memory distill|review|measure`` with the real offline critic on a three-clip corpus
rendered from the thrown-ball scene (clean, teleport, vanish). The split fractions put every clip in the split the
verb reads, so each verb sees the whole corpus."""

import csv
import json

import pytest


from .conftest import run_app, thrown_ball_corpus

PROMPT = "A red ball is thrown to the right and bounces on a grey floor"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return thrown_ball_corpus(tmp_path_factory.mktemp("corpus"), PROMPT, jump_px=16)


@pytest.mark.slow  # four app starts and eighteen critiques: about a minute on an idle core
def test_distill_review_measure_commands(corpus, tmp_path):
    lessons = tmp_path / "lessons.json"
    common = [f"corpus={corpus}", f"lessons={lessons}", f"work={tmp_path / 'work'}", "critic.planner.implicit=false"]

    distill = run_app(["distill", *common, "splits=[1,0,0]"], tmp_path, module="experiments.memory")
    assert distill.returncode == 0, distill.stderr[-3000:]
    assert "3 training clips (3 critiqued), 2 defects, 2 candidate(s)" in distill.stdout
    data = json.loads(lessons.read_text())
    assert [(x["id"], x["status"]) for x in data["lessons"]] == [("continuity-ball", "candidate"),
                                                                 ("permanence-ball", "candidate")]

    review = run_app(["review", *common, "splits=[0,1,0]"], tmp_path, module="experiments.memory")
    assert review.returncode == 0, review.stderr[-3000:]
    # the untaught plans were critiqued by distill already: only the taught flawed and clean clips are new
    assert "2 candidate(s) on 3 validation clips (6 critiqued)" in review.stdout
    reviewed = {x["id"]: x for x in json.loads(lessons.read_text())["lessons"]}
    assert all(x["status"] in ("accepted", "pruned") and x["reason"].startswith(x["status"])
               for x in reviewed.values())
    assert reviewed["permanence-ball"]["status"] == "accepted"  # the vanished ball is caught once taught

    out = tmp_path / "measure"
    measure = run_app(["measure", *common, "splits=[0,0,1]", "grid=[0,3]", f"out={out}"], tmp_path,
                      module="experiments.memory")
    assert measure.returncode == 0, measure.stderr[-3000:]
    result = json.loads((out / "measure.json").read_text())
    assert result["splits"] == {"train": 0, "validation": 0, "test": 3}
    accepted = sorted(k for k, x in reviewed.items() if x["status"] == "accepted")
    assert result["lessons"] == accepted
    assert result["test"]["any"]["c_gained"] >= 1 and result["test"]["any"]["b_lost"] == 0
    with open(out / "saturation.csv") as f:
        rows = list(csv.DictReader(f))
    # no training clip in this split: no lesson at any N, so the curve stays at the untaught recall
    assert [int(r["experience_clips"]) for r in rows] == [0, 0]
    assert all(r["recall_taught"] == r["recall_untaught"] for r in rows)
    assert (out / "saturation.png").stat().st_size > 0 and (out / "saturation.pdf").stat().st_size > 0

    bad = run_app(["distill", f"corpus={tmp_path / 'nowhere'}", f"lessons={lessons}"], tmp_path,
                  module="experiments.memory")
    assert bad.returncode == 2 and "annotations.jsonl" in bad.stderr
