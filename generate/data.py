"""Training clips for the tiny generator, rendered from the project's own simulator and control renderer.

A clip is one simulated scene (``sim.scenes`` template, ``sim.engine.simulate``) seen by a small camera,
rendered to RGB (``control.render.AnalyticRenderer``) and to a depth control video (``control.depth``, from
the same render), with a prompt that
names its motion and appearance ("a red ball is thrown to the left and bounces; a small ball on a grey
floor, pale background").

Scenes are drawn by :class:`SceneSampler` from a seeded generator: template (thrown ball, with or without a
wall and target marker, or ramp), direction, speed, launch height and angle, ball size and colour, floor and
background colour, and framing (the template's own camera, as the release sweep uses it, or one that frames
the ball's path). Each draw is simulated and kept only when the ball stays in the picture, is big enough to
see and flies for a few frames. Clip ``i`` of
a data set with seed ``s`` is drawn from ``default_rng([s, i])``, so training and held-out sets with different
seeds never share a scene, and any clip can be re-made on its own.

A data set is a folder of shards ``shard_XXXX.npz`` (``save_npz``: byte-identical for the same config) plus
``index.json`` (per clip: prompt, scene spec, direction, windows) and is written once and reused: building it
again with the same config is a no-op. Arrays per shard (N clips, T frames, H x W pixels):

* ``rgb`` (N, T, H, W, 3) uint8; ``control`` (N, T, H, W) uint8 depth intensities (near bright, background 0);
* ``mask`` (N, T, H, W) bool: pixels of the ball (segmentation == object 0);
* ``centers_px`` (N, T, 2) float64 projected ball centre (column x, row y), TinyRenderer convention.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from control.depth import DepthControl
from control.project import project_trajectory
from control.render import AnalyticRenderer
from generate.tiny import split_words, word_tokenizer
from sim import scenes
from sim.engine import simulate
from sim.scenes import framing_camera

#: The vertical field of view (degrees) of the cameras ``frame_camera`` places (``sim.scenes.framing_camera``'s).
FRAMING_FOV_DEG = 50.0
from sim.types import SceneSpec, Trajectory
from veriphy.files import dumps_json, load_npz, read_json, save_npz, write_json
from veriphy.hashing import sha256_json

# Saturated ball colours (RGB in [0, 1]) and muted surroundings, so a ball always stands out.
BALL_COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.12, 0.10),
    "green": (0.15, 0.70, 0.20),
    "blue": (0.15, 0.30, 0.90),
    "yellow": (0.95, 0.85, 0.10),
    "orange": (1.00, 0.50, 0.05),
    "purple": (0.55, 0.20, 0.75),
    "cyan": (0.10, 0.80, 0.85),
}
FLOOR_COLOURS: dict[str, tuple[float, float, float]] = {
    "grey": (0.55, 0.55, 0.55),
    "dark grey": (0.28, 0.28, 0.30),
    "brown": (0.45, 0.33, 0.22),
    "beige": (0.78, 0.72, 0.58),
    "dark green": (0.20, 0.35, 0.22),
}
BACKGROUND_COLOURS: dict[str, tuple[float, float, float]] = {
    "pale": (0.78, 0.82, 0.86),
    "white": (0.92, 0.92, 0.90),
    "dark": (0.12, 0.12, 0.15),
    "light blue": (0.60, 0.75, 0.90),
    "sand": (0.85, 0.80, 0.68),
}
TEMPLATES = ("thrown_ball", "ramp")


@dataclass(frozen=True)
class ClipSample:
    """One training clip. Arrays as in the module docstring, for a single clip (no leading N)."""

    spec: SceneSpec
    prompt: str
    direction: int  # +1: the ball moves to the right of the picture, -1: to the left
    rgb: np.ndarray
    control: np.ndarray
    mask: np.ndarray
    centers_px: np.ndarray
    windows: dict[str, tuple[int, int]]  # name -> inclusive (first, last) frame index
    info: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------
# Scene geometry helpers
# --------------------------------------------------------------------------------------------------


def mirror_x(spec: SceneSpec) -> SceneSpec:
    """The same scene reflected in the plane x = 0 (positions, velocities, rotations about y, camera), so a
    template that moves to the right moves to the left. Templates here rotate only about y."""
    d = spec.model_dump(mode="python")

    def flip(v):
        return (-v[0], v[1], v[2])

    for o in d["objects"]:
        o["position_m"] = flip(o["position_m"])
        o["linear_velocity_mps"] = flip(o["linear_velocity_mps"])
        # A reflection in x reverses rotations about y and z, keeps those about x (pseudo-vector).
        wx, wy, wz = o["angular_velocity_radps"]
        o["angular_velocity_radps"] = (wx, -wy, -wz)
        qx, qy, qz, qw = o["orientation_xyzw"]
        o["orientation_xyzw"] = (qx, -qy, -qz, qw)
    for s in d["statics"]:
        s["position_m"] = flip(s["position_m"])
        qx, qy, qz, qw = s["orientation_xyzw"]
        s["orientation_xyzw"] = (qx, -qy, -qz, qw)
    cam = d["camera"]
    cam["eye_m"] = flip(cam["eye_m"])
    cam["target_m"] = flip(cam["target_m"])
    return SceneSpec.model_validate(d)


def frame_camera(spec: SceneSpec, traj: Trajectory, *, width_px: int, height_px: int,
                 margin: float = 1.15, object_name: str | None = None, floor_room: float = 0.0) -> SceneSpec:
    """``spec`` with its camera replaced by one that frames an object's whole path (default: the first
    object, the ball) and the floor below it. ``floor_room``: the least fraction of the picture's height left
    below the object's lowest point; the framed box extends below the floor just enough
    (:func:`floor_room_box_bottom`)."""
    name = object_name or spec.objects[0].name
    pos = np.asarray(traj.position_m)[traj.index(name)]
    r = spec.object(name).bounding_radius_m
    x0, x1 = float(pos[:, 0].min() - r), float(pos[:, 0].max() + r)
    z1 = float(pos[:, 2].max() + r)
    bottom = 0.0
    if floor_room > 0.0:
        tan_v = math.tan(math.radians(FRAMING_FOV_DEG) / 2)
        bottom = floor_room_box_bottom(x1 - x0, float(pos[:, 2].min() - r), z1, floor_room=floor_room, margin=margin,
                                       tan_h=tan_v * width_px / height_px, tan_v=tan_v)
    camera = framing_camera(x0, x1, bottom, z1, fov_deg=FRAMING_FOV_DEG, width_px=width_px, height_px=height_px,
                            margin=margin)
    fields = camera.model_dump(mode="python")
    return SceneSpec.model_validate({**spec.model_dump(mode="python"), "camera": fields})


def floor_room_box_bottom(width_m: float, z_low_m: float, z_top_m: float, *, floor_room: float, margin: float,
                          tan_h: float, tan_v: float) -> float:
    """The highest bottom z (m, at most 0: the floor) of a box ``width_m`` wide reaching up to ``z_top_m`` whose
    framing (``sim.scenes.framing_camera``: ``margin`` times the tightest fit, the camera level at the box's
    centre) leaves ``floor_room`` of the picture's height between ``z_low_m`` and the picture's bottom edge.

    In the plane y = 0 the picture is 2 H tall, centred on the box, H = margin * max(width_m / 2 * tan_v /
    tan_h, (z_top_m - bottom) / 2) (the wider or the taller fit). The room z_low - (centre - H) - floor_room *
    2 H grows as the bottom is lowered (floor_room < 1/2), for either fit; the answer is the larger of the two
    bottoms that zero it, one per fit."""
    keep = 1.0 - 2.0 * floor_room
    half_wide = margin * width_m / 2 * tan_v / tan_h
    # Wide fit (H fixed by the width): z_low - (z_top + b) / 2 + keep * H = 0.
    bottom_wide = 2.0 * (z_low_m + keep * half_wide) - z_top_m
    # Tall fit (H = margin * (z_top - b) / 2): z_low - (z_top + b) / 2 + keep * margin * (z_top - b) / 2 = 0.
    bottom_tall = (2.0 * z_low_m - z_top_m + keep * margin * z_top_m) / (1.0 + keep * margin)
    return min(0.0, max(bottom_wide, bottom_tall))


def recolour(spec: SceneSpec, *, ball_rgb, floor_rgb) -> SceneSpec:
    d = spec.model_dump(mode="python")
    d["objects"][0]["color_rgba"] = (*ball_rgb, 1.0)
    for s in d["statics"]:
        if s["kind"] == "floor":
            s["color_rgba"] = (*floor_rgb, 1.0)
    return SceneSpec.model_validate(d)


def frame_windows(traj: Trajectory, fps: float, num_frames: int, obj: str = "ball") -> dict[str, tuple[int, int]]:
    """Trajectory windows (s) as inclusive frame ranges: frames whose time lies inside the window.
    A window shorter than a frame interval (a contact instant) maps to the first frame at or after its start."""
    out = {}
    for key, w in traj.windows.items():
        name, _, kind = key.partition("/")
        if name != obj:
            continue
        first = int(math.ceil(w.start_s * fps - 1e-6))
        last = max(first, int(math.floor(w.end_s * fps + 1e-6)))
        if first <= num_frames - 1:
            out[kind] = (first, min(last, num_frames - 1))
    return out


def after_contact_window(windows: dict[str, tuple[int, int]], num_frames: int) -> tuple[int, int] | None:
    """Frames from the first ground contact to the end of the clip."""
    if "first_ground_contact" not in windows:
        return None
    return windows["first_ground_contact"][0], num_frames - 1


# --------------------------------------------------------------------------------------------------
# Depth control (same mapping as docs/architecture.md §4: near/far percentiles of the object pixels, near bright)
# --------------------------------------------------------------------------------------------------


def render_control(spec: SceneSpec, traj: Trajectory, render) -> np.ndarray:
    """Depth control video (T, H, W) uint8 from the control stage, reusing ``render`` (no second render)."""
    return np.asarray(DepthControl(progress=False)(spec, traj, render=render).frames)


# --------------------------------------------------------------------------------------------------
# Scene sampler
# --------------------------------------------------------------------------------------------------


def fit_camera_to_video(spec: SceneSpec, *, width_px: int, height_px: int) -> SceneSpec:
    """The template's own camera at another pixel size, keeping its horizontal field of view (the motion runs
    along image x), as the release-sweep experiment fits a template scene to the generator's size."""
    cam = spec.camera
    tan_h = math.tan(math.radians(cam.fov_deg) / 2) * cam.width_px / cam.height_px
    fov_deg = math.degrees(2 * math.atan(tan_h * height_px / width_px))
    camera = cam.model_copy(update={"width_px": int(width_px), "height_px": int(height_px),
                                    "fov_deg": float(min(fov_deg, 170.0))})
    return SceneSpec.model_validate({**spec.model_dump(mode="json"), "camera": camera.model_dump(mode="json")})


