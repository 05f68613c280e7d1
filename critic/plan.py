"""Plan language: parsing and the static validator (docs/architecture.md §5 "Plan before act").

The validator runs before any frame is read. A plan passes when

* every operation is a known one and its arguments have the declared types and ranges (pydantic);
* ids are unique; every subject an operation names is declared in ``plan.subjects`` and bound by exactly
  one ``ground`` operation before any other operation uses it;
* arguments make sense together (a contact needs a partner, a direction needs a direction, a count agrees
  with the subject's declared count);
* temporal operands are event windows that the referenced operation produces;
* dependencies are acyclic;
* every claim has a sub-check, every obligation checks a state-returning operation, and every operation is
  traceable to a claim (it is a check or something a check depends on).

A plan that fails is never executed: the LLM planner repairs it (feeding the reasons back), otherwise it is
rejected with the reasons.
"""

from __future__ import annotations

import json
from graphlib import CycleError, TopologicalSorter
from typing import Any

from pydantic import ValidationError

from critic.types import (OP_NAMES, QUANTITY_SPECS, AnyOp, CountOp, DepthOp, GroundOp, JudgeOp, MeasureOp, Plan,
                          op_event_refs, op_events, op_subjects)

#: the quantities ``expect.direction`` applies to, as the validator names them ("'direction'")
_DIRECTIONAL = " or ".join(repr(q) for q, spec in QUANTITY_SPECS.items() if spec.directional)


class PlanError(Exception):
    """A plan that failed parsing or static validation; ``reasons`` lists every problem found."""

    def __init__(self, reasons: list[str]):
        self.reasons = list(reasons)
        super().__init__("invalid plan: " + "; ".join(self.reasons))


def parse_plan(data: str | dict[str, Any]) -> Plan:
    """Parse a plan from JSON text or a dict. Unknown operation names are reported by name (before pydantic's
    union errors, which are hard to read); raises :class:`PlanError`."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PlanError([f"not valid JSON: {exc.msg} at line {exc.lineno}"]) from None
    if not isinstance(data, dict):
        raise PlanError(["a plan must be a JSON object"])
    reasons = []
    for i, op in enumerate(data.get("operations") or []):
        name = op.get("op") if isinstance(op, dict) else None
        if name not in OP_NAMES:
            reasons.append(f"operations[{i}] ({op.get('id') if isinstance(op, dict) else '?'}): unknown operation "
                           f"{name!r} (known: {', '.join(OP_NAMES)})")
    if reasons:
        raise PlanError(reasons)
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError([f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20]]) from None


def ground_ops(plan: Plan) -> dict[str, str]:
    """subject name -> id of the ``ground`` operation that binds it."""
    return {op.subject: op.id for op in plan.operations if isinstance(op, GroundOp)}


def dependencies(plan: Plan, op: AnyOp) -> list[str]:
    """Ids of the operations whose results ``op`` reads: the ground op of each subject it names and the
    operations producing its event operands. Unbound names are skipped (the validator reports them)."""
    bound = ground_ops(plan)
    deps: list[str] = []
    if not isinstance(op, GroundOp):
        deps += [bound[s] for s in op_subjects(op) if s in bound]
    deps += [ref.op for ref in op_event_refs(op)]
    return list(dict.fromkeys(deps))


def execution_order(plan: Plan) -> list[str]:
    """Operation ids in dependency order; ties keep the plan's order (deterministic)."""
    ids = [op.id for op in plan.operations]
    sorter = TopologicalSorter({op.id: dependencies(plan, op) for op in plan.operations})
    sorter.prepare()
    order: list[str] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=ids.index)
        order += ready
        sorter.done(*ready)
    return order


