"""``measure``: the eleven track-based physical measurements (DESIGN §5), offline, from tracks alone.

Displacements are in the subject's radii (``kinematics.radius``), times from the container. Every answer
states what was required and what was measured, and the event windows found. The tolerances are chosen so
that a correct clip is never contradicted by tracking noise; where a check cannot tell (no floor line, the
subject left the frame, slow motion for a magnitude), the state is unknown with the reason. A track whose binding
to its subject is not firm (``tracking.grounding_doubt``) gives unknown whatever it measured: the measurement may be
about another object.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import (floor_contacts, observed, parabola_fit, radius, runs, size_radius,
                                           stationary_runs, velocity)
from critic.specialists.tracking import grounding_doubt
from critic.types import Cost, Measurement, MeasureOp, Track, VideoContext

#: Below this downward acceleration (radii/s^2) a real fall would need a ball over ~0.5 m across at 9.81 m/s^2:
#: the time base is more likely slowed than gravity weak.
SLOW_MOTION_ACCEL_RADII = 20.0


def withhold_if_doubtful(result: Measurement, tracks: list[Track]) -> Measurement:
    """A state measured on a track that may not be its subject (ambiguous grounding, see
    ``tracking.binding_evidence``) is evidence neither against nor for the prompt: it becomes unknown, keeping
    what was measured, the event windows found, and why the state is withheld."""
    if result.state == "unknown":
        return result
    doubts = [d for d in (grounding_doubt(t) for t in tracks) if d]
    if not doubts:
        return result
    what = "contradiction" if result.state == "contradicted" else "support"
    return Measurement(state="unknown", required=result.required, measured=result.measured,
                       reason="; ".join(doubts) + f" - the {what} measured on it is withheld",
                       windows=result.windows, values={**result.values, "withheld": result.state},
                       cost=result.cost)


def _pick(tracks: list[Track]) -> Track | None:
    """The instance to measure: the one observed longest (a subject with several instances is measured on
    each by the executor's plan; here the best-observed one)."""
    tracks = [t for t in tracks if observed(t).sum() >= 3]
    # the most salient instance: seen longest, weighted by its size
    return max(tracks, key=lambda t: int(observed(t).sum()) * max(t.radius_px, 0.0)) if tracks else None


def _floor_row(track: Track) -> float | None:
    v = (track.meta or {}).get("floor_row_px")
    return float(v) if v is not None else None


def _m(state: str, required: str, measured: str, *, window=None, windows=None, reason: str = "",
       **values: Any) -> Measurement:
    return Measurement(state=state, required=required, measured=measured, reason=reason, window=window,
                       windows=windows or {}, values=_jsonable(values), cost=Cost(tool_calls=1))


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return round(f, 6) if np.isfinite(f) else None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


class TrackMeasurer:
    """``measure`` specialist over tracks (offline default)."""

    name = "tracks"
    version = "2"

    def __init__(self, teleport_radii: float = 2.5, hover_radii: float = 1.5, morph_ratio: float = 1.6,
                 morph_window_s: float = 0.3, rest_speed_radii_per_s: float = 1.0, contact_gap_radii: float = 0.35,
                 noise_sigmas: float = 6.0, min_change_px: float = 2.5, abrupt_step: float = 1.4):
        self.teleport_radii = teleport_radii
        self.hover_radii = hover_radii
        self.morph_ratio = morph_ratio
        self.morph_window_s = morph_window_s
        self.rest_speed_radii_per_s = rest_speed_radii_per_s
        self.contact_gap_radii = contact_gap_radii
        #: a size change must exceed this many robust sigmas of the track's frame-to-frame log-size noise
        self.noise_sigmas = noise_sigmas
        #: ... and this many pixels of radius (box sides are whole pixels; blur adds about one)
        self.min_change_px = min_change_px
        #: a radius step larger than this between consecutive frames is a merge or split of blobs
        self.abrupt_step = abrupt_step

    def run(self, op: MeasureOp, inputs: dict[str, Any], video: VideoContext) -> Measurement:
        tracks = inputs.get("tracks", {})
        track = _pick(tracks.get(op.subject, []))
        fn: Callable[..., Measurement] = getattr(self, f"_{op.quantity}")
        if track is None:
            return unknown(f"'{op.subject}' was not found in the clip", required=op.quantity)
        other = _pick(tracks.get(op.other, [])) if op.other else None
        if op.other and other is None:
            return unknown(f"'{op.other}' was not found in the clip", required=op.quantity)
        result = fn(op, track, other, video)
        return withhold_if_doubtful(result, [track] + ([other] if other is not None else []))

    # ------------------------------------------------------------------ free fall
    def _free_fall(self, op, track, other, video) -> Measurement:
        r = radius(track)
        req = "while airborne: downward acceleration > 0, near-constant (parabolic height)"
        contacts = floor_contacts(track)
        ok = observed(track)
        cut = np.zeros(len(ok), bool)
        for c in contacts:
            cut[max(c.frame - 1, 0):c.frame + 2] = True
        for s, e in stationary_runs(track):
            cut[s:e + 1] = True
        floor = _floor_row(track)
        segments = []
        hovering = [] if video.sanity.likely_slow_motion else self._hover_runs(track, contacts, floor)
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
            segments.append({"frames": [s, e], "accel_radii_s2": a / r, "rms_radii": rms / r, "vy_radii_s": vy})
        values = {"segments": segments, "radius_px": r}
        if hovering:
            s, e = hovering[0]
            return _m("contradicted", req, f"stationary in mid-air for {track.times_s[e] - track.times_s[s]:.2f} s, "
                      f"{self._height_above(track, s, e, contacts, floor):.1f} radii above where it landed before "
                      "(a = 0 while unsupported)", window=video.window(s, e), **values)
        if not segments:
            return unknown("no airborne segment of 5 observed frames with vertical motion", required=req, **values)
        first = segments[0]
        airborne = video.window(*first["frames"])
        accels = np.array([s["accel_radii_s2"] for s in segments])
        bad = [s for s in segments if s["accel_radii_s2"] < -SLOW_MOTION_ACCEL_RADII and s["rms_radii"] < 0.25
               and s["frames"][1] - s["frames"][0] >= 6 and s["vy_radii_s"] <= 0.0]
        if bad:
            s0 = bad[0]
            return _m("contradicted", req, f"a = {s0['accel_radii_s2']:.1f} radii/s^2 (not downward) over frames "
                      f"{s0['frames'][0]}-{s0['frames'][1]}", window=video.window(*s0["frames"]),
                      windows={"airborne": airborne}, **values)
        notes = []
        if video.sanity.likely_slow_motion:
            notes.append("slow motion flagged by the container: gravity magnitude not checked")
        if float(np.median(accels)) < SLOW_MOTION_ACCEL_RADII:
            notes.append(f"a = {float(np.median(accels)):.1f} radii/s^2 is far below g for everyday objects: "
                         "the time base is likely slowed (magnitude not checked)")
        measured = (f"a = {float(np.median(accels)):.1f} radii/s^2 downward over {len(segments)} airborne segment(s), "
                    f"fit rms {max(s['rms_radii'] for s in segments):.2f} radii")
        return _m("supported", req, measured, window=airborne, windows={"airborne": airborne},
                  reason="; ".join(notes), likely_slow_motion=bool(notes), **values)

    # ------------------------------------------------------------------ support / hovering
    def _height_above(self, track, s, e, contacts, floor) -> float:
        r = radius(track)
        bottom = float(np.nanmedian(track.boxes_xyxy[s:e + 1, 3]))
        lows = [c.bottom_px for c in contacts if c.frame < s]
        ref = max(lows) if lows else floor
        return (ref - bottom) / r if ref is not None else float("nan")

    def _hover_runs(self, track, contacts, floor) -> list[tuple[int, int]]:
        """Stationary runs well above a level the subject had already come down to (a floor it touched), and
        above the floor line when there is one. A subject held still before it is released is not hovering:
        it never came down before."""
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
            h = self._height_above(track, s, e, contacts, None)
            if not np.isfinite(h) or h < self.hover_radii:
                continue
            if floor is not None and (floor - float(np.nanmedian(track.boxes_xyxy[s:e + 1, 3]))) / r < self.hover_radii:
                continue
            # it got there flying up (a rebound), observed throughout, at the same apparent size (no depth change)
            a = max(s - 4, before[-1].frame)
            if not ok[a:e + 1].all() or y[a] - y[s] < 0.5 * r:
                continue
            if abs(np.nanmedian(rs[s:e + 1]) / np.nanmedian(rs[max(before[-1].frame - 3, 0):before[-1].frame + 1]) - 1) > 0.2:
                continue
            out.append((s, e))
        return out

    def _support(self, op, track, other, video) -> Measurement:
        req = "at rest only when supported (no hovering without contact)"
        if video.sanity.likely_slow_motion:
            return unknown("likely slow motion: a slowed apex looks like a pause, so hovering is not judged",
                           required=req)
        contacts = floor_contacts(track)
        hov = self._hover_runs(track, contacts, _floor_row(track))
        still = stationary_runs(track)
        if hov:
            s, e = hov[0]
            return _m("contradicted", req, f"at rest {self._height_above(track, s, e, contacts, _floor_row(track)):.1f} "
                      f"radii above the level it had landed on, for {track.times_s[e] - track.times_s[s]:.2f} s",
                      window=video.window(s, e), stationary_runs=still)
        if not still:
            return _m("supported", req, "never at rest in mid-air (no stationary run)", stationary_runs=still)
        return _m("supported", req, f"{len(still)} stationary run(s), none above a level it had landed on",
                  stationary_runs=still)

    # ------------------------------------------------------------------ bounce
    def _bounce(self, op, track, other, video) -> Measurement:
        r = radius(track)
        axis = 0 if op.surface == "wall" else 1
        contacts = floor_contacts(track, axis=axis)
        bounces = [c for c in contacts if c.kind == "bounce"]
        req_n = f"{op.expect.n} bounce(s)" if op.expect.n is not None else ("bounces" if op.expect.holds else "no bounce")
        req = f"{req_n}: velocity reversal at contact, rebound height <= drop height"
        dt = video.frame_period_s
        values = {"contacts": [c.__dict__ for c in contacts], "radius_px": r}
        windows = {}
        if bounces:
            c0 = bounces[0]
            windows["contact"] = video.window_s(c0.time_s - dt / 2, c0.time_s + dt / 2)
            nxt = [c for c in contacts if c.frame > c0.frame]
            end = nxt[0].frame if nxt else int(np.flatnonzero(observed(track))[-1])
            windows["rebound"] = video.window(c0.frame, end)
        for c in bounces:
            if c.rebound_radii > 1.15 * c.drop_radii + 0.5:
                return _m("contradicted", "rebound height <= drop height", f"rebound {c.rebound_radii:.1f} radii after "
                          f"a drop of {c.drop_radii:.1f} radii", window=video.window(max(c.frame - 1, 0), c.frame + 2),
                          windows=windows, **values)
        if not op.expect.holds:
            if bounces:
                return _m("contradicted", req, f"{len(bounces)} bounce(s)", window=windows["contact"], windows=windows,
                          **values)
            return _m("supported", req, "no bounce", windows=windows, **values) if contacts else unknown(
                "the subject never reaches a surface in view", required=req, **values)
        if not contacts:
            return unknown("no contact with a surface observed (it never comes down to one in view)", required=req,
                           **values)
        if not bounces:
            c = contacts[0]
            return _m("contradicted", req, f"lands after a drop of {c.drop_radii:.1f} radii without rebounding",
                      window=video.window(max(c.frame - 1, 0), min(c.frame + 3, video.num_frames - 1)),
                      windows={"contact": video.window(c.frame, c.frame)}, **values)
        if op.expect.n is not None:
            clear = [c for c in bounces if c.rebound_radii >= 1.0]
            if len(clear) <= op.expect.n <= len(bounces):
                return _m("supported", req, f"{len(bounces)} bounce(s) ({len(clear)} clear)", window=windows["contact"],
                          windows=windows, **values)
            if len(bounces) < op.expect.n and observed(track)[-1] and not track.touches_border[-1]:
                return _m("contradicted", req, f"{len(bounces)} bounce(s)", window=windows["rebound"], windows=windows,
                          **values)
            if len(clear) > op.expect.n:
                c = clear[op.expect.n]
                return _m("contradicted", req, f"{len(clear)} clear bounce(s)", window=video.window(c.frame - 1, c.frame + 1),
                          windows=windows, **values)
            return unknown(f"{len(bounces)} bounce(s) seen, the clip may end before the rest", required=req, **values)
        return _m("supported", req, f"{len(bounces)} bounce(s); first rebound {bounces[0].rebound_radii:.1f} of "
                  f"{bounces[0].drop_radii:.1f} radii dropped", window=windows["contact"], windows=windows, **values)

    # ------------------------------------------------------------------ penetration
    def _penetration(self, op, track, other, video) -> Measurement:
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
                return _m("contradicted", req, f"centres {float(np.nanmin(d[deep])) / r:.2f} radii apart while both seen",
                          window=video.window(s, e))
            return _m("supported", req, "never overlapping by more than half a radius") if both.any() else unknown(
                "the two subjects are never seen together", required=req)
        req = "does not pass into the floor"
        floor = _floor_row(track)
        if op.surface == "wall":
            return unknown("no wall geometry is measured offline", required="does not pass into the wall")
        verdict = self._penetration_by_line(track, floor, req, video) if floor is not None else None
        if verdict is not None and verdict.state == "contradicted":
            return verdict
        # The floor line is the far edge of a floor seen in perspective, or absent: use the level the subject
        # itself lands, rests or rolls on, and check it never sinks below it.
        own = self._penetration_by_own_level(track, req)
        if own is not None:
            return own
        return verdict or unknown("no floor line found in the background and no level the subject stays on",
                                  required=req)

    def _penetration_by_own_level(self, track, req) -> Measurement | None:
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
                return _m("supported", req, f"never sinks below the level it lands or rests on (lowest "
                          f"{(float(np.nanmax(bottom[after])) - level) / r:+.2f} radii)")
            return None
        # rolling or sliding along one row with no fall: the floor holds it
        moving_x = float(np.nanmax(track.centroid_px[ok, 0]) - np.nanmin(track.centroid_px[ok, 0])) / r
        if moving_x > 2.0 and float(np.nanmax(bottom[ok]) - np.nanmin(bottom[ok])) <= 0.5 * r:
            return _m("supported", req, "moves along one row (rolls or slides on a surface) without sinking")
        return None

    def _penetration_by_line(self, track, floor, req, video) -> Measurement | None:
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
            s, e = runs(deep)[0]
            e = runs(deep)[-1][1]
            return _m("contradicted", req, f"centre {float(np.nanmax(depth[deep])):.1f} radii below the floor line",
                      window=video.window(s, e), floor_row_px=floor)
        return _m("supported", req, f"lowest centre {float(np.nanmax(np.where(ok, depth, -np.inf))):.2f} radii "
                  "relative to the floor line", floor_row_px=floor)

    # ------------------------------------------------------------------ continuity
    def _continuity(self, op, track, other, video) -> Measurement:
        req = f"continuous motion: no jump > {self.teleport_radii:g} radii against the neighbouring velocities"
        r = radius(track)
        c = track.centroid_px
        ok = observed(track)
        jumps = []
        for s, e in runs(ok):
            if e - s < 2:
                continue
            v = np.diff(c[s:e + 1], axis=0)  # v[i] = c[s+i+1] - c[s+i]
            for i in range(len(v)):
                nb = [v[j] for j in (i - 1, i + 1) if 0 <= j < len(v)]
                if not nb:
                    continue
                ref = np.mean(nb, axis=0)
                spike = float(np.linalg.norm(v[i] - ref)) / r
                change = float(np.linalg.norm(nb[-1] - nb[0])) / r if len(nb) == 2 else 0.0
                if (spike > self.teleport_radii and spike > 1.2 * change and _same_look(track, s + i, s + i + 1)
                        and not _still_there(video, track, s + i, s + i + 1)
                        and not _still_there(video, track, s + i + 1, s + i)):
                    jumps.append((s + i, s + i + 1, spike))
        # jumps across short gaps (an identity stitched from two tracklets)
        rr = runs(ok)
        for (s0, e0), (s1, e1) in zip(rr, rr[1:]):
            gap = s1 - e0
            if gap > 4 or e0 - s0 < 1:
                continue
            vel = c[e0] - c[e0 - 1]
            pred = c[e0] + vel * gap
            miss = float(np.linalg.norm(c[s1] - pred)) / r
            if (miss > self.teleport_radii + 1.0 * gap and _same_look(track, e0, s1)
                    and not _still_there(video, track, e0, s1) and not _still_there(video, track, s1, e0)):
                jumps.append((e0, s1, miss))
        # a jump across a longer frame interval (a dropped or variable-rate frame) is explained by the time gap
        t = track.times_s
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
        skipped = [j for j in jumps if dt > 0 and (t[j[1]] - t[j[0]]) > 1.5 * dt * (j[1] - j[0])]
        jumps = [j for j in jumps if j not in skipped]
        if jumps:
            a, b, size = max(jumps, key=lambda j: j[2])
            return _m("contradicted", req, f"jump of {size:.1f} radii between frames {a} and {b}",
                      window=video.window(a, b), jumps=jumps)
        if ok.sum() < 3:
            return unknown("fewer than 3 observed frames", required=req)
        if skipped:
            return unknown(f"{len(skipped)} jump(s) across a long frame interval (variable frame rate): not judged",
                           required=req, skipped=skipped)
        return _m("supported", req, "no jump beyond the neighbouring velocities", radius_px=r)

    # ------------------------------------------------------------------ permanence
    def _permanence(self, op, track, other, video) -> Measurement:
        req = "persists: no vanishing without an occluder or leaving the frame"
        ok = np.asarray(track.visible, bool)
        idx = np.flatnonzero(ok)
        if idx.size == 0:
            return unknown("never seen", required=req)
        r = radius(track)
        t_count = video.num_frames
        h, w = video.frames.shape[1:3]
        med_area = float(np.median(track.area_px[ok]))
        events = []
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
            recent = track.area_px[max(last - 2, 0):last + 1]
            if np.any(recent[recent > 0] < 0.7 * med_area):
                continue  # shrinking as it goes: occluded, not vanished
            if other is not None and ok_near(other, track, last, r):
                continue
            if self._patch_occupied(video, track, last):
                continue  # something else covers where it was: an occluder
            if self._patch_unchanged(video, track, last):
                continue  # its place looks as it did: it stopped there and the tracker lost it, it did not vanish
            events.append((last, min(back, t_count - 1)))
        if events:
            a, b = events[0]
            what = "vanishes" if b >= t_count - 1 else f"vanishes and reappears at frame {b}"
            return _m("contradicted", req, f"{what} in open view after frame {a} (full size, away from the border)",
                      window=video.window(a, b), events=events)
        return _m("supported", req, "seen until it leaves the frame, is occluded or the clip ends")

    @staticmethod
    def _patch_occupied(video: VideoContext, track: Track, last: int) -> bool:
        """After the subject's last frame, does its box look like the clip's usual background there (nothing
        in front) or like something else (an occluder)?"""
        found = _box_patch(video, track, last)
        if found is None:
            return False
        patch, bg = found
        after = patch[last + 1:min(last + 4, len(patch))]
        if len(after) == 0:
            return False
        return float(np.abs(after - bg).max(axis=-1).mean()) > 20.0

    @staticmethod
    def _patch_unchanged(video: VideoContext, track: Track, last: int, tol: float = 12.0) -> bool:
        """Do the next frames at the subject's last box look like its last frame there? Then whatever was seen
        is still there (an object that stopped and merged into the median background), not gone."""
        x0, y0, x1, y1 = (int(round(v)) for v in track.boxes_xyxy[last])
        h, w = video.frames.shape[1:3]
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w - 1), min(y1, h - 1)
        if x1 <= x0 or y1 <= y0 or last + 1 >= len(video.frames):
            return False
        ref = video.frames[last, y0:y1 + 1, x0:x1 + 1].astype(np.float32)
        after = video.frames[last + 1:min(last + 4, len(video.frames)), y0:y1 + 1, x0:x1 + 1].astype(np.float32)
        return float(np.abs(after - ref).max(axis=-1).mean()) < tol

    # ------------------------------------------------------------------ size constancy
    def _size_constancy(self, op, track, other, video) -> Measurement:
        req = f"size constant within x{self.morph_ratio:g} over {self.morph_window_s:g} s (depth changes are slower)"
        rs = size_radius(track)
        ok = observed(track) & ~track.touches_border & np.isfinite(rs)
        # frames next to a coast (merge/occlusion) have unreliable boxes
        co = np.asarray(track.coasted, bool)
        ok &= ~(np.roll(co, 1) | np.roll(co, -1))
        # keep frames where the blob keeps its shape (aspect and fill of its box): a blob merged with a shadow,
        # another object or partly occluded changes shape; a swelling object keeps it
        b = track.boxes_xyxy
        bw, bh = b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1
        with np.errstate(invalid="ignore", divide="ignore"):
            aspect = bw / bh
            fill = track.area_px / (bw * bh)
        if ok.sum() >= 4:
            ma, mf = np.nanmedian(aspect[ok]), np.nanmedian(fill[ok])
            with np.errstate(invalid="ignore", divide="ignore"):
                ok &= (np.abs(np.log(aspect / ma)) < np.log(1.25)) & (np.abs(np.log(fill / mf)) < np.log(1.2))
        if ok.sum() < 4:
            return unknown("fewer than 4 reliable frames", required=req)
        med = float(np.median(rs[ok]))
        raw = np.where(ok, rs / med, np.nan)
        # A change must be sustained: the size level is the median of three consecutive reliable frames, so a
        # one- or two-frame blip (a merge, a blurred or badly segmented frame) never counts.
        ratio = np.full(len(raw), np.nan)
        for k in range(1, len(raw) - 1):
            trio = raw[k - 1:k + 2]
            if np.isfinite(trio).all():
                ratio[k] = float(np.median(trio))
        if np.isfinite(ratio).sum() < 4:
            return unknown("fewer than 4 frames with three reliable neighbours in a row", required=req)
        # ... and larger than the track's own frame-to-frame size noise (segmentation of real footage jitters)
        steps = np.abs(np.diff(np.log(raw)))
        steps = steps[np.isfinite(steps)]
        noise = 1.4826 * float(np.median(steps)) if steps.size else 0.0
        threshold = max(self.morph_ratio, float(np.exp(self.noise_sigmas * noise)))
        t = track.times_s
        span = max(1, int(round(self.morph_window_s / max(video.frame_period_s, 1e-6))))
        worst, where = 1.0, None
        for k in np.flatnonzero(ok):
            lo, hi = max(0, k - span), min(len(ratio), k + span + 1)
            win = ratio[lo:hi]
            win = win[np.isfinite(win)]
            q = float(win.max() / win.min()) if win.size else 1.0
            if q > worst:
                worst, where = q, k
        explained = False
        if worst > self.morph_ratio and where is not None:
            # depth explains a size change that comes with a matching move of the floor-contact row
            # (farther away = smaller and higher in the image on a floor seen from above)
            lo, hi = max(0, where - span), min(len(ratio), where + span + 1)
            ks = [k for k in range(lo, hi) if np.isfinite(ratio[k])]
            kmax = max(ks, key=lambda k: ratio[k])
            # the growth (or shrink) ramp around the largest size: walk down the size on both sides
            ka = kmax
            while ka - 1 in ks and ratio[ka - 1] < ratio[ka]:
                ka -= 1
            kb = kmax
            while kb + 1 in ks and ratio[kb + 1] < ratio[kb]:
                kb += 1
            kmin = ka if ratio[ka] <= ratio[kb] else kb
            dbottom = (track.boxes_xyxy[kmax, 3] - track.boxes_xyxy[kmin, 3]) / med  # larger and lower: nearer
            explained = dbottom > 0.5
        if self.morph_ratio < worst <= threshold and where is not None and not explained:
            return unknown(f"apparent size changes x{worst:.2f} within {self.morph_window_s:g} s, within the track's "
                           f"own size noise (changes up to x{threshold:.2f} are segmentation jitter here)",
                           required=req, max_ratio=worst, noise_log_size=noise)
        if worst > threshold and where is not None and not explained:
            doubt = self._size_change_doubt(track, raw, ratio, med, where, span, threshold)
            if doubt:
                return unknown(f"apparent size changes x{worst:.2f} within {self.morph_window_s:g} s, but {doubt}",
                               required=req, max_ratio=worst)
            off = ok & ((ratio > 1 + 0.5 * (self.morph_ratio - 1)) | (ratio < 1 / (1 + 0.5 * (self.morph_ratio - 1))))
            rr = runs(off)
            s, e = (rr[0][0], rr[-1][1]) if rr else (where, where)
            return _m("contradicted", req, f"apparent size changes x{worst:.2f} within {self.morph_window_s:g} s "
                      f"(radius {float(np.nanmin(rs[ok])):.1f}-{float(np.nanmax(rs[ok])):.1f} px)", window=video.window(s, e),
                      max_ratio=worst)
        if explained:
            return unknown(f"apparent size changes x{worst:.2f} while moving in depth (floor-contact row moves with it)",
                           required=req, max_ratio=worst)
        return _m("supported", req, f"size within x{worst:.2f}", max_ratio=worst)

    def _size_change_doubt(self, track, raw, level, med, where, span, threshold) -> str:
        """Why a size change the box shows is not one the instrument can stand behind ("" when it is):
        the blob's pixel area must change with its box (a rotating non-round object changes its box, not its
        area), by more than pixel quantisation, and not in a single frame (two blobs merging or splitting)."""
        lo, hi = max(0, where - span), min(len(level), where + span + 1)
        win = level[lo:hi]
        win = win[np.isfinite(win)]
        if win.size and (float(win.max()) - float(win.min())) * med < self.min_change_px:
            return (f"the radius changes by only {(float(win.max()) - float(win.min())) * med:.1f} px "
                    f"(under {self.min_change_px:g} px: box quantisation and blur)")
        # every observed frame counts for the single-frame step (a merged blob's frame often fails the shape test)
        seen = observed(track) & (np.asarray(track.area_px) > 0)
        seen_area = np.where(seen, np.sqrt(np.maximum(track.area_px, 0.0) / np.pi), np.nan)
        ks = [k for k in range(lo, hi) if seen[k]]
        for k0, k1 in zip(ks, ks[1:]):
            step = seen_area[k1] / seen_area[k0]
            if k1 - k0 == 1 and max(step, 1 / step) > self.abrupt_step:
                return (f"its pixel area jumps x{max(step, 1 / step) ** 2:.1f} between frames {k0} and {k1}: "
                        "two blobs merging or splitting, not a size change")
        # the area-equivalent radius must show the sustained change too (same three-frame level)
        area = np.where(np.isfinite(raw), np.sqrt(np.maximum(track.area_px, 0.0) / np.pi), np.nan)
        alevel = np.full(len(area), np.nan)
        for k in range(max(lo, 1), min(hi, len(area) - 1)):
            trio = area[k - 1:k + 2]
            if np.isfinite(trio).all() and np.isfinite(level[k]):
                alevel[k] = float(np.median(trio))
        aw = alevel[np.isfinite(alevel)]
        qa = float(aw.max() / aw.min()) if aw.size >= 2 and aw.min() > 0 else 1.0
        if qa <= threshold:
            return (f"its pixel area changes only x{qa:.2f} in radius: the box changes shape (a rotating or partly "
                    "hidden object), not its size")
        return ""

    # ------------------------------------------------------------------ direction
    def _direction(self, op, track, other, video) -> Measurement:
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
            rs = size_radius(track)
            a, b = float(np.nanmedian(rs[idx[:3]])), float(np.nanmedian(rs[idx[-3:]]))
            grow = b / a
            sign = 1 if d == "toward" else -1
            score = np.log(grow) * sign
            state = "supported" if score > np.log(1.15) else "contradicted" if score < -np.log(1.15) else "unknown"
            if not op.expect.holds and state != "unknown":
                state = "contradicted" if state == "supported" else "supported"
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
        same_shape = abs(np.log(float(np.nanmedian(aspect[idx[-3:]])) / float(np.nanmedian(aspect[idx[:3]])))) < np.log(1.25)
        depth_reason = ""
        if d in ("up", "down") and depth_change > np.log(1.25) and same_shape:
            # moving in depth: up/down in the image need not be up/down in the world
            state, depth_reason = "unknown", f"apparent size changes x{np.exp(depth_change):.2f}: the motion may be in depth"
        elif along > 1.0:
            state = "supported"
        elif along < -1.0:
            state = "contradicted"
        else:
            state = "unknown"
        if not op.expect.holds and state != "unknown":
            state = "contradicted" if state == "supported" else "supported"
        window = video.window(int(idx[0]), int(idx[-1])) if state == "contradicted" else windows.get("motion")
        return Measurement(state=state, required=req, measured=measured, window=window, windows=windows,
                           reason=(depth_reason or "net motion along the claimed axis under one radius")
                           if state == "unknown" else "",
                           values={"dx_radii": float(dx), "dy_radii": float(dy), "across_radii": float(across)},
                           cost=Cost(tool_calls=1))

    # ------------------------------------------------------------------ contact / collision
    def _contact_frames(self, a: Track, b: Track) -> np.ndarray:
        ra, rb = radius(a), radius(b)
        # coasted frames count: two objects merged into one blob are in contact
        both = (np.asarray(a.visible, bool) | np.asarray(a.coasted, bool)) & (np.asarray(b.visible, bool)
                                                                          | np.asarray(b.coasted, bool))
        d = np.linalg.norm(a.centroid_px - b.centroid_px, axis=1)
        with np.errstate(invalid="ignore"):
            gap = (d - (ra + rb)) / min(ra, rb)
        return both & (gap <= self.contact_gap_radii)

    def _contact(self, op, track, other, video) -> Measurement:
        dt = video.frame_period_s
        if other is None:
            surface = op.surface or "floor"
            req = f"touches the {surface}" if op.expect.holds else f"does not touch the {surface}"
            contacts = floor_contacts(track, axis=0 if surface == "wall" else 1)
            floor = _floor_row(track)
            r = radius(track)
            if not contacts and floor is not None and surface == "floor":
                near = observed(track) & (track.boxes_xyxy[:, 3] >= floor - 0.5 * r)
                if near.any():
                    k = int(np.flatnonzero(near)[0])
                    contacts = []
                    w = video.window(k, k)
                    return self._contact_state(op, req, True, w, f"bottom at the floor line from frame {k}")
            if contacts:
                c = contacts[0]
                w = video.window_s(c.time_s - dt / 2, c.time_s + dt / 2)
                return self._contact_state(op, req, True, w, f"{c.kind} at {c.time_s:.3f} s (frame {c.frame})")
            if observed(track)[-1] and not track.touches_border[-1]:
                return self._contact_state(op, req, False, None, "never comes down to a surface in view",
                                           window=video.window(0, video.num_frames - 1))
            return unknown(f"no contact with the {surface} seen (the subject leaves the view)", required=req)
        req = "touches the other subject" if op.expect.holds else "does not touch the other subject"
        touch = self._contact_frames(track, other)
        if touch.any():
            s, e = runs(touch)[0]
            return self._contact_state(op, req, True, video.window(s, e), f"touching over frames {s}-{e}")
        both = np.asarray(track.visible, bool) & np.asarray(other.visible, bool)
        if both.mean() >= 0.5:
            d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
            k = int(np.nanargmin(np.where(both, d, np.nan)))
            return self._contact_state(op, req, False, None, f"closest approach {d[k] / radius(track):.1f} radii at "
                                       f"frame {k}", window=video.window(0, video.num_frames - 1))
        return unknown("the two subjects are seen together in under half of the clip", required=req)

    @staticmethod
    def _contact_state(op, req, touched, contact_window, measured, window=None) -> Measurement:
        state = "supported" if touched == op.expect.holds else "contradicted"
        windows = {"contact": contact_window} if contact_window is not None else {}
        return Measurement(state=state, required=req, measured=measured, windows=windows,
                           window=contact_window if contact_window is not None else window, cost=Cost(tool_calls=1))

    def _collision_response(self, op, track, other, video) -> Measurement:
        req = "at contact, the velocities change (momentum is exchanged)"
        if other is None:
            contacts = floor_contacts(track, axis=0 if op.surface == "wall" else 1)
            if not contacts:
                return unknown("no contact with a surface seen", required=req)
            c = contacts[0]
            w = video.window_s(c.time_s - video.frame_period_s / 2, c.time_s + video.frame_period_s / 2)
            return _m("supported", req, f"{c.kind} at frame {c.frame}", window=w, windows={"contact": w})
        touch = self._contact_frames(track, other)
        d = np.linalg.norm(track.centroid_px - other.centroid_px, axis=1)
        both = np.asarray(track.visible, bool) & np.asarray(other.visible, bool)
        r = radius(track)
        if not touch.any():
            return unknown("the subjects never touch", required=req)
        s, e = runs(touch)[0]
        w = video.window(s, e)

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
            return _m("contradicted", req, f"relative velocity unchanged through contact ({change:.0%} change): "
                      "they pass through each other", window=w, windows={"contact": w}, **values)
        return _m("supported", req, f"relative velocity changed by {change:.0%} at contact", window=w,
                  windows={"contact": w}, **values)

    # ------------------------------------------------------------------ rest
    def _rest(self, op, track, other, video) -> Measurement:
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
            state = "supported" if op.expect.holds else "contradicted"
            return Measurement(state=state, required=req, measured=f"at rest from {track.times_s[s]:.2f} s (frame {s})",
                               window=w, windows={"rest": w}, cost=Cost(tool_calls=1))
        r = radius(track)
        tail = idx[-max(3, int(0.25 * video.fps)):]
        speed = float(np.linalg.norm(track.centroid_px[tail[-1]] - track.centroid_px[tail[0]]) /
                      max(track.times_s[tail[-1]] - track.times_s[tail[0]], 1e-6)) / r
        w = video.window(int(tail[0]), int(tail[-1]))
        if speed > 2 * self.rest_speed_radii_per_s:
            state = "contradicted" if op.expect.holds else "supported"
            return Measurement(state=state, required=req, measured=f"still moving at {speed:.1f} radii/s at the end",
                               window=w, cost=Cost(tool_calls=1))
        return unknown(f"slow ({speed:.1f} radii/s) but not still at the end", required=req)


