"""A pinhole projection of world points through a :class:`~sim.types.CameraSpec` (for predicates such as
``stays_in_frame``; the control stage renders, this only projects).

Image coordinates: ``u`` to the right, ``v`` down, in pixels, focal length ``f = (H/2) / tan(fovy/2)``
(square pixels), PyBullet TinyRenderer's whole-pixel convention: column c sits at x = c and row r at screen
y = H - 1 - r, so a point projects to ``u = W/2 + f x/z`` and ``v = H/2 - 1 - f y/z``. This is the one
projection of the project: ``control.camera.Camera`` builds on it.
"""

from __future__ import annotations

import math

import numpy as np

from sim.types import CameraSpec


def camera_axes(camera: CameraSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit vectors (right, up, forward) of the camera in world coordinates."""
    eye, target, up = (np.asarray(v, dtype=np.float64) for v in (camera.eye_m, camera.target_m, camera.up))
    forward = target - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, up)
    norm = np.linalg.norm(right)
    if norm < 1e-9:
        raise ValueError("camera up vector is parallel to the viewing direction")
    right /= norm
    true_up = np.cross(right, forward)
    return right, true_up, forward


def focal_length_px(camera: CameraSpec) -> float:
    return (camera.height_px / 2) / math.tan(math.radians(camera.fov_deg) / 2)


def project(camera: CameraSpec, points_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Project world points ``(..., 3)`` (m) to pixels ``(..., 2)`` (u right, v down) and return them with
    the depth along the viewing axis ``(...,)`` (m; <= 0 means behind the camera, pixels NaN there)."""
    points = np.asarray(points_m, dtype=np.float64)
    right, up, forward = camera_axes(camera)
    rel = points - np.asarray(camera.eye_m, dtype=np.float64)
    x, y, z = rel @ right, rel @ up, rel @ forward
    f = focal_length_px(camera)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = camera.width_px / 2 + f * x / z
        v = camera.height_px / 2 - 1 - f * y / z
    uv = np.stack([u, v], axis=-1)
    uv[z <= 0] = np.nan
    return uv, z


def projected_radius_px(camera: CameraSpec, radius_m: float, depth_m: np.ndarray) -> np.ndarray:
    """Approximate image radius (px) of a sphere of ``radius_m`` at ``depth_m`` along the viewing axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return focal_length_px(camera) * radius_m / np.asarray(depth_m, dtype=np.float64)


def out_of_frame_px(camera: CameraSpec, uv: np.ndarray, radius_px: np.ndarray | float = 0.0,
                    margin_px: float = 0.0) -> np.ndarray:
    """How far (px) a disc at ``uv`` with ``radius_px`` reaches beyond the image inset by ``margin_px``
    (0 when fully inside; inf when behind the camera)."""
    uv = np.asarray(uv, dtype=np.float64)
    r = np.asarray(radius_px, dtype=np.float64)
    u, v = uv[..., 0], uv[..., 1]
    lo = margin_px
    over = np.stack([lo - (u - r), (u + r) - (camera.width_px - lo), lo - (v - r), (v + r) - (camera.height_px - lo)],
                    axis=-1)
    out = np.clip(np.max(over, axis=-1), 0.0, None)
    return np.where(np.isnan(u) | np.isnan(v), np.inf, out)
