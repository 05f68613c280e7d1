"""What every planner returns, a builder that assigns ids and adds the implicit obligations, and the record of
the prompt's clauses no claim covers (:func:`unplanned_spans`, filled in by :meth:`PlanBuilder.build` for every
planner alike)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from critic.plan import check_plan
from critic.planners.lexicon import PHYSICAL_WORD_RE, STOPWORDS, clauses, lower
from critic.types import (IMPLICIT_QUANTITIES, QUANTITY_SPECS, AnyOp, Claim, Cost, GroundOp, JudgeOp, MeasureOp,
                          Obligation, Plan, SceneOp, SubjectSpec, UnplannedSpan, op_subjects)

_WORD_RE = re.compile(r"[a-z][a-z'\-]*")
#: the claims of the whole scene (``PlanBuilder.add_scene``), by ``SceneOp.quantity``
SCENE_WORDING: dict[str, str] = {
    "permanence": "Nothing in the scene appears from nowhere or vanishes in place",
    "continuity": "Time runs on in the scene: it never freezes or skips ahead while bodies move"}


@dataclass(frozen=True)
class PlanResult:
    """A validated plan (``None`` when rejected), with the reasons a plan was rejected or repaired, the
    number of attempts and the planner's own cost (model calls)."""

    plan: Plan | None
    cost: Cost = Cost()
    attempts: int = 1
    rejected: tuple[str, ...] = ()
    transcript: tuple[dict[str, Any], ...] = ()


class Planner(Protocol):
    name: str

    def plan(self, prompt: str, lessons: list[Any] | None = None) -> PlanResult: ...


def check_implicit(implicit: list[str] | tuple[str, ...] | bool) -> tuple[str, ...]:
    """A planner's ``implicit`` option: quantities presumed for every rigid subject (``QuantitySpec.implicit``).
    ``True`` stands for all of them and ``False`` for none, so the option can be swept as a switch
    (``critic.planner.implicit=true,false``)."""
    if isinstance(implicit, bool):
        return IMPLICIT_QUANTITIES if implicit else ()
    unknown = set(implicit) - set(IMPLICIT_QUANTITIES)
    if unknown:
        raise ValueError(f"unknown implicit obligation(s) {sorted(unknown)}; known: {list(IMPLICIT_QUANTITIES)}")
    return tuple(implicit)


def content_words(text: str) -> list[str]:
    """The words of ``text`` (lower-cased) that carry content: not stopwords, at least two letters."""
    return [w for w in _WORD_RE.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS]


def unplanned_spans(prompt: str, claims: list[Claim], noun_phrases: list[tuple[int, int]] = ()) -> list[UnplannedSpan]:
    """Every stretch of a clause of ``prompt`` that no explicit claim covers and that holds a content word, in
    prompt order. A stretch holding a physical word (``lexicon.PHYSICAL_WORD_RE``) outside the ``noun_phrases``
    that name subjects ("blue paint", "an empty balloon": nouns and adjectives, not processes) is a physical one:
    the plan did not check something physical the prompt says, so the clip cannot be supported as a whole."""
    covered = np.zeros(len(prompt), bool)
    for c in claims:
        if c.kind == "explicit":
            covered[c.span[0]:c.span[1]] = True
    low = lower(prompt)
    out: list[UnplannedSpan] = []
    for clause in clauses(low):
        k = clause.start
        while k < clause.end:
            if covered[k]:
                k += 1
                continue
            j = k
            while j < clause.end and not covered[j]:
                j += 1
            a, b = k, j
            while a < b and not low[a].isalnum():
                a += 1
            while b > a and not low[b - 1].isalnum():
                b -= 1
            if content_words(low[a:b]):
                words = list(dict.fromkeys(m.group(0) for m in PHYSICAL_WORD_RE.finditer(low, a, b)
                                           if not any(x <= m.start() < y for x, y in noun_phrases)))
                out.append(UnplannedSpan(span=(a, b), text=prompt[a:b], physical=bool(words), words=words))
            k = j
    return out


