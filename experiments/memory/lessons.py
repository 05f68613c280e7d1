"""Lessons for memory M from the benchmark corpus: distil them from the critic's misses on the training split, gate
them on the validation split, measure what the accepted ones change on the test split (pure functions over
annotations, plans and reports; the critique itself is a callable, see :class:`Critic`).

* **Split**: a clip's split is a function of its id alone (:func:`split_of`: the SHA-256 of the id as a number in
  [0, 1) against cumulative fractions), so adding clips to the corpus never moves another clip between splits.
* **Distil** (:func:`distil`): each defect of a training clip that the plan missed - the plan has no obligation of
  the quantity the defect's category needs (:data:`CATEGORY_OBLIGATIONS`, written down once) on a subject naming
  the defect's object, or the critique scored the defect ``missed`` (``experiments.benchmark.scoring``) - becomes a
  candidate lesson: *when the prompt names a <noun>, measure <quantity> on it*. The noun is the class word the plan
  gave the subject ("ball", "cube"), else the object's shape noun. The same (quantity, noun) from several defects is
  one lesson with ``examples`` counting them; the provenance names the first (clip, defect, the rule).
* **Review** (:func:`review`): each candidate alone is taught to the critic on the validation clips; ``hits`` are
  defects found better taught than untaught (missed < partial < whole), ``false_alarms`` are clean clips that become
  contradicted plus contradicted claims on flawed clips that match no defect, beyond those the untaught critic
  raised. The gate (``critic.memory.Memory.review``) accepts ``hits >= min_hits`` and
  ``false_alarms <= max_false_alarms`` and prunes the rest, with the reason.
* **Measure** (:func:`compare`): per test defect, found untaught vs taught; the change in recall with a 95%
  interval from the defects that switch status (exact McNemar: a binomial test on the switches, conditional on
  their number), and false alarms on clean clips before and after.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy.stats import binomtest

from critic.memory import Lesson, Memory, Provenance
from critic.types import QUANTITY_SPECS, Expect, MeasureOp, Plan
from experiments.benchmark.scoring import (SHAPE_NOUNS, ClipReport, ReportClaim, claim_matches_a_defect,
                                           claim_names_object, defect_outcome)
from experiments.benchmark.types import DEFECT_CATEGORIES, ClipAnnotation, Defect, SceneObject

SPLITS: tuple[str, ...] = ("train", "validation", "test")

#: defect category -> the measurement that checks it (quantity, what is expected). Categories left out need
#: something a lesson keyed on a noun cannot say (a direction, an order, a number, a text, a partner, a sound).
CATEGORY_OBLIGATIONS: dict[str, tuple[str, Expect]] = {
    "teleport": ("continuity", Expect()),
    "freeze": ("continuity", Expect()),
    "vanish": ("permanence", Expect()),
    "hover": ("support", Expect()),
    "anti_gravity": ("support", Expect()),
    "unexplained_stop": ("support", Expect()),
    "wrong_acceleration": ("free_fall", Expect()),
    "pass_through_floor": ("penetration", Expect(holds=False)),
    "pass_through_wall": ("penetration", Expect(holds=False)),
    "pass_through_object": ("penetration", Expect(holds=False)),
    "penetration_on_contact": ("penetration", Expect(holds=False)),
    "morph": ("size_constancy", Expect()),
    "no_bounce": ("bounce", Expect()),
    "wrong_bounce_height": ("bounce", Expect()),
}
if not set(CATEGORY_OBLIGATIONS) <= set(DEFECT_CATEGORIES):
    raise ImportError(f"unknown defect categories {sorted(set(CATEGORY_OBLIGATIONS) - set(DEFECT_CATEGORIES))}")

#: what a lesson on a non-implicit quantity says (implicit ones use their ``ImplicitObligation.wording``)
_WORDING = {"bounce": "bounces where it lands", "free_fall": "falls with gravity's constant downward acceleration"}


def split_of(clip_id: str, fractions: Sequence[float] = (0.6, 0.2, 0.2)) -> str:
    """The split of a clip (``train``/``validation``/``test``) from its id alone. ``fractions``: the expected share
    of each split, in :data:`SPLITS` order; they need not sum to exactly one (they are normalised)."""
    if len(fractions) != len(SPLITS) or any(f < 0 for f in fractions) or sum(fractions) <= 0:
        raise ValueError(f"split fractions must be {len(SPLITS)} non-negative numbers, not {list(fractions)}")
    u = int(hashlib.sha256(clip_id.encode("utf-8")).hexdigest()[:15], 16) / 16 ** 15
    total, edge = sum(fractions), 0.0
    for name, f in zip(SPLITS, fractions):
        edge += f / total
        if u < edge:
            return name
    return SPLITS[-1]


def split_corpus(clips: Sequence[ClipAnnotation], fractions: Sequence[float] = (0.6, 0.2, 0.2)
                 ) -> dict[str, list[ClipAnnotation]]:
    """``{split: clips}``, each in corpus (file) order."""
    out: dict[str, list[ClipAnnotation]] = {name: [] for name in SPLITS}
    for clip in clips:
        out[split_of(clip.id, fractions)].append(clip)
    return out


@dataclass(frozen=True)
class Critique:
    """One clip critiqued: the plan (``None`` when rejected) and the scorer's view of the verdict."""

    plan: Plan | None
    report: ClipReport


