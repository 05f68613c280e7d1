"""Every config of the generator/, scheduler/ and probe/ groups composes and instantiates (cheaply)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import get_class, instantiate

from veriphy.errors import UserError

CONF = Path(__file__).resolve().parents[2] / "conf"


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose(config_name="generate_app", overrides=overrides)


def test_app_composes_with_defaults():
    cfg = _compose(["control_dir=/tmp/x", "prompt=a ball"])
    assert cfg.task == "generate" and cfg.num_threads == 1
    assert cfg.generator._target_ == "generate.models.TinyGenerator"


@pytest.mark.parametrize("option", _options("generator"))
def test_generator_configs_instantiate(option):
    overrides = [f"generator={option}"]
    if option.startswith("wan"):
        overrides.append("generator.path=/nonexistent/weights")
    node = _compose(overrides).generator
    builder = instantiate(node, _convert_="all")
    assert type(builder) is get_class(node._target_)
    assert builder.max_sequence_length == node.max_sequence_length > 0
    if option.startswith("wan"):
        with pytest.raises(UserError, match="not found"):
            builder.load()  # fails before importing any weights


def test_wan_configs_require_a_path():
    from omegaconf.errors import MissingMandatoryValue

    with pytest.raises(Exception) as err:
        instantiate(_compose(["generator=wan21_vace_1_3b"]).generator)
    assert isinstance(err.value, MissingMandatoryValue) or "path" in str(err.value)


@pytest.mark.parametrize("option", _options("scheduler"))
def test_scheduler_configs_instantiate(option):
    sched = instantiate(_compose([f"scheduler={option}"]).scheduler)
    assert sched.config.prediction_type == "flow_prediction" and sched.config.use_flow_sigmas


@pytest.mark.parametrize("option", _options("probe"))
def test_probe_configs_instantiate(option):
    probe = instantiate(_compose([f"probe={option}", "probe.release_step=3"]).probe)
    assert probe.resolve(30) == 3
