"""Temporal predicates on event windows and the three-valued roll-up (docs/architecture.md §5).

Temporal predicates use quarter-window slack: for windows A and B, ``delta = min(|A|, |B|) / 4`` (never under one
frame period of the clip).

* ``before(A, B)``: supported when ``A.end <= B.start + delta``; contradicted only when the order is reversed,
  ``B.end + delta < A.start``; overlapping events (a contact inside a fall, two landings in the same frames) do not
  show an order: unknown.
* ``contains(A, B)`` (B within A): ``A.start - delta <= B.start`` and ``B.end <= A.end + delta``; contradicted only
  when B lies wholly outside A widened by delta (a B that straddles an edge of it is unknown).
* ``during(A, B)`` = ``contains(B, A)``.

An event that recurs (a bouncing ball is airborne several times) is checked over every pair of occurrences: the
relation is supported when one pair satisfies it, contradicted when every pair contradicts it, else unknown.
A missing window gives ``unknown``, never a guess; an event measured to happen at no time (no occurrence: a sound
the clip has nowhere) is in no relation with one that happens. Roll-up: sub-check -> claim -> clip, any contradicted ->
contradicted, all supported -> supported, otherwise unknown (an empty set of sub-checks is unknown). A physical
clause of the prompt that the plan left unchecked (``Plan.unplanned``) keeps a clip from being supported: it is
unknown, with the clause named.
With ``dense_then_verify``, a claim's dense (semantic first-pass) answer stands unless its instrument
sub-checks contradict it, in which case the instruments overturn it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from critic.plan import dependencies
from critic.types import (CONTRADICTED, SUPPORTED, UNKNOWN, ClaimVerdict, ClipVerdict, ContradictionPacket, Cost,
                          CostSummary, EvidenceRecord, Measurement, Plan, State, SubCheckVerdict, TimeWindow,
                          VideoSanity)

# --------------------------------------------------------------------------------------------------
# Temporal predicates
# --------------------------------------------------------------------------------------------------

#: float tolerance (s) on the inequalities, far below any frame period: 0.1 + 0.2 must not decide a claim
EPS_S = 1e-9


#: the slack of the temporal predicates as a fraction of the shorter window (the quarter-window rule)
SLACK_FRACTION = 0.25


def slack_s(a: TimeWindow, b: TimeWindow, fraction: float = SLACK_FRACTION, frame_s: float = 0.0) -> float:
    """Slack (s): ``fraction`` of the shorter window (a quarter by default), and never less than one frame period
    ``frame_s`` of the clip: an event seen on video is timed no finer than the frame it falls in, so at 8 fps a sound
    60 ms before the frame of contact is not early."""
    return max(fraction * min(a.length_s, b.length_s), frame_s)


def _fmt(w: TimeWindow) -> str:
    return f"[{w.start_s:.3f}, {w.end_s:.3f}] s"


def _union(a: TimeWindow, b: TimeWindow) -> TimeWindow:
    first, last = (a, b) if a.start_s <= b.start_s else (b, a)
    end = a if a.end_s >= b.end_s else b
    return TimeWindow(start_s=first.start_s, end_s=end.end_s, start_frame=min(a.start_frame, b.start_frame),
                      end_frame=max(a.end_frame, b.end_frame))


def _missing(a: TimeWindow | None, b: TimeWindow | None, required: str, names: tuple[str, str]) -> Measurement:
    gone = [n for n, w in zip(names, (a, b)) if w is None]
    return Measurement(state=UNKNOWN, required=required, reason=f"no event window for {' and '.join(gone)}")


def before(a: TimeWindow | None, b: TimeWindow | None, names: tuple[str, str] = ("A", "B"),
           fraction: float = SLACK_FRACTION, frame_s: float = 0.0) -> Measurement:
    """``A`` ends before ``B`` starts (quarter-window slack); contradicted only when ``B`` ends before ``A`` starts
    (the order reversed), unknown when they overlap."""
    required = f"{names[0]}.end <= {names[1]}.start + slack"
    if a is None or b is None:
        return _missing(a, b, required, names)
    d = slack_s(a, b, fraction, frame_s)
    ok = a.end_s <= b.start_s + d + EPS_S
    reversed_ = b.end_s + d < a.start_s - EPS_S
    values = {"slack_s": round(d, 6), "margin_s": round(b.start_s + d - a.end_s, 6)}
    if not ok and not reversed_:
        return Measurement(state=UNKNOWN, required=required, reason=f"{names[0]} {_fmt(a)} and {names[1]} {_fmt(b)} "
                           f"overlap (slack {d:.4f} s): no order shows", window=_union(a, b), values=values)
    measured = f"{names[0]} {_fmt(a)}, {names[1]} {_fmt(b)}, slack {d:.4f} s: " + (
        f"{a.end_s:.4f} <= {b.start_s + d:.4f}" if ok else f"{names[1]} ends at {b.end_s:.4f}, before {names[0]} "
                                                           f"starts at {a.start_s:.4f} - slack")
    return Measurement(state=SUPPORTED if ok else CONTRADICTED, required=required, measured=measured,
                       window=_union(a, b), values=values)


def contains(a: TimeWindow | None, b: TimeWindow | None, names: tuple[str, str] = ("A", "B"),
             fraction: float = SLACK_FRACTION, frame_s: float = 0.0) -> Measurement:
    """``B`` lies within ``A`` (quarter-window slack on both ends); contradicted only when ``B`` lies wholly outside
    ``A`` widened by the slack, unknown when it straddles an edge."""
    required = f"{names[1]} within {names[0]} (+/- slack)"
    if a is None or b is None:
        return _missing(a, b, required, names)
    d = slack_s(a, b, fraction, frame_s)
    ok = a.start_s - d <= b.start_s + EPS_S and b.end_s <= a.end_s + d + EPS_S
    outside = b.end_s < a.start_s - d - EPS_S or b.start_s > a.end_s + d + EPS_S
    margin = min(b.start_s - (a.start_s - d), a.end_s + d - b.end_s)
    values = {"slack_s": round(d, 6), "margin_s": round(margin, 6)}
    if not ok and not outside:
        # B straddles an edge of A (with slack): both are timed to the frame, so which side of it B falls is not
        # firm evidence either way
        return Measurement(state=UNKNOWN, required=required, reason=f"{names[1]} {_fmt(b)} straddles an edge of "
                           f"{names[0]} {_fmt(a)} (slack {d:.4f} s): neither inside nor apart", window=_union(a, b),
                           values=values)
    measured = f"{names[0]} {_fmt(a)}, {names[1]} {_fmt(b)}, slack {d:.4f} s: " \
               f"{'inside' if ok else 'apart'}"
    return Measurement(state=SUPPORTED if ok else CONTRADICTED, required=required, measured=measured,
                       window=_union(a, b), values=values)


def during(a: TimeWindow | None, b: TimeWindow | None, names: tuple[str, str] = ("A", "B"),
           fraction: float = SLACK_FRACTION, frame_s: float = 0.0) -> Measurement:
    """``A`` lies within ``B``: ``contains(B, A)``."""
    return contains(b, a, (names[1], names[0]), fraction, frame_s)


TEMPORAL = {"before": before, "contains": contains, "during": during}


def any_occurrence(relation, a: list[TimeWindow | None], b: list[TimeWindow | None], names: tuple[str, str] = ("A", "B"),
                   fraction: float = SLACK_FRACTION, frame_s: float = 0.0) -> Measurement:
    """``relation`` (one of :data:`TEMPORAL`) over every pair of occurrences of the two events, in time order:
    the first supported pair; else, when every pair is contradicted, the first of them; else the first unknown.

    An event measured to happen at no time (an empty list: a sound the clip has nowhere) is in no relation with
    one that happens: contradicted, with the window of the other's first occurrence; with neither, unknown."""
    for i, (this, that) in enumerate(((a, b), (b, a))):
        seen = [w for w in that if w is not None]
        if not this and seen:
            first = min(seen, key=lambda w: w.start_s)
            return Measurement(state=CONTRADICTED, required=f"{relation.__name__}({names[0]}, {names[1]})",
                               measured=f"{names[i]} happens at no time in the clip, so not with {names[1 - i]} "
                                        f"{_fmt(first)}", window=first)
    results = [relation(x, y, names, fraction, frame_s) for x in a for y in b]
    if not results:
        return _missing(None, None, "", names)
    held = [r for r in results if r.state == SUPPORTED]
    if held:
        return held[0]
    if all(r.state == CONTRADICTED for r in results):
        return results[0]
    return next(r for r in results if r.state == UNKNOWN)

