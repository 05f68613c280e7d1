"""Pixels source 2: the project's analytic ray caster (``control.render.AnalyticRenderer``) drawing a
:class:`~experiments.benchmark.world.World` simulated by ``sim.engine.simulate``, with the defects made as edits
of the simulated trajectory (a held stretch, a displaced tail, a fall continued through the floor, ...).

The renderer draws only what the trajectory says; a non-finite position is not drawn (an absent object). Size
changes are a second render of the scene with the object scaled, used from the edit's frame on.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from control.render import AnalyticRenderer
from experiments.benchmark.clipdata import PALETTE, Impact, ObjectTrack, RenderedClip
from experiments.benchmark.plans import DefectPlan
from experiments.benchmark.scenes_pybullet import IMPACT_SPEED_MPS
from experiments.benchmark.world import World, radius_of
from sim.camera import project, projected_radius_px
from sim.engine import simulate as sim_simulate
from sim.types import SceneSpec, Trajectory


def clean_trajectory(world: World) -> Trajectory:
    return sim_simulate(world.spec)


def _impacts(world: World, traj: Trajectory) -> list[Impact]:
    masses = {o.name: o.mass_kg for o in world.spec.objects}
    out = []
    for c in traj.contacts:
        body, other = (c.body_a, c.body_b) if c.body_a in masses else (c.body_b, c.body_a)
        if body not in masses:
            continue
        speed = c.impulse_ns / masses[body]
        if speed >= IMPACT_SPEED_MPS:
            frame = min(world.spec.num_frames - 1, int(round(c.time_s * world.spec.fps)))
            out.append(Impact(time_s=round(float(c.time_s), 6), frame=frame, body=body, other=other,
                              speed_mps=round(float(speed), 4)))
    return out


def _hold(arr: np.ndarray, a: int, b: int, forever: bool = False) -> np.ndarray:
    """Hold frame ``a`` over ``a..b``; then resume the original motion from frame ``a`` (delayed)."""
    out = arr.copy()
    T = len(arr)
    b = min(b, T - 1)
    out[a:b + 1] = arr[a]
    if forever:
        out[a:] = arr[a]
        return out
    n = b - a
    if b + 1 < T:
        src = arr[a + 1:T - n]
        out[b + 1:b + 1 + len(src)] = src
    return out


def edit_trajectory(world: World, traj: Trajectory, plans: list[DefectPlan], impacts: list[Impact]):
    """Apply ``plans`` to copies of the clean positions: (K, T, 3) positions, (K, T, 4) orientations and the
    per-object scale by frame (K, T)."""
    spec = world.spec
    names = list(traj.object_names)
    pos = np.array(traj.position_m, dtype=np.float64)
    orn = np.array(traj.orientation_xyzw, dtype=np.float64)
    scale = np.ones(pos.shape[:2])
    t = np.asarray(traj.t_s)
    g = -spec.gravity_mps2[2]
    T = len(t)
    for plan in plans:
        i = names.index(plan.object)
        a = plan.start_frame
        b = T - 1 if plan.end_frame < 0 else plan.end_frame
        cat = plan.category
        if cat == "hover":
            pos[i], orn[i] = _hold(pos[i], a, b), _hold(orn[i], a, b)
        elif cat == "freeze":
            for j in range(len(names)):
                pos[j], orn[j] = _hold(pos[j], a, b), _hold(orn[j], a, b)
        elif cat == "unexplained_stop":
            pos[i], orn[i] = _hold(pos[i], a, b, forever=True), _hold(orn[i], a, b, forever=True)
        elif cat == "teleport":
            pos[i, a:, 0] += plan.params.get("dx", 0.0)
            pos[i, a:, 2] += plan.params.get("dz", 0.0)
        elif cat == "vanish":
            pos[i, a:] = np.nan
        elif cat == "appear":
            pos[i, :a] = np.nan
        elif cat == "morph":
            scale[i, a:] = plan.params["scale"]
            obj = spec.object(plan.object)
            if obj.shape != "cylinder":  # keep a resting body's base on the floor
                pos[i, a:, 2] += (plan.params["scale"] - 1.0) * obj.size_m[0] * (pos[i, a:, 2] <= obj.size_m[0] * 1.05)
        elif cat == "pass_through_floor":
            obj = spec.object(plan.object)
            x0, z0 = np.asarray(obj.position_m)[[0, 2]]
            vx0, vz0 = np.asarray(obj.linear_velocity_mps)[[0, 2]]
            pos[i, a:, 0] = x0 + vx0 * t[a:]
            pos[i, a:, 2] = z0 + vz0 * t[a:] - 0.5 * g * t[a:] ** 2
        elif cat == "anti_gravity":
            dt = t[a:b + 1] - t[a]
            pos[i, a:b + 1, 2] = pos[i, a, 2] + 0.5 * plan.params["az_net"] * dt ** 2
            pos[i, a:b + 1, 0] = pos[i, a, 0]
            pos[i, b + 1:] = pos[i, b]
            orn[i, a:] = orn[i, a]
        elif cat == "wrong_acceleration":
            dt = np.clip(t - t[a], 0.0, t[b] - t[a])
            pos[i, a:, 0] += 0.5 * plan.params["ax"] * dt[a:] ** 2
        elif cat == "no_bounce":
            r = spec.object(plan.object).size_m[0]
            pos[i, a:, 2] = r
        elif cat == "wrong_bounce_height":
            r = spec.object(plan.object).size_m[0]
            pos[i, a:b + 1, 2] = r + (pos[i, a:b + 1, 2] - r) * plan.params["factor"]
        elif cat in ("pass_through_object", "pass_through_wall"):
            obj = spec.object(plan.object)
            vx = obj.linear_velocity_mps[0]
            pos[i, a:, 0] = pos[i, a, 0] + vx * (t[a:] - t[a])
            pos[i, a:, 1:] = pos[i, a, 1:]
            if plan.other in names and cat == "pass_through_object":
                j = names.index(plan.other)
                pos[j, a:] = pos[j, a]
        else:
            raise ValueError(f"the analytic source cannot make a {cat!r} defect")
    return pos, orn, scale


def _scaled_spec(spec: SceneSpec, name: str, factor: float) -> SceneSpec:
    objs = tuple(o.model_copy(update={"size_m": tuple(s * factor for s in o.size_m)})
                 if o.name == name else o for o in spec.objects)
    return spec.model_copy(update={"objects": objs})


def render(world: World, plans: list[DefectPlan], *, background_rgb=None) -> RenderedClip:
    spec = world.spec
    traj = clean_trajectory(world)
    impacts = _impacts(world, traj)
    pos, orn, scale = edit_trajectory(world, traj, plans, impacts)
    edited = dataclasses.replace(traj, position_m=pos, orientation_xyzw=orn)
    floor = PALETTE[world.floor_colors[0]]
    renderer = AnalyticRenderer(rgb=True, background_rgb=background_rgb or PALETTE[world.wall_color],
                                progress=False)
    out = renderer.render(spec, edited)
    frames = np.array(out.rgb)
    seg = np.array(out.segmentation)
    names = list(traj.object_names)
    for i, name in enumerate(names):
        factors = sorted(set(scale[i].tolist()) - {1.0})
        for f in factors:
            scaled = renderer.render(_scaled_spec(spec, name, f), edited)
            mask = scale[i] == f
            frames[mask] = scaled.rgb[mask]
            seg[mask] = scaled.segmentation[mask]
    uv, depth = project(spec.camera, pos)
    tracks = {}
    for i, name in enumerate(names):
        obj = spec.object(name)
        r = radius_of(obj.shape, obj.size_m)
        rad = projected_radius_px(spec.camera, r, depth[i]) * scale[i]
        finite = np.all(np.isfinite(pos[i]), axis=-1)
        rad = np.where(finite, rad, np.nan)
        tracks[name] = ObjectTrack(name=name, shape=obj.shape, color=world.roles[name].color,
                                   rgb=tuple(obj.color_rgba[:3]), radius_m=r,
                                   center_px=np.where(finite[:, None], uv[i], np.nan), radius_px=rad,
                                   visible_px=(seg == i).sum(axis=(1, 2)).astype(np.int64), position_m=pos[i],
                                   contrast=float(np.linalg.norm(np.asarray(obj.color_rgba[:3]) - np.asarray(floor))))
    # A trajectory edit changes when (and whether) later contacts happen: keep only impacts of untouched objects
    # and of edited ones before their edit.
    first_edit = {}
    for p in plans:
        targets = names if p.category == "freeze" else [p.object]
        for n in targets:
            first_edit[n] = min(first_edit.get(n, 10 ** 9), p.start_frame)
    kept = [im for im in impacts if im.frame < first_edit.get(im.body, 10 ** 9)
            and im.frame < first_edit.get(im.other, 10 ** 9)]
    return RenderedClip(frames=frames, fps=spec.fps, objects=tracks, impacts=kept, camera=world.camera,
                        notes=[] if len(kept) == len(impacts) else
                        ["impacts after a trajectory edit are not sounded or used for events"])
