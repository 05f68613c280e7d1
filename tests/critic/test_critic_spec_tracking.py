"""Offline grounding/tracking: sub-pixel centroids, identities through a crossing, binding by colour and size."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from critic.specialists.tracking import (BackgroundGrounder, BackgroundTracker, _anothers_body, _share_true, _Tracklet,
                                       bind_subject, color_matches, floor_row, frame_median, opened)
from critic.types import GroundOp, OperationInputs, SubjectSpec, Track

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402


def ground(clip, name="ball", **attrs):
    subject = SubjectSpec(name=name, noun="ball", **attrs)
    return BackgroundGrounder().run(GroundOp(id="g", subject=name), OperationInputs(subjects={name: subject}),
                                    clip.context())


def test_sub_pixel_centroids_and_one_identity_through_rest():
    clip = S.drop_clip()
    tracks = ground(clip, color="red")
    assert len(tracks) == 1
    tr = tracks[0]
    assert tr.visible.all()  # resting at the end is still seen (not absorbed by the background)
    err = np.linalg.norm(tr.centroid_px - clip.balls["ball"].xy, axis=1)
    assert np.median(err) < 0.5 and err.max() < 1.0
    assert tr.radius_px == pytest.approx(S.RADIUS, abs=0.6)


def test_floor_line_from_the_background():
    clip = S.drop_clip()
    bg = BackgroundTracker().background(clip.frames)
    assert floor_row(bg) == pytest.approx(S.FLOOR_Y, abs=1.5)


def crossing_clip(t_count=36):
    """Red ball going right and blue ball going left at the same height: they overlap in the middle."""
    t = np.arange(t_count) / S.FPS
    y = np.full(t_count, 50.0)
    red = S.Ball(np.stack([20 + 80 * t, y], 1), np.full(t_count, 6.0), np.ones(t_count, bool), S.COLORS["red"])
    blue = S.Ball(np.stack([140 - 80 * t, y], 1), np.full(t_count, 6.0), np.ones(t_count, bool), S.COLORS["blue"])
    frames = S.draw(S.background(), [red, blue], t_count)
    return S.Synthetic(frames=frames, fps=S.FPS, audio=None, audio_rate_hz=S.AUDIO_RATE,
                       balls={"red": red, "blue": blue}, contacts_s=[])


def test_identities_survive_a_crossing():
    clip = crossing_clip()
    for color in ("red", "blue"):
        tracks = ground(clip, name=color, color=color)
        assert len(tracks) == 1, color
        tr = tracks[0]
        truth = clip.balls[color].xy
        ok = tr.visible & ~tr.coasted
        assert ok.sum() >= 0.7 * len(truth)
        # wherever it was observed it is the right ball (a merged blob's centroid is off by under a radius),
        # and after the crossing it is on its own ball again: the identity did not swap
        assert np.abs(tr.centroid_px[ok, 0] - truth[ok, 0]).max() < 6.0
        assert ok[-5:].all() and np.abs(tr.centroid_px[-5:] - truth[-5:]).max() < 0.5


def test_size_binding_picks_large_and_small():
    t_count = 20
    t = np.arange(t_count) / S.FPS
    # (a large object must move more than its size over the clip, or the median background absorbs it)
    big = S.Ball(np.stack([20 + 70 * t, np.full(t_count, 40.0)], 1), np.full(t_count, 9.0), np.ones(t_count, bool),
                 S.COLORS["green"])
    small = S.Ball(np.stack([140 - 70 * t, np.full(t_count, 40.0)], 1), np.full(t_count, 4.0),
                   np.ones(t_count, bool), S.COLORS["green"])
    clip = S.Synthetic(frames=S.draw(S.background(), [big, small], t_count), fps=S.FPS, audio=None,
                       audio_rate_hz=S.AUDIO_RATE, balls={}, contacts_s=[])
    (large,) = ground(clip, name="large", color="green", size="large")
    (little,) = ground(clip, name="small", color="green", size="small")
    assert large.radius_px > 2 * little.radius_px
    assert len(ground(clip, name="both", color="green", count=2)) == 2  # "two green balls": every green one


def test_teleport_is_one_identity_with_a_jump():
    clip = S.teleport(S.drop_clip())
    tracks = ground(clip, color="red")
    assert len(tracks) == 1 and tracks[0].visible.sum() >= len(clip.frames) - 1


def test_named_colours():
    rgb = np.array([S.COLORS["red"], S.COLORS["blue"], S.COLORS["green"], (250, 250, 250)])
    assert color_matches(rgb, "red").tolist() == [True, False, False, False]
    assert color_matches(rgb, "blue").tolist() == [False, True, False, False]
    assert color_matches(rgb, "white").tolist() == [False, False, False, True]


def test_bind_returns_nothing_for_an_absent_colour():
    clip = S.drop_clip(t_count=16)
    result = BackgroundTracker().track(clip.frames, clip.times_s)
    assert bind_subject(result, SubjectSpec(name="g", noun="ball", color="green")) == []


@pytest.mark.parametrize("name, rgb", [("teal", (0, 128, 128)), ("purple", (128, 50, 160)), ("black", (25, 25, 25))])
def test_a_body_that_never_moves_is_found_by_any_colour_name_the_binding_knows(name, rgb):
    """A block that never moves is part of the median background, so it is found by its colour alone, by the same
    calibrated names the binding uses (teal included), next to a red ball that drops."""
    clip = S.drop_clip(t_count=24)
    frames = clip.frames.copy()
    frames[:, 60:72, 120:132] = rgb
    still = S.Synthetic(frames=frames, fps=clip.fps, audio=None, audio_rate_hz=clip.audio_rate_hz, balls=clip.balls,
                        contacts_s=clip.contacts_s)
    tracks = ground(still, name="block", color=name)
    assert len(tracks) == 1 and tracks[0].visible.mean() > 0.9
    assert np.median(tracks[0].centroid_px, axis=0) == pytest.approx([125.5, 65.5], abs=1.0)


def test_a_singular_subject_among_several_still_blobs_of_its_colour_is_not_bound_firmly():
    """"A purple block" over a clip with three purple patches that never move (a pattern on the wall, say): it is
    found by its colour alone, and any of the three may be it (or none): one track, its binding not firm. One
    patch alone is the block."""
    clip = S.drop_clip(t_count=24)
    frames = clip.frames.copy()
    for x0 in (10, 60, 120):
        frames[:, 10:22, x0:x0 + 12] = (128, 50, 160)
    patches = S.Synthetic(frames=frames, fps=clip.fps, audio=None, audio_rate_hz=clip.audio_rate_hz,
                          balls=clip.balls, contacts_s=clip.contacts_s)
    tracks = ground(patches, name="block", color="purple")
    assert len(tracks) == 1 and not tracks[0].meta["binding"]["confident"], [t.meta for t in tracks]
    assert "3 blobs of its colour" in tracks[0].meta["binding"]["doubt"]
    frames = clip.frames.copy()
    frames[:, 10:22, 60:72] = (128, 50, 160)
    one = S.Synthetic(frames=frames, fps=clip.fps, audio=None, audio_rate_hz=clip.audio_rate_hz, balls=clip.balls,
                      contacts_s=clip.contacts_s)
    tracks = ground(one, name="block", color="purple")
    assert len(tracks) == 1 and tracks[0].meta["binding"]["confident"]


def test_a_colour_range_that_takes_in_another_named_body_has_not_found_the_subject():
    """A brown ball (120, 60, 25: in the HSV ranges of both brown and orange) drops in front of a grey wall. "An
    orange cube" found by its colour alone would be the brown ball: where the prompt names the brown ball too, that
    body is the brown ball's, and the cube is not found (its absence is then judged by the pixels); where the
    prompt names no brown ball, the orange-looking ball is the cube's one candidate, as before."""
    t_count = 24
    xy, _ = S.bounce_path(np.arange(t_count) / S.FPS, x0=50.0, y0=20.0, vx=25.0, e=0.55)
    ball = S.Ball(xy=xy, radius=np.full(t_count, S.RADIUS), visible=np.ones(t_count, bool), color=(120, 60, 25))
    frames = S.draw(np.full((S.H, S.W, 3), 170, np.uint8), [ball], t_count)
    video = S.Synthetic(frames=frames, fps=S.FPS, audio=None, audio_rate_hz=S.AUDIO_RATE, balls={"ball": ball},
                        contacts_s=[]).context()
    cube = SubjectSpec(name="orange_cube", noun="cube", color="orange")
    brown = SubjectSpec(name="brown_ball", noun="ball", color="brown")
    grounder = BackgroundGrounder()
    both = OperationInputs(subjects={"brown_ball": brown, "orange_cube": cube},
                           prompt="A brown ball drops. An orange cube is there too.")
    assert len(grounder.run(GroundOp(id="b", subject="brown_ball"), both, video)) == 1
    assert grounder.run(GroundOp(id="c", subject="orange_cube"), both, video) == []
    alone = OperationInputs(subjects={"orange_cube": cube}, prompt="An orange cube is there.")
    assert len(grounder.run(GroundOp(id="c", subject="orange_cube"), alone, video)) == 1


