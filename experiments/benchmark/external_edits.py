"""Source 4: doctored copies of external, physically correct clips (Physion's TDW simulations and a real phone
clip of a ball drop). The prompt starts with one of the hand-written truthful descriptions of the clip
(``truthful_prompts.yaml`` beside the clips); defects are known edits: held frames (freeze), cut frames (a jump),
the clip played backwards (a fall running upward), a pasted ball that appears from nowhere or vanishes mid-roll,
on-screen text other than the quoted one, and a named object the clip lacks.

Where an edit goes is chosen by how much the picture changes between frames (so a hold or a cut falls where
something moves); the annotation is the edit itself, never a measurement.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import yaml

from experiments.benchmark import edits, severity
from experiments.benchmark.clipdata import PALETTE
from experiments.benchmark.made import DefectLog, MadeClip
from experiments.benchmark.pixel_clips import cut, hold, pick_motion_frame, reverse
from experiments.benchmark.prompts import TEXTS, ClauseSpec, Piece, PromptBuilder, assemble, choose
from experiments.benchmark.simulated import _other_text
from experiments.benchmark.types import SceneObject
from veriphy.errors import UserError
from veriphy.video import decode_video

#: The clips used, with the noun that names their main object and whether their main motion is a fall
#: (a fall played backwards is anti-gravity; a roll played backwards is not clearly wrong, so it is not used).
SOURCES = {
    "physion_neurips2021/tiles/drop.mp4": ("cube", "box", True),
    "physion_neurips2021/tiles/dominoes.mp4": ("domino", "box", True),
    "physion_neurips2021/tiles/support.mp4": ("bowl", "external", True),
    "physion_neurips2021/tiles/link.mp4": ("ring", "external", True),
    "physion_neurips2021/tiles/drape.mp4": ("cloth", "external", True),
    "physion_neurips2021/tiles/roll.mp4": ("ball", "sphere", False),
    "physion_neurips2021/tiles/collide.mp4": ("ball", "sphere", False),
    "physion_neurips2021/tiles/contain.mp4": ("ball", "sphere", False),
    "real_clips/oliverius_gravity_ball_drop.mp4": ("ball", "sphere", True),
}
NOUN_PATTERN = {"cube": r"\b(cube|block|box|object)\b", "domino": r"\b(dominoes|domino)\b",
                "bowl": r"\b(bowl|ball)\b", "ring": r"\b(rings|ring|ball)\b", "cloth": r"\b(cloth|sheet)\b",
                "ball": r"\b(ball|object)\b"}
#: Frames kept of a long source: the real clip's drop spans its frames 118-201 (its PROVENANCE.txt).
#: Largest mean absolute frame-to-frame change (grey levels) below which a stretch counts as still.
MIN_CHANGE = 0.6
STRETCH = {"real_clips/oliverius_gravity_ball_drop.mp4": (96, 224)}
EXTERNAL_EDITS = ("freeze", "teleport", "anti_gravity", "appear", "vanish", "wrong_text", "missing_object")
_DECODED: dict[tuple[str, int], tuple[np.ndarray, float]] = {}


def load(external_dir: Path, rel: str, step: int) -> tuple[np.ndarray, float]:
    """Decoded frames of one source (every ``step``-th frame, long side at most 352 px) and their rate."""
    key = (str(external_dir / rel), step)
    if key not in _DECODED:
        path = external_dir / rel
        if not path.is_file():
            raise UserError("external clip not found (set external_dir)", file=path, field="external_dir")
        video = decode_video(path)
        first, last = STRETCH.get(rel, (0, len(video.frames)))
        frames = np.asarray(video.frames)[first:last:step]
        h, w = frames.shape[1:3]
        scale = min(1.0, 352 / max(h, w))
        frames = edits.resize(frames, int(round(w * scale / 2)) * 2, int(round(h * scale / 2)) * 2)
        _DECODED[key] = (frames, round(float(video.fps), 3) / step)
    return _DECODED[key]


def truthful_prompts(external_dir: Path) -> dict[str, list[str]]:
    path = external_dir / "truthful_prompts.yaml"
    if not path.is_file():
        raise UserError("truthful prompts not found", file=path, field="external_dir")
    return yaml.safe_load(path.read_text())


def make_clip(rng: np.random.Generator, external_dir: Path, *, num_defects: int) -> MadeClip:
    prompts = truthful_prompts(external_dir)
    rels = sorted(SOURCES)
    if num_defects:
        rel = rels[int(rng.integers(len(rels)))]
    else:
        rel = rels[int(rng.integers(len(rels)))]
    noun, shape, falls = SOURCES[rel]
    real = rel.startswith("real_clips")
    step = int(rng.choice((2, 3))) if real else int(rng.choice((1, 2)))
    frames, fps = load(external_dir, rel, step)
    T0 = len(frames)
    if not real:
        length = int(min(T0, rng.integers(40, 100) // step))
        # Physion's motion happens early in its tiles: start within the first 30 source frames.
        start = int(rng.integers(0, max(1, min(30 // step, T0 - length))))
        frames = frames[start:start + length]
    scale = float(rng.uniform(0.55, 1.0))
    h, w = frames.shape[1:3]
    frames = edits.resize(frames, max(64, int(round(w * scale / 2)) * 2), max(64, int(round(h * scale / 2)) * 2))
    H, W = frames.shape[1:3]

    sentence = choose(rng, prompts[rel]).rstrip(".")
    main = noun.replace(" ", "_")
    chosen: list[str] = []
    options = [e for e in EXTERNAL_EDITS if falls or e != "anti_gravity"]
    timeline_done = False
    while len(chosen) < num_defects and options:
        c = options.pop(int(rng.integers(len(options))))
        if c in ("freeze", "teleport", "anti_gravity"):
            if timeline_done:
                continue
            timeline_done = True
        chosen.append(c)

    # ---- timeline edit (only where the picture changes: a hold or a cut of a still stretch is invisible)
    T = len(frames)
    edit = None
    notes: list[str] = []
    timeline = next((c for c in chosen if c in ("freeze", "teleport", "anti_gravity")), None)
    if timeline:
        _, change = pick_motion_frame(frames, 0, T - 1, rng)
        if change < MIN_CHANGE:
            chosen.remove(timeline)
            notes.append(f"dropped {timeline}: nothing moves in this stretch (largest mean frame change "
                         f"{change:.2f} grey levels)")
    if "freeze" in chosen:
        a, _ = pick_motion_frame(frames, 2, T - 3, rng)
        n = int(rng.integers(3, max(4, int(fps * 1.2))))
        frames, _ = hold(frames, a, n)
        edit = ("freeze", a, a + n, {"duration_s": (n + 1) / fps}, severity.duration((n + 1) / fps),
                f"showed frame {a} {n} more times")
    elif "teleport" in chosen:
        a, _ = pick_motion_frame(frames, 2, T - 8, rng)
        n = int(rng.integers(2, max(3, min(8, T - a - 3))))
        frames, _ = cut(frames, a, n)
        # No object size is known for external footage: the severity of a cut is the time it removes.
        edit = ("teleport", a, a + 1, {"cut_s": n / fps, "frames_cut": float(n)}, severity.duration(n / fps),
                f"cut frames {a + 1}-{a + n}")
    elif "anti_gravity" in chosen:
        frames, _ = reverse(frames)
        edit = ("anti_gravity", 0, len(frames) - 1, {"reversed_s": len(frames) / fps}, 4,
                "played the clip backwards: the fall runs upward")
    T = len(frames)

    # ---- prompt: the truthful sentence, then added clauses
    pb = PromptBuilder()
    m = re.search(NOUN_PATTERN.get(noun, rf"\b{noun}\b"), sentence, flags=re.IGNORECASE)
    if m:
        template = sentence[:m.start()].replace("{", "{{").replace("}", "}}") + "{S}" + \
            sentence[m.end():].replace("{", "{{").replace("}", "}}")
        pb.clause("base", template, [main], S=Piece(m.group(0), f"mention:{main}"))
    else:
        pb.clause("base", "{B}", [main], B=Piece(sentence, f"mention:{main}"))
    pb.plain(".")
    objects = {main: (None, shape)}
    clauses = []
    pasted = None
    used_colors = set()
    if "vanish" in chosen or "appear" in chosen:
        color = choose(rng, ("orange", "yellow", "pink", "purple", "white", "blue"))
        used_colors.add(color)
        pasted = f"pasted_{color}_ball"
        objects[pasted] = (color, "sphere")
        if "vanish" in chosen:
            d = 1 if rng.random() < 0.5 else -1
            clauses.append(ClauseSpec(pasted, "roll", subject=pasted, direction=d))
    text_quoted = text_shown = None
    if "wrong_text" in chosen or rng.random() < 0.2:
        text_quoted = choose(rng, TEXTS)
        text_shown = _other_text(rng, text_quoted) if "wrong_text" in chosen else text_quoted
        clauses.append(ClauseSpec("text", "text", text=text_quoted))
    missing = None
    if "missing_object" in chosen:
        color = choose(rng, [c for c in ("green", "blue", "yellow", "purple", "orange") if c not in used_colors])
        mshape = choose(rng, ("sphere", "box", "cylinder"))
        missing = f"{color}_{ {'sphere': 'ball', 'box': 'cube', 'cylinder': 'cylinder'}[mshape] }_absent"
        objects[missing] = (color, mshape)
        clauses.append(ClauseSpec(missing, "generic", subject=missing))
    pb = assemble(rng, clauses, objects, {}, builder=pb)

    # ---- pixels after the timeline: pasted ball, text
    radius_px = 0.0

    log = DefectLog(pb.spans, fps, T)
    add = log.add

    if edit:
        cat, a, b, mag, sev, words = edit
        add(cat, main, a, b, "claim:base", words, mag, sev)
    if pasted:
        radius_px = float(rng.uniform(0.05, 0.09)) * H
        k = int(rng.integers(max(2, T // 4), max(3, 3 * T // 4)))
        y = float(rng.uniform(0.55, 0.85)) * H
        centers = np.full((T, 2), np.nan)
        if "vanish" in chosen:
            d = next(c.direction for c in clauses if c.claim_id == pasted)
            xs = np.linspace(0.15 * W, 0.85 * W, T)[:: d]
            centers[:k] = np.stack([xs[:k], np.full(k, y)], axis=1)
            add("vanish", pasted, k - 1, k, f"mention:{pasted}", f"stopped drawing the pasted ball at frame {k}",
                {"radius_px": radius_px}, severity.size_px(radius_px))
        else:
            x = float(rng.uniform(0.2, 0.8)) * W
            centers[k:] = (x, y)
            add("appear", pasted, k - 1, k, "claim:base", f"pasted a still ball from frame {k} on",
                {"radius_px": radius_px}, severity.size_px(radius_px))
        frames = edits.paste_disc(frames, centers, radius_px, PALETTE[objects[pasted][0]])
    text_height = 0.0
    if text_shown:
        a = int(rng.integers(0, max(1, T // 3)))
        frames, text_height = edits.put_text(frames, text_shown, a, T - 1,
                                             corner=choose(rng, ("top_left", "top_right", "bottom_left")))
        if "wrong_text" in chosen:
            add("wrong_text", "text", a, T - 1, "claim:text", f"drew {text_shown!r} where the prompt quotes "
                f"{text_quoted!r}", {"height_px": text_height}, severity.text(text_shown, text_quoted, text_height))
    if missing:
        add("missing_object", missing, 0, T - 1, f"mention:{missing}", "the prompt names an object the clip lacks",
            {}, severity.MISSING_OBJECT)
        log.broken[missing] = False

    objs = [SceneObject(name=main, shape=shape, mention=pb.spans.get(f"mention:{main}"))]
    if pasted:
        objs.append(SceneObject(name=pasted, shape="sphere", color=objects[pasted][0], radius_px=round(radius_px, 3),
                                mention=pb.spans.get(f"mention:{pasted}")))
    if missing:
        objs.append(SceneObject(name=missing, shape=objects[missing][1], color=objects[missing][0],
                                mention=pb.spans.get(f"mention:{missing}")))
    if text_shown:
        objs.append(SceneObject(name="text", shape="text", color="white", mention=pb.spans.get("text:text")))
    notes = [f"source: {rel} (every {step}. frame of a stretch), resized to {W}x{H}", *notes]
    if real:
        notes.append("the source was filmed at 120 fps and is stored 4x slowed: its motion plays in slow motion")
    return MadeClip(frames=edits.even_size(frames), fps=fps, prompt=pb.text, renderer="external", source=rel,
                    objects=objs, claims=pb.claims(log.broken), defects=log.defects, notes=notes,
                    camera={"width_px": float(W), "height_px": float(H)})
