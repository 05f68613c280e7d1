"""The suite presets (``experiment=suite_<name>``) in their tiny form, on the committed excerpts, and every suite
config through the ``critic.suites`` app."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import instantiate

from critic.suites.base import Suite

from .conftest import ROOT, run_module

CONF = ROOT / "conf"
#: The suite presets; tests/experiments/test_experiments_presets.py counts them as run here.
SUITE_PRESETS = {"suite_videophy2", "suite_vbench2", "suite_dsg", "suite_physics_iq"}


def test_the_suite_presets_are_the_ones_tested_here():
    assert {p.stem for p in (CONF / "experiment").glob("suite_*.yaml")} == SUITE_PRESETS


@pytest.mark.parametrize("suite", sorted(p.stem for p in (CONF / "suite").glob("*.yaml")))
def test_every_suite_config_instantiates(suite):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="suites_app", overrides=[f"suite={suite}", "command=import"])
    obj = instantiate(cfg.suite)
    assert isinstance(obj, Suite) and obj.name == suite


def _job(tmp_path: Path, preset: str) -> Path:
    return tmp_path / "outputs" / preset / preset.removeprefix("suite_")


def test_videophy2_preset_imports_critiques_exports_and_agrees(fixture_path, tmp_path):
    args = ["experiment=suite_videophy2", f"job.path={fixture_path('videophy2')}", "tracker=none"]
    out = run_module("experiments.run", args, tmp_path)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    job = _job(tmp_path, "suite_videophy2")
    metrics = json.loads((job / "metrics.json").read_text())
    assert metrics["items"] == 4 and metrics["critiqued"] is True and sum(metrics["verdicts"].values()) == 4
    with open(job / "export" / "output_rule.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r[""] for r in rows] == ["0", "1", "3", "5"] and all(r["score"] in ("0.0", "1.0", "2.0") for r in rows)
    agreement = json.loads((job / "agreement" / "agreement.json").read_text())
    assert agreement["labelled"] == 4 and sum(sum(row.values()) for row in agreement["matrix"].values()) == 4
    assert metrics["agreement"]["agree"] == agreement["agree"]
    assert (job / "coverage" / "coverage.md").is_file() and (job / "critic" / "verdicts.jsonl").is_file()
    # the same command again finds the job complete and skips it
    again = run_module("experiments.run", args, tmp_path)
    assert again.returncode == 0 and "complete, skipped" in again.stdout + again.stderr


@pytest.mark.parametrize("preset", ["suite_vbench2", "suite_dsg", "suite_physics_iq"])
def test_prompt_suite_presets_import_and_measure_coverage_without_clips(preset, fixture_path, tmp_path):
    suite = preset.removeprefix("suite_")
    out = run_module("experiments.run", [f"experiment={preset}", f"job.path={fixture_path(suite)}", "tracker=none"],
                     tmp_path)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    job = _job(tmp_path, preset)
    metrics = json.loads((job / "metrics.json").read_text())
    assert metrics["critiqued"] is False and metrics["items"] > 0 and "verdicts" not in metrics
    assert json.loads((job / "coverage" / "coverage.json").read_text())["suite"] == suite
    assert len((job / "manifest.jsonl").read_text().splitlines()) == metrics["items"]


def test_a_preset_without_the_suites_file_is_a_user_error(tmp_path):
    out = run_module("experiments.run", ["experiment=suite_dsg", "tracker=none"], tmp_path)
    assert out.returncode == 2 and "error: job.path: give the suite's file" in out.stderr
    assert "Traceback" not in out.stderr