def test_a_blob_over_two_touching_bodies_is_the_body_of_the_colour_it_was_found_by():
    """A white ball rests against a pink one, and the motion tracker's blob for the pink ball takes in both: the
    white colour range's blob overlaps it in every frame, but its colour is white, not pink: it is the white ball
    (kept). A blob of brown-orange over the brown ball's track is the brown ball (left to it)."""
    t = 12
    box = np.tile([40.0, 40.0, 60.0, 50.0], (t, 1))  # the pink ball's blob, taking in the white ball beside it
    pink = Track(subject="", identity=0, boxes_xyxy=box, centroid_px=(box[:, :2] + box[:, 2:]) / 2,
                 area_px=np.full(t, 150.0), visible=np.ones(t, bool), coasted=np.zeros(t, bool),
                 touches_border=np.zeros(t, bool), times_s=np.arange(t) / 10.0)
    white_box = np.tile([48.0, 40.0, 60.0, 50.0], (t, 1))
    white = dataclasses.replace(pink, boxes_xyxy=white_box, centroid_px=(white_box[:, :2] + white_box[:, 2:]) / 2)
    ball = SubjectSpec(name="white_ball", noun="ball", color="white")
    assert _anothers_body(white, np.array([235.0, 235.0, 235.0]), ball, [(pink, "pink")]) is False
    cube = SubjectSpec(name="orange_cube", noun="cube", color="orange")
    assert _anothers_body(white, np.array([120.0, 60.0, 25.0]), cube, [(pink, "brown")]) is True
    assert _anothers_body(white, np.array([120.0, 60.0, 25.0]), cube, []) is False


