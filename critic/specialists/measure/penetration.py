"""Penetration: a solid body does not pass into the floor, the walls, or another body.

The floor is the background's floor line when the subject comes down to it from above, otherwise the level the
subject itself lands, rests or rolls on (a floor seen in perspective has no line where objects meet it).
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import floor_contacts, observed, radius, runs, stationary_runs
from critic.specialists.measure.common import Tolerances, floor_row_of, measurement
from critic.types import Measurement, MeasureOp, Track, VideoContext


def penetration(op: MeasureOp, track: Track, other: Track | None, video: VideoContext,
                tol: Tolerances) -> Measurement:
    """Whether the subject passes into the floor (or into ``other``); ``expect.holds=False`` (the implicit
    obligation) is the usual claim, and the state says whether it stayed out. Walls are not measured offline."""
    r = radius(track)
    ok = observed(track)
    if other is not None:
        req = "does not pass through the other subject"
        ro = radius(other)
        both = ok & observed(other)
        d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
        deep = both & (d < 0.5 * (r + ro))
        if deep.sum() >= 2:
            s, e = runs(deep)[0]
            return measurement("contradicted", req,
                               f"centres {float(np.nanmin(d[deep])) / r:.2f} radii apart while both seen",
                               window=video.window(s, e))
        return measurement("supported", req, "never overlapping by more than half a radius") if both.any() else \
            unknown("the two subjects are never seen together", required=req)
    req = "does not pass into the floor"
    floor = floor_row_of(track)
    if op.surface == "wall":
        return unknown("no wall geometry is measured offline", required="does not pass into the wall")
    verdict = _by_floor_line(track, floor, req, video) if floor is not None else None
    if verdict is not None and verdict.state == "contradicted":
        return verdict
    # The floor line is the far edge of a floor seen in perspective, or absent: use the level the subject
    # itself lands, rests or rolls on, and check it never sinks below it.
    own = _by_own_level(track, req)
    if own is not None:
        return own
    return verdict or unknown("no floor line found in the background and no level the subject stays on",
                              required=req)


def _by_own_level(track: Track, req: str) -> Measurement | None:
    """Supported when the subject never sinks half a radius below the lowest level it lands or rests on (or moves
    along one row without falling); None when that tells nothing."""
    r = radius(track)
    ok = observed(track) & ~track.touches_border
    if ok.sum() < 3:
        return None
    bottom = track.boxes_xyxy[:, 3]
    contacts = floor_contacts(track)
    rests = stationary_runs(track)
    levels = [c.bottom_px for c in contacts] + [float(np.nanmedian(bottom[s:e + 1])) for s, e in rests]
    if levels:
        level = max(levels)
        after = ok.copy()
        after[:min([c.frame for c in contacts] + [s for s, _ in rests])] = False
        if after.any() and float(np.nanmax(bottom[after])) <= level + 0.5 * r:
            return measurement("supported", req, f"never sinks below the level it lands or rests on (lowest "
                               f"{(float(np.nanmax(bottom[after])) - level) / r:+.2f} radii)")
        return None
    # rolling or sliding along one row with no fall: the floor holds it
    moving_x = float(np.nanmax(track.centroid_px[ok, 0]) - np.nanmin(track.centroid_px[ok, 0])) / r
    if moving_x > 2.0 and float(np.nanmax(bottom[ok]) - np.nanmin(bottom[ok])) <= 0.5 * r:
        return measurement("supported", req, "moves along one row (rolls or slides on a surface) without sinking")
    return None


def _by_floor_line(track: Track, floor: float, req: str, video: VideoContext) -> Measurement:
    """Against the background's floor line (px row): contradicted when the centre sinks over half a radius below
    it after coming from above it; unknown when the line is not where the subject meets the floor."""
    r = radius(track)
    ok = observed(track)
    contacts = floor_contacts(track)
    # If the subject lands or rests clearly below the floor line, the line is not where it meets the floor
    # (a floor seen in perspective): the check cannot tell.
    rest_rows = [float(np.nanmedian(track.boxes_xyxy[s:e + 1, 3])) for s, e in stationary_runs(track)]
    rows = [c.bottom_px for c in contacts] + rest_rows
    if any(b > floor + 0.75 * r for b in rows):
        return unknown("the subject lands below the background's floor line (perspective floor)", required=req,
                       floor_row_px=floor)
    depth = (track.centroid_px[:, 1] - floor) / r  # centre below the floor line, radii (0: half sunk)
    deep = ok & (depth > 0.5)
    # it must come from above the floor line: an object always below it moves on a floor seen in perspective
    first_deep = int(np.flatnonzero(deep)[0]) if deep.any() else 0
    above_before = (ok & (track.boxes_xyxy[:, 3] < floor - 0.5 * r))[:first_deep].any()
    if deep.sum() >= 2 and not above_before:
        return unknown("the subject is below the background's floor line from the start (perspective floor)",
                       required=req, floor_row_px=floor)
    if deep.sum() >= 2:
        sunk = runs(deep)
        s, e = sunk[0][0], sunk[-1][1]  # from the first sunk frame to the last
        return measurement("contradicted", req,
                           f"centre {float(np.nanmax(depth[deep])):.1f} radii below the floor line",
                           window=video.window(s, e), floor_row_px=floor)
    return measurement("supported", req, f"lowest centre {float(np.nanmax(np.where(ok, depth, -np.inf))):.2f} radii "
                       "relative to the floor line", floor_row_px=floor)
