"""Size constancy: a rigid body keeps its apparent size, except as fast as a move in depth can change it.

Sizes are per-frame box radii (``kinematics.size_radius``) on reliable frames, levelled over three consecutive
frames; a change must beat the morph ratio, the track's own segmentation noise and pixel quantisation, show in the
blob's area as well as its box, and not be explained by a matching move of the floor-contact row (depth). A step
from one frame to the next is judged on its own where steady frames lie on both sides of it, and where the body is
partly hidden before it, against the body's whole size (a part of a body is never more than all of it).
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.colour import ACHROMATIC_CHROMA
from critic.specialists.kinematics import observed, runs, size_radius, stationary_runs
from critic.specialists.measure.common import Tolerances, measurement
from critic.specialists.measure.continuity import colour_pixels, subject_lab
from critic.types import Measurement, MeasureOp, Track, VideoContext


def size_constancy(op: MeasureOp, track: Track, other: Track | None, video: VideoContext,
                   tol: Tolerances) -> Measurement:
    """Apparent size within x``tol.morph_ratio`` over any ``tol.morph_window_s`` (unknown where the change could
    be noise, a merge, a rotating box or a move in depth). The tracked blob's box is the instrument; where the
    subject rests, the tracker holds its box (a resting body is part of the median background), so there the
    area of its own colour at its place is measured instead (``_resting_size_change``). A one-frame step is judged
    where steady frames lie on both sides of it (``_size_step``) or where it takes a partly hidden body's box past
    the body's whole size (``_past_its_whole``)."""
    result = _box_size_constancy(track, video, tol)
    if result.state == "contradicted":
        return result
    step = _size_step(track, video, tol)
    if step is not None:
        s, e, ratio = step
        return measurement("contradicted", result.required or _requirement(tol),
                           f"its size steps x{ratio:.2f} in radius between frames {s} and {e}, box and area alike, "
                           f"in its own colour and shape, and holds on both sides", window=video.window(s, e),
                           max_ratio=ratio)
    past = _past_its_whole(track, video, tol)
    if past is not None:
        s, e, ratio = past
        return measurement("contradicted", result.required or _requirement(tol),
                           f"its box reaches x{ratio:.2f} past the size it shows whole, in one step between frames "
                           f"{s} and {e} and past it after, its area and its own colour growing with it "
                           "(a body partly hidden shows less of itself, never more)", window=video.window(s, e),
                           max_ratio=ratio)
    change = _resting_size_change(track, video, tol)
    if change is None:
        return result
    s, e, ratio = change
    return measurement("contradicted", result.required or _requirement(tol),
                       f"at rest, the area of its colour at its place changes x{ratio:.2f} in radius between frames "
                       f"{s} and {e} and stays so", window=video.window(s, e), max_ratio=ratio)


def _requirement(tol: Tolerances) -> str:
    return f"size constant within x{tol.morph_ratio:g} over {tol.morph_window_s:g} s (depth changes are slower)"


