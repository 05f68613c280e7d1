"""Memory M end to end on a tiny annotated corpus with a scripted critic: distil candidates from the training clips'
missed defects, review them on validation clips (one accepted, one pruned for a false alarm), apply the accepted one
(the plan changes by exactly its obligations), and measure on test clips."""

import json
import random

import pytest
from omegaconf import OmegaConf
from scipy.stats import binomtest

from critic.memory import Memory
from critic.planners.rules import RulesPlanner
from critic.run import build_components
from critic.types import MeasureOp
from experiments.benchmark.scoring import ClipReport, ReportClaim, ReportWindow
from experiments.benchmark.types import ClipAnnotation, Defect, FrameWindow, SceneObject, Span
from experiments.memory.lessons import (CATEGORY_OBLIGATIONS, SPLITS, Critique, clip_delta, compare, distil, mcnemar,
                                        plan_diff, review, split_corpus, split_of, subjects_naming)

FPS = 10.0
#: the untaught critic presumes nothing: what it checks, the prompt says
PLANNER = RulesPlanner(implicit=False)


def clip(clip_id, prompt, noun, shape, colour, category=None):
    at = prompt.lower().index(f"{colour} {noun}") - 2
    mention = Span(start=at, end=at + len(f"a {colour} {noun}"), text=prompt[at:at + len(f"a {colour} {noun}")])
    name = f"{colour}_{noun}"
    defects = []
    if category:
        defects.append(Defect(id=f"{clip_id}_0", category=category, severity=3, object=name, violates=mention,
                              edit="scripted", window=FrameWindow(start_frame=9, end_frame=10, start_s=0.9, end_s=1.1)))
    return ClipAnnotation(id=clip_id, video=f"clips/{clip_id}.mp4", prompt=prompt, renderer="analytic", source="test",
                          width=64, height=48, fps=FPS, num_frames=20, seed=0, defects=defects,
                          objects=[SceneObject(name=name, shape=shape, color=colour, mention=mention)])


TRAIN = [clip("train_ball_teleport", "A red ball rolls to the right.", "ball", "sphere", "red", "teleport"),
         clip("train_cube_hover", "A blue cube slides to the left.", "cube", "box", "blue", "hover"),
         clip("train_ball_clean", "A white ball rolls to the left.", "ball", "sphere", "white"),
         clip("train_cube_order", "A grey cube slides to the right.", "cube", "box", "grey", "wrong_order")]
VALIDATION = [clip("val_ball_teleport", "A green ball is thrown to the right.", "ball", "sphere", "green", "teleport"),
              clip("val_cube_clean", "A yellow cube slides to the right.", "cube", "box", "yellow")]
TEST = [clip("test_ball_teleport", "A red ball is thrown to the left.", "ball", "sphere", "red", "teleport"),
        clip("test_ball_clean", "A blue ball rolls to the right.", "ball", "sphere", "blue")]
#: the scripted instruments' one mistake: support on this clean clip reads as violated
NOISY = {("val_cube_clean", "support")}


class ScriptedCritic:
    """Plans with the rules planner; a measurement is contradicted where the clip has a defect of the category that
    quantity checks on the measured subject's object (in the defect's window), or where NOISY says so."""

    def __init__(self):
        self.calls = []

    def __call__(self, clip, lessons):
        self.calls.append((clip.id, tuple(x.id for x in lessons)))
        plan = PLANNER.plan(clip.prompt, list(lessons)).plan
        claims = []
        for c in plan.claims:
            ops = [plan.op(o.check) for o in plan.obligations if o.claim == c.id]
            state, window = "supported", None
            for op in ops:
                if not isinstance(op, MeasureOp):
                    continue
                for d in clip.defects:
                    obj = next(o for o in clip.objects if o.name == d.object)
                    if CATEGORY_OBLIGATIONS.get(d.category, ("",))[0] == op.quantity \
                            and op.subject in subjects_naming(plan, obj, clip):
                        state, window = "contradicted", ReportWindow(start_s=d.window.start_s, end_s=d.window.end_s)
                if (clip.id, op.quantity) in NOISY:
                    state, window = "contradicted", ReportWindow(start_s=0.0, end_s=0.2)
            claims.append(ReportClaim(id=c.id, text=c.text, span=c.span, span_text=clip.prompt[c.span[0]:c.span[1]],
                                      kind=c.kind, subjects=c.subjects, state=state, window=window))
        verdict = "contradicted" if any(c.state == "contradicted" for c in claims) else "supported"
        return Critique(plan, ClipReport(id=clip.id, verdict=verdict, claims=claims))


