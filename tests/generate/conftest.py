"""Shared fixtures for the generate tests: tiny pipelines (one and two experts) and a small control video."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from control.types import ControlVideo
from generate.models import TinyGenerator
from generate.pipeline import control_images, generate_clip, to_uint8

T, H, W = 9, 32, 32
N_STEPS = 4
PROMPT = "a red ball is thrown and bounces on the floor"
MAX_SEQ = 48


def make_control(t: int = T, h: int = H, w: int = W, *, kind: str = "depth") -> ControlVideo:
    """A bright square moving right over a black background: (t, h, w) uint8."""
    frames = np.zeros((t, h, w), np.uint8)
    for k in range(t):
        x = int(round(k * (w - 10) / max(t - 1, 1)))
        frames[k, h // 4: h // 4 + 8, x: x + 10] = 220 - 10 * (k % 3)
    return ControlVideo(frames=frames, kind=kind, fps=16.0, object_names=("ball",),
                        centers_px=np.zeros((t, 1, 2)), near_m=np.ones(t), far_m=np.full(t, 2.0))


@pytest.fixture(scope="session")
def control() -> ControlVideo:
    return make_control()


def _pipe(two_experts: bool):
    torch.set_num_threads(1)
    return TinyGenerator(seed=0, sizes={"two_experts": two_experts}).load()


@pytest.fixture(scope="session")
def pipe1():
    return _pipe(False)


@pytest.fixture(scope="session")
def pipe2():
    return _pipe(True)


def stock_frames(pipe, control: ControlVideo, *, seed: int, num_steps: int = N_STEPS, **kwargs) -> np.ndarray:
    """The unmodified ``WanVACEPipeline.__call__`` on the same inputs, as uint8 frames."""
    video, mask = control_images(control)
    t, h, w = control.shape_thw
    out = pipe(prompt=PROMPT, negative_prompt="", video=video, mask=mask, height=h, width=w, num_frames=t,
               num_inference_steps=num_steps, guidance_scale=5.0, generator=torch.Generator().manual_seed(seed),
               output_type="np", max_sequence_length=MAX_SEQ, **kwargs).frames[0]
    return to_uint8(out)


def gen(pipe, control: ControlVideo, *, seed: int = 0, num_steps: int = N_STEPS, **kwargs):
    return generate_clip(pipe, control, PROMPT, seed=seed, num_steps=num_steps, max_sequence_length=MAX_SEQ,
                         progress=False, **kwargs)


@pytest.fixture(scope="session")
def make_control_video():
    return make_control


@pytest.fixture(scope="session")
def stock_run():
    return stock_frames


@pytest.fixture(scope="session")
def run_clip():
    return gen


@pytest.fixture(scope="session")
def sizes():
    return {"T": T, "H": H, "W": W, "N": N_STEPS, "prompt": PROMPT, "max_seq": MAX_SEQ}