def _box_frames(track: Track) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the box says of the blob's size and shape, frame by frame: (box radius ``size_radius`` px, the frames
    whose box can be measured - observed, off the image's edge and not next to a coast (a merge or occlusion) -,
    box aspect width / height, fill area / box area), each (T,)."""
    rs = size_radius(track)
    co = np.asarray(track.coasted, bool)
    next_to_coast = np.roll(co, 1) | np.roll(co, -1)
    ok = observed(track) & ~np.asarray(track.touches_border, bool) & np.isfinite(rs) & ~next_to_coast
    b = track.boxes_xyxy
    bw, bh = b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return rs, ok, bw / bh, track.area_px / (bw * bh)


def _usual_shape(ok: np.ndarray, aspect: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """Of the measurable frames ``ok`` (T,) bool, those where the blob keeps its usual shape: its box's ``aspect``
    within x1.25 and ``fill`` within x1.2 of their medians over ``ok`` (a blob merged with a shadow or another object,
    or partly hidden, changes shape; a swelling body keeps it). ``ok`` itself when it has under four frames."""
    if ok.sum() < 4:
        return ok
    ma, mf = np.nanmedian(aspect[ok]), np.nanmedian(fill[ok])
    with np.errstate(invalid="ignore", divide="ignore"):
        return ok & (np.abs(np.log(aspect / ma)) < np.log(1.25)) & (np.abs(np.log(fill / mf)) < np.log(1.2))


def _box_size_constancy(track: Track, video: VideoContext, tol: Tolerances) -> Measurement:
    """Size constancy measured on the tracked blob's box and area (see :func:`size_constancy`)."""
    req = _requirement(tol)
    rs, ok, aspect, fill = _box_frames(track)
    ok = _usual_shape(ok, aspect, fill)
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
    threshold = max(tol.morph_ratio, float(np.exp(tol.noise_sigmas * noise)))
    span = max(1, int(round(tol.morph_window_s / max(video.frame_period_s, 1e-6))))
    changes = []  # (ratio within the window, frame) of every reliable frame
    for k in np.flatnonzero(ok):
        lo, hi = max(0, k - span), min(len(ratio), k + span + 1)
        win = ratio[lo:hi]
        win = win[np.isfinite(win)]
        changes.append((float(win.max() / win.min()) if win.size else 1.0, int(k)))
    changes.sort(key=lambda c: -c[0])
    worst = changes[0][0] if changes else 1.0
    if worst <= tol.morph_ratio:
        return measurement("supported", req, f"size within x{worst:.2f}", max_ratio=worst)
    # The largest change first, then the next ones apart from it (at most four places): a change the instrument
    # cannot stand behind (segmentation noise, a move in depth, a merge) must not hide a real one elsewhere.
    first_doubt = None
    tried: list[int] = []
    for q, where in changes:
        if q <= tol.morph_ratio or len(tried) == 4:
            break
        if any(abs(where - k) <= span for k in tried):
            continue
        tried.append(where)
        lo, hi = max(0, where - span), min(len(ratio), where + span + 1)
        if q <= threshold:
            doubt = unknown(f"apparent size changes x{q:.2f} within {tol.morph_window_s:g} s, within the track's "
                            f"own size noise (changes up to x{threshold:.2f} are segmentation jitter here)",
                            required=req, max_ratio=q, noise_log_size=noise)
        elif _moves_in_depth(track, ratio, med, lo, hi):
            doubt = unknown(f"apparent size changes x{q:.2f} while moving in depth (floor-contact row moves with "
                            "it)", required=req, max_ratio=q)
        else:
            why = _size_change_doubt(track, video, raw, ratio, med, where, span, threshold, tol)
            doubt = (unknown(f"apparent size changes x{q:.2f} within {tol.morph_window_s:g} s, but {why}",
                             required=req, max_ratio=q) if why else None)
        if doubt is not None:
            first_doubt = first_doubt or doubt
            continue
        off = ok & ((ratio > 1 + 0.5 * (tol.morph_ratio - 1)) | (ratio < 1 / (1 + 0.5 * (tol.morph_ratio - 1))))
        # the runs off the usual size that this change belongs to (those reaching into its window)
        rr = [(a, b) for a, b in runs(off) if a < hi and b >= lo]
        s, e = (rr[0][0], rr[-1][1]) if rr else (where, where)
        # the change happens between the last frame at the usual size and the first off it (or the last off it
        # and the first back at the usual size): show both
        s = s - 1 if s > 0 and ok[s - 1] and not off[s - 1] else s
        e = e + 1 if e + 1 < len(ok) and ok[e + 1] and not off[e + 1] else e
        return measurement("contradicted", req,
                           f"apparent size changes x{q:.2f} within {tol.morph_window_s:g} s "
                           f"(radius {float(np.nanmin(rs[ok])):.1f}-{float(np.nanmax(rs[ok])):.1f} px)",
                           window=video.window(s, e), max_ratio=q)
    return first_doubt


