"""Kinematic primitives on a :class:`Track`: velocities, stationary runs, floor contacts with sub-frame times.

Units: positions px (x right, y down), times s from the container, displacements reported in the subject's
radii (``Track.radius_px``) so no scene calibration is needed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from critic.types import Track


def _per_track(fn):
    """Remember ``fn(track, ...)`` on the track itself: a Track is immutable, and the measurements of one clip
    ask for the same contacts, runs and radii many times. Arrays come back read-only, lists as copies."""

    @functools.wraps(fn)
    def wrapper(track: Track, *args, **kwargs):
        memo = track.__dict__.setdefault("_kinematics_memo", {})
        key = (fn.__name__, args, tuple(sorted(kwargs.items())))
        if key not in memo:
            value = fn(track, *args, **kwargs)
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
            memo[key] = value
        value = memo[key]
        return list(value) if isinstance(value, list) else value

    return wrapper


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index pairs of the True runs of a 1-D boolean array."""
    m = np.asarray(mask, bool).astype(np.int8)
    d = np.diff(np.concatenate([[0], m, [0]]))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1) - 1
    return [(int(s), int(e)) for s, e in zip(starts, ends)]


@_per_track
def size_radius(track: Track) -> np.ndarray:
    """Per-frame size radius (px): half the smaller box side, robust to motion blur (which stretches the box
    along the motion) -> (T,), NaN where not visible."""
    b = track.boxes_xyxy
    r = 0.5 * (np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) + 1.0)
    return np.where(track.visible, r, np.nan)


@_per_track
def area_radius(track: Track, window: int = 3) -> np.ndarray:
    """Per-frame radius of the circle with the blob's area (px), the median over ``window`` consecutive visible
    frames -> (T,), NaN where not visible. The mask area measures the size of any shape (a cube, a domino lying or
    standing) and, taken over a few frames, does not follow one badly segmented frame (a shadow or a contrasting
    mat joined to the blob, a frame cut short by blur)."""
    a = np.where(np.asarray(track.visible, bool) & (np.asarray(track.area_px) > 0),
                 np.sqrt(np.maximum(np.asarray(track.area_px, float), 0.0) / np.pi), np.nan)
    out = np.full(len(a), np.nan)
    half = window // 2
    for k in np.flatnonzero(np.isfinite(a)):
        out[k] = float(np.nanmedian(a[max(k - half, 0):k + half + 1]))
    return out


@_per_track
def frame_radii(track: Track) -> np.ndarray:
    """Per-frame radius (px) -> (T,), NaN where not visible: the larger of the size radius (half the smaller box
    side: a ball's radius, robust to motion blur) and the frame's own area radius (a thin or tumbling body, whose
    smaller box side is only its thickness)."""
    return np.fmax(size_radius(track), area_radius(track, window=1))


@_per_track
def radius(track: Track) -> float:
    """The subject's unit length (px): the median of :func:`frame_radii` over visible frames not touching the
    border."""
    r = frame_radii(track)
    ok = track.visible & ~track.touches_border & np.isfinite(r)
    if ok.sum() < 2:
        ok = track.visible & np.isfinite(r)
    if not ok.any():
        return float("nan")
    return float(max(np.median(r[ok]), 1.0))


def observed(track: Track) -> np.ndarray:
    """Frames with a real observation (visible, not coasted)."""
    return np.asarray(track.visible, bool) & ~np.asarray(track.coasted, bool)


def velocity(track: Track) -> np.ndarray:
    """Per-frame velocity (px/s) from central differences over observed neighbours -> (T, 2), NaN elsewhere."""
    c = track.centroid_px
    t = track.times_s
    ok = observed(track)
    v = np.full_like(c, np.nan)
    for k in range(len(c)):
        if not ok[k]:
            continue
        a = k - 1 if k > 0 and ok[k - 1] else k
        b = k + 1 if k + 1 < len(c) and ok[k + 1] else k
        if b > a:
            v[k] = (c[b] - c[a]) / (t[b] - t[a])
    return v


