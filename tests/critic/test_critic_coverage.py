"""Planner coverage on external prompt suites (``python -m critic.coverage``): fixed halves, the suites' readers,
the coverage target on physics prompts, the unplanned words, the command line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from critic.coverage import (HALVES, PhysicsIQSuite, VBench2Suite, VideoPhySuite, half_of, measure_coverage,
                             prompt_coverage, summarise)
from critic.planners.rules import RulesPlanner

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = Path(os.environ.get("VERIPHY_EXTERNAL_DIR", ROOT / "tests" / "data" / "external"))


def test_halves_depend_on_the_text_alone():
    assert half_of("A ball falls.") == half_of("  a BALL falls.  ")
    texts = [f"A ball number {k} falls." for k in range(400)]
    share = sum(half_of(t) == "dev" for t in texts) / len(texts)
    assert set(map(half_of, texts)) == set(HALVES) and 0.4 < share < 0.6


def test_suites_read_the_repository_copies():
    vbench = VBench2Suite(default=str(EXTERNAL / "VBench")).prompts()
    assert len({p.group for p in vbench}) == 18 and len(vbench) > 1000
    assert {p.group for p in vbench if p.physics} == {"Mechanics", "Thermotics", "Material"}
    piq = PhysicsIQSuite(default=str(EXTERNAL / "physics-IQ-benchmark")).prompts()
    assert len(piq) == 65 and all(p.physics for p in piq)  # 396 rows, 65 distinct descriptions
    phy = VideoPhySuite(default=str(EXTERNAL / "videophy")).prompts()
    assert {p.group for p in phy} == {"v1 caption", "v2 caption", "v2 rule"}


@pytest.mark.parametrize("suite", [VBench2Suite(default=str(EXTERNAL / "VBench")),
                                   PhysicsIQSuite(default=str(EXTERNAL / "physics-IQ-benchmark"))],
                         ids=["vbench2", "physics_iq"])
def test_physics_prompts_get_a_typed_claim(suite):
    """The target: >= 90 % of physics prompts get at least one typed claim, on the half the rules were written
    from and on the half nobody read while writing them."""
    prompts = [p for p in suite.prompts() if p.physics]
    summary = summarise(measure_coverage(RulesPlanner(), prompts))
    for half in HALVES:
        assert summary[half]["physics"]["typed"] >= 0.9, (half, summary[half]["physics"])


def test_prompt_coverage_counts_claims_and_unplanned_words():
    plan = RulesPlanner().plan("A red ball falls. Everything else is motionless. Static shot.").plan
    cov = prompt_coverage(plan)
    assert cov["claims"] == 1 and cov["instrumented"] == 1
    assert cov["unplanned_physical"] == ["Everything else is motionless"]
    assert cov["unplanned_words"] == ["everything", "motionless", "static", "shot"]


def test_command_line_writes_tables(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), HYDRA_FULL_ERROR="0")
    cmd = [sys.executable, "-m", "critic.coverage", "prompt_suite=videophy", f"suite_dir={EXTERNAL / 'videophy'}",
           f"hydra.run.dir={tmp_path / 'run'}"]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "run" / "coverage.json").read_text())
    assert data["suite"] == "videophy" and set(data) >= {"dev", "held_out", "all"}
    assert data["all"]["all"]["prompts"] == len((tmp_path / "run" / "prompts.jsonl").read_text().splitlines())
    assert "| **physics** |" in (tmp_path / "run" / "coverage.md").read_text()
    r = subprocess.run([sys.executable, "-m", "critic.coverage", "prompt_suite=dsg", f"hydra.run.dir={tmp_path / 'x'}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "suite_dir" in r.stderr and "Traceback" not in r.stderr
