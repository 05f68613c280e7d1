"""Solve a :class:`~sim.types.SceneSpec` with PyBullet.

Every simulation gets its own ``BulletClient`` in ``DIRECT`` mode (no global simulator state, no GUI), a
fixed time step (``spec.physics_hz``, 240 Hz by default), a fixed solver iteration count and deterministic
overlapping pairs, so the same spec gives a byte-identical :class:`~sim.types.Trajectory`.

Sampling: the state is recorded at every physics step (for contact-precise predicates) and at every clip
frame ``k`` at ``t = k / fps`` (the nearest physics step; exact when ``physics_hz / fps`` is an integer,
e.g. 240 / 16 = 15).

Contacts: after every step ``getContactPoints`` is read. Bullet finds contact points on the positions
before a step's integration, so geometric contacts are stamped one step back (at the step the bodies met)
and contacts the solver acted on within the step (with a normal force) at that step. A contact *event* is
the first step of a contact episode between two named bodies, with the normal impulse (N*s) summed over
its first ``impulse_steps`` steps.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys

from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from veriphy.hashing import sha256_json
from sim.types import ContactEvent, ObjectSpec, SceneSpec, StaticSpec, Trajectory, Window, require_unique


class EngineSettings(BaseModel):
    """Engine settings that are not part of a scene (the ``sim`` config group). Defaults are the tested ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Fixed for determinism (docs/architecture.md §11); more iterations than Bullet's default 50 cost little here.
    solver_iterations: Annotated[int, Field(ge=1, le=1000)] = 100
    # A contact point counts when it carries a normal force or its signed distance is at most this (m):
    # Bullet also reports force-free points a little before touching (within its contact margin).
    contact_distance_m: Annotated[float, Field(ge=0)] = 1e-3
    # An object "leaves the world" beyond these bounds (m); the simulation stops there with that status.
    world_half_extent_m: Annotated[float, Field(gt=0)] = 100.0
    world_min_z_m: float = -5.0
    max_speed_mps: Annotated[float, Field(gt=0)] = 1000.0
    # Rest: linear and angular speed below these from some time until the end of the clip.
    rest_linear_mps: Annotated[float, Field(gt=0)] = 0.02
    rest_angular_radps: Annotated[float, Field(gt=0)] = 0.2
    # Upright boxes (dominoes): fall onset and fall time are the first times the up axis tilts beyond these.
    fall_onset_deg: Annotated[float, Field(gt=0, lt=90)] = 5.0
    fall_tilt_deg: Annotated[float, Field(gt=0, lt=90)] = 45.0
    # A contact event's impulse sums the normal impulses over its first few steps (a bounce takes 1-3).
    impulse_steps: Annotated[int, Field(ge=1)] = 3
    # Airborne: the first contact-free run of at least this many physics steps (ignores contact flicker).
    min_airborne_steps: Annotated[int, Field(ge=1)] = 3


DEFAULT_SETTINGS = EngineSettings()


def spec_sha256(spec: SceneSpec) -> str:
    """Hash of the spec's canonical JSON (sorted keys) - recorded in every artifact derived from it."""
    return sha256_json(spec.model_dump(mode="json"))


def _libc_fflush() -> None:
    """Flush C stdio buffers (PyBullet prints with printf, buffered when stdout is a pipe)."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # pragma: no cover - no libc symbol table
        pass


@contextlib.contextmanager
def _quiet_stdout():
    """PyBullet's C code prints ``argv[0]=`` on connect; keep stdout (e.g. JSON piped by a CLI) clean."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # stdout replaced by an object without a descriptor
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
        yield
    finally:
        _libc_fflush()
        os.dup2(saved, fd)
        os.close(saved)


