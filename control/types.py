"""Artifacts owned by the ``control`` stage: ``ControlVideo`` (and the RGB scene render used for synthetic
clips). Imports only the standard library, numpy and pydantic (docs/architecture.md §2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class ControlVideo:
    """A control video for the generator.

    * ``frames`` (T, H, W) uint8: depth intensities (near = bright by default, background 0) or a binary
      silhouette (255 object, 0 background).
    * ``kind``: ``"depth"`` when every frame is a depth frame, else ``"silhouette"`` (a video is one kind:
      if any frame falls back, the whole video is rendered as a silhouette, so the control signal's
      meaning does not change mid-clip).
    * ``fallback_reason``: why a silhouette was rendered (``None`` for depth).
    * ``near_m``/``far_m`` (T,): the distances (m) mapped to the brightest/darkest object intensity,
      from the ``near_percentile``/``far_percentile`` of object-pixel distances (per video or per frame).
    * ``centers_px`` (T, K, 2): projected object centres, (x right, y down) pixels with TinyRenderer's
      convention (column c at x = c, row r at y = r); NaN where the centre is behind the camera.
    * ``object_names`` (K,), ``fps`` (Hz), ``spec_sha256`` of the scene that was rendered.
    """

    frames: np.ndarray
    kind: Literal["depth", "silhouette"]
    fps: float
    object_names: tuple[str, ...]
    centers_px: np.ndarray
    near_m: np.ndarray
    far_m: np.ndarray
    near_percentile: float = 5.0
    far_percentile: float = 95.0
    percentile_scope: Literal["video", "frame"] = "video"
    near_is_bright: bool = True
    fallback_reason: str | None = None
    frame_fallback_reasons: tuple[str | None, ...] = ()
    spec_sha256: str = ""

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames)
        if frames.ndim != 3 or frames.dtype != np.uint8:
            raise ValueError(f"ControlVideo.frames must be (T,H,W) uint8, got {frames.shape} {frames.dtype}")
        object.__setattr__(self, "frames", _readonly(frames))
        for name in ("centers_px", "near_m", "far_m"):
            object.__setattr__(self, name, _readonly(np.asarray(getattr(self, name), dtype=np.float64)))

    @property
    def shape_thw(self) -> tuple[int, int, int]:
        t, h, w = self.frames.shape
        return int(t), int(h), int(w)


@dataclass(frozen=True)
class SceneRender:
    """An RGB render of a simulated scene, with its per-pixel metric distance and segmentation.

    * ``rgb`` (T, H, W, 3) uint8 (all zeros when the renderer was asked for no RGB).
    * ``distance_m`` (T, H, W) float32: distance from the camera centre along each pixel's ray (m);
      ``inf`` where no geometry is hit.
    * ``segmentation`` (T, H, W) int32: index into ``object_names`` for dynamic objects, -1 for static
      geometry, -2 for background.

    Pixel convention (both renderers): column ``c`` samples screen x = c and row ``r`` screen y = H - 1 - r
    (TinyRenderer's), so pixel (c, r) looks along ``(c - W/2)/f * right + (H/2 - 1 - r)/f * up + forward``
    with ``f = (H/2) / tan(fovy/2)``; see :mod:`control.camera`.
    """

    rgb: np.ndarray
    distance_m: np.ndarray
    segmentation: np.ndarray
    object_names: tuple[str, ...]
    fps: float

    def __post_init__(self) -> None:
        for name in ("rgb", "distance_m", "segmentation"):
            object.__setattr__(self, name, _readonly(np.asarray(getattr(self, name))))
