"""Planner coverage on a suite's prompts: how many become claims and how many become claims an instrument measures,
on the physics prompts and per group, on a dev and a held-out half; which of the suite's own typed expectations
the plans recover; and which words and constructions the planner leaves unplanned.

Each distinct prompt is planned once (``planner.plan(prompt)``, the planner's public API; nothing is decoded).
Per prompt:

* *typed*: at least one explicit claim, whatever decides it (``judge`` included);
* *instrumented*: at least one explicit claim with an instrument obligation decided by an operation other than
  ``judge`` (``count``, ``measure``, ``depth``, ``read``, ``hear``, or a temporal check over their windows; an order
  of two judged actions is not): the critic can measure it rather than only ask about it;
* *unplanned physical*: the plan records a physical clause that no explicit claim covers (``Plan.unplanned``);
* *unplanned words*: words outside every claim span (a subject's implicit claims included: a subject the plan
  grounds is planned; a claim of the whole scene, which spans the whole prompt, plans none) that are not function
  words; a *construction* is two such words in a row. Both are ranked by the number of prompts they are left
  unplanned in.

The suite says which group a prompt belongs to and whether it is a physics prompt (``Suite.coverage_group``,
``Suite.is_physics``), and which typed expectations it carries (``Suite.coverage_targets``: DSG count and text
tuples recovered as ``count`` and ``read`` operations, VBench-2 expected counts and ordered actions recovered as
``count`` operations and ``before`` checks).

The halves are fixed by the prompt's text alone (:func:`half_of`), so rules can be written while reading the
``dev`` half and measured on the ``held_out`` half that no rule was written from.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from typing import Any

from tqdm import tqdm

from critic.suites.base import Suite
from critic.suites.plans import STOPWORDS, WORD_RE
from critic.suites.types import (CoverageTarget, HalfCoverage, PromptCoverage, Shares, SuiteCoverage, SuiteItem,
                                 TargetCoverage, WordCount)
from critic.types import Plan, op_event_refs
from veriphy.errors import UserError

HALVES = ("dev", "held_out")
HALF_CHOICES = (*HALVES, "all")
MISSES_KEPT = 10  # examples of unrecovered targets kept per kind


def half_of(text: str) -> str:
    """``dev`` or ``held_out``: the parity of the first byte of the sha256 of the stripped, lower-cased text
    (stable across runs, machines, suites and their versions)."""
    return HALVES[hashlib.sha256(text.strip().lower().encode()).digest()[0] % 2]


def check_half(half: str) -> str:
    if half not in HALF_CHOICES:
        raise UserError(f"half must be one of {', '.join(HALF_CHOICES)}, not {half!r}", field="half")
    return half


def is_typed(plan: Plan) -> bool:
    return any(c.kind == "explicit" for c in plan.claims)


def measured_by_instrument(plan: Plan, op_id: str) -> bool:
    """The operation is an instrument's: not ``judge``, and for a temporal check, both its operands' windows come
    from instruments (an order of two judged actions is as good as the judge)."""
    op = plan.op(op_id)
    if op.op == "judge":
        return False
    return all(measured_by_instrument(plan, ref.op) for ref in op_event_refs(op))


def is_instrumented(plan: Plan) -> bool:
    explicit = {c.id for c in plan.claims if c.kind == "explicit"}
    return any(ob.claim in explicit and ob.kind == "instrument" and measured_by_instrument(plan, ob.check)
               for ob in plan.obligations)


def unplanned(plan: Plan) -> tuple[list[str], list[str]]:
    """Words outside every claim span (function words aside) and the pairs of them that stand next to each other."""
    prompt = plan.prompt.lower()
    spans = [c.span for c in plan.claims if not c.about_scene]
    words, pairs, previous = [], [], None
    for m in WORD_RE.finditer(prompt):
        inside = any(a <= m.start() < b for a, b in spans)
        word = m.group(0).strip("'-")
        if inside or not word or word in STOPWORDS:
            previous = None
            continue
        words.append(word)
        if previous is not None and not prompt[previous[1]:m.start()].strip():
            pairs.append(f"{previous[0]} {word}")
        previous = (word, m.end())
    return words, pairs


def prompt_coverage(text: str, plan: Plan | None, groups: list[str], physics: bool) -> PromptCoverage:
    """What the plan of one prompt covers (``plan`` ``None``: the planner rejected its plan)."""
    if plan is None:
        return PromptCoverage(text=text, half=half_of(text), groups=groups, physics=physics, rejected=True,
                              claims=0, typed=False, instrumented=False)
    words, pairs = unplanned(plan)
    return PromptCoverage(text=text, half=half_of(text), groups=groups, physics=physics, rejected=False,
                          claims=sum(c.kind == "explicit" for c in plan.claims), typed=is_typed(plan),
                          instrumented=is_instrumented(plan),
                          unplanned=[u.model_dump(mode="json") for u in plan.unplanned],
                          unplanned_words=words, unplanned_constructions=pairs)


def _shares(rows: list[PromptCoverage]) -> Shares:
    n = len(rows)
    typed = sum(r.typed for r in rows)
    instrumented = sum(r.instrumented for r in rows)
    physical = sum(any(u.get("physical") for u in r.unplanned) for r in rows)
    return Shares(prompts=n, typed=typed, instrumented=instrumented, unplanned_physical=physical,
                  share_typed=typed / n if n else None, share_instrumented=instrumented / n if n else None,
                  share_unplanned_physical=physical / n if n else None)


def _ranked(per_prompt: list[list[str]], top: int) -> list[WordCount]:
    prompts, occurrences = Counter(), Counter()
    for words in per_prompt:
        prompts.update(set(words))
        occurrences.update(words)
    ranked = sorted(prompts, key=lambda w: (-prompts[w], -occurrences[w], w))
    return [WordCount(text=w, prompts=prompts[w], occurrences=occurrences[w]) for w in ranked[:top]]


def _per_kind(targets: list[CoverageTarget]) -> list[TargetCoverage]:
    out = []
    for kind in sorted({t.kind for t in targets}):
        ts = [t for t in targets if t.kind == kind]
        hit = sum(t.recovered for t in ts)
        out.append(TargetCoverage(kind=kind, total=len(ts), recovered=hit, share=hit / len(ts),
                                  misses=[t for t in ts if not t.recovered][:MISSES_KEPT]))
    return out


def _half(rows: list[PromptCoverage], targets: list[CoverageTarget], top: int) -> HalfCoverage:
    groups = sorted({g for r in rows for g in r.groups})
    return HalfCoverage(all=_shares(rows), physics=_shares([r for r in rows if r.physics]),
                        groups={g: _shares([r for r in rows if g in r.groups]) for g in groups},
                        rejected=sum(r.rejected for r in rows), targets=_per_kind(targets),
                        unplanned_words=_ranked([r.unplanned_words for r in rows], top),
                        unplanned_constructions=_ranked([r.unplanned_constructions for r in rows], top))


def measure_coverage(suite: Suite, items: list[SuiteItem], planner: Any, *, half: str = "all", source: str = "",
                     top: int = 30, progress: bool = False) -> tuple[SuiteCoverage, list[PromptCoverage]]:
    """Coverage of ``planner`` on the distinct prompts of ``items`` in ``half`` (``dev``, ``held_out`` or
    ``all``); returns the report and one :class:`PromptCoverage` per planned prompt (in the items' order). Each
    prompt is planned once; its targets are counted once per distinct expectation (the samples of one VBench-2
    prompt share theirs; a prompt in two dimensions has the targets of both)."""
    check_half(half)
    by_prompt: dict[str, list[SuiteItem]] = {}
    for it in items:
        if half in ("all", half_of(it.prompt)):
            by_prompt.setdefault(it.prompt, []).append(it)
    plans: dict[str, Plan | None] = {}
    for prompt in tqdm(list(by_prompt), desc=f"planning {suite.name}", unit="prompt", file=sys.stderr,
                       disable=not progress):
        plans[prompt] = planner.plan(prompt, None).plan
    rows = [prompt_coverage(prompt, plans[prompt], list(dict.fromkeys(suite.coverage_group(it) for it in group)),
                            any(suite.is_physics(it) for it in group))
            for prompt, group in by_prompt.items()]
    targets: list[tuple[str, CoverageTarget]] = []  # (the prompt's half, target)
    seen: set[tuple[str, str]] = set()
    for prompt, group in by_prompt.items():
        for it in group:
            key = (prompt, json.dumps({k: v for k, v in it.expect.items() if k != "sample"}, sort_keys=True))
            if key not in seen and plans[prompt] is not None:
                seen.add(key)
                targets += [(half_of(prompt), t) for t in suite.coverage_targets(it, plans[prompt])]
    halves = {}
    for name in (HALF_CHOICES if half == "all" else (half,)):
        halves[name] = _half([r for r in rows if name in ("all", r.half)],
                             [t for h, t in targets if name in ("all", h)], top)
    report = SuiteCoverage(suite=suite.name, source=source,
                           planner=str(getattr(planner, "name", type(planner).__name__)), half=half,
                           rows=sum(len(group) for group in by_prompt.values()), prompts=len(rows), halves=halves)
    return report, rows


# --------------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def _count(n: int, share: float | None) -> str:
    return f"{n} ({_pct(share)})"


def coverage_table(reports: list[SuiteCoverage]) -> str:
    """One markdown row per suite and half: prompts, typed and instrumented shares (all prompts and physics
    prompts), and each target kind as recovered/total."""
    lines = ["| suite | half | prompts | typed | instrumented | physics prompts | physics typed | "
             "physics instrumented | recovered targets |", "|---|---|---|---|---|---|---|---|---|"]
    for r in reports:
        for name, h in r.halves.items():
            recovered = "; ".join(f"{t.kind} {t.recovered}/{t.total} ({_pct(t.share)})" for t in h.targets) or "-"
            a, p = h.all, h.physics
            lines.append(f"| {r.suite} | {name} | {a.prompts} | {_count(a.typed, a.share_typed)} | "
                         f"{_count(a.instrumented, a.share_instrumented)} | {p.prompts} | "
                         f"{_count(p.typed, p.share_typed) if p.prompts else '-'} | "
                         f"{_count(p.instrumented, p.share_instrumented) if p.prompts else '-'} | {recovered} |")
    return "\n".join(lines) + "\n"


def _groups_table(h: HalfCoverage) -> list[str]:
    lines = ["| group | prompts | typed | instrumented | unplanned physical |", "|---|---|---|---|---|"]
    for name, s in [("**all**", h.all), ("**physics**", h.physics), *h.groups.items()]:
        lines.append(f"| {name} | {s.prompts} | {_count(s.typed, s.share_typed)} | "
                     f"{_count(s.instrumented, s.share_instrumented)} | "
                     f"{_count(s.unplanned_physical, s.share_unplanned_physical)} |")
    return lines


def coverage_markdown(report: SuiteCoverage) -> str:
    """The report of one suite: the overview rows, then per half the groups, the targets' misses, the unplanned
    words and constructions."""
    out = [f"# Planner coverage: {report.suite}", "",
           f"Planner `{report.planner}` on {report.prompts} distinct prompts ({report.rows} manifest rows) from "
           f"`{report.source}`, half `{report.half}`. Typed: at least one explicit claim; instrumented: at least "
           "one explicit claim an instrument measures (not `judge`); unplanned physical: a physical clause no "
           "claim covers.", "", coverage_table([report])]
    for name, h in report.halves.items():
        out += [f"## {name}", "", f"{h.rejected} plans rejected.", "", *_groups_table(h), ""]
        for t in h.targets:
            if t.misses:
                out += [f"Unrecovered {t.kind} targets (first {len(t.misses)} of {t.total - t.recovered}):", ""]
                out += [f"- `{m.item}`: {m.expected}" + (f" ({m.note})" if m.note else "") for m in t.misses]
                out.append("")
        for title, rows in (("Unplanned words", h.unplanned_words),
                            ("Unplanned constructions", h.unplanned_constructions)):
            out += [f"{title} (prompts / occurrences):", "",
                    ", ".join(f"{w.text} {w.prompts}/{w.occurrences}" for w in rows) or "none", ""]
    return "\n".join(out)