def validate_plan(plan: Plan) -> list[str]:
    """Every reason the plan is invalid (empty list: valid). Reads no frames."""
    reasons: list[str] = []
    ops = {op.id: op for op in plan.operations}

    # unique ids
    for kind, ids in (("operation", [o.id for o in plan.operations]), ("claim", [c.id for c in plan.claims]),
                      ("obligation", [o.id for o in plan.obligations]), ("subject", [s.name for s in plan.subjects])):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            reasons.append(f"duplicate {kind} id(s): {', '.join(dup)}")

    # subjects declared and bound by exactly one ground
    declared = {s.name: s for s in plan.subjects}
    grounds: dict[str, list[str]] = {}
    for op in plan.operations:
        if isinstance(op, GroundOp):
            grounds.setdefault(op.subject, []).append(op.id)
    for name, gids in grounds.items():
        if len(gids) > 1:
            reasons.append(f"subject {name!r} is grounded more than once ({', '.join(gids)})")
    for op in plan.operations:
        for name in op_subjects(op):
            if name not in declared:
                reasons.append(f"{op.id} ({op.op}): subject {name!r} is not declared")
            elif not isinstance(op, GroundOp) and name not in grounds:
                reasons.append(f"{op.id} ({op.op}): subject {name!r} is unbound (no ground operation)")

    # arguments that must make sense together
    for op in plan.operations:
        if isinstance(op, CountOp):
            s = declared.get(op.subject)
            if s is not None and s.count is not None and (s.count != op.n or op.at_least):
                reasons.append(f"{op.id} (count): {'at least ' if op.at_least else ''}n={op.n} disagrees with "
                               f"subject {op.subject!r} count={s.count}")
            if op.subject in op.kin or len(set(op.kin)) != len(op.kin):
                reasons.append(f"{op.id} (count): 'kin' names the counted subject or a subject twice")
        elif isinstance(op, MeasureOp):
            spec = QUANTITY_SPECS[op.quantity]
            if spec.needs_partner and not (op.other or op.surface):
                reasons.append(f"{op.id} (measure {op.quantity}): needs 'other' (a subject) or 'surface'")
            if op.other is not None and op.other == op.subject and (declared.get(op.subject) is None or
                                                                    not declared[op.subject].is_group(plan.prompt)):
                # the same name twice means "its instances with each other": only for a group (counted, or a
                # plural noun: "dominoes")
                reasons.append(f"{op.id} (measure {op.quantity}): 'other' equals 'subject' but {op.subject!r} is "
                               "not a group of two or more")
            if op.surface is not None and not spec.surface:
                reasons.append(f"{op.id} (measure {op.quantity}): 'surface' does not apply to this quantity")
            if spec.directional and op.expect.direction is None:
                reasons.append(f"{op.id} (measure {op.quantity}): expect.direction is required")
            if not spec.directional and op.expect.direction is not None:
                reasons.append(f"{op.id} (measure {op.quantity}): expect.direction applies only to {_DIRECTIONAL}")
            if op.expect.n is not None and not spec.counts_events:
                reasons.append(f"{op.id} (measure {op.quantity}): expect.n (an event count) does not apply")
        elif isinstance(op, DepthOp):
            if op.b is not None and op.b == op.a:
                reasons.append(f"{op.id} (depth): 'a' and 'b' must differ")
        elif isinstance(op, JudgeOp):
            if op.claim not in {c.id for c in plan.claims}:
                reasons.append(f"{op.id} (judge): claim {op.claim!r} does not exist")

    # temporal operands are event windows
    for op in plan.operations:
        refs = op_event_refs(op)
        if refs and refs[0] == refs[1]:
            reasons.append(f"{op.id} ({op.op}): both operands are the same event")
        for ref in refs:
            src = ops.get(ref.op)
            if src is None:
                reasons.append(f"{op.id} ({op.op}): operand refers to unknown operation {ref.op!r}")
            elif ref.event not in op_events(src):
                produced = ", ".join(op_events(src)) or "no event windows"
                reasons.append(f"{op.id} ({op.op}): operand {ref.op}.{ref.event} is not an event window "
                               f"({ref.op} is {src.op} and produces {produced})")

    # acyclic
    try:
        TopologicalSorter({op.id: [d for d in dependencies(plan, op) if d in ops] for op in plan.operations}) \
            .prepare()
    except CycleError as exc:
        reasons.append(f"dependency cycle: {' -> '.join(map(str, exc.args[1]))}")

    # claims, obligations, traceability
    claim_ids = {c.id for c in plan.claims}
    n = len(plan.prompt)
    for c in plan.claims:
        a, b = c.span
        if not (0 <= a < b <= n):
            reasons.append(f"claim {c.id}: span {list(c.span)} is outside the prompt (length {n})")
        for s in c.subjects:
            if s not in declared:
                reasons.append(f"claim {c.id}: subject {s!r} is not declared")
    checked: set[str] = set()
    for ob in plan.obligations:
        if ob.claim not in claim_ids:
            reasons.append(f"obligation {ob.id}: claim {ob.claim!r} does not exist")
        op = ops.get(ob.check)
        if op is None:
            reasons.append(f"obligation {ob.id}: check operation {ob.check!r} does not exist")
        elif isinstance(op, GroundOp):
            reasons.append(f"obligation {ob.id}: {ob.check} is a ground operation (returns tracks, not a state)")
        else:
            checked.add(ob.check)
    for u in plan.unplanned:
        a, b = u.span
        if not (0 <= a < b <= n) or plan.prompt[a:b] != u.text:
            reasons.append(f"unplanned span {list(u.span)}: outside the prompt or its text differs from the prompt's")
        elif any(c.kind == "explicit" and c.span[0] < b and a < c.span[1] for c in plan.claims):
            reasons.append(f"unplanned span {list(u.span)}: overlaps a claim (it is planned)")
    for c in plan.claims:
        if not any(ob.claim == c.id for ob in plan.obligations):
            reasons.append(f"claim {c.id}: has no obligation (nothing would check it)")
    reachable: set[str] = set()
    stack = list(checked)
    while stack:
        i = stack.pop()
        if i in reachable or i not in ops:
            continue
        reachable.add(i)
        stack += dependencies(plan, ops[i])
    for op in plan.operations:
        if op.id not in reachable:
            reasons.append(f"{op.id} ({op.op}): not traceable to any claim")
    return reasons


def check_plan(plan: Plan) -> Plan:
    """Return ``plan`` if valid, else raise :class:`PlanError` with every reason."""
    reasons = validate_plan(plan)
    if reasons:
        raise PlanError(reasons)
    return plan


def load_plan(data: str | dict[str, Any]) -> Plan:
    """Parse and validate."""
    return check_plan(parse_plan(data))
