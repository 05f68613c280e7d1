"""Planner coverage on a suite's prompts: how many become typed claims, which of the suite's own typed
expectations the plans recover, and which words the planner leaves unplanned.

Each distinct prompt is planned once (``planner.plan(prompt)``, the planner's public API; nothing is decoded).
A prompt has a *typed claim* when one of its explicit claims is decided by an instrument operation (``count``,
``measure``, ``depth``, ``read``, ``hear`` or a temporal check), not only by ``judge``. A word is *unplanned* when
it lies outside every claim span of its prompt and is not a function word; a *construction* is two such words in
a row. Both are ranked by the number of prompts they are left unplanned in.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any

from tqdm import tqdm

from critic.suites.base import Suite
from critic.suites.plans import STOPWORDS, WORD_RE
from critic.suites.types import CoverageTarget, SuiteCoverage, SuiteItem, TargetCoverage, WordCount
from critic.types import Plan

MISSES_KEPT = 10  # examples of unrecovered targets kept per kind


def has_typed_claim(plan: Plan) -> bool:
    explicit = {c.id for c in plan.claims if c.kind == "explicit"}
    return any(ob.claim in explicit and ob.kind == "instrument" and plan.op(ob.check).op != "judge"
               for ob in plan.obligations)


def unplanned(plan: Plan) -> tuple[list[str], list[str]]:
    """Words outside every claim span (function words aside) and the pairs of them that stand next to each other."""
    prompt = plan.prompt.lower()
    spans = [c.span for c in plan.claims]
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


def _ranked(per_prompt: list[list[str]], top: int) -> list[WordCount]:
    prompts, occurrences = Counter(), Counter()
    for words in per_prompt:
        prompts.update(set(words))
        occurrences.update(words)
    ranked = sorted(prompts, key=lambda w: (-prompts[w], -occurrences[w], w))
    return [WordCount(text=w, prompts=prompts[w], occurrences=occurrences[w]) for w in ranked[:top]]


def measure_coverage(suite: Suite, items: list[SuiteItem], planner: Any, *, source: str = "", top: int = 30,
                     progress: bool = False) -> SuiteCoverage:
    """Coverage of ``planner`` on the distinct prompts of ``items``. Each prompt is planned once; its targets are
    counted once per distinct expectation (the samples of one VBench-2 prompt share theirs; a prompt in two
    dimensions has the targets of both)."""
    plans: dict[str, Plan | None] = {}
    for prompt in tqdm(list(dict.fromkeys(it.prompt for it in items)), desc=f"planning {suite.name}",
                       unit="prompt", file=sys.stderr, disable=not progress):
        plans[prompt] = planner.plan(prompt, None).plan
    targets: list[CoverageTarget] = []
    seen: set[tuple[str, str]] = set()
    for it in items:
        key = (it.prompt, json.dumps({k: v for k, v in it.expect.items() if k != "sample"}, sort_keys=True))
        if key not in seen and plans[it.prompt] is not None:
            seen.add(key)
            targets += suite.coverage_targets(it, plans[it.prompt])
    per_kind = []
    for kind in dict.fromkeys(t.kind for t in targets):
        ts = [t for t in targets if t.kind == kind]
        hit = sum(t.recovered for t in ts)
        per_kind.append(TargetCoverage(kind=kind, total=len(ts), recovered=hit, share=hit / len(ts),
                                       misses=[t for t in ts if not t.recovered][:MISSES_KEPT]))
    planned = [p for p in plans.values() if p is not None]
    words, pairs = zip(*(unplanned(p) for p in planned)) if planned else ((), ())
    with_typed = sum(has_typed_claim(p) for p in planned)
    return SuiteCoverage(suite=suite.name, source=source, planner=str(getattr(planner, "name", type(planner).__name__)),
                         rows=len(items), prompts=len(plans),
                         with_claim=sum(any(c.kind == "explicit" for c in p.claims) for p in planned),
                         with_typed_claim=with_typed, share_typed=with_typed / len(plans) if plans else None,
                         rejected=len(plans) - len(planned), targets=per_kind,
                         unplanned_words=_ranked(list(words), top), unplanned_constructions=_ranked(list(pairs), top))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def coverage_table(reports: list[SuiteCoverage]) -> str:
    """One markdown row per suite: prompts, typed share, and each target kind as recovered/total."""
    lines = ["| suite | prompts | with a claim | with a typed claim | recovered targets |", "|---|---|---|---|---|"]
    for r in reports:
        recovered = "; ".join(f"{t.kind} {t.recovered}/{t.total} ({_pct(t.share)})" for t in r.targets) or "-"
        lines.append(f"| {r.suite} | {r.prompts} | {r.with_claim} | {r.with_typed_claim} ({_pct(r.share_typed)}) "
                     f"| {recovered} |")
    return "\n".join(lines) + "\n"


def coverage_markdown(report: SuiteCoverage) -> str:
    """The report of one suite: the table row, the targets' misses, the unplanned words and constructions."""
    out = [f"# Planner coverage: {report.suite}", "",
           f"Planner `{report.planner}` on {report.prompts} distinct prompts ({report.rows} manifest rows) from "
           f"`{report.source}`; {report.rejected} plans rejected.", "", coverage_table([report])]
    for t in report.targets:
        if t.misses:
            out += [f"Unrecovered {t.kind} targets (first {len(t.misses)} of {t.total - t.recovered}):", ""]
            out += [f"- `{m.item}`: {m.expected}" + (f" ({m.note})" if m.note else "") for m in t.misses]
            out.append("")
    for title, rows in (("Unplanned words", report.unplanned_words),
                        ("Unplanned constructions", report.unplanned_constructions)):
        out += [f"{title} (prompts / occurrences):", "",
                ", ".join(f"{w.text} {w.prompts}/{w.occurrences}" for w in rows) or "none", ""]
    return "\n".join(out)
