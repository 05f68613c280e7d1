"""Renderers: distances against analytic ray-plane intersections, the analytic ray caster against
PyBullet's TinyRenderer, occlusion, and RGB shading."""

from __future__ import annotations

import math

import numpy as np
import pytest

from control.render import SEG_BACKGROUND, SEG_STATIC, AnalyticRenderer, TinyRendererBackend
from sim.types import ObjectSpec, StaticSpec


def _ray_plane_distance(camera_spec, normal, offset):
    """Distance from the camera centre to the plane n.x = offset along every pixel's ray (H, W), from the
    pixel convention written out here independently: column c at x = c, row r at y = H - 1 - r."""
    h, w = camera_spec.height_px, camera_spec.width_px
    eye = np.asarray(camera_spec.eye_m, float)
    fwd = np.asarray(camera_spec.target_m, float) - eye
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, camera_spec.up)
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    f = (h / 2) / math.tan(math.radians(camera_spec.fov_deg) / 2)
    cols, rows = np.meshgrid(np.arange(w), np.arange(h))
    x_screen, y_screen = cols, h - 1 - rows
    dirs = ((x_screen - w / 2) / f)[..., None] * right + ((y_screen - h / 2) / f)[..., None] * up + fwd
    dirs /= np.linalg.norm(dirs, axis=-1, keepdims=True)
    normal = np.asarray(normal, float)
    with np.errstate(divide="ignore"):
        t = (offset - normal @ eye) / (dirs @ normal)
    return np.where(t > 0, t, np.inf)


@pytest.mark.parametrize("backend", [AnalyticRenderer, TinyRendererBackend])
def test_floor_distance_matches_ray_plane_intersection(cx, backend):
    """Floor top face z = 0 seen by a tilted camera: distance within 1e-4 relative of the analytic one."""
    camera = cx.small_camera(width=128, height=80, eye_m=(0.4, -3.0, 1.5), target_m=(0.0, 0.5, 0.0))
    far_ball = cx.ball("ball", radius=0.05)
    spec = cx.scene([far_ball], camera=camera, num_frames=1)
    traj = cx.make_trajectory(spec, np.array([[[0.0, 30.0, 20.0]]]))  # out of view
    render = backend(rgb=False, progress=False).render(spec, traj)
    expected = _ray_plane_distance(camera, (0, 0, 1), 0.0)
    floor = render.segmentation[0] == SEG_STATIC
    assert floor.sum() > 0.3 * floor.size
    rel = np.abs(render.distance_m[0][floor] - expected[floor]) / expected[floor]
    assert rel.max() <= 1e-4
    assert np.all(np.isinf(render.distance_m[0][render.segmentation[0] == SEG_BACKGROUND]))


def test_box_face_distance_matches_ray_plane_intersection(cx):
    """A rotated box (dynamic): pixels on its face toward the camera lie on that face's plane."""
    yaw = math.radians(20)
    quat = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
    box = ObjectSpec(name="box", shape="box", size_m=(0.5, 0.1, 0.4))
    camera = cx.small_camera(width=128, height=80, eye_m=(0.0, -3.0, 0.5), target_m=(0.0, 0.0, 0.5))
    spec = cx.scene([box], statics=(), camera=camera, num_frames=1)
    center = np.array([0.1, 0.0, 0.5])
    traj = cx.make_trajectory(spec, center[None, None], np.array([[quat]]))
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    normal = -np.array([-math.sin(yaw), math.cos(yaw), 0.0])  # local -y face, facing the camera
    expected = _ray_plane_distance(camera, normal, normal @ center + 0.1)
    on_box = render.segmentation[0] == 0
    on_face = on_box & (np.abs(render.distance_m[0] - expected) / expected < 1e-3)
    assert on_box.sum() > 200 and on_face.sum() > 0.6 * on_box.sum()
    rel = np.abs(render.distance_m[0][on_face] - expected[on_face]) / expected[on_face]
    assert rel.max() <= 1e-4