#: critique one clip with these lessons taught (an empty list: untaught)
Critic = Callable[[ClipAnnotation, Sequence[Lesson]], Critique]


# ---- distil ---------------------------------------------------------------------------------------------------


def subjects_naming(plan: Plan, obj: SceneObject, clip: ClipAnnotation) -> list[str]:
    """The plan's subjects that name ``obj``, by the scorer's rules (a subject is read as a claim about it)."""
    out = []
    for s in plan.subjects:
        span = s.span or (0, 0)
        probe = ReportClaim(id=s.name, text=s.name, span=span, span_text=plan.prompt[span[0]:span[1]],
                            subjects=[s.name], subject_words=[w for w in (s.color, s.size, s.noun) if w],
                            state="contradicted")
        if claim_names_object(probe, obj, clip.objects):
            out.append(s.name)
    return out


def measures(plan: Plan, subjects: Sequence[str], quantity: str, expect: Expect) -> bool:
    """Does an obligation of ``plan`` measure ``quantity`` (with ``expect.holds``) on one of ``subjects``?"""
    checks = {ob.check for ob in plan.obligations}
    return any(isinstance(op, MeasureOp) and op.id in checks and op.quantity == quantity
               and op.subject in subjects and op.expect.holds == expect.holds for op in plan.operations)


def lesson_noun(plan: Plan | None, subjects: Sequence[str], obj: SceneObject) -> str:
    """The class word a lesson is keyed on: the noun the plan gave the subject, else the object's shape noun,
    else the last word of its name."""
    if plan is not None:
        for s in plan.subjects:
            if s.name in subjects and s.noun:
                return s.noun.lower()
    if obj.shape in SHAPE_NOUNS:
        return SHAPE_NOUNS[obj.shape][0]
    return obj.name.split("_")[-1].lower()


def trigger_for(noun: str) -> str:
    """A trigger matching the noun and its plural ("ball", "balls"; "box", "boxes")."""
    return rf"\b{re.escape(noun)}(?:e?s)?\b"


def lesson_for(defect: Defect, noun: str, provenance: Provenance) -> Lesson | None:
    if defect.category not in CATEGORY_OBLIGATIONS:
        return None
    quantity, expect = CATEGORY_OBLIGATIONS[defect.category]
    implicit = QUANTITY_SPECS[quantity].implicit
    wording = implicit.wording if implicit is not None else _WORDING.get(quantity, f"is checked for {quantity}")
    return Lesson(id=f"{quantity}-{noun}"[:64], text=f"a {noun} {wording}", trigger=trigger_for(noun),
                  quantity=quantity, expect=expect, provenance=provenance)


