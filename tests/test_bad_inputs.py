"""Bad input, every stage: one table of mistakes a user can make, each with the exit code and the message it must
give (``error: FILE: FIELD: REASON``, exit 2, no traceback) and the files it must not leave behind
(``docs/errors.md``).

Every row runs the command's own entry point in-process (the Hydra main with its arguments, ``SystemExit``
caught): the same code path as the command line, without a Python start-up per row. With the environment
variable ``VERIPHY_BAD_INPUTS_SUBPROCESS=1`` every row runs as ``python -m ...`` instead (slower; it also
measures the table against a checkout whose entry points take no ``argv``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import yaml

from control.__main__ import main as control_main
from control.depth import DepthControl
from control.io import save_control
from control.render import AnalyticRenderer
from critic.__main__ import main as critic_main
from critic.suites.__main__ import cli as suites_main
from experiments.demo import main as demo_main
from experiments.run import main as experiments_main
from generate.__main__ import main as generate_main
from generate.sigmas import main as sigmas_main
from sim import scenes
from sim.__main__ import main as sim_main
from sim.engine import simulate
from sim.io import load_spec
from veriphy.video import write_video

ROOT = Path(__file__).resolve().parents[1]
SUBPROCESS = os.environ.get("VERIPHY_BAD_INPUTS_SUBPROCESS") == "1"
NOT_UTF8 = b"name: caf\xe9\nscene: {_target_: sim.scenes.thrown_ball}\n"
# A folder nothing can be created in, whoever runs the tests (root ignores file modes): sysfs refuses mkdir.
UNWRITABLE = Path("/sys/veriphy_unwritable/run")


@dataclass(frozen=True)
class Case:
    """One bad input: the command (module), its arguments (``{w}`` is the inputs folder, ``{run}`` the run
    folder the command must leave without files), the exit code and a fragment of its ``error:`` line."""

    id: str
    module: str
    args: tuple[str, ...]
    code: int = 2
    message: str = ""
    outputs: tuple[str, ...] = ("{run}",)  # paths that must hold no file afterwards
    marker: bool = False  # the input names a callable that would create {w}/marker when called
    extra: dict = field(default_factory=dict)


def _spec_dict(**camera) -> dict:
    spec = scenes.thrown_ball(num_frames=5).model_dump(mode="json")
    spec["camera"].update({"width_px": 32, "height_px": 32, **camera})
    return spec


def _request(scene: dict) -> str:
    return yaml.safe_dump({"name": "bad", "scene": scene,
                           "free_parameters": [{"name": "launch_speed_mps", "low": 1.0, "high": 9.0,
                                                "initial": 3.0}],
                           "predicates": [{"kind": "lands_in_region", "object": "ball", "x_range_m": [1.9, 2.1]}]})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The bad (and a few good) input files every row refers to as ``{w}``."""
    w = tmp_path_factory.mktemp("bad_inputs")
    marker = str(w / "marker")
    # Data files naming code: the old resolver imported and called any of these.
    (w / "open_target.yaml").write_text(_request({"_target_": "builtins.open", "file": marker, "mode": "w"}))
    (w / "mkdir_target.yaml").write_text(_request({"_target_": "os.mkdir", "path": marker}))
    (w / "system_target.yaml").write_text(_request({"_target_": "os.system", "command": f"touch {marker}"}))
    (w / "open_target_fixed.yaml").write_text(yaml.safe_dump({
        "scene": {"_target_": "builtins.open", "file": marker, "mode": "w"},
        "predicates": [{"kind": "lands_in_region", "object": "ball", "x_range_m": [1.9, 2.1]}]}))
    (w / "spec_open.json").write_text(json.dumps({"_target_": "builtins.open", "file": marker, "mode": "w"}))
    (w / "spec_mkdir.yaml").write_text(yaml.safe_dump({"_target_": "os.mkdir", "path": marker}))
    # Text files that are not UTF-8.
    for name in ("request_latin1.yaml", "spec_latin1.yaml", "prompt_latin1.txt", "manifest_latin1.jsonl",
                 "lessons_latin1.json", "suite_latin1.csv"):
        (w / name).write_bytes(NOT_UTF8)
    (w / "request_list.yaml").write_text("- 1\n- 2\n")
    (w / "request_inverted.yaml").write_text(_request({"_target_": "sim.scenes.thrown_ball"}).replace(
        "high: 9.0", "high: 0.5"))
    (w / "a_folder").mkdir()
    (w / "a_file").write_text("not a folder\n")
    # Degenerate cameras.
    (w / "camera_eye_is_target.json").write_text(json.dumps(_spec_dict(eye_m=[1.0, 0.0, 1.0],
                                                                       target_m=[1.0, 0.0, 1.0])))
    (w / "camera_up_along_view.json").write_text(json.dumps(_spec_dict(eye_m=[1.0, -5.0, 1.0],
                                                                       target_m=[1.0, 0.0, 1.0], up=[0.0, 1.0, 0.0])))
    (w / "small_spec.json").write_text(json.dumps(_spec_dict()))
    (w / "prompt.txt").write_text("a red ball bounces on the floor\n")
    # A corrupt copy of the shipped tiny model: the transformer's weights truncated.
    pretrained = ROOT / "generate" / "pretrained"
    corrupt = w / "corrupt_model"
    shutil.copytree(pretrained, corrupt)
    weights = corrupt / "transformer" / "diffusion_pytorch_model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    # A control run and a small video for the stages after control.
    spec = load_spec(w / "small_spec.json")
    traj = simulate(spec)
    video = DepthControl(renderer=AnalyticRenderer())(spec, traj)
    save_control(video, w / "control_run")
    frames = np.zeros((5, 32, 32, 3), dtype=np.uint8)
    frames[:, 10:20, 10:20, 0] = 255
    write_video(w / "clip.mp4", frames, 8.0)
    (w / "manifest.jsonl").write_text(json.dumps({"id": "a", "video": str(w / "clip.mp4"),
                                                  "prompt": "a red ball"}) + "\n")
    return w


