"""The ``scene`` specialist: a body that appears from nowhere or vanishes in place is found wherever it is, named or
not; a body that moves in, a caption, a camera that moves and a cut are not taken for one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from critic.specialists.scene import SceneChangeDetector
from critic.types import OperationInputs, SceneOp
from critic.video import context_from_arrays

T, H, W, FPS = 30, 120, 160, 10.0
FLOOR = (170, 170, 160)


def scene(draw) -> np.ndarray:
    """(T, H, W, 3) uint8 frames: a two-tone room (wall, floor) and what ``draw(frame, k)`` adds to frame k."""
    frames = np.empty((T, H, W, 3), np.uint8)
    for k in range(T):
        f = frames[k]
        f[:] = FLOOR
        f[: H // 2] = (90, 110, 150)
        draw(f, k)
    return frames


def rolling(f: np.ndarray, k: int, stop: int = 20) -> None:
    """A red ball that rolls in from the left along the floor and comes to rest at frame ``stop``."""
    x = 10 + 5 * min(k, stop)
    cv2.circle(f, (x, 90), 6, (200, 30, 30), -1)


def check(frames: np.ndarray):
    video = context_from_arrays(frames, FPS)
    return SceneChangeDetector().run(SceneOp(id="o1"), OperationInputs(subjects={}, tracks={}), video)


def test_a_ball_pasted_half_way_is_found_with_its_colour_and_frame():
    m = check(scene(lambda f, k: (rolling(f, k), k >= 17 and cv2.circle(f, (130, 40), 7, (150, 40, 200), -1))))
    assert m.state == "contradicted"
    assert m.values["frame"] == 17 and m.values["change"] == "appears" and m.values["colour"] == "purple"
    assert (m.window.start_frame, m.window.end_frame) == (16, 17)
    assert abs(m.values["at_px"][0] - 130) <= 2 and abs(m.values["at_px"][1] - 40) <= 2


def test_a_body_pasted_next_to_another_that_rolls_by_appears():
    """A small purple ball pasted at frame 17 a little above the path of the red ball rolling by: what moves within
    reach just then is red, not the purple body arriving from there, so it appeared from nowhere."""
    m = check(scene(lambda f, k: (rolling(f, k), k >= 17 and cv2.circle(f, (112, 72), 4, (150, 40, 200), -1))))
    assert m.state == "contradicted", m.measured
    assert m.values["frame"] == 17 and m.values["change"] == "appears" and m.values["colour"] == "purple"


def test_a_box_pasted_with_two_shaded_faces_is_one_body_that_appears():
    """A box pasted at frame 17: its lit top (a thin strip on its own) and its shaded front are parted by an edge
    whose colour shimmers from frame to frame (never steady, so no part of the change): the two faces within a
    pixel of each other are one body that appeared, not a strip and a block changing at once."""
    def box(f, k):
        rolling(f, k)
        if k >= 17:
            cv2.rectangle(f, (120, 28), (133, 30), (225, 225, 215), -1)
            cv2.line(f, (120, 31), (133, 31), (200, 60, 60) if k % 2 else (60, 200, 60), 1)
            cv2.rectangle(f, (123, 32), (129, 36), (50, 50, 50), -1)
    m = check(scene(box))
    assert m.state == "contradicted" and m.values["frame"] == 17 and m.values["change"] == "appears", m.measured


def test_a_body_painted_out_vanishes_in_place():
    m = check(scene(lambda f, k: (rolling(f, k), k < 12 and cv2.rectangle(f, (120, 30), (132, 42), (30, 140, 60), -1))))
    assert m.state == "contradicted" and m.values["change"] == "vanishes" and m.values["frame"] == 12
    assert m.values["colour"] == "green"


@pytest.mark.parametrize("k_gone", [2, 3])
def test_a_body_painted_out_in_the_first_frames_vanishes_in_place(k_gone):
    """A body at rest in the clip's first two or three frames, painted out after: the clip shows it steady in all
    the frames it has before the change (fewer than the steady span asked inside the clip)."""
    m = check(scene(lambda f, k: (rolling(f, k), k < k_gone and cv2.rectangle(f, (120, 30), (132, 42), (30, 140, 60),
                                                                              -1))))
    assert m.state == "contradicted" and m.values["change"] == "vanishes" and m.values["frame"] == k_gone
    assert (m.window.start_frame, m.window.end_frame) == (k_gone - 1, k_gone)


def test_a_body_let_go_from_rest_in_the_first_frames_is_no_vanishing():
    """A dark post with a knob at its top, held still over the clip's first two frames and then let go: in its
    third frame it has barely moved (a pixel) but has turned its knob away, a compact piece of the picture that
    empties in place as a body that vanishes at frame 2 would; the post goes on falling right beside it."""
    def drop(f, k):
        y = 30 + (0, 0, 1, 4, 9, 16, 25, 36, 48)[min(k, 8)]
        cv2.rectangle(f, (110, y), (117, y + 19), (20, 20, 20), -1)
        if k < 2:
            cv2.rectangle(f, (118, y + 4), (122, y + 8), (20, 20, 20), -1)
    m = check(scene(lambda f, k: (rolling(f, k), drop(f, k))))
    assert not (m.state == "contradicted" and m.values["frame"] <= 3), (m.measured, m.values)


def test_a_body_pasted_in_the_last_frames_appears():
    """A body pasted for the clip's last two frames appears in place, seen steady in the two frames it has."""
    m = check(scene(lambda f, k: (rolling(f, k), k >= T - 2 and cv2.circle(f, (130, 40), 7, (150, 40, 200), -1))))
    assert m.state == "contradicted" and m.values["change"] == "appears" and m.values["frame"] == T - 2


