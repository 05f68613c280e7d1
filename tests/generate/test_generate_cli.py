"""python -m generate end to end on a tiny model (one subprocess) and its user errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from control.io import save_control
from generate.io import load_clip

ROOT = Path(__file__).resolve().parents[2]


def _run(args, cwd):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "generate", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_cli_writes_clip_and_refuses_wrong_size(make_control_video, tmp_path):
    save_control(make_control_video(9, 32, 32), tmp_path / "ctl")
    (tmp_path / "prompt.txt").write_text("a red ball bounces\n")
    out = tmp_path / "run"
    res = _run(["control=" + str(tmp_path / "ctl"), f"prompt_file={tmp_path / 'prompt.txt'}", "num_steps=3",
                "probe.release_step=1", "generator=tiny_random", f"hydra.run.dir={out}"], tmp_path)
    assert res.returncode == 0, res.stderr
    for name in ("clip.mp4", "clip.npz", "clip.json", "metrics.json", "manifest.json"):
        assert (out / name).is_file(), name
    clip = load_clip(out)
    assert clip.prompt == "a red ball bounces" and clip.release_step == 1 and clip.frames.shape == (9, 32, 32, 3)
    assert json.loads((out / "metrics.json").read_text())["sigma_rel"] == clip.sigma_rel

    res = _run(["control=" + str(tmp_path / "ctl"), "prompt=x", "generator=tiny_random", "generator.height=64",
                f"hydra.run.dir={tmp_path / 'bad'}"], tmp_path)
    assert res.returncode == 2
    assert "error:" in res.stderr and "32x32 px x 9 frames" in res.stderr and "32x64" in res.stderr
    assert "Traceback" not in res.stderr


def test_cli_sweep_writes_one_folder_per_release_step(make_control_video, tmp_path):
    save_control(make_control_video(5, 16, 16), tmp_path / "ctl")
    out = tmp_path / "run"
    res = _run(["control=" + str(tmp_path / "ctl"), "prompt=a ball", "num_steps=2", "sweep=[2,1]",
                "generator=tiny_random", f"hydra.run.dir={out}"], tmp_path)
    assert res.returncode == 0, res.stderr
    clips = {s: load_clip(out / f"release_{s:02d}") for s in (1, 2)}
    assert clips[1].release_step == 1 and clips[2].sigma_rel == 0.0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["release_steps"] == [1, 2] and metrics["transformer_calls"] < metrics["naive_transformer_calls"]
