"""Plan language and the static validator: every class of invalid plan is caught before any frame is read."""

import json

import pytest

from critic.plan import PlanError, check_plan, execution_order, load_plan, parse_plan, validate_plan
from critic.types import QUANTITIES, QUANTITY_SPECS, Plan

PROMPT = "A red ball falls, then bounces on the floor."


def good_plan() -> dict:
    return {
        "prompt": PROMPT,
        "subjects": [{"name": "red_ball", "noun": "ball", "color": "red", "span": [0, 10]}],
        "claims": [{"id": "c1", "text": "A red ball falls", "span": [0, 16]},
                   {"id": "c2", "text": "bounces on the floor", "span": [23, 43]},
                   {"id": "c3", "text": "A red ball falls, then bounces on the floor", "span": [0, 43]}],
        "obligations": [{"id": "c1.1", "claim": "c1", "check": "o2"}, {"id": "c2.1", "claim": "c2", "check": "o3"},
                        {"id": "c3.1", "claim": "c3", "check": "o4"}],
        "operations": [
            {"id": "o4", "op": "before", "a": {"op": "o2", "event": "airborne"}, "b": {"op": "o3", "event": "contact"}},
            {"id": "o1", "op": "ground", "subject": "red_ball"},
            {"id": "o2", "op": "measure", "subject": "red_ball", "quantity": "free_fall"},
            {"id": "o3", "op": "measure", "subject": "red_ball", "quantity": "bounce", "surface": "floor"},
        ],
    }


def reasons_for(data) -> list[str]:
    try:
        plan = parse_plan(data)
    except PlanError as exc:
        return exc.reasons
    return validate_plan(plan)


def test_good_plan_validates_and_orders_dependencies_first():
    plan = load_plan(good_plan())
    assert execution_order(plan) == ["o1", "o2", "o3", "o4"]
    # JSON round trip is exact
    assert Plan.model_validate_json(plan.model_dump_json()) == plan


def test_unknown_operation_named():
    d = good_plan()
    d["operations"].append({"id": "o9", "op": "teleport_check", "subject": "red_ball"})
    r = reasons_for(d)
    assert any("unknown operation 'teleport_check'" in x for x in r)


def test_unbound_and_undeclared_subjects():
    d = good_plan()
    d["operations"] = [o for o in d["operations"] if o["op"] != "ground"]
    assert any("unbound" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][2]["subject"] = "green_cube"
    r = reasons_for(d)
    assert any("'green_cube' is not declared" in x for x in r)


def test_argument_types_and_units():
    d = good_plan()
    d["operations"][2]["quantity"] = "gravity_ish"
    assert reasons_for(d)
    d = good_plan()
    d["operations"].append({"id": "o5", "op": "count", "subject": "red_ball", "n": -1})
    assert any("n" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][2] = {"id": "o2", "op": "measure", "subject": "red_ball", "quantity": "contact"}
    assert any("needs 'other'" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][2] = {"id": "o2", "op": "measure", "subject": "red_ball", "quantity": "direction"}
    assert any("expect.direction is required" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][2]["expect"] = {"holds": True, "n": 2}
    assert any("expect.n" in x for x in reasons_for(d))
    d = good_plan()
    d["subjects"][0]["count"] = 3
    d["operations"].append({"id": "o5", "op": "count", "subject": "red_ball", "n": 2})
    d["claims"].append({"id": "c4", "text": "A red ball", "span": [0, 10]})
    d["obligations"].append({"id": "c4.1", "claim": "c4", "check": "o5"})
    assert any("disagrees" in x for x in reasons_for(d))


def test_temporal_operands_must_be_event_windows():
    d = good_plan()
    d["operations"][0]["a"] = {"op": "o1", "event": "airborne"}  # a ground op has no event windows
    assert any("not an event window" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][0]["b"] = {"op": "o2", "event": "rest"}  # free_fall produces 'airborne' only
    assert any("not an event window" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][0]["b"] = {"op": "o77", "event": "contact"}
    assert any("unknown operation 'o77'" in x for x in reasons_for(d))
    d = good_plan()
    d["operations"][0]["b"] = {"op": "o4", "event": "contact"}  # refers to itself
    assert reasons_for(d)


