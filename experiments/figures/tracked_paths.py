"""Fig. 4: tracked ball paths, prompts (rows) x control conditions (columns), for one scene and seed.

Columns: no control (i* = 0), control throughout (i* = N), control over the first k steps (0 < i* < N).
Each panel is the full frame (x right, y down, in pixels): the control's (simulated) path as a pale band as
wide as the object, the tracked centroid as dots sized by the tracked area and shaded by time, and the
sideways travel (x range of the tracked path, and of the control's) in the corner. A condition the sweep did
not run is an empty panel that says so; a clip in which the object is tracked in few frames shows those
frames, and the caption says how many.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from experiments.figures.records import (FIRST_K, NO_CONTROL, THROUGHOUT, JobRecord, pick_scene, pick_seed,
                                         prompt_order)
from experiments.figures.style import (CONTROL_BAND_COLOR, PAGE_WIDTH_IN, TIME_CMAP, fmt, new_figure, page_style,
                                       save_figure)
from veriphy.errors import UserError

STEM = "fig4_tracked_paths"
CONDITIONS = (NO_CONTROL, THROUGHOUT, FIRST_K)
COLUMNS = ["row", "column", "job", "scene", "seed", "appearance", "motion", "prompt", "condition", "release_step",
           "num_steps", "sigma_rel", "frames_total", "frames_tracked", "sideways_travel_px", "sideways_travel_sim_px"]
#: Marker area (pt^2) of the largest tracked area in the figure.
MAX_DOT_PT2 = 40.0


def sideways_travel(job: JobRecord) -> tuple[float | None, float | None]:
    """x range (px) of the tracked path over the frames measurable in both, and of the whole simulated path."""
    trk, sim = job.paths["tracked_px"], job.paths["simulated_px"]
    both = job.measurable()
    finite = np.isfinite(sim).all(axis=1)
    return (float(np.ptp(trk[both, 0])) if both.any() else None,
            float(np.ptp(sim[finite, 0])) if finite.any() else None)


def panel_jobs(jobs: list[JobRecord], scene: str | None, seed: int | None, first_k: int | None,
               max_prompts: int) -> tuple[str, int, list[str], dict[tuple[str, str], JobRecord], int | None]:
    """(scene, seed, prompts, (prompt, condition) -> job, k) of the figure."""
    scene = pick_scene(jobs, scene)
    seed = pick_seed([j for j in jobs if j.scene == scene], seed)
    chosen = [j for j in jobs if j.scene == scene and j.seed == seed]
    prompts = prompt_order(chosen)[:max_prompts]
    partial = sorted({j.release_step for j in chosen if j.condition == FIRST_K})
    if first_k is not None and first_k not in partial:
        raise UserError(f"no clip released at step {first_k}; the partial releases here are {partial}",
                        field="--first-k")
    # The earliest partial release every prompt has, unless one is asked for.
    common = [k for k in partial if all(any(j.prompt == p and j.release_step == k for j in chosen) for p in prompts)]
    k = first_k if first_k is not None else (common or partial or [None])[0]
    cells = {}
    for j in chosen:
        if j.prompt in prompts and (j.condition != FIRST_K or j.release_step == k):
            cells.setdefault((j.prompt, j.condition), j)
    return scene, seed, prompts, cells, k


def _draw_panel(ax, job: JobRecord, width: int, height: int, max_area: float, t_end: float):
    """Draw one clip; returns its dots (for the colour bar) and the band's line with its radius (px)."""
    sim, trk = job.paths["simulated_px"], job.paths["tracked_px"]
    finite = np.isfinite(sim).all(axis=1)
    radius = job.paths.get("simulated_radius_px", np.full(len(sim), np.nan))
    radius = float(np.nanmedian(radius[finite])) if np.isfinite(radius[finite]).any() else 1.5
    # The band: a round-capped line as wide as the object, its width set in points once the layout is final.
    (band,) = ax.plot(sim[finite, 0], sim[finite, 1], "-", color=CONTROL_BAND_COLOR, solid_capstyle="round",
                      solid_joinstyle="round", zorder=1)
    seen = job.measurable()
    area = job.paths["tracked_area_px"]
    dots = ax.scatter(trk[seen, 0], trk[seen, 1], s=MAX_DOT_PT2 * area[seen] / max_area, c=job.paths["t_s"][seen],
                      cmap=TIME_CMAP, vmin=0.0, vmax=t_end, edgecolors="k", linewidths=0.25, zorder=2)
    travel, travel_sim = sideways_travel(job)
    ax.text(0.03, 0.97, f"sideways {fmt(travel)} px\ncontrol {fmt(travel_sim)} px", transform=ax.transAxes,
            va="top", ha="left", fontsize=6, bbox={"facecolor": "white", "alpha": 0.8, "lw": 0, "pad": 1})
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # image rows grow downwards
    ax.set_aspect("equal")
    return dots, (band, radius)


def _band_widths(fig, bands) -> None:
    """Set each band's line width (pt) to its object's diameter in the axes' final pixel scale."""
    fig.canvas.draw()
    for band, radius in bands:
        ax = band.axes
        px_per_unit = ax.get_window_extent().width / abs(np.diff(ax.get_xlim())[0])
        band.set_linewidth(2 * radius * px_per_unit * 72.0 / fig.dpi)


