"""Random simulated worlds for the benchmark: a ``sim.types.SceneSpec`` plus what the prompt needs to know.

One sampler feeds both simulated pixel sources (PyBullet's TinyRenderer and the project's analytic ray caster),
so a scene kind looks different in each only through the renderer. The draws vary what makes a critic's life hard:
resolution (64 px up to 848x480), frame rate (8-30 fps), length, camera height and pitch, 1-6 objects of three
shapes and many sizes, colours close to the floor's, speeds, and a pillar that occludes part of the motion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from experiments.benchmark.clipdata import PALETTE
from sim.types import CameraSpec, ObjectSpec, SceneSpec, StaticSpec

KINDS = ("drop", "throw", "roll", "collide")
RESOLUTIONS = ((64, 64), (96, 72), (128, 96), (160, 120), (192, 144), (224, 168), (256, 192), (320, 240),
               (424, 240), (640, 360), (848, 480))
FPS_CHOICES = (8.0, 10.0, 12.0, 15.0, 20.0, 24.0, 25.0, 30.0)
FLOOR_CHOICES = (("grey", "white"), ("white", "black"), ("blue", "white"), ("brown", "yellow"), ("grey", "grey"),
                 ("green", "white"), ("white", "white"))
WALL_COLOR_CHOICES = ("white", "grey", "blue", "yellow", "pink", "teal")
#: Pixel-frames above which a clip is shortened (keeps the default build within minutes on one core).
MAX_PIXEL_FRAMES = 848 * 480 * 16


@dataclass
class ObjectRole:
    name: str
    shape: str
    color: str
    role: str            # drop | rest | throw | roll | strike | struck
    bouncy: bool = False
    direction: int = 0   # +1 right, -1 left (throw, roll, strike)
    size_word: str | None = None


@dataclass
class World:
    kind: str
    spec: SceneSpec
    roles: dict[str, ObjectRole]
    floor_colors: tuple[str, str]
    wall_color: str
    wall_name: str | None = None          # the side wall the motion heads for
    notes: list[str] = field(default_factory=list)

    @property
    def camera(self) -> dict[str, float]:
        c = self.spec.camera
        dx, dy, dz = (np.asarray(c.target_m) - np.asarray(c.eye_m)).tolist()
        return {"height_m": round(c.eye_m[2], 4), "pitch_deg": round(math.degrees(math.atan2(dz, math.hypot(dx, dy))), 3),
                "yaw_deg": round(math.degrees(math.atan2(dx, dy)), 3), "fov_deg": round(c.fov_deg, 3),
                "distance_m": round(math.dist(c.eye_m, c.target_m), 4)}


def rgba(color: str) -> tuple[float, float, float, float]:
    return (*PALETTE[color], 1.0)


def _size(rng: np.random.Generator, shape: str) -> tuple[float, ...]:
    if shape == "sphere":
        return (round(float(rng.uniform(0.12, 0.3)), 3),)
    if shape == "box":
        h = float(rng.uniform(0.1, 0.22))
        return (round(h, 3), round(h, 3), round(h, 3))
    return (round(float(rng.uniform(0.1, 0.2)), 3), round(float(rng.uniform(0.25, 0.5)), 3))


def half_height(shape: str, size: tuple[float, ...]) -> float:
    return size[0] if shape in ("sphere", "box") else size[1] / 2


def radius_of(shape: str, size: tuple[float, ...]) -> float:
    """A typical radius (m) to measure defects in: the sphere's radius, the box's half edge, the cylinder's
    radius."""
    return float(size[0])


def sample_world(rng: np.random.Generator, *, kind: str | None = None, min_objects: int = 1,
                 max_objects: int = 6, max_width: int = 848, fps: float | None = None,
                 max_pixel_frames: int = MAX_PIXEL_FRAMES) -> World:
    """A world of ``kind`` (drawn when None) at a resolution no wider than ``max_width``."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    width, height = RESOLUTIONS[int(rng.choice(len(RESOLUTIONS), p=_resolution_weights()))]
    if width > max_width:
        width, height = max((r for r in RESOLUTIONS if r[0] <= max_width), default=RESOLUTIONS[0])
    fps = float(fps or FPS_CHOICES[int(rng.integers(len(FPS_CHOICES)))])
    duration = float(rng.uniform(1.4, 2.8))
    num_frames = max(12, int(round(duration * fps)) + 1)
    num_frames = max(10, min(num_frames, max_pixel_frames // (width * height)))

    floor_colors = FLOOR_CHOICES[int(rng.integers(len(FLOOR_CHOICES)))]
    wall_color = WALL_COLOR_CHOICES[int(rng.integers(len(WALL_COLOR_CHOICES)))]
    statics = [StaticSpec(name="floor", kind="floor", position_m=(0.0, 0.0, -0.05), half_extents_m=(8.0, 8.0, 0.05),
                          restitution=0.9, lateral_friction=0.5, rolling_friction=0.002,
                          color_rgba=rgba(floor_colors[0])),
               StaticSpec(name="back_wall", kind="wall", position_m=(0.0, 3.0, 1.5), half_extents_m=(8.0, 0.05, 1.5),
                          color_rgba=rgba(wall_color))]

    min_n = {"drop": 1, "throw": 1, "roll": 1, "collide": 2}[kind]
    n = int(np.clip(rng.integers(max(min_n, min_objects), max_objects + 1), max(min_n, min_objects), max_objects))
    colors = [str(c) for c in rng.permutation(list(PALETTE))]
    if rng.random() < 0.2:  # a near-background colour: the floor's own, first
        colors = [floor_colors[0]] + [c for c in colors if c != floor_colors[0]]
    direction = 1 if rng.random() < 0.5 else -1
    wall_name = None
    roles: dict[str, ObjectRole] = {}
    objects: list[ObjectSpec] = []
    used_names: set[str] = set()

    def add(shape, color, role, position, velocity=(0.0, 0.0, 0.0), bouncy=False, size=None, spin=(0.0, 0.0, 0.0)):
        size = size or _size(rng, shape)
        base = f"{color}_{ {'sphere': 'ball', 'box': 'cube', 'cylinder': 'cylinder'}[shape] }".replace(" ", "")
        name, i = base, 2
        while name in used_names:
            name, i = f"{base}_{i}", i + 1
        used_names.add(name)
        restitution = round(float(rng.uniform(0.75, 0.92)), 3) if bouncy else round(float(rng.uniform(0.1, 0.35)), 3)
        objects.append(ObjectSpec(name=name, shape=shape, size_m=size, mass_kg=round(float(rng.uniform(0.2, 1.5)), 3),
                                  restitution=restitution, lateral_friction=0.5, rolling_friction=0.001,
                                  color_rgba=rgba(color), position_m=tuple(float(v) for v in position),
                                  linear_velocity_mps=tuple(float(v) for v in velocity),
                                  angular_velocity_radps=tuple(float(v) for v in spin)))
        size_word = None
        r = size[0]
        if r < 0.14:
            size_word = "small"
        elif r > 0.25:
            size_word = "large"
        roles[name] = ObjectRole(name, shape, color, role, bouncy=bouncy, direction=direction if role in
                                 ("throw", "roll", "strike") else 0, size_word=size_word)
        return name, size

    # Slots along x for the objects that do not carry the main motion (apart enough not to touch).
    slots = list(np.linspace(-1.5, 1.5, 7))
    rng.shuffle(slots)

    if kind == "throw":
        r = float(rng.uniform(0.1, 0.22))
        speed, angle = float(rng.uniform(2.6, 4.0)), math.radians(float(rng.uniform(25, 55)))
        add("sphere", colors.pop(0), "throw", (-direction * 1.6, 0.0, float(rng.uniform(0.5, 1.1))),
            (direction * speed * math.cos(angle), 0.0, speed * math.sin(angle)), bouncy=True, size=(round(r, 3),))
    elif kind == "roll":
        r = float(rng.uniform(0.1, 0.24))
        v = float(rng.uniform(1.6, 3.2))
        add("sphere", colors.pop(0), "roll", (-direction * 1.5, 0.0, r), (direction * v, 0.0, 0.0),
            size=(round(r, 3),), spin=(0.0, direction * v / r, 0.0))
    elif kind == "collide":
        r = float(rng.uniform(0.1, 0.22))
        v = float(rng.uniform(2.0, 3.2))
        add("sphere", colors.pop(0), "strike", (-direction * 1.4, 0.0, r), (direction * v, 0.0, 0.0),
            size=(round(r, 3),), spin=(0.0, direction * v / r, 0.0))
        add("sphere", colors.pop(0), "struck", (direction * 0.2, 0.0, r), size=(round(r, 3),))
    if kind in ("throw", "roll"):
        wall_name = "wall"
        statics.append(StaticSpec(name="wall", kind="wall", position_m=(direction * 2.05, 0.0, 0.5),
                                  half_extents_m=(0.05, 0.6, 0.5), restitution=0.8, color_rgba=rgba(wall_color)))

    heights_used: list[float] = []
    while len(objects) < n:
        shape = ("sphere", "box", "cylinder")[int(rng.choice(3, p=(0.5, 0.3, 0.2)))]
        x = float(slots.pop()) if slots else float(rng.uniform(-1.5, 1.5))
        y = 0.0 if kind == "drop" else float(rng.uniform(0.7, 1.3))
        size = _size(rng, shape)
        falls = kind == "drop" or rng.random() < 0.5
        if falls:
            # Drop heights at least 0.2 m apart (distinct landing times), drawn from what is left of the range.
            free = [v for v in np.arange(0.5, 2.0, 0.05) if all(abs(v - u) >= 0.2 for u in heights_used)]
            h = float(free[int(rng.integers(len(free)))]) if free else float(rng.uniform(0.5, 1.9))
            heights_used.append(h)
            add(shape, colors.pop(0), "drop", (x, y, h), bouncy=shape == "sphere" and rng.random() < 0.7, size=size)
        else:
            add(shape, colors.pop(0), "rest", (x, y, half_height(shape, size) + 0.001), size=size)

    if rng.random() < 0.3:  # a pillar between the camera and part of the motion
        statics.append(StaticSpec(name="pillar", kind="block", position_m=(float(rng.uniform(-0.8, 0.8)), -0.9, 0.6),
                                  half_extents_m=(0.1, 0.1, 0.6), color_rgba=rgba(wall_color)))

    fov = float(rng.uniform(42, 62))
    distance = float(rng.uniform(3.2, 4.4))
    cam_h = float(rng.uniform(0.5, 2.6))
    yaw = math.radians(float(rng.uniform(-20, 20)))
    target = (0.0, 0.0, float(rng.uniform(0.35, 0.8)))
    eye = (distance * math.sin(yaw), -distance * math.cos(yaw), cam_h)
    camera = CameraSpec(eye_m=eye, target_m=target, fov_deg=fov, width_px=width, height_px=height, near_m=0.1,
                        far_m=30.0)
    substeps = math.ceil(240.0 / fps)
    spec = SceneSpec(name=kind, template=f"benchmark_{kind}", objects=tuple(objects), statics=tuple(statics),
                     camera=camera, fps=fps, num_frames=num_frames, physics_hz=fps * substeps)
    return World(kind=kind, spec=spec, roles=roles, floor_colors=floor_colors, wall_color=wall_color,
                 wall_name=wall_name)


def _resolution_weights() -> np.ndarray:
    w = np.array([3, 2, 3, 3, 2, 2, 2, 2, 1, 1, 1], dtype=float)
    return w / w.sum()
