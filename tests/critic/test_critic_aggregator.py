"""Temporal predicates with quarter-window slack, the three-valued roll-up, dense pass + fallback."""

import itertools

import numpy as np
import pytest

from critic.aggregator import any_occurrence, before, claim_state, contains, during, p_plausible, rollup, slack_s
from critic.types import TimeWindow

STATES = ("supported", "contradicted", "unknown")


def w(a, b):
    """A window timed on a 1 kHz frame grid: its frame period (1 ms) is below every slack of these tests."""
    return TimeWindow(start_s=a, end_s=b, start_frame=int(a * 1000), end_frame=max(int(a * 1000), int(b * 1000) - 1))


def test_slack_is_never_finer_than_a_frame():
    """At 8 fps a contact is timed to its frame (125 ms): a sound 60 ms before that frame is not early, one two
    frames before it is."""
    def frames(f0, f1, fps=8.0):
        return TimeWindow(start_s=f0 / fps, end_s=(f1 + 1) / fps, start_frame=f0, end_frame=f1)

    contact = frames(4, 4)                                                      # [0.500, 0.625] s
    sound = TimeWindow(start_s=0.44, end_s=0.46, start_frame=3, end_frame=3)   # 60 ms before the contact frame
    assert slack_s(contact, sound) == pytest.approx(0.005)                # a quarter of the 20 ms sound
    assert slack_s(contact, sound, frame_s=1 / 8) == pytest.approx(0.125)  # the clip's frame period
    assert during(sound, contact).state == "contradicted"
    assert during(sound, contact, frame_s=1 / 8).state == "supported"
    early = TimeWindow(start_s=0.24, end_s=0.26, start_frame=1, end_frame=1)   # two frames before
    assert during(early, contact, frame_s=1 / 8).state == "contradicted"


def test_worked_example_drop_then_bounce():
    a, b = w(1.00, 1.05), w(1.20, 1.30)
    assert slack_s(a, b) == pytest.approx(0.0125)
    m = before(a, b)
    assert m.state == "supported"
    assert m.values["slack_s"] == pytest.approx(0.0125)


def test_worked_example_dominoes():
    a, b = w(1.62, 1.67), w(2.33, 7.96)
    assert slack_s(a, b) == pytest.approx(0.0125)
    assert before(a, b).state == "supported"


def test_before_fails_when_order_reversed():
    assert before(w(1.20, 1.30), w(1.00, 1.05)).state == "contradicted"


def test_slack_boundary():
    # A ends exactly at B.start + slack: holds; a hair later the two overlap: no order shows
    a, b = w(0.0, 1.0), w(0.9, 1.3)  # slack = 0.25 * 0.4 = 0.1 -> A.end 1.0 <= 1.0
    assert before(a, b).state == "supported"
    assert before(w(0.0, 1.001), b).state == "unknown"
    # B over before A starts, by more than the slack: the order is reversed
    late = w(1.5, 2.0)  # slack = 0.25 * 0.4 = 0.1 -> B.end 1.3 + 0.1 < 1.5
    assert before(late, b).state == "contradicted"
    assert before(w(1.35, 2.0), b).state == "unknown"  # 1.3 + 0.1 >= 1.35: within the slack


def test_overlapping_events_show_no_order():
    # a contact inside a long fall, two landings in the same frame: neither order is evidenced
    fall, contact = w(0.0, 0.5), w(0.19, 0.23)
    assert before(fall, contact).state == "unknown" and "overlap" in before(fall, contact).reason
    same = w(0.28, 0.35)
    assert before(same, same).state == "unknown"


