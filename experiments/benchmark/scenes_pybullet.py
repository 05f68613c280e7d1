"""Pixels source 1: PyBullet perspective renders (``getCameraImage`` with ``ER_TINY_RENDERER``, Lambert shading and
shadows) of a :class:`~experiments.benchmark.world.World`, with the defects made inside the simulation.

The world is built by ``sim.engine.load_scene`` (same solver settings as the project's simulator); the floor gets
a checker texture and every body its colour. The clip is stepped here, frame by frame, so that a
:class:`~experiments.benchmark.plans.DefectPlan` can act on the simulation: a hover holds the pose with zero
velocity, a pass-through disables a collision pair (``setCollisionFilterPair``), anti-gravity pushes up with more
than the body's weight, a teleport resets the position, no-bounce zeroes the restitution, and so on.
"""

from __future__ import annotations

import math
import os
import tempfile

import cv2
import numpy as np
import pybullet

from experiments.benchmark.clipdata import PALETTE, Impact, ObjectTrack, RenderedClip
from experiments.benchmark.plans import HIDDEN_POSITION_M, DefectPlan
from experiments.benchmark.world import World, radius_of
from sim.engine import load_scene, new_client
from sim.types import ObjectSpec

#: Relative normal speed (m/s) above which a new contact counts as an impact (not resting jitter).
IMPACT_SPEED_MPS = 0.35
LIGHT_DIRECTION = (-1.0, -2.0, 3.0)


def checker_texture(path: str, colors: tuple[str, str], cells: int = 32, cell_px: int = 8) -> None:
    """A ``cells`` x ``cells`` checker PNG of the two palette colours (BGR on disk, as OpenCV writes)."""
    a = np.array(PALETTE[colors[0]]) * 255
    b = np.array(PALETTE[colors[1]]) * 255
    if colors[0] == colors[1]:
        b = a * 0.85
    idx = (np.add.outer(np.arange(cells), np.arange(cells)) % 2).astype(bool)
    img = np.where(idx[..., None], b, a).astype(np.uint8)
    img = np.repeat(np.repeat(img, cell_px, axis=0), cell_px, axis=1)
    cv2.imwrite(path, img[..., ::-1])


class _Camera:
    """Pinhole projection with PyBullet's matrices (column-major 4x4 lists)."""

    def __init__(self, world: World):
        c = world.spec.camera
        self.width, self.height = c.width_px, c.height_px
        self.view = pybullet.computeViewMatrix(c.eye_m, c.target_m, c.up)
        self.proj = pybullet.computeProjectionMatrixFOV(c.fov_deg, c.width_px / c.height_px, c.near_m, c.far_m)
        self.v = np.asarray(self.view, dtype=np.float64).reshape(4, 4).T
        self.p = np.asarray(self.proj, dtype=np.float64).reshape(4, 4).T
        self.focal_px = (c.height_px / 2) / math.tan(math.radians(c.fov_deg) / 2)

    def project(self, xyz: np.ndarray, radius_m: float) -> tuple[np.ndarray, float]:
        if not np.all(np.isfinite(xyz)):
            return np.array([np.nan, np.nan]), math.nan
        cam = self.v @ np.append(xyz, 1.0)
        depth = -cam[2]
        if depth <= 1e-6:
            return np.array([np.nan, np.nan]), math.nan
        clip = self.p @ cam
        ndc = clip[:3] / clip[3]
        return np.array([(ndc[0] + 1) / 2 * self.width, (1 - ndc[1]) / 2 * self.height]), radius_m * self.focal_px / depth


def _shape_ids(client, obj: ObjectSpec, scale: float = 1.0) -> tuple[int, int]:
    size = [s * scale for s in obj.size_m]
    if obj.shape == "sphere":
        return (client.createCollisionShape(pybullet.GEOM_SPHERE, radius=size[0]),
                client.createVisualShape(pybullet.GEOM_SPHERE, radius=size[0], rgbaColor=obj.color_rgba))
    if obj.shape == "box":
        return (client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=size),
                client.createVisualShape(pybullet.GEOM_BOX, halfExtents=size, rgbaColor=obj.color_rgba))
    return (client.createCollisionShape(pybullet.GEOM_CYLINDER, radius=size[0], height=size[1]),
            client.createVisualShape(pybullet.GEOM_CYLINDER, radius=size[0], length=size[1], rgbaColor=obj.color_rgba))


def simulate(world: World, plans: list[DefectPlan], *, render: bool) -> RenderedClip:
    """Step the world with ``plans`` acting on it; record poses (and render) at every frame."""
    spec = world.spec
    client = new_client()
    try:
        return _run(client, world, plans, render)
    finally:
        client.disconnect()


