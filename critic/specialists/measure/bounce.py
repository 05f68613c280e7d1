"""Bounce: a velocity reversal at a contact with a surface, rebounding no higher than the drop.

Contacts come from ``kinematics.floor_contacts`` along the image's y axis (the floor) or x axis (``surface="wall"``),
with sub-frame times where parabolas fit on both sides. A rebound is weighed against its drop counted from rest (a
body first seen already falling fell from higher than it shows) where the track is on the body at the contact (its
place there on the sideways line through the frames beside it).
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import (Contact, floor_contacts, last_seen_before, observed, radius,
                                          stationary_runs, top_of_fall, top_of_rise, wall_contacts)
from critic.specialists.measure.common import Tolerances, measurement
from critic.specialists.measure.continuity import colour_pixels, subject_lab
from critic.types import Measurement, MeasureOp, Track, VideoContext


def bounce(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances) -> Measurement:
    """Bounces (``expect.n`` of them when given), each rebound no higher than its drop; asserted absent, whether it
    bounces at all (the state is the property's, see ``common.for_expectation``). Windows ``contact`` (the
    first impact, one frame period around its sub-frame time) and ``rebound`` (from it to the next contact)."""
    r = radius(track)
    axis = 0 if op.surface == "wall" else 1
    contacts = wall_contacts(track) if axis == 0 else floor_contacts(track)
    bounces = [c for c in contacts if c.kind == "bounce"]
    req_n = f"{op.expect.n} bounce(s)" if op.expect.n is not None else ("bounces" if op.expect.holds else "no bounce")
    req = f"{req_n}: velocity reversal at contact" + (", rebound height <= drop height" if axis == 1 else "")
    dt = video.frame_period_s
    values = {"contacts": [c.__dict__ for c in contacts], "radius_px": r}
    windows = {}
    if bounces:
        c0 = bounces[0]
        windows["contact"] = video.window_s(*c0.span_s(dt))
        windows["rebound"] = video.window(c0.frame, _rebound_end(track, contacts, c0.frame))
    if not op.expect.holds:
        # "does not bounce": whether it bounces at all is the property (a rebound's height does not matter)
        if bounces:
            return measurement("supported", req, f"{len(bounces)} bounce(s)", window=windows["contact"],
                               windows=windows, **values)
        hidden = _rebound_unseen(track, contacts[0], video, req, values) if contacts else None
        if hidden is not None:
            return hidden
        return measurement("contradicted", req, "lands without rebounding", windows=windows,
                           window=video.window(_came_down_from(track, contacts[0].frame),
                                               _stays_down_until(track, contacts[0].frame, video.num_frames)),
                           **values) if contacts else unknown(
            "the subject never reaches a surface in view", required=req, **values)
    # rebounding higher than the drop breaks energy conservation against gravity; off a wall, how far it rolls
    # back is bounded by nothing the approach shows (a push, a slope, spin), so the test is the floor's alone
    for c in bounces if axis == 1 else []:
        if _off_its_line_at(track, c, r):
            # the track was on another body at the contact, or went on to one from it: neither the drop into it nor
            # the rise out of it is this body's
            continue
        # the drop counted from rest: a body first seen already coming down (where the track begins, or out of frames
        # it is not seen in) fell from higher than the picture shows
        drop = _drop_from_rest(track, c, r)
        if drop is None:
            continue
        if c.rebound_radii > 1.15 * drop + 0.5:
            # the frames that show it: the whole rebound, from the impact until it comes down again (the next
            # contact; or, when there is none, the last frame it is seen): the arc is too high, not one frame of it
            end = _rebound_end(track, contacts, c.frame)
            return measurement("contradicted", "rebound height <= drop height",
                               f"rebound {c.rebound_radii:.1f} radii after a drop of {drop:.1f} radii",
                               window=video.window(max(c.frame - 1, 0), max(end, c.frame + 2)), windows=windows,
                               **values)
        above = _rebound_above_view(track, video, c, r)
        if above is not None and above[0] > 1.15 * drop + 0.5:
            least, out, back = above
            return measurement("contradicted", "rebound height <= drop height",
                               f"rebound of {least:.1f} radii or more after a drop of {drop:.1f} radii from "
                               f"rest in view: it rises out of the top of the picture after frame {out} and falls back "
                               f"into it at frame {back}", window=video.window(max(c.frame - 1, 0), back),
                               windows=windows, **values)
    if not contacts:
        return unknown("no contact with a surface observed (it never comes to one in view)", required=req,
                       **values)
    if not bounces:
        c = contacts[0]
        if axis == 0:
            # off a wall the rebound is the approach speed times the restitution, spent against friction and cut
            # short by a landing: however far it came from, a stop at the wall may hide a rebound too short to see
            return unknown(f"stops at frame {c.frame} after {c.drop_radii:.1f} radii toward a wall with no rebound "
                           "seen: a rebound off a wall need not carry it far enough to see", required=req, **values)
        if c.drop_radii < tol.min_bounce_drop_radii:
            # a dull body's rebound after so short a drop is under what the contact finder tells from jitter
            return unknown(f"lands after a drop of {c.drop_radii:.1f} radii with no rebound seen: a rebound after a "
                           f"drop under {tol.min_bounce_drop_radii:g} radii may be too low to see", required=req,
                           **values)
        turn = _turn_up_before(track, c.frame, r)
        if turn is not None:
            # it went up before this landing (after coming down, or from the first frame the track shows it): a
            # rebound off a landing the contact finder did not see (hidden behind something, seen only in part, or
            # before the track begins), so the landing that stays down need not be its only one
            low, top, rise = turn
            return unknown(f"lands after a drop of {c.drop_radii:.1f} radii without rebounding, but before that it "
                           f"rises {rise:.1f} radii (frames {low}-{top}): a bounce whose landing was not seen",
                           required=req, **values)
        hidden = _rebound_unseen(track, c, video, req, values)
        if hidden is not None:
            return hidden
        return measurement("contradicted", req, f"lands after a drop of {c.drop_radii:.1f} radii without rebounding",
                           window=video.window(_came_down_from(track, c.frame), _stays_down_until(track, c.frame,
                                                                                             video.num_frames)),
                           windows={"contact": video.window(c.frame, c.frame)}, **values)
    if op.expect.n is not None:
        clear = [c for c in bounces if c.rebound_radii >= 1.0]
        if len(clear) <= op.expect.n <= len(bounces):
            return measurement("supported", req, f"{len(bounces)} bounce(s) ({len(clear)} clear)",
                               window=windows["contact"], windows=windows, **values)
        if len(bounces) < op.expect.n and observed(track)[-1] and not track.touches_border[-1]:
            return measurement("contradicted", req, f"{len(bounces)} bounce(s)", window=windows["rebound"],
                               windows=windows, **values)
        if len(clear) > op.expect.n:
            c = clear[op.expect.n]
            return measurement("contradicted", req, f"{len(clear)} clear bounce(s)",
                               window=video.window(c.frame - 1, c.frame + 1), windows=windows, **values)
        return unknown(f"{len(bounces)} bounce(s) seen, the clip may end before the rest", required=req, **values)
    return measurement("supported", req, f"{len(bounces)} bounce(s); first rebound {bounces[0].rebound_radii:.1f} of "
                       f"{bounces[0].drop_radii:.1f} radii dropped", window=windows["contact"], windows=windows,
                       **values)


def _drop_from_rest(track: Track, c: Contact, r: float) -> float | None:
    """Radii: the drop into the bounce ``c`` counted from where the body was at rest, or None where the picture does
    not tell it. The descent (back from the contact over the frames seen in a row while they come down,
    :func:`top_of_fall`) that begins at an apex seen (the frame before it seen, no higher) is the whole drop. One that
    begins where the track does, or after frames the body is lost in, may have begun higher: a body already falling
    there at (at most) its first step's speed v had fallen v^2 / 2a from rest, ``a`` its fall's own acceleration
    (the growth of its steps down, the last one left out: it may end at the floor part of the way through) or that
    of its rise after the bounce (the shrinking of its steps up, the first one left out), the lesser of the two
    (gravity is one; the lesser counts the most height unseen). None where neither shows an acceleration (under three
    whole steps either way), or the descent begins at the picture's top edge (a body coming into view)."""
    ok = observed(track)
    y = track.centroid_px[:, 1]
    k = c.frame
    j0 = top_of_fall(y, ok, k)
    if j0 >= 1 and ok[j0 - 1] and y[j0 - 1] >= y[j0]:
        return c.drop_radii
    if k - j0 < 1 or track.boxes_xyxy[j0, 1] <= 1.0:
        return None
    down = np.diff(y[j0:k])  # whole steps down, the step into the contact left out
    rise_end = top_of_rise(y, ok, k)
    up = -np.diff(y[k + 1:rise_end + 1]) if rise_end > k + 1 else np.zeros(0)  # whole steps up
    accels = [float(np.median(np.diff(down)))] if len(down) >= 3 else []
    accels += [float(np.median(-np.diff(up)))] if len(up) >= 3 else []
    accels = [a for a in accels if a > 0]
    if not accels:
        return None
    first = float(y[j0 + 1] - y[j0])
    return c.drop_radii + first ** 2 / (2.0 * min(accels)) / r


