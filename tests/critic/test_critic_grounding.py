"""Grounding: CIELAB colour names, one-to-one binding of the plan's subjects, camera motion, shadows, and
counting only the instances of the named colour."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from critic.specialists import grounding
from critic.specialists.colour import canonical, colour_cost, is_shadow, name_colour, norm_last_axis, rgb_to_lab
from critic.specialists.counting import IdentityCounter
from critic.specialists.grounding_camera import IDENTITY, compensate, estimate_camera_motion
from critic.specialists.tracking import BackgroundGrounder, BackgroundTracker
from critic.types import CountOp, GroundOp, OperationInputs, SubjectSpec, Track
from critic.video import context_from_arrays

FPS = 24.0


# ---------------------------------------------------------------------------------------------- colour names
@pytest.mark.parametrize("rgb, name", [
    ((200, 30, 30), "red"), ((110, 20, 40), "red"), ((255, 140, 0), "orange"), ((240, 220, 40), "yellow"),
    ((40, 160, 50), "green"), ((25, 70, 30), "green"), ((0, 128, 128), "teal"), ((30, 60, 200), "blue"),
    ((20, 30, 100), "blue"), ((128, 50, 160), "purple"), ((250, 130, 170), "pink"), ((130, 80, 40), "brown"),
    ((15, 15, 18), "black"), ((128, 128, 128), "grey"), ((245, 245, 240), "white"), ((60, 62, 60), "grey")])
def test_reference_colours_are_named_as_a_person_would(rgb, name):
    assert name_colour(np.array([rgb]))[0] == name


def test_a_colour_said_several_ways_has_one_name():
    assert [canonical(n) for n in ("Gray", "grey", "violet", "red")] == ["grey", "grey", "purple", "red"]
    assert name_colour(np.array([(128, 128, 128)]))[0] == canonical("gray")


def test_colour_cost_orders_by_hue_and_refuses_greys_and_dull_tints():
    colours = np.array([(40, 160, 50), (0, 128, 128), (30, 60, 200), (128, 128, 128), (122, 83, 75)])
    green = colour_cost(colours, "green")
    assert green[0] < green[1] < 1.0 < green[2]  # green, then teal (a neighbour), then blue
    assert green[3] > 1.0  # a grey is no green
    assert colour_cost(colours[4:], "red")[0] > 4 * colour_cost(np.array([(200, 30, 30)]), "red")[0]  # skin
    assert colour_cost(np.array([(20, 20, 20)]), "black")[0] < 0.3 < colour_cost(np.array([(200, 30, 30)]), "black")[0]
    # a shade word moves the expected lightness
    dark, light = np.array([(20, 70, 25)]), np.array([(120, 220, 130)])
    assert colour_cost(dark, "green", "dark")[0] < colour_cost(light, "green", "dark")[0]
    assert colour_cost(light, "green", "light")[0] < colour_cost(dark, "green", "light")[0]


# ---------------------------------------------------------------------------------------------- assignment
def _track(t_count: int, x0: float, vx: float, size: tuple[float, float] = (8.0, 8.0)) -> Track:
    x = x0 + vx * np.arange(t_count)
    cents = np.stack([x, np.full(t_count, 50.0)], 1)
    half = np.array(size) / 2
    boxes = np.concatenate([cents - half, cents + half - 1], 1)
    return Track(subject="", identity=0, boxes_xyxy=boxes, centroid_px=cents,
                 area_px=np.full(t_count, size[0] * size[1]),
                 visible=np.ones(t_count, bool), coasted=np.zeros(t_count, bool),
                 touches_border=np.zeros(t_count, bool), times_s=np.arange(t_count) / FPS, backend="test",
                 meta={"tracklets": [0]})


def _cands(specs):
    return [grounding.describe(_track(20, x0, vx, size), np.array(rgb, float)) for rgb, x0, vx, size in specs]


def test_subjects_are_bound_one_to_one_by_colour_and_shape():
    cands = _cands([((200, 30, 30), 10, 2, (8, 8)), ((30, 60, 200), 60, 2, (8, 8)),
                    ((30, 60, 200), 100, 2, (24, 6))])
    ball = SubjectSpec(name="blue_ball", noun="ball", color="blue")
    domino = SubjectSpec(name="blue_domino", noun="domino", color="blue")
    red = SubjectSpec(name="red_ball", noun="ball", color="red")
    bound = grounding.ground_subjects([ball, domino, red], cands, "", {})
    assert bound["red_ball"][0] == [0] and bound["blue_ball"][0] == [1] and bound["blue_domino"][0] == [2]
    assert all(evidence["confident"] for _, evidence in bound.values())


def test_an_ambiguous_assignment_is_bound_but_not_firm():
    cands = _cands([((200, 30, 30), 10, 2, (8, 8)), ((205, 35, 25), 60, 2, (8, 8))])
    bound = grounding.ground_subjects([SubjectSpec(name="red_ball", noun="ball", color="red")], cands, "", {})
    members, evidence = bound["red_ball"]
    assert len(members) == 1 and not evidence["confident"] and "margin" in evidence["doubt"]
    # what else the red ball may be is recorded: the other red track (and not absence: both are plainly red)
    assert evidence["rivals"] == [1 - members[0]] and evidence["absent_fits"] is False, evidence
    # a size word separates them when the sizes differ
    cands = _cands([((200, 30, 30), 10, 2, (8, 8)), ((205, 35, 25), 60, 2, (20, 20))])
    bound = grounding.ground_subjects([SubjectSpec(name="red_ball", noun="ball", color="red", size="large")],
                                      cands, "", {})
    assert bound["red_ball"][0] == [1] and bound["red_ball"][1]["confident"]


def test_a_piece_that_moves_with_the_body_is_no_rival_but_a_second_body_is():
    """A teal box slides right and the segmentation splits its shaded face off as a second, smaller teal track that
    keeps its place on the box: one object, and "the teal box" is bound firmly to the larger track. A second teal
    box sliding along 40 px away is a rival (not firm), and so is a teal piece resting beside a resting box (two
    bodies side by side at rest also keep their places)."""
    teal, box = (20, 110, 110), SubjectSpec(name="teal_box", noun="box", color="teal")
    for name, specs, firm in (
            ("face", [(teal, 40, 2, (12, 12)), (teal, 44, 2, (6, 6))], True),
            ("second box", [(teal, 40, 2, (12, 12)), (teal, 80, 2, (11, 11))], False),
            ("at rest", [(teal, 40, 0, (12, 12)), (teal, 44, 0, (6, 6))], False)):
        bound = grounding.ground_subjects([box], _cands(specs), "", {})
        members, evidence = bound["teal_box"]
        assert members == [0] and evidence["confident"] == firm, (name, evidence)


def test_a_lone_candidate_of_the_named_colour_is_firm_however_it_moves():
    """One purple blob, still, seen in a quarter of the frames and twice as long as wide (a ball blurred in a
    fast fall), costs almost as much as leaving "the purple ball" unbound; with no other candidate near it, the
    only rival is absence, which a blob of just that colour rules out, or of a finer shade people call by its name
    (magenta for purple). A blob of a neighbouring hue alone (pink or blue for purple) does not."""
    def lone(rgb, size=(8, 16)):
        tr = _track(20, 40, 0, size)
        seen = np.zeros(20, bool)
        seen[10:15] = True
        tr = Track(**{**{f: getattr(tr, f) for f in ("subject", "identity", "boxes_xyxy", "centroid_px", "area_px",
                                                       "coasted", "touches_border", "times_s", "backend", "meta")},
                      "visible": seen})
        return [grounding.describe(tr, np.array(rgb, float))]

    ball = SubjectSpec(name="purple_ball", noun="ball", color="purple")
    cost = grounding.cost_matrix([ball], lone((128, 50, 160)), "")[0, 0]
    assert cost > grounding.Weights().unbound_cost - grounding.Weights().min_margin  # a near tie with absence
    members, evidence = grounding.ground_subjects([ball], lone((128, 50, 160)), "", {})["purple_ball"]
    assert members == [0] and evidence["confident"], evidence
    for neighbour in ((230, 110, 170), (90, 60, 200)):  # pink; a blue that costs little against purple
        members, evidence = grounding.ground_subjects([ball], lone(neighbour), "", {})["purple_ball"]
        assert members in ([], [0]) and not (members and evidence["confident"]), (neighbour, evidence)
        # bound not firmly, the ball may be nothing in the clip at all
        assert not members or (evidence["rivals"] == [] and evidence["absent_fits"]), (neighbour, evidence)
    # a square blob of magenta, a finer shade people call purple, rules absence out too
    magenta = (200, 40, 180)
    assert name_colour(np.array([magenta]))[0] == "magenta"
    cost = grounding.cost_matrix([ball], lone(magenta, (8, 8)), "")[0, 0]
    assert cost > grounding.Weights().unbound_cost - grounding.Weights().min_margin  # a near tie with absence
    members, evidence = grounding.ground_subjects([ball], lone(magenta, (8, 8)), "", {})["purple_ball"]
    assert members == [0] and evidence["confident"], evidence


def test_a_subject_the_prompt_holds_at_rest_is_no_mover_of_a_near_colour():
    """"A blue can stays where it is": a teal ball rolling across a blue floor is the only identity near blue, and
    a subject that is not held at rest takes it; the can, held at rest, stays unbound (its colour is looked for
    among the still parts of the picture instead). "A brown can sits still" is no dark red ball that crosses the
    picture either, though a brown can not held at rest may be one (a brown body in shade reads dark red), and the
    red costs little more than what a travelling identity costs a body held at rest. A mover of plainly the named
    colour may be the body held at rest (lifted or knocked away), at that extra cost. Of two identities alike in
    colour, the can takes the still one and any other subject the mover."""
    teal_blue = (10, 100, 130)  # a teal rolling over a blue floor: its blob reads between the two
    mover = _cands([(teal_blue, 10, 3, (6, 6))])
    can = SubjectSpec(name="blue_can", noun="can", color="blue")
    assert grounding.ground_subjects([can], mover, "", {})["blue_can"][0] == [0]
    held = can.model_copy(update={"at_rest": True})
    assert grounding.ground_subjects([held], mover, "", {})["blue_can"][0] == []
    dark_red = _cands([((118, 18, 14), 10, 3, (6, 6))])
    brown = SubjectSpec(name="brown_can", noun="can", color="brown")
    assert grounding.ground_subjects([brown], dark_red, "", {})["brown_can"][0] == [0]
    held_brown = brown.model_copy(update={"at_rest": True})
    assert grounding.ground_subjects([held_brown], dark_red, "", {})["brown_can"][0] == []
    w = grounding.Weights()
    blue = (30, 60, 200)
    plain_mover = _cands([(blue, 10, 3, (8, 8))])
    assert grounding.cost_matrix([held], plain_mover, "")[0, 0] == pytest.approx(
        grounding.cost_matrix([can], plain_mover, "")[0, 0] + w.moving)
    assert grounding.ground_subjects([held], plain_mover, "", {})["blue_can"][0] == [0]
    both = _cands([(blue, 10, 3, (8, 8)), (blue, 120, 0, (8, 8))])
    assert grounding.ground_subjects([held], both, "", {})["blue_can"][0] == [1]
    assert grounding.ground_subjects([can], both, "", {})["blue_can"][0] == [0]


def test_a_subject_held_at_rest_and_found_by_colour_alone_is_none_of_the_movers():
    """Two orange blobs found by colour alone (no identity of the clip-wide tracking fitted the subject): "an orange
    ball" is the only one that moves, firmly; "an orange ball sits still" is not that one (a brown ball thrown past
    reads orange), but the still blob, and not firmly (it may be a patch of scenery)."""
    from critic.specialists.tracking import _one_of_colour

    mover = dataclasses.replace(_track(20, 10, 3), identity=0, meta={"binding": {"by": "color"}})
    still = dataclasses.replace(_track(20, 120, 0), identity=1, meta={"binding": {"by": "color"}})
    ball = SubjectSpec(name="orange_ball", noun="ball", color="orange")
    one = _one_of_colour([mover, still], ball)
    assert one.identity == 0 and one.meta["binding"]["confident"], one.meta
    held = _one_of_colour([mover, still], ball.model_copy(update={"at_rest": True}))
    assert held.identity == 1 and not held.meta["binding"]["confident"], held.meta
    assert "held at rest" in held.meta["binding"]["doubt"], held.meta


def test_a_colour_that_fits_no_track_binds_nothing():
    cands = _cands([((200, 30, 30), 10, 2, (8, 8))])
    bound = grounding.ground_subjects([SubjectSpec(name="green_ball", noun="ball", color="green")], cands, "", {})
    assert bound["green_ball"][0] == []


def test_a_subject_without_colour_shape_or_size_is_firm_only_on_a_mover():
    cands = _cands([((200, 30, 30), 10, 0, (8, 8))])  # one still blob
    bound = grounding.ground_subjects([SubjectSpec(name="thing", noun="thing")], cands, "", {})
    assert bound["thing"][0] == [0] and not bound["thing"][1]["confident"]
    cands = _cands([((200, 30, 30), 10, 3, (8, 8))])
    bound = grounding.ground_subjects([SubjectSpec(name="thing", noun="thing")], cands, "", {})
    assert bound["thing"][1]["confident"]


def _count_balls(cands, bound, n):
    """Count the instances ``bound["ball"]`` gives the plural "ball" (``n`` said) -> the counter's Measurement."""
    members, evidence = bound["ball"]
    fields = ("boxes_xyxy", "centroid_px", "area_px", "visible", "coasted", "touches_border", "times_s", "backend")
    tracks = [Track(**{f: getattr(cands[j].track, f) for f in fields}, subject="ball", identity=j,
                    meta={"binding": evidence}) for j in members]
    video = context_from_arrays(np.zeros((20, 100, 200, 3), np.uint8), FPS)
    return IdentityCounter().run(CountOp(id="c", subject="ball", n=n), OperationInputs(tracks={"ball": tracks}), video)


