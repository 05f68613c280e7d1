"""Memory M: lessons with provenance pass a candidate-and-pruning gate; the planner reads accepted ones."""

import json

import pytest

from critic.memory import Lesson, Memory, Provenance
from critic.planners.rules import RulesPlanner
from critic.plan import validate_plan
from veriphy.errors import UserError

SPIN = Lesson(id="spin-size", text="spinning objects keep their size", trigger=r"\bspins?\b",
              quantity="size_constancy", provenance=Provenance(clip="clip_017", flaw="ball shrinks while spinning",
                                                               source="review of missed flaws"))


def test_gate_accepts_useful_and_prunes_noisy(tmp_path):
    mem = Memory(tmp_path / "lessons.json", min_hits=2, max_false_alarms=0)
    mem.propose(SPIN)
    mem.propose(SPIN.model_copy(update={"id": "noisy"}))
    assert mem.active() == []  # candidates are never used
    assert mem.review("spin-size", hits=2, false_alarms=0).status == "accepted"
    assert mem.review("noisy", hits=3, false_alarms=1).status == "pruned"
    assert [l.id for l in mem.active()] == ["spin-size"]
    mem.save()
    again = Memory(tmp_path / "lessons.json")
    assert [l.id for l in again.active()] == ["spin-size"]
    assert again.lessons["spin-size"].provenance.clip == "clip_017"
    assert json.loads((tmp_path / "lessons.json").read_text())["lessons"][0]["provenance"]["flaw"]


def test_planner_applies_accepted_lessons_only():
    prompt = "A red ball spins and falls."
    base = RulesPlanner().plan(prompt).plan
    accepted = SPIN.model_copy(update={"status": "accepted", "quantity": "bounce", "expect": {"holds": False}})
    with_lesson = RulesPlanner().plan(prompt, [accepted]).plan
    assert validate_plan(with_lesson) == []
    new = [c for c in with_lesson.claims if "spinning objects keep their size" in c.text]
    assert len(with_lesson.claims) == len(base.claims) + 1
    assert new and prompt[new[0].span[0]:new[0].span[1]] == "spins"
    check = next(with_lesson.op(o.check) for o in with_lesson.obligations if o.claim == new[0].id)
    assert check.quantity == "bounce" and check.expect.holds is False


def test_bad_memory_file_is_a_user_error(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"lessons": [{"id": "x", "text": "t", "trigger": "(", "quantity": "rest"}]}))
    with pytest.raises(UserError):
        Memory(p)
    p.write_text(json.dumps({"lessons": [{"id": "x", "text": "t", "trigger": "a", "quantity": "gravity"}]}))
    with pytest.raises(UserError):
        Memory(p)
