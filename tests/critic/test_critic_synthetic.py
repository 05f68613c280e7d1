"""End to end on synthetic clips with known truth: prompt -> plan -> offline specialists -> verdict.

Correct clips come back supported with no contradicted claim; each doctored clip comes back contradicted on
the claim that covers the doctored property, with a packet window overlapping the doctored frames (IoU >= 0.5);
missing evidence is unknown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from critic.run import critique

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402

OP_NAMES: dict[int, dict[str, str]] = {}


@pytest.fixture(scope="module")
def drop():
    return S.drop_clip()


def run(components, clip, prompt, tmp_path, name="clip"):
    """Critique the clip; ``OP_NAMES[id(verdict)]`` maps op id -> "op quantity" (from the run's plan.json)."""
    verdict = critique(name, prompt, components, tmp_path / name, video=clip.context(name))
    plan_file = tmp_path / name / "plan.json"
    ops = json.loads(plan_file.read_text())["operations"] if plan_file.is_file() else []
    OP_NAMES[id(verdict)] = {o["id"]: f"{o['op']} {o.get('quantity') or ''}" for o in ops}
    return verdict


def frame_iou(window, frames) -> float:
    a0, a1 = window.start_frame, window.end_frame
    b0, b1 = frames
    inter = max(0, min(a1, b1) - max(a0, b0) + 1)
    return inter / (max(a1, b1) - min(a0, b0) + 1)


def sub_checks(verdict, state):
    return [(c, s) for c in verdict.claims for s in c.sub_checks if s.state == state]


def assert_contradicted(verdict, clip, *, keyword: str):
    """The clip is contradicted on a sub-check whose text names ``keyword`` (the op / quantity), with a packet
    window overlapping the doctored frames."""
    assert verdict.verdict == "contradicted", [(c.id, c.state, c.reason) for c in verdict.claims]
    op_names = OP_NAMES.get(id(verdict), {})
    hits = [(c, s) for c, s in sub_checks(verdict, "contradicted")
            if keyword in s.text or keyword in op_names.get(s.op_id, "")]
    assert hits, [(c.text, s.text) for c, s in sub_checks(verdict, "contradicted")]
    claim_ids = {c.id for c, _ in hits}
    packets = [p for p in verdict.packets if p.claim in claim_ids]
    assert packets and all(p.window is not None for p in packets)
    best = max(frame_iou(p.window, clip.doctored_frames) for p in packets)
    assert best >= 0.5, ([p.window for p in packets], clip.doctored_frames)


DROP_PROMPT = "A red ball falls to the floor and bounces."


def test_correct_drop_is_supported(components, drop, tmp_path):
    v = run(components, drop, DROP_PROMPT + " It comes to rest.", tmp_path)
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims]
    assert not v.packets


def test_correct_drop_with_sound_is_supported(components, drop, tmp_path):
    v = run(components, drop, "A red ball bounces and makes a thud when it hits the floor.", tmp_path)
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims]


def test_correct_collision_is_supported(components, tmp_path):
    v = run(components, S.collision_clip(), "A red ball rolls to the right and hits a blue ball.", tmp_path)
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims]
    assert not v.packets


def test_correct_two_drops_in_order_is_supported(components, tmp_path):
    v = run(components, S.two_drops_clip(red_first=True), "The red ball lands before the blue ball lands.", tmp_path)
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims]


@pytest.mark.parametrize("doctor, keyword", [
    (S.teleport, "continuity"),
    (S.hover, "support"),
    (S.sink_through_floor, "penetration"),
    (S.vanish, "permanence"),
    (S.size_morph, "size"),
])
def test_doctored_drop_is_contradicted(components, drop, tmp_path, doctor, keyword):
    clip = doctor(drop)
    v = run(components, clip, DROP_PROMPT, tmp_path)
    assert_contradicted(v, clip, keyword=keyword)


