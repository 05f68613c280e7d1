"""The ungated baseline: every measurement on every object the prompt names, with no plan of what the prompt says.

A gated critic checks what the prompt claims (explicit claims) and what physics presumes (implicit obligations).
This baseline skips that reading: it takes the subjects the rules planner finds (the objects there are to track)
and, for each one, runs every ``measure`` quantity that needs neither a partner object nor a stated direction
(``QUANTITY_SPECS``: free fall, bounce, rest, continuity, permanence, size constancy, support, penetration), each
with its presumed expectation (``QuantitySpec.implicit``) or the plain one (``Expect()``: the event happens).

Every claim names its object and quantity (``"a red ball: bounce"``) and carries the span of the phrase that
introduced the object, so a contradiction can be scored against the right object. Cost: one ``ground`` per object
plus one ``measure`` per object and quantity, all tool calls, no model calls; the executor counts them as it
counts the gated critic's.
"""

from __future__ import annotations

from typing import Any

from critic.plan import PlanError
from critic.planners.base import PlanBuilder, PlanResult
from critic.planners.rules import RulesPlanner
from critic.types import QUANTITY_SPECS, Expect, MeasureOp, SubjectSpec

#: the quantities that apply to an object on its own (no partner object, no direction to state)
UNGATED_QUANTITIES: tuple[str, ...] = tuple(q for q, spec in QUANTITY_SPECS.items()
                                            if not spec.needs_partner and not spec.directional)


class UngatedPlanner:
    """Every single-object measurement on every named object. ``quantities`` narrows the list (default: all of
    :data:`UNGATED_QUANTITIES`); ``max_prompt_chars`` is the rules planner's, which finds the objects."""

    name = "ungated"

    def __init__(self, quantities: list[str] | tuple[str, ...] = UNGATED_QUANTITIES, max_prompt_chars: int = 2000):
        unknown = set(quantities) - set(UNGATED_QUANTITIES)
        if unknown:
            raise ValueError(f"ungated planner: quantities {sorted(unknown)} need a partner or a direction; "
                             f"known: {list(UNGATED_QUANTITIES)}")
        self.quantities = tuple(quantities)
        self._subjects = RulesPlanner(implicit=(), max_prompt_chars=max_prompt_chars)

    def plan(self, prompt: str, lessons: list[Any] | None = None) -> PlanResult:
        found = self._subjects.plan(prompt).plan
        subjects = [s for s in (found.subjects if found is not None else []) if s.rigid]
        b = PlanBuilder(prompt)
        if not subjects:
            # nothing named: every moving thing in the clip, as one subject over the whole prompt
            subjects = [SubjectSpec(name="object", noun="object", span=(0, len(prompt.rstrip())))]
        for spec in subjects:
            name = b.add_subject(spec)
            span = spec.span or (0, len(prompt.rstrip()))
            if spec.span is not None:
                b.noun_phrases.append(tuple(spec.span))
            phrase = prompt[span[0]:span[1]]
            for quantity in self.quantities:
                qspec = QUANTITY_SPECS[quantity]
                expect = qspec.implicit.expect if qspec.implicit is not None else Expect()
                surface = "floor" if quantity == "penetration" else None
                check = b.op(MeasureOp, subject=name, quantity=quantity, expect=expect, surface=surface)
                cid = b.claim(span, kind="implicit", subjects=[name], text=f"{phrase}: {quantity}")
                b.oblige(cid, check, quantity)
        try:
            return PlanResult(plan=b.build(self.name))
        except PlanError as exc:
            return PlanResult(plan=None, rejected=tuple(exc.reasons))