@pytest.mark.parametrize("later", ["green", "red"])
def test_a_lost_track_takes_up_a_blob_of_its_own_colour_only(later):
    """A red ball rolls right and is painted out at frame 10; from frame 16 a ball rolls on from where it was
    heading. Painted green, it is another object: a separate identity, although it lies inside the lost track's
    wide gate. Painted red, it is the red ball seen again: one identity with a gap."""
    t_count = 30
    t = np.arange(t_count) / S.FPS
    xy = np.stack([20 + 90 * t, np.full(t_count, 40.0)], 1)
    first = S.Ball(xy, np.full(t_count, 6.0), np.arange(t_count) < 10, S.COLORS["red"])
    second = S.Ball(xy, np.full(t_count, 6.0), np.arange(t_count) >= 16, S.COLORS[later])
    frames = S.draw(S.background(), [first, second], t_count)
    result = BackgroundTracker().track(frames, t)
    spans = sorted((int(np.flatnonzero(tr.visible)[0]), int(np.flatnonzero(tr.visible)[-1])) for tr in result.tracks)
    if later == "green":
        assert spans == [(0, 9), (16, t_count - 1)], spans
    else:
        assert spans == [(0, t_count - 1)], spans


def test_opened_components_are_the_default_labelling_in_sixteen_bits():
    """The tracker's 16-bit labelling of an opened mask, on the box around its pixels, gives the same blobs,
    labels, foreground stats and centroids as OpenCV's default 32-bit call on the whole frame (densely packed 3x3
    squares four pixels apart, the most an opened mask holds, random opened noise, and both placed at odd offsets
    in a larger frame, where the box starts between OpenCV's 2x2 blocks); an empty mask has the background alone;
    a frame too large for 16-bit labels gets the default call."""
    import cv2

    from critic.specialists.tracking import opened_components

    rng = np.random.default_rng(0)
    packed = np.zeros((120, 160), np.uint8)
    for y in range(0, 118, 4):
        for x in range(0, 158, 4):
            packed[y:y + 3, x:x + 3] = 1
    noise = cv2.morphologyEx((rng.random((120, 160)) < 0.45).astype(np.uint8), cv2.MORPH_OPEN,
                             np.ones((3, 3), np.uint8))
    dense = cv2.morphologyEx((rng.random((120, 160)) < 0.6).astype(np.uint8), cv2.MORPH_OPEN,
                             np.ones((3, 3), np.uint8))
    masks = [packed, noise]
    for dy, dx in ((7, 13), (10, 4), (3, 0), (1, 1)):
        for m in (packed, noise, dense):
            placed = np.zeros((200, 260), np.uint8)
            placed[dy:dy + 120, dx:dx + 160] = m
            masks.append(placed)
    for mask in masks:
        n, labels, stats, cents = opened_components(mask)
        n0, labels0, stats0, cents0 = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert labels.dtype == np.uint16 and labels.shape == mask.shape and n == n0 > 1
        assert np.array_equal(labels.astype(np.int32), labels0)
        assert np.array_equal(stats[1:], stats0[1:]) and np.allclose(cents[1:], cents0[1:])
    assert opened_components(packed)[0] == 30 * 40 + 1  # every square its own blob
    n, labels, stats, _ = opened_components(np.zeros((50, 60), np.uint8))
    assert n == 1 and not labels.any() and stats[0].tolist() == [0, 0, 60, 50, 3000]
    big = np.zeros((1100, 1100), np.uint8)
    big[10:20, 10:20] = 1
    assert opened_components(big)[1].dtype == np.int32


