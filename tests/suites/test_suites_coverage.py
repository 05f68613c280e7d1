"""Planner coverage: typed and instrumented claims, the physics prompts and groups, the dev and held-out halves, the
suites' typed expectations recovered as operations, unplanned words and constructions, the command line."""

from __future__ import annotations

import json

import pytest

from critic.planners.base import PlanResult, unplanned_spans
from critic.planners.rules import RulesPlanner
from critic.suites.base import import_suite
from critic.suites.coverage import (HALVES, half_of, is_instrumented, is_typed, measure_coverage, prompt_coverage,
                                    unplanned)
from critic.suites.dsg import DSGTuples
from critic.suites.physics_iq import PhysicsIQDescriptions
from critic.suites.plans import find_before, locate_phrase
from critic.suites.types import SourceRef, SuiteItem
from critic.suites.vbench2 import VBench2Prompts
from critic.suites.videophy2 import VideoPhy2Captions
from critic.types import Claim, JudgeOp, Obligation, Plan
from veriphy.errors import UserError

from .conftest import run_module


def _item(prompt: str, suite: str = "vbench2", item_id: str = "x", **expect) -> SuiteItem:
    return SuiteItem(id=item_id, video="x.mp4", prompt=prompt, suite=suite, expect=expect,
                     source=SourceRef(file="f", line=1))


class JudgeOnlyPlanner:
    """Every prompt: one explicit claim over its first word, decided by the judge alone."""

    name = "judge_only"

    def plan(self, prompt, lessons=None):
        end = prompt.index(" ")
        claims = [Claim(id="c1", text=prompt[:end], span=(0, end))]
        return PlanResult(plan=Plan(prompt=prompt, claims=claims,
                                    obligations=[Obligation(id="c1.1", claim="c1", check="o1")],
                                    operations=[JudgeOp(id="o1", claim="c1", question="?")],
                                    unplanned=unplanned_spans(prompt, claims)))


class RejectingPlanner:
    name = "rejecting"

    def plan(self, prompt, lessons=None):
        return PlanResult(plan=None, rejected=("no",))


def test_halves_depend_on_the_text_alone():
    assert half_of("A ball falls.") == half_of("  a BALL falls.  ")
    texts = [f"A ball number {k} falls." for k in range(400)]
    share = sum(half_of(t) == "dev" for t in texts) / len(texts)
    assert set(map(half_of, texts)) == set(HALVES) and 0.4 < share < 0.6


def test_a_claim_only_the_judge_decides_is_typed_not_instrumented_and_unplanned_words_are_ranked():
    items = [_item("Smoke swirls upward slowly in the room.", dimension="Mechanics"),
             _item("Smoke swirls upward slowly in the room.", dimension="Mechanics"),
             _item("Honey drips slowly from a spoon.", dimension="Material")]
    report, prompts = measure_coverage(VBench2Prompts(physics=["Material"]), items, JudgeOnlyPlanner())
    whole = report.halves["all"]
    assert (report.rows, report.prompts, whole.all.typed, whole.all.instrumented) == (3, 2, 2, 0)
    assert whole.all.share_typed == 1.0 and whole.all.share_instrumented == 0.0 and report.planner == "judge_only"
    assert (whole.physics.prompts, set(whole.groups)) == (1, {"Mechanics", "Material"})
    assert [p.groups for p in prompts] == [["Mechanics"], ["Material"]]
    # "smoke" and "honey" are inside the claims; "slowly" is left unplanned in both prompts
    top = whole.unplanned_words[0]
    assert (top.text, top.prompts, top.occurrences) == ("slowly", 2, 2)
    assert "smoke" not in {w.text for w in whole.unplanned_words}
    assert {w.text for w in whole.unplanned_constructions} >= {"swirls upward", "upward slowly", "drips slowly"}


