"""Frames missing from the clip's timeline: a stretch of motion cut out, seen in the motion of the picture itself.

A cut of k frames out of steady motion leaves one frame step over which everything that was moving moves k + 1
times as far as it did the step before, along the same direction, and slows back down the step after (or stops,
when it came to rest inside the stretch cut out). Bodies that merely speed up do not look like that: a push
starts from rest or keeps the new speed, a fall gains a fixed amount per step, a bounce turns the motion round.

The motion is dense optical flow (OpenCV's Farneback) between consecutive frames resized to ``max_side`` pixels on
their long side, computed only around steps whose picture changes markedly more than the step before. Each step's
moving pixels (at least ``min_move_px`` of flow) are followed to where they are one frame later and the next step's
flow is read there, along the direction they were moving: the step's *ratio* is the 70th percentile over those
pixels. A step is a cut when its ratio is at least ``min_ratio``, the ratio of the step before it (the trend it
breaks) lies within ``steady`` (the motion before was neither starting from rest nor turning), the ratio of the
step after it is at most ``max_after`` (the motion slows back down), and the step's flow explains most of what the
step changed, carrying the picture on to the next frame (a body that stops being drawn leaves a jump of flow that
matches nothing). The per-track checks (``continuity``) tell which subjects were moving across it; the scene's own
continuity claim (``critic.specialists.scene``) reads every cut, whatever moved across it.

Working on the track of one body is not enough for this: a cut out of slow motion (a domino tipping over) moves
each body by less than a radius, which is within a tracker's jitter; the whole picture's flow on both sides of
the step is what tells it from a body's own acceleration.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from critic.specialists.colour import norm_last_axis
from critic.types import VideoContext

#: grid px per frame step: the least flow a pixel moves to count as moving (``missing_frames``)
MIN_MOVE_GRID_PX = 0.7


@dataclass(frozen=True)
class MissingFrames:
    """One frame step over which the picture's motion jumps ahead (frames cut out).

    ``frame``: the step is from frame ``frame`` to ``frame + 1``. ``ratio``: how many times as far the moving
    pixels move over it as over the step before (70th percentile, along their direction of motion); ``before``:
    the same ratio one step earlier (the trend: about 1 for steady motion); ``after``: the ratio of the step after
    against this one. ``mask`` (h, w) bool at the flow's grid: the pixels, at frame ``frame``, that make the jump;
    ``scale``: grid pixels per video pixel."""

    frame: int
    ratio: float
    before: float
    after: float
    mask: np.ndarray
    scale: float

    def record(self) -> list[float]:
        """``[frame, ratio, before, after]`` (ratios to 3 decimals): what a measurement's values keep of the step."""
        return [self.frame, round(self.ratio, 3), round(self.before, 3), round(self.after, 3)]

    def describe(self, who: str = "") -> str:
        """The step in words, for a packet: ``who`` names what moved across it (", this subject in it")."""
        return (f"the moving picture{who} goes {self.ratio:.1f} times as far between frames {self.frame} and "
                f"{self.frame + 1} as the step before and slows back down ({self.after:.2f} of it) after: frames "
                f"missing")

    def pixels_near_box(self, box_xyxy: np.ndarray, min_pad_px: float = 2.0) -> int:
        """How many of the jumping pixels fall inside ``box_xyxy`` (video pixels, x0, y0, x1, y1) padded by half its
        longer side (at least ``min_pad_px`` grid pixels): the flow of a plain body moves at its edges and
        around it, less inside."""
        h, w = self.mask.shape
        x0, y0, x1, y1 = (np.asarray(box_xyxy, float) * self.scale).tolist()
        pad_px = max(min_pad_px, 0.5 * max(x1 - x0, y1 - y0))
        xa, ya = max(int(np.floor(x0 - pad_px)), 0), max(int(np.floor(y0 - pad_px)), 0)
        xb, yb = min(int(np.ceil(x1 + pad_px)) + 1, w), min(int(np.ceil(y1 + pad_px)) + 1, h)
        if xa >= xb or ya >= yb:
            return 0
        return int(self.mask[ya:yb, xa:xb].sum())


