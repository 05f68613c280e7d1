"""The offline rules planner: subjects, events, connectives, counts, text, sounds, spans, implicit obligations."""

import copy
import random

import pytest

from critic.plan import validate_plan
from critic.planners.rules import RulesPlanner

IMPLICIT = {"continuity", "permanence", "size_constancy", "support", "penetration"}


def plan_of(prompt, **kw):
    plan = RulesPlanner(**kw).plan(prompt).plan
    assert validate_plan(plan) == []
    return plan


def explicit(plan):
    """claim text -> list of (op, args) of its checks"""
    out = {}
    for c in plan.claims:
        if c.kind != "explicit":
            continue
        assert plan.prompt[c.span[0]:c.span[1]] == c.text
        out[c.text] = [plan.op(o.check).model_dump(exclude={"id"}, exclude_defaults=True) | {"op": plan.op(o.check).op}
                       for o in plan.obligations if o.claim == c.id]
    return out


def test_bounce_then_land_with_spans_and_order():
    p = plan_of("A blue ball bounces off the wall, then lands on the floor.")
    assert [s.name for s in p.subjects] == ["blue_ball"]
    assert p.subjects[0].color == "blue"
    e = explicit(p)
    assert e["A blue ball bounces off the wall"][0] | {} == {"op": "measure", "subject": "blue_ball",
                                                           "quantity": "bounce", "surface": "wall"}
    assert e["lands on the floor"][0]["quantity"] == "contact" and e["lands on the floor"][0]["surface"] == "floor"
    temporal = e["A blue ball bounces off the wall, then lands on the floor"][0]
    assert temporal["op"] == "before" and temporal["a"]["event"] == "contact" and temporal["b"]["event"] == "contact"


def test_implicit_obligations_tied_to_introducing_span():
    p = plan_of("Two small red balls collide.")
    implicit = [c for c in p.claims if c.kind == "implicit" and c.subjects]
    assert {p.op(o.check).quantity for o in p.obligations if o.claim in {c.id for c in implicit}} == IMPLICIT
    assert all(c.span == (0, 19) for c in implicit)  # "Two small red balls"
    # and two claims of the whole scene, with no subject, over the whole prompt, checked by scene operations
    scene = [c for c in p.claims if c.kind == "implicit" and not c.subjects]
    assert [c.span for c in scene] == [(0, len("Two small red balls collide"))] * 2
    checks = [p.op(o.check) for o in p.obligations if o.claim in {c.id for c in scene}]
    assert [(op.op, op.quantity) for op in checks] == [("scene", "permanence"), ("scene", "continuity")]
    # an explicit-only planner presumes nothing of the scene either
    assert not [c for c in RulesPlanner(implicit=()).plan("Two small red balls collide.").plan.claims if not c.subjects]
    pen = next(p.op(o.check) for o in p.obligations if p.op(o.check).op == "measure"
               and p.op(o.check).quantity == "penetration")
    assert pen.expect.holds is False
    s = p.subjects[0]
    assert (s.count, s.size, s.color) == (2, "small", "red")
    e = explicit(p)
    assert e["Two small red balls collide"][0]["other"] == "red_ball"  # its instances with each other
    assert e["Two small red balls"][0] == {"op": "count", "subject": "red_ball", "n": 2}


@pytest.mark.parametrize("prompt,quantity,extra", [
    ("A ball falls.", "free_fall", {}),
    ("Someone drops an apple.", "free_fall", {}),
    ("A ball bounces twice.", "bounce", {"expect": {"n": 2}}),
    ("The cube slides to the right.", "direction", {"expect": {"direction": "right"}}),
    ("A marble rolls left.", "direction", {"expect": {"direction": "left"}}),
    ("A domino topples.", "direction", {"expect": {"direction": "down"}}),
    ("The ball comes to rest.", "rest", {}),
    ("A ball lands on the table.", "contact", {"surface": "floor"}),
    ("The ball hits the wall.", "collision_response", {"surface": "wall"}),
    ("The red ball hits the blue ball.", "collision_response", {"other": "blue_ball"}),
    ("The ball passes through the wall.", "penetration", {"surface": "wall"}),
    ("A ball does not bounce.", "bounce", {"expect": {"holds": False}}),
])
def test_physical_events(prompt, quantity, extra):
    p = plan_of(prompt)
    checks = [c for v in explicit(p).values() for c in v if c["op"] == "measure"]
    assert checks, prompt
    got = checks[0]
    assert got["quantity"] == quantity
    for k, v in extra.items():
        assert got[k] == v, (prompt, got)


def test_ghost_ball_has_no_contradictory_implicit_penetration():
    p = plan_of("The ball passes through the wall.")
    pens = [op for op in p.operations if op.op == "measure" and op.quantity == "penetration"]
    assert len(pens) == 1 and pens[0].expect.holds is True


def test_break_goes_to_judge_and_subject_is_not_rigid():
    p = plan_of("An egg drops and breaks.")
    assert p.subjects[0].rigid is False
    assert not [c for c in p.claims if c.kind == "implicit"]
    assert any(op.op == "judge" for op in p.operations)