def _off_its_line_at(track: Track, c: Contact, r: float, min_radii: float = 2.0, min_px: float = 3.0) -> bool:
    """Is the body's place at the floor contact ``c`` off the sideways line through the frames before and after it
    by over ``min_radii`` of its radius ``r`` (px) and ``min_px``, all three frames seen? A floor pushes up: a body
    that bounces keeps (nearly) the sideways speed it came with, its place at the contact halfway between its places
    a frame before and after (a blob squashed at the floor, or partly merged with it, moves its centre by under a
    radius); a track that steps aside by radii for that one frame and back was on another body there, and one that
    steps aside by twice that at once after it went on to another body."""
    ok = observed(track)
    k = c.frame
    if k < 1 or k + 1 >= len(ok) or not (ok[k - 1] and ok[k] and ok[k + 1]):
        return False
    x = track.centroid_px[:, 0]
    return bool(abs(x[k] - 0.5 * (x[k - 1] + x[k + 1])) > max(min_radii * r, min_px))


def _rebound_above_view(track: Track, video: VideoContext, c: Contact, r: float, min_unseen: int = 2,
                        max_start_share: float = 0.25) -> tuple[float, int, int] | None:
    """How high, at least, the rebound from the bounce ``c`` went when its apex is above the picture: the body rises
    frame after frame from the bounce to a last frame ``out`` within one of its steps of the picture's top edge, is
    not seen for ``min_unseen`` frames or more, and is seen again at ``back`` falling from within one of its steps of
    the top edge; over the frames between, under a quarter of its area of its colour shows between the top edge and
    where it was last (so it was above the picture, not hidden in it). Its centre then rose a radius above the top
    edge at least.
    The drop into the bounce must start from rest in view (a descent from an apex seen, or from a first frame in full
    view that moves under ``max_start_share`` of the last step before the bounce): a body that came in from above the
    picture fell from a height it does not show. -> (rebound at least, radii; ``out``; ``back``) or None. Image y
    grows downward; ``r``: the radius (px)."""
    ok = observed(track)
    y = track.centroid_px[:, 1]
    seen = np.flatnonzero(ok)
    k = c.frame
    # the descent into the bounce: back over the frames seen in a row while they come down
    j0 = top_of_fall(y, ok, k)
    if k - j0 < 2:
        return None
    apex_seen = j0 >= 1 and ok[j0 - 1] and y[j0 - 1] >= y[j0]
    first_step, last_step = y[j0 + 1] - y[j0], y[k] - y[k - 1]
    if not apex_seen and (track.boxes_xyxy[j0, 1] <= 1.0 or first_step > max_start_share * last_step):
        return None
    # the rise after it, frame after frame, to the last frame seen before a gap
    rise = [k]
    for j in seen[seen > k]:
        if j - rise[-1] > 1:
            break
        if y[j] >= y[rise[-1]]:
            return None  # its apex is in view
        rise.append(int(j))
    later = seen[seen > rise[-1]]
    if len(rise) < 3 or not later.size or later[0] - rise[-1] - 1 < min_unseen:
        return None
    out, back = rise[-1], int(later[0])
    up = float(y[rise[-2]] - y[out])
    after = seen[seen > back]
    if y[out] - r > up or not after.size or after[0] - back > 2:
        return None
    down = float(y[after[0]] - y[back]) / float(after[0] - back)
    if down <= 0 or y[back] - r > down:
        return None
    lab = subject_lab(video, track, out)
    if lab is None:
        return None
    corner = np.array([track.centroid_px[out, 0], 0.0])
    reach = float(y[out]) + 2.0 * r
    if any(colour_pixels(video, j, corner, lab, reach)[0] >= 0.25 * np.pi * r * r for j in range(out + 1, back)):
        return None
    return (float(y[k]) + r) / r, out, back