def _size_step(track: Track, video: VideoContext, tol: Tolerances, side: int = 3, edge_side: int = 2,
               max_spread: float = 1.15) -> tuple[int, int, float] | None:
    """A step in size from one frame to the next, held on both sides: ``side`` reliable frames before and after
    (next to the clip's first or last frame, the ``edge_side`` or more it has on that side: a body that swells at
    frame 2 held its size over all the frames the clip shows before), each side steady (its radii within
    x``max_spread`` in area: a body that turns keeps its area while its box changes), the box radius and the
    area-equivalent radius both stepping by more than ``tol.step_morph_ratio`` the same way, and each by more than
    ``tol.min_change_px`` and twice the jitter of its own sides (in log terms; the track's size noise over the whole
    clip would let a jittery stretch elsewhere hide a clean step here). A move in depth changes the size by a few per
    cent a frame, so a step held on both sides is the body's size, not its distance - unless its centre steps with
    it (``_step_in_depth``). The blob must keep its shape across the step (aspect and fill of its box after within
    the range they show before: a merge with a neighbour, a shadow or an occluder changes it) and the subject's own
    colour around it must change area with the blob (``_own_colour_steps``). The median-anchored shape test of
    ``_box_size_constancy`` cannot see this where the subject spends most of the clip merged with a neighbour: here
    each step is judged by its own frames. -> (last frame before, first frame after, radius ratio) or None."""
    rs, ok, aspect, fill = _box_frames(track)
    area_r = np.sqrt(np.maximum(np.asarray(track.area_px, float), 0.0) / np.pi)
    ok = ok & (area_r > 0)
    best = None
    for k in range(edge_side, len(rs) - edge_side + 1):
        before, after = slice(max(k - side, 0), k), slice(k, min(k + side, len(rs)))
        if not (ok[before].all() and ok[after].all()):
            continue
        # the area is steady on each side (a turning body keeps its area); its box may jitter as it turns
        area_spread = max(float(x.max() / x.min()) for x in (area_r[before], area_r[after]))
        if area_spread > max_spread:
            continue
        box_spread = max(float(x.max() / x.min()) for x in (rs[before], rs[after]))
        q_box = float(np.median(rs[after]) / np.median(rs[before]))
        q_area = float(np.median(area_r[after]) / np.median(area_r[before]))
        # each must step out of the jitter of its own sides (box sides are whole or half pixels)
        if (q_box > 1) != (q_area > 1) or any(max(q, 1 / q) <= max(tol.step_morph_ratio, spread ** 2)
                                               for q, spread in ((q_box, box_spread), (q_area, area_spread))):
            continue
        if abs(float(np.median(rs[after]) - np.median(rs[before]))) < tol.min_change_px:
            continue
        # its shape after within what it showed before (the box's aspect within x1.25, its fill within x1.2 of the
        # range over the frames before: a turning body's box changes shape from frame to frame)
        if not (_within(aspect[after], aspect[before], 1.25) and _within(fill[after], fill[before], 1.2)):
            continue
        if _step_in_depth(track, rs, before, after):
            continue
        if not _own_colour_steps(track, video, k - 1, k, q_area):
            continue
        q = max(q_box, 1 / q_box)
        if best is None or q > best[2]:
            best = (k - 1, k, q)
    return best


