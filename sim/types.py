"""Artifacts owned by the ``sim`` stage: ``SceneSpec``, ``Trajectory``, ``PredicateReport``.

Conventions (every stage relies on them):

* World frame: metres, z up, gravity along -z. The camera looks roughly along +y, so image x ~ world x
  and image up ~ world z.
* Time: seconds from the start of the clip. Frame ``k`` is sampled at ``t = k / fps``.
* Quaternions are ``(x, y, z, w)`` as PyBullet returns them.

This module imports only the standard library, numpy and pydantic (docs/architecture.md §2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
RGBA = tuple[float, float, float, float]


def _finite(name: str, values) -> None:
    for v in values if isinstance(values, (tuple, list)) else (values,):
        if not math.isfinite(float(v)):
            raise ValueError(f"{name} must be finite, got {v}")


def require_unique(names: list[str], what: str) -> None:
    if len(set(names)) != len(names):
        raise ValueError(f"{what} names must be unique, got {names}")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectSpec(_Frozen):
    """A dynamic rigid body.

    ``size_m`` depends on ``shape``: sphere ``(radius,)``; box ``(half_x, half_y, half_z)``;
    cylinder ``(radius, height)``.
    """

    name: str = Field(min_length=1)
    shape: Literal["sphere", "box", "cylinder"] = "sphere"
    size_m: tuple[float, ...] = (0.1,)
    mass_kg: Annotated[float, Field(gt=0)] = 1.0
    restitution: Annotated[float, Field(ge=0, le=1)] = 0.8
    lateral_friction: Annotated[float, Field(ge=0)] = 0.5
    rolling_friction: Annotated[float, Field(ge=0)] = 0.0
    spinning_friction: Annotated[float, Field(ge=0)] = 0.0
    linear_damping: Annotated[float, Field(ge=0)] = 0.0
    angular_damping: Annotated[float, Field(ge=0)] = 0.0
    color_rgba: RGBA = (0.85, 0.15, 0.1, 1.0)
    position_m: Vec3 = (0.0, 0.0, 1.0)
    orientation_xyzw: Quat = (0.0, 0.0, 0.0, 1.0)
    linear_velocity_mps: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity_radps: Vec3 = (0.0, 0.0, 0.0)

    @model_validator(mode="after")
    def _check(self) -> "ObjectSpec":
        expected = {"sphere": 1, "box": 3, "cylinder": 2}[self.shape]
        if len(self.size_m) != expected:
            raise ValueError(f"size_m for a {self.shape} needs {expected} value(s), got {len(self.size_m)}")
        for name in ("size_m", "position_m", "orientation_xyzw", "linear_velocity_mps", "angular_velocity_radps"):
            _finite(name, getattr(self, name))
        if any(s <= 0 for s in self.size_m):
            raise ValueError("size_m values must be > 0")
        return self

    @property
    def bounding_radius_m(self) -> float:
        """Radius of the smallest sphere about the centre that contains the body (m)."""
        if self.shape == "sphere":
            return self.size_m[0]
        if self.shape == "box":
            return float(np.linalg.norm(self.size_m))
        r, h = self.size_m
        return float(math.hypot(r, h / 2))


class StaticSpec(_Frozen):
    """Fixed geometry (mass 0). All kinds are boxes given by centre, half extents and orientation.

    ``kind`` tells predicates what the body is: ``floor`` (ground contact), ``wall``, ``ramp``, ``target``
    (a region marker; it has no collision shape when ``collides`` is false).
    """

    name: str = Field(min_length=1)
    kind: Literal["floor", "wall", "ramp", "target", "block"]
    position_m: Vec3
    half_extents_m: Vec3
    orientation_xyzw: Quat = (0.0, 0.0, 0.0, 1.0)
    restitution: Annotated[float, Field(ge=0, le=1)] = 0.9
    lateral_friction: Annotated[float, Field(ge=0)] = 0.5
    rolling_friction: Annotated[float, Field(ge=0)] = 0.0
    color_rgba: RGBA = (0.6, 0.6, 0.6, 1.0)
    collides: bool = True
    visible: bool = True

    @model_validator(mode="after")
    def _check(self) -> "StaticSpec":
        for name in ("position_m", "half_extents_m", "orientation_xyzw"):
            _finite(name, getattr(self, name))
        if any(s <= 0 for s in self.half_extents_m):
            raise ValueError("half_extents_m values must be > 0")
        return self


class CameraSpec(_Frozen):
    """A pinhole camera. ``fov_deg`` is the vertical field of view; image is ``width_px`` x ``height_px``."""

    eye_m: Vec3 = (1.0, -5.0, 1.0)
    target_m: Vec3 = (1.0, 0.0, 1.0)
    up: Vec3 = (0.0, 0.0, 1.0)
    fov_deg: Annotated[float, Field(gt=1, lt=179)] = 50.0
    width_px: Annotated[int, Field(gt=0, le=4096)] = 848
    height_px: Annotated[int, Field(gt=0, le=4096)] = 480
    near_m: Annotated[float, Field(gt=0)] = 0.1
    far_m: Annotated[float, Field(gt=0)] = 50.0

    @model_validator(mode="after")
    def _check(self) -> "CameraSpec":
        if self.far_m <= self.near_m:
            raise ValueError(f"far_m ({self.far_m}) must exceed near_m ({self.near_m})")
        # A camera must have a viewing direction and an up that is not along it: otherwise its image plane is
        # undefined (a zero or NaN rotation), and every projection of it would be NaN.
        view = np.subtract(self.target_m, self.eye_m)
        view_norm, up_norm = float(np.linalg.norm(view)), float(np.linalg.norm(self.up))
        if view_norm < 1e-9:
            raise ValueError(f"eye_m and target_m are the same point {tuple(self.eye_m)}: the camera has no viewing "
                             "direction")
        if up_norm < 1e-9:
            raise ValueError("up is the zero vector")
        sine = float(np.linalg.norm(np.cross(view / view_norm, np.asarray(self.up) / up_norm)))
        if sine < 1e-6:
            raise ValueError(f"up {tuple(self.up)} is parallel to the viewing direction (target_m - eye_m): the "
                             "image's vertical is undefined")
        return self


class SceneSpec(_Frozen):
    """Everything needed to simulate and render one scene. JSON-serialisable; its JSON schema is the
    LLM author's output schema."""

    name: str = "scene"
    template: str = Field("custom", description="the scene template this spec was built from")
    objects: tuple[ObjectSpec, ...] = Field(min_length=1)
    statics: tuple[StaticSpec, ...] = ()
    camera: CameraSpec = CameraSpec()
    fps: Annotated[float, Field(gt=0, le=240)] = 16.0
    num_frames: Annotated[int, Field(gt=0, le=2000)] = 81
    physics_hz: Annotated[float, Field(ge=60, le=10000)] = 240.0
    gravity_mps2: Vec3 = (0.0, 0.0, -9.81)
    seed: int = 0

    @field_validator("objects")
    @classmethod
    def _unique_names(cls, objects):
        require_unique([o.name for o in objects], "object")
        return objects

    @property
    def duration_s(self) -> float:
        return (self.num_frames - 1) / self.fps

    def object(self, name: str) -> ObjectSpec:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(f"no object named {name!r}; objects are {[o.name for o in self.objects]}")

    def static(self, name: str) -> StaticSpec:
        for s in self.statics:
            if s.name == name:
                return s
        raise KeyError(f"no static named {name!r}; statics are {[s.name for s in self.statics]}")


