"""The benchmark's baseline planners (ungated, questions, explicit_only) and the aggregator's slack option."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from critic.aggregator import Aggregator, before, contains
from critic.planners.questions import QuestionPlanner
from critic.planners.rules import RulesPlanner
from critic.planners.ungated import UNGATED_QUANTITIES, UngatedPlanner
from critic.run import CriticComponents, critique
from critic.testing import FakeGrounder, ScriptedSpecialist, fake_video
from critic.types import IMPLICIT_QUANTITIES, JudgeOp, MeasureOp, TimeWindow

CONF = Path(__file__).resolve().parents[2] / "conf"
PROMPT = "A red ball rolls to the right and hits a blue ball."


def test_ungated_measures_everything_on_every_named_object():
    plan = UngatedPlanner().plan(PROMPT).plan
    assert {s.name for s in plan.subjects} == {"red_ball", "blue_ball"}
    measures = [op for op in plan.operations if isinstance(op, MeasureOp)]
    assert len(measures) == 2 * len(UNGATED_QUANTITIES) == 18
    assert {(op.subject, op.quantity) for op in measures} == {(s, q) for s in ("red_ball", "blue_ball")
                                                              for q in UNGATED_QUANTITIES}
    # no explicit claim of the prompt: every claim names its object and quantity, over the object's phrase
    assert all(c.kind == "implicit" and len(c.subjects) == 1 for c in plan.claims)
    red = next(c for c in plan.claims if c.text == "A red ball: bounce")
    assert PROMPT[red.span[0]:red.span[1]] == "A red ball" and red.subjects == ["red_ball"]


def test_ungated_without_named_objects_tracks_anything():
    plan = UngatedPlanner(quantities=["continuity"]).plan("Something happens.").plan
    assert [s.noun for s in plan.subjects] == ["object"] and len(plan.claims) == 1


def test_ungated_refuses_a_quantity_that_needs_a_partner():
    with pytest.raises(ValueError, match="partner"):
        UngatedPlanner(quantities=["contact"])


def test_questions_ask_per_object_and_per_explicit_claim():
    plan = QuestionPlanner().plan(PROMPT).plan
    questions = [op.question for op in plan.operations if isinstance(op, JudgeOp)]
    assert "Is there a red ball in the video?" in questions and "Is there a blue ball in the video?" in questions
    explicit = [c for c in RulesPlanner(implicit=False).plan(PROMPT).plan.claims]
    assert len(questions) == 2 + len(explicit)
    assert not any(isinstance(op, MeasureOp) for op in plan.operations)


def test_implicit_switch_and_the_explicit_only_preset():
    on, off = RulesPlanner(implicit=True).plan(PROMPT).plan, RulesPlanner(implicit=False).plan(PROMPT).plan
    assert {c.kind for c in off.claims} == {"explicit"}
    # each ball's presumed obligations, and two of the whole scene (nothing appears from nowhere; time runs on)
    assert sum(c.kind == "implicit" for c in on.claims) == 2 * len(IMPLICIT_QUANTITIES) + 2
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["critic/planner=explicit_only"])
    assert instantiate(cfg.critic.planner).implicit == ()


def _w(a, b):
    """A window timed on a 1 kHz frame grid (its one-frame slack floor, 1 ms, is below these slacks)."""
    return TimeWindow(start_s=a, end_s=b, start_frame=int(a * 1000), end_frame=max(int(a * 1000), int(b * 1000) - 1))


def test_slack_fraction_widens_or_narrows_the_temporal_predicates():
    a, b = _w(0.0, 1.0), _w(0.9, 1.3)  # A overruns B's start by 0.1 s; the shorter window is 0.4 s
    assert before(a, b, fraction=0.25).state == "supported"  # slack 0.1 s
    assert before(a, b, fraction=0.1).state == "unknown"  # slack 0.04 s: they overlap, no order shows
    late = _w(1.35, 2.0)  # starts 0.05 s after B ends: reversed beyond a 0.04 s slack, not beyond 0.1 s
    assert before(late, b, fraction=0.1).state == "contradicted"
    assert before(late, b, fraction=0.25).state == "unknown"
    # B straddling A's start is neither inside nor apart (unknown); B wholly before A's start is apart
    assert contains(_w(1.0, 2.0), _w(0.95, 1.5), fraction=0.0).state == "unknown"
    assert contains(_w(1.0, 2.0), _w(0.90, 0.99), fraction=0.0).state == "contradicted"
    assert contains(_w(1.0, 2.0), _w(0.90, 0.99), fraction=0.25).state == "unknown"  # slack 0.0225 s: it reaches A
    assert Aggregator().slack_fraction == 0.25
    with pytest.raises(ValueError):
        Aggregator(slack_fraction=1.5)


def test_slack_fraction_reaches_the_temporal_operations_of_a_critique(tmp_path):
    """The aggregator's option is what the executor applies to ``before``: the fall ends 0.2 s (two frames) after
    the bounce's contact starts; a quarter of the 0.8 s contact window forgives it, a tenth (floored at one frame,
    0.1 s) does not, and then the fall and the contact overlap: no order shows either way."""
    script = {"free_fall": {"state": "supported", "windows": {"airborne": [0, 10]}},
              "bounce": {"state": "supported", "windows": {"contact": [9, 16], "rebound": [9, 16]}},
              "default": {"state": "supported"}}
    states = {}
    for fraction in (0.25, 0.1):
        other = ScriptedSpecialist(script)
        specs = {"ground": FakeGrounder(),
                 **{k: other for k in ("measure", "count", "scene", "read", "hear", "depth", "judge")}}
        comp = CriticComponents(planner=RulesPlanner(implicit=False), specialists=specs,
                                aggregator=Aggregator(slack_fraction=fraction), report=False)
        v = critique("fake.mp4", "A red ball falls, then bounces twice.", comp, tmp_path / str(fraction),
                     video=fake_video(num_frames=20, fps=10))
        states[fraction] = v.verdict
    assert states == {0.25: "supported", 0.1: "unknown"}
