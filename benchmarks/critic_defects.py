"""A development holdout for the critic's measurements: small simulated clips, doctored one defect at a time.

Scenes are simulated with PyBullet (``sim``) and rendered by the analytic ray caster or TinyRenderer
(``control``), with varied shapes (spheres, boxes, cylinders), colours, sizes, frame rates and resolutions.
Each render is split into a static background and one pixel layer per object (from the renderer's
segmentation); a defect is made by re-compositing the layers: a teleport shifts an object from one frame on, a
hover holds it in mid-air, a vanish hides it for some frames, an appearance adds a copy, a sinking object moves
down through the level it rests on, a played-backwards segment reverses its frames, and so on. Clean copies are
composited the same way (so compositing itself is never what the critic sees as a defect). Third-party clips of
correct physics (``tests/data/external``) are doctored the same way, with the object cut out by the offline
tracker.

Prints, per defect class, how many doctored clips the offline critic contradicts (recall, whole clip) and how
many clean clips it contradicts (false alarms), with the claims that fired on the clean ones.

    python benchmarks/critic_defects.py [--quick] [--only teleport,hover] [--verbose]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

# keep this folder off the import path (``import critic`` would otherwise import benchmarks/critic.py)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from control.render import AnalyticRenderer, TinyRendererBackend  # noqa: E402
from critic.executor import Executor  # noqa: E402
from critic.run import build_components  # noqa: E402
from critic.video import load_video  # noqa: E402
from sim.engine import simulate  # noqa: E402
from sim.scenes import _floor, framing_camera  # noqa: E402
from sim.types import ObjectSpec, SceneSpec  # noqa: E402
from veriphy.video import write_video  # noqa: E402

COLORS = {"red": (0.85, 0.15, 0.1, 1.0), "blue": (0.15, 0.35, 0.9, 1.0), "green": (0.15, 0.7, 0.2, 1.0),
          "yellow": (0.9, 0.8, 0.1, 1.0)}
CONF = Path(__file__).resolve().parents[1] / "conf"
CFG = None  # the critic app's default config (offline planner and specialists), composed in main()
NOUN = {"sphere": "ball", "box": "cube", "cylinder": "cylinder"}


# ---------------------------------------------------------------------------------------------- scenes


@dataclass
class Scene:
    """A rendered scene split into layers: ``background`` (H, W, 3) uint8, per object ``masks`` (T, H, W) bool
    and the render ``rgb`` (T, H, W, 3) they are cut from; ``names`` the objects' colour + noun."""

    name: str
    rgb: np.ndarray
    masks: list[np.ndarray]
    background: np.ndarray
    fps: float
    names: list[str]
    shapes: list[str]
    meta: dict = field(default_factory=dict)

    @property
    def t_count(self) -> int:
        return len(self.rgb)

    def centroid(self, obj: int, k: int) -> np.ndarray | None:
        ys, xs = np.nonzero(self.masks[obj][k])
        return np.array([xs.mean(), ys.mean()]) if xs.size else None

    def radius(self, obj: int) -> float:
        areas = [m.sum() for m in self.masks[obj] if m.any()]
        return float(np.sqrt(np.median(areas) / np.pi))


def _obj(name: str, shape: str, size: float, color: str, x: float, z: float, vx: float = 0.0,
         restitution: float = 0.6, tilt_deg: float = 0.0) -> ObjectSpec:
    sizes = {"sphere": (size,), "box": (size, size, size), "cylinder": (size, 1.6 * size)}
    half_h = {"sphere": size, "box": size, "cylinder": 1.6 * size}[shape]
    a = math.radians(tilt_deg) / 2
    return ObjectSpec(name=name, shape=shape, size_m=sizes[shape], mass_kg=0.5, restitution=restitution,
                      lateral_friction=0.6, rolling_friction=0.01, color_rgba=COLORS[color],
                      position_m=(x, 0.8, z + half_h), orientation_xyzw=(0.0, math.sin(a), 0.0, math.cos(a)),
                      linear_velocity_mps=(vx, 0.0, 0.0))


