"""Fixtures for the control tests: small scenes and hand-made trajectories (no simulation needed)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.types import CameraSpec, ObjectSpec, SceneSpec, StaticSpec, Trajectory


def make_trajectory(spec: SceneSpec, positions_m: np.ndarray,
                    orientations_xyzw: np.ndarray | None = None) -> Trajectory:
    """A Trajectory with the given (K, T, 3) positions (orientation identity unless given)."""
    positions_m = np.asarray(positions_m, dtype=np.float64)
    k, t, _ = positions_m.shape
    if orientations_xyzw is None:
        orientations_xyzw = np.zeros((k, t, 4))
        orientations_xyzw[..., 3] = 1.0
    times = np.arange(t) / spec.fps
    return Trajectory(object_names=tuple(o.name for o in spec.objects), t_s=times, position_m=positions_m,
                      orientation_xyzw=orientations_xyzw, linear_velocity_mps=np.zeros((k, t, 3)),
                      angular_velocity_radps=np.zeros((k, t, 3)), physics_t_s=times,
                      physics_position_m=positions_m)


def small_camera(width: int = 96, height: int = 64, **kw) -> CameraSpec:
    base = dict(eye_m=(0.3, -4.0, 1.2), target_m=(0.0, 0.0, 0.6), up=(0.0, 0.0, 1.0), fov_deg=50.0,
                width_px=width, height_px=height, near_m=0.1, far_m=50.0)
    base.update(kw)
    return CameraSpec(**base)


FLOOR = StaticSpec(name="floor", kind="floor", position_m=(0.0, 0.0, -0.05), half_extents_m=(6.0, 6.0, 0.05))


def scene(objects, statics=(FLOOR,), camera=None, num_frames: int = 3) -> SceneSpec:
    return SceneSpec(name="test", objects=tuple(objects), statics=tuple(statics),
                     camera=camera or small_camera(), fps=16.0, num_frames=num_frames)


def ball(name: str = "ball", radius: float = 0.15, color=(0.85, 0.15, 0.1, 1.0)) -> ObjectSpec:
    return ObjectSpec(name=name, shape="sphere", size_m=(radius,), color_rgba=color)


@pytest.fixture
def two_balls_scene():
    """Two balls over a floor: ``near`` at y = -1 (closer to the camera), ``far`` at y = +1.5; 3 frames."""
    spec = scene([ball("near"), ball("far", color=(0.1, 0.3, 0.9, 1.0))])
    pos = np.array([[[-0.5, -1.0, 0.8]] * 3, [[0.6, 1.5, 0.6]] * 3])
    pos[0, :, 0] += np.array([0.0, 0.1, 0.2])
    return spec, make_trajectory(spec, pos)


@pytest.fixture
def cx():
    """Helpers for building control test scenes (pytest's importlib mode cannot import conftest directly)."""
    from types import SimpleNamespace

    return SimpleNamespace(make_trajectory=make_trajectory, small_camera=small_camera, scene=scene, ball=ball,
                           floor=FLOOR)