def test_temporal_connectives():
    def rel(prompt):
        p = plan_of(prompt)
        return [(op.op, p.op(op.a.op).op if op.a else None) for op in p.operations if op.op in ("before", "during")], p

    r, p = rel("The ball falls, then it comes to rest.")
    assert r[0][0] == "before"
    r, p = rel("The ball falls before it bounces.")
    assert r[0][0] == "before"
    # "X after Y": Y before X
    r, p = rel("The ball comes to rest after it lands.")
    op = next(o for o in p.operations if o.op == "before")
    assert p.op(op.a.op).quantity == "contact" and p.op(op.b.op).quantity == "rest"
    # "After X, Y": X before Y
    r, p = rel("After the cube falls, it hits the wall.")
    op = next(o for o in p.operations if o.op == "before")
    assert p.op(op.a.op).quantity == "free_fall" and p.op(op.b.op).quantity == "collision_response"
    # spinning: a judged process; the judge's window (when it gives one) stands for it
    r, p = rel("The ball spins while it falls.")
    assert r == [("during", "judge")]
    r, p = rel("The cube slides while it falls.")
    assert r and r[0][0] == "during"
    r, p = rel("The ball bounces as soon as it lands.")
    assert r and r[0][0] == "during"
    r, p = rel("A row of dominoes topple one after another.")
    assert r == []
    r, p = rel("A ball bounces twice and rolls.")  # "and" claims no order
    assert r == []


@pytest.mark.parametrize("prompt", ["The ball rolls, then it falls.", "The ball rolls after it lands.",
                                    "After the cube slides down the ramp, it hits the wall."])
def test_order_with_lasting_motion_is_not_checked(prompt):
    """Motion in a direction lasts (a rolling ball keeps rolling while it falls off the table and after it lands):
    its window does not mark when it comes before or after another event, so no order is claimed on it."""
    p = plan_of(prompt)
    assert not [o for o in p.operations if o.op == "before"]
    assert any("not checkable" in n for n in p.notes)


def test_sound_as_it_lands():
    p = plan_of("A red ball falls onto the table with a thud as it lands.")
    e = explicit(p)
    assert e["A red ball falls onto the table"][0]["quantity"] == "free_fall"
    assert "with a thud" not in e  # the claim is the sound, not the preposition before it
    assert e["a thud"][0]["op"] == "hear"
    during = next(op for op in p.operations if op.op == "during")
    assert p.op(during.a.op).op == "hear" and during.a.event == "onset"
    assert p.op(during.b.op).quantity == "contact" and during.b.event == "contact"


def test_a_sound_named_as_a_noun_comes_with_the_event_before_it():
    """"with a clear knock" is a sound heard as the ball hits the floor, not a second collision; the clause after
    it ("while someone tosses it") meets the hit, not the sound. A knock done by a body is still an event."""
    p = plan_of("A red ball hits the floor with a clear knock, while someone tosses the red ball rightward.")
    e = explicit(p)
    assert e["a clear knock"][0]["op"] == "hear"
    durings = [op for op in p.operations if op.op == "during"]
    assert len(durings) == 1 and p.op(durings[0].a.op).op == "hear" and durings[0].b.event == "contact"
    done = plan_of("The red ball knocks the blue box over.")
    assert not [op for op in done.operations if op.op == "hear"]


def test_hearing_a_body_do_something_is_a_sound_claim():
    """"you can hear the grey ball tap the floor as it lands": a sound, heard during the landing (and not during
    the slide of the clause before, which 'while' joins to it)."""
    p = plan_of("A grey ball slides toward the right into the wall, while you can hear the grey ball tap the floor "
                "as it lands.")
    assert [op for op in p.operations if op.op == "hear"]
    durings = [op for op in p.operations if op.op == "during"]
    assert len(durings) == 1 and p.op(durings[0].a.op).op == "hear" and durings[0].b.event == "contact"


@pytest.mark.parametrize("prompt, sound, makers", [
    ("A red ball makes a sharp click as it hits the floor in front of a wall.", "a sharp click", ["red_ball"]),
    ("A red ball hits a blue ball with a loud clack.", "a loud clack", ["red_ball", "blue_ball"]),
    ("A blue ball falls, and you can hear the grey ball tap the floor as it lands.", "hear the grey ball tap",
     ["grey_ball"]),
    ("A purple ball falls, and a knock is heard when an orange ball lands.", "a knock is heard", ["orange_ball"]),
    ("A red ball falls. A loud bang is clearly audible.", "A loud bang is clearly audible", []),
])
def test_a_sound_claim_is_the_claim_of_the_bodies_that_make_it(prompt, sound, makers):
    """The bodies its clause names make the sound ("a red ball makes a sharp click"), else those of the event that
    times it ("a knock is heard when an orange ball lands"); a sound no body is said to make is nobody's. The
    claim names them, as a contradiction packet should."""
    p = plan_of(prompt)
    claim = next(c for c in p.claims if c.text == sound)
    assert claim.subjects == makers, claim