class _Flow:
    """Farneback optical flow between consecutive frames resized so that their long side is ``max_side`` px, in
    grid pixels, computed for a step only when asked (memoised): ``step(k)`` (h, w, 2) float32 (dx, dy) from frame
    k to k + 1; ``scale`` grid pixels per video pixel."""

    def __init__(self, video: VideoContext, max_side: int):
        self.frames = video.frames
        self.scale = max_side / max(self.frames.shape[1], self.frames.shape[2])
        self._grey: dict[int, np.ndarray] = {}
        self._steps: dict[int, np.ndarray] = {}

    def grey(self, k: int) -> np.ndarray:
        if k not in self._grey:
            interp = cv2.INTER_AREA if self.scale < 1 else cv2.INTER_LINEAR
            self._grey[k] = cv2.resize(cv2.cvtColor(self.frames[k], cv2.COLOR_RGB2GRAY), None, fx=self.scale,
                                       fy=self.scale, interpolation=interp)
        return self._grey[k]

    def step(self, k: int) -> np.ndarray:
        if k not in self._steps:
            self._steps[k] = cv2.calcOpticalFlowFarneback(self.grey(k), self.grey(k + 1), None, 0.5, 3, 9, 3, 5, 1.1,
                                                          0)
        return self._steps[k]


def frame_changes(video: VideoContext, max_side: int = 160) -> np.ndarray:
    """(T-1,) mean absolute grey-level change from each frame to the next, on every n-th pixel (n: the long side
    over ``max_side``, rounded up), memoised on ``video``: a cheap first look at where the picture moves more."""
    memo = video.__dict__.setdefault("_frame_changes", {})
    if max_side not in memo:
        f = video.frames
        n = max(1, int(np.ceil(max(f.shape[1], f.shape[2]) / max_side)))
        grey = [cv2.cvtColor(np.ascontiguousarray(x[::n, ::n]), cv2.COLOR_RGB2GRAY) for x in f]
        out = np.array([float(cv2.absdiff(a, b).mean()) for a, b in zip(grey, grey[1:])])
        out.setflags(write=False)
        memo[max_side] = out
    return memo[max_side]


