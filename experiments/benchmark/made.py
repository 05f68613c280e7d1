"""What a clip maker hands the builder: finished frames, audio, and the annotation's fields."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from experiments.benchmark.clipdata import window
from experiments.benchmark.types import Defect, SceneObject, Span, TruthClaim


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


@dataclass
class DefectLog:
    """The defects a pixel-editing clip maker inserts, numbered in order (``d0``, ``d1`` ...), and the prompt
    claims they break (``broken``: claim key -> False, as ``PromptBuilder.claims`` reads it). ``spans``: the
    prompt's spans by key (``"claim:base"``, ``"mention:red_ball"``); frames are clipped into the clip's
    ``num_frames`` at ``fps``."""

    spans: dict[str, Span]
    fps: float
    num_frames: int
    defects: list[Defect] = field(default_factory=list)
    broken: dict[str, bool] = field(default_factory=dict)

    def add(self, category: str, obj: str, start_frame: int, end_frame: int, key: str, edit: str,
            magnitude: dict[str, float], severity: int) -> None:
        self.defects.append(Defect(
            id=f"d{len(self.defects)}", category=category, severity=int(severity),
            window=window(start_frame, end_frame, self.fps, self.num_frames), object=obj, violates=self.spans[key],
            edit=edit, magnitude={k: round(float(v), 4) for k, v in magnitude.items()}))
        if key.startswith("claim:"):
            self.broken[key[len("claim:"):]] = False
