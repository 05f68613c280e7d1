"""Depth control videos: per-pixel distance -> intensity, with a binary-silhouette fallback.

Object pixels (dynamic bodies; static geometry too when ``include_statics``) get an intensity from their
distance to the camera centre, mapped linearly between the ``near_percentile`` and ``far_percentile`` of the
object-pixel distances (near bright by default) and clipped to [min_intensity, max_intensity], so an object
never becomes background. Background is 0. Percentiles are taken over the whole video (default: the same
distance gives the same intensity in every frame) or per frame.

When the percentiles fail - no object pixel (in the video, or in a frame with per-frame scope) or near and
far closer than ``min_range_m`` (a flat object facing the camera, a one-pixel object) - the whole video is a
binary silhouette (255 object, 0 background): a control video is one kind throughout. The reason is kept
per frame and for the video.
"""

from __future__ import annotations

import sys
from typing import Literal

import numpy as np
from tqdm import tqdm

from control.project import project_trajectory
from control.render import SEG_STATIC, AnalyticRenderer, check_trajectory_matches
from control.types import ControlVideo, SceneRender
from sim.types import SceneSpec, Trajectory
from veriphy.hashing import sha256_json

NO_OBJECT_PIXEL_IN_VIDEO = "no object pixel in the video"
NO_OBJECT_PIXEL_IN_FRAME = "no object pixel in the frame"
SILHOUETTE_REQUESTED = "silhouette requested by the control config"


def percentiles_coincide(near_m: float, far_m: float, min_range_m: float) -> str:
    return (f"percentiles coincide: near {near_m:.6g} m and far {far_m:.6g} m differ by less than "
            f"{min_range_m:g} m")


def spec_hash(spec: SceneSpec, traj: Trajectory) -> str:
    """The trajectory's record of its spec hash, else the spec's canonical-JSON sha256 (as ``sim.engine``)."""
    if traj.spec_sha256:
        return traj.spec_sha256

    return sha256_json(spec.model_dump(mode="json"))