def _landing(flow: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the pixels (``ys``, ``xs``) land one frame later by ``flow`` (h, w, 2) (dx, dy): their rows and columns,
    rounded and kept inside the grid."""
    h, w = flow.shape[:2]
    step = flow[ys, xs]
    return (np.clip(np.rint(ys + step[:, 1]).astype(int), 0, h - 1),
            np.clip(np.rint(xs + step[:, 0]).astype(int), 0, w - 1))


def _step_ratio(flow: np.ndarray, following: np.ndarray, min_move_px: float, min_pixels: int,
                percentile: float = 70.0) -> tuple[float | None, np.ndarray | None]:
    """The ratio of ``following``'s flow (read where each moving pixel of ``flow`` lands) to ``flow``, along
    ``flow``'s direction, at its ``percentile`` over those pixels, and their landing places as a mask;
    ``(None, None)`` with fewer than ``min_pixels`` moving pixels. Not the median: Farneback's flow spreads past a
    body's edges onto the still background around it, which moves on with neither step and holds the median down."""
    h, w = flow.shape[:2]
    speed = norm_last_axis(flow)
    ys, xs = np.nonzero(speed >= min_move_px)
    if len(ys) < min_pixels:
        return None, None
    step = flow[ys, xs]
    ty, tx = _landing(flow, ys, xs)
    along = (following[ty, tx] * step).sum(axis=1) / speed[ys, xs] ** 2
    mask = np.zeros((h, w), bool)
    mask[ty, tx] = True
    return float(np.percentile(along, percentile)), mask


def _carries_the_picture(flow: _Flow, k: int, min_move_px: float, min_change: float = 12.0,
                         max_left: float = 0.75) -> bool:
    """Does step ``k``'s flow carry frame ``k`` on to frame ``k + 1``: over its moving pixels (``min_move_px`` or
    more) whose grey level changes by ``min_change`` or more into the next frame (what the step changed; the flow also
    spreads past a body's edges onto still ground around it, which stays as it was), is the median difference between
    each pixel and where the flow takes it in the next frame under ``max_left`` of the median change at the same
    place? Frames cut out leave a picture that has moved farther, and the flow finds where it went: it explains most
    of the change (on the benchmark's cuts the median left is 15 to 58 % of it). A body that stops being drawn (or
    one drawn anew) leaves nothing to find, and the flow over the place where it was, matched to nothing, explains
    next to none of it."""
    grey_now, grey_next = flow.grey(k).astype(np.float32), flow.grey(k + 1).astype(np.float32)
    step = flow.step(k)
    ys, xs = np.nonzero((norm_last_axis(step) >= min_move_px) & (np.abs(grey_next - grey_now) >= min_change))
    if not len(ys):
        return False
    ty, tx = _landing(step, ys, xs)
    carried = np.abs(grey_now[ys, xs] - grey_next[ty, tx])
    unmoved = np.abs(grey_now[ys, xs] - grey_next[ys, xs])
    return bool(np.median(carried) < max_left * np.median(unmoved))


def missing_frames(video: VideoContext, max_side: int = 160, min_move_px: float = MIN_MOVE_GRID_PX,
                   min_ratio: float = 2.5, max_after: float = 0.5, steady: tuple[float, float] = (0.5, 2.0),
                   min_pixels: int = 100, min_change_ratio: float = 1.5) -> list[MissingFrames]:
    """Every frame step of ``video`` over which the moving picture jumps ahead (module docstring), in frame order
    (memoised on ``video``). ``min_move_px`` and ``min_pixels`` are in pixels of the ``max_side`` grid. The flow is
    only computed around steps whose picture changes ``min_change_ratio`` times as much as the step before
    (``frame_changes``): moving pixels that go k + 1 times as far change about that many more pixels."""
    key = (max_side, min_move_px, min_ratio, max_after, steady, min_pixels, min_change_ratio)
    memo = video.__dict__.setdefault("_missing_frames", {})
    if key in memo:
        return memo[key]
    changes = frame_changes(video, max_side)
    flow = _Flow(video, max_side)
    out = []
    # step k (frames k -> k + 1) against step k - 1, after a steady step k - 1 and before a slower step k + 1
    for k in range(2, len(changes) - 1):
        if changes[k] < min_change_ratio * changes[k - 1] or changes[k - 1] <= 0.0:
            continue
        ratio, mask = _step_ratio(flow.step(k - 1), flow.step(k), min_move_px, min_pixels)
        if ratio is None or ratio < min_ratio:
            continue
        before, _ = _step_ratio(flow.step(k - 2), flow.step(k - 1), min_move_px, min_pixels)
        if before is None or not steady[0] <= before <= steady[1]:
            continue
        # the step after, against the jump: read on the pixels moving over the jump itself
        after, _ = _step_ratio(flow.step(k), flow.step(k + 1), min_move_px, 1)
        if after is None or after > max_after:
            continue
        if not _carries_the_picture(flow, k, min_move_px):
            continue
        out.append(MissingFrames(frame=k, ratio=ratio, before=before, after=after, mask=mask, scale=flow.scale))
    memo[key] = out
    return out


def unexplained_cuts(video: VideoContext, min_ratio: float | None = None) -> list[MissingFrames]:
    """:func:`missing_frames` of ``video`` but those its frame times explain (an interval over 1.5 times the clip's
    usual one there: a variable-rate source); none in a slow-motion clip (its steps are too small to read). With
    ``min_ratio``, only the steps that jump at least that many times as far: read from the default steps (memoised,
    so every caller shares one flow), not by a second pass at another threshold."""
    if video.sanity.likely_slow_motion or video.num_frames < 2:
        return []
    t = video.times_s
    dt = float(np.median(np.diff(t)))
    return [m for m in missing_frames(video) if not (dt > 0 and t[m.frame + 1] - t[m.frame] > 1.5 * dt)
            and (min_ratio is None or m.ratio >= min_ratio)]
