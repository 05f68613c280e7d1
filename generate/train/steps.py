"""What a training step draws on, as pure functions of the step: its random stream and its learning rate
(so a run resumed from a checkpoint takes the same path as an uninterrupted one)."""

from __future__ import annotations

import math

import torch

STAGE_SEEDS = {"vae": 1, "transformer": 2}


def step_generator(seed: int, stage: str, step: int) -> torch.Generator:
    """The random stream of one training step (independent of how the run was interrupted)."""
    g = torch.Generator()
    g.manual_seed(int(seed) * 1_000_003 + STAGE_SEEDS[stage] * 100_000_019 + int(step))
    return g


def lr_at(step: int, total: int, peak: float, warmup: int, floor: float = 0.1) -> float:
    """Linear warm-up, then cosine decay to ``floor * peak``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    frac = (step - warmup) / max(1, total - warmup)
    return peak * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))