def test_a_body_that_vanishes_while_another_moves_elsewhere_vanished():
    """Two places change at the same frame: a green box painted out, and far from it a ball that starts rolling out
    of its resting place. They are not one body jumping (one is not at rest after); the box alone vanished."""
    def draw(f, k):
        cv2.circle(f, (20 + (0 if k < 12 else 9 * (k - 11)), 90), 6, (200, 30, 30), -1)
        if k < 12:
            cv2.rectangle(f, (120, 30), (132, 42), (30, 140, 60), -1)
    m = check(scene(draw))
    assert m.state == "contradicted" and m.values["change"] == "vanishes" and m.values["frame"] == 12
    assert m.values["colour"] == "green"


def test_a_body_that_moves_in_and_stops_is_no_appearance():
    assert check(scene(rolling)).state == "supported"


def test_a_body_that_falls_past_a_wall_of_near_its_colour_is_no_appearance():
    """A yellow cylinder falls down an olive wall (delta E 14 between them: under the step that counts as motion)
    and, between two frames at 10 fps, from the wall onto the grey floor, where it rests: on the wall it changed the
    picture only faintly, but it did, where its colour shows, within reach of where it lands. It arrived by moving
    there; it did not appear."""
    olive, yellow = (150, 130, 25), (180, 158, 28)

    def fall(f, k):
        f[: H // 2] = olive
        y = 10 + 4 * k if k < 10 else 72  # its top: down the wall to row 46, then resting on the floor from frame 10
        cv2.rectangle(f, (60, y), (70, y + 12), yellow, -1)
    assert check(scene(fall)).state == "supported"


def test_a_fast_body_that_lands_in_one_frame_is_no_appearance():
    """At 10 fps a dropped cube covers several of its sizes between two frames: its old place empties within reach
    as its new one fills."""
    def drop(f, k):
        y = (20, 24, 30, 38, 48, 60)[k] if k < 6 else 88  # from 60 px to 88 px (4.7 of its half-sizes) at frame 6
        cv2.rectangle(f, (70, y - 6), (82, y + 6), (40, 40, 40), -1)
    assert check(scene(drop)).state == "supported"


@pytest.mark.parametrize("text, scale", [("GO", 0.6), ("8", 0.9)])
def test_a_caption_that_appears_is_no_body(text, scale):
    """Several letters change at once; one glyph is strokes (compactness well under a body's)."""
    def caption(f, k):
        rolling(f, k)
        if k >= 12:
            cv2.putText(f, text, (60, 112), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 2, cv2.LINE_AA)
    assert check(scene(caption)).state == "supported"


def test_a_moving_camera_is_unknown_and_a_cut_is_no_appearance():
    rng = np.random.default_rng(0)
    texture = rng.integers(0, 255, (H, W + 3 * T, 3), dtype=np.uint8)
    pan = np.stack([texture[:, 3 * k: 3 * k + W] for k in range(T)])
    m = check(pan)
    assert m.state == "unknown" and "whole picture changes" in m.reason
    cut = scene(rolling)
    cut[15:] = 255 - cut[15:]
    assert check(cut).state != "contradicted"


@pytest.mark.parametrize("frames", [8, 5])
def test_too_short_a_clip_is_unknown(frames):
    video = context_from_arrays(scene(rolling)[:frames], FPS)
    m = SceneChangeDetector().run(SceneOp(id="o1"), OperationInputs(subjects={}, tracks={}), video)
    assert m.state == "unknown" and "too few frames" in m.reason


def continuity(frames: np.ndarray):
    video = context_from_arrays(frames, FPS)
    return SceneChangeDetector().run(SceneOp(id="o1", quantity="continuity"), OperationInputs(subjects={}, tracks={}),
                                     video)


def test_a_frozen_stretch_that_motion_goes_on_from_is_found():
    frames = scene(lambda f, k: rolling(f, k, stop=T))
    frames[11:14] = frames[10]  # frame 10 shown four times, then the clip goes on where it would have been
    m = continuity(frames)
    assert m.state == "contradicted" and m.values["frozen"] == [10, 13]
    assert (m.window.start_frame, m.window.end_frame) == (10, 13)


def test_coming_to_rest_and_another_body_set_off_are_no_freeze():
    assert continuity(scene(rolling)).state == "supported"

    def then_another(f, k):
        rolling(f, k, stop=15)
        cv2.circle(f, (140 - 8 * max(0, k - 20), 40), 8, (30, 30, 200), -1)  # still until frame 20, then rolls left
    assert continuity(scene(then_another)).state == "supported"


def test_a_body_at_rest_that_rests_elsewhere_one_frame_later_jumped():
    """Two places change at once, one emptied and one filled by a body like it: a jump, not a caption's letters."""
    m = check(scene(lambda f, k: (rolling(f, k), cv2.circle(f, (40 if k < 15 else 90, 40), 7, (230, 220, 20), -1))))
    assert m.state == "contradicted" and m.values["change"] == "jumps" and m.values["frame"] == 15
    assert m.values["colour"] == "yellow" and abs(m.values["jump_px"] - 50) <= 2


def test_a_source_at_a_lower_frame_rate_has_slow_moments_but_no_freeze():
    """Each picture shown four times (a 2.5 fps source in a 10 fps container): lone steps of motion between
    repeated pictures; the ball's pause of three of its steps is a slow moment, not the clip frozen."""
    source = [10, 20, 30, 30, 30, 30, 40, 50, 60, 70]  # the ball's x in each source picture

    def cadence(f, k):
        cv2.circle(f, (source[min(k // 4, len(source) - 1)], 90), 6, (200, 30, 30), -1)
    assert continuity(scene(cadence)).state == "supported"


def sliding(positions_px: list[float], times_s: np.ndarray | None = None):
    """``scene continuity`` of a 16 px checkered block (two colours, so its motion shows inside it too) sliding on a
    plain 120 x 200 floor at 12.5 fps, its left edge at ``positions_px`` (one per frame); no track is given."""
    rows, cols = np.mgrid[0:16, 0:16]
    pattern = np.where(((rows // 4 + cols // 4) % 2)[..., None] == 0, (40, 170, 160), (230, 240, 90))
    frames = np.full((len(positions_px), 120, 200, 3), 70, np.uint8)
    for k, x in enumerate(positions_px):
        frames[k, 60:76, int(round(x)):int(round(x)) + 16] = pattern
    video = context_from_arrays(frames, 12.5, times_s=times_s)
    return SceneChangeDetector().run(SceneOp(id="o1", quantity="continuity"), OperationInputs(subjects={}, tracks={}),
                                     video)


def test_frames_cut_out_of_the_moving_picture_skip_time_ahead():
    """A block the prompt need not name slides right at 2 px a frame, and frames 13-17 are cut out: over one step
    it goes six times as far and then on at 2 px again: time skipped ahead at that step (no track is given). The
    same clip whose frame times say the interval there is six times as long (a variable-rate source) is explained
    by them; the uncut clip, and a block speeding up steadily from rest, show no cut."""
    x = [20.0 + 2.0 * k for k in range(40)]
    cut = x[:13] + x[18:]
    m = sliding(cut)
    assert m.state == "contradicted" and "frames missing" in m.measured, (m.measured, m.reason)
    assert (m.window.start_frame, m.window.end_frame) == (12, 13)
    times = np.concatenate([np.arange(13), np.arange(18, 40)]) / 12.5
    assert sliding(cut, times).state == "supported"
    assert sliding(x[:35]).state == "supported"
    assert sliding([20.0 + 0.5 * 120.0 * (k / 12.5) ** 2 for k in range(20)]).state == "supported"


def test_the_scene_reads_a_cut_of_two_frames_or_more():
    """Read from the picture alone, with no bound body behind it, a cut must make the motion go at least three times
    as far over its step (``min_cut_ratio``): two frames cut out of the block's slide are found, a single step
    two and a half times as long (what the per-subject check would take from the flow) is not."""
    x = [20.0 + 2.0 * k for k in range(40)]
    two = sliding(x[:13] + x[15:])
    assert two.state == "contradicted" and (two.window.start_frame, two.window.end_frame) == (12, 13), two.measured
    assert sliding(x[:13] + [x[12] + 5.0 + 2.0 * k for k in range(22)]).state == "supported"


@pytest.mark.parametrize("height, width", [(480, 848), (483, 850), (200, 300), (90, 120)])
def test_the_grid_is_each_frame_area_averaged_alone(height, width):
    """The grid (all frames, cropped to the whole factor's multiple, stacked in one resize) is each frame
    area-averaged by the whole factor, then to the grid, on its own: heights that the factor divides and that it
    does not, a frame under two grid sides (one resize) and one under the grid (read as it is)."""
    frames = np.random.default_rng(height).integers(0, 256, (3, height, width, 3), dtype=np.uint8)
    detector = SceneChangeDetector(grid_side=160)
    lab, scale = detector._grid_of(context_from_arrays(frames, FPS))
    scale_alone = min(1.0, 160 / max(height, width))
    size = (max(1, round(width * scale_alone)), max(1, round(height * scale_alone)))
    n = max(1, max(height, width) // 160)
    alone = []
    for f in frames:
        if scale_alone < 1:
            if n > 1:
                f = cv2.resize(f[:height // n * n, :width // n * n], (width // n, height // n),
                               interpolation=cv2.INTER_AREA)
            f = cv2.resize(f, size, interpolation=cv2.INTER_AREA)
        alone.append(f)
    expected = cv2.cvtColor(np.stack(alone).reshape(-1, 1, 3).astype(np.float32) / np.float32(255.0),
                            cv2.COLOR_RGB2LAB).reshape(lab.shape)
    assert scale == scale_alone
    assert np.array_equal(lab, expected)
