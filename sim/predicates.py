"""Typed physics predicates with residuals in units, evaluated on a :class:`~sim.types.Trajectory`.

Each predicate is a pydantic model discriminated by ``kind``. :func:`evaluate` returns a
:class:`~sim.types.PredicateReport`; every :class:`~sim.types.PredicateResult` carries

* ``residual`` (0 when the predicate holds, signed where a direction exists, e.g. -0.40 m = short),
* ``details["objective"]``: a signed, continuous error a numeric author can drive to zero (for regions:
  the offset from the region's centre), and ``details["scale"]``: the size of an acceptable error in the
  same unit (half the tolerance), so objectives of different units can be combined.

A simulation that blew up (``traj.status != "ok"``) fails every predicate with that reason; the numbers
measured on the valid part (held after the blow-up) stay in the result for authors.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.camera import out_of_frame_px, project, projected_radius_px
from sim.engine import tilt_deg
from sim.types import ContactEvent, PredicateReport, PredicateResult, SceneSpec, Trajectory, Window

Range = tuple[float, float]


class _Predicate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = Field(None, description="label in reports; default '<kind>:<object>'")

    @property
    def label(self) -> str:
        obj = getattr(self, "object", None)
        return self.name or (f"{self.kind}:{obj}" if obj else self.kind)


def _check_range(name: str, r: Range | None) -> None:
    if r is None:
        return
    if not all(math.isfinite(v) for v in r):
        raise ValueError(f"{name} must be finite, got {r}")
    if r[0] > r[1]:
        raise ValueError(f"{name} is inverted: low {r[0]} > high {r[1]}")


class LandsInRegion(_Predicate):
    """The object's first ground contact lies in ``x_range_m`` (and ``y_range_m`` if given).

    The landing point is where the object's centre crosses floor height + radius, by free flight from the
    last physics step before its first floor contact (continuous in the launch parameters, unlike the
    contact step itself). If it hit a wall first, the landing is *extrapolated*: where free flight from the state
    just before that hit would have reached the floor. So the residual stays continuous as a throw starts
    clipping the wall: a landing after a wall hit is an overshoot, never a pass."""

    kind: Literal["lands_in_region"] = "lands_in_region"
    object: str
    x_range_m: Range | None = None
    y_range_m: Range | None = None

    @model_validator(mode="after")
    def _check(self):
        if self.x_range_m is None and self.y_range_m is None:
            raise ValueError("give x_range_m and/or y_range_m")
        _check_range("x_range_m", self.x_range_m)
        _check_range("y_range_m", self.y_range_m)
        return self


class FirstContactBefore(_Predicate):
    """The object's first contact (with ``with_body`` if given, else with anything) starts by ``time_s``."""

    kind: Literal["first_contact_before"] = "first_contact_before"
    object: str
    time_s: Annotated[float, Field(ge=0)]
    with_body: str | None = None


class Bounces(_Predicate):
    """The object bounces ``n`` times off bodies of ``surface_kind`` (static kind, e.g. floor, wall) or off
    the body named ``surface``. A bounce is a contact event whose impulse changes the object's velocity by
    at least ``min_speed_change_mps`` (ignores contact flicker while rolling)."""

    kind: Literal["bounces"] = "bounces"
    object: str
    n: Annotated[int, Field(ge=0)]
    surface_kind: Literal["floor", "wall", "ramp", "block"] | None = "floor"
    surface: str | None = None
    min_speed_change_mps: Annotated[float, Field(ge=0)] = 0.3


class HitsBefore(_Predicate):
    """The object touches ``first`` before it touches ``second`` (body names: statics or objects)."""

    kind: Literal["hits_before"] = "hits_before"
    object: str
    first: str
    second: str


class FallInOrder(_Predicate):
    """Each of ``objects`` falls (tilt beyond 45 deg, window ``<name>/fall``) strictly after the previous one.
    Empty ``objects`` means every box in the scene, in spec order."""

    kind: Literal["fall_in_order"] = "fall_in_order"
    objects: tuple[str, ...] = ()


class StaysInFrame(_Predicate):
    """Every frame shows the whole bounding sphere of each object (``objects``; empty = all) inside the
    image inset by ``margin_px`` (pinhole projection through the spec's camera)."""

    kind: Literal["stays_in_frame"] = "stays_in_frame"
    objects: tuple[str, ...] = ()
    margin_px: Annotated[float, Field(ge=0)] = 0.0


