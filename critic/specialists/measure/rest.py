"""Rest: the subject comes to rest (a stationary run that lasts to the end of the clip) or keeps moving."""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import observed, radius, stationary_runs
from critic.specialists.measure.common import Tolerances
from critic.types import Cost, Measurement, MeasureOp, Track, VideoContext


def rest(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """At rest from some frame to the end of the clip, in view (faster than twice ``tol.rest_speed_radii_per_s``
    at the end, over a radius or more, mostly one way: still moving). Window ``rest``: from coming to rest to the
    end of the clip."""
    req = "comes to rest" if op.expect.holds else "keeps moving"
    ok = observed(track)
    idx = np.flatnonzero(ok)
    if idx.size < 3:
        return unknown("fewer than 3 observed frames", required=req)
    last = int(idx[-1])
    if last < video.num_frames - 2 or track.touches_border[last]:
        return unknown("not in view at the end of the clip", required=req)
    still = [(s, e) for s, e in stationary_runs(track) if e >= last - 1]
    if still:
        s, e = still[-1]
        w = video.window(s, video.num_frames - 1)
        state = "supported"
        return Measurement(state=state, required=req, measured=f"at rest from {track.times_s[s]:.2f} s (frame {s})",
                           window=w, windows={"rest": w}, cost=Cost(tool_calls=1))
    r = radius(track)
    tail = idx[-max(3, int(0.25 * video.fps)):]
    net = float(np.linalg.norm(track.centroid_px[tail[-1]] - track.centroid_px[tail[0]]))
    speed = net / max(track.times_s[tail[-1]] - track.times_s[tail[0]], 1e-6) / r
    path = float(np.linalg.norm(np.diff(track.centroid_px[tail], axis=0), axis=1).sum())
    span = int(tail[-1] - tail[0] + 1)
    w = video.window(int(tail[0]), int(tail[-1]))
    # moving is firm when the body goes somewhere: a radius or more, mostly one way, seen in most of the frames;
    # a centroid that wanders back and forth (a blob joined by the floor's colour, a partly hidden body) is noise
    steady = net >= r and net >= 0.6 * path and len(tail) >= 0.75 * span
    if speed > 2 * tol.rest_speed_radii_per_s:
        if not steady:
            return unknown(f"the end of the track moves {net / r:.1f} radii over a path of {path / r:.1f} radii: "
                           "tracking noise, not motion that shows", required=req)
        state = "contradicted"
        return Measurement(state=state, required=req, measured=f"still moving at {speed:.1f} radii/s at the end",
                           window=w, cost=Cost(tool_calls=1))
    return unknown(f"slow ({speed:.1f} radii/s) but not still at the end", required=req)