SIM = "sim"
CONTROL = "control"
GENERATE = "generate"
SIGMAS = "generate.sigmas"
CRITIC = "critic"
SUITES = "critic.suites"
EXPERIMENTS = "experiments.run"
DEMO = "experiments.demo"
_RUN = "hydra.run.dir={run}"
_CONTROL = "control={w}/control_run"
_GEN = (_CONTROL, "prompt=a red ball", "progress=false", _RUN)
_CRITIC = ("video={w}/clip.mp4", "prompt=a red ball", "progress=false", _RUN)
_EXP = ("tracker=none", "generator=tiny_random", _RUN)

CASES = [
    # --- sim: data files never choose code ---------------------------------------------------------------------
    Case("sim-request-target-open", SIM, ("request_file={w}/open_target.yaml", _RUN),
         message="scene._target_", marker=True),
    Case("sim-request-target-mkdir", SIM, ("request_file={w}/mkdir_target.yaml", _RUN),
         message="is not a scene template", marker=True),
    Case("sim-request-target-system", SIM, ("request_file={w}/system_target.yaml", _RUN),
         message="'os.system' is not a scene template", marker=True),
    Case("sim-request-target-no-free-parameters", SIM, ("request_file={w}/open_target_fixed.yaml", _RUN),
         message="'builtins.open' is not a scene template", marker=True),
    Case("sim-spec-target-open", SIM, ("spec_file={w}/spec_open.json", _RUN),
         message="is not a scene template", marker=True),
    Case("sim-spec-target-mkdir", SIM, ("spec_file={w}/spec_mkdir.yaml", _RUN),
         message="spec_mkdir.yaml", marker=True),
    Case("sim-scene-override-target", SIM, ("scene=thrown_ball", "scene._target_=os.getcwd", _RUN),
         message="is not a scene template"),
    # --- sim: files ---------------------------------------------------------------------------------------------
    Case("sim-request-not-utf8", SIM, ("request_file={w}/request_latin1.yaml", _RUN), message="not UTF-8"),
    Case("sim-spec-not-utf8", SIM, ("spec_file={w}/spec_latin1.yaml", _RUN), message="spec_latin1.yaml: not UTF-8"),
    Case("sim-request-is-folder", SIM, ("request_file={w}/a_folder", _RUN), message="is a folder"),
    Case("sim-request-missing", SIM, ("request_file={w}/missing.yaml", _RUN), message="file not found"),
    Case("sim-request-not-mapping", SIM, ("request_file={w}/request_list.yaml", _RUN), message="expected a mapping"),
    Case("sim-request-inverted-bounds", SIM, ("request_file={w}/request_inverted.yaml", _RUN),
         message="bounds inverted"),
    Case("sim-spec-camera-eye-is-target", SIM, ("spec_file={w}/camera_eye_is_target.json", _RUN),
         message="no viewing direction"),
    Case("sim-spec-camera-up-along-view", SIM, ("spec_file={w}/camera_up_along_view.json", _RUN),
         message="parallel to the viewing direction"),
    # --- sim: values --------------------------------------------------------------------------------------------
    Case("sim-budget-abc", SIM, ("budget=abc", _RUN), message="budget: must be an integer, got 'abc'"),
    Case("sim-budget-fraction", SIM, ("budget=2.7", _RUN), message="budget: must be an integer, got 2.7"),
    Case("sim-budget-zero", SIM, ("budget=0", _RUN), message="budget: must be >= 1"),
    Case("sim-patience-zero", SIM, ("patience=0", _RUN), message="patience: must be >= 1"),
    Case("sim-solver-iterations", SIM, ("sim.solver_iterations=0", _RUN), message="solver_iterations"),
    # --- sim: Hydra's own mistakes and the output folder --------------------------------------------------------
    Case("sim-unknown-request-option", SIM, ("request=nope", _RUN), message="Could not find 'request/nope'"),
    Case("sim-unknown-key", SIM, ("colour=red", _RUN), message="colour"),
    Case("sim-override-syntax", SIM, ("budget=[1", _RUN), message="error: overrides:"),
    Case("sim-run-dir-unwritable", SIM, (f"hydra.run.dir={UNWRITABLE}",), message="operation not permitted",
         outputs=()),
    Case("sim-run-dir-under-a-file", SIM, ("hydra.run.dir={w}/a_file/run",), message="a_file", outputs=()),
    # --- control ------------------------------------------------------------------------------------------------
    Case("control-scene-file-target", CONTROL, ("scene_file={w}/spec_open.json", _RUN),
         message="is not a scene template", marker=True),
    Case("control-scene-file-not-utf8", CONTROL, ("scene_file={w}/spec_latin1.yaml", _RUN), message="not UTF-8"),
    Case("control-camera-eye-is-target", CONTROL, ("scene_file={w}/camera_eye_is_target.json", _RUN),
         message="camera"),
    Case("control-camera-up-along-view", CONTROL, ("scene_file={w}/camera_up_along_view.json", _RUN),
         message="parallel"),
    Case("control-crf-abc", CONTROL, ("scene_file={w}/small_spec.json", "crf=abc", _RUN),
         message="crf: must be an integer"),
    Case("control-crf-range", CONTROL, ("scene_file={w}/small_spec.json", "crf=99", _RUN), message="crf: must be <= 51"),
    Case("control-height-fraction", CONTROL, ("scene_file={w}/small_spec.json", "height=2.5", _RUN),
         message="height: must be an integer"),
    Case("control-run-dir-missing", CONTROL, ("run_dir={w}/missing", _RUN), message="run directory not found"),
    Case("control-no-input", CONTROL, (_RUN,), message="give exactly one input"),
    Case("control-unknown-renderer", CONTROL, ("control/renderer=nope", "scene_file={w}/small_spec.json", _RUN),
         message="Could not find"),
    Case("control-run-dir-unwritable", CONTROL, ("scene_file={w}/small_spec.json", f"hydra.run.dir={UNWRITABLE}"),
         message="operation not permitted", outputs=()),
    # --- generate -----------------------------------------------------------------------------------------------
    Case("generate-pretrained-dir-missing", GENERATE, (*_GEN, "generator.pretrained_dir={w}/no_model"),
         message="generator.pretrained_dir: trained tiny model not found"),
    Case("generate-corrupt-safetensors", GENERATE, (*_GEN, "generator.pretrained_dir={w}/corrupt_model"),
         message="cannot load the weights"),
    Case("generate-guidance-inf", GENERATE, (*_GEN, "guidance_scale=inf"), message="guidance_scale: must be finite"),
    Case("generate-guidance-nan", GENERATE, (*_GEN, "guidance_scale=nan"), message="guidance_scale: must be finite"),
    Case("generate-guidance-2-nan", GENERATE, (*_GEN, "guidance_scale_2=nan"), message="guidance_scale_2"),
    Case("generate-release-fraction", GENERATE, (*_GEN, "probe.release_step=2.5"),
         message="must be an integer, got 2.5"),
    Case("generate-release-range", GENERATE, (*_GEN, "probe.release_step=99"), message="probe.release_step"),
    Case("generate-steps-ten", GENERATE, (*_GEN, "num_steps=ten"), message="num_steps: must be an integer"),
    Case("generate-seed-abc", GENERATE, (*_GEN, "seed=abc"), message="seed: must be an integer"),
    Case("generate-sweep-fraction", GENERATE, (*_GEN, "sweep=[0,1.5]"), message="sweep: must be an integer"),
    Case("generate-mp4-crf-abc", GENERATE, (*_GEN, "mp4_crf=abc"), message="mp4_crf"),
    Case("generate-flow-shift-negative", GENERATE, (*_GEN, "scheduler.flow_shift=-3"),
         message="scheduler.flow_shift: must be > 0"),
    Case("generate-prompt-file-not-utf8", GENERATE,
         (_CONTROL, "prompt_file={w}/prompt_latin1.txt", "progress=false", _RUN), message="not UTF-8"),
    Case("generate-prompt-file-missing", GENERATE,
         (_CONTROL, "prompt_file={w}/missing.txt", "progress=false", _RUN), message="file not found"),
    Case("generate-control-missing", GENERATE, ("control={w}/missing", "prompt=a", "progress=false", _RUN),
         message="missing"),
    Case("generate-unknown-generator", GENERATE, (*_GEN, "generator=nope"), message="Could not find"),
    Case("generate-run-dir-under-a-file", GENERATE, (_CONTROL, "prompt=a", "hydra.run.dir={w}/a_file/run"),
         message="a_file", outputs=()),
    # --- generate.sigmas ----------------------------------------------------------------------------------------
    Case("sigmas-shift-negative", SIGMAS, ("shift=-3",), message="shift: must be > 0", outputs=()),
    Case("sigmas-shift-nan", SIGMAS, ("shift=nan",), message="shift: must be finite", outputs=()),
    Case("sigmas-boundary-above-one", SIGMAS, ("boundary=2.0",), message="boundary: must be <= 1", outputs=()),
    Case("sigmas-steps-ten", SIGMAS, ("steps=ten",), message="steps: must be an integer", outputs=()),
    Case("sigmas-release-fraction", SIGMAS, ("release=2.5",), message="must be an integer", outputs=()),
    Case("sigmas-steps-zero", SIGMAS, ("steps=0",), message="steps: must be >= 1", outputs=()),
    # --- critic -------------------------------------------------------------------------------------------------
    Case("critic-prompt-file-not-utf8", CRITIC,
         ("video={w}/clip.mp4", "prompt_file={w}/prompt_latin1.txt", "progress=false", _RUN), message="not UTF-8"),
    Case("critic-manifest-not-utf8", CRITIC, ("manifest={w}/manifest_latin1.jsonl", "progress=false", _RUN),
         message="not UTF-8"),
    Case("critic-cache-dir-is-a-file", CRITIC, (*_CRITIC, "cache_dir={w}/a_file"),
         message="cache_dir: is a file"),
    Case("critic-lessons-not-utf8", CRITIC, (*_CRITIC, "memory={w}/lessons_latin1.json"), message="not UTF-8"),
    Case("critic-lessons-is-folder", CRITIC, (*_CRITIC, "memory={w}/a_folder"), message="memory: is a folder"),
    Case("critic-video-missing", CRITIC, ("video={w}/missing.mp4", "prompt=a", "progress=false", _RUN),
         message="video file not found"),
    Case("critic-max-prompt-chars-abc", CRITIC, (*_CRITIC, "max_prompt_chars=abc"),
         message="max_prompt_chars: must be an integer"),
    Case("critic-unknown-planner", CRITIC, (*_CRITIC, "critic/planner=nope"), message="Could not find"),
    Case("critic-run-dir-unwritable", CRITIC, ("video={w}/clip.mp4", "prompt=a", f"hydra.run.dir={UNWRITABLE}"),
         message="operation not permitted", outputs=()),
    # --- critic.suites ------------------------------------------------------------------------------------------
    Case("suites-file-not-utf8", SUITES, ("import", "videophy2", "path={w}/suite_latin1.csv", _RUN),
         message="not UTF-8"),
    Case("suites-file-missing", SUITES, ("import", "videophy2", "path={w}/missing.csv", _RUN),
         message="file not found"),
    Case("suites-limit-abc", SUITES, ("import", "videophy2", "path={w}/suite_latin1.csv", "limit=abc", _RUN),
         message="limit: must be an integer"),
    Case("suites-top-abc", SUITES, ("coverage", "vbench2", "path={w}/suite_latin1.csv", "top=abc", _RUN),
         message="top: must be an integer"),
    Case("suites-unknown-suite", SUITES, ("import", "nope", "path={w}/a_file", _RUN), message="unknown suite"),
    Case("suites-unknown-command", SUITES, ("frobnicate", "videophy2", _RUN), message="command"),
    # --- experiments --------------------------------------------------------------------------------------------
    Case("experiments-seed-abc", EXPERIMENTS, (*_EXP, "seed=abc"), message="seed: must be an integer"),
    Case("experiments-steps-ten", EXPERIMENTS, (*_EXP, "num_steps=ten"), message="num_steps: must be an integer"),
    Case("experiments-release-fraction", EXPERIMENTS, (*_EXP, "probe.release_step=2.5"),
         message="must be an integer, got 2.5"),
    Case("experiments-guidance-inf", EXPERIMENTS, (*_EXP, "generator.guidance_scale=inf"),
         message="guidance_scale"),
    Case("experiments-unknown-preset", EXPERIMENTS, (*_EXP, "experiment=nope"), message="Could not find"),
    Case("experiments-run-dir-unwritable", EXPERIMENTS, ("tracker=none", f"hydra.run.dir={UNWRITABLE}"),
         message="operation not permitted", outputs=()),
    # --- demo ---------------------------------------------------------------------------------------------------
    Case("demo-release-steps-letters", DEMO, ("--out", "{run}", "--release-steps", "a,b"),
         message="--release-steps: must be an integer, got 'a'"),
    Case("demo-release-steps-beyond-n", DEMO, ("--out", "{run}", "--release-steps", "0,50", "--num-steps", "20"),
         message="--release-steps: must be <= 20"),
    Case("demo-seeds-letters", DEMO, ("--out", "{run}", "--seeds", "x"), message="--seeds"),
    Case("demo-num-steps-zero", DEMO, ("--out", "{run}", "--num-steps", "0"), message="--num-steps: must be >= 1"),
    Case("demo-ball-radius-nan", DEMO, ("--out", "{run}", "--ball-radius", "nan"), message="--ball-radius"),
    Case("demo-out-is-a-file", DEMO, ("--out", "{w}/a_file/demo"), message="--out", outputs=()),
]


