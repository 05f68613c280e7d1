"""Contact and collision response: when the subject touches a surface or another subject, and whether the touch
changes their motion (momentum is exchanged) rather than letting them pass through each other.

Two subjects touch when their centres are within the sum of their radii plus ``tol.contact_gap_radii`` (of the
smaller radius); coasted frames count, since two objects merged into one blob are in contact.
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import floor_contacts, observed, radius, runs, stationary_runs, wall_contacts
from critic.specialists.measure.common import Tolerances, floor_row_of, measurement
from critic.specialists.measure.continuity import still_there
from critic.types import Cost, Measurement, MeasureOp, TimeWindow, Track, VideoContext


def contact(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """Touches ``other`` (or ``op.surface``, the floor by default). Window ``contact``: the first touch (a landing
    is the first touch, not a later bounce, so it has no other occurrences)."""
    dt = video.frame_period_s
    if other is None:
        surface = op.surface or "floor"
        req = f"touches the {surface}" if op.expect.holds else f"does not touch the {surface}"
        contacts = wall_contacts(track) if surface == "wall" else floor_contacts(track)
        floor = floor_row_of(track)
        r = radius(track)
        if not contacts and floor is not None and surface == "floor":
            near = observed(track) & (track.boxes_xyxy[:, 3] >= floor - 0.5 * r)
            if near.any():
                k = int(np.flatnonzero(near)[0])
                w = video.window(k, k)
                if k == int(np.flatnonzero(observed(track))[0]):
                    # on the floor line from the first frame it is seen: it touches the floor, but no coming down
                    # onto it is seen, so no event window says when it landed
                    return _contact_state(op, req, True, None, f"bottom at the floor line from frame {k}, the "
                                          "first it is seen in (when it came down is not seen)", window=w)
                return _contact_state(op, req, True, w, f"bottom at the floor line from frame {k}")
        if contacts:
            c = contacts[0]
            w = video.window_s(*c.span_s(dt))
            return _contact_state(op, req, True, w, f"{c.kind} at {c.time_s:.3f} s (frame {c.frame})")
        seen = observed(track)
        if surface == "wall":
            # the offline tracker locates no wall: a touch it does not see is no evidence of none
            return unknown("no contact with a wall seen, and no wall is located in the clip", required=req)
        if floor is None:
            return unknown("no contact seen, and no floor level is seen in the clip to judge it against", required=req)
        rests = stationary_runs(track)
        if rests:
            # it came to rest somewhere above the floor line: in a perspective view the floor farther away is
            # higher in the image, so where it rests may be the floor, or something on it; no denial either way
            s, e = rests[-1]
            return unknown(f"no landing on the floor line seen, but at rest from frame {s} at "
                           f"{(floor - float(np.nanmax(track.boxes_xyxy[s:e + 1, 3]))) / r:.1f} radii above it "
                           "(a floor farther away, or a support)", required=req)
        if seen[-1] and not track.touches_border[-1] and seen.mean() >= 0.8:
            return _contact_state(op, req, False, None, "never comes down to the floor level seen in the clip",
                                  window=video.window(0, video.num_frames - 1))
        return unknown(f"no contact with the {surface} seen (the subject is lost or leaves the view)", required=req)
    req = "touches the other subject" if op.expect.holds else "does not touch the other subject"
    touch = _contact_frames(track, other, tol.contact_gap_radii)
    if touch.any():
        s, e = runs(touch)[0]
        return _contact_state(op, req, True, video.window(s, e), f"touching over frames {s}-{e}")
    both = np.asarray(track.visible, bool) & np.asarray(other.visible, bool)
    if both.mean() >= 0.5:
        d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
        k = int(np.nanargmin(np.where(both, d, np.nan)))
        return _contact_state(op, req, False, None, f"closest approach {d[k] / radius(track):.1f} radii at "
                              f"frame {k}", window=video.window(0, video.num_frames - 1))
    return unknown("the two subjects are seen together in under half of the clip", required=req)


def _contact_state(op: MeasureOp, req: str, touched: bool, contact_window: TimeWindow | None, measured: str,
                   window: TimeWindow | None = None) -> Measurement:
    """The property's state (touching: supported; ``common.for_expectation`` turns it into the claim's); the
    contact window (when there is one) is both the event window and the state's window, else ``window``."""
    state = "supported" if touched else "contradicted"
    windows = {"contact": contact_window} if contact_window is not None else {}
    return Measurement(state=state, required=req, measured=measured, windows=windows,
                       window=contact_window if contact_window is not None else window, cost=Cost(tool_calls=1))