def test_text_claim_keeps_quoted_string_and_span():
    prompt = 'A sign reading "OPEN" hangs on the wall.'
    p = plan_of(prompt)
    reads = [op for op in p.operations if op.op == "read"]
    assert [r.text for r in reads] == ["OPEN"]
    c = next(c for c in p.claims if any(o.check == reads[0].id for o in p.obligations if o.claim == c.id))
    assert c.text == 'A sign reading "OPEN"'


def test_pronouns_and_definite_mentions_bind_existing_subjects():
    p = plan_of("A red ball and a blue ball roll. The red ball falls, then it bounces.")
    assert sorted(s.name for s in p.subjects) == ["blue_ball", "red_ball"]
    bounce = next(op for op in p.operations if op.op == "measure" and op.quantity == "bounce")
    assert bounce.subject == "red_ball"


@pytest.mark.parametrize("prompt, sound", [
    ("A purple ball falls, and a knock is heard when an orange ball lands.", "a knock is heard"),
    ("A knock can be heard as the ball lands.", "A knock can be heard"),
    ("A thud sounds when the ball lands.", "A thud sounds"),
    ("A ball falls. A loud bang is clearly audible.", "A loud bang is clearly audible"),
])
def test_a_sound_with_its_own_verb_of_hearing_is_one_sound_claim(prompt, sound):
    """"a knock is heard when the ball lands": the passive of hearing is the sound's predicate, so its words join
    the sound's claim (heard by the audio instrument), not a process put to the semantic judge, nor left unplanned."""
    p = plan_of(prompt)
    e = explicit(p)
    assert [c["op"] for c in e[sound]] == ["hear"]
    assert not [op for op in p.operations if op.op == "judge"]
    assert p.unplanned == []
    if "when" in prompt or "as the" in prompt:
        durings = [op for op in p.operations if op.op == "during"]
        assert len(durings) == 1 and p.op(durings[0].a.op).op == "hear" and durings[0].b.event == "contact"


@pytest.mark.parametrize("prompt, actor, partner", [
    ("A ball rolls toward a cylinder on a mat and knocks it down.", "ball", "cylinder"),
    ("The black cylinder topples after the green ball hits it.", "green_ball", "black_cylinder"),
    ("The red ball rolls; then the blue ball hits it.", "blue_ball", "red_ball"),
])
def test_a_pronoun_partner_in_any_clause_is_the_body_named_before_it_other_than_the_actor(prompt, actor, partner):
    """"... and knocks it down": "it" is a body named before it, never the verb's own subject, in whichever clause the
    verb stands (its match is read within the clause, so its positions are the clause's, not the prompt's)."""
    p = plan_of(prompt)
    hits = [op for op in p.operations if op.op == "measure" and op.quantity == "collision_response"]
    assert [(op.subject, op.other) for op in hits] == [(actor, partner)]
    assert not [op for op in p.operations if op.op == "judge"]


def test_a_definite_other_word_for_the_same_kind_in_the_same_colour_binds_the_body_named_before():
    """ "A blue ball ... the blue sphere": one body, not two subjects competing for one track; an indefinite "a red
    sphere" beside "a red ball" is a second body, and so is "the blue sphere" after a red ball."""
    p = plan_of("A blue ball is thrown to the right. Then the blue sphere rebounds from the wall.")
    assert [s.name for s in p.subjects] == ["blue_ball"]
    assert {op.subject for op in p.operations if op.op == "measure"} == {"blue_ball"}
    p = plan_of("One grey cube falls; a knock is heard when the grey block lands.")
    assert [s.name for s in p.subjects] == ["grey_cube"]
    assert sorted(s.name for s in plan_of("A red ball and a red sphere fall.").subjects) == ["red_ball", "red_sphere"]
    assert sorted(s.name for s in plan_of("A red ball falls; the blue sphere rolls.").subjects) == \
        ["blue_sphere", "red_ball"]


def test_no_physical_claim_and_unknown_nouns():
    p = plan_of("A beautiful sunset over the ocean.")
    assert p.claims == [] and "no physical claim" in p.notes[0]
    p = plan_of("A zorblax falls.")
    assert p.subjects[0].noun == "zorblax"


def test_deterministic_and_options():
    prompt = "Three balls bounce, then roll to the left with a clack."
    a = RulesPlanner().plan(prompt).plan
    b = RulesPlanner().plan(prompt).plan
    assert a.model_dump_json() == b.model_dump_json()
    none = plan_of(prompt, implicit=[])
    assert not [c for c in none.claims if c.kind == "implicit"]
    dense = plan_of(prompt, dense=True)
    assert {o.kind for o in dense.obligations} == {"instrument", "dense"}
    with pytest.raises(ValueError):
        RulesPlanner(implicit=["gravity"])


def test_random_word_salad_never_yields_an_invalid_plan():
    words = ("a the two three red blue small ball balls cube dominoes it they falls bounces twice rolls left slides "
             "collides with hits wall floor lands on comes to rest passes through breaks then before after while "
             "when as soon and , . thud 'OPEN' sign reading does not zorblax drops someone topples onto table "
             "click over down ramp right toward camera").split()
    rng = random.Random(1)
    planner = RulesPlanner()
    for _ in range(400):
        prompt = " ".join(rng.choice(words) for _ in range(rng.randint(1, 25)))
        r = planner.plan(prompt)
        assert r.plan is not None, (prompt, r.rejected)


