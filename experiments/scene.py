"""The simulated side of a release-point job: a scene at the generator's size, its trajectory, its control.

A scene template (``conf/scene/``) or a revised spec from a sim run gives the physics; the experiment sets
the video's size, frame count and rate so the control video has exactly the generator's T x H x W. A
change of aspect ratio keeps the horizontal field of view (the motion runs along image x), so nothing
the template framed leaves the picture.

Before anything is generated, :func:`require_measurable` checks that the fitted scene can be measured with
the configured generator (:class:`~experiments.types.SceneRequirements`): the tracked object's apparent
radius inside the range the generator renders, an airborne phase and an after-contact phase long enough to
correlate, and the object in the picture while both are scored. A scene that falls short is refused with
its reasons; it is never scored as empty cells.

A framing may also view the scene from the other side (``mirror``: ``never``, ``odd_seeds``, ``always``): the
scene templates are symmetric about their motion plane y = 0, so a camera reflected in that plane sees the
mirror image of the same motion (image x -> W - x), and the projected path, the control video and the score
are all of that mirrored picture. ``odd_seeds`` counterbalances the direction of motion over a sweep's seeds:
a generator that drifts one way without control then cannot score the control's direction for itself (the
tracked identity is chosen without looking at the path: ``experiments.tracking.longest_track``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from control.types import ControlVideo
from experiments.retention import window_frame_masks
from experiments.types import SceneRequirements, VideoSize
from generate.data import frame_camera
from sim.camera import focal_length_px
from sim.camera import project as project_points
from sim.engine import simulate
from sim.types import ObjectSpec, SceneSpec, Trajectory
from veriphy.errors import UserError

__all__ = ["VideoSize", "SimulatedScene", "fit_spec_to_video", "TemplateFraming", "PathFraming", "simulate_scene",
           "object_radius_px", "measurability_problems", "require_measurable", "MirrorRule", "mirrored_view",
           "mirror_asymmetries", "Framing", "floor_room_box_bottom"]

#: When a framing views the scene from the other side: never, for odd seeds (the direction of motion
#: counterbalanced over a sweep's seeds), or always.
MirrorRule = Literal["never", "odd_seeds", "always"]
#: How far (m, m/s, rad/s, quaternion units) a value may sit off the plane y = 0 and still count as symmetric.
_SYMMETRY_TOLERANCE = 1e-9


def fit_spec_to_video(spec: SceneSpec, size: VideoSize) -> SceneSpec:
    """``spec`` rendered at ``size``: same camera pose and horizontal field of view, new pixels and frames."""
    cam = spec.camera
    tan_h = math.tan(math.radians(cam.fov_deg) / 2) * cam.width_px / cam.height_px
    fov_deg = math.degrees(2 * math.atan(tan_h * size.height / size.width))
    camera = cam.model_copy(update={"width_px": int(size.width), "height_px": int(size.height),
                                    "fov_deg": float(min(fov_deg, 170.0))})
    return SceneSpec.model_validate({**spec.model_dump(mode="json"), "camera": camera.model_dump(mode="json"),
                                     "num_frames": int(size.num_frames), "fps": float(size.fps)})


def mirror_asymmetries(spec: SceneSpec) -> list[str]:
    """What in ``spec`` is not symmetric about the plane y = 0 (empty: its mirror image is the view from the
    other side). A body is symmetric when its centre lies in the plane, it moves in it, spins only about y
    and is turned only about y (a reflection in y = 0 keeps such a rotation)."""
    tol = _SYMMETRY_TOLERANCE
    problems = []
    for body in (*spec.objects, *spec.statics):
        qx, _, qz, _ = body.orientation_xyzw
        off = []
        if abs(body.position_m[1]) > tol:
            off.append(f"its centre is at y = {body.position_m[1]:g} m")
        if abs(qx) > tol or abs(qz) > tol:
            off.append("it is turned about an axis other than y")
        if isinstance(body, ObjectSpec):
            if abs(body.linear_velocity_mps[1]) > tol:
                off.append(f"it moves along y at {body.linear_velocity_mps[1]:g} m/s")
            wx, _, wz = body.angular_velocity_radps
            if abs(wx) > tol or abs(wz) > tol:
                off.append("it spins about an axis other than y")
        if off:
            problems.append(f"{body.name}: {', '.join(off)}")
    return problems


def mirrored_view(spec: SceneSpec) -> SceneSpec:
    """``spec`` seen from the other side: its camera reflected in the plane y = 0 (eye, target and up). For a
    scene symmetric about that plane (:func:`mirror_asymmetries`) the picture is the mirror image of the
    original: a point at image x is at W - x (the projection's centre is x = W/2), at the same row and depth.
    The physics is untouched (the trajectory is the same); a scene that is not symmetric is refused. (The scene
    reflected in x, ``generate.data.mirror_x``, also moves the other way, but is simulated again, so its
    trajectory is the mirror image only up to the solver's rounding; here both views share one solve.)"""
    problems = mirror_asymmetries(spec)
    if problems:
        raise UserError("cannot be mirrored by viewing it from the other side, since it is not symmetric about "
                        f"the plane y = 0: {'; '.join(problems)}", field="framing.mirror")
    cam = spec.camera

    def reflect(v: tuple[float, float, float]) -> tuple[float, float, float]:
        return (float(v[0]), -float(v[1]), float(v[2]))

    camera = cam.model_copy(update={"eye_m": reflect(cam.eye_m), "target_m": reflect(cam.target_m),
                                    "up": reflect(cam.up)})
    return SceneSpec.model_validate({**spec.model_dump(mode="json"), "camera": camera.model_dump(mode="json")})


class Framing:
    """A framing (``conf/framing/``): ``framing(spec, size, object_name, seed) -> SceneSpec`` fits the scene's
    camera to the video (:meth:`frame`) and, where ``mirror`` says so for ``seed``, views it from the other
    side (:func:`mirrored_view`)."""

    def __init__(self, mirror: MirrorRule = "never"):
        if mirror not in get_args(MirrorRule):
            raise UserError(f"must be one of {', '.join(get_args(MirrorRule))}, got {mirror!r}",
                            field="framing.mirror")
        self.mirror = mirror

    def mirrors(self, seed: int) -> bool:
        """Whether the job of ``seed`` sees the scene mirrored."""
        return self.mirror == "always" or (self.mirror == "odd_seeds" and int(seed) % 2 == 1)

    def frame(self, spec: SceneSpec, size: VideoSize, object_name: str | None) -> SceneSpec:
        raise NotImplementedError

    def __call__(self, spec: SceneSpec, size: VideoSize, object_name: str | None = None, seed: int = 0) -> SceneSpec:
        framed = self.frame(spec, size, object_name)
        return mirrored_view(framed) if self.mirrors(seed) else framed


class TemplateFraming(Framing):
    """``framing=template``: the scene's own camera at the video's size (:func:`fit_spec_to_video`)."""

    def frame(self, spec: SceneSpec, size: VideoSize, object_name: str | None = None) -> SceneSpec:
        return fit_spec_to_video(spec, size)


class PathFraming(Framing):
    """``framing=path``: a camera at the video's size that frames the tracked object's whole path and the floor
    below it, ``margin`` times the tightest fit (``generate.data.frame_camera``: the framing of half the tiny
    model's training clips). A template camera framed for 848x480 wastes most of a square picture on a tall
    scene (a ball rolling off a high ramp is 2 px at 64x64); this one gives the object the picture.

    ``floor_room``: the least fraction of the picture's height left between the object's lowest point (its
    bottom where it lies on the floor) and the picture's bottom edge. A tall path framed tightly puts the landed
    object at the bottom edge, where the tiny model draws it faint and the tracker loses it; the framing then
    extends below the floor just enough (``generate.data.floor_room_box_bottom``). A path whose framing
    already leaves that room (a wide one) keeps its camera."""

    def __init__(self, margin: float = 1.15, floor_room: float = 0.0, mirror: MirrorRule = "never"):
        super().__init__(mirror)
        if margin < 1.0:
            raise UserError(f"must be >= 1 (1 = the path touches the picture's edges), got {margin}",
                            field="framing.margin")
        if not 0.0 <= floor_room < 0.5:
            raise UserError(f"must be in [0, 0.5) (a fraction of the picture's height), got {floor_room}",
                            field="framing.floor_room")
        self.margin = margin
        self.floor_room = float(floor_room)

    def frame(self, spec: SceneSpec, size: VideoSize, object_name: str | None = None) -> SceneSpec:
        fitted = fit_spec_to_video(spec, size)
        traj = simulate(fitted)  # the camera does not change the physics: one solve finds the path to frame
        if not traj.ok or (object_name is not None and object_name not in traj.object_names):
            return fitted  # simulate_scene reports the failure or the unknown name
        return frame_camera(fitted, traj, width_px=size.width, height_px=size.height, margin=self.margin,
                            object_name=object_name, floor_room=self.floor_room)


@dataclass(frozen=True)
class SimulatedScene:
    """A scene solved and rendered for one job.

    * ``path_px`` (T, 2): the tracked object's projected centre (x right, y down) px, NaN behind the camera.
    * ``window_masks``: ``airborne`` / ``after_ground`` frame masks (T,) bool of the tracked object.
    * ``radius_px`` (T,): the tracked object's apparent radius, px (:func:`object_radius_px`).
    * ``mirrored``: the framing viewed the scene from the other side (:func:`mirrored_view`).
    """

    spec: SceneSpec
    trajectory: Trajectory
    control: ControlVideo
    object_name: str
    path_px: np.ndarray
    window_masks: dict[str, np.ndarray]
    radius_px: np.ndarray
    mirrored: bool = False


def simulate_scene(spec: SceneSpec, size: VideoSize, control_renderer, object_name: str | None = None,
                   time_tolerance_s: float = 1e-6, framing: Framing | None = None, seed: int = 0) -> SimulatedScene:
    """Fit ``spec`` to ``size``, simulate it, render the control video and project the object's path.

    ``control_renderer(spec, trajectory) -> ControlVideo`` is the configured control (``conf/control/``);
    ``framing(spec, size, object_name, seed) -> SceneSpec`` the configured framing (``conf/framing/``; default:
    the template's camera, :class:`TemplateFraming`); ``seed`` is the job's (a framing may mirror odd seeds).
    """
    framing = framing or TemplateFraming()
    spec = framing(spec, size, object_name, seed)
    traj = simulate(spec)
    if not traj.ok:
        raise UserError(f"the scene cannot be simulated: {traj.status}", field="scene")
    name = object_name or spec.objects[0].name
    try:
        k = traj.index(name)
    except KeyError as exc:
        raise UserError(str(exc.args[0]), field="object_name") from None
    control = control_renderer(spec, traj)
    if control.shape_thw != (size.num_frames, size.height, size.width):
        raise UserError(f"control video is {control.shape_thw}, the generator needs "
                        f"{(size.num_frames, size.height, size.width)} (T, H, W)", field="control")
    path = np.array(control.centers_px[:, k, :], dtype=np.float64)
    masks = window_frame_masks(traj.t_s, traj.windows, name, time_tolerance_s)
    return SimulatedScene(spec=spec, trajectory=traj, control=control, object_name=name, path_px=path,
                          window_masks=masks, radius_px=object_radius_px(spec, traj, name),
                          mirrored=framing.mirrors(seed))


def object_radius_px(spec: SceneSpec, traj: Trajectory, name: str) -> np.ndarray:
    """Apparent radius (T,) px of object ``name``: its bounding radius (m) times the focal length (px) over
    its centre's depth along the viewing axis (m); NaN where the centre is behind the camera."""
    k = traj.index(name)
    _, depth = project_points(spec.camera, np.asarray(traj.position_m, dtype=np.float64)[k])
    radius = spec.object(name).bounding_radius_m * focal_length_px(spec.camera) / np.where(depth > 0, depth, np.nan)
    return np.asarray(radius, dtype=np.float64)


def _frames(mask: np.ndarray) -> str:
    idx = np.flatnonzero(mask)
    return f"{idx[0]}-{idx[-1]}" if idx.size > 1 else str(idx[0])


def measurability_problems(scene: SimulatedScene, requirements: SceneRequirements) -> list[str]:
    """Why ``scene`` cannot be measured under ``requirements`` (empty: it can). Each reason names the
    requirement's key (``measurable.*``, or ``generator.object_radius_px`` for the radius range)."""
    req = requirements
    name, fps = scene.object_name, scene.spec.fps
    airborne, after = scene.window_masks["airborne"], scene.window_masks["after_ground"]
    problems = []
    if airborne.sum() < req.min_airborne_frames:
        problems.append(f"{name} is airborne for {int(airborne.sum())} frame(s) at {fps:g} fps, fewer than "
                        f"{req.min_airborne_frames} (measurable.min_airborne_frames)")
    if after.sum() < req.min_after_ground_frames:
        problems.append(f"{name} has {int(after.sum())} frame(s) from its first ground contact to the end, fewer "
                        f"than {req.min_after_ground_frames} (measurable.min_after_ground_frames)")
    scored = airborne | after
    if not scored.any():
        return problems
    width, height = scene.spec.camera.width_px, scene.spec.camera.height_px
    if req.object_radius_px is not None:
        lo, hi = req.object_radius_px
        radius = scene.radius_px[scored]
        if not (np.all(np.isfinite(radius)) and radius.min() >= lo and radius.max() <= hi):
            smallest, largest = f"{np.nanmin(radius):.1f}", f"{np.nanmax(radius):.1f}"
            size = smallest if smallest == largest else f"{smallest}-{largest}"
            problems.append(f"{name} is {size} px in radius at {width}x{height}, the generator renders "
                            f"{lo:g}-{hi:g} px (generator.object_radius_px; the scene's object size sets it)")
    m = req.margin_px
    x, y = scene.path_px[:, 0], scene.path_px[:, 1]
    inside = (x >= m) & (x <= width - 1 - m) & (y >= m) & (y <= height - 1 - m)  # False where NaN
    outside = scored & ~inside
    if outside.any():
        problems.append(f"{name}'s centre leaves the picture (or comes within {m:g} px of its edge) in frame(s) "
                        f"{_frames(outside)} while it is scored (measurable.margin_px)")
    return problems


def require_measurable(scene: SimulatedScene, requirements: SceneRequirements) -> None:
    """Refuse (``UserError`` on ``scene``) a scene whose retention cannot be measured, with every reason."""
    problems = measurability_problems(scene, requirements)
    if problems:
        raise UserError(f"cannot be measured with this generator at this size: {'; '.join(problems)}",
                        field="scene")