class PlanBuilder:
    """Builds a plan with readable ids (``s``/``c1``/``o1``/``c1.1``); identical operations are shared."""

    def __init__(self, prompt: str):
        self.prompt = prompt
        self.subjects: dict[str, SubjectSpec] = {}
        self.claims: list[Claim] = []
        self.obligations: list[Obligation] = []
        self.ops: list[AnyOp] = []
        self.notes: list[str] = []
        #: spans of the noun phrases that name subjects (their words are names, not events)
        self.noun_phrases: list[tuple[int, int]] = []
        self._op_keys: dict[str, str] = {}

    @classmethod
    def from_plan(cls, plan: Plan) -> "PlanBuilder":
        """Continue building from an existing plan (keeps its ids), e.g. to add implicit obligations."""
        b = cls(plan.prompt)
        b.subjects = {s.name: s for s in plan.subjects}
        b.claims, b.obligations, b.ops, b.notes = list(plan.claims), list(plan.obligations), \
            list(plan.operations), list(plan.notes)
        b._op_keys = {op.model_dump_json(exclude={"id"}): op.id for op in plan.operations}
        b.noun_phrases = [tuple(s.span) for s in plan.subjects if s.span is not None]
        return b

    # subjects ------------------------------------------------------------------------------------
    def add_subject(self, spec: SubjectSpec) -> str:
        base, name, k = spec.name, spec.name, 2
        while name in self.subjects:
            name, k = f"{base}_{k}", k + 1
        self.subjects[name] = spec.model_copy(update={"name": name})
        return name

    def update_subject(self, name: str, **changes: Any) -> None:
        self.subjects[name] = self.subjects[name].model_copy(update=changes)

    def ground(self, subject: str) -> str:
        return self.op(GroundOp, subject=subject)

    # operations ----------------------------------------------------------------------------------
    def op(self, cls: type, **args: Any) -> str:
        """Add an operation (or return the id of an identical one) and ground the subjects it names."""
        probe = cls(id="tmp", **args)
        key = probe.model_dump_json(exclude={"id"})
        if key in self._op_keys:
            return self._op_keys[key]
        if not isinstance(probe, GroundOp):
            for s in op_subjects(probe):
                self.ground(s)
        taken = {o.id for o in self.ops}
        n = len(self.ops) + 1
        while f"o{n}" in taken:
            n += 1
        op_id = f"o{n}"
        self.ops.append(cls(id=op_id, **args))
        self._op_keys[key] = op_id
        return op_id

    def swap_op(self, op_id: str, cls: type, text: str, **args: Any) -> str:
        """Replace the operation ``op_id`` by one of ``cls`` with ``args`` (or an identical one already planned);
        the obligations that checked it check the replacement, described by ``text``. -> the replacement's id."""
        old = next(o for o in self.ops if o.id == op_id)
        self.ops.remove(old)
        self._op_keys.pop(old.model_dump_json(exclude={"id"}), None)
        new_id = self.op(cls, **args)
        self.obligations = [ob.model_copy(update={"check": new_id, "text": text}) if ob.check == op_id else ob
                            for ob in self.obligations]
        return new_id

    # claims --------------------------------------------------------------------------------------
    def claim(self, span: tuple[int, int], *, kind: str = "explicit", subjects: list[str] = (),
              text: str | None = None) -> str:
        a, b = span
        while a < b and not self.prompt[a].isalnum() and self.prompt[a] not in "'\"“‘":
            a += 1
        while b > a and not self.prompt[b - 1].isalnum() and self.prompt[b - 1] not in "'\"”’":
            b -= 1
        taken = {c.id for c in self.claims}
        n = len(self.claims) + 1
        while f"c{n}" in taken:
            n += 1
        cid = f"c{n}"
        self.claims.append(Claim(id=cid, text=text if text is not None else self.prompt[a:b], span=(a, b), kind=kind,
                                 subjects=list(dict.fromkeys(subjects))))
        return cid

    def oblige(self, claim: str, check: str, text: str = "", kind: str = "instrument") -> str:
        n = sum(ob.claim == claim for ob in self.obligations) + 1
        oid = f"{claim}.{n}"
        self.obligations.append(Obligation(id=oid, claim=claim, text=text, check=check, kind=kind))
        return oid

    def add_implicit(self, subject: str, which: list[str] | tuple[str, ...] = IMPLICIT_QUANTITIES) -> None:
        """The obligations a physicist presumes for a rigid subject (``QuantitySpec.implicit`` of each quantity in
        ``which``), tied to the span that introduced it."""
        spec = self.subjects[subject]
        span = spec.span or next((c.span for c in self.claims if subject in c.subjects), None) \
            or self._find_phrase(spec)
        if not spec.rigid or span is None:
            return
        phrase = self.prompt[span[0]:span[1]]
        for quantity in which:
            implicit = QUANTITY_SPECS[quantity].implicit
            stated = [o for o in self.ops if isinstance(o, MeasureOp) and o.subject == subject and o.quantity == quantity]
            if any(implicit.unless_stated or o.expect.holds != implicit.expect.holds for o in stated):
                # the prompt itself says something about it (a ghost ball passes through the wall), or states the
                # opposite of the presumption (a cube floats in mid-air): the prompt's word stands
                continue
            check = self.op(MeasureOp, subject=subject, quantity=quantity, expect=implicit.expect)
            if any(ob.check == check for ob in self.obligations):
                continue
            cid = self.claim(span, kind="implicit", subjects=[subject], text=f"{phrase} {implicit.wording}")
            self.oblige(cid, check, f"{quantity} (implicit)")

    def add_scene(self, which: list[str] | tuple[str, ...] = IMPLICIT_QUANTITIES) -> None:
        """What a physicist presumes of the whole scene when ``permanence`` and ``continuity`` are presumed of its
        bodies (``which``): nothing in view appears from nowhere or vanishes in place, whether the prompt names that
        body or not, and time runs on (no frozen frames, no frames cut out). Added once each, to a plan that grounds
        a rigid subject; their claims have no subject and carry the whole prompt's span (the scene the prompt
        describes)."""
        grounded = {op.subject for op in self.ops if isinstance(op, GroundOp)}
        if not any(s.rigid for n, s in self.subjects.items() if n in grounded):
            return
        for quantity, wording in SCENE_WORDING.items():
            if quantity not in which:
                continue
            check = self.op(SceneOp, quantity=quantity)
            if any(ob.check == check for ob in self.obligations):
                continue
            cid = self.claim((0, len(self.prompt)), kind="implicit", text=wording)
            self.oblige(cid, check, f"scene {quantity} (implicit)")

    def _find_phrase(self, spec: SubjectSpec) -> tuple[int, int] | None:
        """Where the prompt names the subject ("a red ball"), for plans whose subjects carry no span."""
        words = [w for w in (spec.color, spec.noun) if w]
        rx = r"\b(?:(?:an?|the|one|two|three|four|five|\d+)\s+)?(?:\w+\s+){0,2}?" + r"\s+".join(map(re.escape, words))
        m = re.search(rx + r"(?:e?s)?\b", self.prompt, flags=re.IGNORECASE)
        return (m.start(), m.end()) if m else None

    def add_dense(self) -> None:
        """One semantic first-pass sub-check per explicit claim (re-verified by its instruments)."""
        for c in list(self.claims):
            if c.kind == "explicit":
                check = self.op(JudgeOp, claim=c.id, question=f"Does the video show this? {c.text}")
                self.oblige(c.id, check, "dense first pass", kind="dense")

    def build(self, planner: str) -> Plan:
        used = {s for op in self.ops for s in op_subjects(op)} | {s for c in self.claims for s in c.subjects}
        subjects = [s for n, s in self.subjects.items() if n in used]
        plan = Plan(prompt=self.prompt, subjects=subjects, claims=self.claims, obligations=self.obligations,
                    operations=self.ops, unplanned=unplanned_spans(self.prompt, self.claims, self.noun_phrases),
                    planner=planner,
                    notes=self.notes)
        return check_plan(plan)