class ComesToRest(_Predicate):
    """The object is at rest (window ``<object>/rest``) from ``by_time_s`` (default: by the end of the clip)."""

    kind: Literal["comes_to_rest"] = "comes_to_rest"
    object: str
    by_time_s: Annotated[float, Field(ge=0)] | None = None


Predicate = Annotated[Union[LandsInRegion, FirstContactBefore, Bounces, HitsBefore, FallInOrder, StaysInFrame,
                            ComesToRest], Field(discriminator="kind")]


# --------------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------------


def _result(p: _Predicate, holds: bool, residual: float, unit: str, message: str, *, objective: float | None = None,
            scale: float = 1.0, window: Window | None = None, **details) -> PredicateResult:
    details = {"objective": residual if objective is None else objective, "scale": scale, **details}
    details = {k: (float(v) if isinstance(v, (np.floating, float)) else v) for k, v in details.items()}
    return PredicateResult(name=p.label, kind=p.kind, holds=bool(holds), residual=float(residual), unit=unit,
                           message=message, window=window, details=details)


def _contacts_of(traj: Trajectory, obj: str) -> list[tuple[ContactEvent, str]]:
    """Contact events involving ``obj`` with the other body's name, in time order."""
    out = []
    for c in traj.contacts:
        if c.body_a == obj:
            out.append((c, c.body_b))
        elif c.body_b == obj:
            out.append((c, c.body_a))
    return out


def floor_top_z(spec: SceneSpec) -> float:
    floors = [s for s in spec.statics if s.kind == "floor"]
    if not floors:
        return 0.0
    return max(s.position_m[2] + s.half_extents_m[2] for s in floors)


def _step_index(traj: Trajectory, time_s: float) -> int:
    return int(np.argmin(np.abs(traj.physics_t_s - time_s)))


def free_flight_landing(p0: np.ndarray, v0: np.ndarray, g: np.ndarray, z_land: float) -> np.ndarray | None:
    """Where free flight from (p0, v0) under gravity g (only z used) next reaches height z_land."""
    a, b, c = 0.5 * g[2], v0[2], p0[2] - z_land
    if abs(a) < 1e-12:
        if abs(b) < 1e-12:
            return None
        t = -c / b
    else:
        disc = b * b - 4 * a * c
        if disc < 0:
            return None
        roots = [(-b + s * math.sqrt(disc)) / (2 * a) for s in (1, -1)]
        future = [r for r in roots if r >= 0]
        if not future:
            return None
        t = min(future)
    return p0 + v0 * t + 0.5 * g * t * t


def landing_point(spec: SceneSpec, traj: Trajectory, obj: str) -> tuple[np.ndarray | None, dict]:
    """The object's landing centre (m) and how it was found (see :class:`LandsInRegion`)."""
    k = traj.index(obj)
    P = traj.physics_position_m[k]
    dt = float(traj.physics_t_s[1] - traj.physics_t_s[0]) if len(traj.physics_t_s) > 1 else 1.0
    statics = {s.name: s for s in spec.statics}
    floors = {n for n, s in statics.items() if s.kind == "floor"}
    radius = spec.object(obj).bounding_radius_m if spec.object(obj).shape != "sphere" else spec.object(obj).size_m[0]
    z_land = floor_top_z(spec) + radius
    g = np.asarray(spec.gravity_mps2, dtype=np.float64)
    first_floor = next((c for c, other in _contacts_of(traj, obj) if other in floors), None)
    # A wall hit before the first floor contact diverts the throw: extrapolate from just before it.
    walls = {n for n, s in statics.items() if s.kind == "wall"}
    divert = next((c for c, other in _contacts_of(traj, obj)
                   if other in walls and (first_floor is None or c.time_s < first_floor.time_s)), None)
    if divert is not None and divert.time_s > 1.5 * dt:  # a body resting against a wall is not diverted
        i = max(_step_index(traj, divert.time_s) - 1, 1)
        v = (P[i] - P[i - 1]) / dt
        point = free_flight_landing(P[i], v, g, z_land)
        return point, {"diverted_by": divert.body_b if divert.body_a == obj else divert.body_a,
                       "diverted_at_s": divert.time_s, "diverted_x_m": float(P[i, 0]), "diverted_z_m": float(P[i, 2])}
    if first_floor is not None:
        i = _step_index(traj, first_floor.time_s)
        if i >= 2:
            # Free flight from the last step before the contact to the exact crossing of z_land: continuous
            # in the launch parameters (the contact step itself is quantised to 1/physics_hz).
            point = free_flight_landing(P[i - 1], (P[i - 1] - P[i - 2]) / dt, g, z_land)
            if point is not None:
                return point, {"landed_at_s": first_floor.time_s}
        return P[i].copy(), {"landed_at_s": first_floor.time_s}
    # Never landed within the clip: extrapolate free flight from the last state.
    if len(P) >= 2:
        v = (P[-1] - P[-2]) / dt
        point = free_flight_landing(P[-1], v, g, z_land)
        return point, {"extrapolated_from_s": float(traj.physics_t_s[-1])}
    return None, {}


