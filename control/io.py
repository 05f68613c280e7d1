"""Read and write the ``control`` artifacts of a run directory.

* ``control.mp4``: the control frames (grey replicated to RGB, H.264) - what a generator reads.
* ``control.npz``: the exact frames (T, H, W) uint8, projected centres (T, K, 2) px, near/far (T,) m.
* ``meta.json``: kind, percentiles and scope, near/far per frame, fallback reasons (video and per frame),
  projected centres, object names, fps, shape, the scene's sha256 and the sha256 of the input files.
* ``scene_rgb.mp4`` (optional): the shaded RGB render of the scene, for synthetic clips.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from control.types import ControlVideo, SceneRender
from veriphy.video import write_video
from veriphy.errors import UserError
from veriphy.files import load_npz, read_json, save_npz, write_json
from veriphy.hashing import sha256_file

CONTROL_MP4 = "control.mp4"
CONTROL_NPZ = "control.npz"
CONTROL_META = "meta.json"
SCENE_RGB_MP4 = "scene_rgb.mp4"


def control_meta(cv: ControlVideo) -> dict:
    """The JSON description of a control video (everything but the frames)."""
    t, h, w = cv.shape_thw
    return {
        "kind": cv.kind,
        "fps": cv.fps,
        "shape_thw": [t, h, w],
        "object_names": list(cv.object_names),
        "near_percentile": cv.near_percentile,
        "far_percentile": cv.far_percentile,
        "percentile_scope": cv.percentile_scope,
        "near_is_bright": cv.near_is_bright,
        "near_m": cv.near_m,
        "far_m": cv.far_m,
        "fallback_reason": cv.fallback_reason,
        "frame_fallback_reasons": list(cv.frame_fallback_reasons),
        "centers_px": cv.centers_px,
        "spec_sha256": cv.spec_sha256,
    }


def save_control(cv: ControlVideo, run_dir: str | os.PathLike, *, input_sha256: Mapping[str, str] = {},
                 crf: int = 18) -> dict[str, Path]:
    """Write ``control.mp4``, ``control.npz`` and ``meta.json`` into ``run_dir``; returns their paths.

    ``input_sha256`` (e.g. ``{"scene.json": ..., "trajectory.npz": ...}``) is recorded in ``meta.json``
    beside the spec hash. Same control video -> same bytes in all three files. Odd frame sizes, which
    4:2:0 H.264 cannot hold, are written losslessly in RGB instead."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    _, h, w = cv.shape_thw
    lossless = bool(h % 2 or w % 2)
    mp4 = write_video(run_dir / CONTROL_MP4, cv.frames, cv.fps, crf=crf, lossless=lossless)
    npz = save_npz(run_dir / CONTROL_NPZ, frames=cv.frames, centers_px=cv.centers_px, near_m=cv.near_m,
                   far_m=cv.far_m, object_names=np.asarray(cv.object_names, dtype=str))
    meta = control_meta(cv)
    meta["input_sha256"] = dict(sorted(input_sha256.items()))
    meta["files"] = {CONTROL_MP4: {"sha256": sha256_file(mp4), "codec": "libx264rgb" if lossless else "libx264",
                                   "crf": None if lossless else crf},
                     CONTROL_NPZ: {"sha256": sha256_file(npz)}}
    path = write_json(run_dir / CONTROL_META, meta)
    return {"mp4": mp4, "npz": npz, "meta": path}


def save_scene_rgb(render: SceneRender, run_dir: str | os.PathLike, *, crf: int = 18,
                   name: str = SCENE_RGB_MP4) -> Path:
    """Write the RGB frames of a render as an MP4 (lossless RGB for odd sizes)."""
    _, h, w, _ = render.rgb.shape
    return write_video(Path(run_dir) / name, render.rgb, render.fps, crf=crf, lossless=bool(h % 2 or w % 2))


def load_control(path: str | os.PathLike) -> ControlVideo:
    """Load a control video from a run directory or its ``control.npz`` (``meta.json`` beside it)."""
    path = Path(path)
    npz_path = path / CONTROL_NPZ if path.is_dir() else path
    meta_path = npz_path.with_name(CONTROL_META)
    arrays = load_npz(npz_path)
    meta = read_json(meta_path)
    try:
        def floats(values):
            return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)

        return ControlVideo(
            frames=arrays["frames"],
            kind=meta["kind"],
            fps=float(meta["fps"]),
            object_names=tuple(str(n) for n in arrays["object_names"]),
            centers_px=arrays["centers_px"],
            near_m=floats(meta["near_m"]) if "near_m" not in arrays else arrays["near_m"],
            far_m=floats(meta["far_m"]) if "far_m" not in arrays else arrays["far_m"],
            near_percentile=float(meta["near_percentile"]),
            far_percentile=float(meta["far_percentile"]),
            percentile_scope=meta["percentile_scope"],
            near_is_bright=bool(meta["near_is_bright"]),
            fallback_reason=meta["fallback_reason"],
            frame_fallback_reasons=tuple(meta["frame_fallback_reasons"]),
            spec_sha256=meta.get("spec_sha256", ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"not a valid control artifact ({exc})", file=npz_path) from None
