"""Shared fixtures for the critic tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from critic.run import build_components

CONF = Path(__file__).resolve().parents[2] / "conf"
#: Third-party clips the tests read: ``tests/data/external/`` (each folder with its licence and provenance, listed
#: in its README.md). ``VERIPHY_EXTERNAL_DIR`` points the tests at another folder laid out the same way.
EXTERNAL_DIR = Path(os.environ.get("VERIPHY_EXTERNAL_DIR", Path(__file__).resolve().parents[1] / "data" / "external"))


@pytest.fixture(scope="module")
def components():
    """The default critic components (``conf/critic_app``, no report, no progress bar)."""
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    return build_components(cfg)


@pytest.fixture(scope="session")
def external_clip():
    """Path of a clip relative to the external data folder. The clips ship with the repository, so a missing
    one fails the test instead of skipping it."""

    def get(rel: str) -> Path:
        path = EXTERNAL_DIR / rel
        if not path.is_file():
            pytest.fail(f"{path} is missing (the external test clips ship in tests/data/external/)", pytrace=False)
        return path

    return get
