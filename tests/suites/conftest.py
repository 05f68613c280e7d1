"""Shared helpers for the suite tests: the committed excerpts (``tests/data/suites/``) and a subprocess runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "suites"
FIXTURES = {"videophy2": DATA / "videophy2" / "output_rule.csv", "vbench2": DATA / "vbench2" / "meta_info",
            "dsg": DATA / "dsg" / "dsg-1k-anns.csv", "physics_iq": DATA / "physics_iq" / "descriptions.csv"}


def run_module(module: str, args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGS`` in ``cwd`` with the repository on the path (text output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WANDB_MODE": "offline", "WANDB_SILENT": "true",
           "HYDRA_FULL_ERROR": "0", "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def fixture_path():
    def get(suite: str) -> Path:
        path = FIXTURES[suite]
        if not path.exists():
            pytest.fail(f"{path} is missing (the suite excerpts ship in tests/data/suites/)", pytrace=False)
        return path

    return get