def test_a_body_found_by_colour_alone_is_stitched_over_the_grounders_gap_in_seconds():
    """A red ball that never moves, found by its colour alone, lost for 15 frames at 24 fps (0.6 s): two tracklets.
    Stitched over the grounder's gap (0.75 s, 18 frames at 24 fps) they are one track; over 12 frames, the old
    fixed gap of this path, two."""
    from critic.specialists.tracking import TrackingResult
    from critic.video import context_from_arrays

    t, fps = 48, 24.0
    times = np.arange(t) / fps

    def tracklet(identity: int, frames: range) -> Track:
        seen = np.zeros(t, bool)
        seen[list(frames)] = True
        xy = np.where(seen[:, None], [[40.0, 30.0]], np.nan)
        boxes = np.where(seen[:, None], [[35.0, 25.0, 45.0, 35.0]], np.nan)
        return Track(subject="", identity=identity, boxes_xyxy=boxes, centroid_px=xy,
                     area_px=np.where(seen, 78.5, 0.0), visible=seen, coasted=np.zeros(t, bool),
                     touches_border=np.zeros(t, bool), times_s=times)

    result = TrackingResult(tracks=[tracklet(0, range(0, 15)), tracklet(1, range(30, 48))],
                            colors_rgb={0: np.array([210.0, 30.0, 30.0]), 1: np.array([210.0, 30.0, 30.0])},
                            background=np.zeros((60, 80, 3), np.uint8), threshold=20.0)
    ball = SubjectSpec(name="ball", noun="ball", color="red")
    gap = BackgroundGrounder().max_gap_frames(context_from_arrays(np.zeros((t, 60, 80, 3), np.uint8), fps))
    assert gap == 18
    assert len(bind_subject(result, ball, max_gap=gap)) == 1
    assert len(bind_subject(result, ball)) == 2


