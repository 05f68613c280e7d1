"""Penetration: whether a solid body passes into the floor, a wall, or another body.

The function reports the property itself (it passes into): the implicit claim asserts it absent
(``expect.holds=False``) and ``common.for_expectation`` turns one state into the other.

The floor is judged only against a level the clip shows the subject on: where it touched down (a bounce or a
landing) or rested. A background's strongest horizontal edge is no such level: on a floor seen in perspective it
is the far edge, and a body that merely leaves the frame below it has passed into nothing. With no such level
the state is unknown, unless the clip shows the body going into the surface itself: its top goes on down while
its bottom stays at a row, it shrinks from below and is gone (:func:`_sinks_out_of_sight`). Walls are not located
at all; a body that goes sideways into one the same way (its leading side held at a column) is seen passing into
it (:func:`_enters_sideways`). A body that goes up into the air from a level and comes down lower has landed anew,
on a level of its own; a blob under the body's size below a level is a part of it or another blob, and is not
judged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import (Contact, area_radius, floor_contacts, observed, parabola_fit, radius, runs,
                                           stationary_runs)
from critic.specialists.measure.common import Tolerances, measurement, phrase
from critic.specialists.measure.continuity import colour_pixels, subject_lab
from critic.types import Measurement, MeasureOp, Track, VideoContext

#: the bottom must go this many radii below the level before the subject counts as sunk into it
SINK_RADII = 1.0
#: ... for at least this many observed frames
SINK_FRAMES = 3
#: ... while its apparent size grows (or shrinks) by less than this factor (a body rolling toward the camera grows as
#: it comes lower; a blob much smaller than the body is a part of it, or another blob)
SINK_MAX_GROWTH = 1.12
#: a descent accelerating faster than this (radii/s^2) is a fall off an edge, not a sinking (everyday bodies fall
#: at 50-300 radii/s^2; a sinking body hardly gathers speed)
FALL_ACCEL_RADII = 20.0
#: a body going into a surface shows less than this share of its usual height (and area) in its last frame(s)
SINK_SHOWN_SHARE = 0.7
#: ... and stays out of sight this long (s) afterwards
SINK_GONE_S = 0.2
#: a box under this many rows cannot show a cut from below (one row is a third of a body six rows tall)
SINK_MIN_HEIGHT_PX = 8.0
#: a body cut from below keeps most of its width; one that narrows goes behind something from the side
SINK_MIN_WIDTH_SHARE = 0.6


def penetration(op: MeasureOp, track: Track, other: Track | None, video: VideoContext,
                tol: Tolerances) -> Measurement:
    """Whether the subject passes into the floor (or into ``other``). Walls are not located offline: a body is
    judged to pass into one only when it is seen going in sideways (``_enters_sideways``)."""
    r = radius(track)
    ok = observed(track)
    if other is not None:
        req = phrase(op, "passes through the other subject", "does not pass through the other subject")
        ro = radius(other)
        both = ok & observed(other)
        d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
        deep = both & (d < 0.5 * (r + ro))
        if deep.sum() >= 2:
            s, e = runs(deep)[0]
            return measurement("supported", req,
                               f"centres {float(np.nanmin(d[deep])) / r:.2f} radii apart while both seen",
                               window=video.window(s, e))
        seen = np.flatnonzero(both)
        return measurement("contradicted", req, "never overlapping by more than half a radius",
                           window=video.window(int(seen[0]), int(seen[-1]))) if both.any() else \
            unknown("the two subjects are never seen together", required=req)
    # where the track ends in view for good, read once for both ways into a surface
    seen = _last_seen_in_view(track, video)
    if op.surface in (None, "wall"):
        # a wall is not located offline, but a body seen going into one sideways is seen going in
        entry = _enters_sideways(track, video, seen)
        if entry is not None:
            first, last, column = entry
            return measurement("supported", phrase(op, "passes into a wall", "does not pass into a wall"),
                               f"goes sideways into the surface at column {column:.0f} px: its trailing side goes on "
                               f"while its leading side stays there, it narrows from the front from frame {first} "
                               f"and is gone after frame {last}, not seen again to the clip's end",
                               # it is in (or through) the wall from when it goes in until the clip ends
                               window=video.window(max(first - 1, 0), video.num_frames - 1),
                               level_column_px=column)
    if op.surface == "wall":
        return unknown("no wall geometry is measured offline, and the subject is not seen going into one",
                       required=phrase(op, "passes into the wall", "does not pass into the wall"))
    req = phrase(op, "passes into the floor", "does not pass into the floor (below a level it touched or rested on)")
    sink = _sinks_out_of_sight(track, video, seen)
    if sink is not None:
        first, last, row = sink
        return measurement("supported", req, f"goes down into the surface at row {row:.0f} px: its top goes on down "
                           f"while its bottom stays there, it shrinks from below from frame {first} and is gone "
                           f"after frame {last}",
                           window=video.window(max(first - 1, 0), min(last + 1, video.num_frames - 1)),
                           level_row_px=row)
    return _against_own_levels(track, req, video)


@dataclass(frozen=True)
class _LastSeen:
    """A body the track loses in view for good: ``last`` its last visible frame, ``gone`` the frames it must then
    stay unseen (``SINK_GONE_S``), ``boxes`` (T, 4) xyxy px, ``height``/``width``/``area`` (T,) px and their
    ``usual_*`` medians over the ``before`` frames seen before its last two."""

    vis: np.ndarray
    idx: np.ndarray
    before: int
    last: int
    gone: int
    boxes: np.ndarray
    height: np.ndarray
    width: np.ndarray
    area: np.ndarray
    usual_h: float
    usual_w: float
    usual_a: float


def _last_seen_in_view(track: Track, video: VideoContext) -> _LastSeen | None:
    """The body's last frames, when it is lost in view (not at the border) with ``SINK_GONE_S`` of the clip after and
    two frames or more seen before its last two; else None."""
    vis = np.asarray(track.visible, bool)
    idx = np.flatnonzero(vis)
    if idx.size < 4:
        return None
    last = int(idx[-1])
    gone = max(2, int(round(SINK_GONE_S * video.fps)))
    if last > video.num_frames - 1 - gone or np.asarray(track.touches_border, bool)[max(last - 3, 0):last + 1].any():
        return None
    b = np.asarray(track.boxes_xyxy, float)
    height, width = b[:, 3] - b[:, 1] + 1.0, b[:, 2] - b[:, 0] + 1.0
    area = np.asarray(track.area_px, float)
    before = idx[idx < last - 1]
    if before.size < 2:
        return None
    usual_h, usual_w, usual_a = (float(np.median(v[before])) for v in (height, width, area))
    return _LastSeen(vis, idx, int(before.size), last, gone, b, height, width, area, usual_h, usual_w, usual_a)


def _goes_in(seen: _LastSeen, cut_at: Callable[[int], bool], going_side: np.ndarray, track: Track,
             video: VideoContext) -> int | None:
    """The first of the frames up to the last one seen that ``cut_at`` (frame -> bool, against the frame before)
    finds cut by a surface, when the side of the body ``going_side`` (T,) px, positive into the surface, goes on in
    them at half the speed or more that it came with over the frames just before (a body that comes to rest on or
    against something slows to a stop; so does the blob of a moving part's wake), and its colour is not where it
    was over the ``gone`` frames after (else the tracker lost it, it did not go anywhere); else None."""
    vis, last = seen.vis, seen.last
    first = last  # walk back over the frames cut
    while first >= 1 and vis[first - 1] and cut_at(first):
        first -= 1
    if first == last:
        return None
    first += 1
    span = first - 1 - max(first - 3, int(seen.idx[0]))
    if span < 1 or not vis[first - 1 - span:first].all():
        return None
    came = (going_side[first - 1] - going_side[first - 1 - span]) / span
    if came < 0.5 or np.any(np.diff(going_side[first - 1:last + 1]) < 0.5 * came):
        return None
    lab = subject_lab(video, track, first - 1)
    if lab is not None:
        for j in range(last + 1, min(last + 1 + seen.gone, video.num_frames)):
            if colour_pixels(video, j, track.centroid_px[last], lab, 2.0 * radius(track))[0] >= 0.5 * seen.usual_a:
                return None
    return first


def _sinks_out_of_sight(track: Track, video: VideoContext, seen: _LastSeen | None) -> tuple[int, int, float] | None:
    """A body that goes down into a surface and out of sight: over its last observed frames (in view, not at the
    border) its box's top goes on down faster than its bottom, which does not rise, so it shows under
    ``SINK_SHOWN_SHARE`` of its usual height and area at no less than ``SINK_MIN_WIDTH_SHARE`` of its usual width
    (cut from below, not from a side), its top still going down at half the speed or more that it came down with
    just before; then it is not seen for ``SINK_GONE_S`` and its colour is not where it was.
    ``seen``: :func:`_last_seen_in_view` of the track. -> (first frame cut from below, last frame seen, its bottom
    row there px), or None.

    The picture alone cannot tell a surface from the straight top of something standing in front: a floor's own
    pattern (checks, the far edge of the floor) runs along the row where a body goes in as often as an occluder's
    edge does, so the row is not asked to be free of edges."""
    if seen is None or seen.usual_h < SINK_MIN_HEIGHT_PX:
        return None
    b = seen.boxes

    def cut_from_below(k: int) -> bool:
        top_down, bottom_down = b[k, 1] - b[k - 1, 1], b[k, 3] - b[k - 1, 3]
        # the bottom does not rise (a body going away from the camera shrinks toward the horizon)
        return bool(top_down >= 1.0 and -max(1.0, 0.1 * seen.usual_h) <= bottom_down < top_down
                    and seen.height[k] < SINK_SHOWN_SHARE * seen.usual_h
                    and seen.area[k] < SINK_SHOWN_SHARE * seen.usual_a
                    and seen.width[k] >= SINK_MIN_WIDTH_SHARE * seen.usual_w)

    first = _goes_in(seen, cut_from_below, b[:, 1], track, video)
    return None if first is None else (first, seen.last, float(b[seen.last, 3]))


def _enters_sideways(track: Track, video: VideoContext, seen: _LastSeen | None) -> tuple[int, int, float] | None:
    """A body that goes sideways into a surface and out of sight (the wall it should have met): over its last
    observed frames (in view, not at the border) its trailing side goes on at half the speed or more that it came
    with, while its leading side stays within a pixel (or a tenth of its width) of a column, so it shows under
    ``SINK_SHOWN_SHARE`` of its usual width and area at no less than ``SINK_MIN_WIDTH_SHARE`` of its usual height
    (cut from the front, not from above or below); then it is not seen for ``SINK_GONE_S`` and its colour is not
    where it was. The mirror of :func:`_sinks_out_of_sight` turned a quarter: the same picture as a body going
    behind the straight side of something standing in front, which the picture alone cannot tell from a surface.
    ``seen``: :func:`_last_seen_in_view` of the track, with three frames or more before its last two (the heading
    is read over them). -> (first frame cut from the front, last frame seen, its leading side's column there px), or
    None."""
    if seen is None or seen.before < 3 or seen.usual_w < SINK_MIN_HEIGHT_PX or not seen.vis[seen.last - 1]:
        return None
    b, last = seen.boxes, seen.last
    x = track.centroid_px[:, 0]
    heading = float(np.sign(x[last - 1] - x[int(seen.idx[0])]))
    if heading == 0:
        return None
    # along the heading: the leading side is the one toward the surface, the trailing side the one behind
    lead = b[:, 2] if heading > 0 else -b[:, 0]
    trail = b[:, 0] if heading > 0 else -b[:, 2]

    def cut_from_front(k: int) -> bool:
        trail_on, lead_on = trail[k] - trail[k - 1], lead[k] - lead[k - 1]
        return bool(trail_on >= 1.0 and -max(1.0, 0.1 * seen.usual_w) <= lead_on < trail_on
                    and seen.width[k] < SINK_SHOWN_SHARE * seen.usual_w
                    and seen.area[k] < SINK_SHOWN_SHARE * seen.usual_a
                    and seen.height[k] >= SINK_MIN_WIDTH_SHARE * seen.usual_h)

    first = _goes_in(seen, cut_from_front, trail, track, video)
    return None if first is None else (first, last, float(b[last, 2] if heading > 0 else b[last, 0]))


def _rolling_levels(track: Track, r: float, window: int = 6) -> list[tuple[int, float]]:
    """Rows the subject rolls or slides along: ``window`` observed frames in a row whose bottom stays within half a
    radius while the centre travels over two radii sideways (a surface holds it there) -> (first frame, row)."""
    ok = observed(track) & ~np.asarray(track.touches_border, bool)
    bottom = track.boxes_xyxy[:, 3]
    x = track.centroid_px[:, 0]
    for s, e in runs(ok):
        for k in range(s, e - window + 2):
            seg = slice(k, k + window)
            if np.ptp(bottom[seg]) <= 0.5 * r and np.ptp(x[seg]) > 2.0 * r:
                return [(k, float(np.median(bottom[seg])))]
    return []


def _falls_off(track: Track, s: int, e: int, r: float) -> bool:
    """Does the descent over frames ``s..e`` (with the frames just before) accelerate like a fall (over
    ``FALL_ACCEL_RADII`` radii/s^2)? Then the body left the edge of what it rested on (a table, a tower); a body
    sinking into a floor goes down without gathering speed like that."""
    a0 = max(s - 3, 0)
    ok = observed(track)[a0:e + 1]
    t = track.times_s[a0:e + 1][ok]
    y = track.centroid_px[a0:e + 1, 1][ok]
    if len(t) < 4:
        return False
    accel, _ = parabola_fit(t, y)
    return accel / r > FALL_ACCEL_RADII


def _falls_from_rest(track: Track, e: int, r: float, frames: int = 4, min_gain_radii: float = 0.2) -> bool:
    """Does the subject fall from the rest that ends at frame ``e``: over the ``frames`` observed frames after it,
    down every step, none shorter than the one before by over a tenth of a radius (a blob's centre jitters by
    about that), the last longer than the first by ``min_gain_radii`` radii or more (a falling body speeds up; one
    that sinks or is pushed down goes at a steady speed)?"""
    k = np.arange(e, e + frames + 1)
    if k[-1] >= len(track.times_s) or not observed(track)[k].all():
        return False
    dy = np.diff(track.centroid_px[k, 1])
    return bool((dy > 0).all() and (np.diff(dy) >= -0.1 * r).all() and (dy[-1] - dy[0]) / r >= min_gain_radii)


def _held_at(track: Track, frame: int, bottom_px: float, r: float, tol_radii: float = 0.25) -> tuple[int, int]:
    """The frames a touchdown at ``frame`` (box bottom ``bottom_px``) holds the subject: from it on, as long as it is
    observed with its bottom within ``tol_radii`` of its radius ``r`` of that row. -> (first, last frame)."""
    ok = observed(track)
    bottom = track.boxes_xyxy[:, 3]
    e = frame
    while e + 1 < len(ok) and ok[e + 1] and abs(float(bottom[e + 1]) - bottom_px) <= tol_radii * r:
        e += 1
    return frame, e


def _comes_down_lower(contacts: list[Contact], rests: list[tuple[int, int]], bottom: np.ndarray, s: int, e: int,
                      r: float) -> bool:
    """Does the subject, after frames ``s..e`` where it was held, touch down or come to rest more than
    ``SINK_RADII`` of its radii ``r`` lower (box ``bottom`` (T,) px, image rows down) than it was held?"""
    held_row = float(np.nanmedian(bottom[s:e + 1]))
    lower = [c.bottom_px for c in contacts if c.frame > e]
    lower += [float(np.nanmedian(bottom[s2:e2 + 1])) for s2, e2 in rests if s2 > e]
    return any((row - held_row) / r > SINK_RADII for row in lower)


def _flew_up(bottom: np.ndarray, ok: np.ndarray, level: float, start: int, end: int, r: float,
             min_rise_radii: float = 1.0) -> bool:
    """Was the subject up in the air over the level row ``level`` (px) between frames ``start`` and ``end``: its
    box bottom (T,) px (image rows, down) more than ``min_rise_radii`` of its radii ``r`` px above that row in an
    observed frame (``ok`` (T,))?"""
    seen = ok[start:end] & np.isfinite(bottom[start:end])
    return bool(np.any(level - bottom[start:end][seen] > min_rise_radii * r))


def _against_own_levels(track: Track, req: str, video: VideoContext) -> Measurement:
    """Sinks (supported) when, after touching down, resting or rolling at a level, the subject's bottom goes more than
    ``SINK_RADII`` below the lowest such level seen so far for ``SINK_FRAMES`` observed frames, in view, without
    growing as a body coming toward the camera would; stays out (contradicted) when it never does."""
    r = radius(track)
    ok = observed(track) & ~np.asarray(track.touches_border, bool)
    if ok.sum() < 3 or not np.isfinite(r):
        return unknown("fewer than 3 observed frames in view", required=req)
    bottom = track.boxes_xyxy[:, 3]
    size = area_radius(track)
    contacts = floor_contacts(track)
    events = [(c.frame, c.bottom_px) for c in contacts]
    # a rest is a level when the subject came down onto it (a held body waiting to be dropped rests on nothing
    # the clip shows)
    y = track.centroid_px[:, 1]
    rests = stationary_runs(track)
    for s, e in rests:
        before = np.flatnonzero(observed(track)[:s + 1])
        came_down = before.size and float(y[s] - np.nanmin(y[before])) / r >= 1.0
        if came_down or any(c.frame <= s + 1 for c in contacts):
            events.append((s, float(np.nanmedian(bottom[s:e + 1]))))
    events += _rolling_levels(track, r)
    # a rest or a touchdown the body then falls from, to come down again lower in view - to rest there, or to touch
    # down (the clip may end before a rest there is long enough to count) - (a hold in mid-air, the edge of a
    # ledge) held it up for a while, but it is no level the body could sink below, nor is the landing that began
    # it; where the body comes down after the fall is. (A body that falls on down from its rest and never stops in
    # view went into the floor it rested on.)
    held = rests + [_held_at(track, c.frame, c.bottom_px, r) for c in contacts]
    held_then_fell = [(s, e) for s, e in held if _falls_from_rest(track, e, r)
                      and _comes_down_lower(contacts, rests, bottom, s, e, r)]
    events = [(f, b) for f, b in events if not any(s - 1 <= f <= e for s, e in held_then_fell)]
    if not events:
        return unknown("no level seen in the clip: the subject never touches down or rests in view (a background "
                       "edge may be the far edge of the floor, not where the subject meets it)", required=req)
    events.sort()
    h = video.frames.shape[1]
    level = np.full(len(bottom), np.nan)
    ref_size = np.full(len(bottom), np.nan)
    ref_frame = np.full(len(bottom), -1)
    lowest, lowest_size, lowest_frame = -np.inf, np.nan, -1
    j = 0
    for k in range(len(bottom)):
        while j < len(events) and events[j][0] <= k:
            f, b = events[j]
            size_here = float(np.nanmedian(size[max(f - 1, 0):f + 2]))
            # a body that left the level up into the air since and came down again landed anew: where it comes
            # down (nearer the camera, lower in the picture; or the level was a turn in mid-air) is a level of
            # its own, not a sinking below the old one; a sinking goes down from the level without a flight
            sunk_already = np.isfinite(lowest) and (b - lowest) / r > SINK_RADII and \
                size_here / lowest_size < SINK_MAX_GROWTH and not _flew_up(bottom, ok, lowest, lowest_frame, f, r)
            if b > lowest and not sunk_already:  # a rest inside the floor is no new level
                lowest, lowest_size, lowest_frame = b, size_here, f
            j += 1
        if np.isfinite(lowest):
            level[k], ref_size[k], ref_frame[k] = lowest, lowest_size, lowest_frame
    b = track.boxes_xyxy
    aspect = (b[:, 2] - b[:, 0] + 1) / (b[:, 3] - b[:, 1] + 1)
    safe = np.maximum(ref_frame, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        depth = (bottom - level) / r
        growth = size / ref_size
        # the whole body goes down as it was (its top with its bottom, same shape, hardly sideways): a body that
        # topples toward the camera or turns stretches its box downward instead
        top_drop = (b[:, 1] - b[safe, 1]) / r
        same_shape = np.abs(np.log(aspect / aspect[safe])) < np.log(1.25)
        sideways = np.abs(track.centroid_px[:, 0] - track.centroid_px[safe, 0]) / r
        # at the same apparent size as at the level and as it usually is up to there: a body drawn over the floor
        # as it sinks keeps it; a blob under its size is a part of the body or of something else (a shadow, a
        # highlight), which the track switched to
        usual_at = {int(f): float(np.nanmedian(size[: f + 1][ok[: f + 1]])) if ok[: f + 1].any() else np.nan
                    for f in np.unique(ref_frame) if f >= 0}  # one median per level, not per frame
        usual = np.array([usual_at.get(int(f), np.nan) for f in ref_frame])
        same_size = (growth < SINK_MAX_GROWTH) & (growth > 1.0 / SINK_MAX_GROWTH) & \
            (size / usual > 1.0 / SINK_MAX_GROWTH)
        sunk = ok & (ref_frame >= 0) & (depth > SINK_RADII) & same_size & (b[:, 3] < h - 2) \
            & (top_drop > 0.75 * depth) & same_shape & (sideways < 1.0)
    long_runs = [(s, e) for s, e in runs(sunk) if e - s + 1 >= SINK_FRAMES and not _falls_off(track, s, e, r)]
    if long_runs:
        s, e = long_runs[0][0], long_runs[-1][1]  # from the first sunk frame to the last
        return measurement("supported", req, f"bottom {float(np.nanmax(depth[sunk])):.1f} radii below the level "
                           f"it touched or rested on (row {level[s]:.0f} px), at the same apparent size",
                           window=video.window(s, e), level_row_px=level[s], depth_radii=depth[s:e + 1].tolist())
    # below the level as a blob under the body's size: not the body as it is, so neither a sinking nor none
    smaller = ok & (ref_frame >= 0) & (depth > SINK_RADII) & (growth < SINK_MAX_GROWTH) & ~same_size
    if any(e - s + 1 >= SINK_FRAMES for s, e in runs(smaller)):
        return unknown(f"its blob goes {float(np.nanmax(depth[smaller])):.1f} radii below the level it touched or "
                       "rested on, but at under its own size there (a part of the body, or another blob)",
                       required=req)
    after = ok & np.isfinite(depth)
    lowest_depth = float(np.nanmax(depth[after])) if after.any() else 0.0
    seen = np.flatnonzero(ok)
    return measurement("contradicted", req, f"never sinks below the level it touched or rested on (lowest "
                       f"{lowest_depth:+.2f} radii)", window=video.window(events[0][0], int(seen[-1])),
                       levels_px=[b for _, b in events])