def tracked_paths_figure(jobs: list[JobRecord], out_dir: Path, *, scene: str | None = None, seed: int | None = None,
                         first_k: int | None = None, max_prompts: int = 3) -> list[Path]:
    """Fig. 4 of the jobs into ``out_dir`` (see the module docstring)."""
    scene, seed, prompts, cells, k = panel_jobs(jobs, scene, seed, first_k, max_prompts)
    any_job = next(iter(cells.values()))
    width, height = any_job.video_size()
    n = any_job.num_steps
    areas = [float(np.max(j.paths["tracked_area_px"][j.measurable()])) for j in cells.values() if j.measurable().any()]
    max_area = max(areas, default=1.0)
    t_end = float(any_job.paths["t_s"][-1])
    partial = next((j for j in cells.values() if j.condition == FIRST_K), None)
    titles = {NO_CONTROL: "no control (i* = 0)", THROUGHOUT: f"control throughout (i* = N = {n})",
              FIRST_K: "control for the first k steps" if partial is None else
              f"control for the first k = {k} steps\n($\\sigma_{{rel}}$ = {fmt(partial.sigma_rel, 3)})"}
    rows, notes, dots, bands = [], [], None, []
    with page_style():
        panel = PAGE_WIDTH_IN / 3.6
        fig, axes = new_figure(PAGE_WIDTH_IN, panel * height / width * len(prompts) + 0.5, len(prompts), 3)
        for r, prompt in enumerate(prompts):
            for c, condition in enumerate(CONDITIONS):
                ax = axes[r][c]
                ax.tick_params(length=2, pad=1)
                if r == 0:
                    ax.set_title(titles[condition])
                job = cells.get((prompt, condition))
                if job is None:
                    ax.set_xlim(0, width)
                    ax.set_ylim(height, 0)
                    ax.set_aspect("equal")
                    ax.text(0.5, 0.5, "not in the sweep", transform=ax.transAxes, ha="center", va="center")
                    continue
                dots, band = _draw_panel(ax, job, width, height, max_area, t_end)
                bands.append(band)
                travel, travel_sim = sideways_travel(job)
                tracked = int(job.measurable().sum())
                rows.append({"row": r + 1, "column": c + 1, "job": job.name, "scene": scene, "seed": seed,
                             "appearance": job.row.get("appearance"), "motion": job.row.get("motion"),
                             "prompt": prompt, "condition": condition, "release_step": job.release_step,
                             "num_steps": job.num_steps, "sigma_rel": job.sigma_rel,
                             "frames_total": len(job.paths["t_s"]), "frames_tracked": tracked,
                             "sideways_travel_px": travel, "sideways_travel_sim_px": travel_sim})
                if tracked < len(job.paths["t_s"]) / 2:
                    notes.append(f"row {r + 1}, {condition}: the object is tracked in {tracked} of "
                                 f"{len(job.paths['t_s'])} frames (the model drew no steadily visible ball).")
            label = cells.get((prompt, THROUGHOUT)) or next(j for (p, _), j in cells.items() if p == prompt)
            axes[r][0].set_ylabel(f"({r + 1}) {label.prompt_label}\ny (px, down)")
        for ax in axes[-1]:
            ax.set_xlabel("x (px, right)")
        fig.tight_layout(rect=(0, 0, 0.9, 1))
        if dots is not None:
            bar = fig.colorbar(dots, ax=axes.ravel().tolist(), fraction=0.025, pad=0.02)
            bar.set_label("time (s)")
        _band_widths(fig, bands)
        prompt_lines = []
        for r, prompt in enumerate(prompts):
            job = cells.get((prompt, THROUGHOUT)) or next(j for (p, _), j in cells.items() if p == prompt)
            own = job.row.get("motion") in (None, scene)
            prompt_lines.append(f"({r + 1}) \"{prompt}\"" + ("" if own else
                                " - asks for motion the control does not perform"))
        caption = (f"Fig. 4. Tracked ball paths, scene {scene}, seed {seed}, {width}x{height} px, N = {n} steps. "
                   "Rows: prompts; columns: no control, control throughout, control over the first k steps. "
                   "Full frame, x right and y down; dots: the tracked centroid, sized by the tracked area and "
                   "shaded by time; pale band: the control's (simulated) path, as wide as the object; corner: "
                   "sideways travel, the x range of the tracked path (and of the control's).\n"
                   + "\n".join(textwrap.fill(line, 110) for line in prompt_lines)
                   + "\nFrames in which the ball is tracked (of " + str(len(any_job.paths["t_s"])) + "), per row, "
                   + "in the column order: " + "; ".join(
                       f"({row}) " + " / ".join(str(r["frames_tracked"]) for r in rows if r["row"] == row)
                       for row in range(1, len(prompts) + 1)) + "."
                   + ("\n" + "\n".join(notes) if notes else ""))
        return save_figure(fig, out_dir, STEM, rows, COLUMNS, caption)