def rest_place_clip(t_count: int = 48, arrive: int = 6, posts: bool = False) -> S.Synthetic:
    """A red ball falls at x = 40 px for ``arrive`` frames, then shows at x = 110 px on the floor and rests there for
    the rest of the clip: the median background holds the ball at its resting place (too few frames differ there for
    the background's two-valued pixels to take the other value). With ``posts``, two black posts stand close on
    either side of the resting place, so that what lies around it is wall, floor and post."""
    xy = np.zeros((t_count, 2))
    xy[:arrive, 0] = 40.0
    xy[:arrive, 1] = np.linspace(15.0, S.FLOOR_Y - S.RADIUS - 8.0, arrive)
    xy[arrive:] = (110.0, S.FLOOR_Y - S.RADIUS)
    ball = S.Ball(xy, np.full(t_count, S.RADIUS), np.ones(t_count, bool), S.COLORS["red"])
    scene = S.background()
    if posts:
        scene[50:88, 90:105] = (10, 10, 12)
        scene[50:88, 116:130] = (10, 10, 12)
    return S.Synthetic(frames=S.draw(scene, [ball], t_count), fps=S.FPS, audio=None,
                       audio_rate_hz=S.AUDIO_RATE, balls={"ball": ball}, contacts_s=[])


@pytest.mark.parametrize("posts", [False, True], ids=["plain", "between_posts"])
def test_a_resting_bodys_place_before_it_arrives_is_a_ghost_not_the_body(posts):
    """A tracklet that holds the ball's resting place before the ball arrives (the background model shows the ball
    there, the frame the wall) and then the ball: its first, still frames are a ghost and are dropped; the ball's own
    frames, and a tracklet that holds the ball where it really rests, are kept. Between two dark posts the ring
    around the place is wall, floor and post, whose mean colour is none of them: the wall and floor the frame shows
    there still continue around it."""
    clip = rest_place_clip(posts=posts)
    tracker = BackgroundTracker()
    bg = tracker.background(clip.frames)
    thr = tracker.threshold(clip.frames, bg)
    rest = np.array([110.0, S.FLOOR_Y - S.RADIUS])
    box = np.concatenate([rest - S.RADIUS - 1, rest + S.RADIUS + 1])

    yy, xx = np.mgrid[0:S.H, 0:S.W]
    disc = np.hypot(xx - rest[0], yy - rest[1]) <= S.RADIUS - 0.5

    def observation(k: int) -> tuple:  # the blob's mean colour, as the tracker records it
        return box.copy(), rest.copy(), float(disc.sum()), True, False, clip.frames[k][disc].mean(axis=0)

    handed_over = _Tracklet(identity=0, first=0, pos=rest, vel=np.zeros(2), radius=S.RADIUS, rgb=np.zeros(3),
                            last_seen=20, frames={k: observation(k) for k in range(20)})
    assert tracker._static_ghost_frames(handed_over, clip.frames, bg, thr) == list(range(6))
    # the ball's own rest: the frame shows the ball where the background does, nothing to drop
    resting = _Tracklet(identity=1, first=6, pos=rest, vel=np.zeros(2), radius=S.RADIUS, rgb=np.zeros(3),
                        last_seen=20, frames={k: observation(k) for k in range(6, 20)})
    assert tracker._static_ghost_frames(resting, clip.frames, bg, thr) == []
    # a tracklet of nothing but the ghost is no body's: no colour of its own to tell it by, kept as it is
    ghost_only = _Tracklet(identity=2, first=0, pos=rest, vel=np.zeros(2), radius=S.RADIUS, rgb=np.zeros(3),
                           last_seen=5, frames={k: observation(k) for k in range(6)})
    assert tracker._static_ghost_frames(ghost_only, clip.frames, bg, thr) == []
    # and the falling ball is still the ball's track
    (track,) = ground(clip, color="red")
    early = track.visible[:6]
    assert early.sum() >= 4 and np.abs(track.centroid_px[:6][early, 0] - 40.0).max() < 2.0


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 24, 25, 31])
def test_frame_median_is_numpys_median_in_uint8(count):
    """The background's per-pixel median gives the bytes of ``np.median(frames, axis=0).astype(np.uint8)``, for odd
    and even counts of frames (an even count: the mean of the two middle values, truncated)."""
    frames = np.random.default_rng(count).integers(0, 256, (count, 7, 9, 3), dtype=np.uint8)
    assert np.array_equal(frame_median(frames), np.median(frames, axis=0).astype(np.uint8))


