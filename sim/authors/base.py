"""What every author sees and returns. An author turns the history of solves into new free-parameter values."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from sim.request import PhysicsRequest
from sim.types import PredicateReport, SceneSpec, Trajectory


@dataclass(frozen=True)
class Attempt:
    """One solve of the loop: the free-parameter values, the spec built from them, and what happened."""

    index: int
    values: dict[str, float]
    spec: SceneSpec
    trajectory: Trajectory
    report: PredicateReport
    summary: str


@dataclass(frozen=True)
class Proposal:
    """An author's revision: new free-parameter values (within bounds), a message saying why, and a log of
    everything the author tried on the way (e.g. each LLM reply and why it was rejected)."""

    values: dict[str, float]
    message: str
    author: str
    log: tuple[dict[str, Any], ...] = field(default_factory=tuple)


class Author(Protocol):
    name: str

    def propose(self, request: PhysicsRequest, history: list[Attempt]) -> Proposal:
        """New values for ``request.free_parameters`` given every attempt so far (last = latest)."""
        ...


def objective_vector(report: PredicateReport) -> np.ndarray:
    """Each predicate's signed continuous objective divided by its acceptable scale, (n_predicates,).
    NaN where the simulation was invalid."""
    out = []
    for r in report.results:
        obj = r.details.get("objective", r.residual)
        scale = r.details.get("scale", 1.0) or 1.0
        obj = float(obj) if obj is not None else math.nan
        out.append(obj / float(scale) if math.isfinite(obj) else (math.nan if math.isnan(obj) else math.copysign(1e3, obj)))
    return np.asarray(out, dtype=np.float64)
