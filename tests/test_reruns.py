"""Reruns are byte-identical (``docs/architecture.md`` §7, determinism): the same command twice on the same inputs
writes the same bytes in every file, manifests included, except the wall-clock timings files (``timings.json``,
never hashed by a manifest) and Hydra's own record (``.hydra/``, the log). Tiny configs, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from control.__main__ import main as control_main
from critic.__main__ import main as critic_main
from generate.__main__ import main as generate_main
from sim import scenes
from sim.__main__ import main as sim_main
from veriphy.video import write_video

UNCOMPARED = {"timings.json"}


def _files(run: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(run.rglob("*")):
        rel = p.relative_to(run)
        if p.is_file() and ".hydra" not in rel.parts and p.suffix != ".log" and p.name not in UNCOMPARED:
            out[rel.as_posix()] = p.read_bytes()
    return out


def _twice(main, args: list[str], tmp_path: Path, *, expect: set[str]) -> dict[str, bytes]:
    runs = []
    for name in ("first", "second"):
        run = tmp_path / name
        try:
            main([*args, f"hydra.run.dir={run}"])
        except SystemExit as exc:  # pragma: no cover - a failure shows its code
            pytest.fail(f"exit {exc.code}")
        runs.append(_files(run))
    assert expect <= set(runs[0]), sorted(runs[0])
    assert sorted(runs[0]) == sorted(runs[1])
    differ = [name for name in runs[0] if runs[0][name] != runs[1][name]]
    assert not differ, f"differ between reruns: {differ}"
    manifest = json.loads(runs[0]["manifest.json"])
    assert "timings.json" not in manifest["artifact_sha256"]
    return runs[0]


@pytest.fixture(scope="module")
def small_spec(tmp_path_factory) -> Path:
    spec = scenes.thrown_ball(num_frames=5).model_dump(mode="json")
    spec["camera"].update({"width_px": 32, "height_px": 32})
    path = tmp_path_factory.mktemp("spec") / "scene.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.fixture(scope="module")
def control_run(tmp_path_factory, small_spec) -> Path:
    run = tmp_path_factory.mktemp("control") / "run"
    control_main([f"scene_file={small_spec}", "progress=false", "save_rgb=false", f"hydra.run.dir={run}"])
    return run


def test_sim_reruns_are_byte_identical(tmp_path):
    _twice(sim_main, ["request=throw_to_target", "budget=2", "progress=false"], tmp_path,
           expect={"scene.json", "trajectory.npz", "predicates.json", "revisions.jsonl", "manifest.json"})


def test_control_reruns_are_byte_identical(tmp_path, small_spec):
    _twice(control_main, [f"scene_file={small_spec}", "progress=false"], tmp_path,
           expect={"control.mp4", "control.npz", "meta.json", "metrics.json", "scene_rgb.mp4", "manifest.json"})


def test_generate_clip_reruns_are_byte_identical_with_timings_apart(tmp_path, control_run):
    files = _twice(generate_main, [f"control={control_run}", "prompt=a red ball bounces", "generator=tiny_random",
                          "num_steps=2", "progress=false"], tmp_path,
                   expect={"clip.mp4", "clip.npz", "clip.json", "metrics.json", "manifest.json"})
    assert "timings_s" not in json.loads(files["clip.json"])["extra"]
    assert "timings_s" not in json.loads(files["metrics.json"])
    timings = json.loads((tmp_path / "first" / "timings.json").read_text())["timings_s"]
    assert {"text_encode", "denoise", "decode"} <= set(timings)


def test_generate_sweep_reruns_are_byte_identical(tmp_path, control_run):
    files = _twice(generate_main, [f"control={control_run}", "prompt=a red ball bounces", "generator=tiny_random",
                          "num_steps=2", "sweep=[0,1]", "progress=false"], tmp_path,
                   expect={"release_00/clip.npz", "release_01/clip.json", "metrics.json", "manifest.json"})
    assert (tmp_path / "first" / "release_01" / "timings.json").is_file()
    assert "release_01/timings.json" in json.loads(files["manifest.json"])["unhashed"]


def test_critic_reruns_are_byte_identical(tmp_path):
    frames = np.full((8, 32, 32, 3), 90, dtype=np.uint8)
    for k in range(8):
        frames[k, 12:20, 2 + 3 * k:10 + 3 * k] = (220, 30, 30)
    video = tmp_path / "clip.mp4"
    write_video(video, frames, 8.0)
    _twice(critic_main, [f"video={video}", "prompt=a red ball rolls to the right", "progress=false"], tmp_path,
           expect={"plan.json", "evidence.jsonl", "verdict.json", "report.html", "manifest.json"})
