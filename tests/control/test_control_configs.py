"""Every config in the ``control`` group (and its ``renderer`` subgroup) composes and instantiates."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import get_class, instantiate

from control.depth import DepthControl

CONF = Path(__file__).resolve().parents[2] / "conf"
CONTROLS = sorted(p.stem for p in (CONF / "control").glob("*.yaml"))
RENDERERS = sorted(p.stem for p in (CONF / "control" / "renderer").glob("*.yaml"))


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose(config_name="control_app", overrides=overrides)


def test_groups_are_not_empty():
    assert "depth" in CONTROLS and {"analytic", "tinyrenderer"} <= set(RENDERERS)


@pytest.mark.parametrize("name", CONTROLS)
def test_control_config_instantiates(name):
    cfg = _compose([f"control={name}"])
    control = instantiate(cfg.control)
    assert isinstance(control, DepthControl)
    assert type(control.renderer) is get_class(cfg.control.renderer._target_)


@pytest.mark.parametrize("name", RENDERERS)
def test_renderer_config_instantiates(name):
    cfg = _compose([f"control/renderer={name}"])
    renderer = instantiate(cfg.control.renderer)
    assert type(renderer) is get_class(cfg.control.renderer._target_)
    assert instantiate(cfg.control).renderer.__class__ is renderer.__class__


def test_primary_config_defaults():
    cfg = _compose([])
    assert cfg.task == "control" and cfg.num_threads == 1
    assert cfg.control.percentile_scope == "video" and cfg.control.near_percentile == 5.0
    assert cfg.control.include_statics is False and cfg.control.near_is_bright is True
    assert cfg.control.renderer._target_ == "control.render.AnalyticRenderer"
    assert cfg.run_dir is None and cfg.scene_file is None and cfg.get("scene") is None
