"""Penetration: whether a solid body passes into the floor, a wall, or another body.

The function reports the property itself (it passes into): the implicit claim asserts it absent
(``expect.holds=False``) and ``common.for_expectation`` turns one state into the other.

The floor is judged only against a level the clip shows the subject on: where it touched down (a bounce or a
landing) or rested. A background's strongest horizontal edge is no such level: on a floor seen in perspective it
is the far edge, and a body that merely leaves the frame below it has passed into nothing. With no such level
the state is unknown.
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import (area_radius, floor_contacts, observed, parabola_fit, radius, runs,
                                           stationary_runs)
from critic.specialists.measure.common import Tolerances, measurement, phrase
from critic.types import Measurement, MeasureOp, Track, VideoContext

#: the bottom must go this many radii below the level before the subject counts as sunk into it
SINK_RADII = 1.0
#: ... for at least this many observed frames
SINK_FRAMES = 3
#: ... while its apparent size grows by less than this (a body rolling toward the camera grows as it comes lower)
SINK_MAX_GROWTH = 1.12
#: a descent accelerating faster than this (radii/s^2) is a fall off an edge, not a sinking (everyday bodies fall
#: at 50-300 radii/s^2; a sinking body hardly gathers speed)
FALL_ACCEL_RADII = 20.0


def penetration(op: MeasureOp, track: Track, other: Track | None, video: VideoContext,
                tol: Tolerances) -> Measurement:
    """Whether the subject passes into the floor (or into ``other``). Walls are not measured offline."""
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
    if op.surface == "wall":
        return unknown("no wall geometry is measured offline",
                       required=phrase(op, "passes into the wall", "does not pass into the wall"))
    req = phrase(op, "passes into the floor", "does not pass into the floor (below a level it touched or rested on)")
    return _against_own_levels(track, req, video)


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
    for s, e in stationary_runs(track):
        before = np.flatnonzero(observed(track)[:s + 1])
        came_down = before.size and float(y[s] - np.nanmin(y[before])) / r >= 1.0
        if came_down or any(c.frame <= s + 1 for c in contacts):
            events.append((s, float(np.nanmedian(bottom[s:e + 1]))))
    events += _rolling_levels(track, r)
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
            sunk_already = np.isfinite(lowest) and (b - lowest) / r > SINK_RADII and \
                size_here / lowest_size < SINK_MAX_GROWTH
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
        sunk = ok & (ref_frame >= 0) & (depth > SINK_RADII) & (growth < SINK_MAX_GROWTH) & (b[:, 3] < h - 2) \
            & (top_drop > 0.75 * depth) & same_shape & (sideways < 1.0)
    long_runs = [(s, e) for s, e in runs(sunk) if e - s + 1 >= SINK_FRAMES and not _falls_off(track, s, e, r)]
    if long_runs:
        s, e = long_runs[0][0], long_runs[-1][1]  # from the first sunk frame to the last
        return measurement("supported", req, f"bottom {float(np.nanmax(depth[sunk])):.1f} radii below the level "
                           f"it touched or rested on (row {level[s]:.0f} px), at the same apparent size",
                           window=video.window(s, e), level_row_px=level[s], depth_radii=depth[s:e + 1].tolist())
    after = ok & np.isfinite(depth)
    lowest_depth = float(np.nanmax(depth[after])) if after.any() else 0.0
    seen = np.flatnonzero(ok)
    return measurement("contradicted", req, f"never sinks below the level it touched or rested on (lowest "
                       f"{lowest_depth:+.2f} radii)", window=video.window(events[0][0], int(seen[-1])),
                       levels_px=[b for _, b in events])
