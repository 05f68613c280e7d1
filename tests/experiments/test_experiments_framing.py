"""Framings of a release-point job's scene: the mirrored view (the same motion seen from the other side, for
counterbalancing its direction over seeds) and the path framing's room below the landed object."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from control.depth import DepthControl
from experiments.scene import PathFraming, TemplateFraming, measurability_problems, mirrored_view, simulate_scene
from experiments.types import SceneRequirements, VideoSize
from generate.data import floor_room_box_bottom
from sim.camera import project
from veriphy.errors import UserError

CONF = Path(__file__).resolve().parents[2] / "conf"
#: A non-square size, so that a mirror about the wrong line (or a transposition) shows.
SIZE = VideoSize(width=48, height=32, num_frames=17, fps=8.0)
TINY_MODEL = VideoSize(width=64, height=64, num_frames=17, fps=8.0)


def _spec(scene: str):
    return instantiate(OmegaConf.load(CONF / "scene" / f"{scene}.yaml"))


def _simulate(scene: str, framing, seed: int = 0, size: VideoSize = SIZE):
    return simulate_scene(_spec(scene), size, DepthControl(progress=False), framing=framing, seed=seed)


@pytest.mark.parametrize("framing", [PathFraming, TemplateFraming])
@pytest.mark.parametrize("scene", ["thrown_ball", "ramp"])
def test_mirrored_view_mirrors_the_projected_path_and_the_control_picture(scene, framing):
    plain = _simulate(scene, framing(mirror="never"), seed=1)
    mirrored = _simulate(scene, framing(mirror="always"), seed=1)
    assert (plain.mirrored, mirrored.mirrored) == (False, True)
    # The projection's centre is x = W/2: a point at x is seen at W - x, at the same row.
    np.testing.assert_allclose(mirrored.path_px[:, 0], SIZE.width - plain.path_px[:, 0], atol=1e-9)
    np.testing.assert_allclose(mirrored.path_px[:, 1], plain.path_px[:, 1], atol=1e-9)
    assert np.ptp(plain.path_px[:, 0]) > 10  # the path does move across the picture
    # Pixel column c sits at x = c, so column c of the mirrored picture is column W - c of the original.
    frames, flipped = plain.control.frames, mirrored.control.frames
    assert frames.any() and flipped.shape == frames.shape
    np.testing.assert_array_equal(flipped[..., 1:], frames[..., :0:-1])
    assert not flipped[..., 0].any() and not frames[..., 0].any()
    # Same physics, same depths, same windows: only the picture is mirrored.
    np.testing.assert_array_equal(mirrored.trajectory.position_m, plain.trajectory.position_m)
    np.testing.assert_allclose(mirrored.radius_px, plain.radius_px)
    np.testing.assert_allclose(mirrored.control.near_m, plain.control.near_m)
    for name in ("airborne", "after_ground"):
        np.testing.assert_array_equal(mirrored.window_masks[name], plain.window_masks[name])


def test_odd_seeds_are_mirrored():
    rule = {mirror: [PathFraming(mirror=mirror).mirrors(seed) for seed in range(5)]
            for mirror in ("never", "odd_seeds", "always")}
    assert rule == {"never": [False] * 5, "odd_seeds": [False, True, False, True, False], "always": [True] * 5}
    framing = TemplateFraming(mirror="odd_seeds")
    even, odd = _simulate("thrown_ball", framing, seed=4), _simulate("thrown_ball", framing, seed=7)
    assert (even.mirrored, odd.mirrored) == (False, True)
    # The direction of motion across the picture: right for even seeds, left for odd ones.
    assert even.path_px[-1, 0] > even.path_px[0, 0] and odd.path_px[-1, 0] < odd.path_px[0, 0]
    assert _simulate("thrown_ball", framing, seed=4).spec == even.spec  # deterministic


def test_mirror_setting_is_checked():
    with pytest.raises(UserError) as err:
        PathFraming(mirror="left")
    assert err.value.field == "framing.mirror" and "never, odd_seeds, always" in err.value.reason


def test_a_scene_not_symmetric_about_its_motion_plane_is_not_mirrored():
    spec = _spec("thrown_ball")
    ball = spec.objects[0].model_copy(update={"linear_velocity_mps": (3.0, 0.5, 2.0)})
    skewed = spec.model_copy(update={"objects": (ball,)})
    assert mirrored_view(spec).camera.eye_m[1] == -spec.camera.eye_m[1] > 0
    with pytest.raises(UserError) as err:
        mirrored_view(skewed)
    assert err.value.field == "framing.mirror" and "ball: it moves along y at 0.5 m/s" in err.value.reason
    # Only a framing that mirrors looks: the same scene seen from its own side is framed as before.
    assert _simulate_spec(skewed, TemplateFraming(mirror="odd_seeds"), seed=2).mirrored is False
    with pytest.raises(UserError):
        _simulate_spec(skewed, TemplateFraming(mirror="odd_seeds"), seed=3)


def _simulate_spec(spec, framing, seed):
    return simulate_scene(spec, SIZE, DepthControl(progress=False), framing=framing, seed=seed)


def test_a_mirrored_scene_is_refused_for_the_same_shortfalls():
    requirements = SceneRequirements(object_radius_px=(3.0, 9.0))
    small = _spec("thrown_ball").model_copy(update={"objects": (
        _spec("thrown_ball").objects[0].model_copy(update={"size_m": (0.1,)}),)})
    plain = _simulate_spec(small, PathFraming(), seed=1)
    mirrored = _simulate_spec(small, PathFraming(mirror="odd_seeds"), seed=1)
    assert mirrored.mirrored
    problems = measurability_problems(mirrored, requirements)
    assert any("generator.object_radius_px" in p for p in problems)
    assert problems == measurability_problems(plain, requirements)
    # Mirrored, a ball that leaves the picture does so on the left.
    shifted = dataclasses.replace(mirrored, path_px=mirrored.path_px - [60.0, 0.0])
    assert any(p.startswith("ball's centre leaves the picture") for p in measurability_problems(shifted, requirements))


def _room_below(scene, size: VideoSize) -> float:
    """Fraction of the picture's height between the object's lowest point (m, its bottom) and the bottom edge,
    from the camera's own projection (whose picture spans v = -1 to H - 1: its centre is at H/2 - 1)."""
    pos = np.asarray(scene.trajectory.position_m)[scene.trajectory.index(scene.object_name)]
    r = scene.spec.object(scene.object_name).bounding_radius_m
    lowest = pos[np.argmin(pos[:, 2])] - [0.0, 0.0, r]
    uv, _ = project(scene.spec.camera, lowest)
    return (size.height - 1 - uv[1]) / size.height


