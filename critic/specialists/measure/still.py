"""Still: the subject stays where it is over the clip ("sits still", "lies motionless", "stays where it is").

Unlike ``rest`` (coming to rest by the end of the clip), stillness is a state the prompt asserts over the whole
clip: any move that shows contradicts it. A move shows when the body goes somewhere (``min_move_radii`` or more
between two observed frames of one run, mostly one way) and the pixels agree that the body itself moved: its old
place is emptied and the blob at the new place has its colour (else the tracker switched to another blob, or a
neighbour merged with it), and the blob keeps its area on the way (else another body passing in front of it covers
part of it, and what is left of it lies off its centre). A smaller move, from half a radius, leaves its old place
half covered; it shows when the body's picture moves with its centre (its look found shifted by the move, not in
place), which the drift of a centre with its segmentation does not do. A body the background model absorbs while it
lies still is not observed then; the tracker sees it only when it moves, so a track seen only in part still
contradicts stillness by a move, and supports it only when it is seen in most of the clip.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import observed, radius, runs
from critic.specialists.measure.common import Tolerances, measurement
from critic.specialists.measure.continuity import box_slices, same_colour, still_there
from critic.types import Measurement, MeasureOp, Track, VideoContext


def still(op: MeasureOp, track: Track, other: Track | None, video: VideoContext, tol: Tolerances,
          min_move_radii: float = 1.5, min_frames: int = 3, min_seen_share: float = 0.75,
          max_pixel_checks: int = 12, small_move_radii: float = 0.5, min_small_move_px: float = 3.0) -> Measurement:
    """Still over the clip: no move of ``min_move_radii`` radii or more over ``min_frames`` or more consecutive
    observed frames, mostly one way (net at least 0.6 of the path), that the pixels confirm (the place it left is
    emptied, the blob it went to has its colour); nor a smaller one, of ``small_move_radii`` radii or more (and
    ``min_small_move_px`` pixels), whose picture confirms it: the body's own look, shifted by the move, is found where
    the track says it went (``_picture_moved``). Contradicted with the window of the move (from its last frame at
    the old place to the end of the move); supported when it is seen in ``min_seen_share`` of the frames without
    such a move and without wandering over ``min_move_radii`` from its median place; unknown otherwise. At most
    ``max_pixel_checks`` candidate moves are checked against the pixels (a track that switches blobs often offers
    many)."""
    req = "stays where it is over the clip" if op.expect.holds else "moves"
    by = (track.meta.get("binding") or {}).get("by")
    if by in ("motion", "any"):
        # with no colour, shape or size to find it by, the subject was bound to a blob because that blob moves: a
        # body the prompt says is still may be any of the blobs that do not
        return unknown(f"'{op.subject}' was found by motion alone, which cannot find a body said to be still",
                       required=req)
    ok = observed(track)
    if ok.sum() < min_frames:
        return unknown(f"fewer than {min_frames} observed frames", required=req)
    r = radius(track)
    c = track.centroid_px
    move = _confirmed_move(track, video, ok, r, min_move_radii, min_frames, max_pixel_checks)
    shown = "the place it left is empty"
    if move is None:
        shown = "its picture moves with it"
        # a move under a radius or so leaves the old place half covered, so the emptied place cannot confirm it; the
        # body's picture can: a body lifted by half its radius shows its look that far up, tracking noise does not
        move = _confirmed_move(track, video, ok, r, max(small_move_radii, min_small_move_px / r), min_frames,
                               max_pixel_checks, confirm=_picture_moved)
    if move is not None:
        a, b = move
        w = video.window(a, b)
        moved = float(np.linalg.norm(c[b] - c[a])) / r
        return measurement("contradicted", req, f"moves {moved:.1f} radii between frames {a} and {b} ({shown})",
                           window=w, windows={"still": w}, moved_radii=round(moved, 3))
    seen = np.flatnonzero(ok)
    share = seen.size / max(video.num_frames, 1)
    if share < min_seen_share:
        return unknown(f"seen in {seen.size} of {video.num_frames} frames: its stillness over the rest is not "
                       "observed", required=req)
    wander = float(np.max(np.linalg.norm(c[seen] - np.median(c[seen], axis=0), axis=1))) / r
    if wander >= min_move_radii:
        return unknown(f"its centre wanders {wander:.1f} radii without a move the pixels confirm (tracking noise)",
                       required=req)
    w = video.window(int(seen[0]), int(seen[-1]))
    return measurement("supported", req, f"within {wander:.1f} radii of one place over frames {seen[0]}-{seen[-1]}",
                       window=w, windows={"still": w})


def _left_its_place(video: VideoContext, track: Track, a: int, b: int) -> bool:
    """The pixels confirm a move from frame ``a`` to ``b``: the place it left is emptied and the blob it went to has
    its colour (else the tracker switched to another blob, or a neighbour merged with it)."""
    return not still_there(video, track, a, b) and same_colour(video, track, a, track, b)


def _picture_moved(video: VideoContext, track: Track, a: int, b: int, min_change: float = 8.0) -> bool:
    """The body's picture confirms the track's move from frame ``a`` to ``b``: its frame-``a`` box (the body and the
    rim of floor around it) differs in place at ``b`` by ``min_change`` levels (RMS over its pixels' RGB) or more, and
    matched over frame ``b`` within the track's displacement and 3 px of it, it fits best where the track says it went
    (within 1.5 px, or half the displacement), at most half as badly as in place; and the blob at ``b`` has the body's
    colour (else the tracker switched to another body that moves over it). A centre that drifts with the segmentation
    (a shadow that grows, a blob that sheds its rim) leaves the picture where it was; a body whose light changes where
    it stands fits best in place; a picture that moves another way than the track (a panning camera, whose motion the
    track's positions have taken out) does not confirm it."""
    box = box_slices(video, track, a)
    if box is None or box[0].stop - box[0].start < 3 or box[1].stop - box[1].start < 3:
        return False
    (y0, y1), (x0, x1) = (box[0].start, box[0].stop - 1), (box[1].start, box[1].stop - 1)
    h, w = video.frames.shape[1:3]
    d = track.centroid_px[b] - track.centroid_px[a]
    reach = int(np.ceil(float(np.abs(d).max()))) + 3
    sx0, sy0 = max(x0 - reach, 0), max(y0 - reach, 0)
    sx1, sy1 = min(x1 + reach, w - 1), min(y1 + reach, h - 1)
    template = video.frames[a, y0:y1 + 1, x0:x1 + 1].astype(np.float32)
    search = video.frames[b, sy0:sy1 + 1, sx0:sx1 + 1].astype(np.float32)
    err = cv2.matchTemplate(search, template, cv2.TM_SQDIFF) / float(template.size)  # mean squared difference
    i, j = np.unravel_index(int(np.argmin(err)), err.shape)
    shift = np.array([sx0 + j - x0, sy0 + i - y0], float)
    in_place = float(err[y0 - sy0, x0 - sx0])
    return (in_place >= min_change ** 2 and float(err[i, j]) <= 0.5 * in_place
            and float(np.linalg.norm(shift - d)) <= max(1.5, 0.5 * float(np.linalg.norm(d)))
            and same_colour(video, track, a, track, b))


def _confirmed_move(track: Track, video: VideoContext, ok: np.ndarray, r: float, min_move_radii: float,
                    min_frames: int, max_pixel_checks: int, max_area_ratio: float = 1.5,
                    confirm: Callable[[VideoContext, Track, int, int], bool] = _left_its_place
                    ) -> tuple[int, int] | None:
    """The first move of the subject the pixels confirm (``confirm``) -> (first, last frame), extended back to where
    it set off and on to where it stops moving away; None when there is none (or after ``max_pixel_checks`` refused
    ones).
    A candidate starts at each observed frame ``a``: the first frame ``b`` of the same observed run, ``min_frames``
    or more on, at ``min_move_radii`` radii or more from ``a`` and at least 0.6 of the path walked (mostly one way),
    its blob's area within x``max_area_ratio`` over the frames from ``a`` to ``b`` (a body that moves keeps its size;
    one that another body passes in front of shows less of itself, and what is left of it lies off its centre). A move
    shown so is looked for back from the first candidate of its run that only its changing area refused: from there
    on, the last frame at the place it left."""
    c = track.centroid_px
    checks = 0
    for s, e in runs(ok):
        changing = None  # the first start of the run's candidates refused only for the blob's changing area
        for a in range(s, e - min_frames + 2):
            b = next((b for b in range(a + min_frames - 1, e + 1)
                      if float(np.linalg.norm(c[b] - c[a])) >= max(min_move_radii * r, 0.6 * float(
                          np.linalg.norm(np.diff(c[a:b + 1], axis=0), axis=1).sum()))), None)
            if b is None:
                continue
            areas = track.area_px[a:b + 1]  # one observed run: every frame is observed
            if areas.max() > max_area_ratio * max(areas.min(), 1.0):
                # the blob shrinks or swells on the way: another body passing in front covers part of it (what is
                # left of it shifts), or a neighbour of its colour merges with it; a body that moves keeps its size
                changing = a if changing is None else changing
                continue
            if checks == max_pixel_checks:
                return None
            checks += 1
            if not confirm(video, track, a, b):
                continue
            # once a later stretch shows the move, its set-off is looked for from the first stretch refused for its
            # area (a body that rises off its shadow, or across a wall of near its colour, sheds part of its blob as
            # it sets off, in steps too small for the creep below)
            a = a if changing is None else changing
            # the move sets off at the last frame still at the place it left (a body at rest for a while before it
            # moves is found from the first frame of its rest), and from there back over any creep into it
            a = max(k for k in range(a, b) if ok[k] and float(np.linalg.norm(c[k] - c[a])) <= 0.25 * r)
            while a > s and float(np.linalg.norm(c[a - 1] - c[a])) > 0.25 * r:
                a -= 1
            while b < e and float(np.linalg.norm(c[b + 1] - c[a])) > float(np.linalg.norm(c[b] - c[a])):
                b += 1
            return a, b
    return None