def test_recurring_events_pair_any_occurrence():
    # a ball falls, bounces, and is airborne again: "falls, then bounces" holds for the first fall
    airborne = [w(0.0, 0.45), w(0.75, 1.5)]
    bounce = [w(0.48, 0.6)]
    assert any_occurrence(before, airborne, bounce).state == "supported"
    assert any_occurrence(before, airborne[1:], bounce).state == "contradicted"
    # several impact sounds: the contact is heard when any onset falls inside it
    onsets = [w(0.34, 0.36), w(0.517, 0.537)]
    assert any_occurrence(contains, [w(0.50, 0.54)], onsets).state == "supported"
    assert any_occurrence(contains, [w(0.50, 0.54)], onsets[:1]).state == "contradicted"
    assert any_occurrence(before, [None], bounce).state == "unknown"
    # an event measured to happen at no time (a sound the clip has nowhere) is with no other event
    never = any_occurrence(contains, [w(0.50, 0.54)], [])
    assert never.state == "contradicted" and never.window == w(0.50, 0.54)
    assert any_occurrence(contains, [None], []).state == "unknown"


def test_before_and_after_never_both_hold():
    rng = np.random.default_rng(0)
    for _ in range(5000):
        s = rng.uniform(0, 5, 2)
        length = rng.uniform(1e-3, 3, 2)
        a, b = w(s[0], s[0] + length[0]), w(s[1], s[1] + length[1])
        assert not (before(a, b).state == "supported" and before(b, a).state == "supported")


def test_missing_window_is_unknown_never_a_guess():
    for fn in (before, contains, during):
        m = fn(None, w(1, 2))
        assert m.state == "unknown" and "no event window" in m.reason
        assert fn(w(1, 2), None).state == "unknown"
        assert fn(None, None).state == "unknown"


def test_contains_and_during():
    contact, sound = w(1.00, 1.0625), w(1.01, 1.03)
    assert contains(contact, sound).state == "supported"
    assert during(sound, contact).state == "supported"
    early = w(0.80, 0.82)  # sound long before the impact
    assert during(early, contact).state == "contradicted"
    # slack allows the sound to start a little before the contact window
    assert during(w(0.995, 1.015), contact).state == "supported"


def test_rollup_truth_table_exhaustive():
    for n in range(0, 4):
        for combo in itertools.product(STATES, repeat=n):
            got = rollup(combo)
            if "contradicted" in combo:
                assert got == "contradicted"
            elif n > 0 and all(s == "supported" for s in combo):
                assert got == "supported"
            else:
                assert got == "unknown", combo


def test_claim_state_dense_then_verify_truth_table():
    for dense in STATES:
        for inst in itertools.product(STATES, repeat=2):
            state, overturned = claim_state(list(inst), [dense], True)
            i = rollup(inst)
            if dense == "supported":
                assert state == ("contradicted" if i == "contradicted" else "supported")
                assert overturned == (i == "contradicted")
            elif dense == "contradicted":
                assert state == "contradicted" and not overturned
            else:
                assert state == i and not overturned
            # without the dense pass it is the plain roll-up
            assert claim_state(list(inst), [dense], False) == (rollup(list(inst) + [dense]), False)
    assert claim_state([], [], True) == ("unknown", False)


def test_p_plausible_orders_verdicts():
    assert p_plausible([], "unknown") == 0.5
    assert p_plausible(["supported"] * 3, "supported") == 1.0
    assert 0.5 <= p_plausible(["supported", "unknown"], "unknown") < 1.0
    assert p_plausible(["supported", "contradicted"], "contradicted") < 0.5