def test_a_resting_place_taken_from_the_frames_before_the_body_came():
    """With ``refine_rest_places``, the place where the red ball comes to rest for most of the clip (it falls, bounces
    and rests from frame 28 of 72, between two dark posts) is taken from the frames before it came: the background
    there shows the wall and floor, not the ball, and the ball is seen there whole in every frame of its rest (its blob
    the size of the ball, not the part that differs from a background that holds it). Off (the default), the
    background holds the ball there."""
    drop = S.drop_clip(t_count=72, vx=0.0)
    xy = drop.balls["ball"].xy
    rest = xy[-1]
    # black posts close on either side of where it rests: the picture around that place is wall, floor and post
    empty_scene = S.background()
    cx = int(round(rest[0]))
    empty_scene[50:88, cx - 20:cx - 5] = (10, 10, 12)
    empty_scene[50:88, cx + 6:cx + 20] = (10, 10, 12)
    clip = dataclasses.replace(drop, frames=S.draw(empty_scene, [drop.balls["ball"]], 72))
    near = np.linalg.norm(xy - rest, axis=1) < 0.5
    arrive = len(near) - int(np.argmin(near[::-1])) if not near.all() else 0  # the trailing run at rest
    still = np.arange(arrive, len(near))
    assert arrive < 36  # at rest for most of the clip, to its end
    yy, xx = np.mgrid[0:S.H, 0:S.W]
    disc = np.hypot(xx - rest[0], yy - rest[1]) <= S.RADIUS - 1.0
    off = BackgroundTracker().track(clip.frames, clip.times_s)
    assert np.abs(off.background[disc].astype(int) - empty_scene[disc]).max() > 100  # the ball, in the background
    on = BackgroundTracker(refine_rest_places=True).track(clip.frames, clip.times_s)
    assert np.abs(on.background[disc].astype(int) - empty_scene[disc]).max() <= 2
    at_rest = [tr for tr in on.tracks if (tr.visible[still] & ~tr.coasted[still]).all()]
    assert len(at_rest) == 1
    (tr,) = at_rest
    assert (tr.area_px[still] >= 0.8 * np.pi * S.RADIUS ** 2).all()
    assert np.linalg.norm(tr.centroid_px[still] - rest, axis=1).max() < 1.0


