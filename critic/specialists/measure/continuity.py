"""Continuity and permanence: a body moves without jumps and does not vanish in open view.

A jump or a disappearance in the track is only held against the clip when the pixels agree: the same blob on both
sides of a jump with its old place emptied (else the tracker switched blobs), and an empty, changed place where a
subject was last seen (else it is occluded, or stopped and was absorbed by the median background).

A track that ends or starts is the tracker's view, not the clip's: the subject's own colour (CIELAB) still found
next to where it was, or would have been, says the tracker lost it (a ball on a floor of nearly its colour, a
small body merged with a neighbour), and a vanishing or an appearance is held against the clip only where that
colour is absent. Where the place itself has the subject's colour, nothing can be told, and nothing is claimed.

Frames cut out of the clip move a slow body by less than the tracker's jitter; the whole picture's optical flow shows
the step they were cut from (``timeline.missing_frames``), and a subject moving there did not move continuously.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence

import cv2
import numpy as np

from critic.specialists import colour as colours
from critic.specialists.base import unknown
from critic.specialists.colour import norm_last_axis, rgb_to_lab
from critic.specialists.kinematics import areas_alike, frame_radii, observed, radius, runs, stationary_runs
from critic.specialists.measure.common import Tolerances, measurement
from critic.specialists.measure.timeline import MIN_MOVE_GRID_PX, MissingFrames, unexplained_cuts
from critic.specialists.tracking import MIN_AREA_FRAC, channel_max_diff
from critic.types import Measurement, MeasureOp, SubjectSpec, Track, VideoContext

#: radii/s^2: everyday bodies fall at 50-300 radii/s^2 (g over their radius); a body's velocity gains no more downward
#: in flight
FALL_MAX_RADII = 400.0
#: radii/s^2: friction brakes a body by at most about g (9.81 m/s^2), 300 radii/s^2 for one 3 cm in radius and less for
#: larger ones; a stop within a frame interval from v takes v times the frame rate or more
FRICTION_DECEL_RADII = 300.0


def continuity(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """No jump larger than ``tol.teleport_radii`` against the neighbouring frame-to-frame displacements and against
    the motion before it carried on (``_carried_on``, ``_off_course``; across a short gap, against the
    constant-velocity prediction, its height free within what gravity and a bounce allow over the gap's time),
    unless the frame times explain it; no stop in one frame and start again at the
    same velocity (frozen or held frames); no stop dead from a steady velocity with nothing to stop it
    (``_dead_stops``); no frames cut out of the picture's motion where the subject moves (``timeline.missing_frames``,
    ``_moves_across``)."""
    req = f"continuous motion: no jump > {tol.teleport_radii:g} radii against the neighbouring velocities"
    r = radius(track)
    c = track.centroid_px
    ok = observed(track)

    def moved_whole(a: int, b: int) -> bool:
        """Frames ``a`` and ``b`` show the same body (its look), and neither place still holds it after: the body
        itself went from one place to the other, not the tracker from one blob to another."""
        return (_same_look(video, track, a, b) and not still_there(video, track, a, b)
                and not still_there(video, track, b, a))

    jumps = []
    for s, e in runs(ok):
        if e - s < 2:
            continue
        v = np.diff(c[s:e + 1], axis=0)  # v[i] = c[s+i+1] - c[s+i]
        for i in range(len(v)):
            nb = [v[j] for j in (i - 1, i + 1) if 0 <= j < len(v)]
            if not nb:
                continue
            found_after_loss = i == 0 and _lost_in_view(track, ok, s - 1, video)
            lost_after = i == len(v) - 1 and _lost_in_view(track, ok, e + 1, video)
            if found_after_loss or lost_after:
                # a step next to a frame where the tracker lost the body in view has one neighbour, and its blob
                # is often a piece of a merge or a split: a body that turns there (a bounce, a fast fall found
                # again as it lands) differs from that one step as much as a jump does. The jump across the loss
                # is judged against the constant-velocity prediction below. (The clip's own first and last steps,
                # and a step out of the picture, are judged: nothing was lost there.) The last step before the
                # body is lost is judged all the same when it goes sideways farther than its motion before could
                # take it (``_jump_beside_a_loss``).
                size = _jump_beside_a_loss(track, s + i, v[i], nb[0], r, tol.teleport_radii) if lost_after else None
                if size is not None and moved_whole(s + i, s + i + 1):
                    jumps.append((s + i, s + i + 1, size))
                continue
            ref = np.mean(nb, axis=0)
            # a step the motion before it explains (carried on, at its acceleration, or turned up by a bounce inside
            # the step: a landing right after the fastest step of a fall, a bounce at the clip's last step) is the
            # body's own motion, however unlike the step after it is
            predicted = _carried_on(v, i, tol.teleport_radii * r)
            spike = min([float(np.linalg.norm(v[i] - ref))] + [_off_course(v[i], p) for p in predicted]) / r
            change = float(np.linalg.norm(nb[-1] - nb[0])) / r if len(nb) == 2 else 0.0
            if spike > tol.teleport_radii and spike > 1.2 * change and moved_whole(s + i, s + i + 1):
                jumps.append((s + i, s + i + 1, spike))
    # jumps across short gaps (an identity stitched from two tracklets)
    rr = runs(ok)
    for (s0, e0), (s1, e1) in zip(rr, rr[1:]):
        gap = s1 - e0
        if gap > 4 or e0 - s0 < 1:
            continue
        # against the velocity carried on over the gap; a falling body may bounce inside it, and its height then
        # ends anywhere within its vertical speed times the gap of where it was (``_off_course``); and over the gap's
        # time gravity bends a flight down by up to half the most an everyday body falls at (``FALL_MAX_RADII``)
        # times its square, and a bounce inside it sends the body back up as far: a body that rises, turns over and
        # comes down again unseen is off its course in height only (a thrown ball at 10 fps, lost for four frames)
        dt = float(track.times_s[s1] - track.times_s[e0])
        miss = _off_course(c[s1] - c[e0], (c[e0] - c[e0 - 1]) * gap, 0.5 * FALL_MAX_RADII * r * dt * dt) / r
        if miss > tol.teleport_radii + 1.0 * gap and moved_whole(e0, s1):
            jumps.append((e0, s1, miss))
    jumps = _beyond_fragments(jumps, track, r, tol.teleport_radii)
    # a jump across a longer frame interval (a dropped or variable-rate frame) is explained by the time gap
    t = track.times_s
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    skipped = [j for j in jumps if dt > 0 and (t[j[1]] - t[j[0]]) > 1.5 * dt * (j[1] - j[0])]
    jumps = [j for j in jumps if j not in skipped]
    freezes = [] if video.sanity.likely_slow_motion else _freezes(track, r) + _held_frames(track, video, r)
    # the step into a frozen run or out of it is the body's own motion, measured against the run's standing still:
    # it is no jump, but the freeze's edge (the freeze says what happened there)
    edges = {(f[0] - 1, f[0]) for f in freezes} | {(f[1], f[1] + 1) for f in freezes}
    jumps = [j for j in jumps if (j[0], j[1]) not in edges]
    if freezes and not jumps:
        s, e, v0, v1 = freezes[0]
        return measurement("contradicted", req, f"stops dead for {t[e] - t[s]:.2f} s (frames {s}-{e}) between "
                           f"{v0:.1f} and {v1:.1f} radii/s the same way, with no braking and no push",
                           window=video.window(s, e), freezes=[list(f[:2]) for f in freezes])
    if jumps:
        a, b, size = max(jumps, key=lambda j: j[2])
        return measurement("contradicted", req, f"jump of {size:.1f} radii between frames {a} and {b}",
                           window=video.window(a, b), jumps=jumps)
    # frames cut out of the clip: the whole moving picture jumps ahead over one step, this subject with it (a jump
    # under a radius for a slow body, within the tracker's jitter; the picture's flow shows it)
    cuts = [m for m in unexplained_cuts(video) if _moves_across(track, m, ok)]
    if cuts:
        m = max(cuts, key=lambda m: m.ratio)
        return measurement("contradicted", req, m.describe(", this subject in it,"),
                           window=video.window(m.frame, m.frame + 1), missing_frames=[c.record() for c in cuts])
    stops = [] if video.sanity.likely_slow_motion else _dead_stops(track, video, r)
    if stops:
        s, e, v0 = stops[0]
        return measurement("contradicted", req, f"stops dead at frame {s} from a steady {v0:.1f} radii/s, with no "
                           "braking, nothing moving near it and nothing new ahead of it, and stays still for "
                           f"{t[e] - t[s]:.2f} s",
                           window=video.window(s - 1, e), stops=[list(x[:2]) for x in stops])
    restarts = [] if video.sanity.likely_slow_motion else _restarts(track, video, r)
    if restarts:
        s, e, b, away = restarts[0]
        return measurement("contradicted", req, f"comes to rest at frame {s} and moves off again at frame {e + 1}, "
                           f"{away:.1f} radii by frame {b}, after {t[e] - t[s]:.2f} s still, with nothing moving near "
                           "it: a body at rest stays at rest unless something acts on it",
                           window=video.window(s, e + 1), restarts=[list(x[:3]) for x in restarts])
    if ok.sum() < 3:
        return unknown("fewer than 3 observed frames", required=req)
    if skipped:
        return unknown(f"{len(skipped)} jump(s) across a long frame interval (variable frame rate): not judged",
                       required=req, skipped=skipped)
    return measurement("supported", req, "no jump beyond the neighbouring velocities", radius_px=r)


def _jump_beside_a_loss(track: Track, k: int, step: np.ndarray, before: np.ndarray, r: float,
                        teleport_radii: float, max_area_ratio: float = 1.5) -> float | None:
    """The step from frame ``k`` to ``k + 1`` (``step`` px, (dx, dy)), the last before the tracker loses the body
    in view, after the step ``before`` it: a jump (its length in radii ``r``) when it goes sideways ``teleport_radii``
    farther than twice the sideways step before (gravity changes only the vertical speed, and a turn - a bounce off a
    wall - reverses or bends the motion at no more than its speed; a merge or a split shifts the centre by a radius or
    two) and the blob at both ends is the whole body at its usual size (areas within x``max_area_ratio`` of each other
    and of the track's median: no piece, no merge); else None."""
    if abs(float(step[0])) / r <= teleport_radii + 2.0 * abs(float(before[0])) / r:
        return None
    length = float(np.linalg.norm(step)) / r
    area = np.asarray(track.area_px, float)
    usual = float(np.median(area[observed(track)]))
    ends = area[[k, k + 1]]
    if usual <= 0 or ends.min() <= 0 or max(ends.max() / ends.min(), ends.max() / usual,
                                             usual / ends.min()) > max_area_ratio:
        return None
    return length


def _beyond_fragments(jumps: list[tuple[int, int, float]], track: Track, r: float, teleport_radii: float,
                      fragment_share: float = 0.5, full_quantile: float = 90.0) -> list[tuple[int, int, float]]:
    """The jumps (first, last frame, size in radii ``r``) that stay jumps when a blob at either end is a fragment of the
    body: under ``fragment_share`` of the body's full size in radius (the ``full_quantile`` percentile of its
    per-frame radius, ``kinematics.frame_radii``, over the observed frames). A body that rests for much of the clip
    is held by the median background, and near that place the tracker sees only the part of it that differs, whose
    centre may lie anywhere in the body's outline: between two such pieces the jump is measured in the full radius,
    and must still exceed ``teleport_radii`` (plus one radius per frame across a gap, as any jump across a gap must)."""
    if not jumps:
        return jumps
    per_frame = frame_radii(track)
    seen = per_frame[observed(track) & np.isfinite(per_frame)]
    if seen.size < 3:
        return jumps
    full = float(np.percentile(seen, full_quantile))
    if full <= r:
        return jumps
    kept = []
    for a, b, size in jumps:
        fragment = min(float(per_frame[a]), float(per_frame[b])) < fragment_share * full
        if not fragment or size * r / full > teleport_radii + (b - a if b - a > 1 else 0):
            kept.append((a, b, size))
    return kept


def _lost_in_view(track: Track, ok: np.ndarray, k: int, video: VideoContext) -> bool:
    """Did the tracker lose the body at frame ``k`` while it was in the picture: a frame of the clip where it is not
    observed (``ok`` (T,), :func:`observed` of the track), with its (predicted) centre inside the frame or not
    known? A body whose predicted centre is outside the frame left the picture (or has yet to come in): nothing
    was lost."""
    if not 0 <= k < len(ok) or ok[k]:
        return False
    x, y = track.centroid_px[k]
    h, w = video.frames.shape[1:3]
    return not (np.isfinite(x) and np.isfinite(y)) or (0.0 <= x < w and 0.0 <= y < h)


def _carried_on(v: np.ndarray, i: int, max_change_px: float) -> list[np.ndarray]:
    """The steps the motion before step ``i`` predicts for it, from two steps before it that differ by at most
    ``max_change_px`` (steady enough to predict from: a step out of a jump predicts nothing): the step before (the
    velocity carried on) and that step plus the change between them (carried on at its acceleration: a fall gains a
    fixed amount per step). ``v`` (n, 2) px per frame step within one observed run, y down."""
    if i < 2 or float(np.linalg.norm(v[i - 1] - v[i - 2])) > max_change_px:
        return []
    return [v[i - 1], 2.0 * v[i - 1] - v[i - 2]]


def _off_course(step: np.ndarray, predicted: np.ndarray, vertical_slack_px: float = 0.0) -> float:
    """px: how far ``step`` (a frame step, or the move across a gap in the track) lands from where ``predicted``
    (the motion before it carried on over as many frames) would put it. Falling (``predicted`` downward), a bounce
    inside the step turns the fall round anywhere within its vertical speed: only the part of the vertical step
    beyond that speed counts (a body that lands between two frames and rises again is seen higher than the fall
    carried on would put it, by up to twice that speed). ``vertical_slack_px``: how far off its course gravity, and a
    bounce, may take a body up or down over the step: only the vertical miss beyond it counts."""
    off_x = float(step[0] - predicted[0])
    off_y = max(0.0, abs(float(step[1])) - float(predicted[1])) if predicted[1] > 0 else float(step[1] - predicted[1])
    return float(np.hypot(off_x, max(0.0, abs(off_y) - vertical_slack_px)))


def _moves_across(track: Track, cut: MissingFrames, ok: np.ndarray, min_pixels: int = 10, span: int = 3) -> bool:
    """Whether ``track`` moves across the step ``cut`` jumps over: seen there (frame ``cut.frame`` or the next; else
    the frame before or after them) with at least ``min_pixels`` of the jumping pixels in or around its box there,
    not still on both sides of the step (``_still_beside``), and not carrying its own motion on across it
    (``_carries_on_across``). The box is padded (a plain body's flow is at its edges and around it), so a body
    standing beside one that moves across the step has jumping pixels around it too: its own standing still, or its
    own steady steps, say the jump is not its."""
    for k in (cut.frame, cut.frame + 1, cut.frame - 1, cut.frame + 2):
        if 0 <= k < len(ok) and ok[k]:
            return (cut.pixels_near_box(np.asarray(track.boxes_xyxy)[k]) >= min_pixels
                    and not _still_beside(track, cut, ok, span) and not _carries_on_across(track, cut, ok))
    return False


def _carries_on_across(track: Track, cut: MissingFrames, ok: np.ndarray, min_step_px: float = 2.0,
                       max_off: float = 0.5) -> bool:
    """Whether the subject's own track steps across ``cut``'s step (frame ``cut.frame`` to the next) as its motion
    around it predicts: the step it was taking before, that step at its acceleration (``_carried_on``), or the
    mean of the steps before and after, at least one of them ``min_step_px`` (video px) long (a step well above a
    tracker's jitter) and missed by under ``max_off`` of its length. Frames cut out of its motion move it k + 1
    times as far as it went the step before, which misses every such prediction by a whole step or more; a body
    that only shares the picture with the jump (Farneback's flow fails on a small body moving farther than its own
    size in a step, and spreads onto the bodies beside one that moves) steps on as before. Read only from frames
    where the blob is the whole body (observed, its area alike that at the step: ``kinematics.areas_alike``), so
    that its centre is the body's, and at least on the frames either side of the step and the one before; else
    False (the flow alone tells)."""
    k = cut.frame
    area = np.asarray(track.area_px, float)

    def whole(f: int) -> bool:
        return 0 <= f < len(ok) and bool(ok[f]) and areas_alike(area[k], area[f])

    if not all(whole(f) for f in (k - 1, k, k + 1)):
        return False
    c = np.asarray(track.centroid_px, float)
    across = c[k + 1] - c[k]
    before = c[k] - c[k - 1]
    predicted = [before]
    if whole(k - 2):
        # at its acceleration only from two steps alike enough to predict from (``_carried_on``)
        steps = np.diff(c[k - 2:k + 1], axis=0)
        predicted = _carried_on(steps, 2, max_off * float(np.linalg.norm(before))) or predicted
    if whole(k + 2):
        predicted.append(0.5 * (before + c[k + 2] - c[k + 1]))
    for p in predicted:
        length = float(np.linalg.norm(p))
        if length >= min_step_px and float(np.linalg.norm(across - p)) < max_off * length:
            return True
    return False


def _still_beside(track: Track, cut: MissingFrames, ok: np.ndarray, span: int) -> bool:
    """Whether the subject's centre stands still over the ``span`` frame steps before ``cut``'s step (frames
    ``cut.frame - span`` to ``cut.frame``) and over those after it (``cut.frame + 1`` on): on each side where it is
    observed at two frames or more, the net move between the first and last of them is under half the flow a
    jumping pixel moves per step (``timeline.MIN_MOVE_GRID_PX``, in video pixels) per frame between them; False when
    neither side is observed at two frames (nothing to tell). Net, not summed: a still body's centre jitters back
    and forth; one that moves (even tipping over, its centre at about half the speed of its far edge) gets on."""
    limit_px = 0.5 * MIN_MOVE_GRID_PX / cut.scale
    c = track.centroid_px
    told = False
    for a, b in ((cut.frame - span, cut.frame), (cut.frame + 1, cut.frame + 1 + span)):
        seen = [k for k in range(max(a, 0), min(b, len(ok) - 1) + 1) if ok[k]]
        if len(seen) < 2:
            continue
        told = True
        if float(np.linalg.norm(c[seen[-1]] - c[seen[0]])) >= limit_px * (seen[-1] - seen[0]):
            return False
    return told


def _freezes(track: Track, r: float) -> list[tuple[int, int, float, float]]:
    """Short stationary runs (under 0.8 s) entered and left at speed the same way: moving at over 4 radii/s and not
    slowing down (steady, or speeding up as a falling body does) over the four frames before the stop (over the
    frames there are, down to one, when the stop comes in the clip's first frames), and over the four frames after
    it again not slowing down, at about the velocity it would have reached had it not stopped (within x1.4, within
    30 degrees of the velocity before carried on at the acceleration before, over the time it moved; or, in flight,
    its sideways velocity carried on and its vertical one bent down by no more than gravity: ``in_flight``). A body
    brakes over several frames and needs a push to move again; one that stops dead and carries on as before has been
    frozen in time (held frames).
    -> (first, last frame, speed before, speed after) radii/s."""
    c = track.centroid_px
    t = track.times_s
    ok = observed(track)

    def vel(a: int, b: int) -> np.ndarray:
        return (c[b] - c[a]) / (t[b] - t[a]) / r

    def same_way(u: np.ndarray, v: np.ndarray, slower: float, faster: float) -> bool:
        """Both over 4 radii/s, within 30 degrees, and ``v`` at least 1/``slower`` and at most ``faster`` times
        as fast as ``u``."""
        nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        return (min(nu, nv) >= 4.0 and nu <= slower * nv and nv <= faster * nu
                and float(np.dot(u, v)) / (nu * nv) >= np.cos(np.radians(30)))

    def alike(u: np.ndarray, v: np.ndarray) -> bool:
        return same_way(u, v, 1.4, 1.4)

    def not_slowing(early: np.ndarray, late: np.ndarray) -> bool:
        # not braking: gravity speeds a falling body up, and what stops dead from there was frozen, not braked
        return same_way(early, late, 1.4, np.inf)

    def in_flight(u: np.ndarray, v: np.ndarray, elapsed_s: float) -> bool:
        """A body in flight bends down under gravity, more than 30 degrees between velocities a few frames apart
        at a low frame rate: from ``u`` to ``v`` (radii/s, y down) ``elapsed_s`` later, its sideways velocity carries
        on (``alike`` on the horizontal components alone) and its vertical velocity gains downward no more than
        gravity gives in that time (``FALL_MAX_RADII``) and loses next to nothing (no push up)."""
        if not alike(np.array([u[0], 0.0]), np.array([v[0], 0.0])):
            return False
        return -0.1 * abs(float(u[0])) <= float(v[1] - u[1]) <= FALL_MAX_RADII * elapsed_s

    out = []
    for s, e in stationary_runs(track):
        lead = min(s, 4)  # a stop in the clip's first frames has fewer frames before it to show the velocity
        if lead < 1 or e + 4 >= len(c) or not (ok[s - lead:s + 1].all() and ok[e:e + 5].all()) \
                or t[e] - t[s] > 0.8:
            continue
        before = vel(s - min(lead, 2), s)
        after, after_late = vel(e, e + 2), vel(e + 2, e + 4)
        # the velocity it would have after the stop, had it carried on as before: with its acceleration over the
        # frames before (read from the steps before the last, when there are four frames), over the time it moves
        # between the middles of the steps before and after the stop (the stop itself takes none)
        expected = before
        if lead >= 4:
            earlier = vel(s - 4, s - 2)
            if not not_slowing(earlier, before):
                continue
            accel = (before - earlier) / (0.5 * (t[s] - t[s - 4]))
            expected = before + accel * (0.5 * (t[s] - t[s - 2]) + 0.5 * (t[e + 2] - t[e]))
        # the time it moves between the middles of the steps compared (the stop itself takes none)
        moving_s = 0.5 * (t[s] - t[s - min(lead, 2)]) + 0.5 * (t[e + 2] - t[e])
        if ((not_slowing(after, after_late) or in_flight(after, after_late, 0.5 * (t[e + 4] - t[e])))
                and (alike(expected, after) or in_flight(expected, after, moving_s))):
            out.append((s, e, float(np.linalg.norm(before)), float(np.linalg.norm(after))))
    return out


def _dead_stops(track: Track, video: VideoContext, r: float, min_speed: float = 4.0, steady: float = 1.35,
                min_still_s: float = 0.5, span: int = 3) -> list[tuple[int, int, float]]:
    """Stops with no cause: the subject moves at a steady velocity (over ``min_speed`` radii/s, the three steps
    before the one into the stop within x``steady`` of each other - fewer in the clip's first frames, and with only
    two steps both of them - the step into the stop no shorter than 0.7 of them, all within 30 degrees) not
    downward, then is still from one frame to the next and stays still for ``min_still_s`` or to the end of the
    clip, while nothing else moves within two radii of it. Friction brakes a body over several frames (a constant
    deceleration that stops it within one frame shows as steps shrinking before it); a stop in one frame at full
    speed takes an impact, and what it hit (a body coming in, or one it sets moving) moves next to it, or shows
    ahead of it where the way had been open (a wall: ``_open_ahead``); a landing stops a body coming down. Where
    single steps do not show one velocity (a body crossing an edge of the floor's pattern is cut short in a frame or
    two, and the box the tracker holds at rest is drawn a little off), two spans of ``span`` steps each into the stop
    do: the same velocity over both, the step into the stop no shorter than 0.7 of it, and fast enough that friction
    could not stop it within a frame (``FRICTION_DECEL_RADII``), is an arrival at full speed.
    -> (first still frame, last still frame, speed before in radii/s)."""
    c, t = track.centroid_px, track.times_s
    ok = observed(track)
    border = np.asarray(track.touches_border, bool)

    def velocities(frames: list[int]) -> np.ndarray:
        """Mean velocity (radii/s) from each of ``frames`` to the next -> (len - 1, 2)."""
        return np.diff(c[frames], axis=0) / np.diff(t[frames])[:, None] / r

    def arrives_steadily(steps: np.ndarray, approach: np.ndarray, last: float) -> bool:
        """``steps`` (n, 2) radii/s into the stop at one speed (``approach`` of them within x``steady``, over
        ``min_speed``; the ``last`` one not braking), within 30 degrees of one heading, not coming down."""
        if approach.min() < min_speed or approach.max() > steady * approach.min():
            return False
        if not 0.7 * approach.mean() <= last <= 2.5 * approach.mean():
            return False
        mean = steps.mean(axis=0)
        cosines = steps @ mean / (np.linalg.norm(steps, axis=1) * float(np.linalg.norm(mean)))
        # turning (not one steady velocity), or coming down onto something (a landing)
        return bool(cosines.min() >= np.cos(np.radians(30)) and mean[1] <= 0.5 * float(np.linalg.norm(mean)))

    out = []
    for s, e in stationary_runs(track):
        lead = min(s, 4)  # a stop in the clip's first frames has fewer steps before it to show the velocity
        if lead < 2 or not ok[s - lead:s + 1].all() or border[s - lead:e + 1].any():
            continue
        if t[e] - t[s] < min_still_s - 1e-9 and e < len(c) - 2:
            continue
        steps = velocities(list(range(s - lead, s + 1)))
        speeds = np.linalg.norm(steps, axis=1)
        # the approach: the steps before the one into the stop (both, with only two); the step into the stop may be
        # longer (the tracker's box of a body that stopped is drawn a little ahead) but not shorter (braking)
        approach = speeds[:-1] if lead >= 3 else speeds
        if arrives_steadily(steps, approach, float(speeds[-1])):
            speed, heading = float(speeds.mean()), steps.mean(axis=0)
        else:
            first = s - 2 * span
            if first < 0 or not ok[first:s + 1].all() or border[first:s + 1].any():
                continue
            spans = velocities([first, s - span, s])
            spans_speed = np.linalg.norm(spans, axis=1)
            # ... and the single step into the stop is no shorter than 0.7 of their speed (braking in that frame),
            # and the speed is one friction cannot take away within a frame (spans smooth out a few frames of
            # braking)
            if (not arrives_steadily(spans, spans_speed, float(speeds[-1]))
                    or spans_speed.min() * video.fps < FRICTION_DECEL_RADII):
                continue
            speed, heading = float(spans_speed.mean()), spans.mean(axis=0)
        if _moves_nearby(video, track, s, r) or not _open_ahead(video, track, s, lead, heading, r):
            continue
        out.append((s, e, speed))
    return out


def _open_ahead(video: VideoContext, track: Track, s: int, lead: int, heading: np.ndarray, r: float,
                max_delta_e: float = 15.0) -> bool:
    """Is the way ahead of the subject where it stops at frame ``s`` open, as it was along its way there? The
    patch just ahead of its box (half a radius across, three quarters of a radius beyond its leading side along
    ``heading``, (2,) image axes) at ``s`` looks like (mean CIELAB within ``max_delta_e``) the patch ahead of it in
    half or more of the ``lead`` frames before: the floor or far wall it rolled toward. A wall, a step or a body it
    stopped against shows there instead, and a stop against something that does not move is no stop without a cause
    (the picture does not tell a wall from an edge of the floor's pattern, so a stop at anything new ahead is not
    judged).
    A patch outside the picture cannot be read: then the way is not known to be open."""
    h, w = video.frames.shape[1:3]
    unit = heading / max(float(np.linalg.norm(heading)), 1e-9)
    half = max(0.5 * r, 1.0)

    def ahead(k: int) -> np.ndarray | None:
        x0, y0, x1, y1 = track.boxes_xyxy[k]
        reach = 0.5 * (abs(unit[0]) * (x1 - x0) + abs(unit[1]) * (y1 - y0)) + 0.75 * r
        cx, cy = track.centroid_px[k] + unit * reach
        ys, xs = slice(int(round(cy - half)), int(round(cy + half)) + 1), slice(int(round(cx - half)),
                                                                           int(round(cx + half)) + 1)
        if ys.start < 0 or xs.start < 0 or ys.stop > h or xs.stop > w:
            return None
        return rgb_to_lab(video.frames[k, ys, xs].reshape(-1, 3).mean(axis=0))

    at_stop = ahead(s)
    if at_stop is None:
        return False
    before = [a for a in (ahead(k) for k in range(s - lead, s)) if a is not None]
    # in half of those frames or more: a body that covers much of its radius in a frame (a low frame rate) has the
    # wall it stops against ahead of it already in the frame before it meets it, and that one frame shows no way open
    alike = sum(float(np.linalg.norm(at_stop - a)) <= max_delta_e for a in before)
    return bool(before) and 2 * alike >= len(before)


def _restarts(track: Track, video: VideoContext, r: float, lead_frames: int = 4, min_arrival_radii: float = 1.0,
              leave_frames: int = 5, min_leave_radii: float = 1.0, max_area_ratio: float = 1.3
              ) -> list[tuple[int, int, int, float]]:
    """Rests a body comes to and leaves again by itself: it arrives moving (``min_arrival_radii`` or more over the
    ``lead_frames`` observed frames before the stationary run), stays still (``kinematics.stationary_runs``), then
    within ``leave_frames`` frames of the run's last one moves off ``min_leave_radii`` or more from where it rested,
    farther at every frame, sideways or up (no more than 30 degrees below the horizontal: gravity itself sets a body
    going down from rest, at the top of a bounce or toppling off an edge it was balanced on), whole (its area within
    x``max_area_ratio`` of its area at rest, its box moved as one - each side as far as the opposite one, within half
    a radius: a body tipping over, or a blob taking in another, moves one side - away from the image's edge), while
    nothing else moves within two radii of it as it sets off (``_moves_nearby``). A body at rest stays at rest unless
    something acts on it: what sets it moving again (a body hitting it, a support tipping or taken away, a hand) moves
    next to it. A rest the clip opens on is not judged (a body held still may be let go).
    -> (first still frame, last still frame, last frame looked at, distance moved off in radii)."""
    c = track.centroid_px
    ok = observed(track)
    border = np.asarray(track.touches_border, bool)
    area = np.asarray(track.area_px, float)
    out = []
    for s, e in stationary_runs(track):
        lead = min(s, lead_frames)
        if lead < 2 or not ok[s - lead:s + 1].all():
            continue
        if float(np.linalg.norm(c[s] - c[s - lead])) < min_arrival_radii * r:
            continue  # not come to rest from a motion: a body the tracker found still, or one that crept there
        b = e + leave_frames
        if b >= len(c) or not ok[e:b + 1].all() or border[s - lead:b + 1].any():
            continue
        away = np.linalg.norm(c[e + 1:b + 1] - c[e], axis=1) / r
        if away[-1] < min_leave_radii or (np.diff(away) <= 0).any():
            continue
        off = c[b] - c[e]
        if off[1] > 0.5 * float(np.linalg.norm(off)):
            continue  # down: gravity acts on a body at rest (an apex, a body toppling off a balance or a perch)
        rest_area = float(np.median(area[s:e + 1]))
        if rest_area <= 0 or not (1 / max_area_ratio <= area[b] / rest_area <= max_area_ratio):
            continue
        shift = track.boxes_xyxy[b] - track.boxes_xyxy[e]  # (x0, y0, x1, y1) px
        if float(np.abs(shift[2:] - shift[:2]).max()) > 0.5 * r:
            continue  # its box does not move as one: a side stays where it was (a body tipping over, a merge)
        if _moves_nearby(video, track, e, r):
            continue
        out.append((s, e, b, float(away[-1])))
    return out


def _moves_nearby(video: VideoContext, track: Track, s: int, r: float, reach_radii: float = 2.0,
                  frames: int = 3, min_share: float = 0.03) -> bool:
    """Does anything besides the subject change in the picture within ``reach_radii`` of the subject's box, from
    ``frames`` before its frame-``s`` stop to ``frames`` after (over ``min_share`` of the pixels around it)? Another
    body that hit it, or that it set moving, does. The subject's own change is left out: from frame k to k + 1 it
    covers the whole stretch between its boxes there and its box at ``s`` (where it stops or sets off), not its boxes
    alone - a body moving more than its size a frame changes the pixels it crossed, and a box cut short (a body
    crossing an edge of the floor's pattern) leaves part of the body out -, grown by half a radius where it stands
    still and by a radius where it moves (its blur and its shadow on the floor travel with it)."""
    h, w = video.frames.shape[1:3]
    x0, y0, x1, y1 = track.boxes_xyxy[s]
    reach = reach_radii * r
    ys = slice(max(int(y0 - reach), 0), min(int(y1 + reach) + 1, h))
    xs = slice(max(int(x0 - reach), 0), min(int(x1 + reach) + 1, w))
    for k in range(max(s - frames, 0), min(s + frames, len(video.frames) - 1)):
        moved = channel_max_diff(video.frames[k + 1, ys, xs], video.frames[k, ys, xs]) > 25
        boxes = track.boxes_xyxy[min(k, s):max(k + 1, s) + 1]
        boxes = boxes[np.isfinite(boxes).all(axis=1)]
        if len(boxes):
            # the stretch the subject swept between frame k or k + 1 and frame s: the box around its boxes there
            bx0, by0 = boxes[:, 0].min(), boxes[:, 1].min()
            bx1, by1 = boxes[:, 2].max(), boxes[:, 3].max()
            grow = r if len(np.unique(boxes, axis=0)) > 1 else 0.5 * r
            moved[max(int(by0 - grow) - ys.start, 0):max(int(by1 + grow) + 1 - ys.start, 0),
                  max(int(bx0 - grow) - xs.start, 0):max(int(bx1 + grow) + 1 - xs.start, 0)] = False
        if moved.mean() > min_share:
            return True
    return False


def still_transitions(video: VideoContext, max_diff: int = 20) -> np.ndarray:
    """(T-1,) bool: no pixel of the picture changes from frame k to k+1 by more than ``max_diff`` of 255 in any
    channel (what lossy coding leaves of one picture coded twice). Rendered frames of a scene where something
    moves never repeat, and a camera's frames never do: a run of them is the same frame shown again. Read from
    :func:`step_max_diffs`, so every threshold shares one pass over the frames."""
    return step_max_diffs(video) <= max_diff


def step_max_diffs(video: VideoContext) -> np.ndarray:
    """(T-1,) int: the largest change of any pixel in any channel from frame k to k+1 (of 255), memoised on
    ``video``."""
    memo = video.__dict__
    if "_step_max_diffs" not in memo:
        f = video.frames
        out = np.array([int(cv2.absdiff(f[k + 1], f[k]).max()) for k in range(len(f) - 1)], np.int64)  # uint8 |a-b|
        out.setflags(write=False)
        memo["_step_max_diffs"] = out
    return memo["_step_max_diffs"]


def _held_frames(track: Track, video: VideoContext, r: float, min_step_radii: float = 0.3, min_slow_radii: float = 0.15,
                 min_step_px: float = 1.0, coded_again_diff: int = 30, min_held_steps: int = 3,
                 still_radii: float = 0.15) -> list[tuple[int, int, float, float]]:
    """Runs of the same picture shown again (``still_transitions``) over which the subject, moving before and after,
    carries on the same way (within x2 of its speed and 45 degrees): the clip, not the body, stopped. Read two ways:

    * the picture repeated as it was coded (within ``still_transitions``' own 20 levels), the step just before and
      the step just after each of ``min_step_radii`` or more;
    * a picture coded again at each repeat (a real clip's frames then differ by up to about 22 levels where a body
      moving a pixel changes them by a hundred, so within ``coded_again_diff``), held ``min_held_steps`` frame steps
      or more (a source at half the container's rate repeats each picture once or twice), the subject still over
      them (every step under ``still_radii``: a faint body can move through pictures that barely change), read from
      the mean of two or three steps on each side (``min_slow_radii`` and ``min_step_px`` per frame or more, every
      step within 45 degrees of the mean): a slowly rolling ball's fifth of a radius a frame, beyond the tracker's
      jitter over several steps though not over one.

    -> (first, last frame, speed before, speed after) radii/s, in frame order."""
    c, t = track.centroid_px, track.times_s
    ok = observed(track)
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0

    def mean_step(a: int, b: int, least: float) -> np.ndarray | None:
        """The mean step (radii per frame) over frames ``a..b``, all observed, of ``least`` radii or more, each step
        within 45 degrees of it."""
        if a < 0 or b >= len(c) or not ok[a:b + 1].all():
            return None
        each = np.diff(c[a:b + 1], axis=0) / r
        mean = each.mean(axis=0)
        n = float(np.linalg.norm(mean))
        lengths = np.linalg.norm(each, axis=1)
        if n < least or (lengths <= 0).any() or ((each @ mean) / (lengths * n) < np.cos(np.radians(45))).any():
            return None
        return mean

    def carries_on(u: np.ndarray | None, v: np.ndarray | None) -> tuple[float, float] | None:
        """The speeds before and after (radii/s) when the two steps go the same way, else None."""
        if u is None or v is None:
            return None
        nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
        if max(nu, nv) > 2.0 * min(nu, nv) or float(np.dot(u, v)) / (nu * nv) < np.cos(np.radians(45)):
            return None
        return nu / dt, nv / dt

    found: dict[tuple[int, int], tuple[float, float]] = {}
    for s, e in runs(still_transitions(video)):
        first, last = s, e + 1  # frames first..last show one picture
        speeds = carries_on(mean_step(first - 1, first, min_step_radii), mean_step(last, last + 1, min_step_radii))
        if speeds is not None:
            found[(first, last)] = speeds
    slow = max(min_slow_radii, min_step_px / r)
    for s, e in runs(still_transitions(video, coded_again_diff)):
        first, last = s, e + 1
        if last - first < min_held_steps or (first, last) in found or not ok[first:last + 1].all() \
                or (np.linalg.norm(np.diff(c[first:last + 1], axis=0), axis=1) / r >= still_radii).any():
            continue
        for k in (2, 3):  # as many steps on each side, the fewest that show motion
            u, v = mean_step(first - k, first, slow), mean_step(last, last + k, slow)
            if u is not None and v is not None:
                speeds = carries_on(u, v)
                if speeds is not None:
                    found[(first, last)] = speeds
                break
    return [(first, last, *speeds) for (first, last), speeds in sorted(found.items())]


def permanence(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """Seen until it leaves the frame, is occluded (by ``other`` or anything in front of its place) or the clip
    ends: a gap or an early end of the track, at full size away from the border (not shrinking against its median
    area, nor against what it showed in the frames just before: a body that peeks out in part afterwards drags the
    median down), with its place emptied, is a vanishing. A gap across which the track shows unlike colours
    (``_unlike_across``) joins two bodies, and says nothing of either (unknown, when no other gap is a
    vanishing)."""
    req = "persists: no vanishing without an occluder or leaving the frame"
    if not np.asarray(track.visible, bool).any():
        return unknown("never seen", required=req)
    specks = _specks(track)
    if specks.any():
        # the track follows the body itself only until it drops to a speck: measure the body's frames
        track = dataclasses.replace(track, visible=track.visible & ~specks, coasted=track.coasted & ~specks,
                                    area_px=np.where(specks, 0.0, track.area_px),
                                    boxes_xyxy=np.where(specks[:, None], np.nan, track.boxes_xyxy),
                                    centroid_px=np.where(specks[:, None], np.nan, track.centroid_px))
    ok = np.asarray(track.visible, bool)
    idx = np.flatnonzero(ok)
    r = radius(track)
    t_count = video.num_frames
    h, w = video.frames.shape[1:3]
    med_area = float(np.median(track.area_px[ok]))
    events, unlike = [], []
    # gaps inside the track and the end of the track
    ends = [(int(e), int(s)) for e, s in zip(idx[:-1], idx[1:]) if s - e > max(3, int(0.2 * video.fps))]
    if idx[-1] < t_count - 1 - max(2, int(0.1 * video.fps)):
        ends.append((int(idx[-1]), t_count))
    for last, back in ends:
        if track.touches_border[max(last - 1, 0):last + 1].any():
            continue  # left the frame
        vel = track.centroid_px[last] - track.centroid_px[last - 1] if last > 0 and ok[last - 1] else np.zeros(2)
        nxt = track.centroid_px[last] + vel
        if not (r <= nxt[0] <= w - 1 - r and r <= nxt[1] <= h - 1 - r):
            continue  # about to leave the frame
        # a frame cut by the border shows part of the body (it came in there): that is no shrinking
        near_end = np.arange(max(last - 2, 0), last + 1)
        recent = track.area_px[near_end[ok[near_end] & ~np.asarray(track.touches_border, bool)[near_end]]]
        if np.any(recent[recent > 0] < 0.7 * max(med_area, _area_before(track, near_end[0]))):
            continue  # shrinking as it goes (against its usual size, or what it showed just before): occluded
        if other is not None and _near(other, track, last, r):
            continue
        if _patch_occupied(video, track, last):
            continue  # something else covers where it was: an occluder
        if _patch_unchanged(video, track, last):
            continue  # its place looks as it did: it stopped there and the tracker lost it, it did not vanish
        if _colour_near(video, track, last, range(last + 1, min(back, last + 4, t_count)), vel):
            continue  # its colour is still there, next to where it was going: the tracker lost it
        if back < t_count and _back_on_its_path(track, last, back, r):
            continue  # it comes back where its motion would have taken it: it passed behind something
        if back < t_count and _unlike_across(video, track, last, back):
            unlike.append((last, back))  # the track joins two bodies here: which one vanished is not known
            continue
        events.append((last, min(back, t_count - 1)))
    if not events and unlike:
        a, b = unlike[0]
        return unknown(f"lost in open view after frame {a} and found again at frame {b}, but the body found again "
                       f"does not look like the one lost (its colour over {UNLIKE_DELTA_E:g} delta E apart): the track "
                       "may join two bodies", required=req)
    if events:
        a, b = events[0]
        what = "vanishes" if b >= t_count - 1 else f"vanishes and reappears at frame {b}"
        return measurement("contradicted", req,
                           f"{what} in open view after frame {a} (full size, away from the border)",
                           window=video.window(a, b), events=events)
    return measurement("supported", req, "seen until it leaves the frame, is occluded or the clip ends")


def _area_before(track: Track, k: int, frames: int = 3) -> float:
    """The median area (px) of ``track`` over the up to ``frames`` observed frames before frame ``k`` (0 when none)."""
    seen = np.flatnonzero(observed(track)[:k])[-frames:]
    return float(np.median(track.area_px[seen])) if len(seen) else 0.0


#: how far (CIELAB delta E) a body's colour on either side of a gap in its track may be apart and be one body's: a
#: body keeps its colour while it is lost (lighting changes it a little); two blobs joined need not share it
UNLIKE_DELTA_E = 25.0


def _unlike_across(video: VideoContext, track: Track, last: int, back: int,
                   max_delta_e: float = UNLIKE_DELTA_E) -> bool:
    """Does the subject seen at frame ``back``, after a gap in its track, look unlike itself at frame ``last``, before
    the gap (:func:`subject_lab`, CIELAB over ``max_delta_e`` apart)? One body lost and found keeps its colour; a
    track the tracker joined from two blobs (a ghost where a body rests later, then the body) need not."""
    before, after = subject_lab(video, track, last), subject_lab(video, track, back)
    return before is not None and after is not None and float(np.linalg.norm(before - after)) > max_delta_e


def _specks(track: Track, speck_share: float = 0.2, step_share: float = 0.35) -> np.ndarray:
    """(T,) bool: the frames where ``track`` follows a speck instead of its body: from a frame where its blob falls
    in one step to under ``step_share`` of the frame before and under ``speck_share`` of its usual area (the 75th
    percentile over the frames it is seen), to the frame where it is that large again. A body that vanishes in open
    view leaves the tracker a speck of its colour nearby (a highlight, a pixel of the floor) to follow, at once or
    after coasting a few frames on the body's motion (the step is then from the last frame that showed the body); a
    body going away or behind something shrinks over several frames, and a blob that splits from a merge keeps
    half."""
    vis = np.asarray(track.visible, bool)
    area = np.asarray(track.area_px, float)
    usual = float(np.percentile(area[vis], 75))
    small = vis & (area < speck_share * usual)
    out = np.zeros(len(area), bool)
    seen = np.flatnonzero(vis)
    i = 1
    while i < len(seen):
        k, prev = seen[i], seen[i - 1]
        if small[k] and not small[prev] and area[k] < step_share * area[prev]:
            e = k
            while e < len(area) and (small[e] or not vis[e]):
                e += 1
            out[k:e] = True
            i = int(np.searchsorted(seen, e))
        i += 1
    return out & vis


# ---------------------------------------------------------------------------------------------- across instances


def _first_seen(track: Track) -> int | None:
    idx = np.flatnonzero(observed(track))
    return int(idx[0]) if idx.size else None


def _last_seen(track: Track) -> int | None:
    idx = np.flatnonzero(observed(track))
    return int(idx[-1]) if idx.size else None


def appearances(tracks: Sequence[Track], video: VideoContext, tol: Tolerances, singular: bool) -> Measurement | None:
    """An instance of the subject that appears from nothing: first seen after the clip's first frames, at full
    size, away from the border and not coming in from it, where the frames before showed the usual background
    (nothing it could have come out from behind) and not the object already (a resting object the median
    background absorbed until it moved). For a singular subject, also a track cut in two (``split_jumps``) and a
    second body of its colour and size that the tracker never found (``another_appears``). None when every
    instance is accounted for."""
    req = "persists: nothing appears from nowhere, nothing vanishes without an occluder or leaving the frame"
    h, w = video.frames.shape[1:3]
    lead = max(2, int(round(0.1 * video.fps)))
    for tr in sorted(tracks, key=lambda t: _first_seen(t) if _first_seen(t) is not None else 10 ** 9):
        f0 = _first_seen(tr)
        if f0 is None or f0 < lead:
            continue
        seen = observed(tr)
        # an object that has appeared stays: seen in most frames from then on, for a while (not a flicker)
        if seen.sum() < max(5, int(round(0.3 * video.fps))) or seen[f0:_last_seen(tr) + 1].mean() < 0.6:
            continue
        r = radius(tr)
        if tr.touches_border[f0:f0 + 2].any():
            continue  # comes in from the edge
        ok = observed(tr)
        vel = tr.centroid_px[f0 + 1] - tr.centroid_px[f0] if f0 + 1 < len(ok) and ok[f0 + 1] else np.zeros(2)
        prev = tr.centroid_px[f0] - vel
        if not (r <= prev[0] <= w - 1 - r and r <= prev[1] <= h - 1 - r):
            continue  # about to have come in from the edge
        if tr.area_px[f0] < 0.7 * float(np.median(tr.area_px[seen])):
            continue  # growing into view: emerging from behind something
        if any(o is not tr and _merged_before(o, tr, f0, r) for o in tracks):
            continue  # split off another blob of the subject (a merge coming apart)
        if not _was_empty_before(video, tr, f0):
            continue
        if _colour_near(video, tr, f0, range(max(f0 - 3, 0), f0), -vel):
            continue  # its colour was already there, next to where it is first tracked: found late, not new
        return measurement("contradicted", req, f"'{tr.subject}' instance appears at frame {f0} in open view "
                           "(full size, away from the border, nothing there before)",
                           # from the frame that shows its place empty, as a vanishing's window starts at the
                           # last frame that shows it there
                           window=video.window(f0 - 1, _last_seen(tr)), appears_at=f0, identity=int(tr.identity))
    if singular:
        found = split_jumps(tracks, video, tol, True, req_for="permanence")
        if found is None and len(tracks) == 1:
            found = another_appears(tracks[0], video, req)
        return found
    return None


def _change_is_one_body(video: VideoContext, k: int, centre: np.ndarray, r: float, reach_radii: float = 5.0,
                        body_radii: float = 1.5, min_share: float = 0.6, min_diff: int = 30) -> bool:
    """Whether what changed from frame ``k - 1`` to ``k`` (channel-max difference over ``min_diff``) within
    ``reach_radii`` radii of ``centre`` (x, y px) lies mostly (``min_share``) within ``body_radii`` radii of it:
    one body appeared there, not a row of letters or a change of the whole picture."""
    rows, cols = _around(video, centre, reach_radii * r)
    changed = cv2.absdiff(video.frames[k, rows, cols], video.frames[k - 1, rows, cols]).max(axis=-1) > min_diff
    ys, xs = np.nonzero(changed)
    if not len(ys):
        return False
    near = (xs + cols.start - centre[0]) ** 2 + (ys + rows.start - centre[1]) ** 2 <= (body_radii * r) ** 2
    return float(near.mean()) >= min_share


def _around(video: VideoContext, centre: np.ndarray, half_px: float) -> tuple[slice, slice]:
    """The rows and columns of the frame within ``half_px`` of ``centre`` (x, y px) on each side, clipped to it."""
    h, w = video.frames.shape[1:3]
    return (slice(int(max(centre[1] - half_px, 0)), int(min(centre[1] + half_px + 1, h))),
            slice(int(max(centre[0] - half_px, 0)), int(min(centre[0] + half_px + 1, w))))


def _grid_lab(video: VideoContext, max_side: int = 160) -> tuple[np.ndarray, int]:
    """Every frame in CIELAB on every n-th pixel (n: the long side over ``max_side``, rounded up): (T, h, w, 3)
    float32, and n; memoised on ``video``."""
    memo = video.__dict__.setdefault("_grid_lab", {})
    if max_side not in memo:
        f = video.frames
        n = max(1, int(np.ceil(max(f.shape[1], f.shape[2]) / max_side)))
        lab = rgb_to_lab(f[:, ::n, ::n], dtype=np.float32)
        lab.setflags(write=False)
        memo[max_side] = (lab, n)
    return memo[max_side]


def another_appears(track: Track, video: VideoContext, req: str, max_delta_e: float = 15.0,
                    min_area: float = 0.5, max_area: float = 2.0, clear_radii: float = 2.5
                    ) -> Measurement | None:
    """A second body of a singular subject's colour and size that appears from nothing: a compact blob of its colour
    (CIELAB within ``max_delta_e``) of ``min_area`` to ``max_area`` times its colour area, away from the frame's
    border and more than ``clear_radii`` radii from the subject, first seen after the clip's first frames and
    then in every frame for a while, where the frames before showed nothing of that colour within ``clear_radii``
    radii and one unchanging picture (nothing moved in: a body rolling or emerging into view changes the place
    first), and what changed as it appeared is that one body (``_change_is_one_body``: not a caption's letters).
    The tracker misses such a body when it stays still for half the clip or more (the median background takes it
    in), so it is looked for by its colour. None when there is none."""
    ok = observed(track)
    if ok.sum() < 3:
        return None
    r = radius(track)
    area = np.asarray(track.area_px, float)
    usual = float(np.median(area[ok]))
    k_ref = int(np.flatnonzero(ok)[np.argmin(np.abs(area[ok] - usual))])
    lab = subject_lab(video, track, k_ref)
    if lab is None or not np.isfinite(r) or r <= 0:
        return None
    grid, n = _grid_lab(video)
    t_count, gh, gw = grid.shape[:3]
    fits = norm_last_axis(grid - lab.astype(np.float32)) <= max_delta_e  # (T, h, w)
    yy, xx = np.mgrid[0:gh, 0:gw] * n

    def colour_near(k: int, c: np.ndarray, reach: float) -> int:
        """Grid pixels of frame ``k`` of the subject's colour within ``reach`` px of ``c`` (x, y px)."""
        return int((fits[k] & ((xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= reach ** 2)).sum())

    # the size of the subject's own colour area (a shaded body shows its colour on part of its blob)
    own = colour_near(k_ref, track.centroid_px[k_ref], 1.5 * r)
    if own < 4:
        return None
    lo, hi = min_area * own, max_area * own
    seen = np.flatnonzero(ok)
    lead = max(2, int(round(0.1 * video.fps)))
    stay = max(5, int(round(0.3 * video.fps)))

    def subject_at(k: int) -> np.ndarray:
        """The subject's centre (x, y px) in the observed frame nearest ``k``."""
        return track.centroid_px[seen[np.argmin(np.abs(seen - k))]]

    @functools.cache
    def blobs(k: int) -> list[np.ndarray]:
        """Centres (x, y video px) of frame ``k``'s blobs of the colour, of the size, clear of the subject."""
        count, _, stats, cents = cv2.connectedComponentsWithStats(fits[k].astype(np.uint8), connectivity=8)
        out = []
        for i in range(1, count):
            x, y, w, h, a = stats[i]
            if not max(lo, 4) <= a <= hi or x == 0 or y == 0 or x + w >= gw or y + h >= gh:
                continue
            if max(w, h) > 2.5 * min(w, h) or a < 0.35 * w * h:
                continue  # not one compact body: strokes of a caption's letters, a rim, a streak
            c = cents[i] * n
            if np.linalg.norm(c - subject_at(k)) > clear_radii * r:
                out.append(c)
        return out

    for k in range(lead, t_count - stay + 1):
        for c in blobs(k):
            before = range(max(k - 3, 0), k)
            if any(colour_near(j, c, clear_radii * r) > 0.2 * own for j in before):
                continue  # its colour was there: found late, or it came in
            # it stays: a blob of the colour near where it was, frame after frame
            chain, place = [k], c
            for j in range(k + 1, t_count):
                nxt = [b for b in blobs(j) if np.linalg.norm(b - place) <= 1.5 * r]
                if not nxt:
                    break
                place = min(nxt, key=lambda b: float(np.linalg.norm(b - place)))
                chain.append(j)
            if len(chain) < stay:
                continue
            rows, cols = _around(video, c, 2 * r)
            patch = video.frames[max(k - 3, 0):k + 1, rows, cols].astype(np.float32)
            if len(patch) < 3 or float(np.abs(np.diff(patch[:-1], axis=0)).max(axis=-1).mean()) > 8.0:
                continue  # the place was changing before: something moved in
            if not _change_is_one_body(video, k, c, r):
                continue  # more changed with it than one body: a caption's letters, a scene cut, a lighting change
            away = float(np.linalg.norm(c - subject_at(k))) / r
            # the window starts at the frame that shows the place empty, as for an instance that appears
            return measurement("contradicted", req, f"another body of the colour and size of '{track.subject}' "
                               f"appears at frame {k} in open view, {away:.1f} radii from it, where nothing of its "
                               "colour was and nothing moved in", window=video.window(k - 1, chain[-1]),
                               appears_at=k, at_px=[round(float(c[0]), 1), round(float(c[1]), 1)])
    return None


def split_jumps(tracks: Sequence[Track], video: VideoContext, tol: Tolerances, singular: bool,
                req_for: str = "continuity") -> Measurement | None:
    """A singular subject whose track is cut in two: one instance ends away from the border just as another
    starts, far from where the first was heading, looking the same (area and colour), with the old place emptied
    and the new one empty before - a teleport the tracker could not follow as one identity. None when there is
    none."""
    if not singular or len(tracks) < 2:
        return None
    req = (f"continuous motion: no jump > {tol.teleport_radii:g} radii against the neighbouring velocities"
           if req_for == "continuity" else "persists: no vanishing in one place and reappearing in another")
    for a in tracks:
        last = _last_seen(a)
        if last is None or last < 1 or a.touches_border[last]:
            continue
        r = radius(a)
        for b in tracks:
            first = _first_seen(b)
            if b is a or first is None or not (0 < first - last <= 4) or b.touches_border[first]:
                continue
            ok = observed(a)
            vel = a.centroid_px[last] - a.centroid_px[last - 1] if ok[last - 1] else np.zeros(2)
            miss = float(np.linalg.norm(b.centroid_px[first] - (a.centroid_px[last] + vel * (first - last)))) / r
            area_a, area_b = float(a.area_px[last]), float(b.area_px[first])
            alike = areas_alike(area_a, area_b) and same_colour(video, a, last, b, first)
            if (miss > tol.teleport_radii + first - last and alike and not still_there(video, a, last, first)
                    and not still_there(video, b, first, last)):
                return measurement("contradicted", req, f"jump of {miss:.1f} radii between frames {last} and {first} "
                                   "(the track breaks there: its old place empties, its new place was empty)",
                                   window=video.window(last, first), jumps=[[last, first, miss]])
    return None


def _merged_before(other: Track, track: Track, f0: int, r: float) -> bool:
    """Was ``other`` next to ``track``'s first place just before ``f0`` as one merged blob with it (coasted, or
    swollen beyond its usual area)? Then ``track`` split off it rather than appearing."""
    if not _near(other, track, f0, r):
        return False
    k = max(f0 - 1, 0)
    usual = float(np.median(other.area_px[observed(other)])) if observed(other).any() else 0.0
    return bool(other.coasted[k] or other.coasted[f0] or (usual > 0 and other.area_px[k] > 1.3 * usual))


def _was_empty_before(video: VideoContext, track: Track, f0: int, still: float = 8.0, new: float = 20.0) -> bool:
    """Did the subject's frame-``f0`` box show one unchanging picture in the frames just before (the static
    scene: nothing moving there, nothing passing in front), which the subject's arrival changes?"""
    box = box_slices(video, track, f0)
    if box is None or f0 < 2:
        return False
    before = video.frames[max(f0 - 3, 0):f0, box[0], box[1]].astype(np.float32)
    now = video.frames[f0, box[0], box[1]].astype(np.float32)
    steady = float(np.abs(np.diff(before, axis=0)).max(axis=-1).mean()) <= still if len(before) > 1 else False
    changed = float(np.abs(before[-1] - now).max(axis=-1).mean()) > new
    return steady and changed


def _rim(mask: np.ndarray, rim_px: int) -> np.ndarray:
    """(H, W) bool: the pixels within ``rim_px`` of a body of ``mask`` (H, W) bool, a body being a connected part of
    it with an interior (three pixels thick somewhere: a few pixels of a shaded small body that fall to a
    neighbouring hue are its own, and have no rim)."""
    m = mask.astype(np.uint8)
    _, labels = cv2.connectedComponents(m, connectivity=8)
    bodies = np.unique(labels[cv2.erode(m, np.ones((3, 3), np.uint8)) > 0])
    m = np.isin(labels, bodies[bodies > 0]).astype(np.uint8)
    return cv2.dilate(m, np.ones((2 * rim_px + 1, 2 * rim_px + 1), np.uint8)).astype(bool)


def absent_from_clip(op: MeasureOp, subject: SubjectSpec | None, video: VideoContext, tol: Tolerances,
                     prompt: str = "", max_colour_cost: float = 1.0, min_blob_px: int = 4,
                     min_blob_frac: float = MIN_AREA_FRAC, frames: int = 12, min_frames_seen: int = 2,
                     rim_px: int = 2, clear_cost: float = 0.35, clear_chroma: float = 30.0,
                     name_margin: float = 0.25, min_resolved_px: int = 12, rival_margin: float = 0.1) -> Measurement:
    """A named subject that no track found: is it in the clip at all? Only its colour name can say so without a
    track: when no blob of at least ``min_blob_px`` pixels of the name (within ``max_colour_cost`` of it, about one
    colour-name step, and about as near it as to any other name: below) shows in ``min_frames_seen`` of ``frames``
    frames spread over the clip, the subject is not there (window: the whole clip). A blob of that colour in that
    many frames - the object unfound by the tracker, or a wall or floor of its colour it could hide against - leaves
    it unknown, and so does a subject without a colour name or one the prompt names several of. A blob in one
    sampled frame alone is a flicker of coding or generation noise, not a body the prompt names: a body in view
    for more than about a sixth of the clip shows in two of twelve frames spread over it.

    A pixel counts for the name only where a person could call it so: the name is within ``name_margin`` of the
    nearest of all colour names to it (a navy domino or a blue-grey carpet fits purple within a step, but is blue
    or grey to anyone naming it; a purple body shows purple in its lit pixels), the name's own finer shades
    (``colours.SHADES``) not counted among the others: a teal ball is a green ball to many. Nor where another colour the
    ``prompt`` names fits it better: "a yellow cube" next to "an orange ball" is not found in the orange ball,
    although orange is a neighbouring hue of yellow (a body the prompt names in another colour is that body, not a
    shade of the missing one), where it fits better by ``rival_margin`` or more: closer than that the two names are
    one colour to the eye of the model (a shaded orange ball and a lit brown one cost within a few hundredths of each
    other on both names), and the pixel may be the missing body's as well. A white, grey or black name is not held to
    the nearest name: a grey body's lit and shaded pixels read silver, white or black.

    The smallest blob that counts scales with the frame: ``min_blob_frac`` of its area (the tracker's own smallest
    body), and never under ``min_blob_px``. A few pixels of a colour on a large frame are the seams of coding
    blocks or the blended edge between two other colours (red against blue shows purple for a pixel), not a body;
    on a 64 x 64 frame the same few pixels may be a far body.

    A body's colour is read in its interior only. Coded video keeps colour at half resolution (4:2:0), so
    where two colours meet the pixels within ``rim_px`` of the seam blend them: an orange ball on a blue floor has
    a pink rim. A blob of the name lying wholly within ``rim_px`` of a body (three pixels thick) of another colour
    the prompt names is that body's rim, unless one of its pixels shows the name clearly (within ``clear_cost`` and
    with a CIELAB chroma of ``clear_chroma`` or more; a blend of two colours fits a third faintly, or darkly, as a
    dull near-grey): a body of the name, however small or hidden in part, has pixels beyond the rim or pixels of
    its clear colour. So is a blob within ``rim_px`` of a body of any other hue, named or not (a navy block against
    a beige wall has a purple rim whether the prompt names the block or not), when it is a seam: nowhere 2 x
    ``rim_px`` pixels thick (the blend reaches ``rim_px`` into each side). Black, grey and white bodies have no
    rims of their own here, since every body's shading runs into them, and a white, grey or black name looks for
    none.

    Absence is read at the clip's scale: where the smallest of the other chromatic bodies the prompt names shows in
    blobs (median over the frames it is seen in) under ``min_resolved_px`` pixels (a disc about 2 px in radius), a
    body of its size may keep no pixel of its own colour (coded video keeps colour at half resolution, and a little
    shading or hiding takes the rest), and a body not found is unknown, not absent (bodies a pixel or two in radius
    on a 64 x 64 frame)."""
    req = "persists: nothing appears from nowhere, nothing vanishes without an occluder or leaving the frame"
    name = subject.color if subject is not None else None
    if subject is None or not colours.known(name) or (subject.count or 1) > 1:
        return unknown(f"'{op.subject}' was not found in the clip", required=req)
    t_count = video.num_frames
    picks = np.unique(np.linspace(0, t_count - 1, min(frames, t_count)).round().astype(int))
    rivals = [c for c in colours.named_in(prompt) if colours.canonical(c) != colours.canonical(name)]
    min_px = max(min_blob_px, int(np.ceil(min_blob_frac * video.frames.shape[1] * video.frames.shape[2])))
    palette = sorted({colours.canonical(c) for c in [*colours.REFERENCES, *colours.ACHROMATIC]})
    achromatic = colours.canonical(name) in colours.ACHROMATIC
    other_names = [i for i, c in enumerate(palette) if c not in colours.shades_of(name) - {colours.canonical(name)}]
    # the hues whose bodies have rims of their own: every chromatic name but the missing one's and its shades (none
    # for a white, grey or black name, whose ``named`` costs are then not needed either)
    others = [] if achromatic else [i for i, c in enumerate(palette)
                                    if c not in colours.shades_of(name) and c not in colours.ACHROMATIC]
    seen: list[tuple[int, int]] = []  # (frame, largest blob px) where a blob of the colour shows
    # the other chromatic bodies the prompt names: the largest blob of each in each frame (px), for the clip's scale
    chromatic = [i for i, c in enumerate(rivals) if colours.canonical(c) not in colours.ACHROMATIC]
    rival_px: dict[int, list[int]] = {i: [] for i in chromatic}
    for k in picks:
        lab = colours.rgb_to_lab(video.frames[int(k)].reshape(-1, 3))  # (H*W, 3), converted once per frame
        costs = colours.colour_costs_of_lab(lab, [name, *rivals])  # (H*W, 1 + rivals)
        best_rival = costs[:, 1:].min(axis=1, initial=np.inf)  # (H*W,): the best fit of the prompt's other colours
        best_named = np.minimum(costs[:, 0], best_rival)  # (H*W,): the best fit of every colour the prompt names
        fits = (costs[:, 0] <= max_colour_cost) & (costs[:, 0] <= best_rival + rival_margin)
        # every name's cost at each pixel: the nearest-name rule and the rims of other hues (a chromatic name) and
        # the prompt's rivals need it
        named = colours.colour_costs_of_lab(lab, palette) if rivals or not achromatic else None
        nearest = named.min(axis=1) if named is not None else None
        if not achromatic:
            # ... where the name's own finer shades do not compete with it: a teal ball is a green ball to many (a
            # white, grey or black body's shading runs over the lightness names: lit grey reads silver or white)
            fits &= costs[:, 0] <= named[:, other_names].min(axis=1) + name_margin
        for i in chromatic:
            theirs = (costs[:, 1 + i] <= max_colour_cost) & (costs[:, 1 + i] <= best_named) \
                & (costs[:, 1 + i] <= nearest + name_margin)
            n_r, _, stats_r, _ = cv2.connectedComponentsWithStats(
                theirs.reshape(video.frames.shape[1:3]).astype(np.uint8), connectivity=8)
            if n_r > 1:
                rival_px[i].append(int(stats_r[1:, cv2.CC_STAT_AREA].max()))
        fits = fits.reshape(video.frames.shape[1:3]).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fits, connectivity=8)
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_px]
        if big:
            # a pixel is another named body's when that body's colour is among the nearest of all colour names to
            # it (within a quarter step of the nearest: a dark orange is as near brown as orange), better than the
            # missing one's (green next to a brown ball is no yellow body's, although of the colours the prompt
            # names yellow is the nearest to green) ...
            rim = np.zeros(fits.shape, bool)
            if rivals:
                rim = _rim(((best_rival <= max_colour_cost) & (best_rival + rival_margin < costs[:, 0])
                            & (best_rival <= nearest + name_margin)).reshape(fits.shape), rim_px)
            # ... or of a body of any other hue, named in the prompt or not: a pixel whose nearest name is a hue that
            # is not the missing one's nor one of its shades (a navy block the prompt does not name has a purple rim
            # against a beige wall, as a named one does; black, grey and white are left out: every body's shading
            # runs into them). Such a rim is a seam, thinner than the blend reaches into both sides: a blob of the name
            # with a square of 2 * ``rim_px`` pixels of it somewhere is a body, however near a body of another hue
            if others:  # (a chromatic name: ``named`` and ``nearest`` are there)
                hue = np.isin(named.argmin(axis=1), others) & (nearest <= max_colour_cost)
                thick = np.unique(labels[cv2.erode(fits, np.ones((2 * rim_px, 2 * rim_px), np.uint8)) > 0])
                rim |= _rim(hue.reshape(fits.shape), rim_px) & ~np.isin(labels, thick[thick > 0])
            # a blob with a pixel off every other colour's rim has an interior of its own; so has one with a pixel
            # of the name's clear colour (a blend of two colours fits a third only faintly)
            clear = ((costs[:, 0] <= clear_cost) & (np.hypot(lab[:, 1], lab[:, 2]) >= clear_chroma)).reshape(fits.shape)
            beyond = np.unique(labels[(labels > 0) & (~rim | clear)])
            big = [i for i in big if i in beyond]
        if big:
            seen.append((int(k), int(max(stats[i, cv2.CC_STAT_AREA] for i in big))))
        if len(seen) >= min_frames_seen:
            k0, px = seen[0]
            return unknown(f"'{op.subject}' was not tracked, but a {name} blob of {px} px shows in frame {k0} "
                           f"(and in {len(seen) - 1} more of {len(picks)} frames): it may be there", required=req)
    # the scale of the clip's bodies: the smallest of the other named bodies, as its blob shows in most frames it is
    # seen in; a body that small may show none of its colour, and the missing one may be no larger
    scales = [float(np.median(px)) for px in rival_px.values() if len(px) >= min_frames_seen]
    if scales and min(scales) < min_resolved_px:
        return unknown(f"no {name} blob of {min_px} px or more in {min_frames_seen} of {len(picks)} frames, but the "
                       f"other bodies the prompt names show in as few as {min(scales):.0f} px: a {subject.noun} of "
                       "their size may show in too few pixels to be found", required=req)
    flicker = (f" (a {name} blob in frame {seen[0][0]} only: a flicker, not a body that stays)" if seen else "")
    return measurement("contradicted", req, f"no {name} blob of {min_px} px or more (beyond the rims of other "
                       f"colours) in {min_frames_seen} of "
                       f"{len(picks)} frames spread over the clip{flicker}: the {subject.noun} is not there",
                       window=video.window(0, t_count - 1), frames_checked=[int(k) for k in picks])


#: What a quantity can still tell of a subject that no track found:
#: ``(op, subject, video, tolerances, prompt) -> Measurement``; the others are unknown then.
WITHOUT_TRACKS: dict[str, Callable[[MeasureOp, SubjectSpec | None, VideoContext, Tolerances, str], Measurement]] = {
    "permanence": absent_from_clip,
}


#: Checks over all the tracks of the subject, for the quantities whose property they can break:
#: ``(tracks, video, tolerances, singular) -> Measurement`` (the property contradicted) or None.
ACROSS_INSTANCES: dict[str, Callable[[Sequence[Track], VideoContext, Tolerances, bool], Measurement | None]] = {
    "permanence": appearances,
    "continuity": split_jumps,
}


# ---------------------------------------------------------------------------------------------- pixel checks


def box_slices(video: VideoContext, track: Track, k: int) -> tuple[slice, slice] | None:
    """Row and column slices of the subject's frame-``k`` box clipped to the frame; None when that is empty."""
    x0, y0, x1, y1 = (int(round(v)) for v in track.boxes_xyxy[k])
    h, w = video.frames.shape[1:3]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w - 1), min(y1, h - 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return slice(y0, y1 + 1), slice(x0, x1 + 1)


def _box_patch(video: VideoContext, track: Track, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The clip's pixels (T, h, w, 3) float32 inside the subject's frame-``k`` box and the usual picture of that
    place without the subject (h, w, 3): the per-pixel median over the frames in which the subject is seen
    elsewhere (its centre over 2.5 radii away), or over the whole clip when fewer than three such frames exist.
    The median over the whole clip of a place where the subject rested for much of the clip is the subject itself,
    against which its emptied place would look occupied. None when the box is empty after clipping to the
    frame."""
    box = box_slices(video, track, k)
    if box is None:
        return None
    patch = video.frames[:, box[0], box[1]].astype(np.float32)
    ok = observed(track)
    centre = track.centroid_px[k]
    elsewhere = np.zeros(len(patch), bool)
    if np.isfinite(centre).all():
        dist = np.linalg.norm(np.nan_to_num(track.centroid_px - centre, nan=0.0), axis=1)
        elsewhere = ok & (dist > 2.5 * radius(track))
    frames = patch[elsewhere] if elsewhere.sum() >= 3 else patch
    return patch, np.median(frames, axis=0)


def still_there(video: VideoContext, track: Track, a: int, b: int, max_delta_e: float = 15.0,
                 min_share: float = 0.3) -> bool:
    """At frame ``b``, is there still something (not the usual background) where the subject was at ``a``?
    Then the tracker switched to another blob; a teleported object leaves its place empty. Called the other
    way round (``a`` after the jump, ``b`` before it) it asks whether something already stood where the
    subject lands: again an identity switch, since a teleported object arrives at an empty place.

    The usual picture (the median over the clip) of a place where the subject rested for much of the clip is the
    subject itself, so there the emptied place also differs from it: a place that differs from its usual picture
    counts as still occupied only when it still shows the subject's colour (CIELAB within ``max_delta_e``) on at
    least ``min_share`` of the pixels that showed it at ``a``."""
    found = _box_patch(video, track, a)
    if found is None:
        return False
    patch, bg = found
    # the place looks at ``b`` as it did at ``a``: whatever was there has not left
    if float(np.abs(patch[b] - patch[a]).max(axis=-1).mean()) < 12.0:
        return True
    if float(np.abs(patch[b] - bg).max(axis=-1).mean()) <= 20.0:
        return False  # the usual picture: emptied
    lab = _lab_in(patch, bg, a)
    shows = [int((colours.delta_e(patch[k], lab) <= max_delta_e).sum()) for k in (a, b)]
    return shows[1] >= min_share * max(shows[0], 1)


def subject_lab(video: VideoContext, track: Track, k: int, min_diff: float = 20.0) -> np.ndarray | None:
    """The subject's colour (CIELAB, (3,)) at frame ``k``: the median of the pixels in its box that differ from the
    clip's usual picture there (channel-max difference over ``min_diff``), or of the box's central pixels when
    too few differ (a resting body the median has absorbed); None when the box is empty."""
    found = _box_patch(video, track, k)
    return None if found is None else _lab_in(*found, k, min_diff)


def _lab_in(patch: np.ndarray, bg: np.ndarray, k: int, min_diff: float = 20.0) -> np.ndarray:
    """:func:`subject_lab` of a box's pixels ``patch`` (T, h, w, 3) and its usual picture ``bg`` (h, w, 3)."""
    now = patch[k]
    differs = np.abs(now - bg).max(axis=-1) > min_diff
    if differs.sum() >= 3:
        pixels = now[differs]
    else:
        h, w = now.shape[:2]
        pixels = now[h // 4:h - h // 4 or h, w // 4:w - w // 4 or w].reshape(-1, 3)
    return rgb_to_lab(np.median(pixels.reshape(-1, 3), axis=0))


def _colour_near(video: VideoContext, track: Track, k: int, frames: Iterable[int], vel: np.ndarray,
                 max_delta_e: float = 15.0, min_share: float = 0.4) -> bool:
    """Is the subject's frame-``k`` colour seen, in any of ``frames``, next to where it would be - within three of
    its radii plus the distance its velocity ``vel`` (px/frame) carries it - on at least ``min_share`` of its usual
    area (pixels within ``max_delta_e`` CIELAB units)? Then a track that stops or starts there is the tracker's
    loss, or the place has the subject's colour and cannot show it gone: no firm vanishing or appearance."""
    lab = subject_lab(video, track, k)
    centre = track.centroid_px[k]
    if lab is None or not np.isfinite(centre).all():
        return False
    r = radius(track)
    ok = observed(track)
    usual = float(np.median(track.area_px[ok])) if ok.any() else 0.0
    need = max(2.0, min_share * usual)
    speed = float(np.linalg.norm(vel)) if np.isfinite(vel).all() else 0.0
    for j in frames:
        steps = abs(j - k)
        c = centre + (vel if np.isfinite(vel).all() else 0.0) * steps
        if colour_pixels(video, j, c, lab, 3.0 * r + speed * steps, max_delta_e)[0] >= need:
            return True
    return False


def colour_pixels(video: VideoContext, frame: int, centre: np.ndarray, lab: np.ndarray, reach_px: float,
                  max_delta_e: float = 15.0) -> tuple[int, np.ndarray]:
    """The pixels of frame ``frame`` within ``reach_px`` of ``centre`` (x, y px) whose colour is within
    ``max_delta_e`` CIELAB units of ``lab`` (the subject's own area there, whatever blob the tracker drew):
    their count and their centroid (x, y px; NaN when there are none)."""
    c = np.asarray(centre, float)
    h, w = video.frames.shape[1:3]
    none = (0, np.full(2, np.nan))
    if not np.isfinite(c).all():
        return none
    x0, x1 = int(max(np.floor(c[0] - reach_px), 0)), int(min(np.ceil(c[0] + reach_px), w - 1))
    y0, y1 = int(max(np.floor(c[1] - reach_px), 0)), int(min(np.ceil(c[1] + reach_px), h - 1))
    if x1 < x0 or y1 < y0:
        return none
    yy, xx = np.mgrid[y0:y1 + 1, x0:x1 + 1]
    inside = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= reach_px ** 2
    fits = np.zeros_like(inside)
    fits[inside] = colours.delta_e(video.frames[frame, y0:y1 + 1, x0:x1 + 1][inside], lab) <= max_delta_e
    if not fits.any():
        return none
    return int(fits.sum()), np.array([xx[fits].mean(), yy[fits].mean()])


def _same_look(video: VideoContext, track: Track, a: int, b: int, max_delta_e: float = 20.0) -> bool:
    """Frames ``a`` and ``b`` show a blob of about the same area (within x1.5) and colour (CIELAB within
    ``max_delta_e``): the same object moved, rather than the tracker switching to another blob. The frame's edge
    cuts a body that reaches it, so a blob at the border may show as little as a quarter of the other's area (never
    over x1.5 of it); with both at the border nothing can be compared. Blobs whose areas differ more are still the
    same body when its colour covers about the same area in both (:func:`_colour_areas_alike`): the larger blob is
    the body merged with a neighbour of another colour."""
    aa, ab = float(track.area_px[a]), float(track.area_px[b])
    at_a, at_b = bool(track.touches_border[a]), bool(track.touches_border[b])
    if aa <= 0 or ab <= 0 or (at_a and at_b):
        return False
    if at_a or at_b:
        cut, whole = (aa, ab) if at_a else (ab, aa)
        sized = 0.25 * whole <= cut <= 1.5 * whole
    else:
        sized = areas_alike(aa, ab) or _colour_areas_alike(video, track, a, b, max_delta_e)
    return sized and same_colour(video, track, a, track, b, max_delta_e)


def _colour_areas_alike(video: VideoContext, track: Track, a: int, b: int, max_delta_e: float = 20.0,
                        min_share: float = 0.5, max_ratio: float = 1.5) -> bool:
    """Do the subject's boxes at frames ``a`` and ``b`` hold about as many pixels (within x``max_ratio``) of the
    colour of the smaller blob (its :func:`subject_lab`, CIELAB within ``max_delta_e``), that colour covering at
    least ``min_share`` of the smaller blob's area? Then the larger blob is the body with a neighbour of another
    colour merged into it, and the body's own area is the same in both."""
    small, large = (a, b) if track.area_px[a] <= track.area_px[b] else (b, a)
    lab = subject_lab(video, track, small)
    if lab is None:
        return False
    counts = []
    for k in (small, large):
        box = box_slices(video, track, k)
        if box is None:
            return False
        counts.append(int((colours.delta_e(video.frames[k, box[0], box[1]], lab) <= max_delta_e).sum()))
    n_small, n_large = counts
    return (n_small >= min_share * float(track.area_px[small])
            and max(n_small, n_large) <= max_ratio * max(min(n_small, n_large), 1))


def same_colour(video: VideoContext, track_a: Track, a: int, track_b: Track, b: int,
                 max_delta_e: float = 20.0) -> bool:
    """Is ``track_a``'s subject colour at frame ``a`` within ``max_delta_e`` CIELAB units of ``track_b``'s at frame
    ``b`` (True when either cannot be read)? A blob of another colour is another body."""
    lab_a, lab_b = subject_lab(video, track_a, a), subject_lab(video, track_b, b)
    return lab_a is None or lab_b is None or float(np.linalg.norm(lab_a - lab_b)) <= max_delta_e


def _near(other: Track, track: Track, k: int, r: float) -> bool:
    """Is ``other`` next to ``track`` at frame ``k`` (centres closer than ``other``'s radius plus three of
    ``track``'s radii ``r``)?"""
    if not (0 <= k < len(other.visible)) or not (other.visible[k] or other.coasted[k]):
        return False
    d = float(np.linalg.norm(other.centroid_px[k] - track.centroid_px[k]))
    return d < radius(other) + 3 * r


def _back_on_its_path(track: Track, last: int, back: int, r: float, min_speed_radii: float = 0.5,
                      fit_frames: int = 5) -> bool:
    """Is the moving subject seen again at frame ``back`` where its motion carries it from before the gap? Its path
    over the last ``fit_frames`` observed frames up to ``last`` (at least three, moving at least
    ``min_speed_radii`` radii per frame) is fitted per axis with a parabola in time (a thrown or falling body
    curves) and extrapolated to ``back``; it is back on its path within 1.5 radii plus half a radius per frame of
    the gap. A body that passes behind something static (part of the usual picture, so its place looks empty)
    comes back on its path; one that vanishes and is drawn again does not."""
    seen = np.flatnonzero(observed(track)[:last + 1])[-fit_frames:]
    if seen.size < 3:
        return False
    c = track.centroid_px
    speed = float(np.linalg.norm(c[seen[-1]] - c[seen[0]])) / max(int(seen[-1] - seen[0]), 1)
    if speed < min_speed_radii * r:
        return False
    degree = 2 if seen.size >= 4 else 1
    predicted = np.array([np.polyval(np.polyfit(seen, c[seen, axis], degree), back) for axis in (0, 1)])
    return float(np.linalg.norm(c[back] - predicted)) <= (1.5 + 0.5 * (back - last)) * r


def _patch_occupied(video: VideoContext, track: Track, last: int) -> bool:
    """After the subject's last frame, does its box look like the clip's usual background there (nothing
    in front) or like something else (an occluder)? Where the subject rested for most of the clip its usual
    picture is the subject itself; there a place that now shows its own surroundings is emptied, not covered
    (``_emptied_in_place``)."""
    found = _box_patch(video, track, last)
    if found is None:
        return False
    patch, bg = found
    after = patch[last + 1:min(last + 4, len(patch))]
    if len(after) == 0:
        return False
    return float(np.abs(after - bg).max(axis=-1).mean()) > 20.0 and not _emptied_in_place(video, track, last)


def _emptied_in_place(video: VideoContext, track: Track, last: int, max_delta_e: float = 15.0,
                      max_ring_change: float = 12.0) -> bool:
    """Does the subject's frame-``last`` box, in the next (up to three) frames, show what surrounds it, while the
    surroundings stay as they were and the subject's colour is gone from the box? Then the body left its place
    without anything in front of it: the ring around the box (half the box's size wide) changes by under
    ``max_ring_change`` (mean channel-max, of 255), at most a tenth of the box's pixels is still within
    ``max_delta_e`` (CIELAB) of the subject's colour, and nine in ten match a colour of the ring. An occluder
    brings its own colour, or, larger than the box, changes the ring too."""
    box = box_slices(video, track, last)
    lab = subject_lab(video, track, last)
    after = list(range(last + 1, min(last + 4, video.num_frames)))
    if box is None or lab is None or not after:
        return False
    (ys, xs), (h, w) = box, video.frames.shape[1:3]
    pad = max(2, (ys.stop - ys.start) // 2, (xs.stop - xs.start) // 2)
    outer = (slice(max(ys.start - pad, 0), min(ys.stop + pad, h)), slice(max(xs.start - pad, 0), min(xs.stop + pad, w)))
    ring = np.ones((outer[0].stop - outer[0].start, outer[1].stop - outer[1].start), bool)
    ring[ys.start - outer[0].start:ys.stop - outer[0].start, xs.start - outer[1].start:xs.stop - outer[1].start] = False
    if ring.sum() < 8:
        return False
    before_ring = video.frames[last][outer][ring].astype(np.float32)
    for k in after:
        ring_px = video.frames[k][outer][ring].astype(np.float32)
        if float(np.abs(ring_px - before_ring).max(axis=-1).mean()) > max_ring_change:
            return False
        inside_lab = rgb_to_lab(video.frames[k][box].reshape(-1, 3))
        if float(np.mean(norm_last_axis(inside_lab - lab) <= max_delta_e)) > 0.1:
            return False
        ring_lab = rgb_to_lab(ring_px[:: max(1, len(ring_px) // 200)])
        nearest = np.min(norm_last_axis(inside_lab[:, None, :] - ring_lab[None, :, :]), axis=1)
        if float(np.mean(nearest <= max_delta_e)) < 0.9:
            return False
    return True


def _patch_unchanged(video: VideoContext, track: Track, last: int, max_diff: float = 12.0) -> bool:
    """Do the next frames at the subject's last box look like its last frame there (mean channel-max difference
    under ``max_diff``)? Then whatever was seen is still there (an object that stopped and merged into the
    median background), not gone."""
    box = box_slices(video, track, last)
    if box is None or last + 1 >= len(video.frames):
        return False
    ref = video.frames[last, box[0], box[1]].astype(np.float32)
    after = video.frames[last + 1:min(last + 4, len(video.frames)), box[0], box[1]].astype(np.float32)
    return float(np.abs(after - ref).max(axis=-1).mean()) < max_diff
