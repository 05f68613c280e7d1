"""Artifacts owned by the ``generate`` stage: ``Clip``. Imports only the standard library, numpy and pydantic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Clip:
    """A generated (or any) video clip with the facts of how it was made.

    * ``frames`` (T, H, W, 3) uint8 RGB; ``fps`` (Hz).
    * ``audio`` (S,) float32 mono in [-1, 1] at ``audio_rate_hz``, or ``None``.
    * ``sigmas`` (N+1,) the scheduler's sigmas (last is 0); ``release_step`` i* in [0, N]: control is used
      on steps 0..i*-1; ``sigma_rel = sigmas[i*]``; ``expert_switch_step``: first step of the low-noise
      expert (``None`` with one expert).
    """

    frames: np.ndarray
    fps: float
    prompt: str = ""
    negative_prompt: str = ""
    seed: int = 0
    model_id: str = ""
    scheduler: dict[str, Any] = field(default_factory=dict)
    sigmas: np.ndarray = field(default_factory=lambda: np.zeros(0))
    release_step: int | None = None
    sigma_rel: float | None = None
    expert_switch_step: int | None = None
    audio: np.ndarray | None = None
    audio_rate_hz: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frames = np.ascontiguousarray(self.frames)
        if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8:
            raise ValueError(f"Clip.frames must be (T,H,W,3) uint8, got {frames.shape} {frames.dtype}")
        frames.setflags(write=False)
        object.__setattr__(self, "frames", frames)
        sig = np.ascontiguousarray(np.asarray(self.sigmas, dtype=np.float64))
        sig.setflags(write=False)
        object.__setattr__(self, "sigmas", sig)

    @property
    def shape_thw(self) -> tuple[int, int, int]:
        t, h, w, _ = self.frames.shape
        return int(t), int(h), int(w)

    @property
    def num_steps(self) -> int | None:
        """N, the number of denoising steps (``None`` for a clip that was not generated)."""
        return len(self.sigmas) - 1 if len(self.sigmas) else None

    @property
    def duration_s(self) -> float:
        return self.frames.shape[0] / self.fps if self.fps > 0 else float("nan")