def _box_patch(video: VideoContext, track: Track, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The clip's pixels (T, h, w, 3) float32 inside the subject's frame-``k`` box and their per-pixel median
    over time (the usual background there); None when the box is empty after clipping to the frame."""
    x0, y0, x1, y1 = (int(round(v)) for v in track.boxes_xyxy[k])
    h, w = video.frames.shape[1:3]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w - 1), min(y1, h - 1)
    if x1 <= x0 or y1 <= y0:
        return None
    patch = video.frames[:, y0:y1 + 1, x0:x1 + 1].astype(np.float32)
    return patch, np.median(patch, axis=0)


def _still_there(video: VideoContext, track: Track, a: int, b: int) -> bool:
    """At frame ``b``, is there still something (not the usual background) where the subject was at ``a``?
    Then the tracker switched to another blob; a teleported object leaves its place empty. Called the other
    way round (``a`` after the jump, ``b`` before it) it asks whether something already stood where the
    subject lands: again an identity switch, since a teleported object arrives at an empty place."""
    found = _box_patch(video, track, a)
    if found is None:
        return False
    patch, bg = found
    if float(np.abs(patch[b] - bg).max(axis=-1).mean()) > 20.0:
        return True
    # the place looks at ``b`` as it did at ``a`` (an object resting there for much of the clip is part of the
    # median, so compare with the frame itself too): whatever was there has not left
    return float(np.abs(patch[b] - patch[a]).max(axis=-1).mean()) < 12.0


def _same_look(track: Track, a: int, b: int) -> bool:
    """Frames ``a`` and ``b`` show a blob of about the same area, neither at the border: the same object moved,
    rather than the tracker switching to another blob."""
    aa, ab = float(track.area_px[a]), float(track.area_px[b])
    if aa <= 0 or ab <= 0 or track.touches_border[a] or track.touches_border[b]:
        return False
    return max(aa, ab) <= 1.5 * min(aa, ab)


def ok_near(other: Track, track: Track, k: int, r: float) -> bool:
    """Is ``other`` next to ``track`` at frame ``k`` (within two radii of contact)?"""
    if not (0 <= k < len(other.visible)) or not (other.visible[k] or other.coasted[k]):
        return False
    d = float(np.linalg.norm(other.centroid_px[k] - track.centroid_px[k]))
    return d < radius(other) + 3 * r