def test_analytic_agrees_with_tinyrenderer(cx):
    """Sphere, rotated box, cylinder, a wall and the floor at 96x64: same segmentation up to a few boundary
    pixels; distances within 1e-4 on flat faces and within tessellation error (2%) on curved ones."""
    quat = (0.0, 0.3826834, 0.0, 0.9238795)  # 45 deg about y
    objects = [cx.ball("ball", radius=0.2),
               ObjectSpec(name="box", shape="box", size_m=(0.15, 0.2, 0.25), orientation_xyzw=quat),
               ObjectSpec(name="can", shape="cylinder", size_m=(0.15, 0.5))]
    wall = StaticSpec(name="wall", kind="wall", position_m=(1.6, 0.5, 0.6), half_extents_m=(0.1, 1.0, 0.6))
    spec = cx.scene(objects, statics=(cx.floor, wall), num_frames=2)
    pos = np.array([[[-0.9, 0.0, 0.8], [-0.8, 0.0, 0.7]], [[0.0, 0.3, 0.6], [0.05, 0.3, 0.6]],
                    [[0.8, -0.4, 0.25], [0.8, -0.4, 0.3]]])
    orn = np.zeros((3, 2, 4))
    orn[..., 3] = 1.0
    orn[1] = quat
    orn[2] = (0.2588190, 0.0, 0.0, 0.9659258)  # 30 deg about x: the top cap shows
    traj = cx.make_trajectory(spec, pos, orn)
    a = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    b = TinyRendererBackend(rgb=False, progress=False).render(spec, traj)
    for label in (0, 1, 2, SEG_STATIC):
        mismatch = ((a.segmentation == label) != (b.segmentation == label)).sum(axis=(1, 2))
        size = (a.segmentation == label).sum(axis=(1, 2))
        assert np.all(size > 30)
        assert mismatch.max() <= max(6, 0.12 * size.min()), (label, mismatch, size)
    same = a.segmentation == b.segmentation
    with np.errstate(invalid="ignore"):  # inf - inf on shared background
        rel = np.abs(a.distance_m - b.distance_m) / a.distance_m
    flat = same & ((a.segmentation == SEG_STATIC) | (a.segmentation == 1))
    assert np.nanmax(rel[flat]) <= 1e-4
    curved = same & ((a.segmentation == 0) | (a.segmentation == 2))
    assert np.nanmax(rel[curved]) <= 0.02


def test_occlusion_and_invisible_statics(cx):
    """A ball behind a wall is hidden; an invisible static is not drawn; the nearer body wins."""
    wall = StaticSpec(name="wall", kind="wall", position_m=(0.0, 0.0, 0.6), half_extents_m=(0.5, 0.05, 0.5))
    ghost = StaticSpec(name="ghost", kind="target", position_m=(0.9, -1.0, 0.6), half_extents_m=(0.2, 0.05, 0.2),
                       visible=False, collides=False)
    spec = cx.scene([cx.ball("hidden"), cx.ball("front")], statics=(cx.floor, wall, ghost), num_frames=1)
    traj = cx.make_trajectory(spec, np.array([[[0.0, 1.0, 0.6]], [[0.9, -1.0, 0.6]]]))
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    seg = render.segmentation[0]
    assert not (seg == 0).any()
    assert (seg == 1).sum() > 10
    assert (seg == SEG_STATIC).any()


def test_rgb_uses_object_colours_and_is_deterministic(two_balls_scene):
    spec, traj = two_balls_scene
    r1 = AnalyticRenderer(progress=False).render(spec, traj)
    r2 = AnalyticRenderer(progress=False).render(spec, traj)
    assert np.array_equal(r1.rgb, r2.rgb) and np.array_equal(r1.distance_m, r2.distance_m)
    assert r1.rgb.shape == (3, 64, 96, 3) and r1.rgb.dtype == np.uint8
    red = r1.rgb[0][r1.segmentation[0] == 0].astype(int)
    blue = r1.rgb[0][r1.segmentation[0] == 1].astype(int)
    assert np.all(red[:, 0] > red[:, 2]) and np.all(blue[:, 2] > blue[:, 0])
    assert not r1.rgb.flags.writeable and not r1.distance_m.flags.writeable
    no_rgb = AnalyticRenderer(progress=False).render(spec, traj, rgb=False)
    assert not no_rgb.rgb.any()
    assert np.array_equal(no_rgb.segmentation, r1.segmentation)


def test_trajectory_must_match_the_scene(two_balls_scene, cx):
    spec, traj = two_balls_scene
    other = cx.scene([cx.ball("x"), cx.ball("y")])
    with pytest.raises(ValueError, match="differ"):
        AnalyticRenderer(progress=False).render(other, traj)