def test_depth_relations():
    p = plan_of("The red ball is in front of the blue cube.")
    op = next(o for o in p.operations if o.op == "depth")
    assert (op.a, op.relation, op.b) == ("red_ball", "nearer", "blue_cube")
    p = plan_of("A car moves away from the camera.")
    op = next(o for o in p.operations if o.op == "depth")
    assert (op.a, op.relation, op.b) == ("car", "receding", None)
    p = plan_of("A ball in front of a wall falls.")  # scenery is nothing to compare depth with
    assert not [o for o in p.operations if o.op == "depth"]


def test_planning_is_a_pure_function_of_the_prompt():
    """One planner instance reused over a batch plans each prompt as a fresh instance would: planning A, B, A
    gives A's plan byte for byte, and no attribute of the planner changes (nor is added) while it plans."""
    a = "A red ball and a blue ball collide. It comes to rest with a thud, then the blue ball rolls to the left."
    b = "Two cubes fall; the first one lands before the other. They rest on the table."
    fresh = RulesPlanner().plan(a).plan.model_dump_json()
    planner = RulesPlanner()
    before = copy.deepcopy(vars(planner))
    plans = [planner.plan(prompt).plan.model_dump_json() for prompt in (a, b, a)]
    assert plans[0] == plans[2] == fresh
    assert plans[1] == RulesPlanner().plan(b).plan.model_dump_json()
    assert vars(planner) == before



# ---- classes of language (issue: planner language) ------------------------------------------------------------


def checks_of(plan, text):
    """(op name, args) of the checks of the explicit claim whose text is ``text``."""
    claim = next(c for c in plan.claims if c.kind == "explicit" and c.text == text)
    return [plan.op(o.check) for o in plan.obligations if o.claim == claim.id]


def directions(plan):
    return [op.expect.direction for op in plan.operations if op.op == "measure" and op.quantity == "direction"
            and any(ob.check == op.id for ob in plan.obligations
                    if plan.claim(ob.claim).kind == "explicit")]


@pytest.mark.parametrize("prompt,direction", [
    ("A ball rolls from the left toward a pink mat.", "right"),  # "from X" alone: away from X
    ("A cube slides from right to left.", "left"),  # "from X to Y" takes Y
    ("The puck glides from the left side of the table to the right.", "right"),
    ("A car drives to the left.", "left"),
    ("A marble rolls up the screen.", "up"),
    ("A ball rolls rightward across the floor.", "right"),
    ("A ball rolls away from the camera.", "away"),
    ("A wooden board slides down the ramp.", "down"),
    ("A ball rolls across the floor.", "horizontal"),
])
def test_direction_phrases_after_motion_verbs(prompt, direction):
    assert directions(plan_of(prompt)) == [direction]


@pytest.mark.parametrize("prompt", ["A cube falls and lands to the right of a bowl.",
                                    "A dog runs to the left of the chair."])
def test_a_place_beside_something_is_not_a_direction(prompt):
    assert "left" not in directions(plan_of(prompt)) and "right" not in directions(plan_of(prompt))


@pytest.mark.parametrize("verb", ["thrown", "tossed", "launched"])
def test_a_throw_with_a_direction_checks_the_fall_and_the_direction(verb):
    p = plan_of(f"A ball is {verb} to the right.")
    checks = checks_of(p, f"A ball is {verb} to the right")
    assert {(op.quantity, op.expect.direction) for op in checks} == {("free_fall", None), ("direction", "right")}


@pytest.mark.parametrize("prompt,noun", [("Ducks swim on a pond.", "duck"), ("A girl skates across the rink.", "girl"),
                                         ("A horse gallops through the field.", "horse"),
                                         ("A wooden board slides across the ice.", "board"),
                                         ("A zorblax skids on the road.", "zorblax")])
def test_locomotion_and_sliding_verbs_give_a_motion_claim(prompt, noun):
    p = plan_of(prompt)
    moves = [op for op in p.operations if op.op == "measure" and op.quantity == "direction"]
    assert moves and p.subject(moves[0].subject).noun == noun
    if noun in ("duck", "girl", "horse"):  # bodies that move by themselves carry no rigid-body obligations
        assert not [c for c in p.claims if c.kind == "implicit"]


def test_a_bird_flies_by_itself_but_a_ball_flies_on_a_ballistic_arc():
    bird = plan_of("A bird flies to the left.")
    assert {op.quantity for op in bird.operations if op.op == "measure"} == {"direction"}
    ball = plan_of("A ball flies through the air.")
    assert "free_fall" in {op.quantity for op in ball.operations if op.op == "measure"}


def test_colour_and_number_bind_the_counted_subject():
    p = plan_of("Three green dominoes fall over next to a red ball.")
    count = next(op for op in p.operations if op.op == "count")
    assert (count.subject, count.n, count.at_least) == ("green_domino", 3, False)
    assert p.subject("green_domino").color == "green"


