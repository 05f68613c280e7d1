"""What every pixel source hands the builder: frames plus the exact per-frame facts of each object.

``RenderedClip.frames`` is (T, H, W, 3) uint8 RGB at ``fps``. For each object, ``ObjectTrack`` holds its
projected centre (T, 2) in pixels (x right, y down; NaN when absent), its apparent radius (T,) in pixels and the
number of its pixels the renderer drew in each frame (T,) (0 when hidden, off-frame or absent): these come from
the renderer's own projection and segmentation, never from measuring the finished pixels. ``impacts`` are the
simulated contact onsets (time in s and the frame they fall in).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from experiments.benchmark.types import FrameWindow

#: Named colours (RGB in [0, 1]) the prompts may use.
PALETTE: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.12, 0.10), "blue": (0.12, 0.25, 0.85), "green": (0.10, 0.65, 0.20),
    "yellow": (0.92, 0.82, 0.10), "orange": (0.95, 0.50, 0.08), "purple": (0.55, 0.18, 0.70),
    "white": (0.95, 0.95, 0.95), "black": (0.07, 0.07, 0.07), "grey": (0.55, 0.55, 0.55),
    "pink": (0.95, 0.55, 0.70), "brown": (0.50, 0.30, 0.12), "teal": (0.05, 0.55, 0.55),
}


@dataclass
class ObjectTrack:
    name: str
    shape: str                      # sphere | box | cylinder
    color: str | None               # palette name (None: not named)
    rgb: tuple[float, float, float]
    radius_m: float
    center_px: np.ndarray           # (T, 2) float, NaN where absent
    radius_px: np.ndarray           # (T,) float, NaN where absent
    visible_px: np.ndarray          # (T,) int, pixels drawn
    position_m: np.ndarray | None = None  # (T, 3) world centre, NaN where absent
    contrast: float = 1.0           # RGB distance to the floor colour behind it, [0, ~1.7]

    def typical_radius_px(self) -> float:
        r = self.radius_px[np.isfinite(self.radius_px)]
        return float(np.median(r)) if r.size else 0.0


@dataclass(frozen=True)
class Impact:
    time_s: float
    frame: int
    body: str
    other: str          # "floor", "wall", "wall_left", another object's name
    speed_mps: float


@dataclass
class RenderedClip:
    frames: np.ndarray
    fps: float
    objects: dict[str, ObjectTrack]
    impacts: list[Impact] = field(default_factory=list)
    camera: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])


def window(start_frame: int, end_frame: int, fps: float, num_frames: int) -> FrameWindow:
    """A window of frames ``start..end`` (clipped into the clip) with its times ``[start/fps, (end+1)/fps]``."""
    a = int(max(0, min(start_frame, num_frames - 1)))
    b = int(max(a, min(end_frame, num_frames - 1)))
    return FrameWindow(start_frame=a, end_frame=b, start_s=round(a / fps, 6), end_s=round((b + 1) / fps, 6))


def visible_in(track: ObjectTrack, a: int, b: int, min_px: int = 6) -> bool:
    """Whether a person can see the object in some frame of ``a..b`` (at least ``min_px`` pixels drawn)."""
    a, b = max(0, a), min(len(track.visible_px) - 1, b)
    return bool(b >= a and (track.visible_px[a:b + 1] >= min_px).any())
