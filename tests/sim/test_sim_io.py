"""Saving and loading specs, trajectories and requests; clear errors for bad files."""

import json

import numpy as np
import pytest

from sim import engine, scenes
from sim.io import load_request, load_spec, load_trajectory, save_spec, save_trajectory
from veriphy.errors import UserError

REQUEST = """
name: r
scene: {_target_: sim.scenes.thrown_ball, launch_height_m: 1.0}
free_parameters:
  - {name: launch_speed_mps, low: 1.0, high: 12.0, initial: 4.0}
predicates:
  - {kind: lands_in_region, object: ball, x_range_m: [1.9, 2.1]}
"""


def test_spec_and_trajectory_round_trip(tmp_path):
    spec = scenes.dominoes(n=3)
    assert load_spec(save_spec(spec, tmp_path / "scene.json")) == spec
    traj = engine.simulate(spec)
    path = save_trajectory(traj, tmp_path / "trajectory.npz")
    back = load_trajectory(path)
    assert back.object_names == traj.object_names and back.status == traj.status
    assert back.contacts == traj.contacts and back.windows == traj.windows
    assert back.spec_sha256 == engine.spec_sha256(spec)
    for name in ("t_s", "position_m", "orientation_xyzw", "physics_position_m"):
        np.testing.assert_array_equal(getattr(back, name), getattr(traj, name))
    # Saving the loaded trajectory gives the same bytes.
    assert save_trajectory(back, tmp_path / "again.npz").read_bytes() == path.read_bytes()


def test_scene_template_config_loads_as_spec(tmp_path):
    (tmp_path / "s.yaml").write_text("_target_: sim.scenes.collision\ngap_m: 2.0\n")
    assert load_spec(tmp_path / "s.yaml") == scenes.collision(gap_m=2.0)


def test_request_loads_with_initial_values(tmp_path):
    (tmp_path / "r.yaml").write_text(REQUEST)
    req = load_request(tmp_path / "r.yaml")
    assert req.initial_values() == {"launch_speed_mps": 4.0}
    assert req.build_spec({"launch_speed_mps": 5.0}).object("ball").linear_velocity_mps[0] == pytest.approx(
        5.0 * np.cos(np.radians(40.0)))
    assert req.clip({"launch_speed_mps": 99.0}) == {"launch_speed_mps": 12.0}


@pytest.mark.parametrize("edit, field, reason", [
    (lambda d: d.update(colour="red"), "colour", "Extra inputs"),
    (lambda d: d["free_parameters"][0].update(low=20.0), "free_parameters.0", "bounds inverted"),
    (lambda d: d["free_parameters"][0].update(name="spin"), None, "has no parameter 'spin'"),
    (lambda d: d["scene"].update(ball_mass_kg=-1.0), "mass_kg", "greater than 0"),
    (lambda d: d["scene"].update(wings=2), "scene", "takes no argument(s) ['wings']"),
    (lambda d: d["predicates"][0].update(object="cat"), "predicates.0.object", "no object named 'cat'"),
    (lambda d: d["predicates"][0].update(x_range_m=[2.1, 1.9]), "predicates.0", "inverted"),
])
def test_bad_request_names_file_field_and_reason(tmp_path, edit, field, reason):
    import yaml

    data = yaml.safe_load(REQUEST)
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError) as info:
        load_request(path)
    msg = info.value.message
    assert msg.startswith(str(path)) and reason in msg
    if field:
        assert field in msg


@pytest.mark.parametrize("edit, reason", [
    (lambda d: d["objects"][0].update(mass_kg=-1.0), "greater than 0"),
    (lambda d: d["objects"][0].update(linear_velocity_mps=[float("nan"), 0, 0]), "must be finite"),
    (lambda d: d["objects"][0].update(spin=1), "Extra inputs"),
])
def test_bad_spec_names_file_field_and_reason(tmp_path, edit, reason):
    data = scenes.thrown_ball().model_dump(mode="json")
    edit(data)
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UserError) as info:
        load_spec(path)
    assert str(path) in info.value.message and "objects.0" in info.value.message and reason in info.value.message


def test_missing_and_unparsable_files(tmp_path):
    with pytest.raises(UserError, match="file not found"):
        load_spec(tmp_path / "nope.json")
    (tmp_path / "bad.yaml").write_text("scene: [1, 2\n")
    with pytest.raises(UserError, match="not valid YAML"):
        load_request(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(UserError, match="mapping"):
        load_request(tmp_path / "list.yaml")
    (tmp_path / "x.npz").write_bytes(b"not a zip")
    with pytest.raises(UserError):
        load_trajectory(tmp_path / "x.npz")