def _run(client, world: World, plans: list[DefectPlan], render: bool) -> RenderedClip:
    spec = world.spec
    T, fps = spec.num_frames, spec.fps
    substeps = int(round(spec.physics_hz / fps))
    ids = load_scene(client, spec)
    names_by_id = {v: k for k, v in ids.items()}
    obj_names = [o.name for o in spec.objects]
    masses = {o.name: o.mass_kg for o in spec.objects}
    gravity = -spec.gravity_mps2[2]
    cam = _Camera(world)
    tmp = tempfile.TemporaryDirectory()
    if render:
        tex_path = os.path.join(tmp.name, "floor.png")
        checker_texture(tex_path, world.floor_colors)
        client.changeVisualShape(ids["floor"], -1, textureUniqueId=client.loadTexture(tex_path),
                                 rgbaColor=(1, 1, 1, 1))

    scale_of = {n: 1.0 for n in obj_names}
    hidden = set()
    held: dict[str, tuple] = {}          # name -> (pos, orn) held this frame
    restore_velocity: dict[str, tuple] = {}
    boosted: set[str] = set()
    pending_boost: dict[str, float] = {}
    reenable: dict[str, tuple[str, float]] = {}
    release_at: dict[str, tuple[str, int]] = {}

    def set_pair(a: str, b: str, enable: bool) -> None:
        client.setCollisionFilterPair(ids[a], ids[b], -1, -1, int(enable))

    for plan in plans:
        if plan.category in ("pass_through_floor", "pass_through_wall", "pass_through_object"):
            set_pair(plan.object, plan.other, False)
        elif plan.category == "penetration_on_contact":
            set_pair(plan.object, plan.other, False)
            reenable[plan.object] = (plan.other, plan.params["overlap_m"])
        elif plan.category == "no_bounce":
            client.changeDynamics(ids[plan.object], -1, restitution=0.0)
        elif plan.category == "appear":
            hidden.add(plan.object)

    pos = np.full((len(obj_names), T, 3), np.nan)
    orn = np.full((len(obj_names), T, 4), np.nan)
    frames = np.zeros((T, cam.height, cam.width, 3), np.uint8) if render else None
    center_px = np.full((len(obj_names), T, 2), np.nan)
    radius_px = np.full((len(obj_names), T), np.nan)
    visible = np.zeros((len(obj_names), T), np.int64)
    impacts: list[Impact] = []
    in_contact: set[tuple[str, str]] = set()

    def end_of(plan: DefectPlan) -> int:
        return T - 1 if plan.end_frame < 0 else plan.end_frame

    for k in range(T):
        # Frame-start edits: they show in frame k.
        for plan in plans:
            name = plan.object
            if plan.category == "teleport" and k == plan.start_frame:
                p, o = client.getBasePositionAndOrientation(ids[name])
                client.resetBasePositionAndOrientation(ids[name], [p[0] + plan.params.get("dx", 0.0), p[1],
                                                                   p[2] + plan.params.get("dz", 0.0)], o)
            elif plan.category == "vanish" and k == plan.start_frame:
                hidden.add(name)
            elif plan.category == "appear" and k == plan.start_frame:
                hidden.discard(name)
                client.resetBasePositionAndOrientation(ids[name], [plan.params["x"], plan.params["y"],
                                                                   plan.params["z"]], (0, 0, 0, 1))
                client.resetBaseVelocity(ids[name], (0, 0, 0), (0, 0, 0))
            elif plan.category == "morph" and k == plan.start_frame:
                p, o = client.getBasePositionAndOrientation(ids[name])
                lin, ang = client.getBaseVelocity(ids[name])
                obj = spec.object(name)
                client.removeBody(ids[name])
                col, vis = _shape_ids(client, obj, plan.params["scale"])
                lift = (plan.params["scale"] - 1.0) * (obj.size_m[0] if obj.shape != "cylinder" else obj.size_m[1] / 2)
                new = client.createMultiBody(obj.mass_kg, col, vis, basePosition=[p[0], p[1], p[2] + max(0.0, lift)],
                                             baseOrientation=o)
                client.changeDynamics(new, -1, restitution=obj.restitution, lateralFriction=obj.lateral_friction,
                                      rollingFriction=obj.rolling_friction, linearDamping=0.0, angularDamping=0.0)
                client.resetBaseVelocity(new, lin, ang)
                del names_by_id[ids[name]]
                ids[name] = new
                names_by_id[new] = name
                scale_of[name] = plan.params["scale"]
            if plan.category in ("hover", "freeze", "unexplained_stop") and k == plan.start_frame:
                targets = obj_names if plan.category == "freeze" else [name]
                for n in targets:
                    p, o = client.getBasePositionAndOrientation(ids[n])
                    held[n] = (p, o)
                    if plan.category == "freeze":
                        restore_velocity[n] = client.getBaseVelocity(ids[n])
            if plan.category in ("hover", "freeze", "unexplained_stop") and k == end_of(plan) + 1:
                targets = obj_names if plan.category == "freeze" else [name]
                for n in targets:
                    held.pop(n, None)
                    lin, ang = restore_velocity.pop(n, ((0, 0, 0), (0, 0, 0)))
                    client.resetBaseVelocity(ids[n], lin, ang)
        for n, (other, frame) in list(release_at.items()):
            if k == frame:
                held.pop(n, None)
                held.pop(other, None)
                set_pair(n, other, True)
                del release_at[n]
        for n in hidden:
            client.resetBasePositionAndOrientation(ids[n], HIDDEN_POSITION_M, (0, 0, 0, 1))
            client.resetBaseVelocity(ids[n], (0, 0, 0), (0, 0, 0))

        # Record (and render) frame k.
        for i, n in enumerate(obj_names):
            if n in hidden:
                continue
            p, o = client.getBasePositionAndOrientation(ids[n])
            pos[i, k], orn[i, k] = p, o
            c, r = cam.project(np.asarray(p), radius_of(spec.object(n).shape, spec.object(n).size_m) * scale_of[n])
            center_px[i, k], radius_px[i, k] = c, r
        if render:
            img = client.getCameraImage(cam.width, cam.height, cam.view, cam.proj, renderer=pybullet.ER_TINY_RENDERER,
                                        shadow=1, lightDirection=LIGHT_DIRECTION)
            frames[k] = np.reshape(np.asarray(img[2], dtype=np.uint8), (cam.height, cam.width, 4))[..., :3]
            seg = np.reshape(np.asarray(img[4]), (cam.height, cam.width))
            for i, n in enumerate(obj_names):
                if n not in hidden:
                    visible[i, k] = int(np.count_nonzero(seg == ids[n]))

        if k == T - 1:
            break
        for s in range(substeps):
            for n, (p, o) in held.items():
                client.resetBasePositionAndOrientation(ids[n], p, o)
                client.resetBaseVelocity(ids[n], (0, 0, 0), (0, 0, 0))
            for n in hidden:
                client.resetBasePositionAndOrientation(ids[n], HIDDEN_POSITION_M, (0, 0, 0, 1))
                client.resetBaseVelocity(ids[n], (0, 0, 0), (0, 0, 0))
            for plan in plans:
                if plan.category in ("anti_gravity", "wrong_acceleration") and plan.start_frame <= k <= end_of(plan):
                    n = plan.object
                    p, _ = client.getBasePositionAndOrientation(ids[n])
                    force = [masses[n] * plan.params.get("ax", 0.0), 0.0, masses[n] * plan.params.get("az", 0.0)]
                    client.applyExternalForce(ids[n], -1, force, p, pybullet.WORLD_FRAME)
            for n, v in list(pending_boost.items()):
                lin, ang = client.getBaseVelocity(ids[n])
                if lin[2] > 0.05:  # the contact has resolved and the body is on its way up
                    client.resetBaseVelocity(ids[n], (lin[0], lin[1], v), ang)
                    del pending_boost[n]
            velocities = {n: np.asarray(client.getBaseVelocity(ids[n])[0]) for n in obj_names}
            client.stepSimulation()
            t_s = (k + (s + 1) / substeps) / fps
            now: set[tuple[str, str]] = set()
            for n in obj_names:
                if n in hidden:
                    continue
                for cp in client.getContactPoints(bodyA=ids[n]):
                    other = names_by_id.get(cp[2])
                    if other is None:
                        continue
                    pair = (n, other)
                    now.add(pair)
                    if pair in in_contact:
                        continue
                    normal = np.asarray(cp[7])
                    rel = velocities[n] - velocities.get(other, np.zeros(3))
                    speed = abs(float(rel @ normal))
                    if speed >= IMPACT_SPEED_MPS and (other not in velocities or n < other):
                        impacts.append(Impact(time_s=round(t_s, 6), frame=min(T - 1, int(round(t_s * fps))),
                                              body=n, other=other, speed_mps=round(speed, 4)))
                        for plan in plans:
                            if (plan.category == "wrong_bounce_height" and plan.object == n and other == "floor"
                                    and n not in boosted):
                                boosted.add(n)
                                pending_boost[n] = plan.params["vz"]
            in_contact = now
            for n, (other, overlap) in list(reenable.items()):
                pa = np.asarray(client.getBasePositionAndOrientation(ids[n])[0])
                pb = np.asarray(client.getBasePositionAndOrientation(ids[other])[0])
                ra = spec.object(n).size_m[0]
                rb = spec.object(other).size_m[0]
                if ra + rb - np.linalg.norm(pa - pb) >= overlap:
                    # Hold the interpenetrating pair for a while (the solver would part them within a few
                    # physics steps, between two frames), then let the collision act.
                    for body in (n, other):
                        held[body] = client.getBasePositionAndOrientation(ids[body])
                    release_at[n] = (other, k + 1 + max(2, int(round(0.25 * fps))))
                    del reenable[n]
    tmp.cleanup()

    tracks = {}
    floor_rgb = np.array(PALETTE[world.floor_colors[0]])
    for i, n in enumerate(obj_names):
        obj = spec.object(n)
        tracks[n] = ObjectTrack(name=n, shape=obj.shape, color=world.roles[n].color, rgb=tuple(obj.color_rgba[:3]),
                                radius_m=radius_of(obj.shape, obj.size_m), center_px=center_px[i],
                                radius_px=radius_px[i], visible_px=visible[i], position_m=pos[i],
                                contrast=float(np.linalg.norm(np.asarray(obj.color_rgba[:3]) - floor_rgb)))
    return RenderedClip(frames=frames if frames is not None else np.zeros((T, 1, 1, 3), np.uint8), fps=fps,
                        objects=tracks, impacts=impacts, camera=world.camera)