def collision_response(op: MeasureOp, track: Track, other: Track | None, video: VideoContext,
                       tol: Tolerances) -> Measurement:
    """At the first touch with ``other``, the relative velocity changes by 20 % or more, or reverses; kept through
    an overlap, they passed through each other. With a surface: any contact with it. Window ``contact``."""
    req = "at contact, the velocities change (momentum is exchanged)"
    if other is None:
        contacts = wall_contacts(track) if op.surface == "wall" else floor_contacts(track)
        if not contacts:
            return unknown("no contact with a surface seen", required=req)
        c = contacts[0]
        w = video.window_s(*c.span_s(video.frame_period_s))
        return measurement("supported", req, f"{c.kind} at frame {c.frame}", window=w, windows={"contact": w})
    touch = _contact_frames(track, other, tol.contact_gap_radii)
    d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
    both = np.asarray(track.visible, bool) & np.asarray(other.visible, bool)
    r = radius(track)
    if not touch.any():
        return unknown("the subjects never touch", required=req)
    s, e = runs(touch)[0]
    w = video.window(s, e)
    crossing = _goes_through(track, other, video, s)
    if crossing is not None:
        a, out, before, beyond, moved = crossing
        return measurement("contradicted", req, f"goes through it: from {before:.1f} radii short of it (frame {a}) to "
                           f"{beyond:.1f} radii beyond it along its way, out by frame {out}, while the other stays "
                           f"where it was (moves {moved:.2f} of its radius; the pixels there still show it)",
                           window=video.window(s, max(out, s)), windows={"contact": w})

    def vel(tr, a, b):
        ok = observed(tr)
        ks = [k for k in range(max(a, 0), min(b, len(ok))) if ok[k]]
        if len(ks) < 2:
            return None
        return (tr.centroid_px[ks[-1]] - tr.centroid_px[ks[0]]) / (tr.times_s[ks[-1]] - tr.times_s[ks[0]])

    n = max(3, int(0.2 * video.fps))
    va0, vb0 = vel(track, s - n, s), vel(other, s - n, s)
    va1, vb1 = vel(track, e + 1, e + 1 + n), vel(other, e + 1, e + 1 + n)
    if any(v is None for v in (va0, vb0, va1, vb1)):
        return unknown("too few observed frames around the contact", required=req, window=None)
    rel0, rel1 = va0 - vb0, va1 - vb1
    change = float(np.linalg.norm(rel1 - rel0)) / max(float(np.linalg.norm(rel0)), 1e-6)
    values = {"relative_speed_before_radii_s": float(np.linalg.norm(rel0)) / r,
              "relative_speed_after_radii_s": float(np.linalg.norm(rel1)) / r, "relative_change": change}
    overlap = both & (d < 0.6 * (radius(track) + radius(other)))
    if change < 0.2 and (overlap.any() or np.sign(np.dot(rel0, rel1)) > 0):
        return measurement("contradicted", req, f"relative velocity unchanged through contact ({change:.0%} change): "
                           "they pass through each other", window=w, windows={"contact": w}, **values)
    return measurement("supported", req, f"relative velocity changed by {change:.0%} at contact", window=w,
                       windows={"contact": w}, **values)


