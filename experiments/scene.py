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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from control.types import ControlVideo
from experiments.retention import window_frame_masks
from experiments.types import SceneRequirements, VideoSize
from generate.data import frame_camera
from sim.camera import focal_length_px
from sim.camera import project as project_points
from sim.engine import simulate
from sim.types import SceneSpec, Trajectory
from veriphy.errors import UserError

__all__ = ["VideoSize", "SimulatedScene", "fit_spec_to_video", "TemplateFraming", "PathFraming", "simulate_scene",
           "object_radius_px", "measurability_problems", "require_measurable"]


def fit_spec_to_video(spec: SceneSpec, size: VideoSize) -> SceneSpec:
    """``spec`` rendered at ``size``: same camera pose and horizontal field of view, new pixels and frames."""
    cam = spec.camera
    tan_h = math.tan(math.radians(cam.fov_deg) / 2) * cam.width_px / cam.height_px
    fov_deg = math.degrees(2 * math.atan(tan_h * size.height / size.width))
    camera = cam.model_copy(update={"width_px": int(size.width), "height_px": int(size.height),
                                    "fov_deg": float(min(fov_deg, 170.0))})
    return SceneSpec.model_validate({**spec.model_dump(mode="json"), "camera": camera.model_dump(mode="json"),
                                     "num_frames": int(size.num_frames), "fps": float(size.fps)})


class TemplateFraming:
    """``framing=template``: the scene's own camera at the video's size (:func:`fit_spec_to_video`)."""

    def __call__(self, spec: SceneSpec, size: VideoSize, object_name: str | None = None) -> SceneSpec:
        return fit_spec_to_video(spec, size)


class PathFraming:
    """``framing=path``: a camera at the video's size that frames the tracked object's whole path and the floor
    below it, ``margin`` times the tightest fit (``generate.data.frame_camera``: the framing of half the tiny
    model's training clips). A template camera framed for 848x480 wastes most of a square picture on a tall
    scene (a ball rolling off a high ramp is 2 px at 64x64); this one gives the object the picture."""

    def __init__(self, margin: float = 1.15):
        if margin < 1.0:
            raise UserError(f"must be >= 1 (1 = the path touches the picture's edges), got {margin}",
                            field="framing.margin")
        self.margin = margin

    def __call__(self, spec: SceneSpec, size: VideoSize, object_name: str | None = None) -> SceneSpec:
        fitted = fit_spec_to_video(spec, size)
        traj = simulate(fitted)  # the camera does not change the physics: one solve finds the path to frame
        if not traj.ok or (object_name is not None and object_name not in traj.object_names):
            return fitted  # simulate_scene reports the failure or the unknown name
        return frame_camera(fitted, traj, width_px=size.width, height_px=size.height, margin=self.margin,
                            object_name=object_name)


@dataclass(frozen=True)
class SimulatedScene:
    """A scene solved and rendered for one job.

    * ``path_px`` (T, 2): the tracked object's projected centre (x right, y down) px, NaN behind the camera.
    * ``window_masks``: ``airborne`` / ``after_ground`` frame masks (T,) bool of the tracked object.
    * ``radius_px`` (T,): the tracked object's apparent radius, px (:func:`object_radius_px`).
    """

    spec: SceneSpec
    trajectory: Trajectory
    control: ControlVideo
    object_name: str
    path_px: np.ndarray
    window_masks: dict[str, np.ndarray]
    radius_px: np.ndarray


def simulate_scene(spec: SceneSpec, size: VideoSize, control_renderer, object_name: str | None = None,
                   time_tolerance_s: float = 1e-6, framing=None) -> SimulatedScene:
    """Fit ``spec`` to ``size``, simulate it, render the control video and project the object's path.

    ``control_renderer(spec, trajectory) -> ControlVideo`` is the configured control (``conf/control/``);
    ``framing(spec, size, object_name) -> SceneSpec`` the configured framing (``conf/framing/``; default: the
    template's camera, :class:`TemplateFraming`).
    """
    spec = (framing or TemplateFraming())(spec, size, object_name)
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
                          window_masks=masks, radius_px=object_radius_px(spec, traj, name))


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
