"""``python -m control``: renders a run directory or a scene file; refuses a mismatched size with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from control.__main__ import _load_inputs, check_requested_size
from control.io import load_control
from sim.io import save_spec, save_trajectory
from veriphy.errors import UserError

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "control", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def sim_run_dir(tmp_path, two_balls_scene):
    spec, traj = two_balls_scene
    run = tmp_path / "sim_run"
    save_spec(spec, run / "scene.json")
    save_trajectory(traj, run / "trajectory.npz")
    return run


def test_renders_a_sim_run_directory(tmp_path, sim_run_dir):
    out = tmp_path / "out"
    res = _run(f"run_dir={sim_run_dir}", f"hydra.run.dir={out}", "height=64", "width=96", "num_frames=3")
    assert res.returncode == 0, res.stderr
    for name in ("control.mp4", "control.npz", "meta.json", "scene_rgb.mp4", "manifest.json", "metrics.json"):
        assert (out / name).is_file(), name
    cv = load_control(out)
    assert cv.shape_thw == (3, 64, 96) and cv.kind == "depth"
    meta = json.loads((out / "meta.json").read_text())
    assert set(meta["input_sha256"]) == {"scene.json", "trajectory.npz"}
    assert "render" in res.stderr  # progress shown


def test_mismatched_size_is_refused_naming_both_sizes(tmp_path, sim_run_dir):
    res = _run(f"run_dir={sim_run_dir}", f"hydra.run.dir={tmp_path / 'out'}", "width=832", "num_frames=81")
    assert res.returncode == 2
    line = res.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ") and "Traceback" not in res.stderr
    assert "64x832x81" in line and "64x96x3" in line and "width,num_frames" in line
    assert not (tmp_path / "out" / "control.mp4").exists()


def test_scene_file_is_simulated_then_rendered(tmp_path, cx):
    spec = cx.scene([cx.ball()], num_frames=4)
    spec_path = save_spec(spec.model_copy(update={"objects": (spec.objects[0].model_copy(
        update={"position_m": (0.0, 0.0, 1.0)}),)}), tmp_path / "spec.json")
    out = tmp_path / "out"
    res = _run(f"scene_file={spec_path}", f"hydra.run.dir={out}", "save_rgb=false", "control=depth_per_frame")
    assert res.returncode == 0, res.stderr
    assert (out / "scene.json").is_file() and (out / "trajectory.npz").is_file()
    cv = load_control(out)
    assert cv.percentile_scope == "frame" and cv.kind == "depth"
    # the ball falls: its projected centre moves down the image
    assert np.all(np.diff(cv.centers_px[:, 0, 1]) > 0)


def test_no_input_is_a_user_error(tmp_path):
    res = _run(f"hydra.run.dir={tmp_path / 'out'}")
    assert res.returncode == 2 and "give exactly one input" in res.stderr


def test_scene_option_is_built_from_the_scene_group():
    """``scene=NAME`` (a conf/scene template) is built and simulated in process."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose(config_name="control_app", overrides=["scene=thrown_ball", "scene.num_frames=5",
                                                             "progress=false"])
    spec, traj, _, simulated, _ = _load_inputs(cfg)
    assert simulated and spec.template == "thrown_ball" and traj.position_m.shape == (1, 5, 3)


def test_check_requested_size(two_balls_scene):
    spec, _ = two_balls_scene
    check_requested_size(spec, 64, 96, 3)
    check_requested_size(spec, None, None, None)
    with pytest.raises(UserError, match="480x96x3"):
        check_requested_size(spec, 480, None, None)
    with pytest.raises(UserError, match="trajectory has 5 frames"):
        check_requested_size(spec, None, None, None, trajectory_frames=5)
