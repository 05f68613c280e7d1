"""Offline grounding and tracking: median background, Otsu, connected components, Hungarian identities.

Pipeline (docs/architecture.md §10; about 1 ms/frame at 848x480 on one core for the one-ball clip of
benchmarks/critic.py):

0. camera: global camera motion per frame (``grounding_camera``: corners followed by Lucas-Kanade, a RANSAC
   similarity per keyframe pair, kept only when undoing it makes the frames agree); a moving camera's frames
   are warped onto the first frame's pixel grid, so positions are in that grid; a still camera is the identity;
1. background = per-pixel median of up to ``bg_samples`` frames spread over the clip (with ``refine_rest_places``,
   an ablation switch off by default, each place where a tracked body comes to rest for much of the clip is then
   taken from the frames before it came, and the clip is tracked again);
2. per frame: foreground = max-over-channels |frame - background| above Otsu's threshold (never below
   ``min_threshold``), opened with a 3x3 kernel; ``cv2.connectedComponentsWithStats`` gives blobs with
   sub-pixel centroids, boxes, areas; mean RGB per blob; blobs that are mostly cast shadow (darker than the
   background with its chroma, ``colour.is_shadow``) are set apart, joined into tracklets of their own, and kept only
   where no tracked body stands in the column above them or beside them in most of their frames
   (``_uncast_shades``: a body of the floor's hue, darker, is no shadow);
3. identities: Hungarian matching (``scipy.optimize.linear_sum_assignment``) of blobs to constant-velocity
   predictions, gated by radius and speed; unmatched tracks coast (predicted, ``coasted``) through merges and
   occlusions for up to ``max_coast_s``; a stopped track whose patch still looks like it stays visible
   (a resting object that the median background has absorbed); a tracklet's still run that is a ghost - the
   frame shows the floor where the background holds the body that rests there later (or rested there before),
   and the tracklet's own colour elsewhere is that body's - is dropped (``_static_ghost_frames``), so that the
   tracklet which hands the ghost over to the arriving body does not hide the way the body came;
4. binding (``BackgroundGrounder``, ``grounding``): tracklets that follow each other in time (at most
   ``max_gap_s`` apart, or 12 frames, whichever is more) and look alike are stitched into identities; the
   plan's subjects are assigned to identities one to one on a cost from CIELAB colour names (``colour``), shape
   and size priors of the noun, motion and presence; plural subjects take the remaining identities of their
   colour (or the movers). A named colour that no moving identity has is looked for by colour alone (an object
   that never moves is part of the median background), but not in the body another subject named in another colour
   is firmly bound to, where the blob's colour fits that subject's name as well (``_anothers_body``: colour ranges
   overlap, and a brown ball is no orange cube), and a named
   subject's track that begins late in open view is taken back to the clip's start by the colour track that rested
   where it began (a body held by the median background while it rested is found by the motion only once it leaves,
   and at first only in part); a singular subject found by colour alone among several blobs of its colour takes
   the only one that moves, else it is not firm; last, a singular subject still unfound takes the one tracklet of
   its colour seen in exactly the clip's first two frames or its last two (``at_clip_edge``: tracklets shorter than
   ``min_track_frames`` are dropped, but a body that vanishes at the third frame shows no more);
5. binding evidence: each bound track records in ``meta["binding"]`` how it was found (colour, shape/size or
   motion), how many identities fit within the decision margin and whether the binding is firm. A binding
   whose assignment wins by under the margin, rests on motion and presence alone on a still blob, or whose
   track may hand its object over to another track is not firm, nor is an uncoloured plural's when more movers
   are left for it than the prompt counts: the measurements on it come back unknown, with that reason, instead
   of supported or contradicted. ``bind_subject`` keeps the older per-subject binding (colour ranges in HSV, or
   motion) for callers that bind one subject alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from critic.specialists import colour as colours
from critic.specialists import grounding
from critic.specialists.grounding_camera import compensate, estimate_camera_motion
from critic.types import GroundOp, OperationInputs, SubjectSpec, Track, VideoContext

#: Named colours as OpenCV HSV ranges (H in 0..179, S and V in 0..255): lists of (lo, hi) triples.
COLOR_RANGES: dict[str, list[tuple[tuple[int, int, int], tuple[int, int, int]]]] = {
    "red": [((0, 90, 60), (9, 255, 255)), ((170, 90, 60), (179, 255, 255))],
    "orange": [((9, 110, 90), (21, 255, 255))],
    "yellow": [((21, 80, 90), (35, 255, 255))],
    "green": [((35, 60, 40), (85, 255, 255))],
    "cyan": [((85, 60, 60), (100, 255, 255))],
    "blue": [((100, 80, 40), (130, 255, 255))],
    "purple": [((130, 60, 40), (155, 255, 255))],
    "pink": [((155, 40, 90), (170, 255, 255))],
    "brown": [((5, 80, 20), (22, 255, 150))],
    "white": [((0, 0, 190), (179, 45, 255))],
    "black": [((0, 0, 0), (179, 255, 55))],
    "gray": [((0, 0, 56), (179, 40, 189))],
}
COLOR_RANGES["grey"] = COLOR_RANGES["gray"]
# every other name the binding's calibrated colour names know (``colour.REFERENCES``, ``colour.ACHROMATIC``), so
# that a body of that colour which never moves can still be found by its colour alone
COLOR_RANGES["teal"] = [((78, 60, 40), (100, 255, 200))]
COLOR_RANGES["tan"] = [((10, 40, 140), (25, 110, 255))]
COLOR_RANGES["beige"] = [((15, 25, 180), (35, 90, 255))]
COLOR_RANGES["indigo"] = [((125, 80, 40), (140, 255, 255))]
COLOR_RANGES["silver"] = [((0, 0, 140), (179, 35, 225))]
COLOR_RANGES["magenta"] = COLOR_RANGES["purple"] + COLOR_RANGES["pink"]
for _alias, _name in (("violet", "purple"), ("navy", "blue"), ("maroon", "red"),
                      ("crimson", "red"), ("scarlet", "red"), ("gold", "yellow"), ("golden", "yellow"),
                      ("turquoise", "cyan")):
    COLOR_RANGES[_alias] = COLOR_RANGES[_name]


def color_matches(rgb: np.ndarray, color: str) -> np.ndarray:
    """Which of the (N, 3) uint8-valued RGB colours fall in the named colour's HSV range -> (N,) bool."""
    ranges = COLOR_RANGES.get(color.lower())
    if ranges is None:
        raise KeyError(color)
    px = np.clip(np.asarray(rgb, np.float64), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    hsv = cv2.cvtColor(px, cv2.COLOR_RGB2HSV).reshape(-1, 3).astype(int)
    ok = np.zeros(len(hsv), bool)
    for lo, hi in ranges:
        ok |= np.all((hsv >= lo) & (hsv <= hi), axis=1)
    return ok


@functools.cache
def _median_network(count: int) -> tuple[tuple[int, int], ...]:
    """The compare-exchanges that bring the middle value(s) of ``count`` inputs to the middle place(s): Batcher's
    odd-even merge sort on the next power of two (Knuth, TAOCP vol. 3, 5.3.4), exchanges with a place past
    ``count`` dropped (those places hold +infinity, so they never exchange), then only the exchanges the middle
    outputs depend on (walked back from them). Each ``(i, j)``, ``i < j``, leaves the smaller value at ``i``.
    25 inputs: 113 exchanges."""
    size = 1 << max(count - 1, 0).bit_length()
    sort: list[tuple[int, int]] = []
    p = 1
    while p < size:
        k = p
        while k >= 1:
            for j in range(k % p, size - k, 2 * k):
                for i in range(min(k, size - j - k)):
                    a, b = i + j, i + j + k
                    if a // (2 * p) == b // (2 * p) and b < count:
                        sort.append((a, b))
            k //= 2
        p *= 2
    middle = count // 2
    needed = {middle} if count % 2 else {middle - 1, middle}
    kept = []
    for a, b in reversed(sort):
        if a in needed or b in needed:
            kept.append((a, b))
            needed |= {a, b}
    return tuple(reversed(kept))


def frame_median(frames: np.ndarray) -> np.ndarray:
    """Per-pixel median of (N, H, W, C) uint8 frames -> (H, W, C) uint8, as ``np.median(frames, axis=0)`` cast to
    uint8 (an even count takes the mean of the two middle values, truncated), the same bytes.

    Computed by a selection network of whole-frame minima and maxima (``_median_network``; OpenCV's vectorised
    ``min``/``max``): 25 frames of 848 x 480 take about a third of the time of partitioning every pixel's values."""
    planes = [np.ascontiguousarray(f) for f in np.asarray(frames)]
    for a, b in _median_network(len(planes)):
        low = cv2.min(planes[a], planes[b])
        planes[b] = cv2.max(planes[a], planes[b])
        planes[a] = low
    middle = len(planes) // 2
    if len(planes) % 2:
        return planes[middle].astype(np.uint8)
    return ((planes[middle - 1].astype(np.float64) + planes[middle]) / 2.0).astype(np.uint8)


def _share_true(masks: np.ndarray) -> np.ndarray:
    """Per pixel, the share of the (N, H, W) bool ``masks`` that hold -> (H, W) float64: ``masks.mean(axis=0)``'s
    values (a count over N), counted by OpenCV's saturating 8-bit addition (N <= 255) in about a tenth of the time."""
    if len(masks) > 255:
        return masks.mean(axis=0)
    count = np.zeros(masks.shape[1:], np.uint8)
    for m in masks.view(np.uint8):
        cv2.add(count, m, dst=count)
    return count / len(masks)


def channel_max_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel largest difference over the colour channels of two (H, W, 3) uint8 pictures -> (H, W) uint8
    (OpenCV: ~5x numpy)."""
    r, g, bl = cv2.split(cv2.absdiff(a, b))
    return cv2.max(cv2.max(r, g), bl)


def opened(mask: np.ndarray) -> np.ndarray:
    """A binary (H, W) uint8 mask opened with a 3x3 square, as ``cv2.morphologyEx(mask, cv2.MORPH_OPEN, ...)`` on
    the whole frame, computed on the box around its pixels with a pixel of margin only (a moving body covers a
    small part of most frames): with that margin every pixel the opening reads inside the box is the frame's own,
    and outside it both the erosion and the dilation leave zeros, so the bytes are the whole frame's."""
    x, y, bw, bh = cv2.boundingRect(mask)
    out = np.zeros_like(mask)
    if bw == 0:
        return out
    h, w = mask.shape
    x0, y0, x1, y1 = max(x - 1, 0), max(y - 1, 0), min(x + bw + 1, w), min(y + bh + 1, h)
    out[y0:y1, x0:x1] = cv2.morphologyEx(mask[y0:y1, x0:x1], cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return out


def opened_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` (8-connectivity) of a binary (H, W) uint8 mask that was opened with a
    3x3 square -> (count, labels (H, W), stats (count, 5), centroids (count, 2) px).

    Labelled on the box around the mask's pixels only (a moving body covers a small part of most frames): the box
    starts on even coordinates, so OpenCV's 2x2-block labelling walks the same blocks in the same order as on the
    whole frame and the foreground labels, stats and centroids are the whole frame's; row 0 (the background) then
    describes the box only, and no caller reads it. Every blob holds a whole 3x3 square and two blobs' squares are
    four or more pixels apart, so there are at most ``ceil(H / 4) * ceil(W / 4)`` of them. Under 65 535 (any frame
    up to about 1000 x 1000) the labels fit in 16 bits, and OpenCV's Spaghetti labelling writes them about twice as
    fast as the default 32-bit call (the tracker labels every frame of the clip)."""
    h, w = mask.shape
    if -(-h // 4) * -(-w // 4) >= 65535:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)
    x, y, bw, bh = cv2.boundingRect(mask)
    labels = np.zeros((h, w), np.uint16)
    if bw == 0:
        return 1, labels, np.array([[0, 0, w, h, h * w]], np.int32), np.array([[(w - 1) / 2, (h - 1) / 2]])
    x0, y0 = x - x % 2, y - y % 2
    n, box_labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask[y0:y + bh, x0:x + bw], 8, cv2.CV_16U, cv2.CCL_SPAGHETTI)
    labels[y0:y + bh, x0:x + bw] = box_labels
    stats[:, 0] += x0
    stats[:, 1] += y0
    cents += (x0, y0)
    return n, labels, stats, cents


@dataclass
class Detections:
    """Blobs of one frame: ``centroids`` (N,2) px, ``boxes`` (N,4) xyxy px, ``areas`` (N,), ``rgb`` (N,3)
    mean colour, ``border`` (N,) bool touches the image border."""

    centroids: np.ndarray
    boxes: np.ndarray
    areas: np.ndarray
    rgb: np.ndarray
    border: np.ndarray

    def __len__(self) -> int:
        return len(self.areas)


@dataclass
class _Tracklet:
    identity: int
    first: int
    pos: np.ndarray
    vel: np.ndarray
    radius: float
    rgb: np.ndarray
    last_seen: int
    patch: np.ndarray | None = None
    box: np.ndarray | None = None
    frames: dict[int, tuple[np.ndarray, np.ndarray, float, bool, bool, np.ndarray]] = field(default_factory=dict)

    def seen_rgb(self) -> np.ndarray:
        """Median colour (sRGB) over the frames the blob was observed in (not coasted): unlike the running colour,
        it does not take on a body the blob merged with for a frame or two."""
        return np.median(np.stack([v[5] for v in self.frames.values() if v[3]]), axis=0)


#: smallest body the tracker detects, as a share of the frame's area (a measurement looking for a body by colour
#: without a track uses the same scale)
MIN_AREA_FRAC = 3e-4


@dataclass
class TrackingResult:
    """All identities found in one clip, before binding: tracks carry ``subject=""``."""

    tracks: list[Track]
    colors_rgb: dict[int, np.ndarray]
    background: np.ndarray
    threshold: float
    #: (T, 2, 3) transforms from each frame's pixels to the first frame's (identities for a still camera)
    camera: np.ndarray | None = None
    #: tracklets seen in exactly the clip's first two frames or its last two (``at_clip_edge``), kept apart from
    #: ``tracks`` (too short for them); their colours are in ``colors_rgb``
    edge_tracks: list[Track] = field(default_factory=list)


def _casts(body: np.ndarray, shade: np.ndarray) -> bool:
    """Could the body whose box is ``body`` have cast the blob whose box is ``shade`` (both xyxy px): is it in the
    column above it or beside it (the boxes within the wider one's width of each other across the image, its top
    above the shade's bottom)? A shadow lies under or beside the body that casts it, however high that is."""
    w, bw = shade[2] - shade[0] + 1, body[2] - body[0] + 1
    gap = max(body[0] - shade[2] - 1, shade[0] - body[2] - 1, 0.0)
    return bool(gap <= max(w, bw) and body[1] < shade[3])


class BackgroundTracker:
    """Multi-object tracker (see module doc). Arguments are tolerances in frames, pixels or radii."""

    def __init__(self, bg_samples: int = 25, min_threshold: float = 18.0, min_area_frac: float = MIN_AREA_FRAC,
                 min_area_px: int = 12, max_coast_s: float = 0.5, gate_radii: float = 4.0, gate_speed: float = 2.5,
                 color_weight: float = 1.0, min_track_frames: int = 3, hold_patch_diff: float = 14.0,
                 compensate_camera: bool = True, suppress_shadows: bool = True, max_shadow_share: float = 0.8,
                 max_chroma_jump: float = 30.0, chroma_gate_after_s: float = 0.2, drop_static_ghosts: bool = True,
                 min_ghost_run: int = 3, refine_rest_places: bool = False):
        self.compensate_camera = compensate_camera
        #: take each place where a tracked body comes to rest for much of the clip from the frames before it came, and
        #: track again (``_rest_place_background``): the body is then seen whole there, not as the part of it that
        #: differs from a median that holds it. Off by default: measured on the critic benchmark, it finds more
        #: defects but contradicts clean clips (docs/benchmark_results.md); an ablation switch until the checks are
        #: weighed on it
        self.refine_rest_places = refine_rest_places
        #: drop a tracklet's still runs (``min_ghost_run`` frames or more) that are ghosts: the place where the
        #: background model holds a body that rests there for much of the clip, seen while the body is elsewhere
        #: (``_static_ghost_frames``)
        self.drop_static_ghosts = drop_static_ghosts
        self.min_ghost_run = min_ghost_run
        #: after a coast, a blob whose colour differs from the track's by more than this in CIELAB a*b* (hue and
        #: chroma, not lightness: shade darkens a body without changing its hue) is another object
        self.max_chroma_jump = max_chroma_jump
        #: ... a coast of over this long (s): through a short one (a merge with a neighbour, a brief overlap) the
        #: blob that comes out may still carry some of the other body's colour
        self.chroma_gate_after_s = chroma_gate_after_s
        self.suppress_shadows = suppress_shadows
        self.max_shadow_share = max_shadow_share
        self.bg_samples = bg_samples
        self.min_threshold = min_threshold
        self.min_area_frac = min_area_frac
        self.min_area_px = min_area_px
        self.max_coast_s = max_coast_s
        self.gate_radii = gate_radii
        self.gate_speed = gate_speed
        self.color_weight = color_weight
        self.min_track_frames = min_track_frames
        self.hold_patch_diff = hold_patch_diff

    # ---------------------------------------------------------------- detection
    def background(self, frames: np.ndarray) -> np.ndarray:
        """Per-pixel median of up to ``bg_samples`` frames spread over the clip -> (H, W, 3) uint8."""
        idx = np.unique(np.linspace(0, len(frames) - 1, min(self.bg_samples, len(frames))).round().astype(int))
        sample = frames[idx]
        bg = frame_median(sample)
        # An object resting for much of the clip wins the median at its pixels. Such pixels take two values
        # often; keep the one that agrees with the surrounding (unambiguous) background.
        differs = np.stack([channel_max_diff(f, bg) > self.min_threshold for f in sample])
        ambiguous = _share_true(differs) >= 0.2
        if ambiguous.any() and ambiguous.mean() < 0.3:
            ys, xs = np.nonzero(ambiguous)
            vals = sample[:, ys, xs].astype(np.float32)  # (S, N, 3)
            vals[~differs[:, ys, xs]] = np.nan
            alt = np.nanmedian(vals, axis=0)
            smooth = cv2.inpaint(bg, ambiguous.astype(np.uint8), 5, cv2.INPAINT_TELEA)[ys, xs].astype(np.float32)
            use_alt = np.abs(alt - smooth).sum(1) < np.abs(bg[ys, xs].astype(np.float32) - smooth).sum(1)
            bg[ys[use_alt], xs[use_alt]] = np.round(alt[use_alt]).astype(np.uint8)
        return bg

    def threshold(self, frames: np.ndarray, bg: np.ndarray) -> float:
        """One Otsu threshold for the clip (stable across frames), from a few frames' differences."""
        idx = np.unique(np.linspace(0, len(frames) - 1, min(8, len(frames))).round().astype(int))
        diffs = np.concatenate([channel_max_diff(frames[i], bg).ravel() for i in idx])
        otsu, _ = cv2.threshold(diffs.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        return float(max(otsu, self.min_threshold))

    def detect(self, frame: np.ndarray, bg: np.ndarray, thr: float) -> Detections:
        """Blobs that differ from the background ``bg`` by more than ``thr`` (max over channels), opened 3x3, less
        those that are mostly cast shadow."""
        return self.detect_with_shades(frame, bg, thr)[0]

    def detect_with_shades(self, frame: np.ndarray, bg: np.ndarray, thr: float) -> tuple[Detections, Detections]:
        """:meth:`detect`'s blobs, and apart from them the blobs that are mostly cast shadow (``colour.is_shadow``:
        the background dimmed, its colour kept); with shadows not suppressed, every blob is in the first."""
        h, w = frame.shape[:2]
        diff = channel_max_diff(frame, bg)
        _, mask = cv2.threshold(diff, thr, 1, cv2.THRESH_BINARY)
        mask = opened(mask)
        n, labels, stats, cents = opened_components(mask)
        min_area = max(self.min_area_px, self.min_area_frac * h * w)
        keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_area]
        if self.suppress_shadows and keep:
            # a cast shadow differs from the floor by lightness only (colour.is_shadow). Whole blobs that are
            # mostly shadow are dropped; a blob that is partly shadow is kept whole, so an object in shade, or
            # a dark object of the floor's hue, is never cut into pieces that come and go
            share = {}
            for i in keep:  # on each blob's box only: a full-frame pass costs more than the blobs
                x, y, bw, bh = stats[i, :4]
                inside = labels[y:y + bh, x:x + bw] == i
                step = max(1, int(inside.sum()) // 2000)  # a share needs a sample, not every pixel
                px = frame[y:y + bh, x:x + bw][inside][::step]
                share[i] = float(colours.is_shadow(px, bg[y:y + bh, x:x + bw][inside][::step]).mean())
            shades = [i for i in keep if share[i] >= self.max_shadow_share]
            keep = [i for i in keep if share[i] < self.max_shadow_share]
        else:
            shades = []
        return (self._detections(frame, labels, stats, cents, keep),
                self._detections(frame, labels, stats, cents, shades))

    def detect_color(self, frame: np.ndarray, color: str, max_area_frac: float = 0.05) -> Detections:
        """Blobs of a named colour (HSV ranges), compact and under ``max_area_frac`` of the frame: objects that
        never move are part of the median background, but still have their colour."""
        h, w = frame.shape[:2]
        hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV)
        mask = np.zeros((h, w), np.uint8)
        for lo, hi in COLOR_RANGES[color.lower()]:
            mask |= cv2.inRange(hsv, np.array(lo, np.uint8), np.array(hi, np.uint8))
        mask = opened((mask > 0).astype(np.uint8))
        n, labels, stats, cents = opened_components(mask)
        min_area = max(self.min_area_px, self.min_area_frac * h * w)
        keep = [i for i in range(1, n) if min_area <= stats[i, 4] <= max_area_frac * h * w
                and stats[i, 4] >= 0.4 * stats[i, 2] * stats[i, 3]]
        return self._detections(frame, labels, stats, cents, keep)

    @staticmethod
    def _detections(frame: np.ndarray, labels: np.ndarray, stats: np.ndarray, cents: np.ndarray,
                    keep: list[int]) -> Detections:
        """The connected components ``keep`` (labels of ``cv2.connectedComponentsWithStats``) as Detections."""
        h, w = frame.shape[:2]
        if not keep:
            z = np.zeros((0, 2))
            return Detections(z, np.zeros((0, 4)), np.zeros(0), np.zeros((0, 3)), np.zeros(0, bool))
        st = stats[keep]
        rgb = np.zeros((len(keep), 3))
        for j, i in enumerate(keep):  # mean colour inside each kept blob, on its box only
            x, y, bw, bh = stats[i, :4]
            inside = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
            rgb[j] = cv2.mean(np.ascontiguousarray(frame[y:y + bh, x:x + bw]), mask=inside)[:3]
        x0, y0 = st[:, 0].astype(float), st[:, 1].astype(float)
        x1, y1 = x0 + st[:, 2] - 1, y0 + st[:, 3] - 1
        border = (x0 <= 0) | (y0 <= 0) | (x1 >= w - 1) | (y1 >= h - 1)
        return Detections(centroids=cents[keep].astype(float), boxes=np.stack([x0, y0, x1, y1], 1),
                          areas=st[:, 4].astype(float), rgb=rgb, border=border)

    # ---------------------------------------------------------------- tracking
    def track(self, frames: np.ndarray, times_s: np.ndarray, color: str | None = None) -> TrackingResult:
        """Track every blob in ``frames`` (T,H,W,3) -> identities with per-frame boxes (unbound). With
        ``color``, blobs of that named colour instead of background differences."""
        frames = np.asarray(frames)
        t_count = len(frames)
        camera = estimate_camera_motion(frames) if self.compensate_camera else None
        if camera is not None:
            # positions are then in the first frame's pixel grid: a panning camera does not move the objects
            frames = compensate(frames, camera)
        bg = self.background(frames)
        thr = self.threshold(frames, bg)
        dt = float(np.median(np.diff(times_s))) if t_count > 1 else 1.0
        max_coast = max(2, int(round(self.max_coast_s / dt))) if dt > 0 else 8
        chroma_gap = max(3, int(round(self.chroma_gate_after_s / dt))) if dt > 0 else 3
        bodies, shades = self._detect_all(frames, bg, thr, color)
        finished = self._associate(frames, bodies, max_coast, chroma_gap)
        if color is None and self.refine_rest_places:
            refined = self._rest_place_background(finished, frames, bg)
            if refined is not None:
                bg = refined
                bodies, shades = self._detect_all(frames, bg, thr, color)
                finished = self._associate(frames, bodies, max_coast, chroma_gap)
        if any(len(d) for d in shades):
            finished += self._uncast_shades(frames, max_coast, chroma_gap, shades, finished)
        if self.drop_static_ghosts:
            # (a tracklet left with too few observed frames is dropped below, as any short one is)
            for tr in finished:
                for k in self._static_ghost_frames(tr, frames, bg, thr):
                    del tr.frames[k]
        tracks, colors, edge = [], {}, []
        for tr in sorted(finished, key=lambda x: x.identity):
            track = self._to_track(tr, times_s)
            kept = tracks if int(track.visible.sum()) >= self.min_track_frames else edge if at_clip_edge(track) \
                else None
            if kept is not None:
                kept.append(track)
                colors[tr.identity] = tr.seen_rgb()
        return TrackingResult(tracks=tracks, colors_rgb=colors, background=bg, threshold=thr, camera=camera,
                              edge_tracks=edge)

    def _detect_all(self, frames: np.ndarray, bg: np.ndarray, thr: float, color: str | None
                    ) -> tuple[list[Detections], list[Detections]]:
        """Every frame's blobs: against ``bg`` (:meth:`detect_with_shades`: the bodies, and apart from them the blobs
        that are mostly cast shadow), or with ``color`` the blobs of that colour (:meth:`detect_color`, no shades)."""
        if color is not None:
            return [self.detect_color(frame, color) for frame in frames], []
        found = [self.detect_with_shades(frame, bg, thr) for frame in frames]
        return [f[0] for f in found], [f[1] for f in found]

    def _associate(self, frames: np.ndarray, detections: list[Detections], max_coast: int, chroma_gap: int,
                   first_id: int = 0) -> list[_Tracklet]:
        """Each frame's ``detections`` joined into tracklets (step 3 of the module docstring), numbered from
        ``first_id``; ``frames`` for the patches of bodies that stop."""
        t_count = len(frames)
        active: list[_Tracklet] = []
        finished: list[_Tracklet] = []
        next_id = first_id
        for k in range(t_count):
            det = detections[k]
            preds = [tr.pos + tr.vel * (k - tr.last_seen) for tr in active]
            matched_t: set[int] = set()
            matched_d: set[int] = set()
            if active and len(det):
                cost = np.full((len(active), len(det)), 1e6)
                det_ab = None  # the blobs' CIELAB a*b*, converted once a track has coasted long enough to need it
                for i, tr in enumerate(active):
                    gap = k - tr.last_seen
                    speed = float(np.linalg.norm(tr.vel))
                    gate = self.gate_radii * max(tr.radius, 2.0) + self.gate_speed * speed * gap
                    d = np.linalg.norm(det.centroids - preds[i], axis=1)
                    cdist = np.linalg.norm(det.rgb - tr.rgb, axis=1) / 60.0
                    c = d / max(tr.radius, 2.0) + self.color_weight * cdist
                    ok = d <= gate
                    if gap > chroma_gap and self.max_chroma_jump > 0:
                        # a track that coasted a while (lost, occluded) picks up the blob where its object shows
                        # again, not whatever blob turns up inside its wide gate: the white can that stopped being
                        # seen is not the green ball that changes size near where it was heading
                        # (against the median colour it was seen in: the running colour takes on some of a body
                        # it merged with just before it was lost)
                        if det_ab is None:
                            det_ab = colours.rgb_to_lab(det.rgb)[:, 1:]
                        jump = np.linalg.norm(det_ab - colours.rgb_to_lab(tr.seen_rgb())[1:], axis=1)
                        ok &= jump <= self.max_chroma_jump
                    cost[i, ok] = c[ok]
                rows, cols = linear_sum_assignment(cost)
                for i, j in zip(rows, cols):
                    if cost[i, j] >= 1e6:
                        continue
                    tr = active[i]
                    gap = k - tr.last_seen
                    pos = det.centroids[j]
                    new_vel = (pos - tr.pos) / gap
                    tr.vel = new_vel if len(tr.frames) > 0 else tr.vel
                    tr.pos = pos.copy()
                    tr.radius = 0.7 * tr.radius + 0.3 * float(np.sqrt(det.areas[j] / np.pi))
                    tr.rgb = 0.8 * tr.rgb + 0.2 * det.rgb[j]
                    tr.last_seen = k
                    tr.box = det.boxes[j].copy()
                    tr.patch = None
                    tr.frames[k] = (det.boxes[j].copy(), pos.copy(), float(det.areas[j]), True, bool(det.border[j]),
                                    det.rgb[j].copy())
                    matched_t.add(i)
                    matched_d.add(j)
            survivors: list[_Tracklet] = []
            for i, tr in enumerate(active):
                if i in matched_t:
                    survivors.append(tr)
                    continue
                gap = k - tr.last_seen
                held = self._hold_if_static(tr, frames, k)
                if held:
                    survivors.append(tr)
                    continue
                if gap > max_coast:
                    finished.append(tr)
                    continue
                # Coast: position predicted at constant velocity (merges, occlusions), not observed.
                pred = preds[i]
                half = np.array([tr.radius, tr.radius])
                tr.frames[k] = (np.concatenate([pred - half, pred + half]), pred.copy(), 0.0, False, False, tr.rgb)
                survivors.append(tr)
            active = survivors
            for j in range(len(det)):
                if j in matched_d:
                    continue
                r = float(np.sqrt(det.areas[j] / np.pi))
                tr = _Tracklet(identity=next_id, first=k, pos=det.centroids[j].copy(), vel=np.zeros(2), radius=r,
                               rgb=det.rgb[j].copy(), last_seen=k, box=det.boxes[j].copy())
                tr.frames[k] = (det.boxes[j].copy(), det.centroids[j].copy(), float(det.areas[j]), True,
                                bool(det.border[j]), det.rgb[j].copy())
                next_id += 1
                active.append(tr)
        finished.extend(active)
        return finished

    def _uncast_shades(self, frames: np.ndarray, max_coast: int, chroma_gap: int, shades: list[Detections],
                       bodies: list[_Tracklet],
                       max_cast_share: float = 0.5) -> list[_Tracklet]:
        """The blobs that dim the background without changing its colour, joined into tracklets of their own, that
        nothing casts: a cast shadow lies under or beside the body that casts it (``_casts``), however high that
        is, in most of the frames it is seen; a blob of the floor's hue, darker, with no body there to cast it in
        more than ``max_cast_share`` of its frames is a body of that hue (a green ball on a green floor)."""
        first = 1 + max((tr.identity for tr in bodies), default=-1)
        out = []
        for tr in self._associate(frames, shades, max_coast, chroma_gap, first_id=first):
            seen = [k for k, v in tr.frames.items() if v[3]]
            cast = sum(any(_casts(body.frames[k][0], tr.frames[k][0]) for body in bodies if k in body.frames)
                       for k in seen)
            if seen and cast <= max_cast_share * len(seen):
                out.append(tr)
        return out

    def _rest_place_background(self, tracklets: list[_Tracklet], frames: np.ndarray, bg: np.ndarray, *,
                               min_rest_share: float = 0.4, min_travel_radii: float = 2.0,
                               min_empty_frames: int = 3) -> np.ndarray | None:
        """The background with the places where a tracked body comes to rest taken from the frames before it came:
        a tracklet that moves (``min_travel_radii`` of its radii or more) and then stays within its radius of where it
        ends for ``min_rest_share`` of the clip or more, to the clip's end, is a body the median holds there; its last
        box, grown by half its size, is set to the per-pixel median of the frames before it arrived in which its box
        lay clear of that place (``min_empty_frames`` or more). None when no place qualifies. ``frames`` (T, H, W, 3)
        uint8, ``bg`` (H, W, 3) uint8, boxes in pixels."""
        t_count = len(frames)
        h, w = bg.shape[:2]
        out = None
        for tr in tracklets:
            seen = sorted(k for k, v in tr.frames.items() if v[3])
            if len(seen) < 4:
                continue
            cents = np.array([tr.frames[k][1] for k in seen])
            last = cents[-1]
            # the rest: the trailing frames within a radius of where it ends
            i = len(seen) - 1
            while i > 0 and np.linalg.norm(cents[i - 1] - last) <= max(tr.radius, 1.0):
                i -= 1
            arrive = seen[i]
            if seen[-1] < t_count - 2 or (t_count - arrive) < min_rest_share * t_count:
                continue
            reach = min_travel_radii * max(tr.radius, 1.0)
            if i == 0 or float(np.linalg.norm(cents[:i] - last, axis=1).max()) < reach:
                continue
            x0, y0, x1, y1 = tr.frames[seen[-1]][0]
            px, py = 0.5 * (x1 - x0 + 1), 0.5 * (y1 - y0 + 1)
            box = (max(int(x0 - px), 0), max(int(y0 - py), 0), min(int(np.ceil(x1 + px)) + 1, w),
                   min(int(np.ceil(y1 + py)) + 1, h))
            empty = [k for k in range(arrive) if k not in tr.frames or not _overlaps(tr.frames[k][0], box)]
            if len(empty) < min_empty_frames:
                continue
            if out is None:
                out = bg.copy()
            xs, ys = slice(box[0], box[2]), slice(box[1], box[3])
            out[ys, xs] = frame_median(frames[empty, ys, xs])  # the place only, not whole frames
        return out

    def _static_ghost_frames(self, tr: _Tracklet, frames: np.ndarray, bg: np.ndarray, thr: float,
                             still_px: float = 0.5, min_delta_e: float = 25.0) -> list[int]:
        """The frames of ``tr`` that show a ghost, not its body: a run of ``min_ghost_run`` or more observed frames in
        a row whose blob stays put (centroid within ``still_px``, colour within ``min_delta_e`` CIELAB from frame to
        frame) and is, in every frame of the run, a ghost of the body whose colour is the median colour of the
        tracklet's other observed frames (``_ghost_colour``). A body that rests for much of the clip wins the median
        at its place; in the frames before it arrives (or after it leaves) that place differs from the background
        with no body in it - the frame shows the floor there, the background the body - and a tracklet that holds it
        hands it over to the body when the body arrives, hiding the way it came. Only a still run, and only against
        the tracklet's own colour elsewhere: a moving blob is a body, a tracklet of nothing but a ghost is no body's
        (its colour is the floor's), and a body passing over its own resting place is part body."""
        seen = sorted(k for k, v in tr.frames.items() if v[3])
        if len(seen) < 2 * self.min_ghost_run:
            return []  # a run and as many other frames to tell the body's colour by
        lab = dict(zip(seen, colours.rgb_to_lab(np.stack([tr.frames[k][5] for k in seen]).astype(float))))
        runs: list[list[int]] = []
        for k in seen:
            j = runs[-1][-1] if runs else None
            # a still run is one place in one colour: the ghost and the body that arrives there share the place
            if (j is not None and k == j + 1 and np.linalg.norm(tr.frames[k][1] - tr.frames[j][1]) <= still_px
                    and float(np.linalg.norm(lab[k] - lab[j])) <= min_delta_e):
                runs[-1].append(k)
            else:
                runs.append([k])
        out: list[int] = []
        for run in runs:
            in_run = set(run)
            others = [k for k in seen if k not in in_run]
            if len(run) < self.min_ghost_run or len(others) < self.min_ghost_run:
                continue
            body = colours.rgb_to_lab(np.median(np.stack([tr.frames[k][5] for k in others]), axis=0))
            # every frame of it: a held frame (the tracker keeps a still body's last box) may show the body itself
            # come to its resting place, which only the frame's own pixels tell
            if all(self._ghost_colour(tr.frames[k], frames[k], bg, thr, body, min_delta_e) for k in run):
                out.extend(run)
        return out

    @staticmethod
    def _ghost_colour(obs: tuple, frame: np.ndarray, bg: np.ndarray, thr: float, body_lab: np.ndarray,
                      min_delta_e: float, min_ring_share: float = 0.2) -> bool:
        """Is observation ``obs`` (box, centroid, area, visible, border, mean frame RGB) a ghost of the body whose
        colour is ``body_lab`` (CIELAB)? The frame's colour there is not the body's (its mean over ``min_delta_e``
        from it) but a colour of what lies around the blob: ``min_ring_share`` or more of a ring as wide as half the
        box is under half as far from it as the body is (the surface the frame shows there continues around it; a
        ring over a floor, a wall and a post is mixed, and its mean is none of them), while the background model
        shows the body's colour there (under half as far from it as the frame's); and no more than three pixels of
        the box are of the body's colour (within ``min_delta_e`` / 2)."""
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = (int(round(v)) for v in obs[0])
        pad = max(2, (max(x1 - x0, y1 - y0) + 1) // 2)
        ys, xs = slice(max(y0 - pad, 0), min(y1 + pad + 1, h)), slice(max(x0 - pad, 0), min(x1 + pad + 1, w))
        seen_px, held_px = frame[ys, xs], bg[ys, xs]
        fg = channel_max_diff(seen_px, held_px) > thr
        inside = np.zeros_like(fg)
        inside[max(y0, 0) - ys.start:y1 + 1 - ys.start, max(x0, 0) - xs.start:x1 + 1 - xs.start] = True
        blob = fg & inside
        ring = ~cv2.dilate(fg.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if blob.sum() < 4 or ring.sum() < 4:
            return False
        seen, held = colours.rgb_to_lab(np.stack([seen_px[blob].astype(float).mean(axis=0),
                                                  held_px[blob].astype(float).mean(axis=0)]))
        off_body = float(np.linalg.norm(seen - body_lab))
        if not (off_body > min_delta_e and float(np.linalg.norm(held - body_lab)) < 0.5 * off_body):
            return False
        # the surface it shows continues around it: a share of the ring is of the blob's colour (under half as far
        # from it as the body is; a ring over a floor, a wall and a post is mixed, and its mean is none of them)
        near = colours.delta_e(seen_px[ring].astype(float), seen) < 0.5 * off_body
        if near.mean() < min_ring_share:
            return False
        # ... and the body is nowhere in the box: a body that changes its look in place (it swells, it turns) still
        # shows its colour inside the ring its other look leaves
        box_px = seen_px[max(y0, 0) - ys.start:y1 + 1 - ys.start, max(x0, 0) - xs.start:x1 + 1 - xs.start]
        return int((colours.delta_e(box_px, body_lab) <= 0.5 * min_delta_e).sum()) < 4

    def _hold_if_static(self, tr: _Tracklet, frames: np.ndarray, k: int) -> bool:
        """A stopped object the background absorbed is still there: keep it visible while its patch holds."""
        # (no speed condition: an object that stops abruptly, e.g. after a collision, is held the same way;
        # one that moved on or vanished leaves background in its old box, which does not match)
        if tr.box is None or (k - tr.last_seen > 1 and tr.patch is None):
            return False
        x0, y0, x1, y1 = (int(round(v)) for v in tr.box)
        if x1 <= x0 or y1 <= y0:
            return False
        if tr.patch is None:
            tr.patch = frames[tr.last_seen, y0:y1 + 1, x0:x1 + 1].astype(np.int16)
        cur = frames[k, y0:y1 + 1, x0:x1 + 1].astype(np.int16)
        if cur.shape != tr.patch.shape or float(np.abs(cur - tr.patch).mean()) > self.hold_patch_diff:
            return False
        last = tr.frames[tr.last_seen]
        tr.frames[k] = (last[0].copy(), last[1].copy(), last[2], True, last[4], last[5])
        tr.last_seen = k
        tr.vel = np.zeros(2)
        return True

    @staticmethod
    def _to_track(tr: _Tracklet, times_s: np.ndarray, subject: str = "") -> Track:
        t_count = len(times_s)
        boxes = np.full((t_count, 4), np.nan)
        cents = np.full((t_count, 2), np.nan)
        area = np.zeros(t_count)
        vis = np.zeros(t_count, bool)
        coast = np.zeros(t_count, bool)
        border = np.zeros(t_count, bool)
        last_vis = max((k for k, v in tr.frames.items() if v[3]), default=-1)
        for k, (box, c, a, v, b, _) in tr.frames.items():
            if k > last_vis:  # coasting after the last observation is not part of the track
                continue
            boxes[k], cents[k], area[k], vis[k], border[k] = box, c, a, v, b
            coast[k] = not v
        return Track(subject=subject, identity=tr.identity, boxes_xyxy=boxes, centroid_px=cents, area_px=area,
                     visible=vis, coasted=coast, touches_border=border, times_s=np.asarray(times_s, float),
                     backend="critic.specialists.tracking.BackgroundTracker")


# ------------------------------------------------------------------------------------------------------
# Binding named subjects to identities
# ------------------------------------------------------------------------------------------------------


def _overlaps(box_xyxy: np.ndarray, region: tuple[int, int, int, int]) -> bool:
    """Does the box (x0, y0, x1, y1 px) overlap ``region`` (x0, y0, x1, y1 px, end exclusive)?"""
    x0, y0, x1, y1 = box_xyxy
    return not (x1 < region[0] or x0 >= region[2] or y1 < region[1] or y0 >= region[3])


def _span(track: Track) -> tuple[int, int]:
    idx = np.flatnonzero(track.visible)
    return int(idx[0]), int(idx[-1])


def stitch(tracks: list[Track], subject: str, colors: dict[int, np.ndarray] | None = None, *,
           max_gap: int = 12, max_color_dist: float = 60.0, max_size_ratio: float = 1.5) -> list[Track]:
    """Join tracklets that follow each other in time (no overlap, at most ``max_gap`` frames apart) and look
    alike (mean colour within ``max_color_dist``, radius within ``max_size_ratio``) into one identity each,
    greedily by the smallest jump from the earlier tracklet's last position. Returns tracks named ``subject``."""
    pending = sorted(tracks, key=lambda tr: _span(tr)[0])
    chains: list[list[Track]] = []
    colors = colors or {}

    def alike(a: Track, b: Track) -> bool:
        ra, rb = a.radius_px, b.radius_px
        if not (np.isfinite(ra) and np.isfinite(rb)) or max(ra, rb) > max_size_ratio * min(ra, rb):
            return False
        ca, cb = colors.get(a.identity), colors.get(b.identity)
        return ca is None or cb is None or float(np.linalg.norm(ca - cb)) <= max_color_dist

    for tr in pending:
        start = _span(tr)[0]
        best, best_d = None, np.inf
        for chain in chains:
            end = _span(chain[-1])[1]
            if end < start and start - end <= max_gap and alike(chain[-1], tr):
                p_end = chain[-1].centroid_px[end]
                d = float(np.linalg.norm(tr.centroid_px[start] - p_end)) + (start - end)
                if d < best_d:
                    best, best_d = chain, d
        if best is None:
            chains.append([tr])
        else:
            best.append(tr)
    out = []
    for n, chain in enumerate(chains):
        if len(chain) == 1:
            tr = chain[0]
            out.append(Track(subject=subject, identity=n, boxes_xyxy=tr.boxes_xyxy, centroid_px=tr.centroid_px,
                             area_px=tr.area_px, visible=tr.visible, coasted=tr.coasted,
                             touches_border=tr.touches_border, times_s=tr.times_s, backend=tr.backend,
                             meta={**tr.meta, "tracklets": [tr.identity]}))
            continue
        base = {k: np.array(getattr(chain[0], k)) for k in ("boxes_xyxy", "centroid_px", "area_px", "visible",
                                                          "coasted", "touches_border")}
        for tr in chain[1:]:
            s, e = _span(tr)
            sl = slice(s, e + 1)
            for k in base:
                base[k][sl] = getattr(tr, k)[sl]
            # frames between two tracklets were not observed: not visible, not coasted (a gap)
        out.append(Track(subject=subject, identity=n, times_s=chain[0].times_s, backend=chain[0].backend,
                         meta={"tracklets": [t.identity for t in chain]}, **base))
    return out


def at_clip_edge(track: Track) -> bool:
    """A tracklet seen in exactly the clip's first two frames or its last two, away from the image's edge: a body
    that vanishes in place at the clip's third frame (or appears at its last but one) is seen in no more than that,
    and a body is seen for as long as the clip shows it. Two frames in the middle of a clip are a flicker, and one
    frame is always one."""
    vis = np.flatnonzero(track.visible)
    t_count = len(track.visible)
    if len(vis) != 2 or t_count < 6 or np.asarray(track.touches_border, bool)[vis].any():
        return False
    return (vis[0], vis[1]) in ((0, 1), (t_count - 2, t_count - 1))


def bind_subject(result: TrackingResult, subject: SubjectSpec, *, min_visible_frac: float = 0.05,
                 plural: bool = False, max_gap: int = 12) -> list[Track]:
    """The tracks of a named subject (see module doc); possibly empty. ``plural``: the prompt names several
    instances ("dominoes", "two balls"), so several moving candidates are expected, not ambiguous. ``max_gap``:
    the most frames two of its tracklets may lie apart to be stitched into one (:func:`stitch`)."""
    tracks = result.tracks
    if not tracks:
        return []
    t_count = len(tracks[0].times_s)
    cands = [tr for tr in tracks if tr.visible.sum() >= max(3, min_visible_frac * t_count)]
    by_color = bool(subject.color and subject.color.lower() in COLOR_RANGES)
    if by_color:
        cands = [tr for tr in cands if bool(color_matches(result.colors_rgb[tr.identity][None], subject.color)[0])]
        by = "color"
    else:
        # No colour: objects that move (over 1.5 radii), or (when none moves) everything found; blobs much
        # smaller than the largest mover are texture flicker, not objects.
        moving = [tr for tr in cands if travel_radii(tr) > 1.5]
        by = "motion" if moving else "any"
        cands = moving or cands
        if not cands:
            return []
        biggest = max(tr.radius_px for tr in cands)
        cands = [tr for tr in cands if tr.radius_px >= 0.35 * biggest]
    if not cands:
        return []
    size_margin = None
    if subject.size in ("large", "big", "larger", "bigger", "small", "little", "smaller", "tiny"):
        largest = subject.size in ("large", "big", "larger", "bigger")
        ordered = sorted(cands, key=lambda tr: tr.radius_px, reverse=largest)
        if len(ordered) > 1:
            a, b = ordered[0].radius_px, ordered[1].radius_px
            size_margin = max(a, b) / max(min(a, b), 1e-6)
        cands = [ordered[0]]
    stitched = stitch(cands, subject.name, result.colors_rgb, max_gap=max_gap)
    binding = binding_evidence(by, len(stitched), size_margin, plural=plural or (subject.count or 0) > 1)
    return [_with_meta(tr, binding=binding) for tr in stitched]


def binding_evidence(by: str, candidates: int, size_margin: float | None = None, *,
                     plural: bool = False) -> dict[str, Any]:
    """How firmly a named subject is bound to its tracks, as recorded in ``Track.meta["binding"]``.

    ``by``: "color" (the subject's named colour picked the tracks), "motion" (no colour: the moving blobs), or
    "any" (nothing moves: every blob found); ``candidates``: identities after stitching; ``size_margin``: when
    a size word picked one of several candidates, how much larger (or smaller) it is than the runner-up.
    ``confident`` is False when the binding rests on motion or presence alone and more than one identity
    qualifies (or a size word picked between near-equal blobs): a measurement on such a track may be about
    another object, so it cannot contradict the prompt (docs/architecture.md §5: missing evidence is unknown)."""
    if by == "color":
        confident, why = True, ""
    elif size_margin is not None:
        confident = size_margin >= 1.5
        why = "" if confident else f"the size word picked between blobs within x{size_margin:.2f} of each other"
    elif plural and by == "motion":
        confident, why = True, ""  # several instances were named: the moving blobs are all of them
    elif candidates > 1:
        confident, why = False, f"{candidates} candidate tracks, bound by {by} alone (no colour or size evidence)"
    elif by == "any":
        confident, why = False, "nothing moves: bound to whatever differs from the background"
    else:
        confident, why = True, ""
    return {"by": by, "candidates": int(candidates), "confident": bool(confident), "doubt": why}


def binding_doubt(track: Track) -> str:
    """Why ``track`` may not be its subject ("" when its binding is firm or was not recorded)."""
    b = (track.meta or {}).get("binding") or {}
    if b.get("confident", True):
        return ""
    return f"'{track.subject}' is not bound unambiguously: {b.get('doubt') or 'weak grounding evidence'}"


def may_be_absent(track: Track) -> bool:
    """Whether the grounding left open that ``track``'s subject is not in the clip at all: bound by its colour name,
    but not firmly, its being absent fitting about as well as the track it took (``absent_fits`` in the binding
    evidence)."""
    b = (track.meta or {}).get("binding") or {}
    return not b.get("confident", True) and bool(b.get("absent_fits")) and b.get("by") == "color"


def identity_doubt(track: Track, *, max_typical_step: float = 1.5) -> str:
    """Why ``track`` may not follow one object ("" when it does): its blob area changes by more than
    ``max_typical_step`` x between most pairs of consecutive observed frames, i.e. the identity keeps switching
    between blobs or the segmentation keeps breaking the object up (a rigid object's area changes smoothly)."""
    vis = np.asarray(track.visible, bool) & ~np.asarray(track.coasted, bool) & (np.asarray(track.area_px) > 0)
    pairs = vis[:-1] & vis[1:]
    if pairs.sum() < 3:
        return ""
    a = np.asarray(track.area_px, float)
    steps = np.abs(np.log(a[1:][pairs] / a[:-1][pairs]))
    typical = float(np.exp(np.median(steps)))
    if typical <= max_typical_step:
        return ""
    return (f"'{track.subject}' is not followed as one object: its area changes x{typical:.1f} between typical "
            "consecutive frames (identity switches or broken segmentation)")


def grounding_doubt(track: Track) -> str:
    """Every reason a measurement on ``track`` may not be about its subject, joined ("" when none)."""
    return "; ".join(d for d in (binding_doubt(track), identity_doubt(track)) if d)


def _with_meta(tr: Track, **meta: Any) -> Track:
    return Track(subject=tr.subject, identity=tr.identity, boxes_xyxy=tr.boxes_xyxy, centroid_px=tr.centroid_px,
                 area_px=tr.area_px, visible=tr.visible, coasted=tr.coasted, touches_border=tr.touches_border,
                 times_s=tr.times_s, backend=tr.backend, meta={**tr.meta, **meta})


def travel_radii(tr: Track) -> float:
    """How far ``tr`` goes: the diagonal of the box its centroid sweeps over its visible frames, in its radii."""
    c = tr.centroid_px[tr.visible]
    r = tr.radius_px
    if len(c) < 2 or not np.isfinite(r) or r <= 0:
        return 0.0
    return float(np.linalg.norm(c.max(0) - c.min(0)) / r)


class BackgroundGrounder:
    """``ground`` specialist: the offline tracker + binding. The clip's tracking is computed once and
    reused for every subject of the same clip (keyed by the clip's sha256)."""

    name = "background"
    version = "23"

    def __init__(self, tracker: BackgroundTracker | None = None, min_visible_frac: float = 0.05,
                 weights: grounding.Weights | None = None, max_gap_s: float = 0.75, **tracker_kwargs: Any):
        self.tracker = tracker or BackgroundTracker(**tracker_kwargs)
        self.min_visible_frac = min_visible_frac
        #: tracklets this far apart in time (or 12 frames, whichever is more) may be one identity: a body unseen
        #: for a while is a time, not a number of frames (14 frames at 24 fps is under 0.6 s)
        self.max_gap_s = max_gap_s
        self.weights = weights or grounding.Weights()
        self._cache: dict[str, Any] = {}

    def _color_tracking(self, video: VideoContext, color: str) -> TrackingResult:
        key = f"{video.sha256}:{color.lower()}"
        if key not in self._cache:
            self._cache[key] = self.tracker.track(video.frames, video.times_s, color=color)
        return self._cache[key]

    def _extend_by_color(self, track: Track, video: VideoContext, subject: SubjectSpec) -> Track:
        """A named object whose track ends early, away from the border, may have stopped and been absorbed by
        the median background: continue it with the colour track that was where it ended."""
        vis = np.flatnonzero(track.visible)
        last = int(vis[-1])
        if last >= video.num_frames - 2 or track.touches_border[last]:
            return track
        r = max(track.radius_px, 2.0)
        for cand in self._color_tracking(video, subject.color).tracks:
            cv = np.flatnonzero(cand.visible)
            if cv[-1] <= last + 1:
                continue
            near = [k for k in cv if last - 2 <= k <= last + 3]
            if near and min(float(np.linalg.norm(cand.centroid_px[k] - track.centroid_px[last])) for k in near
                            if np.isfinite(track.centroid_px[last]).all()) <= 2.5 * r:
                return _splice(track, cand, slice(last + 1, None), extended_by_color_from=last + 1)
        return track

    def _extend_back_by_color(self, track: Track, video: VideoContext, subject: SubjectSpec) -> Track:
        """A named object whose track starts late, away from the border, may have rested there before it moved: the
        median background absorbed it while it rested (a struck ball, a block pushed up, a body let go from rest),
        so the motion alone found it only once it left that place, and at first only the part of it that no
        longer covers the place (the background still holds the body there). The colour track that was where it
        started (within 2.5 radii), seen before that and at rest (within a radius of one place for a quarter of the
        clip or more), is the body: it takes the frames from the clip's start on, and the track's own first frames
        while the body overlaps its resting place (within a diameter of it) and the colour blob is the larger and
        within 2.5 radii of the track's."""
        vis = np.flatnonzero(track.visible)
        first = int(vis[0])
        if first < 2 or track.touches_border[first] or not np.isfinite(track.centroid_px[first]).all():
            return track
        r = max(track.radius_px, 2.0)
        for cand in self._color_tracking(video, subject.color).tracks:
            cv = np.flatnonzero(cand.visible)
            if cv.size == 0 or cv[0] >= first - 1 or not cand.visible[first - 1]:
                continue

            def near(k: int) -> bool:
                return bool(cand.visible[k] and track.visible[k] and np.isfinite(cand.centroid_px[k]).all() and
                            float(np.linalg.norm(cand.centroid_px[k] - track.centroid_px[k])) <= 2.5 * r)

            if not any(near(k) for k in range(first, min(first + 3, video.num_frames))):
                continue
            # it rested there: before the track begins the colour track keeps within a radius of one place for a
            # quarter of the clip or more (what the median background holds); a body seen falling by its colour alone
            # was moving, and the motion missed it for another reason
            before = cand.centroid_px[cv[cv < first]]
            still = np.linalg.norm(before - np.median(before, axis=0), axis=1) <= r
            if int(still.sum()) < max(3, 0.25 * video.num_frames):
                continue
            # from its first frame on, the colour track stands for the body while the body still overlaps its resting
            # place (its centre within a diameter of it) and the colour blob is the larger: the motion's blob is then
            # the part of the body off the place the background holds; further on the motion's blob is the body, and
            # a larger colour blob has taken in scenery of its colour
            rest = np.median(before[still], axis=0)
            reach = 2.0 * max(float(cand.radius_px), r)
            end = first
            while end < video.num_frames and cand.visible[end] and \
                    float(np.linalg.norm(cand.centroid_px[end] - rest)) <= reach and \
                    (not track.visible[end] or (near(end) and cand.area_px[end] >= track.area_px[end])):
                end += 1
            return _splice(track, cand, slice(0, end), extended_by_color_to=end)
        return track

    def track_all(self, video: VideoContext) -> TrackingResult:
        if video.sha256 not in self._cache:
            self._cache.clear()  # one clip at a time
            self._cache[video.sha256] = self.tracker.track(video.frames, video.times_s)
        return self._cache[video.sha256]

    def max_gap_frames(self, video: VideoContext) -> int:
        """The most frames two tracklets may lie apart and be one body: ``max_gap_s`` at the clip's rate, or 12
        frames, whichever is more (a ball unseen for 14 frames at 24 fps has vanished for 0.58 s, not for long)."""
        return max(12, int(round(self.max_gap_s * video.fps)))

    def identities(self, video: VideoContext) -> list[grounding.Candidate]:
        """The clip's identities as grounding candidates: tracklets seen in enough frames, stitched where one
        follows another in time and looks alike (an object lost for a few frames is one identity)."""
        key = f"{video.sha256}:identities"
        if key not in self._cache:
            result = self.track_all(video)
            t_count = video.num_frames
            seen = [tr for tr in result.tracks if tr.visible.sum() >= max(3, self.min_visible_frac * t_count)]
            chains = stitch(seen, "", result.colors_rgb, max_gap=self.max_gap_frames(video))
            by_id = {tr.identity: tr for tr in seen}
            cands = []
            for tr in chains:
                parts = [by_id[i] for i in tr.meta["tracklets"]]
                weights = np.array([p.visible.sum() for p in parts], float)
                rgb = np.average(np.stack([result.colors_rgb[p.identity] for p in parts]), axis=0, weights=weights)
                cands.append(grounding.describe(tr, rgb))
            self._cache[key] = cands
        return self._cache[key]

    def run(self, op: GroundOp, inputs: OperationInputs, video: VideoContext) -> list[Track]:
        subject = inputs.subjects.get(op.subject) or SubjectSpec(name=op.subject, noun=op.subject)
        result = self.track_all(video)
        plural = subject.is_group(inputs.prompt)
        subjects = [subject] + [s for n, s in inputs.subjects.items() if n != op.subject]
        cands = self.identities(video)
        bound = grounding.ground_subjects(subjects, cands, inputs.prompt,
                                          {s.name: s.is_group(inputs.prompt) for s in subjects},
                                          self.weights)
        members, evidence = bound[subject.name]
        tracks = [_renamed(cands[j].track, subject.name, j, binding=evidence) for j in members]
        # a binding that is not firm carries what else the subject may be, so that a measurement may ask all of them
        rivals = tuple(_renamed(cands[j].track, subject.name, j, binding={"rival": True})
                       for j in evidence.get("rivals", ()))
        if any(not (tr.meta.get("binding") or {}).get("confident", True) for tr in tracks) and \
                not any(c.travel >= self.weights.min_travel_radii for c in cands) and not colours.known(subject.color):
            tracks = [_with_meta(tr, binding={**tr.meta["binding"], "by": "any"}) for tr in tracks]
        named = bool(subject.color and subject.color.lower() in COLOR_RANGES)
        if named and not tracks:
            # the bodies the prompt's other subjects of other colours are bound to: a colour range that takes in one
            # of them (a brown ball read as orange) has found that subject, not this one
            others = [(cands[j].track, inputs.subjects[name].color) for name, (picks, ev) in bound.items()
                      if name != subject.name and ev.get("confident")
                      and _named_apart(inputs.subjects.get(name), subject) for j in picks]
            # a named object that never moves is part of the background: find it by its colour
            by_colour = self._color_tracking(video, subject.color)
            tracks = bind_subject(by_colour, subject, plural=plural, max_gap=self.max_gap_frames(video))
            tracks = [tr for tr in tracks if not _anothers_body(tr, _mean_rgb(by_colour, tr), subject, others)]
            if not plural and len(tracks) > 1:
                one = _one_of_colour(tracks, subject)
                if not one.meta["binding"]["confident"]:
                    # every other blob of its colour may be the subject instead, or none of them (scenery)
                    rivals = tuple(tr for tr in tracks if tr.identity != one.identity)
                    one = _with_meta(one, binding={**one.meta["binding"], "rivals": [tr.identity for tr in rivals],
                                                   "absent_fits": True})
                tracks = [one]
            if not tracks and not plural:
                # last, a body of its colour seen only in the clip's first two frames or its last two: one that
                # vanishes in place at the third frame (or appears at the last but one) shows no more than that
                edge = [tr for tr in result.edge_tracks
                        if bool(color_matches(result.colors_rgb[tr.identity][None], subject.color)[0])
                        and not _anothers_body(tr, result.colors_rgb[tr.identity], subject, others)]
                # a blob much smaller than the largest of them (under 0.35 of its radius) is a speck, no body
                edge = [tr for tr in edge if tr.radius_px >= 0.35 * max(t.radius_px for t in edge)]
                if len(edge) == 1:
                    tracks = [_with_meta(edge[0], binding=binding_evidence("color", 1))]
        elif named:
            tracks = [self._extend_by_color(self._extend_back_by_color(tr, video, subject), video, subject)
                      for tr in tracks]
        floor = floor_row(result.background)

        def finished(tr: Track, rivals: tuple[Track, ...] = ()) -> Track:
            return Track(subject=op.subject, identity=tr.identity, boxes_xyxy=tr.boxes_xyxy,
                         centroid_px=tr.centroid_px, area_px=tr.area_px, visible=tr.visible, coasted=tr.coasted,
                         touches_border=tr.touches_border, times_s=tr.times_s,
                         backend=f"critic.specialists.tracking.BackgroundGrounder@{self.version}",
                         meta={**tr.meta, "floor_row_px": floor}, rivals=tuple(finished(r) for r in rivals))

        return [finished(tr, rivals if not (tr.meta.get("binding") or {}).get("confident", True) else ())
                for tr in tracks]


def _named_apart(other: SubjectSpec | None, subject: SubjectSpec) -> bool:
    """Whether the prompt names ``other`` in a colour of its own, not ``subject``'s nor one of its shades."""
    if other is None or not colours.known(other.color) or not colours.known(subject.color):
        return False
    return colours.canonical(other.color) not in colours.shades_of(subject.color) and \
        colours.canonical(subject.color) not in colours.shades_of(other.color)


def _mean_rgb(result: TrackingResult, track: Track) -> np.ndarray:
    """(3,) RGB: the mean colour of the tracklets of ``result`` that ``track`` was stitched from."""
    ids = (track.meta or {}).get("tracklets", [track.identity])
    parts = [result.colors_rgb[i] for i in ids if i in result.colors_rgb]
    return np.mean(parts, axis=0) if parts else np.full(3, np.nan)


def _anothers_body(track: Track, rgb: np.ndarray, subject: SubjectSpec, others: list[tuple[Track, str]]) -> bool:
    """Whether ``track`` (mean colour ``rgb``), found by ``subject``'s colour range, is the body one of ``others``
    ((its track, its named colour): the other subjects named in other colours, as bound) is: it follows that body
    (``_same_body``) and its colour fits that subject's name at least as well as ``subject``'s. A blob that takes in
    two touching bodies overlaps both, but its colour is the one of the body it is found by."""
    if not others or not np.isfinite(rgb).all():
        return False
    own = float(colours.colour_cost(rgb[None], subject.color)[0])
    return any(_same_body(track, o) and float(colours.colour_cost(rgb[None], colour)[0]) <= own for o, colour in others)


def _same_body(track: Track, other: Track, min_iou: float = 0.3, min_share: float = 0.8) -> bool:
    """Whether ``track`` follows the body ``other`` follows: in ``min_share`` of the frames both are seen in (three at
    least) their boxes overlap by ``min_iou`` or more (intersection over union). Two bodies that touch for a while
    overlap then, not over most of the frames both are seen in."""
    both = np.asarray(track.visible, bool) & np.asarray(other.visible, bool)
    if both.sum() < 3:
        return False
    a, b = np.asarray(track.boxes_xyxy, float)[both], np.asarray(other.boxes_xyxy, float)[both]
    w = np.clip(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0.0, None)
    h = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0.0, None)
    inter = w * h
    union = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter
    iou = inter / np.maximum(union, 1e-9)
    return float((iou >= min_iou).mean()) >= min_share


def _one_of_colour(tracks: list[Track], subject: SubjectSpec, min_travel_radii: float = 1.5) -> Track:
    """The one track of a singular subject found by its colour alone among several blobs of that colour (a floor's
    checks, a wall, other bodies): the only one that moves (``min_travel_radii`` or more), bound firmly; else the
    one seen longest (weighted by its size), bound not firmly: any of them may be the subject, or none. A subject the
    prompt holds at rest (``SubjectSpec.at_rest``) is none of the movers: the one seen longest of the others, bound
    not firmly (a mover of its colour is another body)."""
    moves = [travel_radii(tr) >= min_travel_radii for tr in tracks]
    movers = [tr for tr, m in zip(tracks, moves) if m]
    if len(movers) == 1 and not subject.at_rest:
        return _with_meta(movers[0], binding={**movers[0].meta["binding"], "candidates": len(tracks),
                                              "confident": True, "doubt": "", "only_mover": True})
    still = [tr for tr, m in zip(tracks, moves) if not m] if subject.at_rest else []
    best = max(still or tracks, key=lambda tr: int(tr.visible.sum()) * max(float(tr.radius_px), 0.0))
    blobs = f"{len(tracks)} blobs of its colour ({subject.color})"
    if not still:
        why = f"{blobs}, {'several' if movers else 'none'} of them moving: nothing tells which is the {subject.noun}"
    elif len(still) == 1:
        why = (f"{blobs}, {len(movers)} of them moving, which the prompt's {subject.noun} held at rest is not: "
               f"nothing tells whether the still one is the {subject.noun}")
    else:
        why = f"{blobs}, {len(still)} of them still: nothing tells which is the {subject.noun} the prompt holds at rest"
    return _with_meta(best, binding={**best.meta["binding"], "candidates": len(tracks), "confident": False,
                                     "doubt": why})


def _renamed(tr: Track, subject: str, identity: int, **meta: Any) -> Track:
    """``tr`` as an instance of ``subject`` with the clip-wide ``identity`` and ``meta`` added."""
    return Track(subject=subject, identity=identity, boxes_xyxy=tr.boxes_xyxy, centroid_px=tr.centroid_px,
                 area_px=tr.area_px, visible=tr.visible, coasted=tr.coasted, touches_border=tr.touches_border,
                 times_s=tr.times_s, backend=tr.backend, meta={**tr.meta, **meta})


def _splice(track: Track, other: Track, frames: slice, **meta: int) -> Track:
    """``track`` with ``other``'s frames in ``frames`` (a slice of the clip's frame indices), ``meta`` added (which
    frames were taken, for the report)."""
    arrays = {k: np.array(getattr(track, k)) for k in ("boxes_xyxy", "centroid_px", "area_px", "visible", "coasted",
                                                       "touches_border")}
    for k in arrays:
        arrays[k][frames] = getattr(other, k)[frames]
    return Track(subject=track.subject, identity=track.identity, times_s=track.times_s, backend=track.backend,
                 meta={**track.meta, **meta}, **arrays)


def floor_row(background: np.ndarray, *, min_contrast: float = 25.0) -> float | None:
    """Row (px, y down) of the strongest horizontal edge in the lower two thirds of the background: the floor
    line, when the scene shows one (None when no row has ``min_contrast`` mean intensity step)."""
    gray = cv2.cvtColor(background, cv2.COLOR_RGB2GRAY).astype(np.float32)
    rows = gray.mean(axis=1)
    h = len(rows)
    if h < 8:
        return None
    step = np.abs(rows[2:] - rows[:-2])  # centred difference: edge between row i and i+2
    lo = h // 3
    i = int(np.argmax(step[lo:])) + lo
    if step[i] < min_contrast:
        return None
    return float(i + 1)