def _past_its_whole(track: Track, video: VideoContext, tol: Tolerances, min_whole_px: float = 8.0
                    ) -> tuple[int, int, float] | None:
    """A blob that shows more of the body than all of it: an occluder, the frame's edge or a background near its
    colour only ever hide part of a body, so a box that steps past the body's whole size has a body that grew (a
    move in depth is gradual). The whole size is the median box width and height over the frames the tracker shows
    it in its usual shape (``_usual_shape``, four frames or more), ``min_whole_px`` or more each. A step is from
    one measured frame to the next (observed, neither coasted, at the border, nor at rest: the tracker holds a
    resting body's box): the box within x``tol.step_morph_ratio`` (``g``) of the whole
    before it, then its width or height jumps by over ``g`` to over ``g`` times the whole's and
    ``tol.min_change_px`` px more, its pixel area over the whole's, and it stays past the whole over every later
    frame of its run of measured frames (one at least: a neighbour taken in and let go again was a merge). The
    subject's own colour (a chromatic one: black, grey and white are also the colours of shadows and highlights)
    grows with the blob (``_colour_confirms``) and covers over ``g`` times what it covered in the whole frames
    (a blob merged with a neighbour or a shadow grows, the subject's colour does not). ``_size_step`` needs steady
    frames on both sides of a step; this finds the step where the body is partly hidden before it and never shown
    whole after it (``_box_size_constancy`` leaves out the frames of a part, whose shape is not the body's).
    -> (last frame before, first frame past, the larger of the two extents' ratios to the whole's), or None."""
    _, ok, aspect, fill = _box_frames(track)
    whole = _usual_shape(ok, aspect, fill)
    if whole.sum() < 4:
        return None
    b = track.boxes_xyxy
    extent = np.stack([b[:, 2] - b[:, 0] + 1, b[:, 3] - b[:, 1] + 1], axis=1)  # (T, 2) width, height px
    full = np.median(extent[whole], axis=0)
    if float(full.min()) < min_whole_px:
        return None  # a speck or a sliver: a pixel or two of its outline changes its box by a third
    area = np.asarray(track.area_px, float)
    seen = observed(track) & ~np.asarray(track.touches_border, bool) & ~np.asarray(track.coasted, bool) & (area > 0)
    # at rest the tracker holds the body's box (the median background takes the body in): a held box measures nothing
    for s, e in stationary_runs(track):
        seen[s:e + 1] = False
    g = tol.step_morph_ratio
    for k in range(1, len(seen) - 1):
        if not (seen[k - 1] and seen[k] and seen[k + 1]):
            continue
        past = extent[k] / full
        axis = int(np.argmax(past))
        if not (past[axis] > g and extent[k, axis] - full[axis] >= tol.min_change_px
                and extent[k, axis] > g * extent[k - 1, axis] and float(np.max(extent[k - 1] / full)) <= g
                and area[k] > float(np.median(area[whole]))):
            continue
        # a body that grew keeps its size: past the whole in every frame after the step that the tracker measures,
        # up to the end of that run of frames (a neighbour taken in and let go again was a merge)
        end = k
        while end + 1 < len(seen) and seen[end + 1]:
            end += 1
        if not all(float(np.max(extent[j] / full)) > g for j in range(k + 1, end + 1)):
            continue
        # a black, grey or white body shares its colour with shadows, highlights and most surfaces: its colour's
        # area cannot tell a body that grew from one that took in a shadow
        lab = subject_lab(video, track, k - 1)
        if lab is None or float(np.hypot(lab[1], lab[2])) < ACHROMATIC_CHROMA \
                or not _colour_confirms(track, video, k - 1, k, lab):
            continue
        # ... and its colour covers more than all of it did where it showed whole (the blob's box alone may have
        # been cut short before the step by a background near its colour)
        reach = 2.0 * float(np.sqrt(area[k] / np.pi)) + 2.0
        now = colour_pixels(video, k, track.centroid_px[k], lab, reach)[0]
        ks = np.flatnonzero(whole)
        usual = np.median([colour_pixels(video, int(j), track.centroid_px[j], lab, reach)[0]
                           for j in ks[np.linspace(0, len(ks) - 1, min(len(ks), 5)).round().astype(int)]])
        if now > g * usual:
            return k - 1, k, float(past[axis])
    return None


def _within(after: np.ndarray, before: np.ndarray, factor: float) -> bool:
    """Is the median of ``after`` within x``factor`` of the range of ``before`` (positive values)?"""
    m = float(np.median(after))
    return float(np.min(before)) / factor < m < float(np.max(before)) * factor


def _own_colour_steps(track: Track, video: VideoContext, k0: int, k1: int, q: float) -> bool:
    """Does the area of the subject's own colour (as at frame ``k0``, within two of its larger radii of its centre)
    step from ``k0`` to ``k1`` the way the blob's area-equivalent radius steps, by ``q``: the same way and by at least
    half of it in log terms? A blob merged with or split from another body, or cut by a background near its colour,
    leaves the colour's area as it was. (Looser than ``_colour_confirms``: a shaded body has few pixels of its median
    colour, so their count is a coarse measure of its size.)"""
    areas = _blob_and_own_colour(track, video, k0, k1)
    if areas is None:
        return False
    _, _, c0, c1 = areas
    own = float(np.log(np.sqrt(c1 / c0)))
    return own * float(np.log(q)) > 0 and abs(own) >= 0.5 * abs(float(np.log(q)))


