"""Fig. 6: the depth control above the generated clip at matched timestamps, for two appearance prompts.

For one scene and seed, the clips with control throughout (i* = N) of up to two prompts (their appearances
differ; the motion is the scene's own where the sweep has it). The columns are the same timestamps for every
row, chosen from the turning points of the first prompt's tracked vertical path (where the ball tops out or
bounces) plus its first and last tracked frames. Each prompt's numbers, over the frames measurable in both
paths: Pearson r per axis (4 decimals) and the median pixel disagreement per axis.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from control.io import load_control
from experiments.figures.records import THROUGHOUT, JobRecord, pick_scene, pick_seed, prompt_order, scene_order
from experiments.figures.style import PAGE_WIDTH_IN, fmt, new_figure, page_style, save_figure
from generate.io import load_clip
from veriphy.errors import UserError

STEM = "fig6_depth_vs_generated"
COLUMNS = ["job", "scene", "seed", "appearance", "motion", "prompt", "release_step", "num_steps", "frames_total",
           "frames_measurable", "r_x", "r_y", "median_abs_px_x", "median_abs_px_y", "frame_indices", "timestamps_s"]


def turning_frames(y: np.ndarray, seen: np.ndarray, columns: int) -> list[int]:
    """Frame indices (sorted, at most ``columns``): the first and last ``seen`` frames and the turning points
    of ``y`` among the seen frames (local extrema: the ball tops out or bounces), the most pronounced first
    when there are more than fit."""
    idx = np.flatnonzero(seen)
    if idx.size == 0:
        return list(np.linspace(0, len(y) - 1, min(columns, len(y))).round().astype(int))
    ends = {int(idx[0]), int(idx[-1])}
    turns: dict[int, float] = {}
    v = y[idx]
    for a in range(1, len(idx) - 1):
        step_in, step_out = v[a] - v[a - 1], v[a + 1] - v[a]
        if step_in * step_out < 0:  # direction of vertical travel reverses here
            turns[int(idx[a])] = min(abs(step_in), abs(step_out))
    picked = sorted(turns, key=lambda f: -turns[f])[: max(columns - len(ends), 0)]
    frames = sorted(ends | set(picked))
    # Too few turning points: fill the widest gaps with their middle frames.
    while len(frames) < min(columns, idx.size):
        gaps = [(b - a, a, b) for a, b in zip(frames, frames[1:]) if b - a > 1]
        if not gaps:
            break
        _, a, b = max(gaps)
        frames = sorted({*frames, (a + b) // 2})
    return frames


def pick_clips(jobs: list[JobRecord], scene: str | None, seed: int | None, max_prompts: int
               ) -> tuple[str, int, list[JobRecord]]:
    """(scene, seed, clips with control throughout of distinct appearances, at most ``max_prompts``)."""
    throughout = [j for j in jobs if j.condition == THROUGHOUT]
    if not throughout:
        raise UserError("no clip with control throughout (i* = N) among the jobs", field="sweep")
    if scene is None:  # the scene with the most appearances (ties: the paper's order)
        looks = {s: len({j.row.get("appearance") or j.prompt for j in throughout if j.scene == s})
                 for s in scene_order(j.scene for j in throughout)}
        scene = next(s for s in looks if looks[s] == max(looks.values()))
    scene = pick_scene(throughout, scene)
    seed = pick_seed([j for j in throughout if j.scene == scene], seed)
    candidates = [j for j in throughout if j.scene == scene and j.seed == seed]
    clips, appearances = [], set()
    for prompt in prompt_order(candidates):
        job = next(j for j in candidates if j.prompt == prompt)
        look = job.row.get("appearance") or prompt
        if look not in appearances:
            appearances.add(look)
            clips.append(job)
    return scene, seed, clips[:max_prompts]


def depth_frames_figure(jobs: list[JobRecord], out_dir: Path, *, scene: str | None = None, seed: int | None = None,
                        columns: int = 6, max_prompts: int = 2) -> list[Path]:
    """Fig. 6 of the jobs into ``out_dir`` (see the module docstring)."""
    scene, seed, clips = pick_clips(jobs, scene, seed, max_prompts)
    first = clips[0]
    frames = turning_frames(first.paths["tracked_px"][:, 1], first.measurable(), columns)
    t_s = first.paths["t_s"]
    width, height = first.video_size()
    rows, numbers = [], []
    with page_style():
        cell = PAGE_WIDTH_IN / (len(frames) + 0.6)
        fig, axes = new_figure(PAGE_WIDTH_IN, cell * height / width * 2 * len(clips) + 0.35 * len(clips),
                               2 * len(clips), len(frames), gridspec_kw={"hspace": 0.08, "wspace": 0.04})
        for p, job in enumerate(clips):
            control = np.asarray(load_control(job.job_dir / "control").frames)
            generated = np.asarray(load_clip(job.job_dir).frames)
            sim, trk, seen = job.paths["simulated_px"], job.paths["tracked_px"], job.measurable()
            for c, f in enumerate(frames):
                for r, (image, label) in enumerate(((control[f], "depth control"), (generated[f], "generated"))):
                    ax = axes[2 * p + r][c]
                    ax.imshow(image, cmap="gray" if image.ndim == 2 else None, vmin=0, vmax=255,
                              interpolation="nearest")
                    if r == 0 and np.isfinite(sim[f]).all():
                        ax.plot(*sim[f], "+", color="#ffb000", ms=4, mew=0.8)
                    if r == 1 and seen[f]:
                        ax.plot(*trk[f], "+", color="#00c0ff", ms=4, mew=0.8)
                    ax.set_xticks([])
                    ax.set_yticks([])
                    if p == 0 and r == 0:
                        ax.set_title(f"t = {t_s[f]:.3f} s")
                    if c == 0:
                        ax.set_ylabel(label if r == 0 else f"({p + 1}) {label}", fontsize=6.5)
            rx, ry, median = job.clip_score()
            numbers.append(f"({p + 1}) \"{job.prompt}\": r = {fmt(rx.r, 4)} (x) and {fmt(ry.r, 4)} (y); median "
                           f"disagreement {fmt(median['x'], 2)} px (x) and {fmt(median['y'], 2)} px (y), over "
                           f"{rx.frames} frames measurable in both of {len(t_s)}.")
            rows.append({"job": job.name, "scene": scene, "seed": seed, "appearance": job.row.get("appearance"),
                         "motion": job.row.get("motion"), "prompt": job.prompt, "release_step": job.release_step,
                         "num_steps": job.num_steps, "frames_total": len(t_s), "frames_measurable": rx.frames,
                         "r_x": rx.r, "r_y": ry.r, "median_abs_px_x": median["x"], "median_abs_px_y": median["y"],
                         "frame_indices": ";".join(str(f) for f in frames),
                         "timestamps_s": ";".join(f"{t_s[f]:.6g}" for f in frames)})
        caption = (f"Fig. 6. Depth control (upper row of each pair) and generated clip (lower row) at matched "
                   f"timestamps, chosen from the turning points of the tracked vertical path; control throughout "
                   f"(i* = N = {first.num_steps}), scene {scene}, seed {seed}, {width}x{height} px. Orange +: "
                   f"the simulated centre; blue +: the tracked centroid. Correlation per axis and median pixel "
                   f"disagreement between the tracked and the simulated path over the frames measurable in both:\n"
                   + "\n".join(textwrap.fill(line, 110) for line in numbers))
        return save_figure(fig, out_dir, STEM, rows, COLUMNS, caption)
