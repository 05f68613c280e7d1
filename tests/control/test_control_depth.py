"""Depth control: near bright, percentiles, background black, and both silhouette fallbacks with reasons."""

from __future__ import annotations

import numpy as np
import pytest

from control.depth import (NO_OBJECT_PIXEL_IN_FRAME, NO_OBJECT_PIXEL_IN_VIDEO, SILHOUETTE_REQUESTED, DepthControl,
                           SilhouetteControl)
from control.render import AnalyticRenderer
from sim.types import ObjectSpec


def _control(**kw) -> DepthControl:
    return DepthControl(renderer=AnalyticRenderer(rgb=False, progress=False), progress=False, **kw)


def test_depth_near_is_bright_background_black(two_balls_scene):
    spec, traj = two_balls_scene
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    cv = _control()(spec, traj, render=render)
    assert cv.kind == "depth" and cv.fallback_reason is None
    assert cv.shape_thw == (3, 64, 96)
    assert cv.frame_fallback_reasons == (None, None, None)
    seg = render.segmentation
    objects = seg >= 0
    assert np.all(cv.frames[~objects] == 0)  # background and statics are black
    assert np.all(cv.frames[objects] >= 32)  # objects never become background
    near_ball = cv.frames[seg == 0].astype(float).mean()
    far_ball = cv.frames[seg == 1].astype(float).mean()
    assert near_ball > far_ball + 50
    # the recorded percentiles are those of the object-pixel distances over the video
    near, far = np.percentile(render.distance_m[objects], [5, 95])
    np.testing.assert_allclose(cv.near_m, near, rtol=1e-6)
    np.testing.assert_allclose(cv.far_m, far, rtol=1e-6)
    assert cv.centers_px.shape == (3, 2, 2)
    # inverted mapping
    inverted = _control(near_is_bright=False)(spec, traj, render=render)
    assert inverted.frames[seg == 0].astype(float).mean() < inverted.frames[seg == 1].astype(float).mean()


def test_intensity_is_linear_in_distance_between_percentiles(two_balls_scene):
    spec, traj = two_balls_scene
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    cv = _control(min_intensity=1, max_intensity=255)(spec, traj, render=render)
    d = render.distance_m[render.segmentation >= 0]
    frac = np.clip((d - cv.near_m[0]) / (cv.far_m[0] - cv.near_m[0]), 0, 1)
    expected = np.rint(1 + (1 - frac) * 254)
    assert np.abs(cv.frames[render.segmentation >= 0] - expected).max() <= 1


def test_frame_scope_uses_per_frame_percentiles(cx):
    spec = cx.scene([cx.ball()], num_frames=3)
    pos = np.array([[[0.0, -2.0, 0.6], [0.0, 0.0, 0.6], [0.0, 2.0, 0.6]]])  # receding
    traj = cx.make_trajectory(spec, pos)
    video = _control()(spec, traj)
    frame = _control(percentile_scope="frame")(spec, traj)
    assert video.kind == frame.kind == "depth"
    assert len(set(video.near_m.tolist())) == 1
    assert np.all(np.diff(frame.near_m) > 0.5)
    # per-frame: every frame spans the full range; per-video: the receding ball darkens
    assert all(frame.frames[t].max() == 255 for t in range(3))
    assert video.frames[0].max() == 255 and video.frames[2].max() < 100


def test_fallback_no_object_pixel_in_video(cx):
    spec = cx.scene([cx.ball()], num_frames=2)
    traj = cx.make_trajectory(spec, np.array([[[0.0, -8.0, 0.6], [0.0, -9.0, 0.6]]]))  # behind the camera
    cv = _control()(spec, traj)
    assert cv.kind == "silhouette"
    assert cv.fallback_reason == NO_OBJECT_PIXEL_IN_VIDEO
    assert cv.frame_fallback_reasons == (NO_OBJECT_PIXEL_IN_VIDEO,) * 2
    assert not cv.frames.any()
    assert np.isnan(cv.near_m).all() and np.isnan(cv.far_m).all()
    assert np.isnan(cv.centers_px).all()


def test_fallback_no_object_pixel_in_a_frame_with_frame_scope(cx):
    spec = cx.scene([cx.ball()], num_frames=3)
    traj = cx.make_trajectory(spec, np.array([[[0.0, 0.0, 0.6], [0.0, 0.0, 0.7], [0.0, 0.0, 30.0]]]))
    per_video = _control()(spec, traj)
    assert per_video.kind == "depth"  # one empty frame does not break video percentiles
    cv = _control(percentile_scope="frame")(spec, traj)
    assert cv.kind == "silhouette"
    assert cv.frame_fallback_reasons == (None, None, NO_OBJECT_PIXEL_IN_FRAME)
    assert NO_OBJECT_PIXEL_IN_FRAME in cv.fallback_reason and "frame 2" in cv.fallback_reason
    assert set(np.unique(cv.frames).tolist()) == {0, 255}


def test_fallback_percentiles_coincide(cx):
    """A thin plate facing the camera square on: every pixel at (nearly) the same distance."""
    plate = ObjectSpec(name="plate", shape="box", size_m=(0.06, 0.01, 0.06))
    camera = cx.small_camera(eye_m=(0.0, -5.0, 1.0), target_m=(0.0, 0.0, 1.0), fov_deg=10.0)
    spec = cx.scene([plate], statics=(), camera=camera, num_frames=2)
    traj = cx.make_trajectory(spec, np.array([[[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]]))
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    cv = _control()(spec, traj, render=render)
    assert cv.kind == "silhouette"
    assert cv.fallback_reason.startswith("percentiles coincide")
    assert cv.frame_fallback_reasons == (cv.fallback_reason,) * 2
    assert np.array_equal(cv.frames, np.where(render.segmentation >= 0, 255, 0).astype(np.uint8))
    assert (cv.frames == 255).sum() > 20
    # with a zero tolerance the same plate is a depth video
    assert _control(min_range_m=0.0)(spec, traj, render=render).kind == "depth"


def test_include_statics_draws_the_floor(two_balls_scene):
    spec, traj = two_balls_scene
    render = AnalyticRenderer(rgb=False, progress=False).render(spec, traj)
    without = _control()(spec, traj, render=render)
    with_statics = _control(include_statics=True)(spec, traj, render=render)
    floor = render.segmentation == -1
    assert not without.frames[floor].any()
    assert np.all(with_statics.frames[floor] > 0)


def test_silhouette_control(two_balls_scene):
    spec, traj = two_balls_scene
    cv = SilhouetteControl(renderer=AnalyticRenderer(rgb=False, progress=False), progress=False)(spec, traj)
    assert cv.kind == "silhouette" and cv.fallback_reason == SILHOUETTE_REQUESTED
    assert set(np.unique(cv.frames).tolist()) == {0, 255}


@pytest.mark.parametrize("kw", [dict(near_percentile=50, far_percentile=10), dict(percentile_scope="clip"),
                                dict(min_intensity=0)])
def test_bad_parameters_are_refused(kw):
    with pytest.raises(ValueError):
        DepthControl(**kw)
