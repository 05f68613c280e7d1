"""Clips from a simulated world (PyBullet's TinyRenderer or the analytic ray caster): choose the defects, make
them, say the prompt, and annotate every defect from the clip's own recorded states.

Order of work for one clip: sample a world; simulate it clean (the reference: landing frames, rebound heights,
contact times); draw 0-3 defects that the scene allows; render the world with the defects made; assemble the
prompt (its claims, with the one a prompt defect falsifies); compute each defect's window and magnitude from the
rendered states and drop the ones no person could see (recorded in the notes).
"""

from __future__ import annotations

import math

import numpy as np

from experiments.benchmark import audio as audio_mod
from experiments.benchmark import edits, scenes_analytic, scenes_pybullet, severity
from experiments.benchmark.clipdata import PALETTE, Impact, ObjectTrack, RenderedClip, visible_in, window
from experiments.benchmark.made import MadeClip
from experiments.benchmark.plans import DefectPlan
from experiments.benchmark.prompts import TEXTS, ClauseSpec, assemble, choose
from experiments.benchmark.types import Defect, SceneObject
from experiments.benchmark.world import MAX_PIXEL_FRAMES, World, radius_of, sample_world

PHYSICAL_BY_ROLE = {
    "drop": ("hover", "teleport", "pass_through_floor", "anti_gravity", "wrong_acceleration", "no_bounce",
             "wrong_bounce_height", "vanish", "morph"),
    "rest": ("vanish", "morph", "teleport", "anti_gravity", "appear"),
    "throw": ("hover", "teleport", "pass_through_wall", "vanish", "wrong_acceleration", "morph"),
    "roll": ("unexplained_stop", "teleport", "pass_through_wall", "vanish", "morph"),
    "strike": ("pass_through_object", "penetration_on_contact", "teleport", "unexplained_stop"),
    "struck": ("vanish", "morph"),
}
ANALYTIC_UNSUPPORTED = {"penetration_on_contact"}
PROMPT_DEFECTS = ("wrong_direction", "wrong_order", "wrong_count", "missing_object", "wrong_text",
                  "sound_missing", "sound_early", "sound_late", "freeze")
MAX_MENTIONED = 4
#: The scene kind a focused clip (one that must carry a given category first) is drawn from.
FOCUS_KIND = {"penetration_on_contact": "collide", "pass_through_object": "collide", "no_bounce": "drop",
              "wrong_bounce_height": "drop", "wrong_order": "drop", "wrong_count": "drop",
              "pass_through_wall": "roll", "wrong_acceleration": "drop"}


class Reference:
    """The clean run's facts: positions (T, 3) by object and the impacts."""

    def __init__(self, positions: dict[str, np.ndarray], impacts: list[Impact]):
        self.positions = positions
        self.impacts = impacts

    def first_impact(self, name: str, other: str | None = None, after: int = -1) -> Impact | None:
        for im in self.impacts:
            if im.frame > after and (im.body == name or im.other == name) and (
                    other is None or other in (im.body, im.other)):
                return im
        return None


def _resting_clause(ref: Reference, name: str, r: float, max_move_radii: float = 0.5) -> str:
    """The clause a body placed at rest gets: "rest" ("sits still", "stays where it is") only when the clean run
    keeps it within ``max_move_radii`` of radius ``r`` (m) of where it starts; a body another one knocks or nudges
    is only said to be there ("generic"), so that no truthful prompt says a moving body stays still."""
    path = ref.positions[name]
    moved = float(np.max(np.linalg.norm(path - path[0], axis=1))) if len(path) else 0.0
    return "rest" if moved <= max_move_radii * r else "generic"


def _rebound(ref: Reference, name: str, r: float) -> tuple[int, int, float] | None:
    """(landing frame, apex frame, apex height above resting (m)) of the first rebound, or None."""
    first = ref.first_impact(name, "floor")
    if first is None:
        return None
    second = ref.first_impact(name, "floor", after=first.frame + 1)
    z = ref.positions[name][:, 2]
    end = second.frame if second is not None else len(z) - 1
    if end <= first.frame + 1:
        return None
    k = first.frame + int(np.argmax(z[first.frame:end + 1]))
    return first.frame, k, float(z[k] - r)


def _reference(world: World, renderer: str) -> Reference:
    """The clean run of ``world`` with the clip's own physics (PyBullet stepped here, or ``sim.engine``)."""
    if renderer == "pybullet":
        clean = scenes_pybullet.simulate(world, [], render=False)
        return Reference({n: t.position_m for n, t in clean.objects.items()}, clean.impacts)
    traj = scenes_analytic.clean_trajectory(world)
    return Reference({n: np.asarray(traj.position_m[i]) for i, n in enumerate(traj.object_names)},
                     scenes_analytic._impacts(world, traj))


