"""Figures of a finished (or partly finished) release-point sweep, from the files on disk.

``python -m experiments.figures SWEEP_DIR [--out DIR] [--expert-boundary SIGMA|none]`` writes, as PNG and PDF:

* ``retention_vs_sigma``: retention r against sigma_rel (high noise on the left), one panel per scene;
  colour = window (airborne / after ground), line style = axis (x solid, y dashed); mean over seeds with
  their range; a grey band below the threshold; a guide at the expert switch (the clips' own, else the
  Wan2.2 boundary sigma 0.875).
* ``tracked_paths``: tracked paths over the control path, one panel per clip; rows = control never
  (i* = 0), throughout (i* = N), first k steps (0 < i* < N); dot size = tracked area, shade = time;
  each panel prints the sideways travel (tracked and simulated x range, px).
* ``generated_vs_control``: x(t) and y(t) of the generated (tracked) and control paths per clip, titled
  with their correlation and median pixel disagreement over frames measurable in both.

Inputs per job: ``metrics.json`` (row and retention), ``paths.npz`` (time, simulated and tracked paths,
areas, visibility, window masks); the threshold is the one the jobs recorded.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from experiments import jobstate
from experiments.types import RetentionScore
from veriphy.errors import UserError, user_error_from_validation
from veriphy.files import load_npz, read_json
from veriphy.hydra_app import exit_on_user_error

WINDOW_COLORS = {"airborne": "tab:blue", "after_ground": "tab:orange"}
WINDOW_LABELS = {"airborne": "airborne", "after_ground": "after first ground contact"}
AXIS_STYLES = {"x": "-", "y": "--"}


@dataclass(frozen=True)
class JobRecord:
    name: str
    row: dict[str, Any]
    retention: RetentionScore
    paths: dict[str, np.ndarray]


def load_jobs(sweep_dir: str | Path) -> list[JobRecord]:
    """Every complete job of the sweep, in (scene, seed, release step) order."""
    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise UserError("not a directory", file=sweep_dir)
    jobs = []
    for job_dir in jobstate.complete_jobs(sweep_dir):
        metrics = read_json(job_dir / jobstate.METRICS)
        if "retention" not in metrics:
            continue
        try:
            retention = RetentionScore.model_validate(metrics["retention"])
        except ValidationError as exc:
            raise user_error_from_validation(exc, file=job_dir / jobstate.METRICS) from None
        paths = load_npz(job_dir / "paths.npz")
        jobs.append(JobRecord(name=job_dir.relative_to(sweep_dir).as_posix(), row=metrics["row"],
                              retention=retention, paths=paths))
    if not jobs:
        raise UserError("no complete release-point jobs (metrics.json with retention) here", file=sweep_dir)
    jobs.sort(key=lambda j: (str(j.row.get("scene")), int(j.row.get("seed", 0)), str(j.row.get("prompt")),
                             int(j.row.get("release_step", 0))))
    return jobs


def _save(fig, out_dir: Path, stem: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        p = out_dir / f"{stem}.{ext}"
        # Fixed metadata so the same sweep gives the same files.
        meta = {"Software": None} if ext == "png" else {"CreationDate": None, "Producer": None}
        fig.savefig(p, dpi=120, bbox_inches="tight", metadata=meta)
        paths.append(p)
    return paths


def _sigma(job: JobRecord) -> float | None:
    s = job.row.get("sigma_rel")
    return None if s is None else float(s)


def retention_vs_sigma(jobs: list[JobRecord], out_dir: Path, expert_boundary: float | None = None) -> list[Path]:
    import matplotlib.pyplot as plt

    by_scene: dict[str, list[JobRecord]] = defaultdict(list)
    for j in jobs:
        by_scene[str(j.row.get("scene"))].append(j)
    fig, axes = plt.subplots(1, len(by_scene), figsize=(5.2 * len(by_scene), 3.8), squeeze=False)
    threshold = jobs[0].retention.threshold
    for ax, (scene, scene_jobs) in zip(axes[0], sorted(by_scene.items())):
        ax.axhspan(-1.05, threshold, color="0.85", zorder=0, label=f"below threshold ({threshold:g})")
        for window, color in WINDOW_COLORS.items():
            for axis, style in AXIS_STYLES.items():
                per_sigma: dict[float, list[float]] = defaultdict(list)
                for j in scene_jobs:
                    s, r = _sigma(j), j.retention.windows[window].axis(axis).r
                    if s is not None and r is not None:
                        per_sigma[s].append(float(r))
                if not per_sigma:
                    continue
                xs = np.array(sorted(per_sigma))
                mean = np.array([np.mean(per_sigma[x]) for x in xs])
                lo = np.array([np.min(per_sigma[x]) for x in xs])
                hi = np.array([np.max(per_sigma[x]) for x in xs])
                ax.plot(xs, mean, style, color=color, marker="o", ms=3,
                        label=f"{WINDOW_LABELS[window]}, {axis}")
                if len(set(len(v) for v in per_sigma.values()) - {1}):
                    ax.fill_between(xs, lo, hi, color=color, alpha=0.12, lw=0)
        switch = _expert_switch_sigma(scene_jobs, expert_boundary)
        if switch is not None:
            ax.axvline(switch[0], color="k", lw=0.8, ls=":", label=switch[1])
        ax.set_xlim(1.02, -0.02)  # high noise on the left: control is withdrawn earlier to the left
        ax.set_ylim(-1.05, 1.05)
        ax.set_xlabel(r"$\sigma_{rel}$ (noise level at which control is withdrawn)")
        ax.set_ylabel("retention r (Pearson, tracked vs simulated)")
        seeds = sorted({int(j.row.get("seed", 0)) for j in scene_jobs})
        ax.set_title(f"{scene} ({len(seeds)} seed{'s' if len(seeds) != 1 else ''})")
        ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    out = _save(fig, out_dir, "retention_vs_sigma")
    plt.close(fig)
    return out


def _expert_switch_sigma(jobs: list[JobRecord], boundary: float | None) -> tuple[float, str] | None:
    for j in jobs:
        s = j.row.get("sigma_expert_switch")
        if s is not None:
            return float(s), f"expert switch (step {j.row.get('expert_switch_step')})"
    if boundary is not None:
        return float(boundary), f"Wan2.2 expert boundary (sigma {boundary:g})"
    return None


def _row_of(job: JobRecord) -> int:
    i, n = int(job.row.get("release_step", 0)), int(job.row.get("num_steps", 0))
    return 0 if i == 0 else 1 if i >= n else 2


ROW_TITLES = ("control never (i* = 0)", "control throughout (i* = N)", "control for the first k steps")


def tracked_paths(jobs: list[JobRecord], out_dir: Path, max_columns: int = 8) -> list[Path]:
    import matplotlib.pyplot as plt

    rows: list[list[JobRecord]] = [[], [], []]
    for j in jobs:
        rows[_row_of(j)].append(j)
    rows = [r[:max_columns] for r in rows]
    used = [k for k in range(3) if rows[k]]
    ncols = max(len(rows[k]) for k in used)
    fig, axes = plt.subplots(len(used), ncols, figsize=(3.0 * ncols, 2.6 * len(used)), squeeze=False)
    for r_idx, k in enumerate(used):
        for c in range(ncols):
            ax = axes[r_idx][c]
            if c >= len(rows[k]):
                ax.axis("off")
                continue
            j = rows[k][c]
            sim, trk = j.paths["simulated_px"], j.paths["tracked_px"]
            vis = j.paths["tracked_visible"].astype(bool) & np.isfinite(trk).all(axis=1)
            area = j.paths["tracked_area_px"]
            t = j.paths["t_s"]
            ax.plot(sim[:, 0], sim[:, 1], "-", color="0.4", lw=1.2, label="control (simulated) path")
            if vis.any():
                size = 6 + 60 * area[vis] / max(float(np.max(area[vis])), 1e-9)
                ax.scatter(trk[vis, 0], trk[vis, 1], s=size, c=t[vis], cmap="viridis", vmin=t[0], vmax=t[-1],
                           edgecolors="none", label="tracked")
            travel = j.retention.sideways_travel_px
            ax.text(0.02, 0.98, f"sideways: {_fmt(travel['tracked'])} px\n(sim {_fmt(travel['simulated'])} px)",
                    transform=ax.transAxes, va="top", fontsize=7)
            ax.invert_yaxis()  # image rows grow downwards
            ax.set_aspect("equal", adjustable="datalim")
            ax.set_title(f"{j.row.get('scene')} s{j.row.get('seed')} i*={j.row.get('release_step')}", fontsize=8)
            ax.tick_params(labelsize=6)
            if c == 0:
                ax.set_ylabel(ROW_TITLES[k], fontsize=8)
    fig.suptitle("tracked paths (dot size = tracked area, shade = time) over the control path", fontsize=10)
    fig.tight_layout()
    out = _save(fig, out_dir, "tracked_paths")
    plt.close(fig)
    return out


def _fmt(v: float | None, digits: int = 1) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def generated_vs_control(jobs: list[JobRecord], out_dir: Path, max_clips: int = 24) -> list[Path]:
    import matplotlib.pyplot as plt

    jobs = jobs[:max_clips]
    ncols = min(4, len(jobs))
    nrows = int(np.ceil(len(jobs) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 2.8 * nrows), squeeze=False)
    for idx, ax in enumerate(axes.flat):
        if idx >= len(jobs):
            ax.axis("off")
            continue
        j = jobs[idx]
        t, sim, trk = j.paths["t_s"], j.paths["simulated_px"], j.paths["tracked_px"]
        vis = j.paths["tracked_visible"].astype(bool) & np.isfinite(trk).all(axis=1)
        for axis_idx, axis in enumerate(("x", "y")):
            style = AXIS_STYLES[axis]
            ax.plot(t, sim[:, axis_idx], style, color="0.4", lw=1.2, label=f"control {axis}")
            ax.plot(t[vis], trk[vis, axis_idx], style, color="tab:red", marker="o", ms=2.5, lw=0.8,
                    label=f"generated {axis}")
        rs = _whole_clip_r(sim, trk, vis)
        med = j.retention.median_abs_px
        ax.set_title(f"{j.row.get('scene')} s{j.row.get('seed')} i*={j.row.get('release_step')}\n"
                     f"r x={_fmt(rs[0], 3)} y={_fmt(rs[1], 3)}; median |d| x={_fmt(med['x'])} y={_fmt(med['y'])} px",
                     fontsize=7)
        ax.set_xlabel("t (s)", fontsize=7)
        ax.set_ylabel("px", fontsize=7)
        ax.tick_params(labelsize=6)
        if idx == 0:
            ax.legend(fontsize=6)
    fig.tight_layout()
    out = _save(fig, out_dir, "generated_vs_control")
    plt.close(fig)
    return out


def _whole_clip_r(sim: np.ndarray, trk: np.ndarray, vis: np.ndarray, min_frames: int = 3) -> list[float | None]:
    both = vis & np.isfinite(sim).all(axis=1)
    out: list[float | None] = []
    for k in range(2):
        a, b = trk[both, k], sim[both, k]
        if a.size < min_frames or np.ptp(a) == 0 or np.ptp(b) == 0:
            out.append(None)
        else:
            out.append(float(np.corrcoef(a, b)[0, 1]))
    return out


#: Where the guide goes when no clip records an expert switch: Wan2.2's boundary ratio (DESIGN §11).
DEFAULT_EXPERT_BOUNDARY = 0.875


def make_figures(sweep_dir: str | Path, out_dir: str | Path | None = None,
                 expert_boundary: float | None = DEFAULT_EXPERT_BOUNDARY) -> list[Path]:
    """All three figures of ``sweep_dir`` into ``out_dir`` (default ``<sweep_dir>/figures``).

    ``expert_boundary``: sigma of the expert-switch guide when the clips record no switch (None: no guide)."""
    import matplotlib

    matplotlib.use("Agg")
    sweep_dir = Path(sweep_dir)
    out = Path(out_dir) if out_dir is not None else sweep_dir / "figures"
    jobs = load_jobs(sweep_dir)
    return (retention_vs_sigma(jobs, out, expert_boundary) + tracked_paths(jobs, out)
            + generated_vs_control(jobs, out))


@exit_on_user_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.figures", description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="output folder (default SWEEP_DIR/figures)")
    parser.add_argument("--expert-boundary", default=str(DEFAULT_EXPERT_BOUNDARY),
                        help="sigma of the expert-switch guide when the clips record none (Wan2.2: 0.875; "
                             "'none': no guide)")
    args = parser.parse_args(argv)
    boundary = None if args.expert_boundary.lower() == "none" else float(args.expert_boundary)
    for p in make_figures(args.sweep_dir, args.out, boundary):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