def test_distil_review_apply_measure(tmp_path):
    critic = ScriptedCritic()

    # distil: each training defect the plan has no obligation for becomes a candidate (wrong_order has no quantity)
    candidates, log = distil(TRAIN, {c.id: critic(c, []) for c in TRAIN})
    assert [c.id for c in candidates] == ["continuity-ball", "support-cube"]
    continuity, support = candidates
    assert (continuity.quantity, continuity.trigger, continuity.status) == ("continuity", r"\bball(?:e?s)?\b",
                                                                             "candidate")
    assert continuity.provenance.clip == "train_ball_teleport" and continuity.provenance.flaw == "train_ball_teleport_0"
    assert "teleport -> continuity" in continuity.provenance.source
    assert support.quantity == "support" and support.provenance.clip == "train_cube_hover"
    skipped = {row["defect"]: row.get("skipped") for row in log}
    assert skipped["train_cube_order_0"] == "no lesson quantity for category wrong_order"

    # review on validation: the ball lesson catches the teleport; the cube lesson only raises a false alarm
    memory, rows = review(candidates, VALIDATION, critic, min_hits=1, max_false_alarms=0)
    accepted, pruned = memory.lessons["continuity-ball"], memory.lessons["support-cube"]
    assert (accepted.status, accepted.hits, accepted.false_alarms) == ("accepted", 1, 0)
    assert (pruned.status, pruned.hits, pruned.false_alarms) == ("pruned", 0, 1)
    assert pruned.reason.startswith("pruned: 0 hit(s) < 1 and 1 false alarm(s) > 0")
    assert {(r["lesson"], r["clip"]) for r in rows} == {("continuity-ball", "val_ball_teleport"),
                                                        ("support-cube", "val_cube_clean")}
    # a looser gate lets the noisy lesson through: the gate, not the data, decided
    loose, _ = review(candidates, VALIDATION, critic, min_hits=0, max_false_alarms=1)
    assert loose.lessons["support-cube"].status == "accepted"

    # the lessons file: sorted keys, lessons in id order, the same bytes when saved again, no timestamps
    path = tmp_path / "lessons.json"
    memory.path = path
    memory.save()
    first = path.read_bytes()
    data = json.loads(first)
    assert [x["id"] for x in data["lessons"]] == ["continuity-ball", "support-cube"]
    assert list(data["lessons"][0]) == sorted(data["lessons"][0])
    reread = Memory(path)
    reread.path = tmp_path / "again.json"
    reread.save()
    assert reread.path.read_bytes() == first
    assert "time" not in first.decode() and "date" not in first.decode()

    # apply: the critic app's memory= option hands the planner the accepted lesson only ...
    cfg = OmegaConf.create({"critic": {"planner": {"_target_": "critic.planners.rules.RulesPlanner",
                                                   "implicit": False},
                                       "aggregator": {"_target_": "critic.aggregator.Aggregator"}},
                            "memory": str(path)})
    comp = build_components(cfg)
    assert [x.id for x in comp.memory.active()] == ["continuity-ball"]
    # ... and the plan changes by exactly its obligations
    for c in TEST:
        untaught = comp.planner.plan(c.prompt).plan
        taught = comp.planner.plan(c.prompt, comp.memory.active()).plan
        diff = plan_diff(untaught, taught)
        assert diff["claims_removed"] == diff["obligations_removed"] == diff["operations_removed"] == []
        (subject,) = [s.name for s in untaught.subjects]
        assert diff["operations_added"] == [f"continuity({subject}, holds=True)"]
        assert len(diff["claims_added"]) == 1 and "a ball moves continuously" in diff["claims_added"][0]
        assert [o.split(" | ")[1:] for o in diff["obligations_added"]] == [[f"continuity({subject}, holds=True)",
                                                                            "lesson continuity-ball"]]
    # a prompt without the trigger word keeps its plan
    cube = "A yellow cube slides to the right."
    assert comp.planner.plan(cube, comp.memory.active()).plan == comp.planner.plan(cube).plan

    # measure on test: the teleport switches from missed to found; the clean clip stays clean
    untaught = {c.id: critic(c, []).report for c in TEST}
    taught = {c.id: critic(c, comp.memory.active()).report for c in TEST}
    m = compare(TEST, untaught, taught)
    assert (m["any"]["found_untaught"], m["any"]["found_taught"], m["any"]["c_gained"], m["any"]["b_lost"]) == \
        (0, 1, 1, 0)
    assert m["any"]["change"] == 1.0 and m["any"]["p_value"] == 1.0
    assert m["by_category"] == {"teleport": {"defects": 1, "found_untaught": 0, "found_taught": 1}}
    assert m["false_alarms"]["untaught"]["false_alarm_clips"] == m["false_alarms"]["taught"]["false_alarm_clips"] == 0