def _struck(world: World) -> str | None:
    """The body a striker is sent at (a scene has at most one), or None."""
    return next((n for n, r in world.roles.items() if r.role == "struck"), None)


def _reaches_struck(world: World, ref: Reference, name: str) -> bool:
    """Does ``name``, a striker, reach the body it is sent at in the clean run? Its clause then says it hits that body
    ("rolls into", "knocks into"); one that misses it only rolls."""
    struck = _struck(world)
    return world.roles[name].role == "strike" and struck is not None and ref.first_impact(name, struck) is not None


def _says_direction(world: World, ref: Reference, name: str) -> bool:
    """Does the prompt's clause for ``name`` name its direction of motion? A body with a direction does, except a
    striker that reaches the body it is sent at (``_reaches_struck``): a direction flipped there would be in no word
    of the prompt."""
    return bool(world.roles[name].direction) and not _reaches_struck(world, ref, name)


def _prompt_defect_objects(cat: str, world: World, ref: Reference, mentioned: list[str],
                           used: set[str]) -> list[str] | None:
    """The objects a prompt defect of ``cat`` needs untouched (None: the scene cannot carry it now)."""
    free = [n for n in mentioned if n not in used]
    if cat == "wrong_direction":
        movers = [n for n in free if _says_direction(world, ref, n)]
        return movers[:1] or None
    if cat == "wrong_order":
        landers = sorted((ref.first_impact(n, "floor").time_s, n) for n in free
                         if world.roles[n].role == "drop" and ref.first_impact(n, "floor"))
        for (t1, n1), (t2, n2) in zip(landers, landers[1:]):
            if t2 - t1 >= 0.15:
                return [n1, n2]
        return None
    if cat == "wrong_count":
        for shape in ("sphere", "box", "cylinder"):
            fallers = [n for n in world.roles if world.roles[n].shape == shape and world.roles[n].role == "drop"]
            if len(fallers) >= 2 and not set(fallers) & used:
                return fallers
        return None
    if cat.startswith("sound"):
        for n in free:
            im = ref.first_impact(n, "floor")
            if im is not None and im.body == n and im.frame >= 1:
                return [n]
        return None
    return []


