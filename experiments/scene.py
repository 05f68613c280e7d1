"""The simulated side of a release-point job: a scene at the generator's size, its trajectory, its control.

A scene template (``conf/scene/``) or a revised spec from a sim run gives the physics; the experiment sets
the video's size, frame count and rate so the control video has exactly the generator's T x H x W. A
change of aspect ratio keeps the horizontal field of view (the motion runs along image x), so nothing
the template framed leaves the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from control.types import ControlVideo
from experiments.retention import window_frame_masks
from experiments.types import VideoSize
from sim.engine import simulate
from sim.types import SceneSpec, Trajectory
from veriphy.errors import UserError

__all__ = ["VideoSize", "SimulatedScene", "fit_spec_to_video", "simulate_scene"]


def fit_spec_to_video(spec: SceneSpec, size: VideoSize) -> SceneSpec:
    """``spec`` rendered at ``size``: same camera pose and horizontal field of view, new pixels and frames."""
    cam = spec.camera
    tan_h = math.tan(math.radians(cam.fov_deg) / 2) * cam.width_px / cam.height_px
    fov_deg = math.degrees(2 * math.atan(tan_h * size.height / size.width))
    camera = cam.model_copy(update={"width_px": int(size.width), "height_px": int(size.height),
                                    "fov_deg": float(min(fov_deg, 170.0))})
    return SceneSpec.model_validate({**spec.model_dump(mode="json"), "camera": camera.model_dump(mode="json"),
                                     "num_frames": int(size.num_frames), "fps": float(size.fps)})


@dataclass(frozen=True)
class SimulatedScene:
    """A scene solved and rendered for one job.

    * ``path_px`` (T, 2): the tracked object's projected centre (x right, y down) px, NaN behind the camera.
    * ``window_masks``: ``airborne`` / ``after_ground`` frame masks (T,) bool of the tracked object.
    """

    spec: SceneSpec
    trajectory: Trajectory
    control: ControlVideo
    object_name: str
    path_px: np.ndarray
    window_masks: dict[str, np.ndarray]


def simulate_scene(spec: SceneSpec, size: VideoSize, control_renderer, object_name: str | None = None,
                   time_tolerance_s: float = 1e-6) -> SimulatedScene:
    """Fit ``spec`` to ``size``, simulate it, render the control video and project the object's path.

    ``control_renderer(spec, trajectory) -> ControlVideo`` is the configured control (``conf/control/``).
    """
    spec = fit_spec_to_video(spec, size)
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
                          window_masks=masks)
