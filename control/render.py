"""Scene renderers: per-pixel distance, segmentation and a simple RGB image for every frame.

Two interchangeable backends (chosen by ``_target_``) share the pixel convention of :mod:`control.camera`:

* :class:`AnalyticRenderer` (default): a numpy ray caster for the primitives a :class:`~sim.types.SceneSpec`
  can hold (spheres, boxes, cylinders). Static geometry is cast once per video over the whole image; each
  dynamic object is cast only inside its projected bounding box, so a frame costs a copy of the static
  buffers plus a few small windows. Exact surfaces (no tessellation).
* :class:`TinyRendererBackend`: PyBullet's TinyRenderer through ``getCameraImage`` in its own DIRECT client,
  the scene built by ``sim.engine.load_scene``. Slower (about 44 ms per 848x480 frame) and tessellated, kept
  as a cross-check.

Segmentation values: object index ``k`` (into ``SceneSpec.objects``) for dynamic bodies, -1 for static
geometry, -2 for background. Distances are metres from the camera centre along each pixel's ray, ``inf`` for
background. Only geometry whose eye depth lies in [near, far] of the camera is drawn, as with TinyRenderer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation
from tqdm import tqdm

from control.camera import Camera
from control.types import SceneRender
from sim.engine import load_scene
from sim.types import SceneSpec, Trajectory

SEG_STATIC = -1
SEG_BACKGROUND = -2


def check_trajectory_matches(spec: SceneSpec, traj: Trajectory) -> None:
    """Objects of the trajectory must be those of the spec, in order (segmentation indexes them)."""
    names = tuple(o.name for o in spec.objects)
    if tuple(traj.object_names) != names:
        raise ValueError(f"trajectory objects {list(traj.object_names)} differ from the scene's {list(names)}")


# --------------------------------------------------------------------------------------------------
# Ray-primitive intersections in the primitive's local frame.
# Rays: origin ``o`` (3,) and directions ``d`` = (dx, dy, dz), three (N,) arrays (component arrays: numpy
# reductions over a length-3 axis are several times slower than elementwise ops on separate components).
# Each returns the entry parameter t (N,) along d (inf where missed or where the entry lies outside
# [t_min, t_max]) and, when asked, the local surface normals as three (N,) arrays.
# --------------------------------------------------------------------------------------------------


def _sphere_hits(o, d, radius: float, t_min: float, t_max: float, normals: bool):
    dx, dy, dz = d
    a = dx * dx + dy * dy + dz * dz
    half_b = dx * o[0] + dy * o[1] + dz * o[2]
    c = float(o @ o) - radius * radius
    with np.errstate(invalid="ignore"):
        t = (-half_b - np.sqrt(half_b * half_b - a * c)) / a  # NaN where the ray misses
    t = np.where((t >= t_min) & (t <= t_max), t, np.inf)
    if not normals:
        return t, None
    tt = np.where(np.isfinite(t), t, 0.0)
    return t, tuple((o[i] + tt * d[i]) / radius for i in range(3))


def _box_hits(o, d, half, t_min: float, t_max: float, normals: bool):
    # Slab method. fmin/fmax skip the NaN of 0 * inf (a ray parallel to and exactly on a slab face).
    lows = []
    t_entry = t_exit = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(3):
            inv = 1.0 / d[i]
            ta = (-half[i] - o[i]) * inv
            tb = (half[i] - o[i]) * inv
            lo, hi = np.fmin(ta, tb), np.fmax(ta, tb)
            lows.append(lo)
            t_entry = lo if t_entry is None else np.fmax(t_entry, lo)
            t_exit = hi if t_exit is None else np.fmin(t_exit, hi)
    hit = (t_entry <= t_exit) & (t_entry >= t_min) & (t_entry <= t_max)
    t = np.where(hit, t_entry, np.inf)
    if not normals:
        return t, None
    # The entry face is on the axis whose slab is entered last; its normal points against the ray.
    taken = np.zeros(len(t), dtype=bool)
    out = []
    for i in range(3):
        on_axis = (lows[i] == t_entry) & ~taken
        taken |= on_axis
        out.append(np.where(on_axis, -np.sign(d[i]), 0.0))
    return t, tuple(out)


def _cylinder_hits(o, d, radius: float, height: float, t_min: float, t_max: float, normals: bool):
    """Cylinder about the local z axis, centred at the origin (PyBullet's GEOM_CYLINDER)."""
    dx, dy, dz = d
    half_h = height / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        # Side: |(o + t d)_xy| = r, entry root, within the height.
        a = dx * dx + dy * dy
        half_b = o[0] * dx + o[1] * dy
        c = o[0] ** 2 + o[1] ** 2 - radius * radius
        t_side = (-half_b - np.sqrt(half_b * half_b - a * c)) / a
        side_ok = (np.abs(o[2] + t_side * dz) <= half_h) & (t_side >= t_min) & (t_side <= t_max)
        t_side = np.where(side_ok, t_side, np.inf)
        # Caps: only the one on the ray origin's side can be an entry.
        cap_z = half_h if o[2] >= 0.0 else -half_h
        t_cap = (cap_z - o[2]) / dz
        px = o[0] + t_cap * dx
        py = o[1] + t_cap * dy
        cap_ok = (px * px + py * py <= radius * radius) & (t_cap >= t_min) & (t_cap <= t_max)
    t_cap = np.where(cap_ok, t_cap, np.inf)
    use_cap = t_cap < t_side
    t = np.where(use_cap, t_cap, t_side)
    if not normals:
        return t, None
    tt = np.where(np.isfinite(t), t, 0.0)
    nx = np.where(use_cap, 0.0, (o[0] + tt * dx) / radius)
    ny = np.where(use_cap, 0.0, (o[1] + tt * dy) / radius)
    nz = np.where(use_cap, np.sign(cap_z), 0.0)
    return t, (nx, ny, nz)


@dataclass(frozen=True)
class _Primitive:
    """One shape at one pose: ``shape`` in {sphere, box, cylinder}, ``size`` as in ObjectSpec.size_m."""

    shape: str
    size: tuple[float, ...]
    center: np.ndarray  # (3,) m
    rotation: np.ndarray  # (3, 3) local -> world
    color: np.ndarray  # (3,) in [0, 1]

    def corners(self) -> np.ndarray:
        """(8, 3) world corners of a box containing the primitive (its own box; a cube for a sphere)."""
        if self.shape == "sphere":
            half, rot = np.full(3, self.size[0]), np.eye(3)
        elif self.shape == "box":
            half, rot = np.asarray(self.size), self.rotation
        else:
            half, rot = np.array([self.size[0], self.size[0], self.size[1] / 2.0]), self.rotation
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)
        return self.center + (signs * half) @ rot.T

    def intersect(self, eye: np.ndarray, dirs, t_min: float, t_max: float, normals: bool):
        """World rays from ``eye`` (directions as three (N,) arrays) -> entry parameter (N,) and world
        normals (N, 3) (None unless ``normals``)."""
        rot = self.rotation
        o = (eye - self.center) @ rot  # world -> local: R^T v, written for row vectors
        if self.shape == "sphere":  # rotation-invariant: skip the transform
            t, n = _sphere_hits(eye - self.center, dirs, self.size[0], t_min, t_max, normals)
            return t, None if n is None else np.stack(n, axis=-1)
        local = tuple(dirs[0] * rot[0, i] + dirs[1] * rot[1, i] + dirs[2] * rot[2, i] for i in range(3))
        if self.shape == "box":
            t, n = _box_hits(o, local, self.size, t_min, t_max, normals)
        else:
            t, n = _cylinder_hits(o, local, self.size[0], self.size[1], t_min, t_max, normals)
        if n is None:
            return t, None
        return t, np.stack(n, axis=-1) @ rot.T