def test_path_framing_leaves_room_below_a_tall_path_only():
    tight = _simulate("ramp", PathFraming(floor_room=0.0), size=TINY_MODEL)
    roomy = _simulate("ramp", PathFraming(floor_room=0.15), size=TINY_MODEL)
    assert _room_below(tight, TINY_MODEL) < 0.1  # the landed ball at the bottom edge
    assert _room_below(roomy, TINY_MODEL) == pytest.approx(0.15, abs=1e-6)
    assert roomy.radius_px.min() >= 3.0  # still inside the tiny model's range
    # A wide path's framing already leaves the room: its camera does not move.
    for scene in ("thrown_ball", "wall_bounce"):
        assert (_simulate(scene, PathFraming(floor_room=0.15), size=TINY_MODEL).spec.camera
                == _simulate(scene, PathFraming(floor_room=0.0), size=TINY_MODEL).spec.camera)
    with pytest.raises(UserError) as err:
        PathFraming(floor_room=0.5)
    assert err.value.field == "framing.floor_room"


@pytest.mark.parametrize("width_m", [1.0, 8.0])  # a tall fit, a wide fit
def test_floor_room_box_bottom_gives_exactly_the_room(width_m):
    margin, room, tan_v = 1.2, 0.2, math.tan(math.radians(25.0))
    tan_h = tan_v * 1.5
    z_low, z_top = 0.05, 4.0
    bottom = floor_room_box_bottom(width_m, z_low, z_top, floor_room=room, margin=margin, tan_h=tan_h,
                                   tan_v=tan_v)
    half = margin * max(width_m / 2 * tan_v / tan_h, (z_top - bottom) / 2)
    centre = (z_top + bottom) / 2
    assert bottom < 0
    assert (z_low - (centre - half)) / (2 * half) == pytest.approx(room)
    # Already enough room (none asked for; a wider fit): the box keeps the floor as its bottom.
    assert floor_room_box_bottom(width_m, z_low, z_top, floor_room=0.0, margin=margin, tan_h=tan_h,
                                 tan_v=tan_v) == 0.0
    assert floor_room_box_bottom(12.0, z_low, z_top, floor_room=room, margin=margin, tan_h=tan_h,
                                 tan_v=tan_v) == 0.0