@pytest.mark.parametrize("prompt, moving", [
    ("Three balls fall to the floor.", True),
    ("Two cubes roll to the left while a ball bounces.", True),
    ("Two balls lie on the floor.", False),  # nothing said to move: a still ball is background to motion
    ("We see two balls falling, and one yellow ball drops to the ground.", False),  # it may be one of the two
    ("Three spheres fall and a red ball bounces.", False),  # a ball is a sphere's kind
])
def test_a_count_is_of_moving_bodies_when_they_all_move_and_no_other_subject_is_of_their_kind(prompt, moving):
    count = next(op for op in plan_of(prompt).operations if op.op == "count")
    assert count.moving is moving, (prompt, count)


@pytest.mark.parametrize("prompt, kin", [
    ("One grey ball drops to the ground, and three balls fall to the floor. A purple sphere falls onto the floor. "
     "The yellow ball hits the ground and rebounds. A red ball rests on the floor. A blue cube falls.",
     ("grey_ball", "purple_sphere", "yellow_ball")),  # the resting ball and the cube are not among them
    ("Two balls roll to the left, and a red ball rolls to the left too; a green ball falls.", ("red_ball",)),
    ("Three balls fall to the floor.", ()),
    ("Three green balls fall, and a red ball falls too.", ()),  # a coloured plural takes its colour's bodies
])
def test_a_counted_kind_counts_the_bodies_named_on_their_own_that_move_as_it_does(prompt, kin):
    """"Three balls fall ... a grey ball drops": the number said of the kind counts every ball that falls, the
    ones the prompt names one by one too; a ball said to rest, or to do another thing, is not among them."""
    plan = plan_of(prompt)
    count = next(op for op in plan.operations if op.op == "count")
    assert count.kin == kin, (prompt, count)
    assert validate_plan(plan) == []
    bad = plan.model_copy(update={"operations": [op.model_copy(update={"kin": (op.subject,)}) if op is count else op
                                                 for op in plan.operations]})
    assert any("'kin' names the counted subject" in r for r in validate_plan(bad))


@pytest.mark.parametrize("prompt", ["Dominoes fall over one by one.", "Several balls roll across the floor.",
                                    "A row of dominoes topples."])
def test_a_plural_without_a_number_is_two_or_more(prompt):
    count = next(op for op in plan_of(prompt).operations if op.op == "count")
    assert (count.n, count.at_least) == (2, True)


def test_negation_scopes():
    p = plan_of("A ball rolls without bouncing.")
    assert {op.quantity: op.expect.holds for op in p.operations if op.op == "measure" and op.quantity in
            ("direction", "bounce")} == {"direction": True, "bounce": False}
    p = plan_of("The ball does not bounce or roll.")
    assert {op.quantity: op.expect.holds for op in p.operations if op.op == "measure" and op.quantity in
            ("direction", "bounce")} == {"direction": False, "bounce": False}
    p = plan_of("The ball does not bounce, but it rolls.")
    assert {op.quantity: op.expect.holds for op in p.operations if op.op == "measure" and op.quantity in
            ("direction", "bounce")} == {"direction": True, "bounce": False}


def test_a_fall_after_a_wall_hit_is_ordered_by_its_landing():
    """'hits the wall, and then falls to the floor': the fall after the hit is not the first airborne run (which
    ends at the wall): the order is checked on a window that marks the landing."""
    p = plan_of("A blue ball hits the wall, and then falls to the floor.")
    before = next(op for op in p.operations if op.op == "before")
    assert (p.op(before.a.op).quantity, before.a.event) == ("collision_response", "contact")
    assert before.b.event != "airborne"
    assert p.op(before.b.op).quantity in ("contact", "free_fall")


def test_rest_after_motion_is_ordered_by_where_rest_begins():
    p = plan_of("A ball rolls across the floor, then comes to rest.")
    before = next(op for op in p.operations if op.op == "before")
    assert (before.a.event, p.op(before.b.op).quantity) == ("motion", "rest")


def test_order_windows_follow_the_registry(monkeypatch):
    """Where the quantity registry offers a window that marks the event (a landing, the onset of rest), the
    planner orders on it."""
    import dataclasses as dc

    from critic.types import QUANTITY_SPECS

    monkeypatch.setitem(QUANTITY_SPECS, "free_fall", dc.replace(QUANTITY_SPECS["free_fall"],
                                                                 events=("airborne", "landing")))
    monkeypatch.setitem(QUANTITY_SPECS, "rest", dc.replace(QUANTITY_SPECS["rest"], events=("rest", "rest_onset")))
    p = plan_of("A blue ball hits the wall, and then falls to the floor.")
    before = next(op for op in p.operations if op.op == "before")
    assert (p.op(before.b.op).quantity, before.b.event) == ("free_fall", "landing")
    p = plan_of("A ball comes to rest, then a red ball falls.")
    before = next(op for op in p.operations if op.op == "before")
    assert before.a.event == "rest_onset"


