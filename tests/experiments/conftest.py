"""Helpers for the experiments tests: run the experiments app in a subprocess, in a temporary folder."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from experiments.benchmark.devcorpus import SimulatedScene, simulated_clips, write_corpus
from experiments.scene import fit_spec_to_video
from experiments.types import VideoSize

CONF = Path(__file__).resolve().parents[2] / "conf"

#: The tiny form every sweep test uses: 32x32, 17 frames at 8 fps (the shipped scenes' airborne phase stays
#: measurable), 3 denoising steps, random tiny generator.
TINY = ["generator=tiny_random", "video.width=32", "video.height=32", "video.num_frames=17", "video.fps=8",
        "num_steps=3"]
#: One point of the release sweep's other axes (its preset sweeps three scenes and five seeds).
ONE_SCENE = ["scene=thrown_ball", "seed=0"]


def _app_env(env=None):
    return {**os.environ, "WANDB_MODE": "offline", "WANDB_SILENT": "true", "HF_HUB_OFFLINE": "1",
            "PYTHONHASHSEED": "0", **(env or {})}


def run_app(args, cwd, *, module="experiments.run", env=None, timeout=600):
    """Run ``python -m <module> ARGS`` in ``cwd``; returns the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=_app_env(env), capture_output=True,
                          text=True, timeout=timeout)


def kill_app_when(args, cwd, condition, *, module="experiments.run", timeout=600) -> int:
    """Run ``python -m <module> ARGS`` in ``cwd`` and kill it, with everything it started, by SIGKILL (no
    handler runs, nothing is flushed: as a cluster scheduler or the out-of-memory killer ends a job) as soon as
    ``condition()`` holds. Returns its exit status (``-SIGKILL``); fails when it ends by itself first."""
    # Its own session, so that the kill reaches its children too (the W&B service).
    proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env=_app_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    try:
        while not condition():
            if proc.poll() is not None:
                pytest.fail(f"ended by itself (exit {proc.returncode}) before the kill: {proc.stderr.read()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"condition not reached within {timeout} s")
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()


@pytest.fixture
def app():
    return run_app


def job_dirs(sweep_dir: Path) -> list[Path]:
    return sorted(p for p in sweep_dir.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "wandb"
                  and p.name != "figures")


#: The job directory name of the default prompt on the thrown ball.
def thrown_ball_job(seed: int, release_step: int, prompt: str = "red_on_grey-thrown_ball") -> str:
    return f"thrown_ball_{prompt}_seed{seed}_release{release_step}"


def thrown_ball_corpus(out: Path, prompt: str, **clips) -> Path:
    """A small annotated corpus in ``out`` rendered from the thrown-ball scene at 96x64, 21 frames at 24 fps:
    the clean clip and the doctored ones ``clips`` asks for (``experiments.benchmark.devcorpus.simulated_clips``)."""
    spec = fit_spec_to_video(instantiate(OmegaConf.load(CONF / "scene" / "thrown_ball.yaml")),
                             VideoSize(width=96, height=64, num_frames=21, fps=24.0))
    write_corpus(out, simulated_clips(out, SimulatedScene("thrown_ball", spec, prompt), **clips))
    return out
