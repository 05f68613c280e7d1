"""A pinhole camera with PyBullet's matrices and TinyRenderer's pixel convention.

Pixel convention (measured on PyBullet 3.2.7's TinyRenderer): image column ``c`` is sampled at screen
x = c and image row ``r`` at screen y = H - 1 - r, whole pixels rather than pixel centres. Writing the
camera-frame point as (x right, y up, d = depth in front of the camera), with ``f = (H/2) / tan(fovy/2)``,
a world point lands at

    u = W/2 + f * x / d          (column, x right)
    v = H/2 - 1 - f * y / d      (row, y down)

and pixel (column c, row r) looks along ``(c - W/2)/f * right + (H/2 - 1 - r)/f * up + forward``. Both
renderers (analytic and TinyRenderer) and every projected centre use this convention, so a projected
trajectory lands on the rendered object to well under half a pixel.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from sim.camera import camera_axes, focal_length_px
from sim.camera import project as sim_project
from sim.types import CameraSpec


class Camera:
    """The camera of a :class:`~sim.types.CameraSpec`.

    Attributes: ``width``/``height`` (px), ``eye_m`` (3,), ``right``/``up``/``forward`` unit vectors in the
    world frame (right-handed: right = forward x up_hint), ``focal_px`` (vertical and horizontal; square
    pixels), ``near_m``/``far_m`` clipping distances along the viewing axis.
    """

    def __init__(self, spec: CameraSpec):
        self.spec = spec
        self.width = int(spec.width_px)
        self.height = int(spec.height_px)
        self.near_m = float(spec.near_m)
        self.far_m = float(spec.far_m)
        self.eye_m = np.asarray(spec.eye_m, dtype=np.float64)
        self.right, self.up, self.forward = camera_axes(spec)
        self.focal_px = focal_length_px(spec)

    # ----------------------------------------------------------------------------------------------
    # PyBullet matrices (column-major flat lists of 16 floats, as computeViewMatrix /
    # computeProjectionMatrixFOV return them)
    # ----------------------------------------------------------------------------------------------

    @cached_property
    def world_to_camera(self) -> np.ndarray:
        """(4, 4) row-major OpenGL view matrix: camera looks along -z, y up."""
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = self.right, self.up, -self.forward
        m[:3, 3] = -m[:3, :3] @ self.eye_m
        return m

    @property
    def view_matrix(self) -> list[float]:
        """Column-major flat view matrix, as ``pybullet.computeViewMatrix(eye, target, up)``."""
        return [float(x) for x in self.world_to_camera.T.ravel()]

    @property
    def projection_matrix(self) -> list[float]:
        """Column-major flat projection matrix, as ``pybullet.computeProjectionMatrixFOV(fov, W/H, near, far)``."""
        n, f = self.near_m, self.far_m
        t = 1.0 / math.tan(math.radians(self.spec.fov_deg) / 2.0)
        aspect = self.width / self.height
        m = np.zeros((4, 4))
        m[0, 0] = t / aspect
        m[1, 1] = t
        m[2, 2] = (f + n) / (n - f)
        m[2, 3] = 2.0 * f * n / (n - f)
        m[3, 2] = -1.0
        return [float(x) for x in m.T.ravel()]

    # ----------------------------------------------------------------------------------------------
    # Projection and rays
    # ----------------------------------------------------------------------------------------------

    def to_camera(self, points_m: np.ndarray) -> np.ndarray:
        """World points (..., 3) m -> camera coordinates (..., 3): (x right, y up, depth in front) m."""
        rel = np.asarray(points_m, dtype=np.float64) - self.eye_m
        basis = np.stack([self.right, self.up, self.forward])  # rows
        return rel @ basis.T

    def project(self, points_m: np.ndarray) -> np.ndarray:
        """World points (N, 3) m -> pixel coordinates (N, 2) as (column x, row y), TinyRenderer convention.

        Points at or behind the camera plane give NaN."""
        return sim_project(self.spec, points_m)[0]

    def pixel_offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-column (W,) and per-row (H,) slopes: x/d = (c - W/2)/f and y/d = (H/2 - 1 - r)/f."""
        cols = (np.arange(self.width) - self.width / 2.0) / self.focal_px
        rows = (self.height / 2.0 - 1.0 - np.arange(self.height)) / self.focal_px
        return cols, rows

    def ray_directions(self, *, normalise: bool = True) -> np.ndarray:
        """(H, W, 3) world-frame ray directions through every pixel.

        With ``normalise=False`` each ray has unit component along ``forward``, so the ray parameter is
        the eye depth (m along the viewing axis) and distance = depth * ``ray_lengths()``."""
        cols, rows = self.pixel_offsets()
        dirs = (cols[None, :, None] * self.right + rows[:, None, None] * self.up + self.forward)
        if normalise:
            dirs /= np.linalg.norm(dirs, axis=-1, keepdims=True)
        return dirs

    def ray_lengths(self) -> np.ndarray:
        """(H, W) length of the depth-normalised ray: distance from the camera centre = depth * this."""
        cols, rows = self.pixel_offsets()
        return np.sqrt(cols[None, :] ** 2 + rows[:, None] ** 2 + 1.0)

    def depth_buffer_to_distance(self, depth_buffer: np.ndarray) -> np.ndarray:
        """TinyRenderer depth buffer (H, W) in [0, 1] -> distance from the camera centre (H, W) m."""
        n, f = self.near_m, self.far_m
        d = np.asarray(depth_buffer, dtype=np.float64)
        eye_depth = f * n / (f - (f - n) * d)
        return eye_depth * self.ray_lengths()
