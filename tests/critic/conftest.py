"""Shared fixtures for the critic tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from critic.run import build_components

CONF = Path(__file__).resolve().parents[2] / "conf"


@pytest.fixture(scope="module")
def components():
    """The default critic components (``conf/critic_app``, no report, no progress bar)."""
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    return build_components(cfg)