def render_scene(name: str, objects: list[ObjectSpec], *, width: int, height: int, fps: float, frames: int,
                 renderer: str = "analytic", floor_restitution: float = 0.7, span_x: tuple[float, float] = (-0.6, 1.6),
                 top_z: float = 1.6) -> Scene:
    spec = SceneSpec(name=name, template="holdout", objects=tuple(objects),
                     statics=(_floor(restitution=floor_restitution),),
                     camera=framing_camera(span_x[0], span_x[1], 0.0, top_z, width_px=width, height_px=height),
                     fps=fps, num_frames=frames, seed=0)
    traj = simulate(spec)
    r = (AnalyticRenderer(progress=False) if renderer == "analytic" else TinyRendererBackend(progress=False)).render(
        spec, traj)
    rgb = np.asarray(r.rgb)
    seg = np.asarray(r.segmentation)
    masks = [seg == k for k in range(len(objects))]
    anyobj = seg >= 0
    masked = np.where(anyobj[..., None], np.nan, rgb.astype(np.float64))
    with np.errstate(all="ignore"):
        bg = np.nanmedian(masked, axis=0)
    fill = np.median(rgb, axis=0)
    bg = np.where(np.isfinite(bg), bg, fill).astype(np.uint8)
    names = [f"{_color_of(o)} {NOUN[o.shape]}" for o in objects]
    return Scene(name=name, rgb=rgb, masks=masks, background=bg, fps=fps, names=names,
                 shapes=[o.shape for o in objects])


def _color_of(o: ObjectSpec) -> str:
    return min(COLORS, key=lambda c: float(np.linalg.norm(np.array(COLORS[c]) - np.array(o.color_rgba))))


# ---------------------------------------------------------------------------------------------- compositing

#: one object's placement in one output frame: (object, source frame, dx px, dy px, scale)
Placement = tuple[int, int, float, float, float]


def identity_layout(scene: Scene) -> list[list[Placement]]:
    return [[(o, k, 0.0, 0.0, 1.0) for o in range(len(scene.masks))] for k in range(scene.t_count)]


def compose(scene: Scene, layout: list[list[Placement]]) -> np.ndarray:
    """Frames (T, H, W, 3) uint8: the background with each placed object layer pasted on it."""
    h, w = scene.background.shape[:2]
    out = np.repeat(scene.background[None], len(layout), axis=0).copy()
    for k, places in enumerate(layout):
        for obj, src, dx, dy, scale in places:
            m = scene.masks[obj][src]
            if not m.any():
                continue
            ys, xs = np.nonzero(m)
            y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
            crop = scene.rgb[src, y0:y1, x0:x1]
            cm = m[y0:y1, x0:x1].astype(np.uint8)
            cx = xs.mean()
            if scale != 1.0:
                nh, nw = max(1, int(round((y1 - y0) * scale))), max(1, int(round((x1 - x0) * scale)))
                crop = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_LINEAR)
                cm = cv2.resize(cm, (nw, nh), interpolation=cv2.INTER_NEAREST)
                # swell about the bottom centre: the object keeps standing where it stands
                y0 = int(round(y1 - (y1 - y0) * scale))
                x0 = int(round(cx + (x0 - cx) * scale))
            y0, x0 = int(round(y0 + dy)), int(round(x0 + dx))
            ch, cw = cm.shape
            ya, xa = max(y0, 0), max(x0, 0)
            yb, xb = min(y0 + ch, h), min(x0 + cw, w)
            if yb <= ya or xb <= xa:
                continue
            sub = cm[ya - y0:yb - y0, xa - x0:xb - x0].astype(bool)
            out[k, ya:yb, xa:xb][sub] = crop[ya - y0:yb - y0, xa - x0:xb - x0][sub]
    return out


def _first_contact(scene: Scene, obj: int) -> int:
    """The frame of the object's first lowest point (its first contact with the floor)."""
    ys = np.array([(np.nonzero(m)[0].max() if m.any() else -1) for m in scene.masks[obj]], float)
    for k in range(1, len(ys) - 1):
        if ys[k] >= ys[k - 1] and ys[k] > ys[k + 1] - 0.5 and ys[k] - ys[0] > 3:
            return k
    return int(np.argmax(ys))


