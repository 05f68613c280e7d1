"""Direction of motion: net displacement along the claimed image direction, or apparent growth toward the camera.

Image up/down is not world up/down for a body moving in depth: a marked change of apparent size at constant shape
makes up/down unknown.
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import area_radius, observed, radius, runs, size_radius, velocity
from critic.specialists.measure.common import Tolerances
from critic.types import Cost, Measurement, MeasureOp, Track, VideoContext


def direction(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """Moves in ``expect.direction`` (left/right/up/down/horizontal: net displacement over one radius along it, and
    over twice ``tol.min_change_px`` pixels;
    toward/away: apparent size x1.15 from the first to the last quarter of the frames). Window ``motion``: frames moving that way."""
    d = op.expect.direction
    req = f"moves {d}" if op.expect.holds else f"does not move {d}"
    if d is None:
        return unknown("no direction given", required=req)
    ok = observed(track)
    idx = np.flatnonzero(ok)
    r = radius(track)
    if idx.size < 2:
        return unknown("fewer than 2 observed frames", required=req)
    if d in ("toward", "away"):
        # apparent size from the mask area (any shape), as the median over the first and the last quarter of the
        # observed frames: one frame's blob joined to a contrasting mat or a shadow does not decide it
        rs = area_radius(track, window=5)
        n = max(3, idx.size // 4)
        a, b = float(np.nanmedian(rs[idx[:n]])), float(np.nanmedian(rs[idx[-n:]]))
        grow = b / a
        sign = 1 if d == "toward" else -1
        score = np.log(grow) * sign
        state = "supported" if score > np.log(1.15) else "contradicted" if score < -np.log(1.15) else "unknown"
        return Measurement(state=state, required=req, measured=f"apparent size x{grow:.2f} from first to last frame",
                           reason="" if state != "unknown" else "apparent size hardly changes",
                           windows={"motion": video.window(int(idx[0]), int(idx[-1]))}, cost=Cost(tool_calls=1))
    dx, dy = (track.centroid_px[idx[-1]] - track.centroid_px[idx[0]]) / r
    unit = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}.get(d)
    if d == "horizontal":
        along, across = abs(dx), abs(dy)
    else:
        along = dx * unit[0] + dy * unit[1]
        across = abs(dx * unit[1]) + abs(dy * unit[0])
        if d == "down":
            # a body that topples (a domino) falls over: its top edge comes down more than its centre
            top = track.boxes_xyxy[:, 1]
            along = max(along, float(np.nanmedian(top[idx[-3:]]) - np.nanmedian(top[idx[:3]])) / r)
    # frames where it moves the claimed way
    v = velocity(track) / r
    if d == "horizontal":
        moving = np.abs(v[:, 0]) > 0.5
    else:
        moving = (v[:, 0] * unit[0] + v[:, 1] * unit[1]) > 0.5
    rr = runs(moving & ok)
    windows = {"motion": video.window(rr[0][0], rr[-1][1])} if rr else {}
    measured = f"net displacement dx = {dx:.1f}, dy = {dy:.1f} radii (x right, y down)"
    rs = size_radius(track)
    clean = rs[ok & ~track.touches_border & np.isfinite(rs)]
    depth_change = float(np.log(np.percentile(clean, 90) / np.percentile(clean, 10))) if clean.size >= 3 else 0.0
    b = track.boxes_xyxy
    aspect = (b[:, 2] - b[:, 0] + 1) / (b[:, 3] - b[:, 1] + 1)
    # the box's aspect from its first frames to its last: a body that turns over changes it
    turn = float(np.nanmedian(aspect[idx[-3:]])) / float(np.nanmedian(aspect[idx[:3]]))
    same_shape = abs(np.log(turn)) < np.log(1.25)
    why_unknown = ""
    if d in ("up", "down") and depth_change > np.log(1.25) and same_shape:
        # moving in depth: up/down in the image need not be up/down in the world
        state = "unknown"
        why_unknown = f"apparent size changes x{np.exp(depth_change):.2f}: the motion may be in depth"
    elif abs(along) * r < 2 * tol.min_change_px:
        # a shift of a few pixels is within what segmenting a small body from frame to frame gives: no motion shows
        state = "unknown"
        why_unknown = f"net motion along the claimed axis {abs(along) * r:.1f} px, under {2 * tol.min_change_px:g} px"
    elif along > 1.0:
        state = "supported"
    elif along < -1.0 and d in ("up", "down") and not same_shape:
        # it turned over on the way (a can knocked over, a box that tumbles): a body that falls over away from the
        # camera goes up in the picture, so up or down there is not up or down in the world
        state = "unknown"
        why_unknown = f"its outline turns (box aspect x{turn:.2f}): it may have fallen over away from the camera"
    elif along < -1.0:
        state = "contradicted"
    else:
        state = "unknown"
    window = video.window(int(idx[0]), int(idx[-1])) if state == "contradicted" else windows.get("motion")
    return Measurement(state=state, required=req, measured=measured, window=window, windows=windows,
                       reason=(why_unknown or "net motion along the claimed axis under one radius")
                       if state == "unknown" else "",
                       values={"dx_radii": float(dx), "dy_radii": float(dy), "across_radii": float(across)},
                       cost=Cost(tool_calls=1))