def test_the_opening_on_the_mask_box_is_the_whole_frames():
    """``opened`` (the 3x3 opening computed on the box around the mask's pixels, a pixel of margin) gives the bytes
    of OpenCV's opening of the whole frame: blobs and specks anywhere, touching the frame's edges, and none."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(3, 50, 2))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 5))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            mask[y:y + int(rng.integers(1, 9)), x:x + int(rng.integers(1, 9))] = 1
        if rng.random() < 0.3:
            mask |= (rng.random((h, w)) < 0.05).astype(np.uint8)
        assert np.array_equal(opened(mask), cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))


@pytest.mark.parametrize("count", [1, 25, 300])
def test_the_share_of_frames_that_differ_is_numpys_mean(count):
    """The background's share of frames in which a pixel differs is ``masks.mean(axis=0)``, value for value, by
    8-bit counting up to 255 frames and numpy's own mean beyond (where a count may pass 255)."""
    masks = np.random.default_rng(count).random((count, 6, 7)) < 0.9
    assert np.array_equal(_share_true(masks), masks.mean(axis=0))


def rest_then_roll_clip(t_count: int = 48, start: int = 40, speed_px: float = 2.0) -> S.Synthetic:
    """A red ball rests on the floor at x = 50 px until frame ``start``, then rolls right at ``speed_px`` per frame:
    its resting place differs from it in under a fifth of the frames, so the median background holds the ball there,
    and the motion alone finds it only once it moves (at first only the part of it that has left that place)."""
    xy = np.zeros((t_count, 2))
    xy[:, 1] = S.FLOOR_Y - S.RADIUS
    xy[:, 0] = 50.0 + speed_px * np.clip(np.arange(t_count) - start, 0, None)
    ball = S.Ball(xy, np.full(t_count, S.RADIUS), np.ones(t_count, bool), S.COLORS["red"])
    return S.Synthetic(frames=S.draw(S.background(), [ball], t_count), fps=S.FPS, audio=None,
                       audio_rate_hz=S.AUDIO_RATE, balls={"ball": ball}, contacts_s=[])


def test_a_body_that_rests_and_then_moves_is_followed_from_the_clips_start():
    """The ball rests from frame 0 to 40, then rolls: the motion's track begins late, at the part of the ball off
    its resting place; the colour track that was there before is the ball, so the grounded track is seen from the
    first frame, at the resting place, and the grounded centroid stays within a pixel of the drawn one throughout
    its first frames of motion (where the motion's blob is only a sliver)."""
    clip = rest_then_roll_clip()
    motion = [tr for tr in BackgroundTracker().track(clip.frames, clip.times_s).tracks if tr.visible.sum() >= 3]
    assert motion and min(int(np.flatnonzero(tr.visible)[0]) for tr in motion) > 30
    (track,) = ground(clip, color="red")
    assert track.visible.all()
    assert track.meta["extended_by_color_to"] > 40
    drawn = clip.balls["ball"].xy
    assert np.abs(track.centroid_px[:44] - drawn[:44]).max() < 1.0


def test_a_body_that_appears_far_from_a_resting_one_of_its_colour_keeps_its_own_start():
    """A red ball rests at x = 25 px all clip long; a second red ball appears in mid-air at x = 120 px at frame 24 and
    falls: the colour track seen before frame 24 is the resting ball, far from where the second one began, so the
    second ball's track is not taken back before its first frame (its appearing from nowhere stays in view)."""
    t_count, start = 48, 24
    rest_xy = np.tile([25.0, S.FLOOR_Y - S.RADIUS], (t_count, 1))
    resting = S.Ball(rest_xy, np.full(t_count, S.RADIUS), np.ones(t_count, bool), S.COLORS["red"])
    fall_xy = np.tile([120.0, 20.0], (t_count, 1))
    k = np.clip(np.arange(t_count) - start, 0, None)
    fall_xy[:, 1] = np.minimum(20.0 + 0.25 * k ** 2, S.FLOOR_Y - S.RADIUS)
    falling = S.Ball(fall_xy, np.full(t_count, S.RADIUS), np.arange(t_count) >= start, S.COLORS["red"])
    clip = S.Synthetic(frames=S.draw(S.background(), [resting, falling], t_count), fps=S.FPS, audio=None,
                       audio_rate_hz=S.AUDIO_RATE, balls={"resting": resting, "falling": falling}, contacts_s=[])
    grounder = BackgroundGrounder()
    spliced = [grounder._extend_back_by_color(tr, clip.context(), SubjectSpec(name="ball", noun="ball", color="red"))
               for tr in grounder.track_all(clip.context()).tracks if tr.visible.sum() >= 3]
    mover = next(tr for tr in spliced if np.nanmax(np.ptp(tr.centroid_px[tr.visible], axis=0)) > 10)
    assert int(np.flatnonzero(mover.visible)[0]) >= start - 1
    assert "extended_by_color_to" not in mover.meta