def _rotation(quat_xyzw) -> np.ndarray:
    return Rotation.from_quat(np.asarray(quat_xyzw, dtype=np.float64)).as_matrix()


class AnalyticRenderer:
    """Numpy ray caster for sphere/box/cylinder scenes (see module docstring).

    Args:
        rgb: also shade an RGB image (Lambert, object colours from ``color_rgba``); off saves time when only
            distance and segmentation are needed (depth control).
        light_direction: direction towards the light, world frame (normalised here).
        ambient: ambient fraction of the shading, in [0, 1].
        background_rgb: colour of pixels that hit nothing, in [0, 1].
        progress: show a progress bar (stderr).
    """

    def __init__(self, rgb: bool = True, light_direction: tuple[float, float, float] = (-0.4, -0.6, 1.0),
                 ambient: float = 0.35, background_rgb: tuple[float, float, float] = (0.78, 0.82, 0.86),
                 progress: bool = True):
        self.rgb = bool(rgb)
        light = np.asarray(light_direction, dtype=np.float64)
        self.light_direction = light / np.linalg.norm(light)
        self.ambient = float(ambient)
        self.background_rgb = np.asarray(background_rgb, dtype=np.float64)
        self.progress = progress

    def _shade(self, color: np.ndarray, normals: np.ndarray) -> np.ndarray:
        lambert = np.clip(normals @ self.light_direction, 0.0, 1.0)
        value = color * (self.ambient + (1.0 - self.ambient) * lambert)[..., None]
        return np.clip(np.rint(value * 255.0), 0, 255).astype(np.uint8)

    @staticmethod
    def _window(camera: Camera, prim: _Primitive) -> tuple[slice, slice] | None:
        """Image rows/columns that can contain the primitive: the bounding box of its projected corners
        (exact for a convex body in front of the camera); the whole image when a corner is not in front of
        the near plane; None when it cannot be seen."""
        corners = prim.corners()
        depth = camera.to_camera(corners)[:, 2]
        if np.all(depth < camera.near_m) or np.all(depth > camera.far_m):
            return None
        if np.any(depth <= camera.near_m):
            return slice(0, camera.height), slice(0, camera.width)
        px = camera.project(corners)
        c0 = max(int(np.floor(px[:, 0].min())), 0)
        c1 = min(int(np.ceil(px[:, 0].max())) + 1, camera.width)
        r0 = max(int(np.floor(px[:, 1].min())), 0)
        r1 = min(int(np.ceil(px[:, 1].max())) + 1, camera.height)
        if c0 >= c1 or r0 >= r1:
            return None
        return slice(r0, r1), slice(c0, c1)

    def _draw(self, camera: Camera, prim: _Primitive, dirs, lengths: np.ndarray, window,
              distance: np.ndarray, segmentation: np.ndarray, rgb: np.ndarray | None, label: int) -> None:
        """Z-buffered draw of ``prim`` into the (H, W) buffers inside ``window`` (in place)."""
        rows, cols = window
        ray_window = tuple(np.ravel(comp[rows, cols]) for comp in dirs)
        t, normals = prim.intersect(camera.eye_m, ray_window, camera.near_m, camera.far_m, rgb is not None)
        lengths_w = lengths[rows, cols]
        dist = (t.reshape(lengths_w.shape) * lengths_w).astype(np.float32)
        current = distance[rows, cols]  # a view: the writes below land in ``distance``
        closer = dist < current
        if not closer.any():
            return
        current[closer] = dist[closer]
        segmentation[rows, cols][closer] = label
        if rgb is not None:
            rgb[rows, cols][closer] = self._shade(prim.color, normals.reshape(*lengths_w.shape, 3)[closer])

    def render(self, spec: SceneSpec, traj: Trajectory, *, rgb: bool | None = None) -> SceneRender:
        """Render every frame of ``traj``: (T, H, W) distance (m, float32) and segmentation (int32), and
        (T, H, W, 3) uint8 RGB (zeros when ``rgb`` is off)."""
        check_trajectory_matches(spec, traj)
        want_rgb = self.rgb if rgb is None else bool(rgb)
        camera = Camera(spec.camera)
        h, w = camera.height, camera.width
        # Rays with unit component along the viewing axis: the ray parameter is the eye depth, which is
        # what near/far clip, and distance = parameter * length.
        dirs_hw3 = camera.ray_directions(normalise=False)
        dirs = tuple(np.ascontiguousarray(dirs_hw3[..., i]) for i in range(3))
        lengths = camera.ray_lengths()
        num_frames = len(traj.t_s)

        # Static geometry: once per video.
        static_dist = np.full((h, w), np.inf, dtype=np.float32)
        static_seg = np.full((h, w), SEG_BACKGROUND, dtype=np.int32)
        static_rgb = None
        if want_rgb:
            static_rgb = np.empty((h, w, 3), dtype=np.uint8)
            static_rgb[:] = np.clip(np.rint(self.background_rgb * 255), 0, 255).astype(np.uint8)
        for s in spec.statics:
            if not s.visible:
                continue
            prim = _Primitive("box", tuple(s.half_extents_m), np.asarray(s.position_m, dtype=np.float64),
                              _rotation(s.orientation_xyzw), np.asarray(s.color_rgba[:3]))
            window = self._window(camera, prim)
            if window is not None:
                self._draw(camera, prim, dirs, lengths, window, static_dist, static_seg, static_rgb, SEG_STATIC)

        distance = np.empty((num_frames, h, w), dtype=np.float32)
        segmentation = np.empty((num_frames, h, w), dtype=np.int32)
        frames_rgb = np.zeros((num_frames, h, w, 3), dtype=np.uint8)
        positions = np.asarray(traj.position_m)
        orientations = np.asarray(traj.orientation_xyzw)
        for t in tqdm(range(num_frames), desc="render", unit="frame", file=sys.stderr,
                      disable=not self.progress, leave=False):
            distance[t] = static_dist
            segmentation[t] = static_seg
            frame_rgb = None
            if static_rgb is not None:
                frames_rgb[t] = static_rgb
                frame_rgb = frames_rgb[t]
            for k, obj in enumerate(spec.objects):
                center = positions[k, t]
                quat = orientations[k, t]
                if not (np.all(np.isfinite(center)) and np.all(np.isfinite(quat))):
                    continue  # an invalid simulation state is not drawn
                prim = _Primitive(obj.shape, tuple(obj.size_m), center, _rotation(quat),
                                  np.asarray(obj.color_rgba[:3]))
                window = self._window(camera, prim)
                if window is not None:
                    self._draw(camera, prim, dirs, lengths, window, distance[t], segmentation[t], frame_rgb, k)
        return SceneRender(rgb=frames_rgb, distance_m=distance, segmentation=segmentation,
                           object_names=tuple(traj.object_names), fps=float(spec.fps))


