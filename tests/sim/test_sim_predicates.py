"""Predicates: residuals in units, continuity across a wall hit, every kind, summaries, projection."""

import math

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from sim import engine, scenes
from sim.camera import project
from sim.predicates import (Bounces, ComesToRest, FallInOrder, FirstContactBefore, HitsBefore, LandsInRegion,
                            Predicate, StaysInFrame, evaluate)
from sim.summarize import summarize
from sim.types import CameraSpec

TARGET = LandsInRegion(object="ball", x_range_m=(1.98, 2.02))


def _eval(predicates, spec):
    return evaluate(predicates, spec, engine.simulate(spec))


def test_short_throw_residual_is_negative_metres_and_summarised():
    report = _eval([TARGET], scenes.thrown_ball(launch_speed_mps=3.0, launch_angle_deg=30.0))
    r = report.results[0]
    assert not r.holds and r.unit == "m"
    assert r.residual == pytest.approx(r.details["landing_x_m"] - 1.98)
    assert -0.5 < r.residual < -0.3
    text = summarize(report)
    assert f"landed {abs(r.residual):.2f} m short of the target in x" in text


def test_landing_after_wall_hit_is_an_overshoot_and_continuous():
    """Sweep the launch speed across the first wall hit: the objective never passes and never jumps."""
    speeds = np.linspace(4.4, 5.0, 7)
    objectives, diverted = [], []
    for v in speeds:
        report = _eval([TARGET], scenes.thrown_ball(launch_speed_mps=v, launch_angle_deg=45.0))
        r = report.results[0]
        assert not r.holds
        objectives.append(r.details["objective"])
        diverted.append("diverted_by" in r.details)
        if diverted[-1]:
            assert r.residual > 0 and "hit the wall first" in r.message
    assert not diverted[0] and diverted[-1]
    steps = np.diff(objectives)
    assert np.all(steps > 0)
    assert steps.max() < 1.5 * steps.min()  # no jump at the wall


def test_a_bounce_back_onto_the_target_does_not_pass():
    # Hits the wall high and would fall back near the target; still not a pass.
    spec = scenes.thrown_ball(launch_speed_mps=6.5, launch_angle_deg=45.0)
    r = _eval([LandsInRegion(object="ball", x_range_m=(-10.0, 2.9))], spec).results[0]
    assert not r.holds and r.residual > 0


def test_contact_order_bounces_and_deadline():
    spec = scenes.thrown_ball(launch_speed_mps=4.5, launch_angle_deg=40.0)  # floor, then wall, then floor...
    report = _eval([
        HitsBefore(object="ball", first="floor", second="wall"),
        HitsBefore(object="ball", first="wall", second="floor"),
        FirstContactBefore(object="ball", time_s=1.0),
        FirstContactBefore(object="ball", time_s=0.5, with_body="floor"),
        Bounces(object="ball", n=1, surface_kind="wall"),
        Bounces(object="ball", n=2),
    ], spec)
    floor_wall, wall_floor, by_1s, by_half, one_wall, two_floor = report.results
    assert floor_wall.holds and not wall_floor.holds and wall_floor.unit == "s" and wall_floor.residual > 0
    assert by_1s.holds and not by_half.holds and by_half.residual == pytest.approx(0.8125 - 0.5, abs=0.01)
    assert one_wall.holds
    assert not two_floor.holds and two_floor.residual > 0 and two_floor.unit == "bounces"
    assert "bounced" in two_floor.message


def test_dominoes_fall_in_order_and_missing_domino_fails():
    spec = scenes.dominoes(n=5)
    ok = _eval([FallInOrder()], spec).results[0]
    assert ok.holds and ok.details["fallen"] == 5
    # Too far apart: the chain breaks after the first.
    far = scenes.dominoes(n=3, spacing_m=0.8)
    r = _eval([FallInOrder(), FallInOrder(objects=("domino_3", "domino_2"))], far).results
    assert not r[0].holds and "domino_2 did not fall" in r[0].message and r[0].residual == 2


def test_stays_in_frame_and_comes_to_rest():
    spec = scenes.ramp()
    good = _eval([StaysInFrame(), ComesToRest(object="ball"), ComesToRest(object="ball", by_time_s=0.5)], spec)
    frame, rest, rest_early = good.results
    assert frame.holds and rest.holds and not rest_early.holds and rest_early.unit == "s"
    narrow = spec.model_copy(update={"camera": spec.camera.model_copy(update={"fov_deg": 10.0})})
    r = _eval([StaysInFrame()], narrow).results[0]
    assert not r.holds and r.unit == "px" and r.residual > 0 and "leaves the frame" in r.message


def test_invalid_simulation_fails_every_predicate_with_the_reason():
    spec = scenes.thrown_ball(launch_speed_mps=400.0, launch_angle_deg=80.0)
    report = _eval([TARGET, StaysInFrame()], spec)
    assert not report.all_hold
    assert all(not r.holds and "left the world" in r.message for r in report.results)
    assert summarize(report).startswith("simulation invalid")


def test_predicates_parse_by_kind_and_reject_bad_input():
    adapter = TypeAdapter(tuple[Predicate, ...])
    parsed = adapter.validate_python([{"kind": "bounces", "object": "ball", "n": 2},
                                      {"kind": "lands_in_region", "object": "ball", "x_range_m": [1, 2]}])
    assert isinstance(parsed[0], Bounces) and isinstance(parsed[1], LandsInRegion)
    for bad in ({"kind": "lands_in_region", "object": "ball", "x_range_m": [2, 1]},
                {"kind": "lands_in_region", "object": "ball"},
                {"kind": "bounces", "object": "ball", "n": 1, "extra": 1},
                {"kind": "teleports", "object": "ball"}):
        with pytest.raises(ValidationError):
            adapter.validate_python([bad])


def test_summary_of_passing_report():
    report = _eval([StaysInFrame()], scenes.collision())
    assert summarize(report) == "all 1 predicates hold"


def test_pinhole_projection():
    cam = CameraSpec(eye_m=(0, -5, 1), target_m=(0, 0, 1), fov_deg=50, width_px=848, height_px=480)
    f = 240 / math.tan(math.radians(25))
    uv, depth = project(cam, np.array([[0, 0, 1], [1, 0, 1], [0, 0, 2], [0, -6, 1]]))
    # TinyRenderer's convention: row r sits at screen y = H - 1 - r, so the optical axis is row H/2 - 1.
    np.testing.assert_allclose(uv[0], [424, 239])
    np.testing.assert_allclose(uv[1], [424 + f / 5, 239])
    np.testing.assert_allclose(uv[2], [424, 239 - f / 5])
    np.testing.assert_allclose(depth[:3], [5, 5, 5])
    assert np.all(np.isnan(uv[3])) and depth[3] < 0


def test_fall_in_order_without_boxes_fails_clearly():
    r = _eval([FallInOrder()], scenes.collision()).results[0]
    assert not r.holds and "no boxes" in r.message