def _step_in_depth(track: Track, rs: np.ndarray, before: slice, after: slice) -> bool:
    """Could a move in depth give the size step between the frames ``before`` and those ``after`` (consecutive
    slices)? On a floor seen from above, a body that comes nearer grows and drops in the image: its contact row moves
    down by over 1.5 times its radius change (``_depth_geometry_fits``), so its centre by over half of it. A body
    swelling about its centre keeps its centre on course. The course is the centre's line over the frames before,
    carried on; ``rs`` (T,) box radii, px."""
    c = np.asarray(track.centroid_px, float)
    t = np.arange(before.start, before.stop)
    slope, icpt = np.polyfit(t, c[before, 1], 1)
    ta = np.arange(after.start, after.stop)
    drop = float(np.median(c[after, 1] - (icpt + slope * ta)))
    grow = float(np.median(rs[after]) - np.median(rs[before]))
    return drop * np.sign(grow) >= 0.5 * abs(grow)


def _moves_in_depth(track: Track, ratio: np.ndarray, med: float, lo: int, hi: int) -> bool:
    """Does a move in depth explain the size change in frames ``lo..hi-1``? It comes with a matching move of the
    floor-contact row (farther away = smaller and higher in the image on a floor seen from above).
    ``ratio`` (T,) the three-frame size level over the median radius ``med`` px."""
    ks = [k for k in range(lo, hi) if np.isfinite(ratio[k])]
    if not ks:
        return False
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
    ramp = [k for k in ks if min(ka, kb) <= k <= max(ka, kb)]
    return bool(dbottom > 0.5 and _depth_geometry_fits(track.boxes_xyxy[ramp, 3], med * ratio[ramp]))


def _depth_geometry_fits(bottoms: np.ndarray, radii: np.ndarray) -> bool:
    """Can a move in depth on a floor give these contact rows ``bottoms`` (px) with these apparent radii
    ``radii`` (px), frame by frame? On a floor seen by a pinhole camera the contact row's distance below the
    horizon and the apparent radius both scale as 1 / distance, so the rows lie on a line in the radius,
    ``bottom = horizon + c * radius``, with ``c`` the camera's height in the body's radii (above 1.5 for a camera
    above the body). A body swelling about its own bottom (``c = 0``) or while it bounces (rows off any line) does
    not fit."""
    ok = np.isfinite(bottoms) & np.isfinite(radii)
    b, r = np.asarray(bottoms, float)[ok], np.asarray(radii, float)[ok]
    if b.size < 2 or np.ptp(r) < 1e-6:
        return False
    c, h = np.polyfit(r, b, 1)
    rms = float(np.sqrt(np.mean((b - (h + c * r)) ** 2)))
    return c >= 1.5 and rms <= 0.35 * float(np.median(r))


def _size_change_doubt(track: Track, video: VideoContext, raw: np.ndarray, level: np.ndarray, med: float,
                       where: int, span: int, threshold: float, tol: Tolerances) -> str:
    """Why a size change the box shows is not one the instrument can stand behind ("" when it is):
    the blob's pixel area must change with its box (a rotating non-round object changes its box, not its
    area), by more than pixel quantisation, and not in a single frame (two blobs merging or splitting) unless the
    subject's own colour grows or shrinks with it (``colour_pixels``: a blob merged with another body, or split from
    it, changes its area, not the area of the subject's colour around it).

    ``raw`` (T,) box radius / ``med`` px on reliable frames (NaN elsewhere), ``level`` (T,) its three-frame
    level, ``where`` the frame of the largest change within ``span`` frames, ``threshold`` the ratio it beat."""
    lo, hi = max(0, where - span), min(len(level), where + span + 1)
    win = level[lo:hi]
    win = win[np.isfinite(win)]
    if win.size and (float(win.max()) - float(win.min())) * med < tol.min_change_px:
        return (f"the radius changes by only {(float(win.max()) - float(win.min())) * med:.1f} px "
                f"(under {tol.min_change_px:g} px: box quantisation and blur)")
    # every observed frame counts for the single-frame step (a merged blob's frame often fails the shape test)
    seen = observed(track) & (np.asarray(track.area_px) > 0)
    seen_area = np.where(seen, np.sqrt(np.maximum(track.area_px, 0.0) / np.pi), np.nan)
    ks = [k for k in range(lo, hi) if seen[k]]
    for k0, k1 in zip(ks, ks[1:]):
        step = seen_area[k1] / seen_area[k0]
        if k1 - k0 == 1 and max(step, 1 / step) > tol.abrupt_step and not _colour_confirms(track, video, k0, k1):
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
    # the blob is what differs from the background: a body over a background near its colour segments smaller,
    # so the blob changes when the body crosses into it; the body's own colour around it changes only with the body
    ks = [k for k in range(lo, hi) if np.isfinite(level[k])]
    k_small, k_large = min(ks, key=lambda k: level[k]), max(ks, key=lambda k: level[k])
    if not _colour_confirms(track, video, k_large, k_small):
        return (f"the area of its own colour around it does not change as the blob does between frames "
                f"{min(k_small, k_large)} and {max(k_small, k_large)}: the segmentation changed (a background "
                "near its colour, a shadow or a neighbour), not the body")
    return ""


