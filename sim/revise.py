"""The revision loop: Solve -> Validate -> Summarise -> Author revises -> ... until every predicate holds, the
budget (number of solves) ends, the author proposes a spec it has already solved (it would only cycle), or
``patience`` solves in a row bring no improvement on the best one (an unreachable target). Every solve is one line of ``revisions.jsonl``: the values, who proposed
them and why (with every attempt the author made), the spec, a trajectory summary, the predicate report and
its summary. Lines are written as they happen, so an interrupted loop loses nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.authors.base import Attempt, Author, Proposal, objective_vector
from sim.engine import EngineSettings, simulate, spec_sha256
from sim.io import trajectory_meta
from sim.predicates import evaluate
from sim.request import PhysicsRequest
from veriphy.files import dumps_json
from sim.summarize import summarize
from sim.types import PredicateReport, SceneSpec, Trajectory

MAX_LOGGED_CONTACTS = 20


@dataclass(frozen=True)
class RevisionResult:
    """The outcome of the loop. ``spec``/``trajectory``/``report`` are the last solve's when every predicate
    holds, else those of the best solve (fewest failing predicates, then smallest scaled objectives)."""

    request: PhysicsRequest
    spec: SceneSpec
    trajectory: Trajectory
    report: PredicateReport
    values: dict[str, float]
    converged: bool
    solves: int
    revisions: tuple[dict[str, Any], ...]
    attempts: tuple[Attempt, ...]
    #: why the loop ended: ``converged``, ``budget``, ``repeated`` (the author proposed a spec already solved) or
    #: ``no_improvement`` (``patience`` solves in a row did not improve on the best)
    stop_reason: str = "budget"


def trajectory_summary(traj: Trajectory) -> dict[str, Any]:
    meta = trajectory_meta(traj)
    contacts = meta.pop("contacts")
    meta["num_contacts"] = len(contacts)
    meta["contacts"] = contacts[:MAX_LOGGED_CONTACTS]
    meta["final_position_m"] = {n: traj.position_m[k, -1].round(4).tolist() for k, n in enumerate(traj.object_names)}
    return meta


def _badness(a: Attempt) -> tuple[int, float]:
    r = objective_vector(a.report)
    failing = sum(not x.holds for x in a.report.results) + (0 if a.trajectory.ok else 1000)
    return failing, float(np.linalg.norm(np.nan_to_num(r, nan=1e6)))


def run_revision_loop(request: PhysicsRequest, author: Author, budget: int, run_dir: str | os.PathLike | None = None,
                      *, settings: EngineSettings | None = None, progress: bool = False,
                      initial_values: dict[str, float] | None = None, patience: int | None = 10) -> RevisionResult:
    """Run at most ``budget`` solves; write ``revisions.jsonl`` into ``run_dir`` when given. Stops early when the
    author proposes a spec already solved, or after ``patience`` solves in a row without improving on the best
    (``None``: only the budget stops it). The result is the best solve either way."""
    if budget < 1:
        raise ValueError("budget must be >= 1 solve")
    if patience is not None and patience < 1:
        raise ValueError("patience must be >= 1 solve")
    log_path = None
    if run_dir is not None:
        log_path = Path(run_dir) / "revisions.jsonl"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text("")
    values = request.clip(initial_values) if initial_values is not None else request.initial_values()
    proposal: Proposal | None = None
    attempts: list[Attempt] = []
    revisions: list[dict[str, Any]] = []
    solved: set[str] = set()  # spec hashes
    best: tuple[int, float] | None = None
    since_best = 0
    stop_reason = "budget"
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=budget, desc=f"revise {request.name}", unit="solve")
    for index in range(budget):
        spec = request.build_spec(values)
        solved.add(spec_sha256(spec))
        traj = simulate(spec, settings=settings)
        report = evaluate(request.predicates, spec, traj)
        summary = summarize(report)
        attempt = Attempt(index=index, values=dict(values), spec=spec, trajectory=traj, report=report, summary=summary)
        attempts.append(attempt)
        record = {
            "index": index,
            "values": dict(values),
            "proposed_by": None if proposal is None else {"author": proposal.author, "message": proposal.message,
                                                          "log": list(proposal.log)},
            "spec_sha256": spec_sha256(spec),
            "spec": spec.model_dump(mode="json"),
            "trajectory": trajectory_summary(traj),
            "report": report.model_dump(mode="json"),
            "summary": summary,
            "all_hold": report.all_hold,
        }
        revisions.append(record)
        if log_path is not None:
            with log_path.open("a") as f:
                f.write(dumps_json(record, indent=None) + "\n")
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(summary.splitlines()[0][:60])
        badness = _badness(attempt)
        if best is None or badness < best:
            best, since_best = badness, 0
        else:
            since_best += 1
        if report.all_hold:
            stop_reason = "converged"
            break
        if index == budget - 1:
            break
        if patience is not None and since_best >= patience:
            stop_reason = "no_improvement"
            break
        proposal = author.propose(request, attempts)
        values = request.clip(proposal.values)
        if spec_sha256(request.build_spec(values)) in solved:
            stop_reason = "repeated"  # the author is cycling: solving it again would change nothing
            break
    if bar is not None:
        bar.close()
    converged = attempts[-1].report.all_hold
    final = attempts[-1] if converged else min(attempts, key=_badness)
    return RevisionResult(request=request, spec=final.spec, trajectory=final.trajectory, report=final.report,
                          values=final.values, converged=converged, solves=len(attempts),
                          revisions=tuple(revisions), attempts=tuple(attempts), stop_reason=stop_reason)
