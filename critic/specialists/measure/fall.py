"""Free fall and support: an unsupported body accelerates downward; a body rests only where something holds it.

``free_fall`` fits a parabola to each airborne run of the height (radii, y down) and reads its acceleration;
``support`` looks for stationary runs in mid-air, well above a level the subject had already landed on, for rises
from rest or from the floor with nothing launching them, and for airborne runs (the same fits) that speed up upward.
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.colour import rgb_to_lab
from critic.specialists.kinematics import (JITTER_PX, Contact, area_radius, floor_contacts, observed, parabola_fit,
                                           quadratic_motion, radius, runs, size_radius, stationary_runs,
                                           top_of_fall, top_of_rise)
from critic.specialists.measure.common import Tolerances, floor_row_of, measurement, phrase
from critic.specialists.tracking import channel_max_diff
from critic.types import Measurement, MeasureOp, Track, VideoContext

#: Below this downward acceleration (radii/s^2) a real fall would need a ball over ~0.5 m across at 9.81 m/s^2:
#: the time base is more likely slowed than gravity weak.
SLOW_MOTION_ACCEL_RADII = 20.0
#: how many standard errors from zero an acceleration fitted over six frames must be to count
MIN_ACCEL_T = 8.0


def free_fall(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """While airborne: downward acceleration, near-constant (the height is a parabola in time). Window
    ``airborne``: the first airborne run, fitted or not (a first drop too short to fit a parabola to is still the
    fall that comes before the first bounce); every airborne run is an occurrence."""
    r = radius(track)
    if not op.expect.holds:
        return _falls_at_all(op, track, video)
    req = "while airborne: downward acceleration > 0, near-constant (parabolic height)"
    contacts = floor_contacts(track)
    ok = observed(track)
    segments, cut = _airborne_segments(track, contacts, stationary_runs(track), r)
    floor = floor_row_of(track)
    hovering = [] if video.sanity.likely_slow_motion else sorted(
        _hover_runs(track, contacts, floor, tol.hover_radii) + _pauses_in_fall(track, r))
    values = {"segments": segments, "radius_px": r}
    if hovering:
        s, e = hovering[0]
        height = _height_above(track, s, e, contacts, floor)
        # the level it is above: where it landed before, else the floor line; a pause in a fall with neither has
        # none, and moves before and after
        where = (f"moving before frame {s} and after frame {e}" if not np.isfinite(height)
                 else f"{height:.1f} radii above where it landed before" if any(c.frame < s for c in contacts)
                 else f"{height:.1f} radii above the floor line")
        return measurement("contradicted", req,
                           f"stationary in mid-air for {track.times_s[e] - track.times_s[s]:.2f} s, {where} "
                           "(a = 0 while unsupported)", window=video.window(s, e), **values)
    pushed = _pushed_sideways(track, segments, tol.sideways_accel_ratio)
    if pushed is not None:
        s, e = pushed["frames"]
        flight = next(((a, b) for a, b in _airborne_runs(track, ok & ~cut, r) if a <= s and e <= b), (s, e))
        return measurement("contradicted", req, _sideways_push_text(pushed), window=video.window(*flight), **values)
    if not segments:
        short = _short_fall(track, ok & ~cut, r)
        if short is not None:
            # too few frames to fit an acceleration, but a descent that speeds up frame by frame is a fall
            s, e = short
            w = video.window(s, e)
            return measurement("supported", req, f"falls {(track.centroid_px[e, 1] - track.centroid_px[s, 1]) / r:.1f} "
                               f"radii over frames {s}-{e}, faster each frame (too few frames to fit the acceleration)",
                               window=w, windows={"airborne": w}, occurrences={"airborne": [w]}, **values)
        return unknown("no airborne segment of 5 observed frames with vertical motion", required=req, **values)
    # every fitted segment is one of these runs (the same frames), so they hold every flight, the first included
    flights = [video.window(s, e) for s, e in _airborne_runs(track, ok & ~cut, r)]
    airborne = flights[0]
    occurrences = {"airborne": flights}
    accels = np.array([s["accel_radii_s2"] for s in segments])
    bad = _pushes_up(track, segments, r)
    if bad:
        s0 = bad[0]
        a, b = s0["frames"]
        k = _set_off(track, a, b, r)
        rising = f", rising from frame {k}" if k > a else ""
        return measurement("contradicted", req, f"a = {s0['accel_radii_s2']:.1f} radii/s^2 (not downward) over "
                           f"frames {a}-{b}{rising}", window=video.window(k, b),
                           windows={"airborne": airborne}, occurrences=occurrences, **values)
    if float(np.median(accels)) <= 0.0:
        # not downward, but neither steady nor long enough to deny the fall: no evidence of gravity either way
        return unknown(f"a = {float(np.median(accels)):.1f} radii/s^2 over {len(segments)} airborne segment(s) is not "
                       "downward, but the fit is not firm enough to deny the fall", required=req,
                       **values)
    notes = []
    if video.sanity.likely_slow_motion:
        notes.append("slow motion flagged by the container: gravity magnitude not checked")
    if float(np.median(accels)) < SLOW_MOTION_ACCEL_RADII:
        notes.append(f"a = {float(np.median(accels)):.1f} radii/s^2 is far below g for everyday objects: "
                     "the time base is likely slowed (magnitude not checked)")
    measured = (f"a = {float(np.median(accels)):.1f} radii/s^2 downward over {len(segments)} airborne segment(s), "
                f"fit rms {max(s['rms_radii'] for s in segments):.2f} radii")
    return measurement("supported", req, measured, window=airborne, windows={"airborne": airborne},
                       occurrences=occurrences, reason="; ".join(notes), likely_slow_motion=bool(notes), **values)


def _airborne_segments(track: Track, contacts: list[Contact], rests: list[tuple[int, int]], r: float
                       ) -> tuple[list[dict], np.ndarray]:
    """The airborne runs of ``track`` that :func:`free_fall` fits: observed frames away from its floor ``contacts``
    (a frame either side) and its stationary runs ``rests``, five frames or more, moving 1 radius or more up or
    down. ->
    (one dict per run: ``frames`` [first, last], the parabola's ``accel_radii_s2`` (y down) and ``rms_radii``, its
    standard error ``accel_se_radii_s2``, the median vertical velocity ``vy_radii_s`` and :func:`_sideways`;
    (T,) bool of the frames cut out)."""
    ok = observed(track)
    cut = np.zeros(len(ok), bool)
    for c in contacts:
        cut[max(c.frame - 1, 0):c.frame + 2] = True
    for s, e in rests:
        cut[s:e + 1] = True
    segments = []
    for s, e in runs(ok & ~cut):
        if e - s + 1 < 5:
            continue
        y = track.centroid_px[s:e + 1, 1]
        if (y.max() - y.min()) / r < 1.0:
            continue
        a, rms = parabola_fit(track.times_s[s:e + 1], y)
        # median vertical velocity (radii/s, y down): a descent that slows down is braked by a contact
        # (landing, toppling onto a support, a catch), not an unsupported body accelerating upwards
        vy = float(np.median(np.diff(y) / np.diff(track.times_s[s:e + 1]))) / r
        segments.append({"frames": [s, e], "accel_radii_s2": a / r, "rms_radii": rms / r, "vy_radii_s": vy,
                         "accel_se_radii_s2": _accel_standard_error(track.times_s[s:e + 1], rms) / r,
                         **_sideways(track, s, e, r)})
    return segments, cut


def _accelerates_up(segment: dict) -> bool:
    """Does a fitted airborne run (a ``segments`` entry of :func:`free_fall`) accelerate upward, which no fall
    does: by more than ``SLOW_MOTION_ACCEL_RADII``, on a close fit (rms under a quarter radius), moving up or not
    down (a descent braked by a contact slows down, too), over seven frames or more, or over six when the
    acceleration is ``MIN_ACCEL_T`` standard errors or more from none (fewer frames cannot tell a push from the
    tracker's jitter otherwise)."""
    a, frames = segment["accel_radii_s2"], segment["frames"][1] - segment["frames"][0] + 1
    if a >= -SLOW_MOTION_ACCEL_RADII or segment["rms_radii"] >= 0.25 or segment["vy_radii_s"] > 0.0:
        return False
    return frames >= 7 or (frames == 6 and -a >= MIN_ACCEL_T * segment["accel_se_radii_s2"])


def _pushes_up(track: Track, segments: list[dict], r: float, window: int = 7, max_area_ratio: float = 1.25,
               min_rise_step_radii: float = 0.05) -> list[dict]:
    """The airborne runs of ``segments`` that accelerate upward (:func:`_accelerates_up`), and within the others
    the stretches that do: a body pushed up for a while and then thrown free rises faster and faster, then slower,
    and one parabola over the whole flight fits neither (a ball pushed up for 13 frames and then flying free to its
    apex fits at -2.7 radii/s^2, with an rms of a radius). A stretch is ``window`` observed frames in which the body
    rises at every step (by ``min_rise_step_radii`` radius or more: a bounce the contacts missed turns a descent
    into a rise, and a body set off from rest at once turns a stop into a climb, and either fits as a push), keeps
    its size (largest area at most ``max_area_ratio`` times the smallest: a body coming at the camera, or a blob
    taking in a neighbour, moves its image by the change) and whose box never grows by a merge
    (:func:`_takes_in_a_neighbour`), fitted closely (rms under a quarter radius) with an upward acceleration over
    ``SLOW_MOTION_ACCEL_RADII``. Overlapping stretches are one, reported with the strongest push. -> the runs, and
    for each stretch ``frames`` and ``accel_radii_s2`` (its other fields would be the run's, not its own)."""
    out: list[dict] = []
    y, area, t = track.centroid_px[:, 1], np.asarray(track.area_px, float), track.times_s
    for seg in segments:
        if _accelerates_up(seg):
            out.append(seg)
            continue
        s0, e0 = seg["frames"]
        hits: list[tuple[int, int, float]] = []
        for a in range(s0, e0 - window + 2):
            b = a + window - 1
            if np.any(np.diff(y[a:b + 1]) > -min_rise_step_radii * r):
                continue
            if area[a:b + 1].max() > max_area_ratio * max(area[a:b + 1].min(), 1.0) or \
                    _takes_in_a_neighbour(track, a, b):
                continue
            acc, rms = parabola_fit(t[a:b + 1], y[a:b + 1])
            if acc / r < -SLOW_MOTION_ACCEL_RADII and rms / r < 0.25:
                if hits and a <= hits[-1][1]:
                    hits[-1] = (hits[-1][0], b, min(hits[-1][2], acc / r))
                else:
                    hits.append((a, b, acc / r))
        out += [{"frames": [a, b], "accel_radii_s2": acc} for a, b, acc in hits]
    return sorted(out, key=lambda seg: seg["frames"][0])


def _set_off(track: Track, s: int, e: int, r: float, still_step_radii: float = 0.15) -> int:
    """The frame from which a body pushed up over frames ``s``-``e`` moves: the last of the frames it starts the run
    at rest in (steps under ``still_step_radii`` of its radius ``r``), else ``s``. A body hanging in mid-air before
    it rises is airborne from the first of those frames, but the push (what the window should show) begins where it
    sets off."""
    c = track.centroid_px
    k = s
    while k < e and float(np.linalg.norm(c[k + 1] - c[k])) < still_step_radii * r:
        k += 1
    return k if k < e else s


def _accel_standard_error(t: np.ndarray, rms: float) -> float:
    """The standard error (px/s^2) of the acceleration of ``y0 + v0 t + (a/2) t^2`` fitted by least squares at the
    times ``t`` (s) with residual rms ``rms`` px (the residual variance with the three fitted parameters taken out);
    inf with fewer than four times."""
    n = len(t)
    if n < 4:
        return float("inf")
    tt = np.asarray(t, float) - float(t[0])
    design = np.stack([np.ones(n), tt, 0.5 * tt * tt], axis=1)
    sigma = rms * np.sqrt(n / (n - 3))
    return float(sigma * np.sqrt(np.linalg.inv(design.T @ design)[2, 2]))


def _sideways(track: Track, s: int, e: int, r: float) -> dict[str, float]:
    """The sideways motion of frames ``s..e`` of an airborne run, for :func:`_pushed_sideways`: the image x of the
    centre fitted as ``x0 + v0 t + (a/2) t^2`` (``sideways_v0_radii_s``, ``sideways_accel_radii_s2``, the fit's rms
    ``sideways_rms_radii``), the run's duration ``duration_s``, the centre's net ``drift_radii`` (x right) and
    ``drop_radii`` (y down), how far the box's bottom comes down (``bottom_drop_radii``), how far the centre's x
    strays from the straight line between its ends (``bow_radii``), the blob's median area over the last third of the
    run over the first third's (``area_trend``)."""
    x = track.centroid_px[s:e + 1, 0]
    a, v0, rms = quadratic_motion(track.times_s[s:e + 1], x)
    bottom = track.boxes_xyxy[s:e + 1, 3]
    area = np.asarray(track.area_px[s:e + 1], float)
    third = max(len(area) // 3, 1)
    chord = np.interp(track.times_s[s:e + 1], track.times_s[[s, e]], x[[0, -1]])
    return {"sideways_accel_radii_s2": a / r, "sideways_v0_radii_s": v0 / r,
            "sideways_rms_radii": rms / r, "duration_s": float(track.times_s[e] - track.times_s[s]),
            "drift_radii": float(x[-1] - x[0]) / r,
            "drop_radii": float(track.centroid_px[e, 1] - track.centroid_px[s, 1]) / r,
            "bottom_drop_radii": float(bottom[-1] - bottom[0]) / r,
            "bow_radii": float(np.abs(x - chord).max()) / r,
            "area_trend": float(np.median(area[-third:]) / max(float(np.median(area[:third])), 1.0))}


def _kinked(track: Track, s: int, e: int, min_side: int = 3) -> bool:
    """Does the image x of the subject's centre over frames ``s..e`` fit two straight lines that meet at one of its
    frames (a knock: a wall, a body) at least as closely as it fits a parabola? A body pushed all the way bends its
    path evenly; one knocked keeps a straight path on either side of the knock. (One fit per frame: asked only of a
    run that passes every other test of :func:`_pushed_sideways`.)"""
    t, x = track.times_s[s:e + 1], track.centroid_px[s:e + 1, 0]
    parabola_rms = quadratic_motion(t, x)[2]
    n = len(x)
    best = np.inf
    for k in range(min_side - 1, n - min_side + 1):
        sse = 0.0
        for part in (slice(0, k + 1), slice(k, n)):
            coef = np.polyfit(t[part], x[part], 1)
            sse += float(np.sum((x[part] - np.polyval(coef, t[part])) ** 2))
        best = min(best, np.sqrt(sse / (n + 1)))  # n + 1 residuals: both lines take the frame they meet at
    return bool(best <= parabola_rms)


def _pushed_sideways(track: Track, segments: list[dict], min_ratio: float, min_push_radii: float = 1.5,
                     max_rms_radii: float = 0.25, max_area_ratio: float = 1.3) -> dict | None:
    """The first fitted airborne run in which a body's sideways speed changes: gravity pulls straight down, so a body
    let go from rest falls straight, a body thrown keeps the sideways speed it was thrown with, and one whose
    sideways speed grows or shrinks in flight is pushed by a force that is not gravity. The run must accelerate down
    (over ``SLOW_MOTION_ACCEL_RADII``) and move sideways along a smooth parabola (fit rms under ``max_rms_radii``
    radii), by ``min_push_radii`` or more from its sideways acceleration, with a sideways acceleration of
    ``min_ratio`` or more of the downward one (a body falling off the camera's axis drifts a little in a camera
    pitched down, always a small share of the fall); and it must be either

    * let go without sideways speed (at least twice as much drift from the acceleration as from its starting
      sideways speed) and a fall (down one radius or more, its box's bottom too: a body toppling over about a corner
      that stays put swings its centre sideways as well) that drifts ``min_push_radii`` or more in fact; or
    * thrown, on a bent path: not two straight paths that meet (a knock against a wall, :func:`_kinked`), bowed from
      the straight line between its ends by half what the fitted acceleration gives or more (the fit's curve is in
      the path, not in its wobble), at one apparent size (its area over the last third of the run within
      x``max_area_ratio`` of the first third's: a body flying toward or away from the camera is seen to drift
      sideways faster or slower by perspective alone).

    -> the run's ``segments`` entry, with ``released`` (which of the two it is), or None."""
    for seg in segments:
        t = seg["duration_s"]
        push = 0.5 * abs(seg["sideways_accel_radii_s2"]) * t * t
        coast = abs(seg["sideways_v0_radii_s"]) * t
        released = (coast <= 0.5 * push and seg["drop_radii"] >= 1.0 and seg["bottom_drop_radii"] >= 1.0
                    and abs(seg["drift_radii"]) >= min_push_radii)
        strong = abs(seg["sideways_accel_radii_s2"]) >= min_ratio * seg["accel_radii_s2"]
        if not (seg["accel_radii_s2"] >= SLOW_MOTION_ACCEL_RADII and seg["sideways_rms_radii"] <= max_rms_radii
                and push >= min_push_radii and strong):
            continue
        # (a parabola bows from the straight line between its ends by a quarter of its acceleration's push: half of
        # that seen at least, so the fit's curve is in the path and not made by its wobble; the two-line fit last)
        if released or (1.0 / max_area_ratio <= seg["area_trend"] <= max_area_ratio
                        and seg["bow_radii"] >= max(push / 8.0, 0.25) and not _kinked(track, *seg["frames"])):
            return {**seg, "released": released}
    return None


def _sideways_push_text(seg: dict) -> str:
    """What a run found by :func:`_pushed_sideways` shows, in words."""
    s, e = seg["frames"]
    force = (f"a = {seg['sideways_accel_radii_s2']:.0f} radii/s^2 sideways against {seg['accel_radii_s2']:.0f} down "
             f"over frames {s}-{e} (gravity pulls down only)")
    if seg["released"]:
        return (f"released without sideways speed, it drifts {seg['drift_radii']:+.1f} radii sideways while falling "
                f"{seg['drop_radii']:.1f}, speeding up: {force}")
    v1 = seg["sideways_v0_radii_s"] + seg["sideways_accel_radii_s2"] * seg["duration_s"]
    return (f"in flight at one apparent size, its sideways speed goes from {seg['sideways_v0_radii_s']:+.1f} to "
            f"{v1:+.1f} radii/s (x right): {force}")


def _short_fall(track: Track, free: np.ndarray, r: float, min_frames: int = 3, min_drop_radii: float = 1.0,
                slack_radii: float = 0.25) -> tuple[int, int] | None:
    """The first run of ``free`` frames (observed, off every contact and stationary run) of ``min_frames`` or more
    over which the subject only goes down, each step at least as long as the one before (within ``slack_radii``),
    ``min_drop_radii`` or more in all: a fall seen in too few frames to fit a parabola (a drop of a metre lasts four
    frames at 8 fps). -> (first, last frame) or None."""
    for s, e in runs(free):
        if e - s + 1 < min_frames:
            continue
        dy = np.diff(track.centroid_px[s:e + 1, 1]) / r
        if (dy > 0).all() and (np.diff(dy) >= -slack_radii).all() and float(dy.sum()) >= min_drop_radii:
            return int(s), int(e)
    return None


def _airborne_runs(track: Track, free: np.ndarray, r: float) -> list[tuple[int, int]]:
    """Frames (first, last) of each airborne run of the subject, in time order: the runs of ``free`` frames
    (observed, off every contact and stationary run) of two or more frames over which it moves at least half a
    radius up or down, fitted to a parabola or not (a first drop too short to fit is still the fall before the
    first bounce)."""
    out = []
    for s, e in runs(free):
        y = track.centroid_px[s:e + 1, 1]
        if e > s and (float(np.nanmax(y)) - float(np.nanmin(y))) / r >= 0.5:
            out.append((int(s), int(e)))
    return out


def _falls_at_all(op: MeasureOp, track: Track, video: VideoContext) -> Measurement:
    """Whether the subject falls at all (the property a claim like "the ball does not fall" denies): a descent of
    over two radii in one observed run (supported), or, seen through most of the clip in view, never a descent of
    half a radius (contradicted); otherwise unknown."""
    req = phrase(op, "falls", "does not fall")
    r = radius(track)
    ok = observed(track) & ~np.asarray(track.touches_border, bool)
    y = track.centroid_px[:, 1]
    best, where = 0.0, None
    for s, e in runs(ok):
        for k in range(s, e + 1):
            # the largest descent from a frame to any later frame of the run
            drop = float(np.nanmax(y[k:e + 1]) - y[k]) / r
            if drop > best:
                best, where = drop, (k, k + int(np.nanargmax(y[k:e + 1])))
    if best > 2.0 and where is not None:
        return measurement("supported", req, f"descends {best:.1f} radii over frames {where[0]}-{where[1]}",
                           window=video.window(*where), descent_radii=best)
    if ok.mean() >= 0.8 and best < 0.5:
        return measurement("contradicted", req, f"seen in {int(ok.sum())} of {len(ok)} frames, never descending more "
                           f"than {best:.2f} radii", window=video.window(0, video.num_frames - 1), descent_radii=best)
    return unknown(f"largest descent {best:.1f} radii, seen in {int(ok.sum())} of {len(ok)} frames: cannot tell",
                   required=req, descent_radii=best)


def _takes_in_a_neighbour(track: Track, a: int, b: int, growth: float = 1.5) -> bool:
    """Does the blob's box grow in width or height by x``growth`` or more from one observed frame to the next within
    frames ``a..b``? That is a merge: the blob took in a neighbour (a stack's next block, a mat's edge, a shadow)
    and its centre moved by the merge, not by any motion of the body. (A rigid body keeps its outline from frame to
    frame; the box the tracker holds on a body that stopped may shrink to what the median background left of it,
    never grow.)"""
    box = track.boxes_xyxy
    ks = [k for k in range(max(a, 0), min(b, len(box) - 1) + 1) if observed(track)[k]]
    dims = np.stack([box[ks, 2] - box[ks, 0] + 1, box[ks, 3] - box[ks, 1] + 1], 1) if ks else np.zeros((0, 2))
    return bool(len(dims) > 1 and np.any(dims[1:] >= growth * dims[:-1]))


def _pauses_in_fall(track: Track, r: float) -> list[tuple[int, int]]:
    """Stationary runs in the middle of a flight: moving down (or up) just before, moving on the same way just
    after, with no sideways travel on the way out (a body that lands on a ledge must roll to its edge to fall
    again): an unsupported body does not stop in mid-air. Before the run, three observed frames that come down
    half a radius or more; when the clip shows fewer (the stop comes in its first frames), a single step of
    ``0.3`` radius or more, well above the tracker's jitter, shows the flight it interrupts. No merge from the first of
    those frames to the last (``_takes_in_a_neighbour``): a blob that takes in a neighbour moves its centre by the
    merge, and its still runs between merges are no stop of a body in flight."""
    ok = observed(track)
    y = track.centroid_px[:, 1]
    x = track.centroid_px[:, 0]
    out = []
    for s, e in stationary_runs(track):
        b = e + 3
        # the most frames (up to three) observed without a break right before the run
        a = next((s - n for n in (3, 2, 1) if s - n >= 0 and ok[s - n:s + 1].all()), None)
        if a is None or b >= len(y) or not ok[e:b + 1].all():
            continue
        if _takes_in_a_neighbour(track, a, b):
            continue
        before, after = y[s] - y[a], y[b] - y[e]
        way = np.sign(before)
        enough = 0.5 * r if s - a >= 3 else 0.3 * r
        moving_before = abs(before) >= enough and way * (y[s] - y[s - 1]) > 0.05 * r
        same_after = np.sign(after) == way and abs(after) >= 0.5 * r and way * (y[e + 1] - y[e]) > 0.05 * r
        if moving_before and same_after and abs(x[e + 1] - x[e]) < 0.5 * r:
            out.append((s, e))
    return out


def _released_unsupported(track: Track, video: VideoContext, r: float, hover_radii: float) -> list[tuple[int, int]]:
    """Stationary runs from which the subject then comes down, with nothing under it to have held it: well above
    the floor line (``hover_radii`` radii or more; with no floor line, above the lowest point it then comes down
    to), falling straight (no sideways travel on the way out: a body that rolls off a ledge moves sideways first)
    and whole (its box's top comes down too: a blob that takes in a piece below grows down from a top that stays),
    and the clip's usual picture just under the body the same as just over it (one uniform backdrop: no shelf,
    ramp, body or hand beneath), or else nothing over or under it changing as it goes (``_let_go_by_nothing``); no
    merge from the frame before the rest into the fall (``_takes_in_a_neighbour``). A body held still in mid-air and
    then let go by nothing in view hovered, wherever in the clip that happens after it was first seen moving (before
    any landing too). A rest from the first frame that shows the body is a drop's hold: the clip opens on it held,
    and does not show that nothing held it (whatever holds a body to be dropped may be out of view; a body seen
    stopping in mid-air was not held until then)."""
    floor = floor_row_of(track)
    ok = observed(track)
    if not ok.any():
        return []
    first = int(np.flatnonzero(ok)[0])
    y, x = track.centroid_px[:, 1], track.centroid_px[:, 0]
    boxes = track.boxes_xyxy
    frames = video.frames
    h, w = frames.shape[1:3]
    band = max(2, int(round(0.6 * r)))
    out = []
    for s, e in stationary_runs(track):
        b = e + 3
        if s <= first or b >= len(y) or not ok[e:b + 1].all():
            continue
        if _turns_over(y[s:e + 1]):
            continue  # it rose into the run and came down within it: the top of a flight, slow, not a rest
        if not (y[b] - y[e] >= 0.5 * r and y[e + 1] - y[e] > 0.05 * r and abs(x[e + 1] - x[e]) < 0.5 * r):
            continue
        if _takes_in_a_neighbour(track, max(s - 1, 0), b):
            continue
        if boxes[b, 1] - boxes[e, 1] < 0.5 * r:
            # its top stays where it rested: the blob took in a piece below it (a seam, a shadow, a neighbour),
            # the body did not come down
            continue
        x0, y0, x1, y1 = (float(np.nanmedian(boxes[s:e + 1, i])) for i in range(4))
        # how high it was: above the floor line, or (with none) above the lowest point of the fall that follows
        after = ok.copy()
        after[:e + 1] = False
        lowest = float(np.nanmax(boxes[after, 3])) if after.any() else y1
        if max(lowest - y1, (floor - y1) if floor is not None else 0.0) / r < hover_radii:
            continue
        cols = slice(max(int(round(x0)), 0), min(int(round(x1)) + 1, w))
        above = slice(max(int(round(y0)) - band, 0), max(int(round(y0)), 0))
        below = slice(min(int(round(y1)) + 1, h), min(int(round(y1)) + 1 + band, h))
        if above.stop - above.start < 2 or below.stop - below.start < 2 or cols.stop - cols.start < 2:
            continue
        # the usual picture there, over the frames the body does not cover it (it may land right under the place
        # it hovered, and rest there for most of the clip)
        strip_above, strip_below = (_usual_strip(frames, track, rows, cols) for rows in (above, below))
        if strip_above is None or strip_below is None:
            continue
        uniform = max(float(strip_above.std(axis=0).max()), float(strip_below.std(axis=0).max())) < 6.0
        if uniform and float(np.linalg.norm(strip_above.mean(0) - strip_below.mean(0))) < 8.0:
            out.append((s, e))
        elif _let_go_by_nothing(track, ok, frames, e, above, below, cols):
            out.append((s, e))
    return out


def _turns_over(y: np.ndarray) -> bool:
    """Whether the image heights ``y`` (px, down) of a stationary run rise to a top inside it and come down again, by
    more than the tracker's jitter (``JITTER_PX``) at both ends: a body slowing through the top of a flight (a low
    bounce of a large body moves under the still bound there for a few frames), not one held still."""
    y = np.asarray(y, float)
    y = y[np.isfinite(y)]
    if len(y) < 3:
        return False
    top = int(np.argmin(y))
    return 0 < top < len(y) - 1 and min(y[0], y[-1]) - y[top] > JITTER_PX


def _usual_strip(frames: np.ndarray, track: Track, rows: slice, cols: slice, min_frames: int = 3) -> np.ndarray | None:
    """(n, 3) CIELAB: the clip's usual picture (the per-pixel median) in the strip ``rows`` x ``cols`` (video px) of
    ``frames`` (T, H, W, 3) RGB, over the frames in which ``track``'s box does not cover the strip (a body that rests
    by the strip for most of the clip is not what lies behind it); None when fewer than ``min_frames`` leave it
    uncovered."""
    boxes = np.asarray(track.boxes_xyxy, float)
    ok = observed(track)
    covers = ok & (boxes[:, 0] <= cols.stop - 1) & (boxes[:, 2] >= cols.start) \
        & (boxes[:, 1] <= rows.stop - 1) & (boxes[:, 3] >= rows.start)
    free = np.flatnonzero(~covers)
    if len(free) < min_frames:
        return None
    return rgb_to_lab(np.median(frames[:, rows, cols][free], axis=0).reshape(-1, 3).astype(np.float64))


def _let_go_by_nothing(track: Track, ok: np.ndarray, frames: np.ndarray, e: int, above: slice, below: slice,
                       cols: slice, max_diff: float = 10.0, within: int = 8, max_growth: float = 1.3) -> bool:
    """Over a backdrop that is not one plain surface (an edge under the body may be a shelf's): did anything let the
    body go? It rests at frame ``e`` and then falls straight down through the strip ``below`` it (rows, ``cols``;
    ``ok`` (T,) its observed frames): within ``within`` frames its box's top is under that strip, at its own
    apparent size (within x``max_growth`` in area: no move toward the camera along a floor), while the strips over
    and under the place it rested show then what they showed while it rested (channel-max difference, mean under
    ``max_diff``), and the strip under it shows the body in a frame on its way down (two thirds of its rows over
    ``max_diff`` from what they showed while it rested: the body goes down in front of whatever edge lies there). A
    shelf it stood on would be in its way (it would pass through it); one in front of it hides it as it goes, and may
    hide what held it; a hand, a trapdoor or a body that held it moves or goes when it lets go."""
    area = np.asarray(track.area_px, float)
    t_count = len(frames)
    gone = next((k for k in range(e + 1, min(e + 1 + within, t_count))
                 if ok[k] and track.boxes_xyxy[k, 1] > below.stop), None)
    if gone is None or not ok[e] or area[e] <= 0:
        return False
    if max(area[gone] / area[e], area[e] / max(area[gone], 1e-6)) > max_growth:
        return False
    # it goes down in front of what lies under it: the strip shows the body in a frame on the way (a shelf in front
    # of it would hide it there, and may stand in front of what held it)
    def changed(k: int, rows: slice) -> bool:  # the strip at frame k against frame e
        return float(channel_max_diff(frames[k, rows, cols], frames[e, rows, cols]).mean()) > max_diff

    def shown_over(k: int) -> bool:
        # the body in front of two thirds of the strip's rows or more: a shelf in front that begins a row or two
        # under the place it rested hides it from those rows, though the rows above the shelf show it go by
        rows = channel_max_diff(frames[k, below, cols], frames[e, below, cols]).mean(axis=1)
        return int((rows > max_diff).sum()) * 3 >= 2 * len(rows)

    passing = [k for k in range(e + 1, gone) if ok[k] and track.boxes_xyxy[k, 3] >= below.start
               and track.boxes_xyxy[k, 1] < below.stop]
    return any(shown_over(k) for k in passing) and not changed(gone, above) and not changed(gone, below)


def _rises_unaided(track: Track, r: float) -> list[tuple[int, int, str]]:
    """Rises no unsupported body makes: from a rest, up more than 1.5 radii within half a second, faster and
    faster (pushed up all the way: :func:`_pushed_up`), or a rebound much higher than a drop that began at rest at
    its apex (energy from nowhere, as in a fall played backwards; the body seen whole over it:
    :func:`_whole_over_bounce`), or a body lying on the floor that leaves it at
    once (:func:`_leaves_the_floor`). At the same apparent size throughout (not a move in depth), with no merge on
    the way (``_takes_in_a_neighbour``: a blob that takes in a neighbour drags its centre up).

    A rest is a stationary run, or the clip's opening frames (two or more) in which the body stands still: a body
    the clip opens on at rest has rested there for as long as anyone can tell, however soon it moves."""
    ok = observed(track)
    bottom = track.boxes_xyxy[:, 3]
    size = area_radius(track)
    t = track.times_s
    out = []
    y = track.centroid_px[:, 1]
    rests = stationary_runs(track)
    opening = [(s, e) for s, e in stationary_runs(track, min_frames=2, min_seconds=0.0) if s == 0]
    if opening and not any(s == 0 for s, _ in rests):
        rests = opening[:1] + rests
    for s, e in rests:
        horizon = int(np.searchsorted(t, t[e] + 1.0))
        for f in range(e + 1, min(horizon, len(t))):
            if not ok[f] or (f - e >= 2 and y[f] >= y[f - 1]):
                break  # lost, or no longer rising
            if (bottom[e] - bottom[f]) / r > 1.5:
                # a body that rises moves there: the centre too, rising over the last three frames, at one size
                # (a box that jumps in a frame or two is the segmentation, not the body)
                climb = np.diff(y[max(f - 3, e):f + 1])
                if (f - e >= 3 and (y[e] - y[f]) / r > 1.5 and climb.size >= 3 and (climb < 0).all()
                        and np.nanmax(size[e:f + 1]) / np.nanmin(size[e:f + 1]) < 1.2
                        and not _takes_in_a_neighbour(track, e, f) and _pushed_up(t[e:f + 1], y[e:f + 1])):
                    top = top_of_rise(y, ok, f)  # the window is the whole rise, from the last frame at rest
                    out.append((e, top, f"rises {(bottom[e] - bottom[f]) / r:.1f} radii from rest within "
                                        f"{t[f] - t[e]:.2f} s, with nothing launching it"))
                    break
    out += _leaves_the_floor(track, r, size)
    for c in floor_contacts(track):
        if (c.kind == "bounce" and c.from_apex and c.rebound_radii > 1.3 * c.drop_radii + 0.75
                and _whole_over_bounce(track, c.frame)):
            out.append((max(c.frame - 1, 0), c.frame + 2, f"rebounds {c.rebound_radii:.1f} radii after a fall of "
                        f"{c.drop_radii:.1f} radii from rest: gains height with nothing pushing it"))
    return sorted(out)


def _whole_over_bounce(track: Track, frame: int, max_ratio: float = 1.5) -> bool:
    """Is the body seen at one size over the bounce at ``frame``: over the observed frames from the top of the drop
    into it (back over the frames that come down) to the top of the rebound, is the largest radius of a circle of
    its blob's area (px) at most x``max_ratio`` the smallest? A blob that drops to a speck of its colour or takes in
    the floor's pattern on the way moves its centre by what it lost or gained: its rows are no body's height, and a
    rebound read from them is no energy from nowhere."""
    ok = observed(track)
    y = track.centroid_px[:, 1]
    span = np.arange(top_of_fall(y, ok, frame), top_of_rise(y, ok, frame) + 1)
    radii = np.sqrt(np.asarray(track.area_px, float)[span[ok[span]]] / np.pi)
    radii = radii[radii > 0]
    return radii.size >= 2 and float(radii.max()) <= max_ratio * float(radii.min())


def _leaves_the_floor(track: Track, r: float, size: np.ndarray, *, on_floor_frames: int = 3,
                      level_radii: float = 0.5, min_launch_radii: float = 1.0, min_rise_radii: float = 1.5
                      ) -> list[tuple[int, int, str]]:
    """A body on the lowest level it is ever seen at (at rest or sliding along it, its bottom level over
    ``on_floor_frames`` observed frames) that leaves it upward at once: its first step up ``min_launch_radii`` or
    more and over twice its sideways step before (not a ramp), then rising slower frame by frame, braked as a free
    rise is (``SLOW_MOTION_ACCEL_RADII`` or more, the least gravity the fall checks take), ``min_rise_radii`` or more
    in all, at one size. Nothing on a floor takes off by itself: a bounce comes down onto the floor first, a throw
    starts in a hand above it; a fall played backwards does it (the landing reversed)."""
    ok = observed(track)
    y, x, bottom = track.centroid_px[:, 1], track.centroid_px[:, 0], track.boxes_xyxy[:, 3]
    lowest = float(np.nanmax(np.where(ok, bottom, np.nan))) if ok.any() else np.nan
    n = on_floor_frames
    for f in range(n, len(y) - 2):
        before = slice(f - n, f)
        if not ok[before].all() or not ok[f:f + 3].all():
            continue
        flat = np.ptp(bottom[before]) <= level_radii * r and np.abs(np.diff(y[before])).max() <= level_radii * r
        if not flat or bottom[f - 1] < lowest - level_radii * r:
            continue  # not lying on the lowest level it reaches (a hand above the floor, a ledge)
        steps = y[f - 1:f + 3] - y[f - 2:f + 2]  # the step into f-1 (on the floor), then three steps up
        launch = -steps[1]
        if launch < min_launch_radii * r or launch < 2.0 * abs(x[f - 1] - x[f - 2]):
            continue
        rise = -steps[1:]
        if not (rise > 0).all() or not (np.diff(rise) < 0).all() \
                or quadratic_motion(track.times_s[f - 1:f + 3], y[f - 1:f + 3])[0] / r < SLOW_MOTION_ACCEL_RADII:
            # not a free rise at once, braked by gravity (y down: the fitted acceleration points down; a ball
            # knocked away along a floor seen from above climbs the image too, slowed only by rolling friction)
            continue
        top = top_of_rise(y, ok, f + 2)
        height = (bottom[f - 1] - float(np.nanmin(bottom[f:top + 1]))) / r
        sizes = size[f - 1:top + 1]
        if height < min_rise_radii or np.nanmax(sizes) / np.nanmin(sizes) >= 1.2:
            continue
        return [(f - 1, top, f"leaves the floor it lay on at once, {launch / r:.1f} radii up in one frame, and "
                             f"rises {height:.1f} radii slower and slower, with nothing launching it (a landing "
                             "played backwards)")]
    return []


def _pushed_up(t: np.ndarray, y: np.ndarray) -> bool:
    """Does a climb from rest (times ``t`` s, centre rows ``y`` px, y down) speed up, as a body pushed up the
    whole way does? Fitted as ``y0 + v0 t + (a/2) t^2``, the upward acceleration must give half the climb or more.
    Gravity slows every free rise, and whatever launches a body at once (a throw, a kick, a bounce) gives it its
    speed at the start: such a body rises at a steady or falling speed, and so does a body rolling away along a
    floor seen from above, which the image shows climbing at one size."""
    a, _, _ = quadratic_motion(t, y)
    climb = float(y[0] - y[-1])
    return a < 0 and 0.5 * -a * float(t[-1] - t[0]) ** 2 >= 0.5 * climb


def _height_above(track: Track, s: int, e: int, contacts: list[Contact], floor: float | None) -> float:
    """How far (radii) the subject's bottom over frames ``s..e`` is above the lowest level it touched before
    (the floor line when it touched none); NaN when there is neither."""
    r = radius(track)
    bottom = float(np.nanmedian(track.boxes_xyxy[s:e + 1, 3]))
    lows = [c.bottom_px for c in contacts if c.frame < s]
    ref = max(lows) if lows else floor
    return (ref - bottom) / r if ref is not None else float("nan")


def _hover_runs(track: Track, contacts: list[Contact], floor: float | None,
                hover_radii: float) -> list[tuple[int, int]]:
    """Stationary runs well above a level the subject had already come down to (a floor it touched), and
    above the floor line when there is one. A subject held still before it is released is not hovering:
    it never came down before. ``hover_radii``: how high above that level a stationary run is hovering."""
    out = []
    r = radius(track)
    ok = observed(track)
    y = track.centroid_px[:, 1]
    rs = size_radius(track)
    for s, e in stationary_runs(track):
        before = [c for c in contacts if c.frame < s]
        if not before:
            continue
        # the level it came down to must be a floor seen edge-on: the background's floor line where it
        # touched, or two touches at the same row (a floor seen in perspective puts rests higher up)
        lows = [c.bottom_px for c in before]
        level_ok = (floor is not None and abs(max(lows) - floor) <= 0.75 * r) or (
            len(lows) >= 2 and max(lows) - min(lows) <= 0.5 * r)
        if not level_ok:
            continue
        h = _height_above(track, s, e, contacts, None)
        if not np.isfinite(h) or h < hover_radii:
            continue
        if floor is not None and (floor - float(np.nanmedian(track.boxes_xyxy[s:e + 1, 3]))) / r < hover_radii:
            continue
        # it got there flying up (a rebound), observed throughout, at the same apparent size (no depth change)
        a = max(s - 4, before[-1].frame)
        if not ok[a:e + 1].all() or y[a] - y[s] < 0.5 * r:
            continue
        landed = rs[max(before[-1].frame - 3, 0):before[-1].frame + 1]
        if abs(np.nanmedian(rs[s:e + 1]) / np.nanmedian(landed) - 1) > 0.2:
            continue
        out.append((s, e))
    return out


def support(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """At rest only when supported: no stationary run in mid-air above a level it had landed on, no pause in a
    flight, no rise from rest with nothing launching it, and no airborne run that accelerates upward or sideways
    (:func:`_pushed_sideways`)."""
    req = "at rest only when supported (no hovering without contact)"
    if video.sanity.likely_slow_motion:
        return unknown("likely slow motion: a slowed apex looks like a pause, so hovering is not judged",
                       required=req)
    contacts = floor_contacts(track)
    hov = _hover_runs(track, contacts, floor_row_of(track), tol.hover_radii)
    still = stationary_runs(track)
    r = radius(track)
    pauses = _pauses_in_fall(track, r)
    if pauses:
        s, e = pauses[0]
        way = "coming down" if track.centroid_px[e + 1, 1] > track.centroid_px[e, 1] else "going up"
        return measurement("contradicted", req, f"stops in mid-flight for {track.times_s[e] - track.times_s[s]:.2f} "
                           f"s (frames {s}-{e}), {way} before and after", window=video.window(s, e),
                           stationary_runs=still)
    released = _released_unsupported(track, video, r, tol.hover_radii)
    if released:
        s, e = released[0]
        return measurement("contradicted", req, f"at rest in mid-air for {track.times_s[e] - track.times_s[s]:.2f} s "
                           f"(frames {s}-{e}) with nothing under it, then falls", window=video.window(s, e),
                           stationary_runs=still)
    rises = _rises_unaided(track, r)
    if rises:
        s, e, what = rises[0]
        return measurement("contradicted", req, what, window=video.window(s, e), stationary_runs=still)
    # in flight, whatever the prompt says of it (thrown, flying, bouncing): nothing holds a body up that speeds up
    # upward with no contact (the free-fall check's own test, on every airborne run of the subject)
    segments = _airborne_segments(track, contacts, still, r)[0]
    pushed_up = _pushes_up(track, segments, r)
    if pushed_up:
        seg = pushed_up[0]
        s, e = seg["frames"]
        return measurement("contradicted", req, f"in flight with nothing holding it, it accelerates upward: a = "
                           f"{-seg['accel_radii_s2']:.1f} radii/s^2 up over frames {s}-{e}",
                           window=video.window(s, e), stationary_runs=still)
    # ... nor sideways (the free-fall check's own test, for a body the prompt throws rather than drops)
    pushed = _pushed_sideways(track, segments, tol.sideways_accel_ratio)
    if pushed is not None:
        s, e = pushed["frames"]
        return measurement("contradicted", req, _sideways_push_text(pushed), window=video.window(s, e),
                           stationary_runs=still)
    if hov:
        s, e = hov[0]
        height = _height_above(track, s, e, contacts, floor_row_of(track))
        return measurement("contradicted", req, f"at rest {height:.1f} radii above the level it had landed on, for "
                           f"{track.times_s[e] - track.times_s[s]:.2f} s", window=video.window(s, e),
                           stationary_runs=still)
    if not still:
        return measurement("supported", req, "never at rest in mid-air (no stationary run)", stationary_runs=still)
    return measurement("supported", req, f"{len(still)} stationary run(s), none above a level it had landed on",
                       stationary_runs=still)