def test_which_ball_lands_first_is_checkable():
    p = plan_of("Two balls are dropped. The red ball lands before the blue one.")
    before = next(op for op in p.operations if op.op == "before")
    a, b = p.op(before.a.op), p.op(before.b.op)
    assert (a.subject, a.quantity, b.subject, b.quantity) == ("red_ball", "contact", "blue_ball", "contact")
    assert before.a.event == before.b.event == "contact"


@pytest.mark.parametrize("prompt, first", [
    ("Two balls are dropped, and the red ball hits the ground ahead of the blue ball.", "red_ball"),
    ("Two balls are dropped. The red ball touches down earlier than the blue ball.", "red_ball"),
    ("Two balls are dropped. The red ball lands later than the blue ball.", "blue_ball"),
    ("Two balls are dropped. First the red ball lands, and only after that the blue ball.", "red_ball"),
])
def test_which_of_two_bodies_lands_first_in_other_words(prompt, first):
    """Comparatives and sequencers of two landings ("ahead of", "earlier than", "later than", "only after that")
    with the second body's verb left out are an order of the two landings, the earlier one named as such."""
    p = plan_of(prompt)
    before = next(op for op in p.operations if op.op == "before")
    a, b = p.op(before.a.op), p.op(before.b.op)
    assert {a.subject, b.subject} == {"red_ball", "blue_ball"} and a.subject == first
    assert a.quantity in ("contact", "collision_response") and b.quantity == a.quantity


def test_processes_no_instrument_measures_go_to_the_judge():
    p = plan_of("The ice cube melts on the table.")
    assert [op.op for op in checks_of(p, "The ice cube melts on the table")] == ["judge"]
    p = plan_of("A glass vase shatters.")
    assert p.subjects[0].rigid is False and not [c for c in p.claims if c.kind == "implicit"]


@pytest.mark.parametrize("prompt", ["A newborn lies on its side and moves its hands.",
                                    "Two toddlers run across the room.", "An infant lies on a blanket and kicks."])
def test_a_newborn_infant_or_toddler_moves_by_itself(prompt):
    """A person of any age is no rigid body: no rigid-body obligations, and lying on a blanket is a posture (no
    stillness over the clip, no at-rest prior)."""
    p = plan_of(prompt)
    person = p.subjects[0]
    assert person.rigid is False and not person.at_rest, person
    assert not [c for c in p.claims if c.kind == "implicit" and person.name in c.subjects]
    assert not [op for op in p.operations if op.op == "measure" and op.quantity == "still"]


def test_participles_and_compounds_bind_the_right_noun():
    p = plan_of("A grey ball rolls out of a black pipe sitting on the table.")
    assert not [op for op in p.operations if op.op == "measure" and op.quantity == "support"
                and any(ob.check == op.id for ob in p.obligations if p.claim(ob.claim).kind == "explicit")]
    p = plan_of("A rubber dog ball bounces on the floor.")
    assert [s.noun for s in p.subjects] == ["ball"]
    p = plan_of("A piece of paper was thrown into a pile of leaves.")
    fall = next(op for op in p.operations if op.op == "measure" and op.quantity == "free_fall")
    assert fall.subject == "paper"


def test_every_clause_no_claim_covers_is_recorded():
    p = plan_of("A red ball falls. A blue cube floats in the air forever.")
    hover = checks_of(p, "A blue cube floats in the air forever")
    assert [(op.subject, op.quantity, op.expect.holds) for op in hover] == [("blue_cube", "support", False)]
    # the prompt states the opposite of the presumption: no implicit "falls when unsupported" for the cube
    assert not [op for op in p.operations if op.op == "measure" and op.quantity == "support"
                and op.subject == "blue_cube" and op.expect.holds]
    p = plan_of("A red ball falls. Gravity is weak here. Static shot.")
    assert [(u.text, u.physical) for u in p.unplanned] == [("Gravity is weak here", True), ("Static shot", False)]
    # a stillness said of no named body ("everything else") is no claim on the last body named: the judge's
    p = plan_of("A red ball falls. Everything else is motionless.")
    judged = checks_of(p, "Everything else is motionless")
    assert [op.op for op in judged] == ["judge"] and p.claim(next(
        ob.claim for ob in p.obligations if ob.check == judged[0].id)).subjects == []


def test_spans_stay_prompt_offsets_whatever_the_characters():
    """Lower-casing keeps offsets ("İ" lower-cases to two characters) and typographic apostrophes read as plain."""
    prompt = "İstanbul’s red ball falls. The pillow’s jumps make the mug’s bounce."
    p = plan_of(prompt)
    assert all(prompt[c.span[0]:c.span[1]] == c.text for c in p.claims if c.kind == "explicit")
    assert not [op for op in p.operations if op.op == "measure" and op.quantity == "direction"]  # "jumps": a noun


def test_a_verb_form_after_a_preposition_or_article_is_a_noun():
    p = plan_of("A bicycle is moving across land. A canoeist pulls a paddle.")
    assert not [op for op in p.operations if op.op == "measure" and op.quantity == "contact"]