def distil(clips: Sequence[ClipAnnotation], critiques: dict[str, Critique], min_iou: float = 0.5
           ) -> tuple[list[Lesson], list[dict[str, Any]]]:
    """Candidate lessons from the defects the critic missed on ``clips`` (training clips, corpus order), sorted by
    id, and one log row per defect (``lesson``: the candidate it fed, or ``skipped``: why none)."""
    lessons: dict[str, Lesson] = {}
    log: list[dict[str, Any]] = []
    for clip in clips:
        crit = critiques.get(clip.id)
        for d in clip.defects:
            row: dict[str, Any] = {"clip": clip.id, "defect": d.id, "category": d.category, "object": d.object}
            log.append(row)
            outcome, _ = defect_outcome(d, clip, crit.report if crit else None, min_iou)
            row["outcome"] = outcome
            if d.category not in CATEGORY_OBLIGATIONS:
                row["skipped"] = f"no lesson quantity for category {d.category}"
                continue
            quantity, expect = CATEGORY_OBLIGATIONS[d.category]
            obj = next(o for o in clip.objects if o.name == d.object)
            plan = crit.plan if crit else None
            subjects = subjects_naming(plan, obj, clip) if plan is not None else []
            planned = plan is not None and measures(plan, subjects, quantity, expect)
            if planned and outcome != "missed":
                row["skipped"] = f"found ({outcome}) by a plan that measures {quantity}"
                continue
            noun = lesson_noun(plan, subjects, obj)
            rule = (f"{d.category} -> {quantity}: the critique missed it although the plan measures {quantity} on "
                    f"{', '.join(subjects)}" if planned else
                    f"{d.category} -> {quantity}: the plan has no {quantity} obligation on the {noun}")
            lesson = lesson_for(d, noun, Provenance(clip=clip.id, flaw=d.id, source=f"distil: {rule}"))
            if not re.search(lesson.trigger, clip.prompt, flags=re.IGNORECASE):
                row["skipped"] = f"the prompt never says {noun!r}: no trigger to key a lesson on"
                continue
            row["lesson"] = lesson.id
            if lesson.id in lessons:
                lessons[lesson.id] = lessons[lesson.id].model_copy(
                    update={"examples": lessons[lesson.id].examples + 1})
            else:
                lessons[lesson.id] = lesson
    return [lessons[k] for k in sorted(lessons)], log


# ---- review ---------------------------------------------------------------------------------------------------


def found(outcome: str) -> bool:
    return outcome in ("whole", "partial")


#: how well a defect was found, for telling a gain from a loss
OUTCOME_RANK = {"missed": 0, "partial": 1, "whole": 2}


def clip_delta(clip: ClipAnnotation, untaught: ClipReport, taught: ClipReport, min_iou: float = 0.5
               ) -> dict[str, Any]:
    """What teaching changed on one clip: defects found better / worse (missed < partial < whole: on a clip already
    contradicted by another claim every defect is partial, and a lesson that names the object in the defect's window
    makes it whole), and new false alarms (the clean clip became contradicted; contradicted claims matching no
    defect, beyond the untaught ones)."""
    gained, lost = [], []
    for d in clip.defects:
        before = OUTCOME_RANK[defect_outcome(d, clip, untaught, min_iou)[0]]
        after = OUTCOME_RANK[defect_outcome(d, clip, taught, min_iou)[0]]
        if after > before:
            gained.append(d.id)
        elif after < before:
            lost.append(d.id)

    def false_claims(r: ClipReport) -> int:
        return sum(c.state == "contradicted" and not claim_matches_a_defect(c, clip) for c in r.claims)

    if clip.clean:
        false_alarms = int(taught.verdict == "contradicted" and untaught.verdict != "contradicted")
    else:
        false_alarms = max(0, false_claims(taught) - false_claims(untaught))
    return {"clip": clip.id, "gained": gained, "lost": lost, "false_alarms": false_alarms}


def review(candidates: Sequence[Lesson], clips: Sequence[ClipAnnotation], critic: Critic, *, min_hits: int = 1,
           max_false_alarms: int = 0, min_iou: float = 0.5) -> tuple[Memory, list[dict[str, Any]]]:
    """Teach each candidate alone on ``clips`` (validation clips) and gate it; returns the memory (in memory only:
    the caller saves it) with every lesson accepted or pruned, and one row per (lesson, clip it changed)."""
    memory = Memory(None, min_hits=min_hits, max_false_alarms=max_false_alarms)
    untaught = {c.id: critic(c, []).report for c in clips}
    rows: list[dict[str, Any]] = []
    for lesson in sorted(candidates, key=lambda x: x.id):
        kept = memory.propose(lesson)
        hits = false_alarms = 0
        for clip in clips:
            taught = critic(clip, [kept]).report
            delta = clip_delta(clip, untaught[clip.id], taught, min_iou)
            hits += len(delta["gained"])
            false_alarms += delta["false_alarms"]
            if delta["gained"] or delta["lost"] or delta["false_alarms"]:
                rows.append({"lesson": lesson.id, **delta})
        memory.review(lesson.id, hits=hits, false_alarms=false_alarms, where=f"on {len(clips)} validation clips")
    return memory, rows


# ---- measure --------------------------------------------------------------------------------------------------


