"""PyBullet solves: analytic ballistics and rolling, dominoes order, determinism, blow-ups."""

import hashlib
import math

import numpy as np
import pytest

from sim import engine, scenes
from sim.camera import out_of_frame_px, project, projected_radius_px
from sim.io import save_trajectory
from sim.types import SceneSpec

G = 9.81


@pytest.mark.parametrize("speed, angle, height", [(3.0, 30.0, 1.0), (4.5, 40.0, 1.0), (0.0, 90.0, 2.0),
                                                  (2.0, 0.0, 1.5), (5.0, 20.0, 0.3)])
def test_first_floor_contact_within_one_step_of_analytic_time(speed, angle, height):
    spec = scenes.thrown_ball(launch_speed_mps=speed, launch_angle_deg=angle, launch_height_m=height)
    traj = engine.simulate(spec)
    assert traj.ok
    radius = spec.object("ball").size_m[0]
    vz = speed * math.sin(math.radians(angle))
    # Centre reaches z = radius: height + vz t - g t^2 / 2 = radius.
    t_analytic = (vz + math.sqrt(vz * vz + 2 * G * (height - radius))) / G
    dt = 1.0 / spec.physics_hz
    first_floor = next(c for c in traj.contacts if "floor" in (c.body_a, c.body_b))
    assert abs(first_floor.time_s - t_analytic) <= dt
    window = traj.windows["ball/first_ground_contact"]
    assert window.start_s == pytest.approx(first_floor.time_s)
    assert traj.windows["ball/airborne"].start_s == 0.0
    assert traj.windows["ball/airborne"].end_s < window.start_s
    assert first_floor.impulse_ns > 0


@pytest.mark.parametrize("slope_deg, start_distance_m", [(15.0, 0.5), (25.0, 1.2), (35.0, 0.8)])
def test_ramp_exit_speed_matches_rolling_without_slipping(slope_deg, start_distance_m):
    spec = scenes.ramp(slope_deg=slope_deg, start_distance_m=start_distance_m)
    traj = engine.simulate(spec)
    assert traj.ok
    a = math.radians(slope_deg)
    downhill = np.array([math.cos(a), 0.0, -math.sin(a)])
    pos = traj.physics_position_m[traj.index("ball")]
    travelled = (pos - pos[0]) @ downhill
    # Exit: the contact point reaches the ramp's edge; semi-implicit Euler makes the position difference
    # over one step the velocity of that step.
    i = int(np.flatnonzero(travelled >= start_distance_m)[0])
    speed = np.linalg.norm(pos[i] - pos[i - 1]) * spec.physics_hz
    drop = start_distance_m * math.sin(a)
    expected = math.sqrt(10.0 / 7.0 * G * drop)
    assert speed == pytest.approx(expected, rel=0.03)
    # ... then it flies off the edge and lands on the floor.
    assert traj.windows["ball/airborne"].start_s > 0
    assert traj.windows["ball/first_ground_contact"].start_s > traj.windows["ball/airborne"].start_s


def test_dominoes_fall_strictly_in_order():
    spec = scenes.dominoes(n=6)
    traj = engine.simulate(spec)
    assert traj.ok
    fall_times = [traj.windows[f"domino_{i}/fall"].end_s for i in range(1, 7)]
    assert all(b > a for a, b in zip(fall_times, fall_times[1:]))
    # Fall time is when the tilt exceeds 45 deg.
    k = traj.index("domino_3")
    tilt = engine.tilt_deg(np.array([traj.orientation_xyzw[k, -1]]))[0]
    assert tilt > 45


def test_same_spec_same_bytes_and_seeded_randomness(tmp_path):
    spec = scenes.dominoes(n=4, spacing_jitter_m=0.03, seed=7)
    digests = []
    for i in range(2):
        path = save_trajectory(engine.simulate(spec), tmp_path / f"t{i}.npz")
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert scenes.dominoes(n=4, spacing_jitter_m=0.03, seed=7) == spec
    assert scenes.dominoes(n=4, spacing_jitter_m=0.03, seed=8) != spec


def test_frames_sampled_at_clip_fps():
    spec = scenes.collision(num_frames=17)
    traj = engine.simulate(spec)
    assert traj.position_m.shape == (2, 17, 3)
    assert traj.orientation_xyzw.shape == (2, 17, 4)
    np.testing.assert_allclose(traj.t_s, np.arange(17) / spec.fps)
    assert traj.physics_position_m.shape == (2, round(16 / spec.fps * spec.physics_hz) + 1, 3)
    np.testing.assert_allclose(traj.position_m[:, 5], traj.physics_position_m[:, 75])
    assert not traj.position_m.flags.writeable
    assert traj.spec_sha256 == engine.spec_sha256(spec)
    hit = next(c for c in traj.contacts if {c.body_a, c.body_b} == {"ball_a", "ball_b"})
    assert hit.impulse_ns > 0.3


def test_scene_that_leaves_the_world_reports_status_instead_of_raising():
    spec = scenes.thrown_ball(launch_speed_mps=400.0, launch_angle_deg=80.0)
    traj = engine.simulate(spec)
    assert not traj.ok
    assert "left the world" in traj.status and "ball" in traj.status
    assert np.all(np.isfinite(traj.position_m))


def test_load_scene_and_set_object_poses():
    spec = scenes.thrown_ball()
    traj = engine.simulate(spec)
    client = engine.new_client()
    try:
        ids = engine.load_scene(client, spec)
        assert set(ids) == {"floor", "wall", "target", "ball"}
        engine.set_object_poses(client, ids, traj, 10)
        pos, _ = client.getBasePositionAndOrientation(ids["ball"])
        np.testing.assert_allclose(pos, traj.position_m[0, 10], atol=1e-9)
    finally:
        client.disconnect()


def test_camera_frames_each_template():
    for spec in (scenes.thrown_ball(), scenes.ramp(), scenes.dominoes(), scenes.collision()):
        assert (spec.camera.width_px, spec.camera.height_px) == (848, 480)
        traj = engine.simulate(spec)
        for k, name in enumerate(traj.object_names):
            uv, depth = project(spec.camera, traj.position_m[k])
            radius = projected_radius_px(spec.camera, spec.object(name).bounding_radius_m, depth)
            assert radius.min() > 8, (spec.name, name)
            assert out_of_frame_px(spec.camera, uv, radius).max() == 0, (spec.name, name)


def test_spec_rejects_bad_values():
    good = scenes.thrown_ball().model_dump()
    bad = dict(good, objects=[dict(good["objects"][0], mass_kg=-1.0)])
    with pytest.raises(ValueError):
        SceneSpec.model_validate(bad)
    bad = dict(good, objects=[dict(good["objects"][0], linear_velocity_mps=(math.nan, 0, 0))])
    with pytest.raises(ValueError):
        SceneSpec.model_validate(bad)


def test_nan_state_is_reported_as_status():
    reason = engine._invalid_reason("ball", (0.0, float("nan"), 1.0), (0, 0, 0), (0, 0, 0), 1.25,
                                    engine.DEFAULT_SETTINGS)
    assert reason == "nan in state of ball at t=1.250 s"
    assert engine._invalid_reason("ball", (0, 0, 1), (0, 0, 0), (0, 0, 0), 0.0, engine.DEFAULT_SETTINGS) is None