@pytest.mark.parametrize("before", ["rests", "falls"])
def test_a_late_track_is_taken_back_only_by_a_colour_track_that_rested_where_it_began(before):
    """The motion's track of a red ball begins at frame 20 at (50, 70) px. The colour track seen there before it
    either rests there from frame 0 (the median background held the ball: it is the ball, and the grounded track
    starts at frame 0) or falls from the top of the picture (the ball seen falling by its colour alone, as in a clip
    compressed hard: it was moving, the motion missed it for another reason, and nothing is taken back)."""
    from critic.specialists.tracking import TrackingResult
    from critic.types import Track
    from critic.video import context_from_arrays

    t, start = 40, 20
    video = context_from_arrays(np.zeros((t, 96, 160, 3), np.uint8), 24.0)

    def track(xy: np.ndarray, seen: np.ndarray, identity: int) -> Track:
        xy = np.where(seen[:, None], xy, np.nan)
        return Track(subject="", identity=identity, boxes_xyxy=np.concatenate([xy - 5, xy + 5], 1), centroid_px=xy,
                     area_px=np.where(seen, 78.5, 0.0), visible=seen, coasted=np.zeros(t, bool),
                     touches_border=np.zeros(t, bool), times_s=np.arange(t) / 24.0)

    xy = np.tile([50.0, 70.0], (t, 1))
    xy[start:, 0] += 1.5 * np.arange(t - start)  # rolls right from frame 20
    if before == "falls":
        xy[:start, 1] = np.linspace(10.0, 68.0, start)
    motion = track(xy, np.arange(t) >= start, 0)
    colour = track(xy, np.ones(t, bool), 1)
    grounder = BackgroundGrounder()
    grounder._cache[f"{video.sha256}:red"] = TrackingResult(tracks=[colour], colors_rgb={1: np.array([210.0, 30, 30])},
                                                            background=np.zeros((96, 160, 3), np.uint8), threshold=20.0)
    out = grounder._extend_back_by_color(motion, video, SubjectSpec(name="ball", noun="ball", color="red"))
    assert int(np.flatnonzero(out.visible)[0]) == (0 if before == "rests" else start)


def test_a_rested_body_that_moves_on_is_followed_by_the_motion_once_off_its_resting_place():
    """The ball rests until frame 40, then rolls right at 3 px a frame onto a small red mat on the floor (x 69-74 px),
    which its colour blob takes in from frame 45. Off its resting place (a diameter away, from frame 44) the motion's
    blob is the whole ball, so the grounded track follows it there, not the colour blob of ball and mat: its centroid
    stays within a pixel of the drawn one up to frame 45 (on the mat, red on red, the motion sees only part of it)."""
    clip = rest_then_roll_clip(speed_px=3.0)
    mat = S.background()
    mat[74:80, 69:75] = S.COLORS["red"]
    ball = clip.balls["ball"]
    clip = dataclasses.replace(clip, frames=S.draw(mat, [ball], len(clip.frames)))
    (track,) = ground(clip, color="red")
    assert track.visible.all()
    assert np.abs(track.centroid_px[:46] - ball.xy[:46]).max() < 1.0