def test_a_toy_animal_is_an_object_and_sitting_still_is_stillness():
    p = plan_of("A toy dog stands on the table while a bowl sits still nearby.")
    dog = next(s for s in p.subjects if s.noun == "dog")
    assert dog.rigid  # an object: it carries the rigid-body obligations
    assert {(p.op(ob.check).subject, p.op(ob.check).quantity) for ob in p.obligations
            if p.claim(ob.claim).kind == "explicit" and p.op(ob.check).op == "measure"} == {(dog.name, "support"),
                                                                                          ("bowl", "still")}


@pytest.mark.parametrize("prompt, quantity", [
    ("A red ball sits still on the floor.", "still"),
    ("A blue cube lies motionless on the floor.", "still"),
    ("A white cube stays where it is on the floor.", "still"),
    ("A green block stands on the floor without moving.", "still"),
    ("The yellow box does not move.", "still"),
    ("A red ball rolls to the right, then stays still.", "rest"),  # the rest that ends its motion
    ("A red ball rolls and comes to rest.", "rest"),
    ("A purple ball rests on the ground.", "still"),  # resting on a surface is a state
    ("A bottle lies on its side on the table.", "still"),
    ("A red ball rolls and comes to rest on the floor.", "rest"),
    ("A dark green block falls and then rests on the mat.", "rest"),  # the rest that ends its fall
    ("A cat lies on the rug.", "judge"),  # a body that moves by itself lying down: a posture, not stillness
    ("A red ball stays still, then rolls away.", "judge"),  # until when: no instrument window says
    ("The red ball is still rolling across the floor.", None),  # "still" = yet
])
def test_stillness_over_the_clip_is_not_coming_to_rest(prompt, quantity):
    """"Sits still" asserts a state over the clip (``still``); of a body the prompt also moves it is the rest
    after the motion, or, before it, the judge's question."""
    p = plan_of(prompt)
    found = {op.quantity if op.op == "measure" else op.op for ob in p.obligations
             if p.claim(ob.claim).kind == "explicit" for op in [p.op(ob.check)]} & {"still", "rest", "judge"}
    assert found == ({quantity} if quantity else set()), found
    # only a body held still over the whole clip is declared at rest (grounding's prior: it is no mover)
    assert [s.at_rest for s in p.subjects] == [quantity == "still"], p.subjects


@pytest.mark.parametrize("prompt, noun, n", [
    ("Three security guards wearing black uniforms look through binoculars.", "guard", 3),
    ("Digital animation of three walking manikins", "manikin", 3),
    ("five black and white photos on a dark grey wall", "photo", 5),
    ("photos of nine different breeds of dogs", "dog", 9),
    ("The view of the nine leftmost moai at the coast", "moai", 9),
    ("seven groomsmen at the ceremony", "groomsman", 7),
    ("Pineapple cocktail napkins, white, set of four", "napkin", 4),
    ("Both knees are bent.", "knee", 2),
])
def test_a_number_before_any_noun_is_a_count_of_that_noun(prompt, noun, n):
    p = plan_of(prompt)
    counts = {(p.subject(op.subject).noun, op.n) for op in p.operations if op.op == "count"}
    assert (noun, n) in counts
    # a subject grounded only to be counted gets no rigid-body obligations
    assert not [c for c in p.claims if c.kind == "implicit" and p.subject(c.subjects[0]).noun == noun]


@pytest.mark.parametrize("prompt", ["A ball rolls for 2 seconds.", "It turns 90 degrees.", "A ball bounces two times.",
                                    "The time is 12:42 now."])
def test_numbers_of_measure_are_no_counts(prompt):
    assert not [op for op in plan_of(prompt).operations if op.op == "count"]


@pytest.mark.parametrize("prompt, text", [
    ("A vintage stamp showing the Golden Gate Bridge and the text 'California'.", "California"),
    ("plant in a fancy pot with a 'do not touch' sign on it", "do not touch"),
    ("the dog's bowl and a 'don't touch' sign", "don't touch"),
    ("a large clock hangs from a building and reads 12:43", "12:43"),
    ("Grape vines in the shape of text  open your mind  sprouting from a head.", "open your mind"),
    ("A panda giving a talk, with text \u2018Diffusion Models , in the style of van Gogh", "Diffusion Models"),
    ("Panoramic shot from the new show: MAY THE LORD OPEN.", "MAY THE LORD OPEN"),
    ("vintage japanese poster with word AXX", "AXX"),
])
def test_on_screen_text_in_its_written_forms_is_read(prompt, text):
    reads = [op.text for op in plan_of(prompt).operations if op.op == "read"]
    assert reads == [text]


@pytest.mark.parametrize("prompt", ['"A red ball falls onto the floor."', "The players' balls roll to the left.",
                                    "A DSLR photo of a red ball falling."])
def test_quotes_around_the_prompt_apostrophes_and_acronyms_are_not_text(prompt):
    assert not [op for op in plan_of(prompt).operations if op.op == "read"]


@pytest.mark.parametrize("prompt", ["A person is reading a book, then they suddenly start folding laundry.",
                                    "A cat is watching birds through the window, then it starts grooming itself.",
                                    "A horse is trotting in the field, then it suddenly starts drinking from a stream."])