def test_extra_object_contradicts_the_count(components, tmp_path):
    prompt = "Two red balls bounce on the floor."
    correct = S.two_drops_clip(colors=("red", "red"))
    assert not sub_checks(run(components, correct, prompt, tmp_path, "two"), "contradicted")
    clip = S.extra_object(correct, at=20)
    assert_contradicted(run(components, clip, prompt, tmp_path, "three"), clip, keyword="count")


def test_missing_object_contradicts_the_count(components, drop, tmp_path):
    v = run(components, drop, "Two red balls bounce on the floor.", tmp_path)
    clip = S.Synthetic(**{**drop.__dict__, "doctored_frames": (0, len(drop.frames) - 1)})
    assert_contradicted(v, clip, keyword="count")


def test_an_uncoloured_count_of_moving_bodies_is_contradicted_when_fewer_move(components, drop, tmp_path):
    """"Two balls fall" over a clip of one falling ball: the balls are found by motion alone (no colour named),
    which splits and merges blobs, but every ball is said to fall and the one moving blob is one round body, so
    one is fewer than two. "Two balls lie on the floor" says nothing moves: a still ball is part of the
    background to motion, and the count stays unknown."""
    clip = S.Synthetic(**{**drop.__dict__, "doctored_frames": (0, len(drop.frames) - 1)})
    fall = run(components, drop, "Two balls fall to the floor.", tmp_path, "fall")
    assert_contradicted(fall, clip, keyword="count")
    lie = run(components, drop, "Two balls lie on the floor.", tmp_path, "lie")
    counts = [c for c in fall.claims + lie.claims if any("count" in s.text for s in c.sub_checks)]
    assert [c.state for c in counts] == ["contradicted", "unknown"], [(c.text, c.state, c.reason) for c in counts]


def test_a_second_ball_of_a_singular_subject_that_appears_from_nothing_breaks_permanence(components, drop,
                                                                                         tmp_path):
    """"A red ball falls ...": a second red ball pops into view at rest halfway through the clip. Seen for half the
    clip in one place, the median background takes it in and the tracker never finds it; its colour does, with
    nothing of that colour there before and nothing moving in: permanence contradicted from the frame before it.
    The same second ball rolling in from the frame's edge comes in: no contradiction."""
    t_count = len(drop.frames)
    at = t_count // 2

    def with_second_ball(x: np.ndarray, name: str) -> S.Synthetic:
        """``drop`` with a second red ball on the floor at x = ``x`` (T,) px, seen from frame ``at`` on."""
        second = S.Ball(np.stack([x, np.full(t_count, S.FLOOR_Y - S.RADIUS)], 1), np.full(t_count, S.RADIUS),
                        np.arange(t_count) >= at, S.COLORS["red"])
        balls = {**drop.balls, name: second}
        return S.replace(drop, frames=S._redraw(drop, list(balls.values())), balls=balls,
                         doctored_frames=(at, t_count - 1))

    popped = with_second_ball(np.full(t_count, 25.0), "popped")
    assert_contradicted(run(components, popped, DROP_PROMPT, tmp_path, "popped"), popped, keyword="permanence")
    rolls_in = with_second_ball(np.clip(-6.0 + 4.0 * (np.arange(t_count) - at), -6.0, 25.0), "rolls_in")
    v = run(components, rolls_in, DROP_PROMPT, tmp_path, "rolls_in")
    assert not [s.text for _, s in sub_checks(v, "contradicted") if "permanence" in s.text], v.verdict


def test_sound_before_impact_is_contradicted(components, drop, tmp_path):
    clip = S.early_sound(drop)
    v = run(components, clip, "A red ball bounces and makes a thud when it hits the floor.", tmp_path)
    assert_contradicted(v, clip, keyword="during")


def test_no_sound_is_contradicted(components, drop, tmp_path):
    clip = S.silent(drop)
    v = run(components, clip, "A red ball bounces and makes a thud when it hits the floor.", tmp_path)
    assert_contradicted(v, clip, keyword="hear")