def test_mcnemar_interval_comes_from_the_switches():
    pairs = [(True, True)] * 5 + [(False, False)] * 3 + [(True, False)] * 2 + [(False, True)] * 10
    r = mcnemar(pairs)
    assert (r["n"], r["b_lost"], r["c_gained"]) == (20, 2, 10)
    assert r["change"] == pytest.approx(8 / 20)
    ci = binomtest(10, 12).proportion_ci(0.95, method="exact")
    assert r["change_lo"] == pytest.approx(12 / 20 * (2 * ci.low - 1))
    assert r["change_hi"] == pytest.approx(12 / 20 * (2 * ci.high - 1))
    assert r["change_lo"] < r["change"] < r["change_hi"]
    assert r["p_value"] == pytest.approx(binomtest(10, 12).pvalue) and r["p_value"] < 0.05
    # concordant pairs only: no change, and nothing to test
    same = mcnemar([(True, True), (False, False)])
    assert same["change"] == 0 and same["p_value"] == 1.0


def test_split_is_a_function_of_the_clip_id():
    ids = [f"clip_{k:04d}" for k in range(3000)]
    splits = {i: split_of(i) for i in ids}
    shares = {s: sum(v == s for v in splits.values()) / len(ids) for s in SPLITS}
    assert abs(shares["train"] - 0.6) < 0.04 and abs(shares["validation"] - 0.2) < 0.03
    # the order of the corpus and the other clips in it do not move a clip
    shuffled = list(ids)
    random.Random(0).shuffle(shuffled)
    assert all(split_of(i) == splits[i] for i in shuffled[:500])
    corpus = [clip(f"c{k}", "A red ball rolls.", "ball", "sphere", "red") for k in range(30)]
    by_split = split_corpus(corpus)
    assert sorted(c.id for s in SPLITS for c in by_split[s]) == sorted(c.id for c in corpus)
    assert all(split_of(c.id) == s for s in SPLITS for c in by_split[s])
    assert [c.id for c in by_split["train"]] == [c.id for c in corpus if split_of(c.id) == "train"]
    with pytest.raises(ValueError):
        split_of("x", (1.0, 0.0))


def test_a_lesson_obliges_each_subject_once():
    candidates, _ = distil(TRAIN[:1], {TRAIN[0].id: ScriptedCritic()(TRAIN[0], [])})
    lesson = candidates[0].model_copy(update={"status": "accepted"})
    prompt = "A red ball rolls to the right and hits a blue ball. The balls stop."
    untaught = PLANNER.plan(prompt).plan
    taught = PLANNER.plan(prompt, [lesson]).plan
    added = plan_diff(untaught, taught)["obligations_added"]
    subjects = sorted(s.name for s in untaught.subjects)
    assert len(subjects) == 2
    assert sorted(o.split(" | ")[1] for o in added) == [f"continuity({s}, holds=True)" for s in subjects]


def test_a_lesson_that_makes_a_partial_find_whole_is_a_hit():
    flawed = VALIDATION[0]
    d = flawed.defects[0]

    def claim(cid, start, end):
        return ReportClaim(id=cid, text=cid, span=(2, 14), state="contradicted",
                           window=ReportWindow(start_s=start, end_s=end))

    elsewhere = ClipReport(id=flawed.id, verdict="contradicted", claims=[claim("c1", 0.0, 0.1)])
    in_window = ClipReport(id=flawed.id, verdict="contradicted",
                           claims=[claim("c1", 0.0, 0.1), claim("c2", d.window.start_s, d.window.end_s)])
    assert clip_delta(flawed, elsewhere, in_window)["gained"] == [d.id]
    assert clip_delta(flawed, in_window, elsewhere)["lost"] == [d.id]
    assert clip_delta(flawed, elsewhere, elsewhere) == {"clip": flawed.id, "gained": [], "lost": [],
                                                        "false_alarms": 0}
