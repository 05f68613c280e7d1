"""``scene`` specialist (offline default): whole-scene checks that read the pixels and no track.

``continuity``: time runs on. Bodies in motion do not all stop dead at once and then go on from where they stopped:
a run of frames in which nothing in the picture changes, between frames where bodies move, in the same places on both
sides of it, is the clip frozen (a frame shown several times over). Motion that resumes elsewhere (a caption that goes,
another body set off) is not a body going on, and a scene that comes to rest and stays is not frozen. Nor does time
skip ahead: one frame step over which the whole moving picture goes several times as far as the step before, and
slows back down after, is frames cut out (``measure.timeline.missing_frames``, the picture's optical flow), whichever
bodies were moving across it, named by the prompt or not, bound to a track or not.

``permanence``: nothing in view appears from nowhere or vanishes in place. The grounder's tracks miss the bodies the
prompt never names (a ball pasted into the clip half-way, an object painted out of it), and a body that stays still
for half the clip or more is taken into the median background, so this check looks at the picture itself: a place
whose colour holds steady for a few frames, then changes in one frame to another colour that holds steady again.
A body arrives at a place by moving there (the pixels around it change in the frames before, and as it settles;
within reach, those that show its colour change however little: over a background near its own colour it moves
all but unseen); an in-place change of a compact, body-sized region with nothing moving around it is a body that
appeared or vanished. What is not a body is left alone: captions (letters: thin strokes, several at once, or a row),
a change of the whole picture (a cut, a light, a camera that moves), regions touching the frame's border (a body
coming in).
In the clip's first and last frames a place is steady for as many frames as the clip shows (two at least): a body
seen for the clip's first two frames and gone in place at the third vanished, unless what is around its place goes
on moving after (a body let go from rest barely moves in its first frames). Where two places change at once and are
not one body that jumped, each is judged alone: a body that vanishes while another moves elsewhere still vanished.

Frames are read on a grid of at most ``grid_side`` px on the long side (area-averaged, which also averages sensor
noise), in CIELAB (delta E units throughout); the body test runs at full resolution.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np
from scipy.ndimage import find_objects

from critic.specialists.colour import name_colour, norm_last_axis, rgb_to_lab
from critic.specialists.measure.common import measurement
from critic.specialists.measure.timeline import unexplained_cuts
from critic.specialists.tracking import channel_max_diff
from critic.types import CONTRADICTED, SUPPORTED, UNKNOWN, Measurement, OperationInputs, SceneOp, VideoContext


class BodyChange(NamedTuple):
    """A body that appears or vanishes in place at one frame: its centre (x, y video px), area (video px), colour
    (RGB, in the frame that shows it), ``change`` ('appears' / 'vanishes') and the compactness of what changed."""

    at_px: tuple[float, float]
    area_px: int
    rgb: np.ndarray
    change: str
    compactness: float


def _region_stats(labels: np.ndarray, count: int) -> np.ndarray:
    """(count, 5) int: x, y, width, height and area (px) of each label 1..count-1 of ``labels`` (h, w) int (row 0,
    the background, zeros), as ``cv2.connectedComponentsWithStats`` gives them."""
    stats = np.zeros((count, 5), np.int64)
    stats[:, 4] = np.bincount(labels.ravel(), minlength=count)[:count]
    for i, box in enumerate(find_objects(labels, max_label=count - 1), start=1):
        if box is not None:
            stats[i, :4] = (box[1].start, box[0].start, box[1].stop - box[1].start, box[0].stop - box[0].start)
    stats[0] = 0
    return stats


class SceneChangeDetector:
    """The ``scene`` specialist. Arguments (delta E is CIELAB distance; frames are video frames):

    * ``grid_side``: the long side (px) of the grid the frames are read on;
    * ``step_delta_e``: a place changes when its colour after differs by more than this from its colour before;
    * ``stable_delta_e``: before and after, every frame of the place stays within this of its median;
    * ``before_s`` / ``after_s``: how long (s, at least ``min_steady_frames`` frames) it is steady on each side;
      within that of the clip's first or last frame, the side the clip cuts short needs ``min_edge_frames`` frames
      (a body removed at frame 2 was steady in the two frames the clip has before it);
    * ``min_area_px``: the smallest region (grid px) taken for a body; ``max_area_frac``: the largest (of the frame);
    * ``min_compactness``: 4 pi area / perimeter^2 of what changed at full resolution (a disc is near 1, a box
      0.8, a caption's strokes under 0.5);
    * ``ring_radii`` / ``max_ring_change``: within this many radii around the region, at most this share of the
      place changed in the frame before or as it changed (a body moving in or out changes its surroundings);
    * ``reach_radii`` / ``max_moved_share``: within this many radii, what else changed in those frames and shows the
      body's colour (before it appears, or after it vanishes) is less than this share of the region's own area (a
      fast body arriving in one frame leaves its old place within reach; another body moving nearby is not it);
    * ``max_changing_share``: a frame where more than this share of the picture changes is a cut, a light or a
      camera move: no in-place change is read there, and a clip where a quarter of the frames do so is unknown;
    * ``still_share`` / ``moving_share``: for ``continuity``, a frame step where at most the first share of the
      picture changes (by more than ``still_delta_e``) shows nothing moving; one where at least the second does shows
      bodies moving; ``min_frozen_steps``: the shortest frozen run (frame steps); ``min_resume_overlap``: the share of
      what moves after the run that lies where things moved before it (within ``resume_reach_px`` grid px);
    * ``min_cut_ratio``: frames cut out, read from the picture alone (``measure.timeline.missing_frames``), must make
      the moving picture go at least this many times as far over one step as over the step before: two frames or
      more cut (a cut of k frames makes it k + 1). The per-subject check takes the flow's own 2.5 when a bound body
      moves across the step; with no body to back it, JPEG blocking on a ball that starts to roll read 2.6.
    """

    name = "scene_change"
    version = "7"

    def __init__(self, grid_side: int = 160, step_delta_e: float = 25.0, stable_delta_e: float = 8.0,
                 before_s: float = 0.15, after_s: float = 0.15, min_steady_frames: int = 4, min_area_px: int = 12,
                 max_area_frac: float = 0.05, min_compactness: float = 0.6, ring_radii: float = 2.0,
                 max_ring_change: float = 0.1, reach_radii: float = 6.0, max_moved_share: float = 1.0,
                 max_changing_share: float = 0.3, still_delta_e: float = 15.0, still_share: float = 5e-4,
                 moving_share: float = 5e-3, min_frozen_steps: int = 2, min_resume_overlap: float = 0.3,
                 resume_reach_px: int = 2, min_cut_ratio: float = 3.0, min_edge_frames: int = 2):
        self.grid_side, self.step, self.stable = int(grid_side), float(step_delta_e), float(stable_delta_e)
        self.before_s, self.after_s, self.min_steady = float(before_s), float(after_s), int(min_steady_frames)
        self.min_area, self.max_area_frac = int(min_area_px), float(max_area_frac)
        self.min_compactness, self.ring_radii, self.max_ring_change = (float(min_compactness), float(ring_radii),
                                                                       float(max_ring_change))
        self.reach_radii, self.max_moved_share = float(reach_radii), float(max_moved_share)
        self.max_changing_share = float(max_changing_share)
        self.still_delta_e, self.still_share, self.moving_share = (float(still_delta_e), float(still_share),
                                                                   float(moving_share))
        self.min_frozen_steps, self.min_resume_overlap = int(min_frozen_steps), float(min_resume_overlap)
        self.resume_reach_px = int(resume_reach_px)
        self.min_cut_ratio = float(min_cut_ratio)
        self.min_edge_frames = max(2, int(min_edge_frames))

    def run(self, op: SceneOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        check = {"permanence": self.permanence, "continuity": self.continuity}[op.quantity]
        return check(video)

    def continuity(self, video: VideoContext) -> Measurement:
        """A frozen run: ``min_frozen_steps`` or more frame steps where nothing moves, between steps where bodies
        move (two on each side), with what moves after it lying where things moved before it; else a frame step
        with frames cut out of the moving picture (``missing_frames``), unless the frame times explain it (a longer
        interval there) or the clip is slow motion (its steps are too small to read)."""
        req = ("time runs on: bodies in motion do not all stop dead at once and go on from where they stopped, nor "
               "skip ahead")
        t_count = video.num_frames
        if t_count < self.min_frozen_steps + 3:
            return measurement(UNKNOWN, req, "", reason=f"too few frames ({t_count}) to see motion around a pause")
        moved = self._steps(video) > self.still_delta_e  # (T-1, h, w): step s -> s+1
        share = moved.reshape(len(moved), -1).mean(axis=1)
        still = share <= self.still_share
        s = 1
        while s < len(share):
            if not still[s]:
                s += 1
                continue
            e = s
            while e < len(share) and still[e]:
                e += 1
            # steps s..e-1 show nothing moving: frames s..e are one picture
            # bodies move frame after frame on both sides: the step next to the run and the one beyond it (at half
            # the share, where the clip has it). A source at a lower frame rate than its container repeats each
            # picture a few times: lone steps of motion between repeated pictures, whose slow moments are no freeze
            moving = (e < len(share) and self._moving(share, s - 1, s - 2) and self._moving(share, e, e + 1))
            if e - s >= self.min_frozen_steps and moving:
                before = self._dilate(moved[s - 1].astype(np.uint8), self.resume_reach_px)
                overlap = float((moved[e] & before).sum()) / max(int(moved[e].sum()), 1)
                if overlap >= self.min_resume_overlap:
                    return measurement(
                        CONTRADICTED, req, f"frames {s} to {e} show one picture ({e - s} frame steps with "
                        f"{100 * share[s:e].max():.2f} % of it changing at most), between steps where "
                        f"{100 * share[s - 1]:.1f} % and {100 * share[e]:.1f} % of it move, and the motion after goes "
                        f"on where it stopped ({100 * overlap:.0f} % of it)", window=video.window(s, e),
                        frozen=[s, e], moving_before=share[s - 1], moving_after=share[e], resume_overlap=overlap)
            s = e
        cuts = unexplained_cuts(video, min_ratio=self.min_cut_ratio)
        if cuts:
            m = max(cuts, key=lambda m: m.ratio)
            return measurement(CONTRADICTED, req, m.describe(), window=video.window(m.frame, m.frame + 1),
                               missing_frames=[c.record() for c in cuts])
        return measurement(SUPPORTED, req, f"no frozen run between motions and no frames cut in {t_count} frames")

    def _moving(self, share: np.ndarray, near: int, far: int) -> bool:
        """Do bodies move at frame step ``near`` (``moving_share`` of the picture or more) and at ``far`` beyond it
        (half that, unless the clip has no such step)?"""
        return bool(share[near] >= self.moving_share
                    and (not 0 <= far < len(share) or share[far] >= 0.5 * self.moving_share))

    def permanence(self, video: VideoContext) -> Measurement:
        """The first body-like region that appears or vanishes in place (module docstring)."""
        req = "nothing in view appears from nowhere or vanishes in place"
        before = max(self.min_steady, int(round(self.before_s * video.fps)))
        after = max(self.min_steady, int(round(self.after_s * video.fps)))
        t_count = video.num_frames
        if t_count < before + after + 1:
            return measurement(UNKNOWN, req, "", reason=f"too few frames ({t_count}) to see a place before and after "
                               f"a change ({before} + {after})")
        lab, scale = self._grid(video)
        # frame-to-frame change (T-1, h, w): what moved, and how much of the picture changes at once
        step_de = self._steps(video)
        moved = step_de > self.step
        # a place steady within ``stable`` on both sides of a change of more than ``step`` changed by more than
        # their difference from one frame to the next: only those places are looked at (the medians are the cost)
        loose = step_de > max(self.step - 2 * self.stable, 0.0)
        changing = moved.reshape(len(moved), -1).mean(axis=1) > self.max_changing_share
        if changing.mean() > 0.25:
            return measurement(UNKNOWN, req, "", reason=f"the whole picture changes in {int(changing.sum())} of "
                               f"{len(changing)} frame steps (a moving camera or changing light): no place to watch")
        edge = min(self.min_edge_frames, before, after)
        for t in range(edge, t_count - edge + 1):
            if changing[t - 1] or (t >= 2 and changing[t - 2]):
                continue
            # the full steady spans inside the clip; at its first and last frames, what the clip has (a body there
            # for the clip's first two frames and gone in place after was steady in all the frames it shows)
            found = self._change_at(video, lab, moved, loose, t, min(before, t), min(after, t_count - t), scale,
                                    settled=t >= before)
            if not found:
                continue
            names = name_colour(np.stack([f.rgb for f in found]))
            first = found[0]
            (x, y) = first.at_px
            values = dict(frame=t, at_px=[round(x, 1), round(y, 1)], area_px=first.area_px, colour=names[0],
                          change=first.change, compactness=round(first.compactness, 3))
            if len(found) == 2:
                # a body at rest that is at rest somewhere else one frame later: a jump
                (gone, gone_name), (come, come_name) = sorted(zip(found, names), key=lambda f: f[0].change,
                                                              reverse=True)
                jump = float(np.hypot(come.at_px[0] - gone.at_px[0], come.at_px[1] - gone.at_px[1]))
                text = (f"a {gone_name} body of {gone.area_px} px at ({gone.at_px[0]:.0f}, {gone.at_px[1]:.0f}) px "
                        f"vanishes at frame {t} and a {come_name} one of {come.area_px} px appears at "
                        f"({come.at_px[0]:.0f}, {come.at_px[1]:.0f}) px, {jump:.0f} px away: both places were steady "
                        "before and after, nothing moved between them")
                values.update(change="jumps", jump_px=round(jump, 1),
                              to_px=[round(come.at_px[0], 1), round(come.at_px[1], 1)])
            else:
                text = (f"a {names[0]} body of {first.area_px} px {first.change} at frame {t} in open view at "
                        f"({x:.0f}, {y:.0f}) px: the place was steady before and after, nothing moved in or out")
            return measurement(CONTRADICTED, req, text, window=video.window(t - 1, t), **values)
        return measurement(SUPPORTED, req, f"no body appears or vanishes in place in {t_count} frames")

    # ----------------------------------------------------------------------------------------------

    def _grid(self, video: VideoContext) -> tuple[np.ndarray, float]:
        """Every frame on the grid, CIELAB float32 (T, h, w, 3), and the grid's scale (grid px per video px);
        memoised on ``video`` (both checks read it)."""
        memo = video.__dict__.setdefault("_scene_grid", {})
        if self.grid_side not in memo:
            memo[self.grid_side] = self._grid_of(video)
        return memo[self.grid_side]

    def _steps(self, video: VideoContext) -> np.ndarray:
        """The CIELAB change of every grid pixel from each frame to the next, (T-1, h, w) float32 delta E; memoised
        on ``video`` with the grid (both checks read it)."""
        memo = video.__dict__.setdefault("_scene_steps", {})
        if self.grid_side not in memo:
            lab, _ = self._grid(video)
            memo[self.grid_side] = norm_last_axis(np.diff(lab, axis=0))
        return memo[self.grid_side]

    def _grid_of(self, video: VideoContext) -> tuple[np.ndarray, float]:
        f = video.frames
        scale = min(1.0, self.grid_side / max(f.shape[1], f.shape[2]))
        size = (max(1, round(f.shape[2] * scale)), max(1, round(f.shape[1] * scale)))
        # area averaging by a whole factor first (OpenCV's fast path, on the frame cropped to its multiple: at most
        # n - 1 px off the right and bottom edges), then by what is left: a large frame costs about half as much
        n = max(1, int(max(f.shape[1], f.shape[2]) // self.grid_side))
        if scale >= 1:
            return rgb_to_lab(f, dtype=np.float32), scale
        t_count = f.shape[0]
        h, w = f.shape[1] // n, f.shape[2] // n
        wholes = f
        if n > 1:
            # all frames, cropped to the factor's multiple, stacked as one tall picture in one call: each n x n block
            # lies within one frame, so each frame's pixels are the same as alone, and one call costs about a third
            # of the time of one per frame (the stack is a view where the factor divides the height, else a copy)
            tall = f[:, :h * n].reshape(t_count * h * n, f.shape[2], 3)[:, :w * n]
            wholes = cv2.resize(tall, (w, t_count * h), interpolation=cv2.INTER_AREA).reshape(t_count, h, w, 3)
        small = np.stack([cv2.resize(x, size, interpolation=cv2.INTER_AREA) for x in wholes])
        return rgb_to_lab(small, dtype=np.float32), scale

    def _change_at(self, video: VideoContext, lab: np.ndarray, moved: np.ndarray, loose: np.ndarray, t: int,
                   before: int, after: int, scale: float, settled: bool = True) -> list[BodyChange]:
        """The bodies that appear or vanish in place at frame ``t``: none, one, or a pair (a body at rest that is at
        rest somewhere else one frame later: one vanishes, one appears; of two changes that are not such a pair, the
        first that is a body's alone); none where more than two regions change."""
        h, w = lab.shape[1:3]
        ys, xs = np.nonzero(loose[t - 1])
        if len(ys) < self.min_area:
            return []
        pre, post = lab[t - before:t, ys, xs], lab[t:t + after, ys, xs]  # (frames, n, 3)
        was, now = np.median(pre, axis=0), np.median(post, axis=0)
        ok = ((norm_last_axis(pre - was).max(axis=0) < self.stable)
              & (norm_last_axis(post - now).max(axis=0) < self.stable)
              & (norm_last_axis(now - was) > self.step))
        if ok.sum() < self.min_area:
            return []
        stepped = np.zeros((h, w), np.uint8)
        stepped[ys[ok], xs[ok]] = 1
        # the faces of one body change apart (a cube's lit and shaded faces, each steady in its own colour, with a
        # seam between them that passes neither test): places that changed within a grid pixel of each other are one
        # region (a caption's letters, apart by their spacing, stay apart)
        count, joined = cv2.connectedComponents(cv2.dilate(stepped, np.ones((3, 3), np.uint8)), connectivity=8)
        labels = np.where(stepped > 0, joined, 0)
        stats = _region_stats(labels, count)
        regions = [i for i in range(1, count) if self.min_area <= stats[i, 4] <= self.max_area_frac * h * w]
        if len(regions) == 1:
            found = self._body_change(video, lab, moved, loose, t, before, after, scale, labels, stats, regions[0],
                                      labels == regions[0], settled)
            return [found] if found is not None else []
        if len(regions) == 2:
            # a body at rest that is at rest somewhere else one frame later: each place passes with the other's
            # change not counted as motion around it, one emptied and one filled by a body alike (colour and size)
            both = (labels == regions[0]) | (labels == regions[1])
            pair = [self._body_change(video, lab, moved, loose, t, before, after, scale, labels, stats, i, both,
                                      settled) for i in regions]
            if all(f is not None for f in pair) and {f.change for f in pair} == {"appears", "vanishes"}:
                a, b = pair
                alike = (max(a.area_px, b.area_px) <= 2 * min(a.area_px, b.area_px)
                         and float(np.linalg.norm(rgb_to_lab(a.rgb) - rgb_to_lab(b.rgb))) <= self.step)
                if alike:
                    return pair
            # not one body jumping: each change alone, the other counted as motion around it (a body that
            # vanishes in place while another moves elsewhere in the picture vanished all the same)
            for i in regions:
                found = self._body_change(video, lab, moved, loose, t, before, after, scale, labels, stats, i,
                                          labels == i, settled)
                if found is not None:
                    return [found]
        return []  # none, or more changes than one body and one other: a caption's letters, a row of changes

    def _body_change(self, video: VideoContext, lab: np.ndarray, moved: np.ndarray, loose: np.ndarray, t: int,
                     before: int, after: int, scale: float, labels: np.ndarray, stats: np.ndarray, i: int,
                     own: np.ndarray, settled: bool = True) -> BodyChange | None:
        """Region ``i`` of ``labels`` as a body that appears or vanishes in place at frame ``t`` (the tests of the
        module docstring), or None; ``own``: the pixels whose change is not motion around it (the region, or the
        region and its partner in a jump). ``settled`` False: the place was steady for fewer frames than the full
        span (the clip's first frames), as a body let go from rest is (it barely moves in its first two frames):
        one that vanishes then must leave its surroundings still over the frames after, where a body let go goes
        on moving."""
        h, w = labels.shape
        as_it = moved[t - 1]
        just_before = moved[t - 2] if t >= 2 else np.zeros_like(as_it)
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if (x == 0 or y == 0 or x + bw >= w or y + bh >= h or area < 0.5 * bw * bh
                or max(bw, bh) > 2.5 * min(bw, bh)):
            return None  # at the border (coming in or going out of view), or not one compact body
        region = (labels == i).astype(np.uint8)
        r = max(1, int(round(np.sqrt(area / np.pi))))
        around = self._dilate(region, self.ring_radii * r) & ~own
        nearby = self._dilate(region, self.reach_radii * r) & ~own
        if (max(as_it[around].mean(), just_before[around].mean(), just_before[region > 0].mean())
                > self.max_ring_change):
            return None  # its surroundings were moving: a body arrived or left by moving
        compact = self._compactness(video, t, (x, y, bw, bh), r, scale)
        if compact < self.min_compactness:
            return None  # what changed is strokes, not a body: letters of a caption
        cy, cx = np.argwhere(region > 0).mean(axis=0)
        # the body is on the side where the place differs from the colour around it: a body that appears is in
        # the frames after; one that vanishes in the frames before
        ry, rx = np.nonzero(region)
        region_was = np.median(lab[t - before:t, ry, rx], axis=0)  # (n, 3)
        region_now = np.median(lab[t:t + after, ry, rx], axis=0)
        ring = np.nonzero(around) if around.any() else np.nonzero(np.ones((h, w), bool))
        ring_colour = np.median(np.median(lab[t:t + after, ring[0], ring[1]], axis=0), axis=0)
        appears = (norm_last_axis(region_now - ring_colour).mean()
                   > norm_last_axis(region_was - ring_colour).mean())
        # a fast body that arrives in one frame leaves its old place within reach, which showed the body's colour just
        # before (one that leaves fast shows it at its new place just after): a body as big of its colour moving
        # within reach just then is where it came from, or went; another body moving nearby, of another colour, is not
        body = np.median(region_now if appears else region_was, axis=0)
        # (where the place changed at all, ``loose``: a body moving over a background near its own colour, a yellow
        # cylinder falling past an olive wall, changes it by less than ``step`` until it reaches the floor)
        moved_near = (loose[t - 1] | loose[t - 2] if t >= 2 else loose[t - 1])[nearby]
        shown = np.zeros(moved_near.shape, bool)  # within reach, where the body's colour shows on the other side
        for k in ((t - 1, t - 2) if appears else (t, t - 1)):
            shown |= norm_last_axis(lab[max(k, 0)][nearby] - body) < self.step
        if int((moved_near & shown).sum()) > self.max_moved_share * area:
            return None
        if not appears and not settled and any(moved[j][around].mean() > self.max_ring_change
                                               for j in range(t, min(t + after - 1, len(moved)))):
            return None  # its surroundings move on after: a body let go from rest, not gone
        k = t if appears else t - 1
        ys, xs = np.nonzero(cv2.resize(region, (video.frames.shape[2], video.frames.shape[1]),
                                       interpolation=cv2.INTER_NEAREST))
        rgb = np.median(video.frames[k, ys, xs], axis=0) if len(ys) else video.frames[k, 0, 0]
        return BodyChange(((cx + 0.5) / scale - 0.5, (cy + 0.5) / scale - 0.5), int(len(ys)), rgb,
                          "appears" if appears else "vanishes", compact)

    @staticmethod
    def _dilate(mask: np.ndarray, radius: float) -> np.ndarray:
        k = 2 * max(1, int(round(radius))) + 1
        return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0

    @staticmethod
    def _compactness(video: VideoContext, t: int, box: tuple[int, int, int, int], r: int, scale: float,
                     min_diff: int = 30) -> float:
        """4 pi area / perimeter^2 of the largest region that changed from frame ``t - 1`` to ``t`` (channel-max
        difference over ``min_diff``) in the grid box ``box`` padded by ``r`` grid px, at full resolution; holes
        count in the perimeter (a letter O is a ring, not a disc)."""
        x, y, bw, bh = box
        H, W = video.frames.shape[1:3]
        x0, y0 = int(max((x - r) / scale, 0)), int(max((y - r) / scale, 0))
        x1, y1 = int(min((x + bw + r) / scale + 1, W)), int(min((y + bh + r) / scale + 1, H))
        changed = channel_max_diff(video.frames[t, y0:y1, x0:x1], video.frames[t - 1, y0:y1, x0:x1]) > min_diff
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8), connectivity=8)
        if count < 2:
            return 0.0
        big = 1 + int(np.argmax(stats[1:, 4]))
        contours, _ = cv2.findContours((labels == big).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        perimeter = sum(cv2.arcLength(c, True) for c in contours)
        return float(4 * np.pi * stats[big, 4] / max(perimeter, 1.0) ** 2)
