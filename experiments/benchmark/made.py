"""What a clip maker hands the builder: finished frames, audio, and the annotation's fields."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from experiments.benchmark.types import Defect, SceneObject, TruthClaim


@dataclass
class MadeClip:
    frames: np.ndarray                       # (T, H, W, 3) uint8, even H and W
    fps: float
    prompt: str
    renderer: str
    source: str
    objects: list[SceneObject]
    claims: list[TruthClaim]
    defects: list[Defect]
    camera: dict[str, float] = field(default_factory=dict)
    audio: np.ndarray | None = None          # mono float32 at audio.RATE_HZ
    notes: list[str] = field(default_factory=list)
