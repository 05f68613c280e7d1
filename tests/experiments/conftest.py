"""Helpers for the experiments tests: run the experiments app in a subprocess, in a temporary folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The tiny form every sweep test uses: 32x32, 9 frames, 3 denoising steps, random tiny generator.
TINY = ["generator=tiny_random", "video.width=32", "video.height=32", "video.num_frames=9", "video.fps=4",
        "num_steps=3"]


def run_app(args, cwd, *, module="experiments.run", env=None, timeout=600):
    """Run ``python -m <module> ARGS`` in ``cwd``; returns the CompletedProcess (text output)."""
    full_env = {**os.environ, "WANDB_MODE": "offline", "WANDB_SILENT": "true", "HF_HUB_OFFLINE": "1",
                "PYTHONHASHSEED": "0", **(env or {})}
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def app():
    return run_app


def job_dirs(sweep_dir: Path) -> list[Path]:
    return sorted(p for p in sweep_dir.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "wandb"
                  and p.name != "figures")
