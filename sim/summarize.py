"""Turn a :class:`~sim.types.PredicateReport` into short text with numbers, for logs and for an author.

Example: ``"landed 0.40 m short of the target in x (at x=1.600 m); hit the wall first"``.
"""

from __future__ import annotations

from sim.types import PredicateReport


def summarize(report: PredicateReport, *, include_passing: bool = False) -> str:
    """One line per failing predicate (``name: message``); ``"all N predicates hold"`` when none fails.
    With ``include_passing`` the holding ones follow, marked ``ok``."""
    if report.trajectory_status != "ok":
        return f"simulation invalid: {report.trajectory_status}"
    failing = [r for r in report.results if not r.holds]
    if not failing:
        text = f"all {len(report.results)} predicates hold"
        if include_passing:
            text += "".join(f"\nok {r.name}: {r.message}" for r in report.results)
        return text
    lines = [f"{r.name}: {r.message}" for r in failing]
    if include_passing:
        lines += [f"ok {r.name}: {r.message}" for r in report.results if r.holds]
    return "\n".join(lines)