def test_an_unplanned_physical_clause_keeps_the_clip_from_being_supported(tmp_path):
    """'A red ball falls. Gravity is weak here.': the second sentence is no claim the instruments check; the clip
    is unknown (not supported), with the clause named, in verdict.json and report.html."""
    from critic.planners.rules import RulesPlanner
    from critic.run import CriticComponents, critique
    from critic.testing import FakeGrounder, ScriptedSpecialist, fake_video

    supported = ScriptedSpecialist({"default": {"state": "supported"}})
    specs = {"ground": FakeGrounder(), "measure": supported, "scene": supported}
    comp = CriticComponents(planner=RulesPlanner(), specialists=specs)
    alone = critique("fake.mp4", "A red ball falls.", comp, tmp_path / "a", video=fake_video())
    assert alone.verdict == "supported"
    v = critique("fake.mp4", "A red ball falls. Gravity is weak here.", comp, tmp_path / "b",
                 video=fake_video())
    assert all(c.state == "supported" for c in v.claims)
    assert v.verdict == "unknown" and "'Gravity is weak here' (chars 18-38)" in v.reason
    assert [(u.text, u.physical) for u in v.unplanned] == [("Gravity is weak here", True)]
    assert v.p_plausible < alone.p_plausible
    page = (tmp_path / "b" / "report.html").read_text()
    assert '<mark class="unchecked">Gravity is weak here</mark>' in page and "Not checked" in page
    # a contradicted claim still decides the clip
    specs["measure"] = ScriptedSpecialist({"default": {"state": "supported"},
                                           "free_fall": {"state": "contradicted", "window": [2, 4]}})
    comp = CriticComponents(planner=RulesPlanner(), specialists=specs)  # a fresh operation cache
    v = critique("fake.mp4", "A red ball falls. Gravity is weak here.", comp, tmp_path / "c",
                 video=fake_video())
    assert v.verdict == "contradicted"


class _WhenJudge:
    """A semantic verifier that says yes and when: the frames of the first keyword found in the question."""

    name, version = "when", "1"

    def __init__(self, frames_by_word):
        self.frames_by_word = frames_by_word

    def run(self, op, inputs, video):
        from critic.types import Measurement

        f0, f1 = next(f for word, f in self.frames_by_word.items() if word in op.question)
        return Measurement(state="supported", required=op.question, windows={"occurs": video.window(f0, f1)})


@pytest.mark.parametrize("cooking, organizing, verdict", [((0, 3), (5, 9), "supported"),
                                                          ((6, 9), (0, 3), "contradicted"),
                                                          ((4, 9), (0, 3), "unknown")])
def test_two_judged_actions_in_sequence_are_ordered_on_the_judges_windows(tmp_path, cooking, organizing, verdict):
    """'A person is cooking dinner, then they start organizing the pantry': no instrument measures either action;
    the order is checked on the windows the judge gives for each, and without windows it stays unknown. Reversed
    by two frames (more than the slack) it is contradicted; by one frame, within the slack, no order shows."""
    from critic.planners.rules import RulesPlanner
    from critic.run import CriticComponents, critique
    from critic.testing import FakeGrounder, fake_video
    from critic.specialists.judge import NoJudge

    prompt = "A person is cooking dinner, then they suddenly start organizing the pantry."
    judge = _WhenJudge({"cooking": cooking, "organizing": organizing})
    comp = CriticComponents(planner=RulesPlanner(), specialists={"ground": FakeGrounder(), "judge": judge})
    v = critique("fake.mp4", prompt, comp, tmp_path / "a", video=fake_video())
    order = [c for c in v.claims if c.text == "A person is cooking dinner, then they suddenly start organizing the pantry"]
    assert [c.state for c in order] == [verdict] and v.verdict == verdict
    comp = CriticComponents(planner=RulesPlanner(), specialists={"ground": FakeGrounder(), "judge": NoJudge()})
    assert critique("fake.mp4", prompt, comp, tmp_path / "b", video=fake_video()).verdict == "unknown"


def test_a_sound_straddling_the_edge_of_the_contact_is_not_firm_evidence():
    """Both windows are timed to the frame: an onset that overlaps the slack-widened contact but runs past its end
    is neither inside nor apart (unknown); one wholly after it is late (contradicted)."""
    contact = w(0.125, 0.175)  # slack: a quarter of the shorter window, 0.005 s
    assert during(w(0.170, 0.190), contact).state == "unknown"
    assert during(w(0.209, 0.229), contact).state == "contradicted"