def compare(clips: Sequence[ClipAnnotation], untaught: dict[str, ClipReport], taught: dict[str, ClipReport],
            min_iou: float = 0.5, level: float = 0.95) -> dict[str, Any]:
    """Flaws found untaught vs taught on ``clips`` (test clips), per outcome kind (``any``: whole or partial;
    ``whole``), with the exact McNemar test and a ``level`` interval on the change in recall; false alarms on clean
    clips and false contradicted claims on flawed clips, before and after."""
    out: dict[str, Any] = {"clips": len(clips), "clean_clips": sum(c.clean for c in clips),
                           "defects": sum(len(c.defects) for c in clips)}
    for kind, ok in (("any", found), ("whole", lambda o: o == "whole")):
        pairs = [(ok(defect_outcome(d, c, untaught.get(c.id), min_iou)[0]),
                  ok(defect_outcome(d, c, taught.get(c.id), min_iou)[0])) for c in clips for d in c.defects]
        out[kind] = mcnemar(pairs, level)
    by_category: dict[str, dict[str, int]] = {}
    for c in clips:
        for d in c.defects:
            row = by_category.setdefault(d.category, {"defects": 0, "found_untaught": 0, "found_taught": 0})
            row["defects"] += 1
            row["found_untaught"] += found(defect_outcome(d, c, untaught.get(c.id), min_iou)[0])
            row["found_taught"] += found(defect_outcome(d, c, taught.get(c.id), min_iou)[0])
    out["by_category"] = dict(sorted(by_category.items()))
    fa = {}
    for name, reports in (("untaught", untaught), ("taught", taught)):
        clean_hits = sum(1 for c in clips if c.clean and reports.get(c.id) is not None
                         and reports[c.id].verdict == "contradicted")
        false_claims = sum(1 for c in clips if not c.clean and reports.get(c.id) is not None
                           for cl in reports[c.id].claims
                           if cl.state == "contradicted" and not claim_matches_a_defect(cl, c))
        fa[name] = {"false_alarm_clips": clean_hits, "false_claims": false_claims}
    out["false_alarms"] = fa
    return out


def mcnemar(pairs: Sequence[tuple[bool, bool]], level: float = 0.95) -> dict[str, Any]:
    """``pairs``: (found untaught, found taught) per defect. ``b``: found only untaught, ``c``: found only taught.
    The change in recall is ``(c - b) / n``; given ``m = b + c`` switches, ``c ~ Binomial(m, p)`` and the change is
    ``(m / n) (2 p - 1)``, so the exact (Clopper-Pearson) interval on ``p`` maps to one on the change; ``p_value``:
    the two-sided exact binomial test of ``p = 1/2`` (no change)."""
    n = len(pairs)
    before = sum(a for a, _ in pairs)
    after = sum(z for _, z in pairs)
    b = sum(a and not z for a, z in pairs)
    c = sum(z and not a for a, z in pairs)
    m = b + c
    res: dict[str, Any] = {"n": n, "found_untaught": before, "found_taught": after, "b_lost": b, "c_gained": c,
                           "recall_untaught": before / n if n else None, "recall_taught": after / n if n else None,
                           "change": (c - b) / n if n else None, "change_lo": None, "change_hi": None,
                           "p_value": None}
    if n and m:
        test = binomtest(c, m, 0.5)
        ci = test.proportion_ci(confidence_level=level, method="exact")
        res.update(change_lo=(m / n) * (2 * ci.low - 1), change_hi=(m / n) * (2 * ci.high - 1),
                   p_value=float(test.pvalue))
    elif n:
        res.update(change_lo=0.0, change_hi=0.0, p_value=1.0)
    return res


def plan_diff(untaught: Plan, taught: Plan) -> dict[str, list[Any]]:
    """What a plan gained and lost: claims (kind, text, subjects), obligations (the claim's text, the check as
    ``quantity(subject, holds)`` or its op name, the obligation's text) and measurements, ids left out (they shift
    when a claim is inserted)."""

    def op_words(plan: Plan, op_id: str) -> str:
        op = plan.op(op_id)
        if isinstance(op, MeasureOp):
            return f"{op.quantity}({op.subject}, holds={op.expect.holds})"
        return op.model_dump_json(exclude={"id"})

    def items(plan: Plan) -> dict[str, list[str]]:
        text = {c.id: c.text for c in plan.claims}
        return {"claims": sorted(f"{c.kind}: {c.text} {c.subjects}" for c in plan.claims),
                "obligations": sorted(f"{text[o.claim]} | {op_words(plan, o.check)} | {o.text}"
                                      for o in plan.obligations),
                "operations": sorted(op_words(plan, o.id) for o in plan.operations)}

    a, z = items(untaught), items(taught)
    out: dict[str, list[Any]] = {}
    for key in a:
        before, after = list(a[key]), list(z[key])
        for x in a[key]:
            if x in after:
                after.remove(x)
                before.remove(x)
        out[f"{key}_added"], out[f"{key}_removed"] = after, before
    return out