def _kin_count(specs, n, named=("red",)):
    """Bind "balls" (count ``n``, no colour) and one ball of each ``named`` colour over candidates ``specs``."""
    cands = _cands(specs)
    subjects = [SubjectSpec(name="ball", noun="ball", count=n)] + [
        SubjectSpec(name=f"{c}_ball", noun="ball", color=c) for c in named]
    bound = grounding.ground_subjects(subjects, cands, "", {"ball": True})
    return bound["ball"][0], bound["ball"][1], _count_balls(cands, bound, n)


def test_an_uncoloured_plural_counts_the_named_bodies_of_its_kind_when_nothing_else_is_there():
    """"Two balls ... and one red ball" over a clip whose one body is the red ball (a speck aside): the balls are
    the red ball alone, one where two were said - contradicted. With a second body of a ball's size left over, it
    may be the other ball: the count is not judged that way. With two named balls and "one ball" said of the kind,
    the plural may be one of them: unknown, not contradicted."""
    red, speck, other = ((200, 30, 30), 10, 2, (8, 8)), ((120, 120, 120), 150, 0, (2, 2)), \
        ((30, 60, 200), 60, 2, (8, 8))
    members, evidence, m = _kin_count([red, speck], 2)
    assert members == [0] and evidence["by"] == "kin" and evidence["kin"] == ["red_ball"]
    assert m.state == "contradicted" and "all named on their own (red_ball)" in m.measured, m
    members, evidence, m = _kin_count([red, other], 2)
    assert evidence["by"] != "kin" and m.state != "contradicted"
    members, evidence, m = _kin_count([red, ((40, 160, 50), 60, 2, (8, 8))], 1, named=("red", "green"))
    assert evidence["by"] == "kin" and len(members) == 2
    assert m.state == "unknown", m