# --------------------------------------------------------------------------------------------------
# Roll-up
# --------------------------------------------------------------------------------------------------


def rollup(states: Iterable[State]) -> State:
    """Any contradicted -> contradicted; all supported (and at least one) -> supported; else unknown."""
    states = list(states)
    if CONTRADICTED in states:
        return CONTRADICTED
    if states and all(s == SUPPORTED for s in states):
        return SUPPORTED
    return UNKNOWN


def claim_state(instrument: list[State], dense: list[State], dense_then_verify: bool) -> tuple[State, bool]:
    """A claim's state from its instrument and dense sub-check states; returns (state, overturned).

    Without dense sub-checks (or with ``dense_then_verify`` off) this is the plain roll-up of all of them.
    Otherwise the dense answer stands unless the instruments contradict a dense "supported" (overturned),
    and an unknown dense answer defers to the instruments."""
    if not dense or not dense_then_verify:
        return rollup(instrument + dense), False
    d, i = rollup(dense), rollup(instrument)
    if d == SUPPORTED:
        return (CONTRADICTED, True) if i == CONTRADICTED else (SUPPORTED, False)
    if d == CONTRADICTED:
        return CONTRADICTED, False
    return i, False


def p_plausible(states: list[State], verdict: State) -> float:
    """Ranking score in [0, 1]: (supported + unknown/2) / claims; halved when contradicted; 0.5 with no claims.
    ``states`` holds one unknown per unplanned physical clause."""
    if not states:
        return 0.5
    p = (states.count(SUPPORTED) + 0.5 * states.count(UNKNOWN)) / len(states)
    return round(0.5 * p if verdict == CONTRADICTED else p, 6)


