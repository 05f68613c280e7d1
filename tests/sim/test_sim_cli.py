"""``python -m sim`` end to end: outputs, determinism, and exit code 2 with a one-line error for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim import scenes

ROOT = Path(__file__).resolve().parents[2]


def run_sim(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "sim", "progress=false", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_default_request_writes_all_artifacts_deterministically(tmp_path):
    outputs = []
    for name in ("a", "b"):
        proc = run_sim("request=throw_to_target_wall_first", f"hydra.run.dir={tmp_path / name}")
        assert proc.returncode == 0, proc.stderr
        assert "converged" in proc.stdout and "Traceback" not in proc.stderr
        outputs.append(tmp_path / name)
    for artifact in ("scene.json", "trajectory.npz", "predicates.json", "revisions.jsonl"):
        assert (outputs[0] / artifact).read_bytes() == (outputs[1] / artifact).read_bytes(), artifact
    predicates = json.loads((outputs[0] / "predicates.json").read_text())
    assert predicates["all_hold"] and predicates["converged"] and predicates["solves"] <= 3
    landing = predicates["report"]["results"][0]["details"]["landing_x_m"]
    assert abs(landing - 2.0) <= 0.02
    manifest = json.loads((outputs[0] / "manifest.json").read_text())
    assert manifest["stage"] == "sim" and "trajectory.npz" in manifest["artifact_sha256"]
    assert manifest["input_sha256"]["request"]


def test_scene_mode_with_predicates(tmp_path):
    proc = run_sim("scene=dominoes", "predicates=[{kind:fall_in_order}]", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    assert "all 1 predicates hold" in proc.stdout
    assert (tmp_path / "trajectory.npz").is_file() and (tmp_path / "scene.json").is_file()


def _write_bad_inputs(tmp_path):
    request = ("scene: {_target_: sim.scenes.thrown_ball}\n"
               "free_parameters: [{name: launch_speed_mps, low: 1, high: 9}]\n"
               "predicates: [{kind: lands_in_region, object: ball, x_range_m: [1.9, 2.1]}]\n")
    (tmp_path / "unknown.yaml").write_text(request + "colour: red\n")
    (tmp_path / "inverted.yaml").write_text(request.replace("low: 1, high: 9", "low: 9, high: 1"))
    (tmp_path / "negmass.yaml").write_text(request.replace("thrown_ball}", "thrown_ball, ball_mass_kg: -1}"))
    spec = scenes.thrown_ball().model_dump(mode="json")
    spec["objects"][0]["linear_velocity_mps"] = [float("nan"), 0.0, 0.0]
    (tmp_path / "nan.json").write_text(json.dumps(spec))


@pytest.mark.parametrize("arg, file, field, reason", [
    ("request_file={d}/unknown.yaml", "unknown.yaml", "colour", "Extra inputs are not permitted"),
    ("request_file={d}/inverted.yaml", "inverted.yaml", "free_parameters.0", "bounds inverted"),
    ("request_file={d}/negmass.yaml", "negmass.yaml", "mass_kg", "greater than 0"),
    ("spec_file={d}/nan.json", "nan.json", "objects.0", "must be finite"),
    ("request_file={d}/missing.yaml", "missing.yaml", "", "file not found"),
    ("sim.solver_iterations=0", "conf/sim/default.yaml", "solver_iterations", "greater than or equal to 1"),
])
def test_bad_input_exits_2_with_file_field_reason(tmp_path, arg, file, field, reason):
    _write_bad_inputs(tmp_path)
    proc = run_sim(arg.format(d=tmp_path), f"hydra.run.dir={tmp_path / 'run'}")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    line = next(line for line in proc.stderr.splitlines() if line.startswith("error: "))
    assert file in line and field in line and reason in line


def test_scene_that_blows_up_fails_its_predicates_without_crashing(tmp_path):
    spec = scenes.thrown_ball(launch_speed_mps=400.0, launch_angle_deg=80.0).model_dump(mode="json")
    (tmp_path / "fast.json").write_text(json.dumps(spec))
    proc = run_sim(f"spec_file={tmp_path / 'fast.json'}", "predicates=[{kind:stays_in_frame}]",
                   f"hydra.run.dir={tmp_path / 'run'}")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "simulation invalid: ball left the world" in proc.stdout
    report = json.loads((tmp_path / "run" / "predicates.json").read_text())
    assert not report["all_hold"] and "left the world" in report["report"]["trajectory_status"]
