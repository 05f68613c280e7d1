"""Camera matrices and projection: PyBullet's matrices, TinyRenderer's pixel convention, projected centres
within half a pixel of the segmentation centroid."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from control.camera import Camera
from control.project import project_trajectory
from control.render import AnalyticRenderer, TinyRendererBackend
from sim.types import CameraSpec


@pytest.mark.parametrize("eye,target,up", [((1.0, -5.0, 1.0), (1.0, 0.0, 1.0), (0, 0, 1)),
                                           ((0.3, -4.0, 2.2), (-0.5, 0.4, 0.1), (0, 0, 1)),
                                           ((2.0, 3.0, 1.0), (0.0, 0.0, 0.5), (0.1, 0.0, 1.0))])
def test_matrices_equal_pybullets(eye, target, up):
    spec = CameraSpec(eye_m=eye, target_m=target, up=up, fov_deg=47.0, width_px=848, height_px=480,
                      near_m=0.1, far_m=40.0)
    cam = Camera(spec)
    view = pybullet.computeViewMatrix(eye, target, up)
    proj = pybullet.computeProjectionMatrixFOV(47.0, 848 / 480, 0.1, 40.0)
    np.testing.assert_allclose(cam.view_matrix, view, atol=1e-6)
    np.testing.assert_allclose(cam.projection_matrix, proj, atol=1e-6)


def test_project_matches_view_projection_matrices():
    """Pixel = viewport transform of the clip coordinates, rows flipped as TinyRenderer samples them."""
    cam = Camera(CameraSpec(eye_m=(0.3, -4.0, 1.2), target_m=(0.0, 0.0, 0.5), width_px=160, height_px=96))
    pts = np.random.default_rng(0).uniform([-1, -1, 0], [1, 1, 2], size=(20, 3))
    view = np.asarray(cam.view_matrix).reshape(4, 4).T
    proj = np.asarray(cam.projection_matrix).reshape(4, 4).T
    clip = (proj @ view @ np.c_[pts, np.ones(len(pts))].T).T
    ndc = clip[:, :3] / clip[:, 3:]
    x_screen = cam.width / 2 * (ndc[:, 0] + 1)
    y_screen = cam.height / 2 * (ndc[:, 1] + 1)
    expected = np.c_[x_screen, cam.height - 1 - y_screen]
    np.testing.assert_allclose(cam.project(pts), expected, atol=1e-9)


def test_points_behind_the_camera_are_nan():
    cam = Camera(CameraSpec(eye_m=(0, -5, 1), target_m=(0, 0, 1)))
    px = cam.project(np.array([[0.0, -6.0, 1.0], [0.0, 0.0, 1.0]]))
    assert np.isnan(px[0]).all() and np.isfinite(px[1]).all()
    # the point the camera looks at lands on the principal point (W/2, H/2 - 1)
    np.testing.assert_allclose(px[1], [cam.width / 2, cam.height / 2 - 1])


def test_ray_directions_and_lengths():
    cam = Camera(CameraSpec(width_px=64, height_px=48))
    unit = cam.ray_directions()
    np.testing.assert_allclose(np.linalg.norm(unit, axis=-1), 1.0)
    raw = cam.ray_directions(normalise=False)
    np.testing.assert_allclose(raw @ cam.forward, 1.0)
    np.testing.assert_allclose(np.linalg.norm(raw, axis=-1), cam.ray_lengths())
    # a point along pixel (c, r)'s ray projects back onto (c, r)
    r, c = 7, 50
    pt = cam.eye_m + 3.0 * raw[r, c]
    np.testing.assert_allclose(cam.project(pt[None])[0], [c, r], atol=1e-9)


def _centroid_errors(render, centers):
    errors = []
    t_count, h, w = render.segmentation.shape
    for t in range(t_count):
        for k in range(centers.shape[1]):
            rows, cols = np.nonzero(render.segmentation[t] == k)
            if len(rows) < 20 or rows.min() == 0 or cols.min() == 0 or rows.max() == h - 1 or cols.max() == w - 1:
                continue  # too small or cut by the border: the centroid is not the centre
            errors.append(np.hypot(cols.mean() - centers[t, k, 0], rows.mean() - centers[t, k, 1]))
    return np.asarray(errors)


@pytest.fixture
def flying_balls(cx):
    """Two balls crossing the image (no occlusion), 6 frames."""
    spec = cx.scene([cx.ball("a", radius=0.12), cx.ball("b", radius=0.09)],
                    camera=cx.small_camera(width=212, height=120), num_frames=6)
    t = np.linspace(0, 1, 6)[:, None]
    a = np.c_[-1.2 + 2.2 * t, 0.2 + 0 * t, 0.3 + 1.1 * t]
    b = np.c_[1.0 - 1.8 * t, -0.6 + 0 * t, 1.4 - 1.0 * t]
    return spec, cx.make_trajectory(spec, np.stack([a, b]))


@pytest.mark.parametrize("backend", [AnalyticRenderer, TinyRendererBackend], ids=["analytic", "tinyrenderer"])
def test_projection_within_half_pixel_of_segmentation_centroid(flying_balls, backend):
    spec, traj = flying_balls
    render = backend(rgb=False, progress=False).render(spec, traj)
    errors = _centroid_errors(render, project_trajectory(spec, traj))
    assert len(errors) >= 10
    assert errors.max() <= 0.5, errors


def test_project_trajectory_shape(two_balls_scene):
    spec, traj = two_balls_scene
    centers = project_trajectory(spec, traj)
    assert centers.shape == (3, 2, 2)
    # the ball moving +x moves right in the image
    assert np.all(np.diff(centers[:, 0, 0]) > 0)
