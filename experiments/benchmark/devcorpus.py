"""A small annotated corpus for developing and testing the scorer, the critique runner and the ablations, made
from doctored simulated clips (``experiments.synthetic``: teleport, vanish) and, optionally, correct external clips.

It is not the benchmark corpus (``python -m experiments.benchmark build`` renders that): its defects are the two the
synthetic doctoring makes, with windows and severities from the doctoring itself:

* ``teleport``: from frame k on the object is drawn ``jump_px`` further along x. The jump happens between frames
  k-1 and k: the window is frames k-1..k; severity = the jump in the object's radii, rounded, clipped to 1..5.
* ``vanish``: from frame k on the object is gone. The window is frames k..T-1 (the frames it is missing from);
  severity = 1 + (missing frames) // 5, clipped to 1..5.

The defect's ``violates`` span is the phrase that first names the object (the presumed law is permanence or
continuity of that object).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from control.render import AnalyticRenderer
from experiments.benchmark.runs import ANNOTATIONS
from experiments.benchmark.types import ClipAnnotation, Defect, FrameWindow, SceneObject, Span
from experiments.synthetic import doctor
from sim.engine import simulate
from veriphy.files import atomic_write_bytes, dumps_json
from veriphy.video import decode_video, write_video

#: colour names for an object's RGBA (the nearest by RGB distance)
_NAMED_RGB = {"red": (0.85, 0.15, 0.1), "blue": (0.1, 0.3, 0.85), "green": (0.1, 0.7, 0.2), "yellow": (0.9, 0.85, 0.1),
              "orange": (0.95, 0.5, 0.1), "white": (0.95, 0.95, 0.95), "black": (0.05, 0.05, 0.05),
              "grey": (0.5, 0.5, 0.5), "purple": (0.5, 0.2, 0.7)}


def colour_name(rgba: Sequence[float]) -> str:
    rgb = np.asarray(rgba[:3], float)
    return min(_NAMED_RGB, key=lambda k: float(np.sum((rgb - np.asarray(_NAMED_RGB[k])) ** 2)))


@dataclass(frozen=True)
class SimulatedScene:
    """One simulated scene of the dev corpus: its id prefix, the spec (already at the wanted size), the prompt and
    the object the doctoring changes (None: the first)."""

    name: str
    spec: object
    prompt: str
    object_name: str | None = None


def _mention(prompt: str, colour: str, noun: str) -> Span | None:
    m = re.search(rf"\b(?:an?|the|one)\s+{re.escape(colour)}\s+{re.escape(noun)}\b", prompt, flags=re.IGNORECASE)
    if m is None:
        return None
    return Span(start=m.start(), end=m.end(), text=prompt[m.start():m.end()])


def _window(a: int, b: int, fps: float) -> FrameWindow:
    return FrameWindow(start_frame=a, end_frame=b, start_s=round(a / fps, 6), end_s=round((b + 1) / fps, 6))


def simulated_clips(out_dir: Path, scene: SimulatedScene, flaws: Sequence[str] = ("teleport", "vanish"),
                    jump_px: int = 12, clean: bool = True) -> list[ClipAnnotation]:
    """Render ``scene`` (clean unless ``clean`` is off) and with each flaw into ``out_dir/clips/<scene.name>/``; one
    annotation per clip."""
    spec = scene.spec
    traj = simulate(spec)
    render = AnalyticRenderer(rgb=True, progress=False).render(spec, traj, rgb=True)
    target = scene.object_name or spec.objects[0].name
    seg = np.asarray(render.segmentation)
    rgb = np.asarray(render.rgb)
    T, H, W = seg.shape
    objects = []
    for k, obj in enumerate(spec.objects):
        colour = colour_name(obj.color_rgba)
        noun = {"sphere": "ball", "box": "box", "cylinder": "cylinder"}.get(obj.shape, obj.shape)
        area = (seg == traj.index(obj.name)).sum(axis=(1, 2))
        radius = float(np.sqrt(np.median(area[area > 0]) / np.pi)) if (area > 0).any() else None
        objects.append(SceneObject(name=obj.name, shape=obj.shape, color=colour, radius_px=radius,
                                   mention=_mention(scene.prompt, colour, noun)))
    mask = seg == traj.index(target)
    in_view = np.flatnonzero(mask.any(axis=(1, 2)))
    start = int(in_view[len(in_view) // 2]) if in_view.size else T // 2
    obj = next(o for o in objects if o.name == target)
    violates = obj.mention or Span(start=0, end=len(scene.prompt), text=scene.prompt)
    clip_dir = out_dir / "clips" / scene.name
    clip_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for flaw in (("clean",) if clean else ()) + tuple(flaws):
        frames = rgb if flaw == "clean" else doctor(rgb, mask, flaw, start, jump_px)
        video = clip_dir / f"{flaw}.mp4"
        write_video(video, frames, spec.fps, lossless=True)
        defects = []
        if flaw == "teleport":
            radii = jump_px / obj.radius_px if obj.radius_px else 1.0
            defects.append(Defect(id=f"{scene.name}_{flaw}_0", category="teleport",
                                  severity=int(np.clip(round(radii), 1, 5)), window=_window(start - 1, start, spec.fps),
                                  object=target, violates=violates,
                                  edit=f"drawn {jump_px} px further along x from frame {start} on",
                                  magnitude={"jump_px": float(jump_px), "jump_radii": round(radii, 3)}))
        elif flaw == "vanish":
            missing = T - start
            defects.append(Defect(id=f"{scene.name}_{flaw}_0", category="vanish",
                                  severity=int(np.clip(1 + missing // 5, 1, 5)), window=_window(start, T - 1, spec.fps),
                                  object=target, violates=violates,
                                  edit=f"painted over with the background from frame {start} on",
                                  magnitude={"missing_frames": float(missing)}))
        out.append(ClipAnnotation(id=f"{scene.name}_{flaw}", video=video.relative_to(out_dir).as_posix(),
                                  prompt=scene.prompt, renderer="analytic", source=scene.name, width=W, height=H,
                                  fps=float(spec.fps), num_frames=T, seed=int(getattr(spec, "seed", 0) or 0),
                                  objects=objects, defects=defects))
    return out


def external_clip(corpus_dir: Path, video: Path, prompt: str, clip_id: str) -> ClipAnnotation:
    """A correct external clip (no defect) with a truthful prompt, copied into the corpus."""
    decoded = decode_video(video)
    T, H, W = decoded.frames.shape[:3]
    dest = corpus_dir / "clips" / "external" / f"{clip_id}{video.suffix}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(dest, video.read_bytes())
    return ClipAnnotation(id=clip_id, video=dest.relative_to(corpus_dir).as_posix(), prompt=prompt,
                          renderer="external", source=video.name, width=int(W), height=int(H),
                          fps=float(decoded.fps), num_frames=int(T), seed=0)


def write_corpus(corpus_dir: str | Path, clips: Sequence[ClipAnnotation]) -> Path:
    path = Path(corpus_dir) / ANNOTATIONS
    atomic_write_bytes(path, "".join(dumps_json(c.model_dump(mode="json"), indent=None) + "\n" for c in clips).encode())
    return path