def test_each_half_counts_its_own_prompts_and_one_half_plans_only_its_own():
    texts = [f"A red ball number {k} falls to the floor." for k in range(12)]
    items = [_item(t, item_id=f"i{k}", dimension="Mechanics") for k, t in enumerate(texts)]
    report, prompts = measure_coverage(VBench2Prompts(), items, RulesPlanner())
    assert set(report.halves) == {"dev", "held_out", "all"}
    dev, held_out, whole = (report.halves[h].all.prompts for h in ("dev", "held_out", "all"))
    assert dev == sum(half_of(t) == "dev" for t in texts) and dev + held_out == whole == 12 and 0 < dev < 12
    only, rows = measure_coverage(VBench2Prompts(), items, RulesPlanner(), half="held_out")
    assert set(only.halves) == {"held_out"} and only.prompts == held_out
    assert {r.half for r in rows} == {"held_out"}
    with pytest.raises(UserError, match="half must be one of"):
        measure_coverage(VBench2Prompts(), items, RulesPlanner(), half="test")


def test_a_rejected_plan_counts_as_a_prompt_without_a_claim():
    report, prompts = measure_coverage(VBench2Prompts(), [_item("A ball falls.", dimension="Mechanics")],
                                       RejectingPlanner())
    whole = report.halves["all"]
    assert (whole.all.prompts, whole.all.typed, whole.rejected) == (1, 0, 1) and prompts[0].rejected


def test_prompt_coverage_counts_claims_unplanned_clauses_and_words():
    plan = RulesPlanner().plan("A red ball falls. Gravity is weak here. Static shot.").plan
    cov = prompt_coverage(plan.prompt, plan, ["g"], True)
    assert (cov.claims, cov.typed, cov.instrumented) == (1, True, True)
    assert [u["text"] for u in cov.unplanned if u["physical"]] == ["Gravity is weak here"]
    assert cov.unplanned_words == ["gravity", "weak", "static", "shot"]
    assert cov.unplanned_constructions == ["static shot"]


def test_typed_claims_of_a_physical_prompt():
    plan = RulesPlanner().plan("A red ball falls and bounces twice on the floor.").plan
    assert is_typed(plan) and is_instrumented(plan)
    words, _ = unplanned(plan)
    assert "ball" not in words


@pytest.mark.parametrize(("suite", "fixture"), [(VBench2Prompts(), "vbench2"), (PhysicsIQDescriptions(), "physics_iq")],
                         ids=["vbench2", "physics_iq"])
def test_physics_prompts_get_a_typed_claim_on_both_halves(suite, fixture, fixture_path):
    """The target: >= 90 % of the physics prompts get at least one typed claim, on the half rules may be written
    from and on the half nobody read while writing them."""
    items = [it for it in suite.read(fixture_path(fixture)).items if suite.is_physics(it)]
    report, _ = measure_coverage(suite, items, RulesPlanner())
    for half in HALVES:
        physics = report.halves[half].physics
        assert physics.prompts > 20 and physics.share_typed >= 0.9, (half, physics)


def test_physics_subsets_and_groups_of_the_suites(fixture_path):
    vbench = VBench2Prompts()
    items = vbench.read(fixture_path("vbench2")).items
    assert {vbench.coverage_group(it) for it in items if vbench.is_physics(it)} == {"Mechanics", "Thermotics",
                                                                                      "Material"}
    assert len({vbench.coverage_group(it) for it in items}) == 18
    piq = PhysicsIQDescriptions()
    piq_items = piq.read(fixture_path("physics_iq")).items
    assert all(piq.is_physics(it) for it in piq_items)
    assert {piq.coverage_group(it) for it in piq_items} == {"Solid Mechanics", "Fluid Dynamics", "Optics",
                                                            "Thermodynamics", "Magnetism"}
    dsg_items = DSGTuples().read(fixture_path("dsg")).items
    assert not any(DSGTuples().is_physics(it) for it in dsg_items)
    assert {DSGTuples().coverage_group(it) for it in dsg_items} == {"whoops", "tifa160", "drawtext", "countbench"}
    captions = VideoPhy2Captions()
    assert {captions.coverage_group(it) for it in captions.read(fixture_path("videophy2_captions")).items} == {"caption"}
    with pytest.raises(UserError, match="unknown dimension"):
        VBench2Prompts(physics=["Mechanic"])


