"""The offline numeric author: SciPy over the request's free parameters, driven by the predicates' residuals.

Each predicate result carries a signed continuous objective (``details["objective"]``, e.g. landing offset
from the target centre in m) and a scale (half its tolerance). The author works in normalised parameters
``u = (value - low) / (high - low)`` in [0, 1]:

1. **Model step** (physics-informed): for predicates a free-flight model can predict (where a thrown body
   lands), it solves ``model(u) + offset = 0`` with ``scipy.optimize.least_squares`` inside the bounds, where
   ``offset = measured - model`` at the last solve absorbs what the model misses (integration error,
   contact detection). A small pull towards the last ``u`` picks the smallest change when there are more
   parameters than constraints. A throw that hit the wall first is measured by where it would have landed
   (see ``LandsInRegion``), so the model holds there too and one step jumps back to the target.
2. **Secant step** for everything else: a Jacobian fitted by least squares to the solves so far
   (``numpy.linalg.lstsq``), then a bounded linear step (``scipy.optimize.lsq_linear``); with a single solve,
   a probe of ``probe_step`` along the first parameter.
An invalid simulation (NaN, left the world) steps halfway back towards the best valid solve.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares, lsq_linear

from sim.authors.base import Attempt, Proposal, objective_vector
from sim.predicates import LandsInRegion, floor_top_z, free_flight_landing
from sim.request import PhysicsRequest
from veriphy.errors import UserError
from sim.types import SceneSpec


def model_objectives(request: PhysicsRequest, spec: SceneSpec, flying: set[str]) -> np.ndarray:
    """Free-flight predictions of each predicate's scaled objective, NaN where the model says nothing.

    Only ``lands_in_region`` for a body in ``flying`` (airborne from the start in the last solve) is
    modelled: the landing is where its centre, in free flight from its initial state, reaches floor
    height + radius."""
    out = np.full(len(request.predicates), np.nan)
    g = np.asarray(spec.gravity_mps2, dtype=np.float64)
    for i, p in enumerate(request.predicates):
        if not isinstance(p, LandsInRegion) or p.object not in flying:
            continue
        obj = spec.object(p.object)
        radius = obj.size_m[0] if obj.shape == "sphere" else obj.bounding_radius_m
        z_land = floor_top_z(spec) + radius
        p0 = np.asarray(obj.position_m, dtype=np.float64)
        if p0[2] <= z_land + 1e-3:
            continue
        point = free_flight_landing(p0, np.asarray(obj.linear_velocity_mps, dtype=np.float64), g, z_land)
        if point is None:
            continue
        ax, r = ("x", p.x_range_m) if p.x_range_m is not None else ("y", p.y_range_m)
        scale = max((r[1] - r[0]) / 2, 1e-6)
        out[i] = (point["xy".index(ax)] - (r[0] + r[1]) / 2) / scale
    return out


class NumericAuthor:
    """See the module docstring. ``regularization`` weighs the pull towards the last parameters (in
    normalised units) against the scaled objectives; ``fd_step`` is the model's finite-difference step."""

    def __init__(self, regularization: float = 1e-3, fd_step: float = 1e-5, probe_step: float = 0.1,
                 use_model: bool = True, name: str = "numeric"):
        self.regularization = float(regularization)
        self.fd_step = float(fd_step)
        self.probe_step = float(probe_step)
        self.use_model = bool(use_model)
        self.name = name

    # -- parameter space ---------------------------------------------------------------------------
    @staticmethod
    def _bounds(request: PhysicsRequest) -> tuple[np.ndarray, np.ndarray]:
        lo = np.array([p.low for p in request.free_parameters], dtype=np.float64)
        hi = np.array([p.high for p in request.free_parameters], dtype=np.float64)
        return lo, hi

    def _to_u(self, request, values: dict[str, float]) -> np.ndarray:
        lo, hi = self._bounds(request)
        x = np.array([values[p.name] for p in request.free_parameters], dtype=np.float64)
        return (x - lo) / (hi - lo)

    def _to_values(self, request, u: np.ndarray) -> dict[str, float]:
        lo, hi = self._bounds(request)
        x = lo + np.clip(u, 0.0, 1.0) * (hi - lo)
        return {p.name: float(v) for p, v in zip(request.free_parameters, x)}

    def _model(self, request, u: np.ndarray, flying: set[str]) -> np.ndarray:
        try:
            return model_objectives(request, request.build_spec(self._to_values(request, u)), flying)
        except (UserError, ValueError):
            return np.full(len(request.predicates), np.nan)

    # -- steps ---------------------------------------------------------------------------------------
    def propose(self, request: PhysicsRequest, history: list[Attempt]) -> Proposal:
        if not request.free_parameters:
            return Proposal(values={}, message="no free parameters to revise", author=self.name)
        last = history[-1]
        u_k = self._to_u(request, last.values)
        r_k = objective_vector(last.report)
        valid = [(self._to_u(request, a.values), objective_vector(a.report)) for a in history
                 if np.all(np.isfinite(objective_vector(a.report)))]

        if not np.all(np.isfinite(r_k)):
            if valid:
                best_u = min(valid, key=lambda ur: float(np.linalg.norm(ur[1])))[0]
                u_new = (u_k + best_u) / 2
                why = "the last simulation was invalid; stepping halfway back to the best valid solve"
            else:
                u_new = (u_k + 0.5) / 2
                why = "the last simulation was invalid; stepping halfway towards the middle of the bounds"
            return self._proposal(request, last.values, u_new, why)

        # The model only speaks for bodies that flew freely from the start; and once a step guided by it
        # made things worse, the measured solves (secant) take over.
        flying = {name for name in last.trajectory.object_names
                  if (w := last.trajectory.windows.get(f"{name}/airborne")) is not None and w.start_s == 0.0}
        worse = len(valid) >= 2 and np.linalg.norm(valid[-1][1]) > np.linalg.norm(valid[-2][1])
        if self.use_model and not worse:
            step = self._model_step(request, u_k, r_k, flying)
            if step is not None:
                return self._proposal(request, last.values, *step)
        return self._proposal(request, last.values, *self._secant_step(u_k, r_k, valid))

    def _model_step(self, request, u_k: np.ndarray, r_k: np.ndarray, flying: set[str]
                    ) -> tuple[np.ndarray, str] | None:
        m_k = self._model(request, u_k, flying)
        rows = np.isfinite(m_k)
        if not rows.any():
            return None
        offset = r_k[rows] - m_k[rows]
        n = len(u_k)
        jac = np.zeros((int(rows.sum()), n))
        for j in range(n):
            du = np.zeros(n)
            du[j] = self.fd_step if u_k[j] + self.fd_step <= 1 else -self.fd_step
            jac[:, j] = (self._model(request, u_k + du, flying)[rows] - m_k[rows]) / du[j]
        if not np.all(np.isfinite(jac)) or np.linalg.norm(jac) < 1e-9:
            return None
        weight = math.sqrt(self.regularization)

        def fun(u):
            m = self._model(request, u, flying)[rows]
            m = np.where(np.isfinite(m), m, 1e3)
            return np.concatenate([m + offset, weight * (u - u_k)])

        sol = least_squares(fun, u_k, bounds=(np.zeros(n), np.ones(n)), xtol=1e-12, ftol=1e-12, gtol=1e-12)
        if np.linalg.norm(sol.x - u_k) < 1e-9:
            return None
        predicted = self._model(request, sol.x, flying)[rows] + offset
        why = (f"free-flight model step (model offset from the last solve {offset.round(3).tolist()} scaled units); "
               f"predicted scaled objectives {predicted.round(3).tolist()}")
        return sol.x, why

    def _secant_step(self, u_k: np.ndarray, r_k: np.ndarray, valid) -> tuple[np.ndarray, str]:
        n = len(u_k)
        if len(valid) >= 2:
            # Jacobian fitted to the differences between the last solve and the earlier ones.
            du = np.array([u - u_k for u, _ in valid[-(n + 2):] if np.linalg.norm(u - u_k) > 1e-12])
            dr = np.array([r - r_k for u, r in valid[-(n + 2):] if np.linalg.norm(u - u_k) > 1e-12])
            if len(du):
                jac = np.linalg.lstsq(du, dr, rcond=None)[0].T  # (m, n)
                if np.linalg.norm(jac) > 1e-9:
                    w = math.sqrt(self.regularization)
                    a = np.vstack([jac, w * np.eye(n)])
                    b = np.concatenate([-r_k, np.zeros(n)])
                    sol = lsq_linear(a, b, bounds=(-u_k, 1 - u_k))
                    return u_k + sol.x, "secant step on the measured objectives"
        direction = np.zeros(n)
        direction[0] = self.probe_step if u_k[0] + self.probe_step <= 1 else -self.probe_step
        return u_k + direction, f"probe step of {self.probe_step:g} of the range in the first parameter"

    def _proposal(self, request, old: dict[str, float], u_new: np.ndarray, why: str) -> Proposal:
        values = request.clip(self._to_values(request, u_new))
        changes = ", ".join(f"{k} {old[k]:.4g} -> {v:.4g}" for k, v in values.items() if abs(v - old[k]) > 0)
        return Proposal(values=values, message=f"{changes or 'no change'} ({why})", author=self.name)