@dataclass
class SceneSampler:
    """Draws random thrown-ball and ramp scenes at the tiny model's size.

    Sizes: ``width_px`` x ``height_px`` pixels, ``num_frames`` frames at ``fps``. Two framings, drawn with
    probability ``template_framing``: the template's own camera fitted to the video size (as the release
    sweep renders ``conf/scene`` templates: small ball, wall and target marker in view) or a camera framing the
    ball's path (bigger ball, more of the picture). Accepted scenes keep the ball centre at least
    ``min_margin_px`` inside the picture in every frame, a ball radius in [``min_radius_px``,
    ``max_radius_px``] and an airborne window of at least ``min_airborne_frames`` frames.
    """

    width_px: int = 64
    height_px: int = 64
    num_frames: int = 17
    fps: float = 8.0
    templates: tuple[str, ...] = TEMPLATES
    template_framing: float = 0.5
    min_radius_px: float = 1.5
    max_radius_px: float = 7.0
    min_margin_px: float = 2.0
    min_airborne_frames: int = 4
    max_tries: int = 100
    framing_margin: tuple[float, float] = (1.1, 1.45)
    ball_radius_range_m: tuple[float, float] = (0.10, 0.25)

    def _draw_params(self, rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
        template = str(self.templates[int(rng.integers(len(self.templates)))])
        radius = float(rng.uniform(*self.ball_radius_range_m))
        if template == "thrown_ball":
            with_wall = rng.random() < 0.4
            params = dict(launch_speed_mps=float(rng.uniform(2.5, 5.0)),
                          launch_angle_deg=float(rng.uniform(20.0, 65.0)),
                          launch_height_m=float(rng.uniform(0.4, 1.4)), ball_radius_m=radius,
                          ball_restitution=float(rng.uniform(0.5, 0.9)),
                          wall_x_m=float(rng.uniform(2.5, 4.0)) if with_wall else 30.0,
                          target_x_m=float(rng.uniform(1.0, 2.5)) if rng.random() < 0.5 else None)
        else:
            slope = float(rng.uniform(15.0, 40.0))
            length = float(rng.uniform(0.8, 1.6))
            params = dict(slope_deg=slope, ramp_length_m=length,
                          start_distance_m=float(rng.uniform(0.2, 0.9) * (length - radius)),
                          edge_height_m=float(rng.uniform(0.6, 1.4)), edge_x_m=float(rng.uniform(0.8, 1.4)),
                          ball_radius_m=radius)
        return template, params

    def draw(self, rng: np.random.Generator, seed: int = 0) -> tuple[SceneSpec, Trajectory, dict[str, Any]]:
        """Draw until a scene passes the checks; returns (spec, trajectory, description)."""
        for _ in range(self.max_tries):
            template, params = self._draw_params(rng)
            direction = 1 if rng.random() < 0.5 else -1
            template_framed = bool(rng.random() < self.template_framing)
            margin = float(rng.uniform(*self.framing_margin))
            ball_name = list(BALL_COLOURS)[int(rng.integers(len(BALL_COLOURS)))]
            floor_name = list(FLOOR_COLOURS)[int(rng.integers(len(FLOOR_COLOURS)))]
            background_name = list(BACKGROUND_COLOURS)[int(rng.integers(len(BACKGROUND_COLOURS)))]
            spec = getattr(scenes, template)(fps=self.fps, num_frames=self.num_frames, seed=seed, **params)
            if direction < 0:
                spec = mirror_x(spec)
            spec = recolour(spec, ball_rgb=BALL_COLOURS[ball_name], floor_rgb=FLOOR_COLOURS[floor_name])
            if template_framed:
                spec = fit_camera_to_video(spec, width_px=self.width_px, height_px=self.height_px)
            traj = simulate(spec)
            if not traj.ok:
                continue
            if not template_framed:
                spec = frame_camera(spec, traj, width_px=self.width_px, height_px=self.height_px, margin=margin)
                traj = simulate(spec)  # same physics; the trajectory now records this spec's hash
            centers = project_trajectory(spec, traj)[:, 0]
            f = (self.height_px / 2) / math.tan(math.radians(spec.camera.fov_deg) / 2)
            depth = np.linalg.norm(np.asarray(traj.position_m)[0] - np.asarray(spec.camera.eye_m), axis=-1)
            radius_px = float(np.min(spec.objects[0].size_m[0] * f / depth))
            windows = frame_windows(traj, self.fps, self.num_frames)
            airborne = windows.get("airborne")
            m = self.min_margin_px
            inside = (np.all(centers[:, 0] >= m) and np.all(centers[:, 0] <= self.width_px - 1 - m)
                      and np.all(centers[:, 1] >= m) and np.all(centers[:, 1] <= self.height_px - 1 - m))
            travel = direction * (centers[-1, 0] - centers[0, 0])
            if not inside or not (self.min_radius_px <= radius_px <= self.max_radius_px):
                continue
            if airborne is None or airborne[1] - airborne[0] + 1 < self.min_airborne_frames:
                continue
            hits_wall = any("wall" in (c.body_a, c.body_b) for c in traj.contacts)
            bounces = any("floor" in (c.body_a, c.body_b) for c in traj.contacts)
            if not hits_wall and travel < 3 * radius_px:
                continue
            desc = dict(template=template, params=params, direction=direction, ball_colour=ball_name,
                        floor_colour=floor_name, background=background_name, radius_px=radius_px,
                        template_framing=template_framed, hits_wall=hits_wall, bounces=bounces)
            return spec, traj, desc
        raise RuntimeError(f"no acceptable scene in {self.max_tries} draws; loosen the sampler's checks")


def size_word(radius_px: float) -> str:
    return "small" if radius_px < 2.5 else ("large" if radius_px > 4.5 else "medium-sized")


def prompt_for(desc: dict[str, Any]) -> str:
    """A prompt naming motion first, then appearance, e.g. "a red ball is thrown to the left and bounces; a
    small ball on a grey floor, pale background". The motion comes first because the tiny generator reads only
    the first ``max_sequence_length`` tokens (32 for the shipped model, which every prompt fits)."""
    side = "right" if desc["direction"] > 0 else "left"
    colour = desc["ball_colour"]
    if desc["template"] == "thrown_ball":
        motion = f"is thrown to the {side}"
        if desc.get("hits_wall"):
            motion += ", hits the wall"
        if desc.get("bounces", True):
            motion += " and bounces"
    else:
        motion = f"rolls down a ramp to the {side} and falls off"
    looks = f"a {size_word(desc['radius_px'])} ball on a {desc['floor_colour']} floor, {desc['background']} background"
    article = "an" if colour[0] in "aeiou" else "a"
    return f"{article} {colour} ball {motion}; {looks}"


def prompt_vocabulary() -> list[str]:
    """Every word and punctuation mark a :func:`prompt_for` prompt can contain (sorted): its templates over
    every colour, floor, background, size, side and contact, split as :func:`generate.tiny.split_words`."""
    words: set[str] = set()
    for ball, floor, background, radius_px, template, direction, hits_wall, bounces in itertools.product(
            BALL_COLOURS, FLOOR_COLOURS, BACKGROUND_COLOURS, (2.0, 3.0, 5.0), TEMPLATES, (1, -1), (False, True),
            (False, True)):
        desc = dict(template=template, direction=direction, ball_colour=ball, floor_colour=floor,
                    background=background, radius_px=radius_px, hits_wall=hits_wall, bounces=bounces)
        words.update(split_words(prompt_for(desc)))
    return sorted(words)


def prompt_tokenizer():
    """The word-level tokenizer over :func:`prompt_vocabulary` (``generate.tiny.word_tokenizer``): the trained
    tiny model's tokenizer (``conf/train/transformer/tiny64.yaml``)."""
    return word_tokenizer(prompt_vocabulary())


def make_clip(sampler: SceneSampler, seed: int, index: int) -> ClipSample:
    """Clip ``index`` of the data set with ``seed`` (independent of every other clip)."""
    rng = np.random.default_rng([seed, index])
    spec, traj, desc = sampler.draw(rng, seed=seed * 1_000_003 + index)
    render = AnalyticRenderer(background_rgb=BACKGROUND_COLOURS[desc["background"]], progress=False).render(spec, traj)
    control = render_control(spec, traj, render)

    centers = project_trajectory(spec, traj)[:, 0]
    return ClipSample(spec=spec, prompt=prompt_for(desc), direction=int(desc["direction"]),
                      rgb=np.asarray(render.rgb), control=control, mask=np.asarray(render.segmentation) == 0,
                      centers_px=centers, windows=frame_windows(traj, sampler.fps, sampler.num_frames), info=desc)


# --------------------------------------------------------------------------------------------------
# Data set on disk
# --------------------------------------------------------------------------------------------------


@dataclass
class ClipDataset:
    """A rendered data set: ``num_clips`` clips of seed ``seed`` in shards of ``shard_size`` under ``root``.

    ``build()`` renders missing shards (resumable, idempotent); ``arrays()`` loads them all into memory
    (``rgb``, ``control``, ``mask``, ``centers_px``) and ``index()`` returns the per-clip records.
    """

    root: str
    num_clips: int = 600
    seed: int = 0
    shard_size: int = 50
    sampler: SceneSampler = field(default_factory=SceneSampler)

    @property
    def config(self) -> dict[str, Any]:
        return dict(num_clips=self.num_clips, seed=self.seed, shard_size=self.shard_size,
                    sampler=asdict(self.sampler))

    @property
    def path(self) -> Path:
        """Folder named by the config's hash, so different configs never overwrite each other."""
        return Path(self.root) / f"clips_{sha256_json(self.config)[:12]}"

    def _shard_path(self, k: int) -> Path:
        return self.path / f"shard_{k:04d}.npz"

    def build(self, *, progress: bool = True) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        write_json(self.path / "config.json", self.config)
        num_shards = (self.num_clips + self.shard_size - 1) // self.shard_size
        bar = tqdm(total=self.num_clips, desc="render clips", unit="clip", file=sys.stderr, disable=not progress)
        for k in range(num_shards):
            lo, hi = k * self.shard_size, min((k + 1) * self.shard_size, self.num_clips)
            meta_path = self.path / f"shard_{k:04d}.json"
            if self._shard_path(k).is_file() and meta_path.is_file():
                bar.update(hi - lo)
                continue
            clips = []
            for i in range(lo, hi):
                clips.append(make_clip(self.sampler, self.seed, i))
                bar.update(1)
            save_npz(self._shard_path(k), rgb=np.stack([c.rgb for c in clips]),
                     control=np.stack([c.control for c in clips]), mask=np.stack([c.mask for c in clips]),
                     centers_px=np.stack([c.centers_px for c in clips]))
            write_json(meta_path, [dict(index=lo + j, prompt=c.prompt, direction=c.direction,
                                        windows={k2: list(v) for k2, v in c.windows.items()}, info=c.info,
                                        spec=c.spec.model_dump(mode="json")) for j, c in enumerate(clips)])
        bar.close()
        return self.path

    def shards(self) -> Iterator[tuple[dict[str, np.ndarray], list[dict[str, Any]]]]:
        num_shards = (self.num_clips + self.shard_size - 1) // self.shard_size
        for k in range(num_shards):
            yield load_npz(self._shard_path(k)), read_json(self.path / f"shard_{k:04d}.json")

    def arrays(self) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
        parts, index = [], []
        for arrays, meta in self.shards():
            parts.append(arrays)
            index.extend(meta)
        merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return merged, index


def dataset_fingerprint(dataset: ClipDataset) -> str:
    """sha256 of the data set's config (its files are a pure function of it)."""
    return sha256_json(dataset.config)


__all__ = [
    "BALL_COLOURS", "FLOOR_COLOURS", "BACKGROUND_COLOURS", "ClipSample", "SceneSampler", "ClipDataset",
    "make_clip", "prompt_for", "prompt_vocabulary", "prompt_tokenizer", "mirror_x", "frame_camera",
    "floor_room_box_bottom", "FRAMING_FOV_DEG",
    "frame_windows", "after_contact_window", "render_control", "dataset_fingerprint", "dumps_json",
]
