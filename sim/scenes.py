"""Scene templates: functions of a few physical parameters returning a :class:`~sim.types.SceneSpec`.

They are the ``_target_`` of ``conf/scene/*.yaml`` and of a physics request's ``scene`` node; a request's free
parameters are keyword arguments of its template. World frame: x along the motion (image right), z up; the
camera sits at negative y looking along +y, 848x480 with a 50 deg vertical field of view, framing the motion.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from sim.types import CameraSpec, ObjectSpec, SceneSpec, StaticSpec

# Large enough that a fast ball stays on it for a whole clip (the world ends at 100 m, see EngineSettings).
# The scene templates a request, a spec file or a ``conf/scene`` option may name as ``_target_``, by dotted path.
# A data file chooses among these and nothing else: its ``_target_`` is looked up here, never imported.
SCENE_TEMPLATES: dict[str, Callable[..., SceneSpec]] = {}


def scene_template(fn: Callable[..., SceneSpec]) -> Callable[..., SceneSpec]:
    """Register ``fn`` as a scene template under ``sim.scenes.<name>``."""
    SCENE_TEMPLATES[f"{fn.__module__}.{fn.__name__}"] = fn
    return fn


FLOOR_HALF_EXTENTS_M = (60.0, 60.0, 0.05)
FLOOR_COLOR = (0.55, 0.55, 0.55, 1.0)
WALL_COLOR = (0.45, 0.5, 0.7, 1.0)
TARGET_COLOR = (0.1, 0.7, 0.2, 1.0)


def _floor(restitution: float = 0.9, lateral_friction: float = 0.5, rolling_friction: float = 0.0,
           center_x_m: float = 1.5) -> StaticSpec:
    """A floor whose top face is the plane z = 0."""
    return StaticSpec(name="floor", kind="floor", position_m=(center_x_m, 0.0, -FLOOR_HALF_EXTENTS_M[2]),
                      half_extents_m=FLOOR_HALF_EXTENTS_M, restitution=restitution,
                      lateral_friction=lateral_friction, rolling_friction=rolling_friction,
                      color_rgba=FLOOR_COLOR)


def framing_camera(x_min_m: float, x_max_m: float, z_min_m: float, z_max_m: float, *, fov_deg: float = 50.0,
                   width_px: int = 848, height_px: int = 480, margin: float = 1.15) -> CameraSpec:
    """A camera at negative y looking along +y whose view contains the box [x_min, x_max] x [z_min, z_max]
    in the plane y = 0 (with ``margin`` to spare)."""
    cx, cz = (x_min_m + x_max_m) / 2, (z_min_m + z_max_m) / 2
    tan_v = math.tan(math.radians(fov_deg) / 2)
    tan_h = tan_v * width_px / height_px
    distance = margin * max((x_max_m - x_min_m) / 2 / tan_h, (z_max_m - z_min_m) / 2 / tan_v)
    return CameraSpec(eye_m=(cx, -distance, cz), target_m=(cx, 0.0, cz), up=(0.0, 0.0, 1.0), fov_deg=fov_deg,
                      width_px=width_px, height_px=height_px, near_m=0.1, far_m=max(50.0, 4 * distance))


def launch_velocity(speed_mps: float, angle_deg: float) -> tuple[float, float, float]:
    """Velocity (m/s) of a launch in the x-z plane at ``angle_deg`` above +x."""
    a = math.radians(angle_deg)
    return (speed_mps * math.cos(a), 0.0, speed_mps * math.sin(a))


@scene_template
def thrown_ball(launch_speed_mps: float = 4.5, launch_angle_deg: float = 40.0, launch_height_m: float = 1.0,
                launch_x_m: float = 0.0, ball_radius_m: float = 0.1, ball_mass_kg: float = 0.45,
                ball_restitution: float = 0.8, floor_restitution: float = 0.9, wall_restitution: float = 0.9,
                wall_x_m: float = 3.0, wall_height_m: float = 2.5, target_x_m: float | None = 2.0,
                fps: float = 16.0, num_frames: int = 81, seed: int = 0) -> SceneSpec:
    """A ball thrown in the x-z plane over a floor (z = 0) towards a wall whose face is the plane x = wall_x_m.

    A thin green marker without collision shows ``target_x_m`` on the floor (omitted when None).
    """
    ball = ObjectSpec(name="ball", shape="sphere", size_m=(ball_radius_m,), mass_kg=ball_mass_kg,
                      restitution=ball_restitution, lateral_friction=0.5, rolling_friction=0.001,
                      color_rgba=(0.85, 0.15, 0.1, 1.0), position_m=(launch_x_m, 0.0, launch_height_m),
                      linear_velocity_mps=launch_velocity(launch_speed_mps, launch_angle_deg))
    wall_thickness = 0.1
    statics = [
        _floor(restitution=floor_restitution),
        StaticSpec(name="wall", kind="wall", position_m=(wall_x_m + wall_thickness, 0.0, wall_height_m / 2),
                   half_extents_m=(wall_thickness, 1.5, wall_height_m / 2), restitution=wall_restitution,
                   color_rgba=WALL_COLOR),
    ]
    if target_x_m is not None:
        statics.append(StaticSpec(name="target", kind="target", position_m=(target_x_m, 0.0, 0.002),
                                  half_extents_m=(0.02, 0.5, 0.002), collides=False, color_rgba=TARGET_COLOR))
    return SceneSpec(name="thrown_ball", template="thrown_ball", objects=(ball,), statics=tuple(statics),
                     camera=framing_camera(min(launch_x_m, 0.0) - 0.6, wall_x_m + 0.3, 0.0, 2.4),
                     fps=fps, num_frames=num_frames, seed=seed)


def ramp_geometry(slope_deg: float, edge_x_m: float, edge_height_m: float, length_m: float,
                  thickness_m: float = 0.05) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """Centre (m) and orientation (x, y, z, w) of a ramp box whose top face descends in +x at ``slope_deg``
    and ends at the edge (edge_x_m, edge_height_m)."""
    a = math.radians(slope_deg)
    down = np.array([math.cos(a), 0.0, -math.sin(a)])  # along the surface, downhill
    normal = np.array([math.sin(a), 0.0, math.cos(a)])  # out of the top face
    edge = np.array([edge_x_m, 0.0, edge_height_m])
    center = edge - down * (length_m / 2) - normal * (thickness_m / 2)
    # A rotation by +a about +y takes the box's x axis to ``down`` and its z axis to ``normal``.
    quat = (0.0, math.sin(a / 2), 0.0, math.cos(a / 2))
    return tuple(float(c) for c in center), quat


@scene_template
def ramp(slope_deg: float = 25.0, start_distance_m: float = 1.2, edge_x_m: float = 1.2, edge_height_m: float = 0.8,
         ramp_length_m: float = 1.6, ball_radius_m: float = 0.1, ball_mass_kg: float = 0.3,
         lateral_friction: float = 1.0, floor_rolling_friction: float = 0.05, fps: float = 16.0, num_frames: int = 81, seed: int = 0) -> SceneSpec:
    """A ball released from rest on an incline rolls ``start_distance_m`` down it, off its lower edge, and
    lands on the floor. The drop of its centre from release to the edge is ``start_distance_m * sin(slope)``,
    so rolling without slipping leaves the edge at sqrt(10/7 g * drop)."""
    if start_distance_m > ramp_length_m - ball_radius_m:
        raise ValueError("start_distance_m must leave the ball on the ramp (< ramp_length_m - ball_radius_m)")
    a = math.radians(slope_deg)
    center, quat = ramp_geometry(slope_deg, edge_x_m, edge_height_m, ramp_length_m)
    contact = np.array([edge_x_m - start_distance_m * math.cos(a), 0.0, edge_height_m + start_distance_m * math.sin(a)])
    ball_center = contact + ball_radius_m * np.array([math.sin(a), 0.0, math.cos(a)])
    ball = ObjectSpec(name="ball", shape="sphere", size_m=(ball_radius_m,), mass_kg=ball_mass_kg,
                      restitution=0.1, lateral_friction=lateral_friction, rolling_friction=0.0,
                      color_rgba=(0.9, 0.55, 0.1, 1.0), position_m=tuple(float(c) for c in ball_center))
    statics = (
        _floor(restitution=0.5, lateral_friction=0.6, rolling_friction=floor_rolling_friction),
        StaticSpec(name="ramp", kind="ramp", position_m=center, half_extents_m=(ramp_length_m / 2, 0.4, 0.025),
                   orientation_xyzw=quat, restitution=0.1, lateral_friction=lateral_friction,
                   color_rgba=(0.6, 0.45, 0.3, 1.0)),
    )
    x0 = edge_x_m - ramp_length_m * math.cos(a)
    z_top = edge_height_m + ramp_length_m * math.sin(a) + 2 * ball_radius_m
    return SceneSpec(name="ramp", template="ramp", objects=(ball,), statics=statics,
                     camera=framing_camera(x0 - 0.2, edge_x_m + 2.6, 0.0, max(z_top, 1.5)),
                     fps=fps, num_frames=num_frames, seed=seed)


@scene_template
def dominoes(n: int = 8, spacing_m: float = 0.3, height_m: float = 0.5, width_m: float = 0.25,
             thickness_m: float = 0.08, mass_kg: float = 0.3, tip_angular_velocity_radps: float = 2.0,
             spacing_jitter_m: float = 0.0, fps: float = 16.0, num_frames: int = 81, seed: int = 0) -> SceneSpec:
    """A row of ``n`` upright boxes along +x named ``domino_1`` .. ``domino_n``; the first is tipped about
    its front bottom edge (angular velocity about +y with the matching linear velocity of its centre, since
    a spin alone is absorbed by the floor). ``spacing_jitter_m`` (uniform, seeded) perturbs the gaps."""
    if n < 1:
        raise ValueError("n must be >= 1")
    rng = np.random.default_rng(seed)
    gaps = spacing_m + rng.uniform(-spacing_jitter_m, spacing_jitter_m, size=max(n - 1, 0))
    xs = np.concatenate([[0.0], np.cumsum(gaps)])
    objects = []
    palette = [(0.85, 0.2, 0.2, 1.0), (0.2, 0.45, 0.85, 1.0)]
    for i, x in enumerate(xs):
        lin = ang = (0.0, 0.0, 0.0)
        if i == 0:
            w = tip_angular_velocity_radps
            # v = w x r with r from the pivot (front bottom edge) to the centre: (-t/2, 0, h/2).
            ang = (0.0, w, 0.0)
            lin = (w * height_m / 2, 0.0, w * thickness_m / 2)
        objects.append(ObjectSpec(name=f"domino_{i + 1}", shape="box",
                                  size_m=(thickness_m / 2, width_m / 2, height_m / 2), mass_kg=mass_kg,
                                  restitution=0.2, lateral_friction=0.6, color_rgba=palette[i % 2],
                                  position_m=(float(x), 0.0, height_m / 2), linear_velocity_mps=lin,
                                  angular_velocity_radps=ang))
    return SceneSpec(name="dominoes", template="dominoes", objects=tuple(objects),
                     statics=(_floor(restitution=0.2, lateral_friction=0.6),),
                     camera=framing_camera(-0.4, float(xs[-1]) + height_m + 0.2, 0.0, height_m + 0.6),
                     fps=fps, num_frames=num_frames, seed=seed)


@scene_template
def collision(speed_a_mps: float = 2.5, speed_b_mps: float = 0.0, gap_m: float = 1.5, radius_m: float = 0.12,
              mass_a_kg: float = 0.5, mass_b_kg: float = 0.5, restitution: float = 0.9, floor_rolling_friction: float = 0.05, fps: float = 16.0,
              num_frames: int = 81, seed: int = 0) -> SceneSpec:
    """Two balls rolling on the floor along x: ``ball_a`` at x = 0 moving +x at ``speed_a_mps``, ``ball_b``
    ``gap_m`` to its right moving at ``speed_b_mps`` (negative = towards ball_a). Each starts rolling
    (angular velocity v / r about +y), so the floor does not have to spin it up."""
    def ball(name, x, v, mass, color):
        return ObjectSpec(name=name, shape="sphere", size_m=(radius_m,), mass_kg=mass, restitution=restitution,
                          lateral_friction=0.4, rolling_friction=0.002, color_rgba=color,
                          position_m=(x, 0.0, radius_m), linear_velocity_mps=(v, 0.0, 0.0),
                          angular_velocity_radps=(0.0, v / radius_m, 0.0))

    objects = (ball("ball_a", 0.0, speed_a_mps, mass_a_kg, (0.85, 0.15, 0.1, 1.0)),
               ball("ball_b", gap_m, speed_b_mps, mass_b_kg, (0.15, 0.35, 0.9, 1.0)))
    return SceneSpec(name="collision", template="collision", objects=objects,
                     statics=(_floor(restitution=0.5, lateral_friction=0.4, rolling_friction=floor_rolling_friction),),
                     camera=framing_camera(-0.5, gap_m + 2.5, 0.0, 1.0), fps=fps, num_frames=num_frames,
                     seed=seed)