def test_rules_planner_recovers_the_dsg_count_and_text_tuples_it_can_measure(fixture_path, tmp_path):
    items = import_suite(DSGTuples(), fixture_path("dsg"), tmp_path / "m.jsonl").items
    report, _ = measure_coverage(DSGTuples(), items, RulesPlanner())
    whole = report.halves["all"]
    targets = {t.kind: t for t in whole.targets}
    assert set(targets) == {"count", "text"}
    assert (targets["text"].recovered, targets["text"].total) == (1, 1)   # the sign that says 'Please refrain ...'
    # soccer balls ==2, stamps ==4: a number before a plural is a count of that noun, moving or not
    assert (targets["count"].recovered, targets["count"].total) == (2, 2)
    assert report.prompts == 4 and whole.all.instrumented == 4
    # each half holds the targets of its own prompts
    assert sum(sum(t.total for t in report.halves[h].targets) for h in HALVES) == 3
    # a count of a moving subject is recovered, matched on the head noun ("two soccer balls" -> count(ball, 2))
    moving = tmp_path / "moving.csv"
    moving.write_text(fixture_path("dsg").read_text().splitlines()[0] + "\n"
                      'x_1,two soccer balls roll on a gravel driveway,"soccer balls, ==2",1,0,other,count,'
                      '"other - count (soccer balls, ==2)",Are there two soccer balls?\n')
    report, _ = measure_coverage(DSGTuples(), DSGTuples().read(moving).items, RulesPlanner())
    [count] = report.halves["all"].targets
    assert (count.kind, count.recovered, count.total) == ("count", 1, 1)


def test_ordered_actions_are_recovered_as_before_checks():
    planner = RulesPlanner()
    suite = VBench2Prompts()
    prompt = "A red ball falls to the floor, then it bounces twice."
    plan = planner.plan(prompt).plan
    found = suite.coverage_targets(_item(prompt, actions=["falling", "bounces"]), plan)
    assert [(t.kind, t.recovered) for t in found] == [("order", True)]
    # the actions in the other order are not what the plan checks
    falls, bounces = locate_phrase(prompt, "falls"), locate_phrase(prompt, "bouncing")
    assert prompt[falls[0]:falls[1]] == "falls" and prompt[bounces[0]:bounces[1]] == "bounces"
    assert find_before(plan, falls, bounces) is not None and find_before(plan, bounces, falls) is None
    missing = suite.coverage_targets(_item(prompt, actions=["sitting", "bounces"]), plan)
    assert not missing[0].recovered and missing[0].note == "an action is not found in the prompt"


def test_expected_counts_of_one_are_kept_apart(vbench2_pick, tmp_path):
    items = import_suite(VBench2Prompts(samples=3), vbench2_pick, tmp_path / "m.jsonl").items
    report, _ = measure_coverage(VBench2Prompts(samples=3), items, RulesPlanner())
    totals = {t.kind: t.total for t in report.halves["all"].targets}
    # Instance_Preservation: "1.orange dog", "2.orange dog", "1.red ball and 1.blue ball" (samples counted once)
    assert totals == {"count=1": 3, "count": 1, "order": 2}
    assert report.rows == 30 and report.prompts == 10


def test_coverage_command_writes_its_report(fixture_path, tmp_path):
    out = run_module("critic.suites", ["coverage", "dsg", f"path={fixture_path('dsg')}", "out=cov", "progress=false",
                                       "hydra.run.dir=run"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| dsg | all | 4 |" in out.stdout and "| dsg | held_out |" in out.stdout
    report = json.loads((tmp_path / "cov" / "coverage.json").read_text())
    assert report["planner"] == "rules" and report["prompts"] == 4 and report["half"] == "all"
    assert set(report["halves"]) == {"dev", "held_out", "all"}
    prompts = [json.loads(line) for line in (tmp_path / "cov" / "prompts.jsonl").read_text().splitlines()]
    assert len(prompts) == 4 and {p["half"] for p in prompts} <= set(HALVES)
    markdown = (tmp_path / "cov" / "coverage.md").read_text()
    assert markdown.startswith("# Planner coverage: dsg") and "| **physics** |" in markdown
    # one half: only its prompts are planned and reported
    out = run_module("critic.suites", ["coverage", "videophy2_captions", f"path={fixture_path('videophy2_captions')}",
                                       "half=dev", "progress=false", "hydra.run.dir=run2"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads((tmp_path / "run2" / "coverage.json").read_text())
    assert list(report["halves"]) == ["dev"] and report["halves"]["dev"]["physics"]["prompts"] == report["prompts"]
    assert report["prompts"] == sum(half_of(it.prompt) == "dev"
                                    for it in VideoPhy2Captions().read(fixture_path("videophy2_captions")).items)
