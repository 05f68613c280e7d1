"""The evaluation itself: every held-out clip (ground truth, autoencoded, and one generated clip per release
step) tracked and scored against its simulated path."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image
from tqdm import tqdm

from control.types import ControlVideo
from experiments.evaluate_tiny.report import scene_kind, summarise, summarise_autoencoder
from experiments.evaluate_tiny.settings import TinyEvaluation
from experiments.retention import score_retention
from experiments.tracking import CriticObjectTracker
from experiments.types import RetentionConfig, RetentionScore
from generate.sweep import generate_release_sweep


def window_masks_of(record: dict[str, Any], num_frames: int) -> dict[str, np.ndarray]:
    """``airborne`` / ``after_ground`` frame masks (T,) from a clip record's frame windows."""
    masks = {}
    windows = record["windows"]
    air = np.zeros(num_frames, bool)
    if "airborne" in windows:
        a, b = windows["airborne"]
        air[a:b + 1] = True
    after = np.zeros(num_frames, bool)
    if "first_ground_contact" in windows:
        after[windows["first_ground_contact"][0]:] = True
    masks["airborne"] = air
    masks["after_ground"] = after
    return masks


def sideways_direction(track, min_px: float) -> int:
    """+1 / -1 when the tracked centre's mean sideways motion (slope of x over the observed frames, times the
    clip length) is at least ``min_px`` to the right / left, else 0."""
    seen = np.asarray(track.visible) & ~np.asarray(track.coasted) & np.isfinite(track.centroid_px).all(axis=1)
    if seen.sum() < 3:
        return 0
    t = np.flatnonzero(seen).astype(np.float64)
    x = np.asarray(track.centroid_px)[seen, 0]
    slope = np.polyfit(t, x, 1)[0]
    travel = slope * (len(seen) - 1)
    if abs(travel) < min_px:
        return 0
    return 1 if travel > 0 else -1


def autoencode(pipe, rgb: np.ndarray) -> np.ndarray:
    """(T, H, W, 3) uint8 through the VAE (posterior mode) and back, uint8."""
    x = torch.from_numpy(np.ascontiguousarray(rgb)).float().div(127.5).sub(1.0).permute(3, 0, 1, 2)[None]
    with torch.no_grad():
        z = pipe.vae.encode(x).latent_dist.mode()
        y = pipe.vae.decode(z).sample[0]
    y = ((y.clamp(-1, 1) + 1) * 127.5).round().permute(1, 2, 3, 0).to(torch.uint8).numpy()
    return y


def control_video_of(frames: np.ndarray, centers_px: np.ndarray, fps: float) -> ControlVideo:
    t = frames.shape[0]
    return ControlVideo(frames=frames, kind="depth", fps=fps, object_names=("ball",),
                        centers_px=np.asarray(centers_px).reshape(t, 1, 2), near_m=np.zeros(t), far_m=np.zeros(t))


def evaluate(pipe, ev: TinyEvaluation, *, progress: bool = True, frames_dir: Path | None = None,
             autoencoder_only: bool = False) -> dict[str, Any]:
    """Run every figure on the first ``ev.num_clips`` held-out clips; returns the report (every clip's scores are
    :class:`~experiments.types.RetentionScore`; ``veriphy.files.write_json`` writes it as JSON). With
    ``autoencoder_only`` only ``pipe.vae`` is used (the ground-truth check and the autoencoder ceiling, see
    :func:`summarise_autoencoder`): a trained autoencoder is checked before a transformer is trained on it."""
    ev.data.build(progress=progress)
    arrays, index = ev.data.arrays()
    n = min(ev.num_clips, len(index))
    fps = float(ev.data.sampler.fps)
    scoring = RetentionConfig(threshold=ev.retention_threshold, min_frames=ev.min_frames)
    tracker = CriticObjectTracker(subject="ball")
    clips = []
    sigma_rel: dict[int, float] = {}
    tic = time.perf_counter()
    for i in tqdm(range(n), desc="evaluate", unit="clip", file=sys.stderr, disable=not progress):
        rec = index[i]
        sim_px = np.asarray(arrays["centers_px"][i], dtype=np.float64)
        t = sim_px.shape[0]
        masks = window_masks_of(rec, t)

        def score(frames: np.ndarray) -> RetentionScore:
            track = tracker(frames, fps, sim_px)
            return score_retention(track.centroid_px, track.visible & ~track.coasted, sim_px, masks, scoring,
                                   track.area_px)

        entry: dict[str, Any] = {"index": rec["index"], "prompt": rec["prompt"], "direction": rec["direction"],
                                 "template": rec["info"]["template"], "scene": scene_kind(rec["info"]),
                                 "radius_px": rec["info"]["radius_px"]}
        entry["ground_truth"] = score(arrays["rgb"][i])
        recon = autoencode(pipe, arrays["rgb"][i])
        entry["autoencoder"] = score(recon)
        clips.append(entry)
        if autoencoder_only:
            continue
        control = control_video_of(arrays["control"][i], sim_px, fps)
        out = generate_release_sweep(pipe, control, rec["prompt"], seed=ev.seed + i, num_steps=ev.num_steps,
                                     release_steps=ev.release_steps, guidance_scale=ev.guidance_scale,
                                     max_sequence_length=ev.max_sequence_length, progress=False)
        entry["release"] = {}
        for step, clip in out.items():
            entry["release"][str(step)] = score(np.asarray(clip.frames))
            sigma_rel[step] = float(clip.sigma_rel)
            if frames_dir is not None and step in (0, ev.num_steps) and i < 8:
                frames_dir.mkdir(parents=True, exist_ok=True)
                strip = np.concatenate([*np.asarray(clip.frames)[::2]], axis=1)
                Image.fromarray(strip).save(frames_dir / f"clip{i:02d}_release{step:02d}.png")
        free = np.asarray(out[0].frames)
        free_track = tracker(free, fps, None)  # no simulated path: the tracker must not be steered to it
        entry["no_control_direction"] = sideways_direction(free_track, ev.direction_min_px)
    seconds = time.perf_counter() - tic
    if autoencoder_only:
        return summarise_autoencoder(clips, ev, seconds)
    return summarise(clips, ev, sigma_rel, seconds)