def test_actions_in_sequence_are_judged_and_ordered(prompt):
    p = plan_of(prompt)
    judged = [op.id for op in p.operations if op.op == "judge"]
    before = [op for op in p.operations if op.op == "before"]
    assert len(judged) == 2 and len(before) == 1
    assert (before[0].a.op, before[0].a.event, before[0].b.op, before[0].b.event) == (judged[0], "occurs", judged[1],
                                                                                     "occurs")


def test_an_action_out_of_sequence_gets_no_judged_claim():
    assert not [op for op in plan_of("A person is reading a book on the couch.").operations if op.op == "judge"]


@pytest.mark.parametrize("prompt, clause", [
    ("A grey sphere drops to the ground. One yellow block is there too.", "One yellow block is there too"),
    ("An orange cylinder lands; a white ball can be seen in the scene.", "a white ball can be seen in the scene"),
    ("The pink cylinder drops to the ground, while there is also a red ball.", "there is also a red ball"),
])
def test_a_coloured_body_the_prompt_only_mentions_is_claimed_to_be_there(prompt, clause):
    """"X is there too" names a body and says nothing else of it: the clause is the claim that it is in the clip
    (permanence, which a named colour nowhere in the clip contradicts), and the body gets its implicit checks."""
    p = plan_of(prompt)
    checks = explicit(p)[clause]
    assert [(c["op"], c["quantity"]) for c in checks] == [("measure", "permanence")]
    subject = checks[0]["subject"]
    assert {c.text.split(" ", 1)[0] for c in p.claims if c.kind == "implicit" and subject in c.subjects}
    assert not p.unplanned


@pytest.mark.parametrize("prompt", ["There is no red ball, and a blue ball falls.", "Three red balls sit there."])
def test_a_denied_or_counted_body_gets_no_presence_claim(prompt):
    p = plan_of(prompt)
    assert not any("permanence" in [x.get("quantity") for x in checks] for checks in explicit(p).values())


def test_one_body_landing_while_it_flies_is_not_a_simultaneity():
    """"It lands, while the ball flies through the air": the landing ends that body's flight (phases of one motion);
    two bodies joined by "while" are still checked for happening together."""
    one = plan_of("The blue ball lands on the floor, while the blue ball flies through the air.")
    assert not [o for o in one.operations if o.op == "during"]
    two = plan_of("A red ball lands on the floor while a blue ball flies through the air.")
    assert [o.op for o in two.operations if o.op == "during"] == ["during"]


@pytest.mark.parametrize("prompt, mover, partner", [
    ("One pink ball knocks into one small teal ball.", "pink_ball", "teal_ball"),
    ("A red ball collides with one white sphere.", "red_ball", "white_sphere"),
    ("A red sphere rolls into a grey sphere.", "red_sphere", "grey_sphere"),
])
def test_a_partner_named_after_one_or_rolled_into_is_measured(prompt, mover, partner):
    """The partner of a hit may be named with "one" as well as an article, and rolling into a named body is hitting
    it: both are a collision measured between the two tracks, not a question for the judge. Rolling into view or
    into a place is a roll."""
    e = explicit(plan_of(prompt))
    ops = next(iter(e.values()))
    assert ops[0] | {} == {"op": "measure", "subject": mover, "quantity": "collision_response", "other": partner}, ops
    ops = explicit(plan_of("A red ball rolls into view."))["A red ball rolls into view"]
    assert [o["quantity"] for o in ops] == ["direction"], ops


@pytest.mark.parametrize(("prompt", "check"), [
    ("One blue ball slides to the left into the wall.",
     {"subject": "blue_ball", "quantity": "collision_response", "surface": "wall"}),
    ("A green ball rolls slowly against the red cube.",
     {"subject": "green_ball", "quantity": "collision_response", "other": "red_cube"}),
    ("A green ball rolls from left to right into a blue ball.",
     {"subject": "green_ball", "quantity": "collision_response", "other": "blue_ball"}),
    ("A black ball moves rightward across the floor to the wall.",
     {"subject": "black_ball", "quantity": "contact", "surface": "wall"}),
    ("A red ball rolls into view.", None), ("A cube slides across the table to the edge.", None),
    ("A ball rolls to the left.", None), ("A marble rolls slowly into the cup.", None),
    ("A puck slides to a stop.", None)])
def test_the_goal_a_body_moves_into_or_to_is_a_collision_or_contact_of_its_claim(prompt, check):
    """A motion's goal after its direction and path words is part of its claim: sliding "to the left into the wall"
    is colliding with the wall (and moving left), rolling into or against a named body is colliding with it, moving
    "across the floor to the wall" is reaching the wall. Into view, to the edge, to the left, into a cup or to a
    stop is no collision and no wall contact: the claim keeps its motion check alone."""
    (claim, checks), = explicit(plan_of(prompt)).items()
    touching = [c for c in checks if c.get("quantity") in ("collision_response", "contact")]
    assert any(c.get("quantity") == "direction" for c in checks), (claim, checks)
    if check is None:
        assert touching == [], (claim, checks)
    else:
        assert [{k: c.get(k) for k in check} for c in touching] == [check], (claim, checks)
