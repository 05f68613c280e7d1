"""Every preset in conf/experiment/ runs in its tiny form (docs/architecture.md §8). ``release_sweep`` runs in
test_experiments_sweep.py (its killed-and-resumed sweep), ``control_check`` in its submitit test and
``paper_figures`` in test_experiments_figures.py, ``refine`` in test_refine.py."""

import csv
from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from experiments import jobstate
from sim.io import save_spec

from .conftest import TINY, job_dirs, run_app

CONF = Path(__file__).resolve().parents[2] / "conf"
RUN_ELSEWHERE = {"release_sweep", "control_check", "paper_figures", "refine"}
# Ablations: the annotated corpus rendered from the scene at a small size.
ABLATION_TINY = ["tracker=none", "video.width=96", "video.height=64", "video.num_frames=21", "video.fps=24"]
TINY_ARGS = {
    "ablate_planner": ["-m", "experiment=ablate_planner", *ABLATION_TINY],
    "ablate_specialists": ["-m", "experiment=ablate_specialists", *ABLATION_TINY],
    "demo": ["-m", "experiment=demo", "tracker=none", "probe.release_step=0,3", "seed=0", *TINY],
}


# The field's suites (experiment=suite_*) run in tests/suites/test_suites_presets.py.
SUITE_PRESETS = {"suite_videophy2", "suite_vbench2", "suite_dsg", "suite_physics_iq"}


def test_every_preset_has_a_tiny_run():
    presets = {p.stem for p in (CONF / "experiment").glob("*.yaml")}
    assert presets == set(TINY_ARGS) | RUN_ELSEWHERE | SUITE_PRESETS


@pytest.mark.parametrize("preset", sorted(TINY_ARGS))
def test_preset_runs_in_tiny_form(preset, tmp_path):
    args = list(TINY_ARGS[preset])
    if preset == "demo":
        # The shipped thrown ball as the "revised" scene (a measurable one: see conf/scene/thrown_ball.yaml).
        save_spec(instantiate(OmegaConf.load(CONF / "scene" / "thrown_ball.yaml")), tmp_path / "scene.json")
        args.append(f"scene.path={tmp_path / 'scene.json'}")
    out = run_app(args, tmp_path, env={"VERIPHY_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    if preset.startswith("ablate"):
        sweep = tmp_path / "outputs" / preset / preset
        with open(sweep / "ablation.csv") as f:
            rows = list(csv.DictReader(f))
        # the planner sweep: the rules planner and the three baselines (ungated, explicit_only, questions)
        assert len(rows) == (4 if preset == "ablate_planner" else 1)
        for row in rows:
            assert int(row["clips"]) == 3 and int(row["defects"]) == 2 and int(row["clean_clips"]) == 1
            assert sum(int(row[k]) for k in ("supported", "contradicted", "unknown", "error")) == 3
            assert sum(int(row[k]) for k in ("whole", "partial", "missed")) == 2
            assert row["option"].startswith("critic/")
        assert (sweep / "ablation.md").is_file()
    else:
        sweep = tmp_path / "outputs" / "demo" / "demo" / "sweep"
        jobs = job_dirs(sweep)
        assert [p.name for p in jobs] == ["revised_red_on_grey-thrown_ball_seed0_release0",
                                          "revised_red_on_grey-thrown_ball_seed0_release3"]
        assert all(jobstate.job_complete(p) for p in jobs)


@pytest.mark.slow
def test_demo_main_end_to_end(tmp_path):
    out = run_app(["--out", str(tmp_path / "demo"), "--release-steps", "0,3", "--seeds", "0,1", "--num-steps", "3",
                   "--tracker", "none", "--override", "video.width=32", "video.height=32", "generator=tiny_random"],
                  tmp_path, module="experiments.demo")
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    assert "verdicts:" in out.stdout and (tmp_path / "demo" / "critic" / "verdicts.jsonl").is_file()
    figures = tmp_path / "demo" / "sweep" / "figures"
    assert sorted(p.name for p in figures.glob("*.png")) == ["fig5_retention_vs_sigma.png",
                                                              "fig6_depth_vs_generated.png"]
    assert str(figures / "fig5_retention_vs_sigma.pdf") in out.stdout


def test_bad_setting_is_a_user_error(tmp_path):
    out = run_app(["experiment=control_check", "tracker=none", "retention.threshold=2"], tmp_path)
    assert out.returncode == 2
    assert "error:" in out.stderr and "retention.threshold" in out.stderr and "Traceback" not in out.stderr
