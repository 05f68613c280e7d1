"""On a CUDA device: bf16 transformer + fp32 VAE, the probe's equalities still hold bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from generate.models import WanVACEGenerator
from generate.pipeline import generate_clip
from generate.sweep import generate_release_sweep
from generate.tiny import build_tiny_pipeline

pytestmark = pytest.mark.gpu


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_probe_on_cuda_bf16(control, sizes, tmp_path):
    build_tiny_pipeline(seed=0, two_experts=True).save_pretrained(tmp_path)
    pipe = WanVACEGenerator(path=str(tmp_path), transformer_dtype="bfloat16", device="cuda", two_experts=True).load()
    kw = dict(seed=0, num_steps=sizes["N"], max_sequence_length=sizes["max_seq"], progress=False)
    sweep = generate_release_sweep(pipe, control, sizes["prompt"], release_steps=list(range(sizes["N"] + 1)), **kw)
    for i_star, clip in sweep.items():
        skip = generate_clip(pipe, control, sizes["prompt"], release_step=i_star, **kw)
        zero = generate_clip(pipe, control, sizes["prompt"], release_step=i_star, mode="zero_scale", **kw)
        assert np.array_equal(skip.frames, zero.frames) and np.array_equal(skip.frames, clip.frames), i_star