def _turn_up_before(track: Track, frame: int, r: float, min_radii: float = 1.5) -> tuple[int, int, float] | None:
    """Where the body, observed in every frame, comes down ``min_radii`` radii or more (image y grows) and then rises
    as much again without a break (y falling at every step) before ``frame``; or rises as much from the first frame
    it is seen (a descent before that first frame is not in the track, the landing it rose from neither): (lowest
    frame, highest frame after it, rise in radii) of the first such turn, or None. Track centroids (T, 2) px, y
    down."""
    ok = observed(track)
    y = track.centroid_px[:, 1]
    seen = np.flatnonzero(ok)
    if seen.size == 0:
        return None
    first = int(seen[0])
    # (a rise ends before ``frame``: the landing there is come down to)
    top = top_of_rise(y, ok, first)
    if (y[first] - y[top]) / r >= min_radii:
        return first, top, float((y[first] - y[top]) / r)
    k = 1
    while k < frame:
        if not (ok[k] and ok[k - 1] and y[k] > y[k - 1]):
            k += 1
            continue
        # a descent from a (local) top before k down to the lowest frame ``low``
        start = k - 1
        while start > 0 and ok[start - 1] and y[start - 1] <= y[start]:
            start -= 1
        low = k
        while low + 1 < frame and ok[low + 1] and y[low + 1] >= y[low]:
            low += 1
        top = top_of_rise(y, ok, low)
        if (y[low] - y[start]) / r >= min_radii and (y[low] - y[top]) / r >= min_radii:
            return low, top, float((y[low] - y[top]) / r)
        k = top + 1
    return None


