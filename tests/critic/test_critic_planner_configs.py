"""Every option of conf/critic/planner and conf/critic/aggregator instantiates (cheaply), and the app config
composes with its defaults."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from critic.run import build_components

CONF = Path(__file__).resolve().parents[2] / "conf"


@pytest.mark.parametrize("group", ["planner", "aggregator"])
def test_every_option_instantiates(group):
    options = sorted(p.stem for p in (CONF / "critic" / group).glob("*.yaml"))
    assert options
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        for option in options:
            cfg = compose(config_name="critic_app", overrides=[f"critic/{group}={option}"])
            node = cfg.critic[group]
            obj = instantiate(node)
            assert f"{type(obj).__module__}.{type(obj).__qualname__}" == node._target_, option
            assert callable(getattr(obj, "plan" if group == "planner" else "aggregate")), option


def test_app_composes_and_builds_components():
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app")
    assert cfg.task == "critic" and cfg.num_threads == 1
    comp = build_components(cfg)
    assert comp.planner.name == "rules"
    assert set(comp.specialists) >= {"ground", "measure"}
