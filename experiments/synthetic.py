"""A small labelled clip set for critic ablations, rendered from a simulated scene.

The clean clip is the shaded RGB render of the simulation (physically correct: label ``supported``). Doctored
copies change one thing after frame ``k`` and are labelled ``contradicted`` with the frames changed:

* ``teleport``: from frame k on, the object is drawn ``jump_px`` further along x (a jump in one frame);
* ``vanish``: from frame k on, the object is gone (painted over with the background), in mid-frame.

``manifest.jsonl`` lists them as the critic's batch manifest, one ``{"id", "video", "prompt", "label", "flaw",
"frames"}`` line per clip (``label``/``flaw``/``frames`` are extra fields the critic ignores).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from veriphy.files import atomic_write_bytes, dumps_json


def _background(rgb: np.ndarray, object_mask: np.ndarray) -> np.ndarray:
    """(H, W, 3) background: per pixel, the median over the frames where no object covers it."""
    out = np.median(rgb, axis=0)
    masked = np.where(object_mask[..., None], np.nan, rgb.astype(np.float64))
    with np.errstate(all="ignore"):
        med = np.nanmedian(masked, axis=0)
    ok = np.isfinite(med)
    out[ok] = med[ok]
    return out.astype(np.uint8)


def doctor(rgb: np.ndarray, object_mask: np.ndarray, flaw: str, start_frame: int, jump_px: int = 12) -> np.ndarray:
    """A doctored copy of ``rgb`` (T, H, W, 3); ``object_mask`` (T, H, W) bool marks the object's pixels."""
    bg = _background(rgb, object_mask)
    out = np.array(rgb, copy=True)
    for k in range(start_frame, len(rgb)):
        mask = object_mask[k]
        out[k][mask] = bg[mask]
        if flaw == "teleport":
            shifted = np.zeros_like(mask)
            src = rgb[k]
            w = mask.shape[1]
            if jump_px < w:
                shifted[:, jump_px:] = mask[:, :w - jump_px]
                moved = np.zeros_like(src)
                moved[:, jump_px:] = src[:, :w - jump_px]
                out[k][shifted] = moved[shifted]
        elif flaw != "vanish":
            raise ValueError(f"unknown flaw {flaw!r} (teleport | vanish)")
    return out


def write_synthetic_set(out_dir: str | Path, spec, prompt: str, object_name: str | None = None,
                        flaws: tuple[str, ...] = ("teleport", "vanish"), jump_px: int = 12) -> Path:
    """Render ``spec`` (already at the wanted size), write the clean and doctored clips and their manifest.

    Returns the manifest path. The doctoring starts at the middle frame where the object is in view."""
    from control.render import AnalyticRenderer
    from veriphy.video import write_video
    from sim.engine import simulate

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    traj = simulate(spec)
    render = AnalyticRenderer(rgb=True, progress=False).render(spec, traj, rgb=True)
    k_obj = traj.index(object_name or spec.objects[0].name)
    mask = np.asarray(render.segmentation) == k_obj
    rgb = np.asarray(render.rgb)
    in_view = np.flatnonzero(mask.any(axis=(1, 2)))
    start = int(in_view[len(in_view) // 2]) if in_view.size else len(rgb) // 2
    clips = {"clean": (rgb, "supported", [])}
    for flaw in flaws:
        clips[flaw] = (doctor(rgb, mask, flaw, start, jump_px), "contradicted", [start, len(rgb) - 1])
    lines = []
    for name, (frames, label, frames_changed) in clips.items():
        # Lossless so the doctoring is exactly what the critic reads.
        write_video(out_dir / f"{name}.mp4", frames, spec.fps, lossless=True)
        lines.append(dumps_json({"id": name, "video": f"{name}.mp4", "prompt": prompt, "label": label,
                                 "flaw": None if name == "clean" else name, "frames": frames_changed}, indent=None))
    manifest = out_dir / "manifest.jsonl"
    atomic_write_bytes(manifest, ("\n".join(lines) + "\n").encode())
    return manifest
