"""What one evaluation measures (``evaluation`` in ``conf/evaluate_app.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TinyEvaluation:
    """Settings of one evaluation (instantiated from ``conf/evaluate_app.yaml``; cheap).

    ``data``: the held-out :class:`generate.data.ClipDataset`; ``guidance_scale`` and ``max_sequence_length``:
    the generator's own settings (the app interpolates them from ``conf/generator/tiny.yaml``, so there is no
    second default to drift); ``num_clips``: how many of its clips to use;
    ``release_steps``: the i* of the sweep (must include 0 and ``num_steps``); ``pass_threshold``: r needed on
    both airborne axes; ``direction_min_px``: the least mean sideways travel that counts as a direction.
    """

    data: Any
    guidance_scale: float
    max_sequence_length: int
    num_clips: int = 30
    num_steps: int = 20
    release_steps: list[int] = field(default_factory=lambda: [0, 2, 4, 6, 8, 10, 12, 14, 16, 20])
    pass_threshold: float = 0.9
    retention_threshold: float = 0.7
    min_frames: int = 3
    direction_min_px: float = 2.0
    seed: int = 0

    def __post_init__(self) -> None:
        steps = sorted({int(s) for s in self.release_steps})
        if steps[0] != 0 or steps[-1] != self.num_steps:
            raise ValueError(f"release_steps must include 0 and num_steps ({self.num_steps}), got {steps}")
        self.release_steps = steps