def plan_physical(rng: np.random.Generator, world: World, ref: Reference, name: str, category: str,
                  renderer: str) -> DefectPlan | None:
    """A feasible plan of ``category`` on ``name`` given the clean run, or None."""
    spec = world.spec
    T, fps = spec.num_frames, spec.fps
    obj = spec.object(name)
    r = radius_of(obj.shape, obj.size_m)
    role = world.roles[name]
    g = -spec.gravity_mps2[2]
    land = ref.first_impact(name, "floor")
    kland = land.frame if land is not None else T - 1
    airborne = role.role in ("drop", "throw")
    if airborne and kland < 4:
        return None
    lo_air, hi_air = 1, max(2, kland - 2)
    side = 1 if rng.random() < 0.5 else -1
    if category == "hover":
        a = int(rng.integers(lo_air, hi_air))
        n = int(rng.integers(2, max(3, int(fps * 1.0))))
        return DefectPlan(category, name, a, min(T - 2, a + n - 1))
    if category == "teleport":
        a = int(rng.integers(2, max(3, kland if airborne else T - 2)))
        return DefectPlan(category, name, a, a, params={"dx": side * float(rng.uniform(2.0, 9.0)) * r})
    if category == "pass_through_floor":
        if land is None:
            return None
        return DefectPlan(category, name, 0 if renderer == "pybullet" else max(0, kland - 1), other="floor",
                          claim=name)
    if category == "anti_gravity":
        a = int(rng.integers(lo_air, hi_air)) if airborne else int(rng.integers(2, max(3, T // 2)))
        b = min(T - 1, a + max(3, int(fps * rng.uniform(0.4, 1.0))))
        a_net = g * float(rng.uniform(0.3, 1.2))
        return DefectPlan(category, name, a, b, params={"az": g + a_net, "az_net": a_net})
    if category == "wrong_acceleration":
        if kland < 5:
            return None
        return DefectPlan(category, name, 1, kland - 1, params={"ax": side * g * float(rng.uniform(0.3, 2.0))})
    if category == "no_bounce":
        rb = _rebound(ref, name, r)
        if not role.bouncy or rb is None or rb[2] < 1.0 * r:
            return None
        return DefectPlan(category, name, 0 if renderer == "pybullet" else rb[0], rb[1], claim=name,
                          params={"rebound_m": rb[2], "land_frame": rb[0]})
    if category == "wrong_bounce_height":
        rb = _rebound(ref, name, r)
        if not role.bouncy or rb is None or rb[2] < 0.3 * r:
            return None
        h0 = obj.position_m[2] - r
        ratio = float(rng.uniform(1.3, 2.2))
        second = ref.first_impact(name, "floor", after=rb[0] + 1)
        b = second.frame if second is not None else T - 1
        return DefectPlan(category, name, rb[0], b, claim=name,
                          params={"vz": math.sqrt(2 * g * ratio * h0), "factor": ratio * h0 / rb[2], "drop_m": h0})
    if category in ("vanish", "morph"):
        a = int(rng.integers(2, max(3, T - 2)))
        params = {}
        if category == "morph":
            s = float(rng.uniform(1.3, 2.2))
            params["scale"] = s if rng.random() < 0.6 else 1.0 / s
        return DefectPlan(category, name, a, a, params=params)
    if category == "appear":
        a = int(rng.integers(2, max(3, T - 3)))
        x, y, z = obj.position_m
        return DefectPlan(category, name, a, a, params={"x": x, "y": y, "z": z})
    if category == "pass_through_wall":
        hit = ref.first_impact(name, "wall")
        if hit is None or hit.frame < 2:
            return None
        return DefectPlan(category, name, 0 if renderer == "pybullet" else hit.frame - 1, other="wall", claim=name)
    if category in ("pass_through_object", "penetration_on_contact"):
        other = _struck(world)
        hit = ref.first_impact(name, other) if other else None
        if hit is None or hit.frame < 2:
            return None
        params = {"overlap_m": float(rng.uniform(0.3, 1.0)) * r} if category == "penetration_on_contact" else {}
        return DefectPlan(category, name, 0 if renderer == "pybullet" else hit.frame - 1, other=other, claim=name,
                          params=params)
    if category == "unexplained_stop":
        hit = ref.first_impact(name)
        end = hit.frame - 2 if hit is not None else T - 4
        if end < 3:
            return None
        return DefectPlan(category, name, int(rng.integers(2, end)), -1, claim=name)
    raise ValueError(category)


# --------------------------------------------------------------------------------------------------
# Annotation of a made defect from the rendered states
# --------------------------------------------------------------------------------------------------


def _first_last(mask: np.ndarray) -> tuple[int, int] | None:
    idx = np.flatnonzero(mask)
    return (int(idx[0]), int(idx[-1])) if idx.size else None


def annotate_physical(plan: DefectPlan, clip: RenderedClip, ref: Reference, world: World, main: str
                      ) -> tuple[dict, str] | tuple[None, str]:
    """(window frames a, b; magnitude; severity; edit words) of a made physical defect, or (None, why not)."""
    T, fps = clip.num_frames, clip.fps
    tr: ObjectTrack = clip.objects[plan.object if plan.category != "freeze" else main]
    r = tr.radius_m
    pos = tr.position_m
    cat = plan.category
    end = T - 1 if plan.end_frame < 0 else plan.end_frame
    if cat in ("hover", "freeze"):
        a, b = plan.start_frame, min(end, T - 1)
        mag = {"duration_s": (b - a + 1) / fps, "frames": float(b - a + 1)}
        sev = severity.duration(mag["duration_s"])
        words = (f"held the {'whole scene' if cat == 'freeze' else 'object'} still for {b - a + 1} frames "
                 f"from frame {a}, then let it go on")
    elif cat == "unexplained_stop":
        a, b = max(0, plan.start_frame - 1), T - 1
        mag = {"duration_s": (T - plan.start_frame) / fps}
        sev = severity.duration(mag["duration_s"])
        words = f"stopped the moving object dead at frame {plan.start_frame} and held it there"
    elif cat == "teleport":
        a, b = plan.start_frame - 1, plan.start_frame
        jump = abs(plan.params.get("dx", 0.0)) / r
        mag = {"jump_radii": jump, "jump_m": abs(plan.params.get("dx", 0.0))}
        sev = severity.teleport(jump)
        words = f"moved the object {mag['jump_m']:.2f} m sideways between frames {a} and {b}"
    elif cat == "pass_through_floor":
        below = (pos[:, 2] - r) < -0.25 * r
        fl = _first_last(below & np.isfinite(pos[:, 2]))
        if fl is None:
            return None, "the object never sank into the floor within the clip"
        a = fl[0]
        under = np.flatnonzero((pos[:, 2] + r) < 0)
        b = int(under[0]) if under.size else T - 1
        depth_r = float(np.nanmax(np.clip((r - pos[a:b + 1, 2]) / r, 0, 2)))
        mag = {"depth_radii": depth_r}
        sev = severity.depth(depth_r)
        words = "disabled the collision between the object and the floor"
    elif cat == "pass_through_wall":
        x_face = 2.0 * world.roles[plan.object].direction
        d = world.roles[plan.object].direction
        into = d * (pos[:, 0] - x_face) + r
        fl = _first_last(into > 0.25 * r)
        if fl is None:
            return None, "the object never entered the wall within the clip"
        a, b = fl[0], min(fl[1], T - 1)
        depth_r = float(np.nanmax(into[a:b + 1]) / r)
        mag = {"depth_radii": depth_r}
        sev = severity.depth(depth_r)
        words = "disabled the collision between the object and the wall"
    elif cat in ("pass_through_object", "penetration_on_contact"):
        other = clip.objects[plan.other]
        dist = np.linalg.norm(pos - other.position_m, axis=1)
        overlap = (r + other.radius_m) - dist
        fl = _first_last(overlap > 0.1 * r)
        if fl is None:
            return None, "the two objects never overlapped"
        a, b = fl
        depth_r = float(np.nanmax(overlap[a:b + 1]) / r)
        mag = {"depth_radii": depth_r}
        sev = severity.depth(depth_r)
        words = ("disabled the collision between the two objects" if cat == "pass_through_object" else
                 f"let the two objects sink {depth_r:.2f} radii into each other before the collision acts")
    elif cat == "anti_gravity":
        a, b = plan.start_frame, min(end, T - 1)
        rise = float(np.nanmax(pos[a:b + 1, 2]) - pos[a, 2]) / r
        if rise < 0.5:
            return None, "the object barely rose"
        mag = {"rise_radii": rise, "upward_accel_mps2": plan.params["az_net"]}
        sev = severity.teleport(rise)
        words = f"pushed the object upward (net {plan.params['az_net']:.1f} m/s^2 up) from frame {a} to {b}"
    elif cat == "wrong_acceleration":
        a, b = plan.start_frame, end
        err = abs(plan.params["ax"]) / 9.81
        mag = {"error_g": err}
        sev = severity.acceleration(err)
        words = f"added a sideways acceleration of {plan.params['ax']:.1f} m/s^2 while it flew"
    elif cat == "no_bounce":
        a, b = int(plan.params["land_frame"]), end
        rb = plan.params["rebound_m"] / r
        mag = {"missing_rebound_radii": rb}
        sev = severity.teleport(rb)
        words = "set the object's restitution to zero: it lands dead"
    elif cat == "wrong_bounce_height":
        a = plan.start_frame
        b = min(end, T - 1)
        apex = float(np.nanmax(pos[a:b + 1, 2]) - r)
        excess = (apex - plan.params["drop_m"]) / r
        if excess < 0.5:
            return None, "the rebound did not clearly exceed the drop height within the clip"
        k = a + int(np.nanargmax(pos[a:b + 1, 2]))
        b = k
        mag = {"excess_radii": excess, "rebound_m": apex, "drop_m": plan.params["drop_m"]}
        sev = severity.teleport(excess)
        words = f"launched the object up after its first landing to {apex:.2f} m, above its {plan.params['drop_m']:.2f} m drop"
    elif cat in ("vanish", "appear"):
        a, b = plan.start_frame - 1, plan.start_frame
        k_seen = a if cat == "vanish" else b
        if tr.visible_px[k_seen] < 6:
            return None, f"the object is not visible at frame {k_seen}"
        rad = float(tr.radius_px[k_seen])
        mag = {"radius_px": rad}
        sev = severity.low_contrast_penalty(severity.size_px(rad), tr.contrast)
        words = f"{'removed' if cat == 'vanish' else 'added'} the object at frame {plan.start_frame}"
        return {"a": a, "b": b, "mag": mag, "sev": sev}, words
    elif cat == "morph":
        a, b = plan.start_frame - 1, plan.start_frame
        mag = {"scale": plan.params["scale"]}
        sev = severity.morph(plan.params["scale"])
        words = f"scaled the object by {plan.params['scale']:.2f} at frame {plan.start_frame}"
    else:
        raise ValueError(cat)
    a, b = max(0, a), min(T - 1, max(a, b))
    if not visible_in(tr, a, b):
        return None, "the object is hidden or off-frame for the whole window"
    if cat not in ("vanish", "appear"):
        sev = severity.low_contrast_penalty(sev, tr.contrast)
    return {"a": a, "b": b, "mag": mag, "sev": sev}, words


# --------------------------------------------------------------------------------------------------
# One clip
# --------------------------------------------------------------------------------------------------


def make_clip(rng: np.random.Generator, *, renderer: str, num_defects: int, max_objects: int = 6,
              max_width: int = 848, max_pixel_frames: int = MAX_PIXEL_FRAMES, focus: str | None = None) -> MadeClip:
    """A clip of ``renderer`` ("pybullet" | "analytic") with ``num_defects`` defects planned (fewer may survive:
    see the notes)."""
    plans: list[DefectPlan] = []
    prompt_defects: list[str] = []
    used_objects: set[str] = set()
    # A focused clip draws worlds of the kind its category needs until one allows it (at most 6).
    for _attempt in range(6 if focus else 1):
        world = sample_world(rng, kind=FOCUS_KIND.get(focus or "", None), min_objects=2 if focus else 1,
                             max_objects=max_objects, max_width=max_width, max_pixel_frames=max_pixel_frames)
        ref = _reference(world, renderer)
        names = list(world.roles)
        mentioned = names[:MAX_MENTIONED]
        if not focus:
            break
        if focus in PROMPT_DEFECTS:
            needs = _prompt_defect_objects(focus, world, ref, mentioned, set())
            if needs is not None:
                used_objects.update(needs)
                prompt_defects.append(focus)
                break
            continue
        plan = None
        for n in mentioned:
            if plan is None and focus in PHYSICAL_BY_ROLE[world.roles[n].role]:
                plan = plan_physical(rng, world, ref, n, focus, renderer)
        if plan is not None:
            plans.append(plan)
            used_objects.update({plan.object} | ({plan.other} & set(names) if plan.other else set()))
            break
    spec = world.spec
    T, fps = spec.num_frames, spec.fps
    main = names[0]
    notes: list[str] = []
    if len(names) > MAX_MENTIONED:
        notes.append(f"objects not named in the prompt: {', '.join(names[MAX_MENTIONED:])}")

    # ---- choose the defects
    tries = 0
    while len(plans) + len(prompt_defects) < num_defects and tries < 40:
        tries += 1
        if rng.random() < 0.62:
            if any(p.category == "freeze" for p in plans):
                continue
            # Category first (uniform over what the free objects allow), then an object that allows it: drawing
            # the object first would make the categories of the commonest role (falling bodies) dominate.
            by_cat: dict[str, list[str]] = {}
            for n in mentioned:
                if n in used_objects:
                    continue
                for c in PHYSICAL_BY_ROLE[world.roles[n].role]:
                    if not (renderer == "analytic" and c in ANALYTIC_UNSUPPORTED):
                        by_cat.setdefault(c, []).append(n)
            if not by_cat:
                continue
            cats = sorted(by_cat)
            cat = cats[int(rng.integers(len(cats)))]
            name = by_cat[cat][int(rng.integers(len(by_cat[cat])))]
            plan = plan_physical(rng, world, ref, name, cat, renderer)
            if plan is not None:
                plans.append(plan)
                used_objects.add(name)
                if plan.other in world.roles:
                    used_objects.add(plan.other)
        else:
            cat = PROMPT_DEFECTS[int(rng.integers(len(PROMPT_DEFECTS)))]
            if cat in prompt_defects or (cat.startswith("sound") and any(p.startswith("sound") for p in prompt_defects)):
                continue
            needs = _prompt_defect_objects(cat, world, ref, mentioned, used_objects)
            if needs is None:
                continue
            used_objects.update(needs)  # reserved: no physical defect may change what this claim is about
            if cat == "freeze":
                if used_objects or T < 8:  # a freeze moves every event: alone with no reserved claim
                    continue
                a = int(rng.integers(2, T - 4))
                n = int(rng.integers(2, max(3, int(fps * 0.9))))
                plans.append(DefectPlan("freeze", main, a, min(T - 2, a + n - 1)))
                used_objects.update(names)
                continue
            prompt_defects.append(cat)

    clip, shown = _render_shown(world, plans, renderer, ref, main, notes)
    plans = [plan for plan, _, _ in shown]
    physical_on = {p.object for p in plans} | ({*names} if any(p.category == "freeze" for p in plans) else set())
    notes.extend(clip.notes)

    # ---- the prompt's clauses
    objects_desc = {n: (world.roles[n].color, world.roles[n].shape) for n in names}
    size_words = {n: world.roles[n].size_word for n in names if world.roles[n].size_word}
    clauses: list[ClauseSpec] = []
    flip_direction = None
    if "wrong_direction" in prompt_defects:
        movers = [n for n in mentioned if _says_direction(world, ref, n) and n not in physical_on]
        flip_direction = movers[0] if movers else None
        if flip_direction is None:
            prompt_defects.remove("wrong_direction")
    struck = _struck(world)
    for n in mentioned:
        role = world.roles[n]
        if role.role == "struck":
            continue
        d = role.direction * (-1 if n == flip_direction else 1)
        if role.role == "drop":
            rb = _rebound(ref, n, radius_of(role.shape, spec.object(n).size_m))
            bounces = role.bouncy and rb is not None and rb[2] >= radius_of(role.shape, spec.object(n).size_m)
            clauses.append(ClauseSpec(n, "bounce" if bounces else "fall", subject=n))
        elif role.role == "rest":
            clauses.append(ClauseSpec(n, _resting_clause(ref, n, radius_of(role.shape, spec.object(n).size_m)),
                                      subject=n))
        elif role.role == "throw":
            hits = ref.first_impact(n, "wall") is not None
            clauses.append(ClauseSpec(n, "throw", subject=n, direction=d))
            if hits:
                clauses.append(ClauseSpec(f"{n}_wall", "hit_wall", subject=n, ordered=True))
        elif role.role == "roll":
            hits = ref.first_impact(n, "wall") is not None
            clauses.append(ClauseSpec(n, "roll_to_wall" if hits else "roll", subject=n, direction=d))
        elif role.role == "strike":
            if _reaches_struck(world, ref, n):
                clauses.append(ClauseSpec(n, "collide", subject=n, other=struck))
            else:
                clauses.append(ClauseSpec(n, "roll", subject=n, direction=d))
    # a struck ball that no clause names still needs a mention when it is among the first objects
    if struck in mentioned and not any(c.other == struck for c in clauses):
        r_struck = radius_of(world.roles[struck].shape, spec.object(struck).size_m)
        clauses.append(ClauseSpec(struck, _resting_clause(ref, struck, r_struck), subject=struck))

    # order of two landings
    order_pair = None
    landers = [(ref.first_impact(n, "floor").time_s, n) for n in mentioned
               if world.roles[n].role == "drop" and n not in physical_on and ref.first_impact(n, "floor")]
    landers.sort()
    for (t1, n1), (t2, n2) in zip(landers, landers[1:]):
        if t2 - t1 >= 0.15:
            order_pair = (n1, n2, t1, t2)
            break
    want_order = "wrong_order" in prompt_defects
    if want_order and order_pair is None:
        prompt_defects.remove("wrong_order")
        want_order = False
    if order_pair and (want_order or rng.random() < 0.4):
        first, second = (order_pair[1], order_pair[0]) if want_order else (order_pair[0], order_pair[1])
        clauses.append(ClauseSpec("order", "order", subject=first, other=second, ordered=True))

    # count of falling objects of one shape
    count_shape, count_true = None, 0
    for shape in ("sphere", "box", "cylinder"):
        fallers = [n for n in names if world.roles[n].shape == shape and world.roles[n].role == "drop"]
        if len(fallers) >= 2 and all(n not in physical_on for n in fallers):
            count_shape, count_true = shape, len(fallers)
            break
    want_count = "wrong_count" in prompt_defects
    if want_count and count_shape is None:
        prompt_defects.remove("wrong_count")
        want_count = False
    count_said = count_true
    if count_shape and (want_count or rng.random() < 0.3):
        if want_count:
            deltas = [d for d in (1, 2, -1) if count_true + d >= 2]
            count_said = count_true + deltas[int(rng.integers(len(deltas)))]
        clauses.append(ClauseSpec("count", "count", number=count_said, shape=count_shape,
                                  objects=tuple(n for n in names if world.roles[n].shape == count_shape
                                                and world.roles[n].role == "drop")))

    # sound of an impact
    sound_obj = None
    sound_impact = None
    for n in mentioned:
        im = ref.first_impact(n, "floor")
        if n not in physical_on and im is not None and im.body == n and im.frame >= 1:
            sound_obj, sound_impact = n, im
            break
    sound_defect = next((c for c in prompt_defects if c.startswith("sound")), None)
    if sound_defect and sound_obj is None:
        prompt_defects.remove(sound_defect)
        sound_defect = None
    with_sound = sound_obj is not None and (sound_defect is not None or rng.random() < 0.4)
    if with_sound:
        clauses.append(ClauseSpec("sound", "sound", subject=sound_obj))

    # on-screen text
    want_text = "wrong_text" in prompt_defects
    text_quoted = text_shown = None
    if want_text or rng.random() < 0.25:
        text_quoted = choose(rng, TEXTS)
        text_shown = text_quoted
        if want_text:
            text_shown = _other_text(rng, text_quoted)
        clauses.append(ClauseSpec("text", "text", text=text_quoted))

    # a named object the clip lacks
    missing_name = None
    if "missing_object" in prompt_defects:
        free = [c for c in PALETTE if c not in {world.roles[n].color for n in names}]
        color = free[int(rng.integers(len(free)))]
        shape = ("sphere", "box", "cylinder")[int(rng.integers(3))]
        missing_name = f"{color}_{ {'sphere': 'ball', 'box': 'cube', 'cylinder': 'cylinder'}[shape] }_absent"
        objects_desc[missing_name] = (color, shape)
        clauses.append(ClauseSpec(missing_name, "generic", subject=missing_name))

    pb = assemble(rng, clauses, objects_desc, size_words)
    prompt = pb.text

    # ---- pixels after the render: text, audio
    frames = clip.frames
    text_height = 0.0
    text_window = None
    if text_shown is not None:
        a = int(rng.integers(0, max(1, T // 3)))
        b = T - 1 if rng.random() < 0.6 else int(rng.integers(a + max(2, T // 4), T))
        frames, text_height = edits.put_text(frames, text_shown, a, min(b, T - 1),
                                             corner=choose(rng, ("top_left", "top_right", "bottom_left")))
        text_window = (a, min(b, T - 1))
    audio = None
    sound_shift_ms = 0.0
    if with_sound or rng.random() < 0.2:
        clicks = []
        for im in clip.impacts:
            t = im.time_s
            if sound_defect and im == _match_impact(clip.impacts, sound_impact):
                if sound_defect == "sound_missing":
                    continue
                sound_shift_ms = float(rng.uniform(60, 400)) * (-1 if sound_defect == "sound_early" else 1)
                t = t + sound_shift_ms / 1000.0
            clicks.append((t, im.speed_mps))
        audio = audio_mod.track(T / fps, clicks)

    # ---- annotations
    defects: list[Defect] = []
    broken: dict[str, bool] = {}

    def add(cat, obj, a, b, span_key, edit, mag, sev):
        defects.append(Defect(id=f"d{len(defects)}", category=cat, severity=int(sev), window=window(a, b, fps, T),
                              object=obj, violates=pb.spans[span_key], edit=edit,
                              magnitude={k: round(float(v), 4) for k, v in mag.items()}))
        if span_key.startswith("claim:"):
            broken[span_key[len("claim:"):]] = False

    for plan, res, words in shown:
        target = plan.object if plan.category != "freeze" else main
        if f"mention:{target}" not in pb.spans:
            notes.append(f"dropped {plan.category} on {target}: the prompt does not name the object")
            continue
        key = f"claim:{plan.claim}" if plan.claim and f"claim:{plan.claim}" in pb.spans else f"mention:{target}"
        add(plan.category, target, res["a"], res["b"], key, words, res["mag"], res["sev"])

    if flip_direction and "wrong_direction" in prompt_defects:
        tr = clip.objects[flip_direction]
        x = tr.position_m[:, 0]
        fin = np.isfinite(x)
        disp = float(abs(x[fin][-1] - x[fin][0]) / tr.radius_m) if fin.sum() > 1 else 0.0
        if visible_in(tr, 0, T - 1) and disp >= 1.5:
            add("wrong_direction", flip_direction, 0, T - 1, f"claim:{flip_direction}",
                "the prompt names the opposite direction to the simulated motion", {"displacement_radii": disp},
                severity.teleport(disp))
        else:
            notes.append("dropped wrong_direction: the object hardly moves in view")
    if want_order and order_pair:
        _, _, t1, t2 = order_pair
        add("wrong_order", order_pair[1], int(round(t1 * fps)), int(round(t2 * fps)), "claim:order",
            "the prompt swaps the order of the two landings", {"gap_s": t2 - t1}, severity.order_gap(t2 - t1))
    if want_count and count_shape:
        obj = next(n for n in names if world.roles[n].shape == count_shape and world.roles[n].role == "drop")
        add("wrong_count", obj, 0, T - 1, "claim:count",
            f"the prompt says {count_said} where the clip shows {count_true}",
            {"said": count_said, "shown": count_true}, severity.count(count_said - count_true))
    if missing_name:
        add("missing_object", missing_name, 0, T - 1, f"mention:{missing_name}",
            "the prompt names an object the scene does not contain", {}, severity.MISSING_OBJECT)
        broken[missing_name] = False
    if want_text and text_window:
        sev = severity.text(text_shown, text_quoted, text_height)
        add("wrong_text", "text", text_window[0], text_window[1], "claim:text",
            f"drew {text_shown!r} where the prompt quotes {text_quoted!r}",
            {"height_px": text_height}, sev)
    if sound_defect and sound_impact is not None and audio is not None:
        k = sound_impact.frame
        if sound_defect == "sound_missing":
            add("sound_missing", sound_obj, k, k, "claim:sound", "removed the click of the first landing",
                {}, severity.SOUND_MISSING)
        else:
            k2 = min(T - 1, max(0, int(round((sound_impact.time_s + sound_shift_ms / 1000) * fps))))
            add(sound_defect, sound_obj, min(k, k2), max(k, k2), "claim:sound",
                f"moved the click of the first landing by {sound_shift_ms:+.0f} ms", {"shift_ms": sound_shift_ms},
                severity.sound_shift(sound_shift_ms))

    # ---- objects
    scene_objects = []
    for n in names:
        tr = clip.objects[n]
        scene_objects.append(SceneObject(name=n, shape=tr.shape, color=tr.color,
                                         radius_px=round(tr.typical_radius_px(), 3),
                                         mention=pb.spans.get(f"mention:{n}")))
    if missing_name:
        color, shape = objects_desc[missing_name]
        scene_objects.append(SceneObject(name=missing_name, shape=shape, color=color,
                                         mention=pb.spans.get(f"mention:{missing_name}")))
    if text_shown is not None:
        scene_objects.append(SceneObject(name="text", shape="text", color="white",
                                         mention=pb.spans.get("text:text")))
    if world.roles[main].color == world.floor_colors[0]:
        notes.append(f"{main} has the floor's colour")
    return MadeClip(frames=frames, fps=fps, prompt=prompt, renderer=renderer, source=world.kind,
                    objects=scene_objects, claims=pb.claims(broken), defects=defects, camera=clip.camera,
                    audio=audio, notes=notes)


def _render_shown(world: World, plans: list[DefectPlan], renderer: str, ref: Reference, main: str,
                  notes: list[str]) -> tuple[RenderedClip, list[tuple[DefectPlan, dict, str]]]:
    """Render the world with the physical edits ``plans`` that the render shows. An edit the picture does not
    show (the object hidden or off-frame over its window, a rise too small) cannot be annotated, and it must not
    stay in the clip either: a clip counted clean would carry a defect nobody annotated. Each such edit is
    dropped (a note says why) and the world rendered again without it. -> (the render, and per edit kept its
    annotation and edit words from :func:`annotate_physical`)."""
    while True:
        clip = (scenes_pybullet.simulate(world, plans, render=True) if renderer == "pybullet"
                else scenes_analytic.render(world, plans))
        made = [(p, *annotate_physical(p, clip, ref, world, main)) for p in plans]
        unshown = [(p, why) for p, res, why in made if res is None]
        if not unshown:
            return clip, made
        for p, why in unshown:
            notes.append(f"dropped {p.category} on {p.object if p.category != 'freeze' else main}: {why} "
                         "(rendered again without it)")
        plans = [p for p, res, _ in made if res is not None]


def _match_impact(impacts: list[Impact], target: Impact | None) -> Impact | None:
    """The rendered run's impact that is the clean run's ``target`` (same bodies, closest time)."""
    if target is None:
        return None
    same = [im for im in impacts if {im.body, im.other} == {target.body, target.other}]
    return min(same, key=lambda im: abs(im.time_s - target.time_s)) if same else None


def _other_text(rng: np.random.Generator, quoted: str) -> str:
    """A different text: one letter changed, or another word of the list."""
    if rng.random() < 0.5 and len(quoted) >= 3:
        i = int(rng.integers(len(quoted)))
        letters = [c for c in "ABCDEFGHIKLMNOPRSTUVW" if c != quoted[i]]
        return quoted[:i] + letters[int(rng.integers(len(letters)))] + quoted[i + 1:]
    others = [t for t in TEXTS if t != quoted]
    return others[int(rng.integers(len(others)))]