def _blob_and_own_colour(track: Track, video: VideoContext, k0: int, k1: int, lab: np.ndarray | None = None
                         ) -> tuple[float, float, float, float] | None:
    """The tracked blob's area at frames ``k0`` and ``k1`` and the count of pixels of the subject's own colour (as at
    ``k0``: ``lab``, CIELAB (3,), when the caller has it, else ``subject_lab``) within two of the blob's larger radii
    (plus 2 px) of its centre at each: (a0, a1, c0, c1) px, or None when the colour is unknown, a blob is empty or a
    count is under 4 pixels."""
    lab = subject_lab(video, track, k0) if lab is None else lab
    a0, a1 = float(track.area_px[k0]), float(track.area_px[k1])
    if lab is None or a0 <= 0 or a1 <= 0:
        return None
    reach = 2.0 * float(np.sqrt(max(a0, a1) / np.pi)) + 2.0
    c0 = colour_pixels(video, k0, track.centroid_px[k0], lab, reach)[0]
    c1 = colour_pixels(video, k1, track.centroid_px[k1], lab, reach)[0]
    if c0 < 4 or c1 < 4:
        return None
    return a0, a1, float(c0), float(c1)


def _colour_confirms(track: Track, video: VideoContext, k0: int, k1: int, lab: np.ndarray | None = None) -> bool:
    """Does the subject's own colour (as at frame ``k0``; ``lab`` when the caller has it) around its centre change
    area from ``k0`` to ``k1`` as the tracked blob does (the same way, within a factor 1.3)? Then the body itself
    changed size; a blob merged with or split from another body, or cut short by a background near the body's
    colour, leaves the colour's area as it was."""
    areas = _blob_and_own_colour(track, video, k0, k1, lab)
    if areas is None:
        return False
    a0, a1, c0, c1 = areas
    blob, own = a1 / a0, c1 / c0
    return (blob > 1) == (own > 1) and max(own / blob, blob / own) <= 1.3


