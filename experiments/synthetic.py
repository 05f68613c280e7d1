"""Pixel doctoring of a rendered clip, for the benchmark's small corpus rendered from a scene
(``experiments.benchmark.devcorpus``). A doctored copy changes one thing from frame ``k`` on:

* ``teleport``: the object is drawn ``jump_px`` further along x (a jump in one frame);
* ``vanish``: the object is gone (painted over with the background), in mid-frame.
"""

from __future__ import annotations

import numpy as np


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
