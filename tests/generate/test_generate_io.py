"""Clip files: exact round trip, deterministic for a seed."""

from __future__ import annotations

import json

import numpy as np

from generate.io import load_clip, save_clip
from veriphy.video import decode_video


def test_round_trip_and_determinism(pipe1, control, run_clip, tmp_path):
    a = run_clip(pipe1, control, seed=7, release_step=2)
    b = run_clip(pipe1, control, seed=7, release_step=2)
    c = run_clip(pipe1, control, seed=8, release_step=2)
    assert np.array_equal(a.frames, b.frames) and not np.array_equal(a.frames, c.frames)
    save_clip(a, tmp_path / "a")
    save_clip(b, tmp_path / "b")
    for name in ("clip.npz", "clip.mp4", "clip.json"):  # wall-clock seconds are in timings.json only
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name

    back = load_clip(tmp_path / "a")
    assert np.array_equal(back.frames, a.frames) and not back.frames.flags.writeable
    assert np.array_equal(back.sigmas, a.sigmas)
    for field in ("prompt", "negative_prompt", "seed", "model_id", "release_step", "sigma_rel",
                  "expert_switch_step", "fps"):
        assert getattr(back, field) == getattr(a, field), field
    rec = json.loads((tmp_path / "a" / "clip.json").read_text())
    assert rec["scheduler"]["flow_shift"] == 3.0 and rec["extra"]["model_config_sha256"]
    assert "timings_s" not in rec["extra"] and set(back.extra["timings_s"]) >= {"text_encode", "denoise", "decode"}
    timings = json.loads((tmp_path / "a" / "timings.json").read_text())["timings_s"]
    assert set(timings) >= {"text_encode", "control_encode", "denoise", "decode"}


def test_mp4_decodes_to_the_clip(pipe1, control, run_clip, tmp_path):
    clip = run_clip(pipe1, control, seed=0)
    save_clip(clip, tmp_path)
    decoded = decode_video(tmp_path / "clip.mp4")
    frames = decoded.frames
    assert frames.shape == clip.frames.shape and decoded.fps == 16.0
    assert np.abs(frames.astype(int) - clip.frames).mean() < 8  # lossy H.264, exact copy is clip.npz
