"""Shared helpers for the suite tests: the committed suite files (``tests/data/suites/``), a few VBench-2 items
picked out of them, and a subprocess runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "suites"
FIXTURES = {"videophy2": DATA / "videophy2" / "output_rule.csv", "videophy2_captions": DATA / "videophy2" / "sa_pc.csv",
            "vbench2": DATA / "vbench2" / "meta_info", "dsg": DATA / "dsg" / "dsg-1k-anns.csv",
            "physics_iq": DATA / "physics_iq" / "descriptions.csv"}
#: A few VBench-2 items of six dimensions (index in the dimension's file): ordered actions, expected counts of one,
#: two, and one of each of two objects, probe questions, composition, camera, none.
VBENCH2_PICK = {"Motion_Order_Understanding": [0, 1], "Instance_Preservation": [0, 1, 22], "Mechanics": [0, 1],
                "Composition": [0], "Camera_Motion": [0], "Human_Anatomy": [0]}


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


@pytest.fixture
def vbench2_pick(fixture_path, tmp_path):
    """A folder of VBench-2 meta files holding the :data:`VBENCH2_PICK` items of the committed files, unchanged."""
    folder = tmp_path / "vbench2_pick"
    folder.mkdir()
    for dimension, indices in VBENCH2_PICK.items():
        items = json.loads((fixture_path("vbench2") / f"{dimension}.json").read_text(encoding="utf-8"))
        (folder / f"{dimension}.json").write_text(json.dumps([items[k] for k in indices], indent=4), encoding="utf-8")
    return folder