def _named(name: str, x0: float, vx: float, firm: bool = True, identity: int = 0,
           visible: np.ndarray | None = None) -> Track:
    """A ball named on its own ("a red ball falls"): one track, bound by colour, firmly unless ``firm`` is False,
    seen in every frame or in the (20,) bool ``visible`` ones."""
    tr = _track(20, x0, vx)
    return Track(**{f: getattr(tr, f) for f in ("boxes_xyxy", "centroid_px", "area_px", "coasted",
                                                 "touches_border", "times_s", "backend")},
                 visible=tr.visible if visible is None else visible, subject=name, identity=identity,
                 meta={"tracklets": [identity], "binding": {"by": "color", "candidates": 1, "confident": firm,
                                                            "doubt": "" if firm else "2 candidate tracks fit"}})


def test_more_bodies_of_a_kind_named_and_moving_than_the_number_said_of_it_contradict_the_count():
    """"Three balls fall ... a grey, a purple, a yellow and a black ball each fall": four falling balls where three
    are said. Each named ball must be one firmly bound body that moves, apart from the others; otherwise nothing is
    told of the count (a doubtful binding, a still blob, two names on one body)."""
    video = context_from_arrays(np.zeros((20, 100, 200, 3), np.uint8), FPS)
    kin = ("grey_ball", "purple_ball", "yellow_ball", "black_ball")

    def count(named, n=3):
        tracks = {"ball": (), **{k: (t,) for k, t in zip(kin, named)}}
        return IdentityCounter().run(CountOp(id="c", subject="ball", n=n, kin=kin[:len(named)]),
                                     OperationInputs(tracks=tracks), video)

    four = [_named(k, 10 + 40 * i, 2, identity=i) for i, k in enumerate(kin)]
    m = count(four)
    assert m.state == "contradicted" and "4 of its kind named on their own" in m.measured, m
    assert (m.window.start_frame, m.window.end_frame) == (0, 19)
    assert count(four, n=4).state != "contradicted"
    assert count(four[:3]).state != "contradicted"
    assert count([*four[:3], _named("black_ball", 170, 2, firm=False, identity=3)]).state != "contradicted"
    assert count([*four[:3], _named("black_ball", 170, 0, identity=3)]).state != "contradicted"  # never moves
    assert count([*four[:3], _named("black_ball", 92, 2, identity=3)]).state != "contradicted"  # on the yellow one
    halves = np.arange(20) < 10
    early, late = (_named(name, x0, 2, identity=i, visible=seen)
                   for name, x0, i, seen in (("yellow_ball", 90, 2, halves), ("black_ball", 130, 3, ~halves)))
    # never seen together: for all the counter can tell, one body's two tracklets
    assert count([*four[:2], early, late]).state != "contradicted"


