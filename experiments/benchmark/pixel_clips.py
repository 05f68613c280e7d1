"""Defects made on finished pixels (generator clips, external clips): one timeline edit (a hold, a cut, a
reversal), text drawn into the frames, a pasted disc that appears or vanishes, and prompt-side defects. Shared by
:mod:`experiments.benchmark.generator_clips` and :mod:`experiments.benchmark.external_edits`.

A timeline edit returns ``src``: new frame ``i`` shows source frame ``src[i]``; :func:`new_index` moves a
source frame (an impact, a window) onto the edited timeline.
"""

from __future__ import annotations

import numpy as np

from experiments.benchmark import edits


def new_index(src: np.ndarray, k: int) -> int | None:
    """First edited frame that shows source frame ``k`` (None when it was cut)."""
    hits = np.flatnonzero(src == k)
    return int(hits[0]) if hits.size else None


def new_time(src: np.ndarray, t_s: float, fps: float) -> float | None:
    """Where a source time lands on the edited timeline (None when its frame was cut)."""
    k = int(np.floor(t_s * fps))
    frac = t_s * fps - k
    i = new_index(src, min(k, len(src) - 1) if k < src.max() + 1 else int(src.max()))
    if i is None:
        return None
    # Within a reversed stretch time runs backwards: the event sits before the shown frame.
    step = 1 if i + 1 >= len(src) or src[min(i + 1, len(src) - 1)] >= src[i] else -1
    return (i + frac * step) / fps


def pick_motion_frame(frames: np.ndarray, lo: int, hi: int, rng: np.random.Generator) -> tuple[int, float]:
    """A frame in ``[lo, hi)`` among the quarter whose picture changes most to the next frame (a hold or a cut
    there shows), and the largest mean absolute change (grey levels). Used to place an edit, never to annotate
    one."""
    hi = max(lo + 1, min(hi, len(frames) - 1))
    diffs = np.array([np.abs(frames[k + 1].astype(np.int16) - frames[k].astype(np.int16)).mean()
                      for k in range(lo, hi)])
    top = np.flatnonzero(diffs >= np.quantile(diffs, 0.75))
    return int(lo + top[int(rng.integers(len(top)))]), float(diffs.max())


def hold(frames: np.ndarray, at: int, count: int):
    return edits.insert_hold(frames, at, count)


def cut(frames: np.ndarray, after: int, count: int):
    return edits.cut(frames, after, count)


def reverse(frames: np.ndarray):
    return edits.reverse(frames)
