"""Planner coverage: typed claims, the suites' typed expectations recovered as operations, unplanned words."""

from __future__ import annotations

import json

from critic.planners.base import PlanResult
from critic.planners.rules import RulesPlanner
from critic.suites.base import import_suite
from critic.suites.coverage import has_typed_claim, measure_coverage, unplanned
from critic.suites.dsg import DSGTuples
from critic.suites.plans import find_before, locate_phrase
from critic.suites.types import SourceRef, SuiteItem
from critic.suites.vbench2 import VBench2Prompts
from critic.types import Claim, JudgeOp, Obligation, Plan

from .conftest import run_module


def _item(prompt: str, suite: str = "vbench2", **expect) -> SuiteItem:
    return SuiteItem(id="x", video="x.mp4", prompt=prompt, suite=suite, expect=expect,
                     source=SourceRef(file="f", line=1))


class JudgeOnlyPlanner:
    """Every prompt: one explicit claim over its first word, decided by the judge alone."""

    name = "judge_only"

    def plan(self, prompt, lessons=None):
        end = prompt.index(" ")
        return PlanResult(plan=Plan(prompt=prompt, claims=[Claim(id="c1", text=prompt[:end], span=(0, end))],
                                    obligations=[Obligation(id="c1.1", claim="c1", check="o1")],
                                    operations=[JudgeOp(id="o1", claim="c1", question="?")]))


def test_a_claim_only_the_judge_decides_is_not_typed_and_unplanned_words_are_ranked():
    items = [_item("Smoke swirls upward slowly in the room."), _item("Smoke swirls upward slowly in the room."),
             _item("Honey drips slowly from a spoon.")]
    report = measure_coverage(VBench2Prompts(), items, JudgeOnlyPlanner())
    assert (report.rows, report.prompts, report.with_claim, report.with_typed_claim) == (3, 2, 2, 0)
    assert report.share_typed == 0.0 and report.planner == "judge_only"
    # "smoke" and "honey" are inside the claims; "slowly" is left unplanned in both prompts
    top = report.unplanned_words[0]
    assert (top.text, top.prompts, top.occurrences) == ("slowly", 2, 2)
    assert "smoke" not in {w.text for w in report.unplanned_words}
    assert {w.text for w in report.unplanned_constructions} >= {"swirls upward", "upward slowly", "drips slowly"}


def test_rules_planner_recovers_the_dsg_count_and_text_tuples_it_can_measure(fixture_path, tmp_path):
    items = import_suite(DSGTuples(), fixture_path("dsg"), tmp_path / "m.jsonl").items
    report = measure_coverage(DSGTuples(), items, RulesPlanner())
    targets = {t.kind: t for t in report.targets}
    assert set(targets) == {"count", "text"}
    assert (targets["text"].recovered, targets["text"].total) == (1, 1)   # the sign that says 'Please refrain ...'
    assert targets["count"].total == 2                                    # soccer balls ==2, stamps ==4
    missed = {m.expected for m in targets["count"].misses}
    assert "other - count (soccer balls, ==2)" not in missed              # "two soccer balls" -> count(ball, 2)
    assert report.prompts == 4 and report.with_typed_claim >= 2


def test_ordered_actions_are_recovered_as_before_checks():
    planner = RulesPlanner()
    suite = VBench2Prompts()
    found = suite.coverage_targets(_item("A red ball falls to the floor, then it bounces twice.",
                                         actions=["falling", "bounces"]),
                                   planner.plan("A red ball falls to the floor, then it bounces twice.").plan)
    assert [(t.kind, t.recovered) for t in found] == [("order", True)]
    # the actions in the other order are not what the plan checks
    prompt = "A red ball falls to the floor, then it bounces twice."
    plan = planner.plan(prompt).plan
    falls, bounces = locate_phrase(prompt, "falls"), locate_phrase(prompt, "bouncing")
    assert prompt[falls[0]:falls[1]] == "falls" and prompt[bounces[0]:bounces[1]] == "bounces"
    assert find_before(plan, falls, bounces) is not None and find_before(plan, bounces, falls) is None
    missing = suite.coverage_targets(_item(prompt, actions=["sitting", "bounces"]), plan)
    assert not missing[0].recovered and missing[0].note == "an action is not found in the prompt"


def test_expected_counts_of_one_are_kept_apart(fixture_path, tmp_path):
    items = import_suite(VBench2Prompts(samples=3), fixture_path("vbench2"), tmp_path / "m.jsonl").items
    report = measure_coverage(VBench2Prompts(samples=3), items, RulesPlanner())
    totals = {t.kind: t.total for t in report.targets}
    # Instance_Preservation: "1.orange dog", "2.orange dog", "1.red ball and 1.blue ball" (samples counted once)
    assert totals == {"count=1": 3, "count": 1, "order": 2}
    assert report.rows == 30 and report.prompts == 10


def test_typed_claims_of_a_physical_prompt():
    plan = RulesPlanner().plan("A red ball falls and bounces twice on the floor.").plan
    assert has_typed_claim(plan)
    words, _ = unplanned(plan)
    assert "ball" not in words


def test_coverage_command_writes_its_report(fixture_path, tmp_path):
    out = run_module("critic.suites", ["coverage", "dsg", f"path={fixture_path('dsg')}", "out=cov", "progress=false",
                                       "hydra.run.dir=run"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| dsg | 4 |" in out.stdout
    report = json.loads((tmp_path / "cov" / "coverage.json").read_text())
    assert report["planner"] == "rules" and report["prompts"] == 4
    assert (tmp_path / "cov" / "coverage.md").read_text().startswith("# Planner coverage: dsg")