def _call(module: str, argv: list[str]) -> int:
    """Run the command in-process; its exit code."""
    if module == SIGMAS:
        return sigmas_main(argv)
    if module == DEMO:
        return demo_main(argv)
    entry = {SIM: sim_main, CONTROL: control_main, GENERATE: generate_main, CRITIC: critic_main,
             SUITES: suites_main, EXPERIMENTS: experiments_main}[module]
    try:
        entry(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def _run(case: Case, w: Path, run: Path, capsys) -> tuple[int, str]:
    argv = [a.replace("{w}", str(w)).replace("{run}", str(run)) for a in case.args]
    if SUBPROCESS:
        proc = subprocess.run([sys.executable, "-m", case.module, *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=600, env={**os.environ, "WANDB_MODE": "offline"})
        return proc.returncode, proc.stderr
    code = _call(case.module, argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_cleanly(case: Case, inputs: Path, tmp_path: Path, capsys):
    run = tmp_path / "run"
    marker = inputs / "marker"
    if marker.exists():
        marker.unlink() if marker.is_file() else marker.rmdir()
    code, err = _run(case, inputs, run, capsys)
    assert code == case.code, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert lines, err[-3000:]
    assert case.message in lines[-1], lines[-1]
    for out in case.outputs:
        path = Path(out.replace("{w}", str(inputs)).replace("{run}", str(run)))
        left = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else ([path] if path.exists() else [])
        assert not left, f"partial output left: {left}"
    if case.marker:
        assert not marker.exists(), "the data file's _target_ was called"


def test_the_table_covers_every_stage_with_sixty_cases():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.module for c in CASES} == {SIM, CONTROL, GENERATE, SIGMAS, CRITIC, SUITES, EXPERIMENTS, DEMO}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_output_folder(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code = _call(SIM, [f"hydra.run.dir={ro / 'run'}"])
    finally:
        ro.chmod(0o755)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "permission denied" in err


def test_a_failed_atomic_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from veriphy import files

    def fail(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(OSError):
        files.write_json(tmp_path / "x.json", {"a": 1})
    assert list(tmp_path.iterdir()) == []
