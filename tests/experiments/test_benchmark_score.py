"""The benchmark scorer on a tiny fixed corpus with hand-written critic reports (tests/data/benchmark_tiny/).

The corpus (fps 10, so frame k spans [k/10, (k+1)/10) s):

* ``two_balls`` (prompt "A red ball rolls to the right and hits a blue ball."; objects ball_a red, ball_b blue):
  - teleport of ball_a, frames 10-11 = 1.0-1.2 s. Claim c1 (red ball, continuity) is contradicted with window
    1.0-1.2 s: it names ball_a (its colour is red) and IoU = 1 -> WHOLE.
  - vanish of ball_b, frames 20-29 = 2.0-3.0 s. Claim c2 (blue ball, permanence) has window 2.5-3.0 s:
    IoU = 0.5 / 1.0 = 0.5 >= 0.5 -> WHOLE (the boundary counts).
  - c3 "hits a blue ball" (names both balls by colour) is contradicted at 0.0-0.4 s: it overlaps neither defect
    window padded by one frame (0.9-1.3 s, 1.9-3.1 s) -> a false contradicted claim.
  - c5 "A red ball persists" is contradicted at 2.0-3.0 s, exactly the vanish window, but the vanish is ball_b's
    and c5 says "red": it names ball_a only, whose defect is at 1.0-1.2 s -> a false contradicted claim (a scorer
    that ignored objects would count it as matching).
* ``cube_hover`` (one object): hover at frames 5-14 = 0.5-1.5 s. c1 is contradicted at 3.0-3.5 s (no overlap) and
  c2 without a window. The clip is contradicted but no claim fits the window -> PARTIAL. c1 is a false claim
  (one object: it names the cube, but its window is far from the defect's); c2 has no window and names the cube, so
  it matches on the object alone -> not false.
* ``ball_missed``: teleport; the clip's verdict is unknown -> MISSED.
* ``clean_flagged``: clean clip called contradicted -> a false-alarm clip (its claims are not counted as false
  claims on flawed clips).
* ``clean_passed``: clean clip supported.

Totals: 4 defects: whole 2, partial 1, missed 1; false-alarm clips 1 of 2 clean; false claims on flawed clips 3
(two_balls c3 and c5, cube_hover c1) over 3 flawed clips; calls 12 + 6 + 5 + 7 + 5 = 35 over 5 clips = 7.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

from experiments.benchmark.runs import load_corpus, load_run
from experiments.benchmark.score import score_runs
from experiments.benchmark.scoring import (ReportClaim, ReportWindow, claim_names_object, iou, score_run, wilson,
                                           window_fits)
from experiments.benchmark.types import FrameWindow, SceneObject, Span

from veriphy.errors import UserError

from .conftest import run_app

TINY = Path(__file__).resolve().parents[1] / "data" / "benchmark_tiny"


@pytest.fixture(scope="module")
def scored():
    return score_run(load_corpus(TINY), load_run(TINY / "run_a")[1])


def test_defect_outcomes_are_the_hand_checked_ones(scored):
    outcomes = {d["defect"]: (d["outcome"], d["claim"]) for d in scored["defects"]}
    assert outcomes == {"two_balls_teleport": ("whole", "c1"), "two_balls_vanish": ("whole", "c2"),
                        "cube_hover": ("partial", "c1"), "ball_missed_teleport": ("missed", None)}
    s = scored["summary"]
    assert (s["defects"], s["whole"], s["partial"], s["missed"]) == (4, 2, 1, 1)
    assert s["recall_whole"]["value"] == 0.5 and s["recall_any"]["value"] == 0.75


def test_false_alarms_are_the_hand_checked_ones(scored):
    s = scored["summary"]
    assert (s["clean_clips"], s["false_alarm_clips"], s["false_alarm_rate"]["value"]) == (2, 1, 0.5)
    clips = {c["id"]: c for c in scored["clips"]}
    assert clips["two_balls"]["false_claims"] == ["c3", "c5"]
    assert clips["cube_hover"]["false_claims"] == ["c1"]
    assert clips["clean_flagged"]["false_alarm"] and not clips["clean_passed"]["false_alarm"]
    assert clips["clean_flagged"]["false_claims"] == []
    assert (s["flawed_clips"], s["false_claims"], s["false_claims_per_flawed_clip"]) == (3, 3, 1.0)
    assert s["mean_calls"] == 7.0 and s["mean_model_calls"] == pytest.approx(0.4)


def test_breakdowns_group_the_same_outcomes(scored):
    def table(key):
        return {r["group"]: (r["defects"], r["whole"], r["partial"], r["missed"]) for r in scored["tables"][key]}

    assert table("category") == {"teleport": (2, 1, 0, 1), "vanish": (1, 1, 0, 0), "hover": (1, 0, 1, 0)}
    assert table("severity") == {"1": (1, 0, 0, 1), "2": (1, 0, 1, 0), "3": (1, 1, 0, 0), "4": (1, 1, 0, 0)}
    # teleports span two frames (0.2 s); the vanish and the hover ten (1.0 s)
    assert table("duration") == {"0.1-0.5 s": (2, 1, 0, 1), "0.5-1 s": (2, 1, 1, 0)}
    assert [r["group"] for r in scored["tables"]["duration"]] == ["0.1-0.5 s", "0.5-1 s"]
    assert table("defects_per_clip") == {"1": (2, 0, 1, 1), "2": (2, 2, 0, 0)}
    assert table("renderer") == {"analytic": (2, 0, 1, 1), "pybullet": (2, 2, 0, 0)}


def test_wilson_interval_known_values():
    lo, hi = wilson(1, 2)
    assert lo == pytest.approx(0.0945, abs=1e-4) and hi == pytest.approx(0.9055, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (None, None)
    for k, n in [(3, 7), (7, 7), (50, 100)]:
        lo, hi = wilson(k, n)
        assert lo <= k / n <= hi


def test_window_rule_iou_or_containment():
    d = FrameWindow(start_frame=10, end_frame=11, start_s=1.0, end_s=1.2)
    assert iou((1.0, 1.2), (1.1, 1.3)) == pytest.approx(1 / 3)
    assert not window_fits(ReportWindow(start_s=1.1, end_s=1.3), d)
    assert window_fits(ReportWindow(start_s=0.0, end_s=3.0), d)  # contains it, IoU only 0.07
    assert not window_fits(None, d)
    # half of the defect's frames is an IoU of 0.5, at least 0.5, although floating point and times written to the
    # microsecond make it 0.49999999999999994 and 0.4999991; a frame less (of 15 fps) is not
    half = FrameWindow(start_frame=2, end_frame=9, start_s=0.2, end_s=1.0)
    assert iou((0.2, 0.6), (0.2, 1.0)) < 0.5
    assert window_fits(ReportWindow(start_s=0.2, end_s=0.6), half)
    assert not window_fits(ReportWindow(start_s=0.2, end_s=0.59), half)
    three = FrameWindow(start_frame=9, end_frame=11, start_s=0.6, end_s=0.8)
    assert iou((0.666667, 0.866667), (0.6, 0.8)) < 0.5
    assert window_fits(ReportWindow(start_s=0.666667, end_s=0.866667), three)
    assert not window_fits(ReportWindow(start_s=0.733333, end_s=0.933333), three)


def _claim(span, span_text, words=(), subjects=()):
    return ReportClaim(id="c", text=span_text, span=span, span_text=span_text, subject_words=list(words),
                       subjects=list(subjects), state="contradicted")


def test_object_naming_rules():
    p = "A red ball rolls to the right and hits a blue ball."
    red = SceneObject(name="ball_a", shape="sphere", color="red", mention=Span(start=0, end=10, text="A red ball"))
    blue = SceneObject(name="ball_b", shape="sphere", color="blue", mention=Span(start=39, end=50, text=p[39:50]))
    objects = [red, blue]
    # colour decides when the claim names one
    assert claim_names_object(_claim((0, 10), "A red ball", ["red", "ball"]), red, objects)
    assert not claim_names_object(_claim((0, 10), "A red ball", ["red", "ball"]), blue, objects)
    # no colour: the mention span, then the nouns ("the ball" is ambiguous: both)
    assert claim_names_object(_claim((39, 50), "a ball"), blue, objects)
    assert claim_names_object(_claim((11, 16), "rolls", ["ball"]), red, objects)
    assert claim_names_object(_claim((11, 16), "rolls", ["ball"]), blue, objects)
    assert not claim_names_object(_claim((11, 16), "rolls", ["cube"]), blue, objects)
    # one object: any subject
    assert claim_names_object(_claim((11, 16), "rolls", ["cube"]), red, [red])
    # a claim of the whole scene (implicit, no subject) names every object, one the prompt never mentions too
    pasted = SceneObject(name="pasted_purple_ball", shape="sphere", color="purple")
    scene = _claim((0, 50), p[:50]).model_copy(update={"kind": "implicit"})
    assert all(claim_names_object(scene, o, [red, blue, pasted]) for o in (red, blue, pasted))
    assert not claim_names_object(_claim((0, 50), p[:50]), pasted, [red, blue, pasted])  # explicit: its colours


def test_score_command_writes_tables_figure_and_pages(tmp_path):
    run_b = tmp_path / "run_b"
    shutil.copytree(TINY / "run_a", run_b)
    (run_b / "reports" / "ball_missed.json").unlink()  # a run still in progress: left out, not missed
    out = tmp_path / "scores"
    result = run_app(["score", f"corpus={TINY}", f"runs=[{TINY / 'run_a'},{run_b}]", "names=[full,partial_run]",
                      f"out={out}"], tmp_path, module="experiments.benchmark")
    assert result.returncode == 0, result.stderr[-3000:]
    scores = json.loads((out / "scores.json").read_text())
    full, part = scores["runs"]
    assert (full["name"], part["name"]) == ("full", "partial_run")
    assert part["summary"]["not_run"] == 1 and part["summary"]["defects"] == 3 and part["summary"]["missed"] == 0
    assert scores["interval"].startswith("Wilson")
    with open(out / "summary.csv") as f:
        rows = {r["run"]: r for r in csv.DictReader(f)}
    assert rows["full"]["whole"] == "2" and float(rows["full"]["recall_whole_lo"]) == pytest.approx(0.15, abs=0.01)
    for key in ("category", "severity", "duration", "defects_per_clip", "renderer"):
        assert (out / f"by_{key}.csv").is_file() and "95% Wilson" in (out / f"by_{key}.md").read_text()
    assert (out / "recall_vs_calls.png").stat().st_size > 1000 and (out / "recall_vs_calls.pdf").is_file()
    page = (out / "clips" / "two_balls.html").read_text()
    assert "two_balls_vanish" in page and "whole" in page and "critic report" in page
    assert (out / "index.html").read_text().count("clips/") >= 5
    assert "| full |" in result.stdout


def test_score_refuses_a_run_of_another_corpus(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(TINY / "run_a", run)
    (run / "reports" / "stray.json").write_text(json.dumps({"id": "not_in_corpus", "verdict": "supported"}))
    with pytest.raises(UserError) as err:
        score_runs(TINY, [run], tmp_path / "out")
    assert "not_in_corpus" in str(err.value)
