"""Projection of simulated trajectories to pixel paths."""

from __future__ import annotations

import numpy as np

from control.camera import Camera
from sim.types import SceneSpec, Trajectory


def project_trajectory(spec: SceneSpec, traj: Trajectory) -> np.ndarray:
    """Object centres of mass (K, T, 3) m -> pixel paths (T, K, 2) as (column x, row y).

    TinyRenderer convention (see :mod:`control.camera`); NaN where a centre is at or behind the camera
    plane. Points outside the image are kept (a path may leave the frame)."""
    camera = Camera(spec.camera)
    positions = np.asarray(traj.position_m, dtype=np.float64)  # (K, T, 3)
    k, t, _ = positions.shape
    pixels = camera.project(positions.reshape(-1, 3)).reshape(k, t, 2)
    return np.ascontiguousarray(pixels.transpose(1, 0, 2))