def test_traceability_and_claims():
    d = good_plan()
    d["operations"].append({"id": "o8", "op": "measure", "subject": "red_ball", "quantity": "rest"})
    assert any("o8 (measure): not traceable" in x for x in reasons_for(d))
    d = good_plan()
    d["obligations"] = d["obligations"][:2]
    r = reasons_for(d)
    assert any("claim c3: has no obligation" in x for x in r) and any("o4 (before): not traceable" in x for x in r)
    d = good_plan()
    d["claims"][0]["span"] = [0, 999]
    assert any("outside the prompt" in x for x in reasons_for(d))
    d = good_plan()
    d["obligations"][0]["check"] = "o1"
    assert any("ground operation" in x for x in reasons_for(d))


def test_duplicate_ids_and_double_grounding():
    d = good_plan()
    d["operations"].append({"id": "o1", "op": "ground", "subject": "red_ball"})
    r = reasons_for(d)
    assert any("duplicate operation id" in x for x in r) and any("grounded more than once" in x for x in r)


def test_invalid_plan_raises_with_every_reason():
    d = good_plan()
    d["operations"] = [o for o in d["operations"] if o["op"] != "ground"]
    d["claims"][0]["span"] = [5, 2]
    with pytest.raises(PlanError) as exc:
        check_plan(parse_plan(d))
    assert len(exc.value.reasons) >= 2


def test_parse_errors_are_reasons_not_crashes():
    for bad in ("not json", "[]", json.dumps({"prompt": 3}), json.dumps({"prompt": "x", "operations": [7]})):
        with pytest.raises(PlanError):
            load_plan(bad)


def test_group_instances_may_collide_with_each_other():
    d = good_plan()
    d["subjects"][0]["count"] = 2
    d["operations"][2] = {"id": "o2", "op": "measure", "subject": "red_ball", "quantity": "collision_response",
                          "other": "red_ball"}
    d["operations"][0]["a"] = {"op": "o2", "event": "contact"}
    assert reasons_for(d) == []
    d["subjects"][0]["count"] = None
    assert any("not a group" in x for x in reasons_for(d))


def test_json_schema_is_available_for_llm_response_format():
    schema = Plan.model_json_schema()
    assert "operations" in schema["properties"]
    text = json.dumps(schema)
    for op in ("ground", "count", "measure", "scene", "depth", "read", "hear", "before", "contains", "during", "judge"):
        assert f'"{op}"' in text


@pytest.mark.parametrize("quantity", QUANTITIES)
def test_measure_arguments_follow_the_quantity_registry(quantity):
    """Which arguments a measurement takes is what ``QUANTITY_SPECS`` says, and nothing else decides it."""
    spec = QUANTITY_SPECS[quantity]

    def reasons(**op):
        d = good_plan()
        d["operations"][2] = {"id": "o2", "op": "measure", "subject": "red_ball", "quantity": quantity, **op}
        d["operations"][0]["a"] = {"op": "o3", "event": "contact"}  # o2 need produce no event window
        d["operations"][0]["b"] = {"op": "o3", "event": "rebound"}
        return [r for r in reasons_for(d) if r.startswith("o2 ")]

    direction = {"direction": "left"} if spec.directional else {}
    assert reasons(surface="floor", expect=direction) == ([] if spec.surface else
                                                          [f"o2 (measure {quantity}): 'surface' does not apply to "
                                                           "this quantity"])
    partner = {"surface": "floor"} if spec.needs_partner else {}
    assert bool(reasons(expect=direction)) == spec.needs_partner
    assert bool(reasons(expect={"n": 2, **direction}, **partner)) != spec.counts_events
    assert bool(reasons(expect={"direction": "left"}, **partner)) != spec.directional
    assert bool(reasons(**partner)) == spec.directional  # a direction measurement needs its direction



def test_a_plural_noun_is_a_group_whose_instances_may_collide():
    """ "Dominoes knock each other over": a plural noun in the subject's span names a group without a number, so
    its instances may be each other's partners; the singular "A domino knocks ... over" is no group."""
    for prompt, group in (("Dominoes knock each other over.", True), ("A domino knocks itself over.", False)):
        d = {"prompt": prompt, "subjects": [{"name": "domino", "noun": "domino", "span": [0, 8]}],
             "claims": [{"id": "c1", "text": prompt, "span": [0, len(prompt)]}],
             "obligations": [{"id": "c1.1", "claim": "c1", "check": "o2"}],
             "operations": [{"id": "o1", "op": "ground", "subject": "domino"},
                            {"id": "o2", "op": "measure", "subject": "domino", "quantity": "collision_response",
                             "other": "domino"}]}
        assert (reasons_for(d) == []) == group, (prompt, reasons_for(d))