@contextlib.contextmanager
def _quiet_stderr():
    """The pybullet import prints its build time on stderr (C level); keep the CLIs' logs clean."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # pragma: no cover - no descriptor 2
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        _libc_fflush()
        os.dup2(saved, 2)
        os.close(saved)


with _quiet_stdout(), _quiet_stderr():  # the import prints its build time
    import pybullet
    from pybullet_utils.bullet_client import BulletClient


def new_client() -> BulletClient:
    """A private headless PyBullet client (gravity, time step and solver settings are set by ``load_scene``)."""
    with _quiet_stdout():
        return BulletClient(connection_mode=pybullet.DIRECT)


def _configure(client: BulletClient, spec: SceneSpec, settings: EngineSettings) -> None:
    client.resetSimulation()
    client.setGravity(*spec.gravity_mps2)
    dt = 1.0 / spec.physics_hz
    client.setTimeStep(dt)
    client.setPhysicsEngineParameter(fixedTimeStep=dt, numSubSteps=0, numSolverIterations=settings.solver_iterations,
                                     deterministicOverlappingPairs=1)


def _collision_shape(client: BulletClient, obj: ObjectSpec) -> tuple[int, int]:
    """Collision and visual shape ids for a dynamic object (shape-specific sizes, see ``ObjectSpec``)."""
    if obj.shape == "sphere":
        col = client.createCollisionShape(pybullet.GEOM_SPHERE, radius=obj.size_m[0])
        vis = client.createVisualShape(pybullet.GEOM_SPHERE, radius=obj.size_m[0], rgbaColor=obj.color_rgba)
    elif obj.shape == "box":
        col = client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=obj.size_m)
        vis = client.createVisualShape(pybullet.GEOM_BOX, halfExtents=obj.size_m, rgbaColor=obj.color_rgba)
    else:
        radius, height = obj.size_m
        col = client.createCollisionShape(pybullet.GEOM_CYLINDER, radius=radius, height=height)
        vis = client.createVisualShape(pybullet.GEOM_CYLINDER, radius=radius, length=height,
                                       rgbaColor=obj.color_rgba)
    return col, vis


def _load_static(client: BulletClient, st: StaticSpec) -> int:
    col = client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=st.half_extents_m) if st.collides else -1
    vis = (client.createVisualShape(pybullet.GEOM_BOX, halfExtents=st.half_extents_m, rgbaColor=st.color_rgba)
           if st.visible else -1)
    body = client.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=col, baseVisualShapeIndex=vis,
                                  basePosition=st.position_m, baseOrientation=st.orientation_xyzw)
    # Bullet combines rolling friction as a.rolling * b.lateral + b.rolling * a.lateral: a floor with rolling
    # friction stops balls that roll on it without slowing them on a frictionless-rolling ramp.
    client.changeDynamics(body, -1, restitution=st.restitution, lateralFriction=st.lateral_friction,
                          rollingFriction=st.rolling_friction, spinningFriction=0.0)
    # A mass-0 body keeps any velocity it had (docs/architecture.md §11): make sure statics are still.
    client.resetBaseVelocity(body, (0, 0, 0), (0, 0, 0))
    return body


def _load_object(client: BulletClient, obj: ObjectSpec) -> int:
    col, vis = _collision_shape(client, obj)
    body = client.createMultiBody(baseMass=obj.mass_kg, baseCollisionShapeIndex=col, baseVisualShapeIndex=vis,
                                  basePosition=obj.position_m, baseOrientation=obj.orientation_xyzw)
    # PyBullet defaults to 0.04 linear/angular damping; the spec's values (default 0) replace them.
    client.changeDynamics(body, -1, restitution=obj.restitution, lateralFriction=obj.lateral_friction,
                          rollingFriction=obj.rolling_friction, spinningFriction=obj.spinning_friction,
                          linearDamping=obj.linear_damping, angularDamping=obj.angular_damping)
    client.resetBaseVelocity(body, obj.linear_velocity_mps, obj.angular_velocity_radps)
    return body


def load_scene(client: BulletClient, spec: SceneSpec, settings: EngineSettings = DEFAULT_SETTINGS) -> dict[str, int]:
    """Reset ``client`` and build ``spec`` in it (gravity, time step, statics, objects with their initial
    state). Returns PyBullet body ids by name, statics first, then objects."""
    require_unique([s.name for s in spec.statics] + [o.name for o in spec.objects], "object and static")
    _configure(client, spec, settings)
    body_ids: dict[str, int] = {}
    for st in spec.statics:
        body_ids[st.name] = _load_static(client, st)
    for obj in spec.objects:
        body_ids[obj.name] = _load_object(client, obj)
    return body_ids


def set_object_poses(client: BulletClient, body_ids: dict[str, int], traj: Trajectory, frame_index: int) -> None:
    """Put every object of ``traj`` at its pose of frame ``frame_index`` (for rendering; no stepping)."""
    for k, name in enumerate(traj.object_names):
        client.resetBasePositionAndOrientation(body_ids[name], traj.position_m[k, frame_index].tolist(),
                                               traj.orientation_xyzw[k, frame_index].tolist())


# --------------------------------------------------------------------------------------------------
# Stepping and recording
# --------------------------------------------------------------------------------------------------


def _invalid_reason(name: str, pos, lin, ang, t: float, settings: EngineSettings) -> str | None:
    values = (*pos, *lin, *ang)
    if not all(math.isfinite(v) for v in values):
        return f"nan in state of {name} at t={t:.3f} s"
    if max(abs(pos[0]), abs(pos[1]), abs(pos[2])) > settings.world_half_extent_m or pos[2] < settings.world_min_z_m:
        return f"{name} left the world at t={t:.3f} s (position {pos[0]:.2f}, {pos[1]:.2f}, {pos[2]:.2f} m)"
    if math.hypot(*lin) > settings.max_speed_mps:
        return f"{name} blew up at t={t:.3f} s (speed {math.hypot(*lin):.3g} m/s)"
    return None


def simulate(spec: SceneSpec, *, progress: bool = False, settings: EngineSettings | None = None) -> Trajectory:
    """Simulate ``spec`` for ``(num_frames - 1) / fps`` seconds and return its :class:`Trajectory`.

    Never raises for a scene that blows up: the trajectory's ``status`` says why (NaN state, object left
    the world) and the state from then on repeats the last valid one.
    """
    client = new_client()
    try:
        return _simulate(client, spec, progress=progress, settings=settings or DEFAULT_SETTINGS)
    finally:
        client.disconnect()


def _simulate(client: BulletClient, spec: SceneSpec, *, progress: bool, settings: EngineSettings) -> Trajectory:
    body_ids = load_scene(client, spec, settings)
    name_of = {v: k for k, v in body_ids.items()}
    objects = [o.name for o in spec.objects]
    obj_ids = [body_ids[n] for n in objects]
    dt = 1.0 / spec.physics_hz
    frame_steps = np.array([round(k / spec.fps * spec.physics_hz) for k in range(spec.num_frames)], dtype=np.int64)
    num_steps = int(frame_steps[-1])
    P, K = num_steps + 1, len(objects)
    pos = np.zeros((K, P, 3))
    orn = np.zeros((K, P, 4))
    lin = np.zeros((K, P, 3))
    ang = np.zeros((K, P, 3))
    contacts: list[ContactEvent] = []
    # Per physics step: pairs of named bodies in contact, the normal impulse the solver applied to each pair
    # in that step (N*s), and where geometric contact points lay.
    touching_pairs: list[set[tuple[str, str]]] = [set() for _ in range(P)]
    impulses: list[dict[tuple[str, str], float]] = [{} for _ in range(P)]
    points: list[dict[tuple[str, str], list]] = [{} for _ in range(P)]

    def read_contacts(step: int, geometric_step: int) -> None:
        """Bullet computes contact points on the positions *before* a step's integration, so the points
        read after stepping into ``step`` describe the geometry of ``geometric_step`` (= step - 1).
        A point with a normal force is a contact of ``step`` itself: the solver acted on it within this step
        (speculatively, from up to a few mm away, e.g. a bounce that never shows as overlap)."""
        for cp in get_contacts():
            a, b = name_of.get(cp[1]), name_of.get(cp[2])
            if a is None or b is None or a == b:
                continue
            pair = (a, b) if a < b else (b, a)
            if cp[9] > 0.0 and step >= 1:
                # normalForce is the applied impulse divided by the step (Bullet), so impulse = F * dt.
                impulses[step][pair] = impulses[step].get(pair, 0.0) + cp[9] * dt
                touching_pairs[step].add(pair)
            if cp[8] <= settings.contact_distance_m and geometric_step >= 0:
                touching_pairs[geometric_step].add(pair)
                points[geometric_step].setdefault(pair, []).append(cp[5])

    # BulletClient builds a partial on every attribute access: bind the per-step calls once.
    get_pose, get_velocity = client.getBasePositionAndOrientation, client.getBaseVelocity
    get_contacts, step_simulation = client.getContactPoints, client.stepSimulation

    def record(step: int) -> str | None:
        for k, (name, body) in enumerate(zip(objects, obj_ids)):
            (p, q), (v, w) = get_pose(body), get_velocity(body)
            reason = _invalid_reason(name, p, v, w, step * dt, settings)
            if reason is not None:
                return reason
            pos[k, step], orn[k, step], lin[k, step], ang[k, step] = p, q, v, w
        return None

    status = record(0) or "ok"
    steps = range(1, P)
    if progress:
        from tqdm import tqdm

        steps = tqdm(steps, desc=f"simulate {spec.name}", unit="step", leave=False)
    last_valid = 0
    if status == "ok":
        for step in steps:
            step_simulation()
            reason = record(step)
            if reason is not None:
                status = reason
                break
            last_valid = step
            read_contacts(step, step - 1)
    if status == "ok":
        # The geometry of the last step has not been through a collision pass yet.
        client.performCollisionDetection()
        read_contacts(0, last_valid)

    # Contact events: the first step of each run of steps in which a pair touches.
    for step in range(1, last_valid + 1):
        for pair in sorted(touching_pairs[step] - touching_pairs[step - 1]):
            impulse = sum(impulses[s].get(pair, 0.0) for s in range(step, min(step + settings.impulse_steps,
                                                                               last_valid + 1)))
            where = points[step].get(pair)
            if where is None:  # only the solver saw it (speculative contact): use the object's centre
                k = objects.index(pair[0] if pair[0] in objects else pair[1])
                centre = pos[k, step]
            else:
                centre = np.mean(where, axis=0)
            contacts.append(ContactEvent(time_s=round(step * dt, 9), body_a=pair[0], body_b=pair[1],
                                         impulse_ns=float(impulse), position_m=tuple(float(x) for x in centre)))
    # Per object and step, the names it touches. Step 0's geometry is read after the first step; contacts
    # present at step 0 already are not events (they did not begin during the clip).
    touching = [[frozenset(b if a == name else a for a, b in touching_pairs[step] if name in (a, b))
                 for step in range(P)] for name in objects]
    if last_valid < P - 1:
        # Recording stopped at an invalid state (``status`` says which). Hold the last valid state so arrays
        # stay finite; ``status`` tells consumers not to trust them.
        for arr in (pos, orn, lin, ang):
            arr[:, last_valid + 1:] = arr[:, last_valid:last_valid + 1]
    physics_t = np.arange(P) * dt
    windows = _derive_windows(spec, objects, physics_t, pos, orn, lin, ang, touching, last_valid, settings)
    return Trajectory(
        object_names=tuple(objects),
        t_s=frame_steps * dt,
        position_m=pos[:, frame_steps],
        orientation_xyzw=orn[:, frame_steps],
        linear_velocity_mps=lin[:, frame_steps],
        angular_velocity_radps=ang[:, frame_steps],
        physics_t_s=physics_t,
        physics_position_m=pos,
        contacts=tuple(contacts),
        windows=windows,
        status=status,
        spec_sha256=spec_sha256(spec),
    )


# --------------------------------------------------------------------------------------------------
# Derived windows
# --------------------------------------------------------------------------------------------------


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of True in a 1-D boolean array as inclusive (start, end) index pairs."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1) - 1
    return list(zip(starts.tolist(), ends.tolist()))


def tilt_deg(orientation_xyzw: np.ndarray) -> np.ndarray:
    """Angle (deg) between a body's local z axis and world z, for quaternions (..., 4) in (x, y, z, w)."""
    x, y, z, w = np.moveaxis(np.asarray(orientation_xyzw, dtype=np.float64), -1, 0)
    r22 = 1.0 - 2.0 * (x * x + y * y)
    return np.degrees(np.arccos(np.clip(r22, -1.0, 1.0)))