#: the largest step (px) between two still frames taken for the outline snapping a pixel, not a move
JITTER_PX = 1.0
#: radii/s^2: the least downward acceleration of a fall that ends on the floor. Everyday bodies fall at 50-300 radii/s^2
#: (g over their radius), a clip slowed four times at 3-20; a descent slower than a fall from rest at this rate (over
#: ``drop`` radii it takes ``sqrt(2 drop / MIN_FALL_ACCEL_RADII)`` s) never fell: a body rolling toward the camera
#: creeps down the picture, and where it pauses it has landed on nothing
MIN_FALL_ACCEL_RADII = 5.0


def top_of_rise(y: np.ndarray, ok: np.ndarray, k: int) -> int:
    """The last frame of the rise that frame ``k`` is in: it goes on while the next frame is observed (``ok`` (T,))
    and higher (``y`` (T,) centre rows, image y down)."""
    while k + 1 < len(y) and ok[k + 1] and y[k + 1] < y[k]:
        k += 1
    return k


def top_of_fall(y: np.ndarray, ok: np.ndarray, k: int) -> int:
    """The first frame of the descent into frame ``k``: back over the frames observed (``ok`` (T,)) in a row while
    each is higher than the next (``y`` (T,) centre rows, image y down)."""
    while k - 1 >= 0 and ok[k - 1] and y[k - 1] < y[k]:
        k -= 1
    return k


@_per_track
def stationary_runs(track: Track, *, max_speed_radii_per_frame: float = 0.12, min_frames: int = 4,
                    min_seconds: float = 0.2) -> list[tuple[int, int]]:
    """Runs of observed frames where the subject moves less than ``max_speed`` radii per frame."""
    r = radius(track)
    c = track.centroid_px
    ok = observed(track)
    t = track.times_s
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    step = np.full(len(c), np.inf)
    for k in range(1, len(c)):
        if ok[k] and ok[k - 1]:
            step[k] = float(np.linalg.norm(c[k] - c[k - 1]))
    still = step < max_speed_radii_per_frame * r
    # a mask's box snaps by a pixel now and then: one step under a pixel between two still frames is the
    # outline, not a move (a body that moves keeps moving; for a small body, a pixel is over the speed bound)
    snap = (step < JITTER_PX) & ~still
    snap[1:-1] &= still[:-2] & still[2:]
    snap[0] = snap[-1] = False
    still |= snap
    # a frame is still if it is still with respect to its predecessor; the predecessor starts the run
    out = []
    for s, e in runs(still):
        s = max(s - 1, 0)
        if e - s + 1 >= min_frames and (e - s) * dt >= min_seconds - 1e-9:
            out.append((s, e))
    return out


@dataclass(frozen=True)
class Contact:
    """A reversal of motion toward a surface (down -> up; toward a wall -> away) or a landing (-> stop).

    ``frame``: the observed frame nearest the contact; ``time_s``: sub-frame contact time (intersection of
    the parabolas fitted before and after, when both sides have >= 3 samples); ``kind``: "bounce" or "land";
    ``drop_radii`` the descent before, ``rebound_radii`` the ascent after (0 for a landing); ``bottom_px``
    the side of its box that meets the surface at the contact frame (the box bottom's y for the floor; for a wall,
    the x of the side toward it); ``from_apex``: the descent began at an apex seen in the clip (it rose, stopped
    and came down), so it started with no vertical speed; ``unseen_from_s``: where the body was lost as it came to
    the surface and found again at ``frame`` (``_bridged_runs``), the time of the last frame it was seen before: the
    contact happened unseen between then and ``time_s`` (None where the frame before the contact shows it)."""

    frame: int
    time_s: float
    kind: str
    drop_radii: float
    rebound_radii: float
    bottom_px: float
    from_apex: bool = False
    unseen_from_s: float | None = None

    def span_s(self, frame_period_s: float) -> tuple[float, float]:
        """When the contact happened, (first, last) s: one frame period around ``time_s``, from ``unseen_from_s``
        on where the body was lost as it came down."""
        first = self.time_s - frame_period_s / 2
        if self.unseen_from_s is not None:
            first = min(first, self.unseen_from_s)
        return first, self.time_s + frame_period_s / 2