def _goes_through(track: Track, other: Track, video: VideoContext, s: int, lead: int = 3, max_moved: float = 0.5,
                  min_speed_radii: float = 0.3) -> tuple[int, int, float, float, float] | None:
    """Does the subject, moving into ``other`` (first touch at frame ``s``), come out on its far side while
    ``other`` never moves? Before the touch, both observed at a frame ``a`` at most ``lead`` frames before ``s``,
    the subject moving (``min_speed_radii`` of its radius per frame or more over the frames up to ``a``) and behind
    ``other`` along its heading; after, at the first frame ``b`` with both observed where the subject's centre is a
    whole subject-plus-other radius beyond ``other``'s along that heading, its centre having come within 0.6 of that
    sum of ``other``'s place on the way. ``other``'s centre stays within ``max_moved`` of its radius of where it was
    at ``a`` over every frame it is observed, and its place at ``b`` still shows it (``still_there``: a body knocked
    away leaves its place empty, so a tracker that swapped the two at the merge does not read as a pass). Momentum is
    exchanged in a collision: a body struck does not stay put while the one that struck it goes on through.
    -> (a, the frame it came out at (its centre a radius sum beyond, interpolated between the frames it is seen),
    radii short of it at a, radii beyond it at b, ``other``'s largest move in its radii) or None."""
    ok, oko = observed(track), observed(other)
    r, ro = radius(track), radius(other)
    both = ok & oko
    a = next((k for k in range(s - 1, max(s - 1 - lead, -1), -1) if both[k]), None)
    if a is None or not (np.isfinite(r) and np.isfinite(ro)):
        return None
    back = [k for k in range(max(a - lead, 0), a) if ok[k]]
    if not back:
        return None
    step = (track.centroid_px[a] - track.centroid_px[back[0]]) / (a - back[0])
    speed = float(np.linalg.norm(step))
    if speed < min_speed_radii * r:
        return None
    heading = step / speed
    ahead = (track.centroid_px - other.centroid_px) @ heading  # (T,) px along the heading, + beyond the other
    reach = r + ro
    if ahead[a] > -0.5 * reach:
        return None
    b = next((k for k in range(s, len(ok)) if both[k] and ahead[k] >= reach), None)
    if b is None:
        return None
    span = [k for k in range(a, b + 1) if oko[k]]
    moved = max(float(np.linalg.norm(other.centroid_px[k] - other.centroid_px[a])) for k in span) / ro
    if moved > max_moved or not still_there(video, other, a, b):
        return None
    # on the way it came over the other's place (where the two blobs merge, the other is often not observed: it
    # stays put, so its place at ``a`` stands for it)
    gap = np.linalg.norm(track.centroid_px[a:b + 1] - other.centroid_px[a], axis=1)
    if not bool(np.any(ok[a:b + 1] & (gap < 0.6 * reach))):
        return None
    # where it came out: the frame its centre reached a whole radius sum beyond, between the last frame it was seen
    # short of that and ``b`` (the merged blob hides it in between)
    k0 = max(k for k in range(a, b) if ok[k] and ahead[k] < reach)
    out = k0 + int(np.ceil((reach - ahead[k0]) / (ahead[b] - ahead[k0]) * (b - k0)))
    return a, out, float(-ahead[a] / r), float(ahead[b] / r), moved


def _contact_frames(a: Track, b: Track, gap_radii: float) -> np.ndarray:
    """(T,) bool: frames where ``a`` and ``b`` are both in view (observed or coasted) and the gap between them is at
    most ``gap_radii`` of the smaller radius."""
    ra, rb = radius(a), radius(b)
    # coasted frames count: two objects merged into one blob are in contact
    both = (np.asarray(a.visible, bool) | np.asarray(a.coasted, bool)) & (np.asarray(b.visible, bool)
                                                                          | np.asarray(b.coasted, bool))
    d = np.linalg.norm(a.centroid_px - b.centroid_px, axis=1)
    with np.errstate(invalid="ignore"):
        gap = (d - (ra + rb)) / min(ra, rb)
    return both & (gap <= gap_radii)
