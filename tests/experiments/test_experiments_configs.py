"""Every config of the experiments' groups instantiates (cheaply), and every preset composes."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import get_class, instantiate

from experiments.executors import executor_name

CONF = Path(__file__).resolve().parents[2] / "conf"
GROUPS = ("tracker", "executor", "job", "framing")
PRESETS = sorted(p.stem for p in (CONF / "experiment").glob("*.yaml"))


def _options(group):
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("group,option", [(g, o) for g in GROUPS for o in _options(g)])
def test_group_option_instantiates(group, option):
    with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
        cfg = compose("experiments_app", overrides=[f"{group}={option}"])
    obj = instantiate(cfg[group])
    assert type(obj) is get_class(cfg[group]._target_)
    if group == "executor":  # the name summary.csv records is the option's
        assert executor_name(obj) == option


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_composes(preset):
    overrides = [f"experiment={preset}"] + (["scene.path=x.json"] if preset == "demo" else [])
    with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
        cfg = compose("experiments_app", overrides=overrides, return_hydra_config=True)
    assert cfg.retention.threshold == 0.7
    # a stable sweep directory (no timestamp): rerunning the same command resumes the sweep
    assert "${now:" not in str(cfg.hydra.sweep.dir)


def test_app_nodes_instantiate():
    with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
        cfg = compose("experiments_app")
    tracker = instantiate(cfg.object_tracker)
    assert tracker.tracker_kwargs == {"gate_radii": 8.0}
    spec = instantiate(cfg.scene)
    assert spec.objects[0].name == "ball"


def test_launcher_choices_are_available():
    with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
        for launcher in ("basic", "joblib", "submitit_local", "submitit_slurm"):
            cfg = compose("experiments_app", overrides=[f"hydra/launcher={launcher}"], return_hydra_config=True)
            assert "_target_" in cfg.hydra.launcher