def _derive_windows(spec: SceneSpec, objects: list[str], t: np.ndarray, pos, orn, lin, ang,
                    touching: list[list[frozenset[str]]], last_valid: int,
                    settings: EngineSettings) -> dict[str, Window]:
    floors = {s.name for s in spec.statics if s.kind == "floor"}
    end_t = float(t[last_valid])
    windows: dict[str, Window] = {}

    def w(a: int, b: int) -> Window:
        return Window(start_s=round(float(t[a]), 9), end_s=round(float(t[b]), 9))

    for k, name in enumerate(objects):
        touch = touching[k][: last_valid + 1]
        in_contact = np.array([bool(s) for s in touch])
        on_floor = np.array([bool(s & floors) for s in touch])

        # Airborne: the first contact-free run long enough not to be contact flicker; it ends at the step
        # before the next contact (or at the end of the clip).
        for a, b in _runs(~in_contact):
            if b - a + 1 >= settings.min_airborne_steps:
                windows[f"{name}/airborne"] = w(a, b)
                break

        # First ground contact: the first contact episode with a floor (start = first touching step).
        floor_runs = _runs(on_floor)
        if floor_runs:
            a, b = floor_runs[0]
            # A body that starts on the floor has no "first ground contact" event.
            if a > 0:
                windows[f"{name}/first_ground_contact"] = w(a, b)

        # Rest: slow from some step until the end of the (valid) clip.
        speed = np.linalg.norm(lin[k, : last_valid + 1], axis=-1)
        spin = np.linalg.norm(ang[k, : last_valid + 1], axis=-1)
        slow = (speed < settings.rest_linear_mps) & (spin < settings.rest_angular_radps)
        if slow[-1]:
            runs = _runs(slow)
            a = runs[-1][0]
            windows[f"{name}/rest"] = Window(start_s=round(float(t[a]), 9), end_s=round(end_t, 9))

        # Fall (boxes standing upright, e.g. dominoes): [onset, time the tilt exceeds 45 deg].
        obj = spec.object(name)
        if obj.shape == "box":
            tilt = tilt_deg(orn[k, : last_valid + 1])
            initial = tilt[0]
            if initial < settings.fall_onset_deg:
                over = np.flatnonzero(tilt > settings.fall_tilt_deg)
                if over.size:
                    onset = np.flatnonzero(tilt > settings.fall_onset_deg)
                    windows[f"{name}/fall"] = w(int(onset[0]), int(over[0]))
                    windows[f"{name}/fallen"] = Window(start_s=round(float(t[over[0]]), 9),
                                                       end_s=round(end_t, 9))
    return dict(sorted(windows.items()))