class TinyRendererBackend:
    """PyBullet's TinyRenderer (``getCameraImage``) in its own DIRECT client; scene built by
    ``sim.engine.load_scene``. Distance from the depth buffer (see :meth:`Camera.depth_buffer_to_distance`).

    Args:
        rgb: keep TinyRenderer's RGB image (it is always rendered; off returns zeros to save memory).
        progress: show a progress bar (stderr).
    """

    def __init__(self, rgb: bool = True, progress: bool = True):
        self.rgb = bool(rgb)
        self.progress = progress

    def render(self, spec: SceneSpec, traj: Trajectory, *, rgb: bool | None = None) -> SceneRender:
        # Imported here, not above: sim.engine has already imported it with its build-time banner silenced,
        # which an import at the top of this module (before sim.engine's) would print.
        import pybullet
        from pybullet_utils.bullet_client import BulletClient

        check_trajectory_matches(spec, traj)
        want_rgb = self.rgb if rgb is None else bool(rgb)
        camera = Camera(spec.camera)
        h, w = camera.height, camera.width
        num_frames = len(traj.t_s)
        distance = np.empty((num_frames, h, w), dtype=np.float32)
        segmentation = np.empty((num_frames, h, w), dtype=np.int32)
        frames_rgb = np.zeros((num_frames, h, w, 3), dtype=np.uint8)
        client = BulletClient(connection_mode=pybullet.DIRECT)
        try:
            body_ids = load_scene(client, spec)
            object_ids = [body_ids[o.name] for o in spec.objects]
            # PyBullet body id -> segmentation label (objects by index, everything else static).
            max_id = max(body_ids.values()) if body_ids else 0
            label_of = np.full(max_id + 2, SEG_STATIC, dtype=np.int32)
            for k, body in enumerate(object_ids):
                label_of[body] = k
            view, proj = camera.view_matrix, camera.projection_matrix
            positions = np.asarray(traj.position_m)
            orientations = np.asarray(traj.orientation_xyzw)
            for t in tqdm(range(num_frames), desc="render (TinyRenderer)", unit="frame", file=sys.stderr,
                          disable=not self.progress, leave=False):
                for k, body in enumerate(object_ids):
                    client.resetBasePositionAndOrientation(body, positions[k, t].tolist(),
                                                           orientations[k, t].tolist())
                _, _, rgba, depth, seg = client.getCameraImage(w, h, view, proj,
                                                               renderer=pybullet.ER_TINY_RENDERER)
                seg = np.asarray(seg, dtype=np.int64).reshape(h, w)
                background = seg < 0
                labels = label_of[np.clip(seg, 0, max_id + 1)]
                labels[background] = SEG_BACKGROUND
                segmentation[t] = labels
                dist = camera.depth_buffer_to_distance(np.asarray(depth, dtype=np.float64).reshape(h, w))
                dist[background] = np.inf
                distance[t] = dist
                if want_rgb:
                    frames_rgb[t] = np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[..., :3]
        finally:
            client.disconnect()
        return SceneRender(rgb=frames_rgb, distance_m=distance, segmentation=segmentation,
                           object_names=tuple(traj.object_names), fps=float(spec.fps))