def _airborne_mid(scene: Scene, obj: int) -> int:
    return max(2, _first_contact(scene, obj) // 2)


# ---------------------------------------------------------------------------------------------- defects


def teleport(scene, obj=0):
    lay = identity_layout(scene)
    at = _airborne_mid(scene, obj) + 1
    jump = 6.0 * scene.radius(obj) * (1 if scene.centroid(obj, at)[0] < scene.rgb.shape[2] / 2 else -1)
    for k in range(at, scene.t_count):
        lay[k] = [(o, s, dx + (jump if o == obj else 0), dy, sc) for o, s, dx, dy, sc in lay[k]]
    return lay


def hover(scene, obj=0, n=None):
    n = n or max(8, int(0.6 * scene.fps))
    lay = identity_layout(scene)
    at = _airborne_mid(scene, obj)
    for k in range(at, scene.t_count):
        src = at if k < at + n else k - n
        lay[k] = [(o, src if o == obj else s, dx, dy, sc) for o, s, dx, dy, sc in lay[k]]
    return lay


def vanish(scene, obj=0, n=None):
    n = n or max(6, int(0.6 * scene.fps))
    lay = identity_layout(scene)
    at = max(4, _first_contact(scene, obj) - 2)
    for k in range(at, min(at + n, scene.t_count)):
        lay[k] = [p for p in lay[k] if p[0] != obj]
    return lay


def appear(scene, obj=0):
    lay = identity_layout(scene)
    at = scene.t_count // 2
    r = scene.radius(obj)
    c = scene.centroid(obj, at)
    dx = 5 * r if c[0] < scene.rgb.shape[2] / 2 else -5 * r
    for k in range(at, scene.t_count):
        lay[k] = lay[k] + [(obj, k, dx, 0.0, 1.0)]
    return lay


def missing(scene, obj=None):
    obj = len(scene.masks) - 1
    return [[p for p in places if p[0] != obj] for places in identity_layout(scene)]


def morph(scene, obj=0):
    lay = identity_layout(scene)
    at = _first_contact(scene, obj) + 3
    for k in range(at, scene.t_count):
        sc = 1.0 + 0.7 * min(1.0, (k - at + 1) / 4)
        lay[k] = [(o, s, dx, dy, sc if o == obj else c) for o, s, dx, dy, c in lay[k]]
    return lay


def sink(scene, obj=0):
    """After the object comes to rest, it moves down through the level it rests on (drawn over the floor)."""
    lay = identity_layout(scene)
    at = int(0.7 * scene.t_count)
    r = scene.radius(obj)
    for k in range(at, scene.t_count):
        dy = min(2.5 * r, 2.5 * r * (k - at + 1) / 6)
        lay[k] = [(o, s, dx, dy if o == obj else d, sc) for o, s, dx, d, sc in lay[k]]
    return lay


def backwards(scene, obj=0):
    """The object's frames played backwards: it rises from where it came to rest, as if gravity pulled up."""
    t = scene.t_count
    return [[(o, t - 1 - k if o == obj else s, dx, dy, sc) for o, s, dx, dy, sc in places]
            for k, places in enumerate(identity_layout(scene))]


def higher_rebound(scene, obj=0):
    """After the first contact, heights above the contact row are scaled so the first rebound peaks at 1.5x the
    height it was dropped from."""
    lay = identity_layout(scene)
    k0 = _first_contact(scene, obj)
    ys = np.array([c[1] if c is not None else np.nan for c in (scene.centroid(obj, k) for k in range(scene.t_count))])
    y_floor = ys[k0]
    drop = y_floor - np.nanmin(ys[:k0 + 1])
    rebound = y_floor - np.nanmin(ys[k0 + 1:])
    scale = 1.5 * drop / max(rebound, 1.0)
    for k in range(k0 + 1, scene.t_count):
        if np.isfinite(ys[k]):
            dy = -(scale - 1.0) * (y_floor - ys[k])
            lay[k] = [(o, s, dx, dy if o == obj else d, sc) for o, s, dx, d, sc in lay[k]]
    return lay


# ---------------------------------------------------------------------------------------------- the holdout


@dataclass
class Case:
    cls: str
    scene: str
    prompt: str
    frames: np.ndarray
    fps: float


def build_cases(quick: bool) -> list[Case]:
    cases: list[Case] = []
    variants = [
        # (name, shape, size m, colour, restitution, width, height, fps, renderer)
        ("ball_red_320", "sphere", 0.10, "red", 0.7, 320, 180, 16.0, "analytic"),
        ("ball_blue_256_24fps", "sphere", 0.07, "blue", 0.6, 256, 192, 24.0, "analytic"),
        ("cube_green_320", "box", 0.09, "green", 0.3, 320, 180, 16.0, "analytic"),
        ("cylinder_yellow_288", "cylinder", 0.08, "yellow", 0.3, 288, 160, 20.0, "analytic"),
        ("ball_green_tiny", "sphere", 0.09, "green", 0.7, 256, 144, 16.0, "tiny"),
        ("cube_red_tiny", "box", 0.10, "red", 0.3, 256, 144, 16.0, "tiny"),
    ]
    if quick:
        variants = variants[:3]
    for name, shape, size, color, e, w, h, fps, rend in variants:
        n = int(round(2.6 * fps))
        sc = render_scene(name, [_obj(name, shape, size, color, 0.1, 1.0, vx=0.4, restitution=e, tilt_deg=25
                                      if shape != "sphere" else 0)], width=w, height=h, fps=fps, frames=n,
                          renderer=rend)
        noun = sc.names[0]
        fall = f"A {noun} falls to the floor."
        doctored = {"clean": identity_layout(sc), "teleport": teleport(sc), "hover": hover(sc), "vanish": vanish(sc),
                    "appear": appear(sc), "morph": morph(sc), "pass_floor": sink(sc), "anti_gravity": backwards(sc)}
        for cls, lay in doctored.items():
            cases.append(Case(cls, name, fall, compose(sc, lay), fps))
        if shape == "sphere":
            cases.append(Case("clean", name + "_bounce", f"A {noun} falls and bounces on the floor.",
                              compose(sc, identity_layout(sc)), fps))
            cases.append(Case("wrong_bounce_height", name, f"A {noun} falls and bounces on the floor.",
                              compose(sc, higher_rebound(sc)), fps))
            dead = render_scene(name + "_dead", [_obj(name, shape, size, color, 0.1, 1.0, vx=0.4, restitution=0.0)],
                                width=w, height=h, fps=fps, frames=n, renderer=rend, floor_restitution=0.0)
            cases.append(Case("no_bounce", name, f"A {noun} falls and bounces on the floor.",
                              compose(dead, identity_layout(dead)), fps))
            cases.append(Case("clean", name + "_dead", f"A {noun} falls to the floor.",
                              compose(dead, identity_layout(dead)), fps))
    # two drops: the prompt's order, and the other one
    for first, second, w, h, fps in (("red", "blue", 320, 180, 16.0), ("yellow", "green", 256, 192, 24.0)):
        n = int(round(2.6 * fps))
        sc = render_scene(f"two_{first}_{second}", [_obj("a", "sphere", 0.08, first, 0.0, 0.5),
                                                    _obj("b", "sphere", 0.08, second, 1.0, 1.2)],
                          width=w, height=h, fps=fps, frames=n)
        prompt_ok = f"A {first} ball and a {second} ball are dropped; the {first} ball lands before the {second} ball."
        prompt_bad = f"A {first} ball and a {second} ball are dropped; the {second} ball lands before the {first} ball."
        cases.append(Case("clean", sc.name, prompt_ok, compose(sc, identity_layout(sc)), fps))
        cases.append(Case("wrong_order", sc.name, prompt_bad, compose(sc, identity_layout(sc)), fps))
        if not quick:
            cases.append(Case("teleport", sc.name, prompt_ok, compose(sc, teleport(sc, 1)), fps))
    # three balls: the third one missing, an extra one appearing
    for cols, w, h, fps in ((("red", "blue", "green"), 320, 180, 16.0), (("blue", "yellow", "red"), 288, 176, 20.0)):
        n = int(round(2.4 * fps))
        sc = render_scene("three_" + "_".join(cols), [_obj(c, "sphere", 0.08, c, x, z, restitution=0.5)
                                                      for c, x, z in zip(cols, (-0.2, 0.5, 1.2), (0.6, 1.0, 0.8))],
                          width=w, height=h, fps=fps, frames=n)
        prompt = "Three balls fall to the floor."
        cases.append(Case("clean", sc.name, prompt, compose(sc, identity_layout(sc)), fps))
        cases.append(Case("missing_object", sc.name, prompt, compose(sc, missing(sc)), fps))
        cases.append(Case("appear", sc.name, prompt, compose(sc, appear(sc, 1)), fps))
    return cases


#: third-party clips of correct physics (tests/data/external) with a prompt true of each, and the object's colour
EXTERNAL = [("physion_neurips2021/tiles/drop.mp4", "A dark green cube drops onto a yellow mat."),
            ("physion_neurips2021/tiles/roll.mp4", "A ball rolls across the floor.")]


def external_cases(root: Path) -> list[Case]:
    """Doctored copies of third-party clips: the main moving object is cut out by the offline tracker (its box, and
    the pixels there that differ from what the place shows in the frames the box does not cover) and erased with that
    picture or pasted elsewhere. The clip's median would hold an object that rests at one place for most of the clip:
    neither its pixels there nor erasing them would remove it."""
    from critic.specialists.tracking import BackgroundGrounder, stitch

    cases = []
    for rel, prompt in EXTERNAL:
        path = root / rel
        if not path.is_file():
            continue
        video = load_video(path)
        frames = np.asarray(video.frames[:100])
        res = BackgroundGrounder().track_all(video)
        tracks = stitch([t for t in res.tracks if t.visible.sum() >= 10], "object", res.colors_rgb)
        tr = max(tracks, key=lambda t: float(np.nanmax(t.centroid_px[:, 0]) - np.nanmin(t.centroid_px[:, 0])
                                             + np.nanmax(t.centroid_px[:, 1]) - np.nanmin(t.centroid_px[:, 1])))
        t_count = len(frames)
        h, w = frames.shape[1:3]

        def box(k):
            """The object's box at frame ``k`` grown by two pixels (x0, y0, x1, y1), or None where it is not tracked."""
            if k >= len(tr.visible) or not (tr.visible[k] or tr.coasted[k]):
                return None
            x0, y0, x1, y1 = (int(round(v)) for v in tr.boxes_xyxy[k])
            return max(x0 - 2, 0), max(y0 - 2, 0), min(x1 + 3, w), min(y1 + 3, h)

        # what each pixel shows without the object: its median over the frames the object's box does not cover it
        # (the clip's own median holds the object where it rests for most of the clip: erasing with it, or finding
        # the object's pixels against it, would leave the object there, a second copy once the pasted one is
        # elsewhere); the clip's median where the box covers it in every frame
        covered = np.zeros((t_count, h, w), bool)
        for k in range(t_count):
            b = box(k)
            if b is not None:
                covered[k, b[1]:b[3], b[0]:b[2]] = True
        bg = res.background.copy()
        ys, xs = np.nonzero(covered.any(axis=0))
        vals = frames[:, ys, xs].astype(np.float32)  # (T, N, 3)
        vals[covered[:, ys, xs]] = np.nan
        free = ~np.isnan(vals[..., 0]).all(axis=0)
        bg[ys[free], xs[free]] = np.round(np.nanmedian(vals[:, free], axis=0)).astype(np.uint8)

        def mask(k):
            """The object's pixels at frame ``k``: in its box, differing from what the place shows without it."""
            m = np.zeros((h, w), bool)
            b = box(k)
            if b is None:
                return m
            x0, y0, x1, y1 = b
            diff = np.abs(frames[k, y0:y1, x0:x1].astype(int) - bg[y0:y1, x0:x1].astype(int)).max(axis=-1)
            # grown by two pixels: its blurred edges and the shade it casts right under it go with it
            m[y0:y1, x0:x1] = cv2.dilate((diff > 25).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
            return m

        masks = [mask(k) for k in range(t_count)]
        moving = [k for k in range(1, t_count) if masks[k].any()
                  and np.linalg.norm(tr.centroid_px[k] - tr.centroid_px[k - 1]) > 1.0]
        if len(moving) < 6:
            continue
        k0 = moving[len(moving) // 3]
        r = max(float(tr.radius_px), 4.0)

        def redo(spec):
            """``spec(k)`` -> (source frame, dx) or None (erased) for each frame from ``k0`` on."""
            out = frames.copy()
            for k in range(k0, t_count):
                out[k][masks[k]] = bg[masks[k]]
                how = spec(k)
                if how is None:
                    continue
                src, dx = how
                ys, xs = np.nonzero(masks[src])
                xs2 = np.clip(xs + int(round(dx)), 0, w - 1)
                out[k, ys, xs2] = frames[src, ys, xs]
            return out

        n = 10
        name = Path(rel).stem
        cases += [Case("clean", f"ext_{name}", prompt, frames, video.fps),
                  Case("teleport", f"ext_{name}", prompt, redo(lambda k: (k, 6 * r if tr.centroid_px[k0, 0] < w / 2
                                                                          else -6 * r)), video.fps),
                  Case("vanish", f"ext_{name}", prompt, redo(lambda k: None if k < k0 + n else (k, 0.0)), video.fps),
                  Case("hover" if name == "drop" else "freeze", f"ext_{name}", prompt,
                       redo(lambda k: (k0, 0.0) if k < k0 + n else (k - n, 0.0)), video.fps)]
    return cases


def judge(case: Case, tmp: Path, verbose: bool) -> tuple[str, list[str], float, float]:
    """Encode the clip, critique it with the offline components; -> verdict, contradicted claim texts, decode s,
    critique s (operations + aggregation)."""
    path = Path(write_video(tmp / f"{case.scene}_{case.cls}.mp4", case.frames, case.fps))
    t0 = time.perf_counter()
    video = load_video(path)
    t1 = time.perf_counter()
    comp = build_components(CFG)  # fresh specialists: nothing carried over from the clip before
    plan = comp.planner.plan(case.prompt, None).plan
    ex = Executor(comp.specialists).run(plan, video)
    verdict = comp.aggregator.aggregate(plan, ex.records)
    t2 = time.perf_counter()
    fired = [c.text for c in verdict.claims if c.state == "contradicted"]
    if verbose:
        print(f"  {case.cls:<20} {case.scene:<24} {verdict.verdict:<13} {'; '.join(fired)[:110]}")
        for c in verdict.claims:
            for s in c.sub_checks:
                r = ex.records.get(s.op_id)
                if r is not None and r.op == "measure":
                    print(f"      {r.args.get('subject')}.{r.args.get('quantity')}[{r.args.get('expect', {}).get('holds')}]"
                          f" {r.state}: {r.measured[:70]} {r.reason[:70]}")
    return verdict.verdict, fired, t1 - t0, t2 - t1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="three single-object scenes and the multi-object ones")
    ap.add_argument("--only", default="", help="comma-separated classes to run (and clean)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    global CFG
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        CFG = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    t0 = time.perf_counter()
    cases = build_cases(args.quick)
    if not args.quick:
        cases += external_cases(Path(__file__).resolve().parents[1] / "tests" / "data" / "external")
    if args.only:
        keep = set(args.only.split(",")) | {"clean"}
        cases = [c for c in cases if c.cls in keep]
    print(f"{len(cases)} clips built in {time.perf_counter() - t0:.1f} s")
    tmp = Path(tempfile.mkdtemp(prefix="critic_defects_"))
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    false_alarms = []
    decode = crit = 0.0
    for case in cases:
        verdict, fired, d, c = judge(case, tmp, args.verbose)
        decode += d
        crit += c
        hits[case.cls][1] += 1
        if verdict == "contradicted":
            hits[case.cls][0] += 1
            if case.cls == "clean":
                false_alarms.append((case.scene, fired))
    print(f"{'class':<22}{'contradicted':>14}{'recall':>9}")
    defects = [k for k in hits if k != "clean"]
    total = [0, 0]
    for cls in sorted(defects):
        a, n = hits[cls]
        total[0] += a
        total[1] += n
        print(f"{cls:<22}{a:>8} / {n:<4}{a / n:>9.2f}")
    print(f"{'all defects':<22}{total[0]:>8} / {total[1]:<4}{total[0] / max(total[1], 1):>9.2f}")
    a, n = hits["clean"]
    print(f"{'clean (false alarms)':<22}{a:>8} / {n:<4}{a / max(n, 1):>9.2f}")
    for scene, fired in false_alarms:
        print(f"  false alarm on {scene}: {'; '.join(fired)}")
    print(f"decode {decode:.1f} s, critique {crit:.1f} s over {len(cases)} clips "
          f"(critique / decode {crit / max(decode, 1e-9):.2f}x)")


if __name__ == "__main__":
    main()