def _range_offset(value: float, r: Range) -> float:
    """Signed distance from the range (negative below, positive above, 0 inside)."""
    if value < r[0]:
        return value - r[0]
    if value > r[1]:
        return value - r[1]
    return 0.0


def _eval_lands(p: LandsInRegion, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    point, how = landing_point(spec, traj, p.object)
    if point is None:
        return _result(p, False, math.inf, "m", f"{p.object} never reaches the floor", objective=math.inf, **how)
    axes = [(ax, r, i) for ax, r, i in (("x", p.x_range_m, 0), ("y", p.y_range_m, 1)) if r is not None]
    offsets = {ax: _range_offset(float(point[i]), r) for ax, r, i in axes}
    centre_err = {ax: float(point[i]) - (r[0] + r[1]) / 2 for ax, r, i in axes}
    ax0, r0, _ = axes[0]
    diverted = "diverted_by" in how
    holds = all(o == 0.0 for o in offsets.values()) and not diverted
    residual = offsets[ax0] if offsets[ax0] != 0.0 or not diverted else centre_err[ax0]
    scale = max((r0[1] - r0[0]) / 2, 1e-6)
    verb = "would have landed" if diverted else "landed"
    parts = []
    for ax, off in offsets.items():
        at = f"(at {ax}={point['xy'.index(ax)]:.3f} m)"
        if off < 0:
            parts.append(f"{verb} {abs(off):.2f} m short of the target in {ax} {at}")
        elif off > 0:
            parts.append(f"{verb} {off:.2f} m past the target in {ax} {at}")
        elif diverted:
            parts.append(f"{verb} in the target region in {ax} {at}")
    if diverted:
        parts.insert(0, f"hit the {how['diverted_by']} first (at t={how['diverted_at_s']:.2f} s, "
                        f"z={how['diverted_z_m']:.2f} m), counted as an overshoot")
    message = "; ".join(parts) if parts else f"landed in the target region at x={point[0]:.3f} m"
    when = how.get("diverted_at_s", how.get("landed_at_s"))
    window = None if when is None else Window(start_s=when, end_s=when)
    return _result(p, holds, residual, "m", message, objective=centre_err[ax0], scale=scale, window=window,
                   landing_x_m=float(point[0]), landing_y_m=float(point[1]),
                   **{k: v for k, v in how.items() if not isinstance(v, (list, tuple))})


def _eval_first_contact(p: FirstContactBefore, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    contacts = [(c, o) for c, o in _contacts_of(traj, p.object) if p.with_body is None or o == p.with_body]
    what = p.with_body or "anything"
    if not contacts:
        late = traj.physics_t_s[-1] - p.time_s
        return _result(p, False, float(late), "s", f"{p.object} never touches {what} (needed by t={p.time_s:.2f} s)",
                       scale=0.05)
    c, other = contacts[0]
    err = c.time_s - p.time_s
    holds = err <= 0
    msg = (f"first touched {other} at t={c.time_s:.3f} s, {'before' if holds else 'after'} "
           f"the deadline t={p.time_s:.2f} s" + ("" if holds else f" ({err:.2f} s late)"))
    return _result(p, holds, max(err, 0.0), "s", msg, objective=err if not holds else 0.0, scale=0.05,
                   window=Window(start_s=c.time_s, end_s=c.time_s), contact_time_s=c.time_s)


def _eval_bounces(p: Bounces, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    kinds = {s.name: s.kind for s in spec.statics}
    mass = spec.object(p.object).mass_kg
    hits = [c for c, other in _contacts_of(traj, p.object)
            if (p.surface is not None and other == p.surface)
            or (p.surface is None and p.surface_kind is not None and kinds.get(other) == p.surface_kind)
            or (p.surface is None and p.surface_kind is None)]
    bounces = [c for c in hits if c.impulse_ns / mass >= p.min_speed_change_mps]
    count = len(bounces)
    where = p.surface or p.surface_kind or "anything"
    err = count - p.n
    msg = f"bounced {count} time(s) off the {where} (wanted {p.n})"
    if bounces:
        msg += f" at t={', '.join(f'{c.time_s:.2f}' for c in bounces[:6])} s"
    window = Window(start_s=bounces[0].time_s, end_s=bounces[-1].time_s) if bounces else None
    return _result(p, err == 0, float(err), "bounces", msg, scale=0.5, window=window, count=count)


def _eval_hits_before(p: HitsBefore, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    contacts = _contacts_of(traj, p.object)
    t_first = next((c.time_s for c, o in contacts if o == p.first), None)
    t_second = next((c.time_s for c, o in contacts if o == p.second), None)
    end = float(traj.physics_t_s[-1])
    if t_first is None:
        # Missing the first body is worse the earlier the second one is hit.
        err = end - (t_second if t_second is not None else end) + 1e-3
        return _result(p, False, err, "s", f"{p.object} never hit the {p.first}"
                       + (f"; hit the {p.second} at t={t_second:.2f} s" if t_second is not None else ""), scale=0.05)
    if t_second is None:
        return _result(p, True, 0.0, "s", f"hit the {p.first} at t={t_first:.2f} s and never the {p.second}",
                       objective=0.0, scale=0.05, window=Window(start_s=t_first, end_s=t_first))
    err = t_first - t_second
    holds = err < 0
    msg = (f"hit the {p.first} at t={t_first:.2f} s, {'before' if holds else 'after'} the {p.second} "
           f"at t={t_second:.2f} s")
    return _result(p, holds, max(err, 0.0), "s", msg, objective=err if not holds else 0.0, scale=0.05,
                   window=Window(start_s=min(t_first, t_second), end_s=max(t_first, t_second)))


def _eval_fall(p: FallInOrder, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    names = list(p.objects) or [o.name for o in spec.objects if o.shape == "box"]
    if not names:
        return _result(p, False, 1.0, "objects", "no boxes in the scene to fall", scale=0.5)
    times = {n: (traj.windows[f"{n}/fall"].end_s if f"{n}/fall" in traj.windows else None) for n in names}
    problems = [f"{n} did not fall" for n, t in times.items() if t is None]
    bad = len(problems)
    for a, b in zip(names, names[1:]):
        ta, tb = times[a], times[b]
        if ta is not None and tb is not None and not tb > ta:
            problems.append(f"{b} fell at t={tb:.2f} s, not after {a} (t={ta:.2f} s)")
            bad += 1
    fallen = [t for t in times.values() if t is not None]
    window = Window(start_s=min(fallen), end_s=max(fallen)) if fallen else None
    standing = [n for n, t in times.items() if t is None]
    if len(standing) > 3:
        problems = [f"{len(standing)} of {len(names)} did not fall ({', '.join(standing[:3])}, ...)"] + \
            problems[len(standing):]
    msg = "; ".join(problems) if problems else (
        f"all {len(names)} fell in order between t={window.start_s:.2f} s and t={window.end_s:.2f} s")
    # Continuous objective for authors: the count of failures, less how far the first standing domino got
    # towards falling (its largest tilt as a fraction of 45 deg, below 1).
    objective = float(bad)
    if standing:
        tilt = float(np.max(tilt_deg(traj.orientation_xyzw[traj.index(standing[0])])))
        objective -= min(tilt / 45.0, 0.99)
    return _result(p, bad == 0, float(bad), "objects", msg, objective=objective, scale=0.5, window=window,
                   fallen=len(fallen), total=len(names))


def _eval_frame(p: StaysInFrame, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    names = list(p.objects) or list(traj.object_names)
    worst, worst_name, worst_t = 0.0, None, None
    for n in names:
        k = traj.index(n)
        uv, depth = project(spec.camera, traj.position_m[k])
        rad = projected_radius_px(spec.camera, spec.object(n).bounding_radius_m, depth)
        out = out_of_frame_px(spec.camera, uv, rad, p.margin_px)
        i = int(np.argmax(out))
        if out[i] > worst:
            worst, worst_name, worst_t = float(out[i]), n, float(traj.t_s[i])
    if worst_name is None:
        return _result(p, True, 0.0, "px", f"{', '.join(names)} stay(s) in frame", scale=10.0)
    msg = (f"{worst_name} leaves the frame by {worst:.0f} px at t={worst_t:.2f} s" if math.isfinite(worst)
           else f"{worst_name} goes behind the camera at t={worst_t:.2f} s")
    return _result(p, False, worst, "px", msg, scale=10.0, object_out=worst_name, time_s=worst_t)


def _eval_rest(p: ComesToRest, spec: SceneSpec, traj: Trajectory) -> PredicateResult:
    w = traj.windows.get(f"{p.object}/rest")
    deadline = float(traj.physics_t_s[-1]) if p.by_time_s is None else p.by_time_s
    if w is None:
        k = traj.index(p.object)
        speed = float(np.linalg.norm(traj.linear_velocity_mps[k, -1]))
        return _result(p, False, float(traj.physics_t_s[-1]) - deadline + 0.5, "s",
                       f"{p.object} is still moving at the end of the clip ({speed:.2f} m/s)", scale=0.1,
                       final_speed_mps=speed)
    err = w.start_s - deadline
    holds = err <= 0
    msg = f"{p.object} at rest from t={w.start_s:.2f} s" + ("" if holds else f" ({err:.2f} s after t={deadline:.2f} s)")
    return _result(p, holds, max(err, 0.0), "s", msg, objective=err if not holds else 0.0, scale=0.1, window=w)


_EVALUATORS = {
    "lands_in_region": _eval_lands,
    "first_contact_before": _eval_first_contact,
    "bounces": _eval_bounces,
    "hits_before": _eval_hits_before,
    "fall_in_order": _eval_fall,
    "stays_in_frame": _eval_frame,
    "comes_to_rest": _eval_rest,
}


def check_names(predicates, spec: SceneSpec) -> list[str]:
    """Problems with the body names predicates refer to (unknown objects or bodies)."""
    objects = {o.name for o in spec.objects}
    bodies = objects | {s.name for s in spec.statics}
    problems = []
    for i, p in enumerate(predicates):
        for field in ("object",):
            name = getattr(p, field, None)
            if name is not None and name not in objects:
                problems.append(f"predicates.{i}.{field}: no object named {name!r} (objects: {sorted(objects)})")
        for field in ("first", "second", "with_body", "surface"):
            name = getattr(p, field, None)
            if name is not None and name not in bodies:
                problems.append(f"predicates.{i}.{field}: no body named {name!r} (bodies: {sorted(bodies)})")
        for name in getattr(p, "objects", ()) or ():
            if name not in objects:
                problems.append(f"predicates.{i}.objects: no object named {name!r} (objects: {sorted(objects)})")
    return problems


def evaluate(predicates, spec: SceneSpec, traj: Trajectory) -> PredicateReport:
    """Evaluate every predicate on ``traj`` (simulated from ``spec``)."""
    results = []
    for p in predicates:
        if traj.ok:
            results.append(_EVALUATORS[p.kind](p, spec, traj))
            continue
        # The predicate fails with the simulation's reason. What happened before the blow-up (e.g. where
        # the ball landed before it rolled off the world) still informs an author: keep its numbers.
        try:
            inner = _EVALUATORS[p.kind](p, spec, traj)
        except (ValueError, IndexError, FloatingPointError):
            inner = None
        if inner is None:
            results.append(_result(p, False, math.nan, "", f"simulation invalid: {traj.status}", objective=math.nan))
        else:
            results.append(inner.model_copy(update={
                "holds": False, "message": f"simulation invalid: {traj.status}; before that: {inner.message}"}))
    return PredicateReport(results=tuple(results), trajectory_status=traj.status)
