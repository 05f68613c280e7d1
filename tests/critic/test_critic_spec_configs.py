"""Every option of conf/critic/specialists composes with the critic app and instantiates (no weights load)."""

from __future__ import annotations

from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "conf"
OPTIONS = sorted(p.stem for p in (CONF / "critic" / "specialists").glob("*.yaml"))
FAMILIES = ("ground", "count", "measure", "scene", "depth", "read", "hear", "judge")


def test_options_present():
    assert {"offline", "sam2", "sam3", "edgetam", "depth_anything", "vlm_judge"} <= set(OPTIONS)


@pytest.mark.parametrize("option", OPTIONS)
def test_specialists_option_instantiates(option):
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=[f"critic/specialists={option}"])
    nodes = cfg.critic.specialists
    assert set(FAMILIES) <= set(nodes)
    for family in FAMILIES:
        obj = instantiate(nodes[family])
        assert callable(getattr(obj, "run", None)) and obj.name and obj.version, family
