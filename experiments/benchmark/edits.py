"""Pixel and timeline edits on finished frames (T, H, W, 3) uint8: held (inserted) frames, cut frames, reversal,
on-screen text, pasted discs. Each returns new frames and, where the timeline changes, the map from new frame
index to source frame index, so every annotation can be moved onto the edited timeline exactly."""

from __future__ import annotations

import cv2
import numpy as np


def insert_hold(frames: np.ndarray, at: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Show frame ``at`` ``count`` more times (the motion stops, then resumes where it was).
    Returns frames (T + count, ...) and source indices (T + count,)."""
    src = np.concatenate([np.arange(at + 1), np.full(count, at), np.arange(at + 1, len(frames))])
    return frames[src], src


def cut(frames: np.ndarray, after: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Drop frames ``after+1 .. after+count`` (everything moving jumps between new frames ``after`` and
    ``after+1``)."""
    src = np.concatenate([np.arange(after + 1), np.arange(after + 1 + count, len(frames))])
    return frames[src], src


def reverse(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    src = np.arange(len(frames))[::-1].copy()
    return frames[src], src


def resize(frames: np.ndarray, width: int, height: int) -> np.ndarray:
    return np.stack([cv2.resize(f, (width, height), interpolation=cv2.INTER_AREA) for f in frames])


def text_height_px(frame_height: int) -> int:
    return max(8, int(round(frame_height * 0.09)))


def put_text(frames: np.ndarray, text: str, first: int, last: int, *, corner: str = "top_left") -> tuple[np.ndarray, float]:
    """Draw ``text`` (white with a dark outline, OpenCV Hershey simplex) on frames ``first..last``.
    Returns the frames and the text's cap height in pixels."""
    out = frames.copy()
    h, w = frames.shape[1:3]
    target = text_height_px(h)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, base_h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = target / max(base_h, 1)
    thickness = max(1, int(round(scale * 1.5)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    if tw > w - 4:  # keep the whole word inside the frame
        scale *= (w - 4) / tw
        (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    x = 2 if corner.endswith("left") else w - tw - 2
    y = th + 3 if corner.startswith("top") else h - 4
    for k in range(first, last + 1):
        img = np.ascontiguousarray(out[k])
        cv2.putText(img, text, (x, y), font, scale, (20, 20, 20), thickness + 2, cv2.LINE_AA)
        cv2.putText(img, text, (x, y), font, scale, (250, 250, 250), thickness, cv2.LINE_AA)
        out[k] = img
    return out, float(th)


def paste_disc(frames: np.ndarray, centers: np.ndarray, radius_px: float, rgb: tuple[float, float, float]) -> np.ndarray:
    """Draw a shaded disc of ``radius_px`` at ``centers`` (T, 2) (x right, y down px; NaN rows: not drawn)."""
    out = frames.copy()
    h, w = frames.shape[1:3]
    yy, xx = np.mgrid[0:h, 0:w]
    color = np.asarray(rgb) * 255.0
    for k, (cx, cy) in enumerate(centers):
        if not (np.isfinite(cx) and np.isfinite(cy)):
            continue
        d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / radius_px ** 2
        inside = d2 <= 1.0
        # Lit from the top left: brighter towards (-0.5, -0.5) of the disc.
        light = 0.65 + 0.35 * np.clip(1.0 - (((xx - cx + 0.4 * radius_px) ** 2 + (yy - cy + 0.4 * radius_px) ** 2)
                                             / (1.6 * radius_px) ** 2), 0.0, 1.0)
        shade = np.clip(color[None, None, :] * light[..., None], 0, 255)
        out[k][inside] = shade[inside].astype(np.uint8)
    return out


def even_size(frames: np.ndarray) -> np.ndarray:
    """Crop to even height and width (H.264 4:2:0 needs them)."""
    h, w = frames.shape[1:3]
    return frames[:, : h - h % 2, : w - w % 2]