def _rebound_unseen(track: Track, landing: Contact, video: VideoContext, req: str, values: dict,
                    after: int = 3) -> Measurement | None:
    """Unknown where one of the ``after`` frames following the ``landing`` does not show the body (not observed, or
    past the clip's last frame), else None. A rebound lasts a few frames at most: a frame among them that does not
    show the body (lost by the tracker, or past the clip's end) may hold it, so a landing reads as one without a
    rebound only where the frames a rebound would fill are seen (the frames ``_stays_down_until`` reads)."""
    ok = observed(track)
    for k in range(landing.frame + 1, landing.frame + after + 1):
        if k >= video.num_frames or not ok[k]:
            return unknown(f"lands after a drop of {landing.drop_radii:.1f} radii at frame {landing.frame}, but frame "
                           f"{k} right after it does not show the body: a rebound may be in the frames unseen",
                           required=req, **values)
    return None


def _came_down_from(track: Track, frame: int) -> int:
    """The first frame that shows a body landing at ``frame`` (an observed frame) come down: the last frame it is seen
    before it (the frame before, unless the tracker lost it as it landed: then it landed in the frames unseen after
    that one, ``kinematics.floor_contacts``)."""
    seen = last_seen_before(observed(track), frame)
    return seen if seen is not None else max(frame - 1, 0)


def _stays_down_until(track: Track, frame: int, num_frames: int, after: int = 3) -> int:
    """The last frame that shows a body landing at ``frame`` stay down: the end of the stationary run it comes to
    rest in (one starting within ``after`` frames of the landing), and never before ``frame + after`` (the frames in
    which a rebound would have shown), within the clip's ``num_frames``."""
    end = frame + after
    for s, e in stationary_runs(track):
        if frame - 1 <= s <= frame + after:
            end = max(end, e)
            break
    return min(end, num_frames - 1)


def _rebound_end(track: Track, contacts: list[Contact], frame: int) -> int:
    """The frame a rebound from the contact at ``frame`` ends: the next contact, or the track's last observed
    frame."""
    nxt = [c.frame for c in contacts if c.frame > frame]
    return nxt[0] if nxt else int(np.flatnonzero(observed(track))[-1])