def _fit(t: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    if len(t) < 3:
        return None
    return np.polyfit(t, y, 2)


def _bridged_runs(track: Track, ok: np.ndarray, r: float, max_gap: int, axis: int,
                  toward: int = 1, max_turn_gap: int = 2) -> list[tuple[int, int]]:
    """The runs of observed frames (first, last index), joined where at most ``max_gap`` frames part them inside a
    descent: the subject moves on toward the surface (along ``axis``, the way ``toward`` says) over the last step
    before the gap and across it, and comes back where its motion was taking it (within 1.5 radii plus half the
    distance its last step would have carried it over the gap of the constant-velocity prediction: it may slow down,
    landing, in the gap). Runs at most ``max_turn_gap`` frames apart are joined too where the subject turns in the
    gap: coming down into the last frame before it, it comes back higher, by a quarter radius or more (a body seen
    at the same row again has landed, not turned) and by no more than its last step down would carry it over the
    gap (a rebound is never faster than the fall into it), and across the surface where its motion was taking it
    (within 1.5 radii plus half its last step over the gap): it met the surface while unseen (a small body on a
    floor tile of nearly its colour). Runs as far apart are joined also where the subject lands on the floor in the
    gap (``axis`` 1; a body stopped sideways has not met a wall for that, friction stops it too): coming down into
    it, it comes back no higher than it was and no lower than its last step would carry it over the gap, no farther
    aside than 1.5 radii beyond where its sideways motion would carry it, and rests from there (a stationary run
    begins at its first frame back, :func:`stationary_runs`): a body that lands on a patch of the floor near its
    colour is lost as it stops, and found again at rest, often as the part of it that still stands out. A track that
    comes back elsewhere, higher than a rebound can carry it, or moving on at the height of a landing, has switched
    to another body: its runs stay apart. ``ok``: the track's observed frames; ``r``: its radius (px)."""
    c = track.centroid_px * np.where(np.arange(2) == axis, float(toward), 1.0)
    across = 1 - axis
    out: list[tuple[int, int]] = []
    for s, e in runs(ok):
        if out and s - out[-1][1] - 1 <= max(max_gap, max_turn_gap) and out[-1][1] > out[-1][0]:
            last = out[-1][1]
            gap = s - last
            # the last step: from the frame seen before it (a frame lost inside a joined descent is skipped)
            prev = max(k for k in range(out[-1][0], last) if ok[k])
            step = (c[last] - c[prev]) / (last - prev)
            reach = 0.5 * float(np.linalg.norm(step)) * gap
            miss = float(np.linalg.norm(c[s] - (c[last] + step * gap)))
            coming_down = step[axis] > 0.05 * r
            descending = coming_down and c[s, axis] > c[last, axis] and gap - 1 <= max_gap
            rise = c[last, axis] - c[s, axis]
            aside = abs(c[s, across] - (c[last, across] + step[across] * gap))
            turned = (coming_down and gap - 1 <= max_turn_gap and 0.25 * r <= rise <= step[axis] * gap
                      and aside <= 1.5 * r + reach)
            # landing, it goes on sideways as it came, or slows to a stop: no farther aside than that
            landed = (axis == 1 and coming_down and gap - 1 <= max_turn_gap and 0.0 <= -rise <= step[axis] * gap
                      and aside <= 1.5 * r + abs(step[across]) * gap
                      and any(a == s for a, _ in stationary_runs(track)))
            if (descending and miss <= 1.5 * r + reach) or turned or landed:
                out[-1] = (out[-1][0], e)
                continue
        out.append((s, e))
    return out


def last_seen_before(seen: np.ndarray, frame: int) -> int | None:
    """The last frame before ``frame`` where ``seen`` ((T,) bool, e.g. :func:`observed`) holds, or None."""
    before = np.flatnonzero(seen[:frame])
    return int(before[-1]) if before.size else None


def areas_alike(area_a: float, area_b: float, ratio: float = 1.5) -> bool:
    """Are two blob areas (px) both seen (positive) and within x``ratio`` of each other? A body keeps its area from
    frame to frame; a blob that takes in a neighbour, or loses part of itself to one, does not."""
    return area_a > 0 and area_b > 0 and max(area_a, area_b) <= ratio * min(area_a, area_b)


@_per_track
def floor_contacts(track: Track, *, min_drop_radii: float = 0.75, min_rebound_radii: float = 0.3,
                   axis: int = 1, max_gap: int = 1, toward: int = 1, max_flat: int = 2,
                   clear_drop_radii: float = 2.0, clear_rebound_radii: float = 1.0) -> list[Contact]:
    """Down->up reversals (bounces) and down->stop landings along ``axis`` (1: image y, the floor; 0: x,
    a wall), "down" being ``toward`` (+1: increasing image coordinate; -1: decreasing, a wall on the left), over
    runs of observed frames. Runs at most ``max_gap`` frames apart are read as one (two, where the subject turns or
    lands in them: :func:`_bridged_runs`), the position interpolated over the frames between (a ball merged with its
    shadow for a frame just before it lands is still the ball coming down: its drop counts from where the descent
    began, or from the last contact); a contact is only placed on an observed frame. A stop is a step down under a
    twentieth of a radius, or on the floor under a quarter of the step before it (a body that lands and rolls on
    toward the camera goes on down the picture, slowly). After a drop of ``clear_drop_radii`` or more, a rebound may
    begin after up to ``max_flat`` frames that stay at the contact row (within a twentieth of a radius a step) or, on
    the floor, still go down by under a quarter of the step into the contact, when it then rises
    ``clear_rebound_radii`` or more (jitter at a landing does not); the drop and the rebound are measured to and from
    the lowest of those frames. A rise of one frame out of a frame whose blob took in a neighbour
    (:func:`_blob_changed_for_one_frame`), down again at once, is no contact; nor is a descent that comes down
    ``min_drop_radii`` only by the centre's move between a piece of the body and the whole of it, its edges staying
    (:func:`_own_descent`)."""
    r = radius(track)
    if not np.isfinite(r):
        return []
    t = track.times_s
    ok = observed(track)
    out: list[Contact] = []
    for s, e in _bridged_runs(track, ok, r, max_gap, axis, toward):
        if e - s < 2:
            continue
        seen = np.flatnonzero(ok[s:e + 1])
        y = np.interp(np.arange(e - s + 1), seen, toward * track.centroid_px[s + seen, axis])
        tt = t[s:e + 1]
        dy = np.diff(y)
        k = 1
        landed_at = 0  # a descent is read back no further than the last contact (a landing that rolls on is one)
        while k < len(y) - 1:
            # y must have been going down (increasing) into k and not going down after it; on the floor, or going
            # down after it (a step seen, not one interpolated over a gap) at under a quarter of the step into it: no
            # fall slows so in one frame but at a surface (a body that lands and rolls on toward the camera goes on
            # down the picture, slowly). Not where the blob's area changes by over x1.5 into k: a merge moves a
            # blob's centre by the merge, and the step into it is no fall
            stops = dy[k] <= 0.05 * r or (
                axis == 1 and dy[k] <= 0.25 * dy[k - 1] and bool(ok[s + k + 1]) and bool(ok[s + k - 1])
                and areas_alike(float(track.area_px[s + k - 1]), float(track.area_px[s + k])))
            if dy[k - 1] > 0.05 * r and stops and ok[s + k]:
                j0 = k - 1
                while j0 > landed_at and dy[j0 - 1] > 0:
                    j0 -= 1
                drop = (y[k] - y[j0]) / r
                if drop >= min_drop_radii and _own_descent(track, ok, s, y, j0, k, axis, toward) / r < min_drop_radii:
                    # the descent is made by the blob finding the rest of the body (a piece seen for a while, then
                    # the whole): its centre moved, its edges and the body did not come down
                    k += 1
                    continue
                if axis == 1 and drop >= min_drop_radii and not _fell(tt, y, j0, k, r, min_drop_radii):
                    # a creep down the picture, slower than any fall (``MIN_FALL_ACCEL_RADII``): no contact
                    k += 1
                    continue
                j1 = k
                while j1 < len(dy) and dy[j1] < 0:
                    j1 += 1
                rebound = (y[k] - y[j1]) / r
                if rebound < min_rebound_radii and drop >= clear_drop_radii:
                    # a frame or two at the bottom (the frame times straddle the impact, or the body is seen in part
                    # there) and then a clear rise: a bounce all the same, after a fall that gathered speed (a body
                    # that sinks a radius, stays and rises is a tipping or rocking body, not a rebound)
                    flat = k
                    while flat < len(dy) and flat - k < max_flat and (
                            abs(dy[flat]) <= 0.05 * r or (axis == 1 and 0 < dy[flat] <= 0.25 * dy[k - 1])):
                        # at the contact row, or still going down under a quarter of the step into it (the impact
                        # fell between the frame that slowed the fall and the next, lower one)
                        flat += 1
                    low = k  # the lowest of the frames at the bottom: the drop ends and the rebound starts there
                    while low < flat and dy[low] > 0.05 * r:
                        low += 1
                    up = flat
                    while up < len(dy) and dy[up] < 0:
                        up += 1
                    if flat > k and (y[low] - y[up]) / r >= clear_rebound_radii:
                        j1, rebound = up, (y[low] - y[up]) / r
                        drop = (y[low] - y[j0]) / r
                if (rebound >= min_rebound_radii and j1 == k + 1 and j1 < len(dy) and dy[j1] > 0.05 * r
                        and _blob_changed_for_one_frame(track, ok, s + k)):
                    # a blob that takes in a neighbour for one frame (or loses part of itself to one) moves its
                    # centre by the merge and back: a turn of one step out of that frame, down again at once after
                    # it, is the merge undone, not a rebound (a body that bounces rises for more than the one frame
                    # after it meets the floor; at the clip's end the rise it began is not seen)
                    k += 1
                    continue
                if drop >= min_drop_radii:
                    kind = "bounce" if rebound >= min_rebound_radii else "land"
                    if kind == "land" and axis == 1:
                        # a landing must stop: the next frames stay near the contact row
                        nxt = y[k:min(k + 4, len(y))]
                        if np.any(np.abs(nxt - y[k]) > 0.5 * r):
                            k += 1
                            continue
                    tc = None
                    pre = _fit(tt[max(j0, k - 4):k], y[max(j0, k - 4):k])
                    post = _fit(tt[k + 1:min(j1 + 1, k + 5)], y[k + 1:min(j1 + 1, k + 5)]) if kind == "bounce" else None
                    if pre is not None and post is not None:
                        roots = np.roots(pre - post)
                        roots = [float(np.real(x)) for x in np.atleast_1d(roots) if abs(np.imag(x)) < 1e-9]
                        lo, hi = float(tt[k - 1]), float(tt[k + 1])
                        inside = [x for x in roots if lo <= x <= hi]
                        if inside:
                            tc = min(inside, key=lambda x: abs(x - tt[k]))
                    if tc is None and pre is not None:
                        # the parabola before reaches the contact row (a landing; or a bounce too low to fit a
                        # parabola after it: it met the floor when its fall did, not at the frame it turned)
                        roots = np.roots(pre - np.array([0, 0, y[k]]))
                        roots = [float(np.real(x)) for x in np.atleast_1d(roots) if abs(np.imag(x)) < 1e-9]
                        inside = [x for x in roots if float(tt[k - 1]) <= x <= float(tt[k])]
                        if inside:
                            tc = inside[0]
                    unseen_from = None
                    last_seen = last_seen_before(ok, s + k)
                    if last_seen is not None and s + k - 1 - last_seen > max_gap:
                        # lost for longer than a descent is bridged on course: it landed unseen in the gap (runs
                        # joined as a landing), and its place there is an interpolation: it met the surface at some
                        # time after it was last seen, not at a time a fit through the gap could give
                        unseen_from = float(t[last_seen])
                        tc = float(tt[k])
                    if tc is None:
                        tc = float(tt[k])
                    # the leading edge: the box side that meets the surface
                    bottom = float(track.boxes_xyxy[s + k, (3 if axis == 1 else 2) if toward > 0 else axis])
                    # rising just before the descent (a flat frame or two at the apex allowed)
                    before = dy[max(j0 - 3, 0):j0]
                    apex = bool(before.size) and float(before.min()) < -0.05 * r and float(before.max()) <= 0.05 * r
                    out.append(Contact(frame=s + k, time_s=tc, kind=kind, drop_radii=float(drop),
                                       rebound_radii=float(max(rebound, 0.0)) if kind == "bounce" else 0.0,
                                       bottom_px=bottom, from_apex=bool(apex), unseen_from_s=unseen_from))
                    landed_at = k
                    k = max(k + 1, j1)
                    continue
            k += 1
    return out


def _blob_changed_for_one_frame(track: Track, seen: np.ndarray, frame: int) -> bool:
    """Is the blob at ``frame`` unlike (:func:`areas_alike`) the blobs seen on both frames beside it, while those two
    are alike: a one-frame merge with a neighbour (or a one-frame loss of part of the body)? ``seen`` (T,) bool: the
    frames the subject is observed on."""
    if frame < 1 or frame + 1 >= len(seen) or not (seen[frame - 1] and seen[frame] and seen[frame + 1]):
        return False
    before, here, after = (float(track.area_px[f]) for f in (frame - 1, frame, frame + 1))
    return areas_alike(before, after) and not areas_alike(here, before) and not areas_alike(here, after)


def _own_descent(track: Track, ok: np.ndarray, s: int, y: np.ndarray, j0: int, k: int, axis: int = 1,
                 toward: int = 1, piece_ratio: float = 4.0) -> float:
    """px: how far down ``y`` (``toward`` times the centre's coordinate along ``axis``, from frame ``s`` of ``track``
    on) the descent from ``j0`` to ``k`` goes, a step between a piece of the body and the whole of it counted by
    the body's edges, not its centre. A piece (the blob's area under the other's by over x``piece_ratio``: half the
    radius or less; a body that tumbles, turns or merges with its shadow as it lands changes its area by far less)
    shares one edge with the whole body, and that edge moves as the body does, while the centre moves by the change
    of blob: such a step counts the lesser move down of the box's two edges along ``axis`` (none, where the piece is
    the top of a ball rolling along the floor and the whole ball is found again). Steps to or from a frame the body is
    not seen in (``ok`` false: its place interpolated over the gap) count as they are."""
    area = np.asarray(track.area_px, float)
    boxes = np.asarray(track.boxes_xyxy, float)
    down = 0.0
    for i in range(j0, k):
        a, b = s + i, s + i + 1
        step = float(y[i + 1] - y[i])
        if ok[a] and ok[b] and not areas_alike(float(area[a]), float(area[b]), piece_ratio):
            edges = toward * (boxes[b, [axis, axis + 2]] - boxes[a, [axis, axis + 2]])
            step = float(edges.min())
        down += max(step, 0.0)
    return down


def _fell(tt: np.ndarray, y: np.ndarray, j0: int, k: int, r: float, min_drop_radii: float) -> bool:
    """Does the descent from ``j0`` to ``k`` (``y`` px down the picture at times ``tt`` s) end in a fall: does its last
    stretch that comes down ``min_drop_radii`` or more (``r`` px a radius; the fastest part of a fall, which gathers
    speed to the end) take no longer than a fall from rest at ``MIN_FALL_ACCEL_RADII`` over that height? A body that
    rolls toward the camera and then off an edge has crept before it fell."""
    for j in range(k - 1, j0 - 1, -1):
        drop = (y[k] - y[j]) / r
        if drop >= min_drop_radii:
            return bool(tt[k] - tt[j] <= np.sqrt(2.0 * drop / MIN_FALL_ACCEL_RADII))
    return False


@_per_track
def wall_contacts(track: Track, **kwargs) -> list[Contact]:
    """``floor_contacts`` along image x toward a wall on either side (right: increasing x; left: decreasing), in
    frame order: a body rolling left meets the wall on its left as a body rolling right meets one on its right."""
    both = floor_contacts(track, axis=0, toward=1, **kwargs) + floor_contacts(track, axis=0, toward=-1, **kwargs)
    return sorted(both, key=lambda c: c.frame)


def parabola_fit(t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares y = c0 + c1 t + (a/2) t^2 -> (a px/s^2, rms residual px)."""
    a, _, rms = quadratic_motion(t, y)
    return a, rms


def quadratic_motion(t: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares y = y0 + v0 t + (a/2) t^2, with t from the first time -> (a px/s^2, v0 px/s at the first
    time, rms residual px)."""
    t = np.asarray(t, float) - float(t[0])
    y = np.asarray(y, float)
    p = np.polyfit(t, y, 2)
    res = y - np.polyval(p, t)
    return float(2 * p[0]), float(p[1]), float(np.sqrt(np.mean(res ** 2)))