class DepthControl:
    """Callable turning a simulated scene into a :class:`~control.types.ControlVideo`.

    Args:
        renderer: any object with ``render(spec, traj, *, rgb=False) -> SceneRender`` (default: analytic).
        near_percentile / far_percentile: percentiles (0-100) of object-pixel distances mapped to the
            brightest / darkest object intensity.
        percentile_scope: ``"video"`` (one mapping for all frames) or ``"frame"``.
        near_is_bright: near -> ``max_intensity`` (True) or near -> ``min_intensity``.
        min_intensity / max_intensity: object intensities are clipped into this range (min >= 1 keeps objects
            distinguishable from the black background).
        min_range_m: near and far closer than this (m) count as coinciding.
        include_statics: count static geometry (floor, walls) as object pixels. Off by default: the control
            shows the moving bodies only (statics still occlude them).
        progress: show a progress bar (stderr).
    """

    def __init__(self, renderer=None, near_percentile: float = 5.0, far_percentile: float = 95.0,
                 percentile_scope: Literal["video", "frame"] = "video", near_is_bright: bool = True,
                 min_intensity: int = 32, max_intensity: int = 255, min_range_m: float = 1e-3,
                 include_statics: bool = False, progress: bool = True):
        if not 0.0 <= near_percentile < far_percentile <= 100.0:
            raise ValueError(f"need 0 <= near_percentile < far_percentile <= 100, got {near_percentile}, "
                             f"{far_percentile}")
        if percentile_scope not in ("video", "frame"):
            raise ValueError(f"percentile_scope must be 'video' or 'frame', got {percentile_scope!r}")
        if not 1 <= min_intensity < max_intensity <= 255:
            raise ValueError(f"need 1 <= min_intensity < max_intensity <= 255, got {min_intensity}, {max_intensity}")
        self.renderer = renderer if renderer is not None else AnalyticRenderer(rgb=False, progress=progress)
        self.near_percentile = float(near_percentile)
        self.far_percentile = float(far_percentile)
        self.percentile_scope = percentile_scope
        self.near_is_bright = bool(near_is_bright)
        self.min_intensity = int(min_intensity)
        self.max_intensity = int(max_intensity)
        self.min_range_m = float(min_range_m)
        self.include_statics = bool(include_statics)
        self.progress = progress

    # ----------------------------------------------------------------------------------------------

    def object_mask(self, segmentation: np.ndarray) -> np.ndarray:
        """(..., H, W) bool: pixels that count as object pixels."""
        return segmentation >= (SEG_STATIC if self.include_statics else 0)

    def _near_far(self, distances: np.ndarray) -> tuple[float, float, str | None]:
        """Percentile distances of ``distances`` (1-D, m) and why they fail (None when they do not)."""
        if distances.size == 0:
            return np.nan, np.nan, "empty"
        near, far = np.percentile(distances, [self.near_percentile, self.far_percentile])
        near, far = float(near), float(far)
        if far - near < self.min_range_m:
            return near, far, percentiles_coincide(near, far, self.min_range_m)
        return near, far, None

    def _intensity(self, distance: np.ndarray, near: float, far: float) -> np.ndarray:
        """Distances (m) -> uint8 intensities in [min_intensity, max_intensity]."""
        frac = np.clip((distance - near) / (far - near), 0.0, 1.0)  # 0 at near, 1 at far
        if self.near_is_bright:
            frac = 1.0 - frac
        values = self.min_intensity + frac * (self.max_intensity - self.min_intensity)
        return np.rint(values).astype(np.uint8)

    def __call__(self, spec: SceneSpec, traj: Trajectory, render: SceneRender | None = None) -> ControlVideo:
        """Render (unless ``render`` is given) and map to a control video of the scene's (T, H, W)."""
        check_trajectory_matches(spec, traj)
        if render is None:
            render = self.renderer.render(spec, traj, rgb=False)
        mask = self.object_mask(render.segmentation)
        num_frames = mask.shape[0]
        near = np.full(num_frames, np.nan)
        far = np.full(num_frames, np.nan)
        frame_reasons: list[str | None] = [None] * num_frames
        video_reason: str | None = None

        if self.percentile_scope == "video":
            n, f, why = self._near_far(render.distance_m[mask])
            if why == "empty":
                why = NO_OBJECT_PIXEL_IN_VIDEO
            if why is None:
                near[:], far[:] = n, f
            else:
                video_reason = why
                frame_reasons = [why] * num_frames
        else:
            for t in range(num_frames):
                n, f, why = self._near_far(render.distance_m[t][mask[t]])
                if why == "empty":
                    why = NO_OBJECT_PIXEL_IN_FRAME
                frame_reasons[t] = why
                if why is None:
                    near[t], far[t] = n, f
            failed = [t for t, why in enumerate(frame_reasons) if why is not None]
            if failed:
                first = failed[0]
                video_reason = (f"{frame_reasons[first]} (frame {first}; {len(failed)} of {num_frames} frames "
                                f"failed)")

        if video_reason is None:
            frames = np.zeros(mask.shape, dtype=np.uint8)
            for t in tqdm(range(num_frames), desc="depth control", unit="frame", file=sys.stderr,
                          disable=not self.progress, leave=False):
                m = mask[t]
                frames[t][m] = self._intensity(render.distance_m[t][m], near[t], far[t])
            kind = "depth"
        else:
            frames = np.where(mask, np.uint8(255), np.uint8(0))
            kind = "silhouette"
            near[:] = np.nan
            far[:] = np.nan
        return self._video(spec, traj, frames, kind, near, far, video_reason, frame_reasons)

    def _video(self, spec, traj, frames, kind, near, far, video_reason, frame_reasons) -> ControlVideo:
        return ControlVideo(
            frames=frames, kind=kind, fps=float(spec.fps), object_names=tuple(traj.object_names),
            centers_px=project_trajectory(spec, traj), near_m=near, far_m=far,
            near_percentile=self.near_percentile, far_percentile=self.far_percentile,
            percentile_scope=self.percentile_scope, near_is_bright=self.near_is_bright,
            fallback_reason=video_reason, frame_fallback_reasons=tuple(frame_reasons),
            spec_sha256=spec_hash(spec, traj))


class SilhouetteControl(DepthControl):
    """Always a binary silhouette (255 object, 0 background), recorded as requested by the config."""

    def __call__(self, spec: SceneSpec, traj: Trajectory, render: SceneRender | None = None) -> ControlVideo:
        check_trajectory_matches(spec, traj)
        if render is None:
            render = self.renderer.render(spec, traj, rgb=False)
        mask = self.object_mask(render.segmentation)
        frames = np.where(mask, np.uint8(255), np.uint8(0))
        nan = np.full(mask.shape[0], np.nan)
        return self._video(spec, traj, frames, "silhouette", nan, nan.copy(), SILHOUETTE_REQUESTED,
                           [SILHOUETTE_REQUESTED] * mask.shape[0])