class Aggregator:
    """Turns the plan and its evidence records into a :class:`ClipVerdict`."""

    def __init__(self, dense_then_verify: bool = True, include_dependency_evidence: bool = True,
                 slack_fraction: float = SLACK_FRACTION):
        if not 0.0 <= float(slack_fraction) <= 1.0:
            raise ValueError(f"slack_fraction {slack_fraction} is not in [0, 1]")
        #: the temporal predicates' slack, a fraction of the shorter window (the executor applies it)
        self.slack_fraction = float(slack_fraction)
        self.dense_then_verify = dense_then_verify
        self.include_dependency_evidence = include_dependency_evidence

    def aggregate(self, plan: Plan, records: Mapping[str, EvidenceRecord], *, clip_sha256: str = "", video: str = "",
                  plan_sha256: str = "", sanity: VideoSanity | None = None, planner_cost: Cost = Cost(),
                  cache_hits: Mapping[str, bool] | None = None) -> ClipVerdict:
        """The verdict on one clip. ``cache_hits``: operation id -> its result came from the cache (no call made)."""
        claims: list[ClaimVerdict] = []
        packets: list[ContradictionPacket] = []
        for claim in plan.claims:
            subs: list[SubCheckVerdict] = []
            for ob in plan.obligations:
                if ob.claim != claim.id:
                    continue
                rec = records.get(ob.check)
                state = rec.state if rec is not None else UNKNOWN
                reason = (rec.reason if rec is not None else "operation was not executed")
                subs.append(SubCheckVerdict(obligation=ob.id, text=ob.text, kind=ob.kind, op_id=ob.check, state=state,
                                            reason=reason, window=rec.window if rec is not None else None))
            state, overturned = claim_state([s.state for s in subs if s.kind == "instrument"],
                                            [s.state for s in subs if s.kind == "dense"], self.dense_then_verify)
            bad = [s for s in subs if s.state == CONTRADICTED and (s.kind == "instrument" or not overturned)]
            windows = [s.window for s in bad if s.window is not None]
            window = min(windows, key=lambda w: (w.start_s, w.end_s)) if windows else None
            if not subs:
                reason = "no sub-check"
            elif state == UNKNOWN:
                reason = "; ".join(f"{s.obligation}: {s.reason}" for s in subs if s.state == UNKNOWN and s.reason)
            else:
                reason = "overturned by instrument evidence" if overturned else ""
            claims.append(ClaimVerdict(id=claim.id, text=claim.text, span=claim.span, kind=claim.kind,
                                       subjects=list(claim.subjects), state=state, sub_checks=subs, window=window,
                                       overturned=overturned, reason=reason))
            if state == CONTRADICTED:
                ev_ids: list[str] = []
                for s in bad:
                    ev_ids.append(s.op_id)
                    if self.include_dependency_evidence:
                        ev_ids += dependencies(plan, plan.op(s.op_id))
                evidence = [records[i] for i in dict.fromkeys(ev_ids) if i in records]
                a, b = claim.span
                packets.append(ContradictionPacket(
                    claim=claim.id, span=claim.span, span_text=plan.prompt[a:b], window=window,
                    required=[records[s.op_id].required for s in bad if s.op_id in records],
                    measured=[records[s.op_id].measured for s in bad if s.op_id in records], evidence=evidence))

        unchecked = [u for u in plan.unplanned if u.physical]
        states = [c.state for c in claims] + [UNKNOWN] * len(unchecked)
        verdict = rollup(states)
        if not plan.claims:
            reason = "no physical claim found in the prompt"
        elif verdict == CONTRADICTED:
            reason = f"{sum(c.state == CONTRADICTED for c in claims)} of {len(claims)} claims contradicted"
        elif any(c.state == UNKNOWN for c in claims):
            reason = f"{sum(c.state == UNKNOWN for c in claims)} of {len(claims)} claims unknown"
        else:
            reason = f"all {len(claims)} claims supported"
        if unchecked and verdict != CONTRADICTED:
            reason += "; not checked: " + ", ".join(f"'{u.text}' (chars {u.span[0]}-{u.span[1]})" for u in unchecked)
        hits = {k for k, hit in (cache_hits or {}).items() if hit and k in records}
        total = Cost()
        for k, r in records.items():
            if k not in hits:
                total = total + r.cost
        cost = CostSummary(tool_calls=total.tool_calls, model_calls=total.model_calls, operations=len(records),
                           planner_model_calls=planner_cost.model_calls, cache_hits=len(hits))
        return ClipVerdict(clip_sha256=clip_sha256, video=video, prompt=plan.prompt, plan_sha256=plan_sha256,
                           verdict=verdict, reason=reason, claims=claims, packets=packets, cost=cost,
                           p_plausible=p_plausible(states, verdict), unplanned=list(plan.unplanned),
                           sanity=sanity or VideoSanity())