# ---------------------------------------------------------------------------------------------- synthetic clips
def checkered_floor(h: int = 120, w: int = 200, cell: int = 10) -> np.ndarray:
    """A checkered floor of two browns with fine noise -> (H, W, 3) uint8 (textured background)."""
    yy, xx = np.mgrid[:h, :w]
    dark = ((yy // cell + xx // cell) % 2).astype(bool)
    img = np.where(dark[..., None], np.array([120, 90, 70]), np.array([170, 140, 110])).astype(np.float64)
    img += np.random.default_rng(0).normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_three_green_dominoes_count_only_the_green_ones():
    t_count, bg = 24, checkered_floor()
    frames = np.repeat(bg[None], t_count, axis=0).copy()
    green, red = (40, 170, 60), (210, 40, 40)
    objects = [(green, 15, 20), (green, 15, 50), (green, 15, 80), (red, 100, 30), (red, 100, 70)]
    for k in range(t_count):
        for rgb, x0, y0 in objects:
            x = int(x0 + 2 * k)
            cv2.rectangle(frames[k], (x, y0), (x + 5, y0 + 16), rgb, -1)
    video = context_from_arrays(frames, FPS, name="dominoes")
    subject = SubjectSpec(name="green_domino", noun="domino", color="green", count=3)
    tracks = BackgroundGrounder().run(GroundOp(id="g", subject="green_domino"),
                                      OperationInputs(subjects={"green_domino": subject},
                                                      prompt="three green dominoes"),
                                      video)
    assert len(tracks) == 3
    counter = IdentityCounter()
    inputs = OperationInputs(subjects={"green_domino": subject}, tracks={"green_domino": tuple(tracks)})
    assert counter.run(CountOp(id="c", subject="green_domino", n=3), inputs, video).state == "supported"
    assert counter.run(CountOp(id="c", subject="green_domino", n=5), inputs, video).state == "contradicted"


def test_a_moving_shadow_is_not_an_object_but_a_dark_ball_is():
    t_count, bg = 20, checkered_floor()
    frames = np.repeat(bg[None], t_count, axis=0).copy()
    for k in range(t_count):
        x = 30 + 5 * k
        shade = np.zeros(bg.shape[:2], np.uint8)
        cv2.ellipse(shade, (x, 90), (14, 5), 0, 0, 360, 1, -1)
        frames[k][shade > 0] = (frames[k][shade > 0] * 0.6).astype(np.uint8)  # a cast shadow: dimmed floor
        cv2.circle(frames[k], (x, 40), 6, (25, 25, 30), -1)  # a near-black ball, darker than any shadow
    result = BackgroundTracker().track(frames, np.arange(t_count) / FPS)
    ys = [np.nanmedian(tr.centroid_px[tr.visible, 1]) for tr in result.tracks]
    assert any(abs(y - 40) < 3 for y in ys)
    assert not any(abs(y - 90) < 6 for y in ys)  # the shadow left no track
    floor = np.array([[170, 140, 110], [60, 70, 120]])
    assert is_shadow((floor * 0.6).astype(int), floor).all()
    assert not is_shadow(np.array([[20, 20, 20], [40, 170, 60]]), floor).any()


def test_a_dark_body_of_the_floor_s_hue_with_nothing_to_cast_it_is_an_object():
    """A dark blob slides over a checkered floor, dimming it without changing its hue as a cast shadow does (a body
    of the floor's colour, darker: a green ball on a green floor); with nothing above or beside it to cast it, it is a
    body and is tracked. The same blob under a ball that flies over it is that ball's shadow, and leaves no track; with
    the ball flying 80 px to its side, nothing casts it and both are tracked."""
    t_count, bg = 20, checkered_floor()
    ys = {}
    for name, caster in (("alone", None), ("cast", 0), ("far", 80)):
        frames = np.repeat(bg[None], t_count, axis=0).copy()
        for k in range(t_count):
            x = 30 + 5 * k
            shade = np.zeros(bg.shape[:2], np.uint8)
            cv2.circle(shade, (x, 90), 8, 1, -1)
            frames[k][shade > 0] = (frames[k][shade > 0] * 0.6).astype(np.uint8)
            if caster is not None:
                cv2.circle(frames[k], (x + caster, 40), 6, (25, 25, 30), -1)
        result = BackgroundTracker().track(frames, np.arange(t_count) / FPS)
        ys[name] = sorted(round(float(np.nanmedian(tr.centroid_px[tr.visible, 1]))) for tr in result.tracks)
    assert ys == {"alone": [90], "cast": [40], "far": [40, 90]}, ys


# ---------------------------------------------------------------------------------------------- camera motion
def textured(h: int = 160, w: int = 240) -> np.ndarray:
    rng = np.random.default_rng(1)
    noise = cv2.GaussianBlur((rng.random((h, w, 3)) * 255).astype(np.uint8), (0, 0), 2.0)
    return np.clip(noise.astype(int) // 2 + checkered_floor(h, w, 16).astype(int) // 2, 0, 255).astype(np.uint8)


def test_camera_pan_is_recovered_within_half_a_pixel():
    base = textured()
    h, w = base.shape[:2]
    shifts = np.stack([np.arange(10) * 1.7, np.arange(10) * -0.6], 1)  # px per frame, sub-pixel
    frames = np.stack([cv2.warpAffine(base, np.array([[1, 0, dx], [0, 1, dy]], float), (w, h),
                                      borderMode=cv2.BORDER_REFLECT) for dx, dy in shifts])
    m = estimate_camera_motion(frames)
    # frame k shows the scene moved by shifts[k]: mapping it back onto frame 0 translates by -shifts[k]
    assert np.abs(m[:, :, 2] + shifts).max() < 0.5
    assert np.abs(m[:, :, :2] - np.eye(2)).max() < 0.01
    undone = compensate(frames, m)
    inner = (slice(20, h - 20), slice(30, w - 30))
    assert np.median(np.abs(undone[-1][inner].astype(int) - base[inner].astype(int))) < 6


def test_a_still_camera_gives_the_identity():
    base = textured()
    frames = np.repeat(base[None], 8, axis=0).copy()
    cv2.circle(frames[4], (100, 80), 10, (255, 0, 0), -1)  # an object moving in view is not camera motion
    m = estimate_camera_motion(frames)
    assert np.array_equal(m, np.repeat(IDENTITY[None], 8, axis=0))
    assert compensate(frames, m) is frames


def test_a_track_that_ends_is_handed_over_only_to_a_blob_that_begins_where_it_was_heading():
    """A red ball's track ends at frame 9 of 20 in open view. A red blob first seen next to where the ball was
    heading (the tracker's new track of it, or a blob it merged into) may be the ball going on: the binding is
    doubtful. A red blob seen all along at the other end of the picture is another body: no hand-over."""
    def seen_only(track: Track, frames: np.ndarray) -> Track:
        return dataclasses.replace(track, visible=frames, area_px=np.where(frames, track.area_px, 0.0))

    t = 20
    ball = seen_only(_track(t, 10, 2), np.arange(t) <= 9)
    rgb = np.array((200, 30, 30), float)
    next_to = seen_only(_track(t, 10, 2), np.arange(t) >= 12)  # first seen at x = 34, where the ball was heading
    elsewhere = _track(t, 150, 0)
    assert grounding.handed_over([grounding.describe(ball, rgb), grounding.describe(next_to, rgb)], 0, [1])
    assert not grounding.handed_over([grounding.describe(ball, rgb), grounding.describe(elsewhere, rgb)], 0, [1])


def test_a_doubt_with_no_rival_track_names_the_runner_up_binding():
    """One magenta blob for "a pink ball" and "a purple ball": the purple ball takes it by a hair, and its rival is
    no other track ("1 candidate tracks fit", a contradiction in terms) but the pink ball on that track."""
    out = grounding.ground_subjects([SubjectSpec(name="pink_ball", noun="ball", color="pink"),
                                     SubjectSpec(name="purple_ball", noun="ball", color="purple")],
                                    _cands([((170, 70, 140), 10, 2.0, (8, 8))]), "", {})
    members, evidence = out["purple_ball"]
    assert members == [0] and not evidence["confident"] and evidence["candidates"] == 1
    assert "candidate tracks fit" not in evidence["doubt"]
    assert evidence["doubt"].startswith("its one fitting track wins by only 0.04 over the next best binding")


def test_cielab_of_8_bit_and_of_float_colours_agree_and_out_of_range_floats_are_clamped():
    """8-bit frames and the same values as floats give the same CIELAB; a float colour beyond 0..255 reads as the
    nearest colour within it (OpenCV's conversion clamps it: the project does not clip first)."""
    frame = np.random.default_rng(3).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    assert np.array_equal(rgb_to_lab(frame), rgb_to_lab(frame.astype(np.float64)))
    assert np.array_equal(rgb_to_lab(np.array([-40.0, 300.0, 128.0])),
                          rgb_to_lab(np.array([0.0, 255.0, 128.0])))


@pytest.mark.parametrize("components", [2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_the_fast_norm_gives_numpys_bits(components, dtype):
    """``norm_last_axis`` is ``np.linalg.norm(x, axis=-1)`` bit for bit (the squares summed first to last, in the
    array's float type), on whole arrays, strided views and integer input; other lengths are numpy's own."""
    rng = np.random.default_rng(components)
    x = (rng.standard_normal((40, 50, components)) * rng.uniform(0.1, 100.0, (40, 50, components))).astype(dtype)
    for view in (x, x[:, ::3], x.reshape(-1, components)):
        fast = norm_last_axis(view)
        assert fast.dtype == np.linalg.norm(view, axis=-1).dtype
        assert np.array_equal(fast, np.linalg.norm(view, axis=-1))


def test_an_uncoloured_plural_left_more_movers_than_it_counts_is_not_bound_firmly():
    """"Two cylinders" with no colour, beside a named red ball: the movers left after the ball is bound are the
    plural's members. Two left: bound firmly. Four left (a named body's second tracklet, a piece, a shadow among
    them), with nothing but motion to tell which are the cylinders: bound, but not firmly, with the reason."""
    ball = ((200, 30, 30), 10, 2, (8, 8))
    movers = [((120, 120, 120), 40 + 30 * i, 2, (6, 10)) for i in range(4)]
    subjects = [SubjectSpec(name="red_ball", noun="ball", color="red"),
                SubjectSpec(name="cylinder", noun="cylinder", count=2)]
    for left, firm in ((2, True), (4, False)):
        out = grounding.ground_subjects(subjects, _cands([ball] + movers[:left]), "a red ball and two cylinders",
                                        {"red_ball": False, "cylinder": True})
        members, evidence = out["cylinder"]
        assert len(members) == left and evidence["by"] == "motion"
        assert evidence["confident"] is firm, evidence
        assert firm or "4 moving identities left for 2 'cylinder'" in evidence["doubt"]