# --------------------------------------------------------------------------------------------------
# Trajectory
# --------------------------------------------------------------------------------------------------


class Window(_Frozen):
    """A closed time interval [start_s, end_s] in seconds."""

    start_s: float
    end_s: float

    @property
    def length_s(self) -> float:
        return self.end_s - self.start_s


class ContactEvent(_Frozen):
    """A contact that began at ``time_s`` (physics-step resolution) between two named bodies."""

    time_s: float
    body_a: str
    body_b: str
    impulse_ns: float = Field(description="normal impulse summed over the first steps of the contact "
                                            "(3 physics steps by default), N*s")
    position_m: Vec3 = (0.0, 0.0, 0.0)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class Trajectory:
    """A simulated motion, sampled at the clip's frames and at the physics rate.

    Arrays (K objects, T frames, P physics steps):

    * ``t_s`` (T,) frame times, s.
    * ``position_m`` (K, T, 3) centre of mass, world frame, m.
    * ``orientation_xyzw`` (K, T, 4).
    * ``linear_velocity_mps`` (K, T, 3); ``angular_velocity_radps`` (K, T, 3).
    * ``physics_t_s`` (P,) and ``physics_position_m`` (K, P, 3): the same at every physics step (for
      contact-precise predicates and tests).

    ``windows`` maps names like ``"ball/airborne"``, ``"ball/first_ground_contact"``, ``"ball/rest"``,
    ``"domino_3/fall"`` to a :class:`Window`. ``status`` is ``"ok"`` or why the simulation is invalid
    (``"nan in state of ball at t=1.23 s"``, ``"ball left the world at t=..."``).
    """

    object_names: tuple[str, ...]
    t_s: np.ndarray
    position_m: np.ndarray
    orientation_xyzw: np.ndarray
    linear_velocity_mps: np.ndarray
    angular_velocity_radps: np.ndarray
    physics_t_s: np.ndarray
    physics_position_m: np.ndarray
    contacts: tuple[ContactEvent, ...] = ()
    windows: dict[str, Window] = field(default_factory=dict)
    status: str = "ok"
    spec_sha256: str = ""

    def __post_init__(self) -> None:
        for name in ("t_s", "position_m", "orientation_xyzw", "linear_velocity_mps", "angular_velocity_radps",
                     "physics_t_s", "physics_position_m"):
            object.__setattr__(self, name, _readonly(np.asarray(getattr(self, name), dtype=np.float64)))

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def index(self, name: str) -> int:
        try:
            return self.object_names.index(name)
        except ValueError:
            raise KeyError(f"no object named {name!r}; objects are {list(self.object_names)}") from None


# --------------------------------------------------------------------------------------------------
# Predicate report
# --------------------------------------------------------------------------------------------------


class PredicateResult(_Frozen):
    """One predicate's outcome. ``residual`` is signed where a direction exists (e.g. -0.40 m = short)
    and 0 when the predicate holds; ``message`` says it in words with units."""

    name: str
    kind: str
    holds: bool
    residual: float
    unit: str
    message: str
    window: Window | None = None
    details: dict[str, float | str | int | bool | None] = Field(default_factory=dict)


class PredicateReport(_Frozen):
    results: tuple[PredicateResult, ...]
    trajectory_status: str = "ok"

    @property
    def all_hold(self) -> bool:
        return self.trajectory_status == "ok" and all(r.holds for r in self.results)
