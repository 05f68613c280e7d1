"""Clip files in a run directory.

* ``clip.mp4``: H.264 (PyAV via :func:`veriphy.video.write_video`), for people and players.
* ``clip.npz``: the exact frames (and audio), so comparisons between clips are exact (H.264 is lossy).
* ``clip.json``: everything else (prompt, seed, model id and config hash, scheduler config, sigmas, i*,
  sigma_rel, expert switch, trace), with the sha256 of ``clip.npz``.
* ``timings.json``: the wall-clock seconds per stage (``extra.timings_s`` of the clip in memory).

``clip.npz``, ``clip.mp4`` and ``clip.json`` are byte-identical for the same inputs and seed; only
``timings.json`` differs between runs (manifests do not hash it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from generate.types import Clip
from veriphy.errors import UserError
from veriphy.files import load_npz, read_json, save_npz, write_json
from veriphy.hashing import sha256_file
from veriphy.video import write_video

CLIP_JSON = "clip.json"
CLIP_NPZ = "clip.npz"
CLIP_MP4 = "clip.mp4"
TIMINGS_JSON = "timings.json"
FORMAT_VERSION = 1


def clip_record(clip: Clip) -> dict[str, Any]:
    """The JSON-able fields of a clip (no frames, no audio samples)."""
    return {
        "format_version": FORMAT_VERSION,
        "prompt": clip.prompt,
        "negative_prompt": clip.negative_prompt,
        "seed": clip.seed,
        "model_id": clip.model_id,
        "fps": clip.fps,
        "shape_thw": list(clip.frames.shape[:3]),
        "scheduler": clip.scheduler,
        "sigmas": clip.sigmas.tolist(),
        "release_step": clip.release_step,
        "sigma_rel": clip.sigma_rel,
        "expert_switch_step": clip.expert_switch_step,
        "audio_rate_hz": clip.audio_rate_hz,
        # Wall-clock seconds differ between runs: they go to timings.json, so clip.json is reproducible.
        "extra": {k: v for k, v in clip.extra.items() if k != "timings_s"},
    }


def save_clip(clip: Clip, run_dir: str | os.PathLike, *, mp4: bool = True, crf: int = 18) -> Path:
    """Write ``clip.npz``, ``clip.mp4`` (when ``mp4``) and ``clip.json`` into ``run_dir``; returns the json path."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    arrays = {"frames": clip.frames}
    if clip.audio is not None:
        arrays["audio"] = np.asarray(clip.audio, dtype=np.float32)
    npz = save_npz(run_dir / CLIP_NPZ, **arrays)
    record = clip_record(clip)
    record["npz_sha256"] = sha256_file(npz)
    if mp4:
        t, h, w = clip.frames.shape[:3]
        # yuv420p needs even sizes; odd-sized clips are stored losslessly as RGB instead.
        lossless = bool(h % 2 or w % 2)
        write_video(run_dir / CLIP_MP4, clip.frames, clip.fps, audio=clip.audio, audio_rate_hz=clip.audio_rate_hz,
                    crf=crf, lossless=lossless)
        record["mp4"] = {"file": CLIP_MP4, "lossless": lossless, "crf": None if lossless else crf}
    if "timings_s" in clip.extra:
        write_json(run_dir / TIMINGS_JSON, {"timings_s": clip.extra["timings_s"]})
    return write_json(run_dir / CLIP_JSON, record)


def load_clip(run_dir: str | os.PathLike) -> Clip:
    """Read a clip saved by :func:`save_clip` (exact frames from ``clip.npz``). ``run_dir`` may also be the
    path of ``clip.json`` itself."""
    run_dir = Path(run_dir)
    if run_dir.is_file():
        run_dir = run_dir.parent
    json_path = run_dir / CLIP_JSON
    rec = read_json(json_path)
    npz_path = run_dir / CLIP_NPZ
    arrays = load_npz(npz_path)
    if "frames" not in arrays:
        raise UserError("no 'frames' array", file=npz_path)
    extra = dict(rec.get("extra") or {})
    timings_path = run_dir / TIMINGS_JSON
    if timings_path.is_file():
        extra.setdefault("timings_s", (read_json(timings_path) or {}).get("timings_s"))
    want = rec.get("npz_sha256")
    if want and sha256_file(npz_path) != want:
        raise UserError("clip.npz does not match the sha256 recorded in clip.json", file=npz_path)
    try:
        return Clip(
            frames=arrays["frames"], fps=float(rec["fps"]), prompt=rec.get("prompt", ""),
            negative_prompt=rec.get("negative_prompt", ""), seed=int(rec.get("seed", 0)),
            model_id=rec.get("model_id", ""), scheduler=rec.get("scheduler") or {},
            sigmas=np.asarray(rec.get("sigmas") or [], dtype=np.float64), release_step=rec.get("release_step"),
            sigma_rel=rec.get("sigma_rel"), expert_switch_step=rec.get("expert_switch_step"),
            audio=arrays.get("audio"), audio_rate_hz=rec.get("audio_rate_hz"), extra=extra,
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise UserError(f"not a clip record ({exc})", file=json_path) from None