def test_a_sound_missing_altogether_is_missing_at_its_impact(components, drop, tmp_path):
    """No onset in the whole audio track, or an audio track of digital silence: the thud said to come with the
    landing is not there, and the claim that ties them is contradicted at the landing (its window), not left
    unknown for want of a sound window."""
    c = drop.contacts_s[0]
    frames = (int(c * drop.fps), int(round(c * drop.fps)))
    zeros = S.Synthetic(**{**drop.__dict__, "audio": np.zeros_like(drop.audio)})
    for clip in (S.silent(drop), zeros):
        clip = S.Synthetic(**{**clip.__dict__, "doctored_frames": frames})
        v = run(components, clip, "A red ball bounces and makes a thud when it hits the floor.", tmp_path)
        assert_contradicted(v, clip, keyword="during")


def test_events_in_the_wrong_order_are_contradicted(components, tmp_path):
    clip = S.two_drops_clip(red_first=False)
    blue, red = clip.notes["blue_contacts_s"][0], clip.notes["red_contacts_s"][0]
    clip = S.Synthetic(**{**clip.__dict__, "doctored_frames": (int(blue * clip.fps), int(round(red * clip.fps)))})
    v = run(components, clip, "The red ball lands before the blue ball lands.", tmp_path)
    assert_contradicted(v, clip, keyword="before")


@pytest.mark.skipif(not __import__("shutil").which("tesseract"), reason="tesseract binary not installed")
def test_wrong_banner_text_is_contradicted(components, drop, tmp_path):
    prompt = 'A red ball bounces below a banner that reads "SCORE".'
    right = S.banner(drop, "SCORE")
    v = run(components, right, prompt, tmp_path, "right")
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims]
    wrong = S.banner(drop, "GOAL", start=10, end=40)
    assert_contradicted(run(components, wrong, prompt, tmp_path, "wrong"), wrong, keyword="read")


# ------------------------------------------------------------------------------------------ missing evidence


def test_sound_claim_without_audio_track_is_unknown(components, tmp_path):
    clip = S.drop_clip(audio=False)
    v = run(components, clip, "A red ball bounces and makes a thud when it hits the floor.", tmp_path)
    assert v.verdict == "unknown"
    assert not sub_checks(v, "contradicted")


def test_subject_of_a_colour_nowhere_in_the_clip_is_absent(components, drop, tmp_path):
    """A red ball drops on a pale grey-blue background: no green blob anywhere, so the green ball is not there
    (contradicted over the whole clip); a white ball could hide against the pale background, so it is unknown."""
    v = run(components, drop, "A green ball falls to the floor and bounces.", tmp_path, "green")
    assert v.verdict == "contradicted"
    packet = next(p for p in v.packets if any("not there" in m for m in p.measured))
    assert any("no green blob" in m for m in packet.measured)
    assert (packet.window.start_frame, packet.window.end_frame) == (0, drop.frames.shape[0] - 1)
    v = run(components, drop, "A white ball falls to the floor and bounces.", tmp_path, "white")
    assert v.verdict == "unknown"
    assert not v.packets


@pytest.mark.skipif(not __import__("shutil").which("tesseract"), reason="tesseract binary not installed")
def test_text_claim_without_text_is_unknown(components, drop, tmp_path):
    v = run(components, drop, 'A red ball bounces below a banner that reads "SCORE".', tmp_path)
    assert v.verdict == "unknown"
    assert not v.packets


@pytest.mark.parametrize("prompt", ["A red ball does not fall.", "A red ball does not bounce."])
def test_a_denied_event_that_happens_is_contradicted(components, drop, tmp_path, prompt):
    """Negation is honoured end to end: a ball that falls and bounces contradicts "does not fall" and "does not
    bounce", on the explicit claim, with the measured evidence in its packet."""
    v = run(components, drop, prompt, tmp_path)
    assert v.verdict == "contradicted", [(c.text, c.state, c.reason) for c in v.claims]
    bad = [c for c in v.claims if c.state == "contradicted"]
    assert [c.kind for c in bad] == ["explicit"]
    packet = v.packets[0]
    assert packet.window is not None and packet.measured and all(m for m in packet.measured)
    assert any(e.values for e in packet.evidence if e.op == "measure")
