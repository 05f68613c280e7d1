"""Fig. 5: trajectory retention against the noise level at which the control is withdrawn, one panel per scene.

Per scene, for the prompt the scene's jobs use most: the mean over seeds of Pearson r (tracked vs simulated)
at each sigma_rel, with its 95 % Student-t interval; blue = airborne, rose = after the first ground contact;
solid = across-frame (x), dashed = up/down (y). High noise (early withdrawal) on the left. Also drawn:

* the threshold band: below the threshold the jobs recorded in ``scoring.json`` before any clip was scored;
* the expert-switch guide: the clips' own switch, else the Wan2.2 boundary sigma (0.875) named as such;
* the commitment band: between the last release point whose mean airborne retention (mean over seeds of the
  mean over both axes) is below the threshold and the first from which it stays at or above it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.figures.records import JobRecord, mean_ci95, prompt_order, scene_order
from experiments.figures.style import (AXIS_LABELS, AXIS_STYLES, PAGE_WIDTH_IN, WINDOW_COLORS, WINDOW_LABELS, fmt,
                                       new_figure, page_style, save_figure)
from experiments.retention import AXES, WINDOWS
from veriphy.errors import UserError

STEM = "fig5_retention_vs_sigma"
#: Where the guide goes when no clip records an expert switch: Wan2.2's boundary (docs/architecture.md §11:
#: sigma 0.875).
DEFAULT_EXPERT_BOUNDARY = 0.875
MEAN_AIRBORNE = "airborne_mean"

COLUMNS = ["scene", "prompt", "series", "release_step", "sigma_rel", "seeds", "unmeasured", "mirrored", "mean",
           "ci95_low", "ci95_high", "threshold", "expert_switch_sigma", "commitment_sigma_high", "commitment_sigma_low",
           "commitment_sigma_cross"]


@dataclass(frozen=True)
class Commitment:
    """Where the mean airborne retention crosses the threshold for good (sigma_rel, high noise first):
    ``high``/``low`` = the release points either side, ``cross`` = the linear interpolation between them.
    ``state`` says ``crosses``, ``from the earliest release`` or ``never``."""

    state: str
    high: float | None = None
    low: float | None = None
    cross: float | None = None


def commitment(sigmas: list[float], means: list[float | None], threshold: float) -> Commitment:
    """Commitment band of one scene from its mean airborne retention per release point (any order)."""
    points = sorted(((s, m) for s, m in zip(sigmas, means) if m is not None), key=lambda p: -p[0])
    if not points or points[-1][1] < threshold:
        return Commitment("never")
    first = len(points) - 1
    while first > 0 and points[first - 1][1] >= threshold:
        first -= 1
    if first == 0:
        return Commitment("from the earliest release")
    (s_hi, m_hi), (s_lo, m_lo) = points[first - 1], points[first]
    cross = s_hi + (threshold - m_hi) * (s_lo - s_hi) / (m_lo - m_hi)
    return Commitment("crosses", high=s_hi, low=s_lo, cross=float(cross))


def _main_prompt(jobs: list[JobRecord]) -> str:
    """The prompt with the most jobs (ties: the scene's own motion first, see ``prompt_order``)."""
    counts = Counter(j.prompt for j in jobs)
    return next(p for p in prompt_order(jobs) if counts[p] == max(counts.values()))


def _expert_switch(jobs: list[JobRecord], boundary: float | None) -> tuple[float, str] | None:
    for j in jobs:
        s = j.row.get("sigma_expert_switch")
        if s is not None:
            return float(s), f"expert switch (step {j.row.get('expert_switch_step')})"
    if boundary is not None:
        return float(boundary), f"Wan2.2 expert boundary ($\\sigma$ {boundary:g})"
    return None


def scene_series(jobs: list[JobRecord]) -> dict[str, dict[int, tuple[float | None, list[float], int]]]:
    """series -> release step -> (sigma_rel, measured values over seeds, unmeasured cells). Series are
    ``<window>_<axis>`` and ``airborne_mean`` (per clip, the mean of its two airborne axes)."""
    series: dict[str, dict[int, tuple[float | None, list[float], int]]] = defaultdict(dict)
    for j in sorted(jobs, key=lambda j: (j.release_step, j.seed)):
        values: dict[str, float | None] = {}
        for window in WINDOWS:
            for axis in AXES:
                values[f"{window}_{axis}"] = j.retention.windows[window].axis(axis).r
        air = [values[f"airborne_{a}"] for a in AXES]
        values[MEAN_AIRBORNE] = None if None in air else float(np.mean(air))
        for name, value in values.items():
            sigma, measured, missing = series[name].get(j.release_step, (j.sigma_rel, [], 0))
            series[name][j.release_step] = (sigma, measured + ([] if value is None else [value]),
                                            missing + (value is None))
    return series


def retention_figure(jobs: list[JobRecord], out_dir: Path,
                     expert_boundary: float | None = DEFAULT_EXPERT_BOUNDARY) -> list[Path]:
    """Fig. 5 of the jobs (every scene; per scene its most used prompt) into ``out_dir``."""
    scenes = scene_order(j.scene for j in jobs if j.sigma_rel is not None)
    if not scenes:
        raise UserError("no job here records sigma_rel (the noise level of a generated clip's release): nothing "
                        "to plot against", field="sweep")
    threshold = jobs[0].retention.threshold
    rows, notes = [], []
    with page_style():
        # A page's width for three panels; fewer keep the panels' size.
        width = PAGE_WIDTH_IN if len(scenes) >= 3 else 1.5 + 2.4 * len(scenes)
        fig, axes = new_figure(width, 2.2, 1, len(scenes), sharey=True)
        for ax, scene in zip(axes[0], scenes):
            scene_jobs = [j for j in jobs if j.scene == scene and j.sigma_rel is not None]
            prompt = _main_prompt(scene_jobs)
            scene_jobs = [j for j in scene_jobs if j.prompt == prompt]
            series = scene_series(scene_jobs)
            steps = sorted(series[MEAN_AIRBORNE])
            sigma_of = {i: series[MEAN_AIRBORNE][i][0] for i in steps}
            mean_air = [mean_ci95(series[MEAN_AIRBORNE][i][1])[0] for i in steps]
            band = commitment([sigma_of[i] for i in steps], mean_air, threshold)
            switch = _expert_switch(scene_jobs, expert_boundary)

            ax.axhspan(-1.05, threshold, color="0.93", zorder=0, lw=0)
            ax.axhline(threshold, color="0.55", lw=0.7, zorder=1,
                       label=f"threshold {threshold:g} (fixed before scoring)")
            if band.state == "crosses":
                ax.axvspan(band.low, band.high, color="#f2d16b", alpha=0.45, lw=0, zorder=0,
                           label="commitment band")
            if switch is not None:
                ax.axvline(switch[0], color="k", lw=0.8, ls=":", label=switch[1])
            for window in WINDOWS:
                for axis in AXES:
                    name = f"{window}_{axis}"
                    xs, mean, lo, hi = [], [], [], []
                    for i in steps:
                        m, low, high = mean_ci95(series[name][i][1])
                        if m is None:
                            continue
                        xs.append(sigma_of[i])
                        mean.append(m)
                        # Drawn within [-1, 1], where a correlation lies (the CSV keeps the t interval as is).
                        lo.append(m if low is None else max(low, -1.0))
                        hi.append(m if high is None else min(high, 1.0))
                    ax.plot(xs, mean, AXIS_STYLES[axis], color=WINDOW_COLORS[window], marker="o", ms=2.2,
                            label=f"{WINDOW_LABELS[window]}, {AXIS_LABELS[axis]}")
                    ax.fill_between(xs, lo, hi, color=WINDOW_COLORS[window], alpha=0.08, lw=0)
            seeds = sorted({j.seed for j in scene_jobs})
            ax.set_title(f"{scene.replace('_', ' ')} ({len(seeds)} seed{'s' if len(seeds) != 1 else ''})")
            ax.set_xlim(1.02, -0.02)  # high noise on the left: control withdrawn earlier
            ax.set_ylim(-1.05, 1.05)
            ax.set_xlabel(r"$\sigma_{rel}$")
            # Clips that saw the scene from the other side (the row's ``mirrored``; absent before it was recorded).
            mirrored = Counter(j.release_step for j in scene_jobs if j.row.get("mirrored"))
            for name in (*(f"{w}_{a}" for w in WINDOWS for a in AXES), MEAN_AIRBORNE):
                for i in steps:
                    sigma, values, missing = series[name][i]
                    m, low, high = mean_ci95(values)
                    rows.append({"scene": scene, "prompt": prompt, "series": name, "release_step": i,
                                 "sigma_rel": sigma, "seeds": len(values), "unmeasured": missing,
                                 "mirrored": mirrored[i], "mean": m,
                                 "ci95_low": low, "ci95_high": high, "threshold": threshold,
                                 "expert_switch_sigma": None if switch is None else switch[0],
                                 "commitment_sigma_high": band.high, "commitment_sigma_low": band.low,
                                 "commitment_sigma_cross": band.cross})
            first, last = mean_air[0], mean_air[-1]
            # per window: a window with no correlation in a clip (too few frames the tracker saw the ball in, or a
            # still path) is a cell of the figure left without that clip
            unmeasured = {w: sum(series[f"{w}_{a}"][i][2] for a in AXES for i in steps) for w in WINDOWS}
            mirrored_seeds = ", ".join(str(s) for s in sorted({j.seed for j in scene_jobs if j.row.get("mirrored")}))
            notes.append(f"{scene.replace('_', ' ')}: mean airborne retention {fmt(first, 2)} at the earliest "
                         f"release (sigma_rel {fmt(sigma_of[steps[0]], 3)}) and {fmt(last, 2)} at the latest "
                         f"({fmt(sigma_of[steps[-1]], 3)}); "
                         + (f"it crosses {threshold:g} between sigma_rel {band.high:.3f} and {band.low:.3f} "
                            f"(interpolated {band.cross:.3f})" if band.state == "crosses"
                            else f"commitment: {band.state}")
                         + f"; {len(seeds)} seed(s) per point"
                         + (f" (seen mirrored: seed(s) {mirrored_seeds})" if mirrored_seeds else "")
                         + f", {sum(unmeasured.values())} unmeasured cell(s) (airborne {unmeasured['airborne']}, after "
                           f"the first ground contact {unmeasured['after_ground']}).")
        axes[0][0].set_ylabel("retention r (tracked vs simulated)")
        handles, labels = axes[0][0].get_legend_handles_labels()
        for ax in axes[0][1:]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.tight_layout()
        # Below the panels, outside the figure's box: the saved file's tight bounding box takes it in.
        fig.legend(handles, labels, loc="upper center", ncol=4 if len(scenes) >= 3 else 2, frameon=False,
                   bbox_to_anchor=(0.5, 0.0))
        switch_note = ("The dotted guide marks the clips' own expert switch." if any(
            j.row.get("sigma_expert_switch") is not None for j in jobs) else
            f"The generator has one expert: the dotted guide marks where Wan2.2's boundary (sigma "
            f"{fmt(expert_boundary, 3)}) would switch experts." if expert_boundary is not None else "")
        caption = (f"Fig. 5. Trajectory retention against sigma_rel, the noise level at which the control is "
                   f"withdrawn (high noise on the left). Mean over seeds with 95 % Student-t intervals (shaded, drawn within "
                   f"[-1, 1]; the CSV has them as computed) of Pearson r "
                   f"between the tracked and the simulated path: blue airborne, rose after the first ground contact; "
                   f"solid across-frame (x), dashed up/down (y). Grey: below the threshold {threshold:g}, fixed in "
                   f"each run before scoring. Yellow: the commitment band, where the mean airborne retention (both "
                   f"axes) crosses the threshold for good. {switch_note}"
                   + (" Clips of the seeds named below saw the scene from the other side (its mirror image: the "
                      "ball moves left), so that the direction of motion is counterbalanced over seeds."
                      if any(j.row.get("mirrored") for j in jobs) else "")
                   + "\n" + "\n".join(notes))
        return save_figure(fig, out_dir, STEM, rows, COLUMNS, caption)