def _resting_size_change(track: Track, video: VideoContext, tol: Tolerances, min_side: int = 3,
                         max_spread: float = 0.15) -> tuple[int, int, float] | None:
    """A step in the subject's size while it rests. The rest runs from the start of a stationary run over the later
    stationary runs that begin within a few frames, within a radius of it and in its colour (a rest the tracker
    split in two), and over the frames in which the track is lost while the colour's centroid stays within half a
    radius of where it was at the rest's last frame (a body that changed size no longer matches its held box; one
    that toppled or left takes its colour away). A rest that begins the track in open view after the clip's first
    frame (its still start, however short) reaches back too, over the frames in which the colour stood where it
    rests: a body resting there since before was part of the median background, and only a change of its look made
    it a blob (``_rested_unseen_before``). Over the rest, the area of the subject's colour (``colour_pixels``,
    as at the run's first frame) within 2.5 radii of its last seen place is split at each frame into a before and an
    after of at least ``min_side`` frames, each steady (nine in ten of its frames within ``max_spread`` of its
    median); the steadiest split whose radius ratio is over ``tol.rest_morph_ratio`` is a change of size. Only where
    the subject's colour is its own there (a ring around the place holds under a third of its area of it).
    -> (last frame before, first frame after, radius ratio) or None."""
    r = float(track.radius_px) if np.isfinite(track.radius_px) and track.radius_px > 0 else 0.0
    if r <= 0:
        return None
    seen = observed(track)
    c = track.centroid_px
    rests = stationary_runs(track)
    # a track that begins mid-clip at rest may end too soon for a stationary run of its own: its still start is a
    # rest all the same when the colour stood there before (``_rested_unseen_before``)
    opening = stationary_runs(track, min_frames=2, min_seconds=0.0)[:1]
    if opening and opening[0][0] > 0 and not seen[:opening[0][0]].any() and \
            not any(s <= opening[0][0] <= e for s, e in rests):
        rests = opening + [(s, e) for s, e in rests if s > opening[0][1]]
    used = set()
    for i, (s, e) in enumerate(rests):
        if i in used:
            continue
        lab = subject_lab(video, track, s)
        if lab is None:
            continue
        end = e
        for j in range(i + 1, len(rests)):  # a rest the tracker split in two (its box re-drawn): one rest
            s2, e2 = rests[j]
            lab2 = subject_lab(video, track, s2)
            if (s2 - end <= 4 and float(np.linalg.norm(c[s2] - c[end])) <= r and lab2 is not None
                    and float(np.linalg.norm(lab2 - lab)) <= 15.0):
                end = e2
                used.add(j)
        reach = 2.5 * r + 2.0
        last_seen = s
        areas = []
        rested_at = None  # the centroid of its colour at the rest's last frame
        for k in range(s, len(seen)):
            if k > end and (seen[k] or track.coasted[k]):
                break
            last_seen = k if seen[k] else last_seen
            n, at = colour_pixels(video, k, c[last_seen], lab, reach)
            if k > end and not (n and rested_at is not None and float(np.linalg.norm(at - rested_at)) <= 0.5 * r):
                # after the track is lost, only while its colour stays where it rested (not toppled or gone); the
                # colour's own centroid is the reference, not the tracked blob's, which the median background cuts
                break
            if k == end and n:
                rested_at = at
            areas.append(n)
        here = areas[0]
        ring = colour_pixels(video, s, c[s], lab, 2.0 * reach)[0] - here
        if here < 4 or ring > here / 3:
            continue
        earlier = _rested_unseen_before(track, video, s, lab, reach, r)
        areas = np.asarray(earlier + areas, float)
        s -= len(earlier)
        if len(areas) < 2 * min_side:
            continue
        best = None
        for split in range(min_side, len(areas) - min_side + 1):
            before, after = areas[:split], areas[split:]
            mb, ma = float(np.median(before)), float(np.median(after))
            if mb <= 0 or ma <= 0:
                continue
            steady = all(float(np.mean(np.abs(x - m) <= max_spread * m)) >= 0.9 for x, m in ((before, mb), (after, ma)))
            ratio = float(np.sqrt(max(mb, ma) / min(mb, ma)))
            spread = float(np.abs(before - mb).sum() + np.abs(after - ma).sum())
            if steady and ratio > tol.rest_morph_ratio and (best is None or spread < best[3]):
                best = (s + split - 1, s + split, ratio, spread)
        if best is not None:
            return best[:3]
    return None


def _rested_unseen_before(track: Track, video: VideoContext, s: int, lab: np.ndarray, reach: float,
                          r: float) -> list[float]:
    """The area (px) of the subject's colour within ``reach`` px of where it rests at frame ``s`` (``r``: its radius,
    px), frame by frame back from ``s - 1`` (earliest first), while it stood there unseen by the tracker: only when the
    track begins at ``s`` (nothing observed or coasted before it) in open view, and only over the frames where the
    colour is there: at ``s - 1`` with its centroid within a radius of the colour's centroid at ``s`` (a body that
    swells or shrinks on the floor moves its centre up or down by the change), before that within half a radius of
    its centroid at ``s - 1`` (a body that came in, or stood elsewhere, is not the one resting here; a body pasted in
    at ``s`` leaves nothing of its colour before it)."""
    seen = observed(track) | np.asarray(track.coasted, bool)
    if s == 0 or seen[:s].any() or bool(track.touches_border[s]):
        return []
    n, rested_at = colour_pixels(video, s, track.centroid_px[s], lab, reach)
    if not n:
        return []
    areas: list[float] = []
    for k in range(s - 1, -1, -1):
        n, at = colour_pixels(video, k, track.centroid_px[s], lab, reach)
        if not n or float(np.linalg.norm(at - rested_at)) > (1.0 if k == s - 1 else 0.5) * r:
            break
        rested_at = at if k == s - 1 else rested_at
        areas.append(float(n))
    return areas[::-1]
