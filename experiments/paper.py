"""``experiment=paper_figures``: run the sweeps the paper's three trajectory figures need, then draw them.

``python -m experiments.run experiment=paper_figures`` (one run, not a multirun) runs, as subprocesses of the
same app, each a resumable ``experiment=release_sweep`` multirun in its own folder of the run directory:

1. ``retention/``: the release sweep of Fig. 5 (``job.scenes`` x ``job.seeds`` seeds x i* = 0, stride, ..., N);
2. ``paths/``: the scene of Fig. 4 and 6 at i* = 0, k and N, seed ``job.paths_seed``, for each prompt of
   ``job.prompts`` (the appearance and motion choices: the scene's own motion in two appearances, and a motion
   the control does not perform). k (control over the first k steps) is ``job.first_k`` or, when null, the
   commitment point of that scene in the retention sweep: the first release from which its mean airborne
   retention stays at or above the threshold (the latest one before N when that is N itself).

Then ``figures/`` gets Fig. 4 and 6 from ``paths/`` and Fig. 5 from ``retention/`` (``experiments.figures``)
and a ``manifest.json``, and the run directory a ``paper_figures.json`` with the commands, k and the files. ``job.overrides`` are added
to every sweep's command line (and win over the job's own), e.g. a smaller size for a quick look. Rerunning
the same command resumes: finished jobs are skipped.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from experiments.figures import depth_frames_figure, load_jobs, retention_figure, tracked_paths_figure
from experiments.figures.retention_curves import MEAN_AIRBORNE, commitment, scene_series
from experiments.figures.records import mean_ci95
from experiments.jobs import JobContext
from veriphy.errors import UserError
from veriphy.files import write_json
from veriphy.manifest import write_manifest

log = logging.getLogger(__name__)


def merge_overrides(*groups: Sequence[str]) -> list[str]:
    """Hydra overrides, one per key: a later group's value for a key replaces an earlier one's."""
    merged: dict[str, str] = {}
    for group in groups:
        for override in group:
            merged[override.partition("=")[0]] = override
    return list(merged.values())


def first_k_from_commitment(retention_dir: Path, scene: str, num_steps: int) -> int:
    """The release step from which ``scene``'s mean airborne retention stays at or above the threshold in the
    sweep of ``retention_dir`` (at most the latest release before N; the middle step when it never commits)."""
    jobs = [j for j in load_jobs([retention_dir]) if j.scene == scene]
    if not jobs:
        raise UserError(f"the retention sweep has no job of scene {scene!r}", field="job.paths_scene")
    series = scene_series(jobs)[MEAN_AIRBORNE]
    steps = sorted(series)
    means = [mean_ci95(series[i][1])[0] for i in steps]
    band = commitment([series[i][0] for i in steps], means, jobs[0].retention.threshold)
    partial = [i for i in steps if 0 < i < num_steps]
    if not partial:
        raise UserError("the retention sweep has no release step between 0 and N", field="job.release_stride")
    if band.state == "never":
        return partial[len(partial) // 2]
    committed = steps[0] if band.low is None else next(i for i in steps if series[i][0] == band.low)
    return min([i for i in partial if i >= committed] or [partial[-1]])


class PaperFigures:
    """The paper's figures from their own sweeps (``job=paper_figures``; see the module docstring)."""

    def __init__(self, scenes: Sequence[str] = ("thrown_ball", "ramp", "wall_bounce"), seeds: int = 5,
                 release_stride: int = 3, paths_scene: str = "thrown_ball", paths_seed: int = 0,
                 prompts: Sequence[Sequence[str]] = (), first_k: int | None = None, overrides: Sequence[str] = ()):
        if seeds < 1 or release_stride < 1:
            raise UserError("seeds and release_stride must be >= 1", field="job")
        self.scenes = list(scenes)
        self.seeds = int(seeds)
        self.release_stride = int(release_stride)
        self.paths_scene = paths_scene
        self.paths_seed = int(paths_seed)
        self.prompts = [list(p) for p in prompts]
        self.first_k = first_k
        self.overrides = list(overrides)

    def _sweep(self, name: str, folder: Path, own: list[str], cfg: DictConfig) -> list[str]:
        args = ["-m", "experiments.run", "-m", "experiment=release_sweep", f"hydra.sweep.dir={folder}",
                f"sweep_name={cfg.sweep_name}_{name}",
                *merge_overrides([f"num_steps={int(cfg.num_steps)}"], own, self.overrides)]
        print(f"[paper_figures] {name}: python {' '.join(args)}", file=sys.stderr, flush=True)
        status = subprocess.run([sys.executable, *args]).returncode
        if status == 2:
            raise UserError(f"the {name} sweep was refused (its error is above)", field="job")
        if status != 0:
            raise SystemExit(f"[paper_figures] the {name} sweep failed with exit code {status}")
        return args

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        root = ctx.job_dir
        n = int(cfg.num_steps)
        retention_dir, paths_dir, figures_dir = root / "retention", root / "paths", root / "figures"
        commands = {"retention": self._sweep("retention", retention_dir, [
            f"scene={','.join(self.scenes)}", f"seed=range(0,{self.seeds})",
            f"probe.release_step=range(0,{n + 1},{self.release_stride})"], cfg)}
        k = self.first_k if self.first_k is not None else first_k_from_commitment(retention_dir, self.paths_scene, n)
        if not 0 < k < n:
            raise UserError(f"must be between 0 and N = {n} (exclusive), got {k}", field="job.first_k")
        for index, prompt in enumerate(self.prompts):
            commands[f"paths_{index}"] = self._sweep(f"paths_{index}", paths_dir, [
                f"scene={self.paths_scene}", f"seed={self.paths_seed}", f"probe.release_step=0,{k},{n}",
                *prompt], cfg)
        paths_jobs = load_jobs([paths_dir])
        written = (tracked_paths_figure(paths_jobs, figures_dir, scene=self.paths_scene, seed=self.paths_seed,
                                        first_k=k)
                   + retention_figure(load_jobs([retention_dir]), figures_dir)
                   + depth_frames_figure(paths_jobs, figures_dir, scene=self.paths_scene, seed=self.paths_seed))
        record = {"first_k": k, "num_steps": n, "commands": {name: ["python", *args] for name, args in commands.items()},
                  "figures": [p.relative_to(root).as_posix() for p in written]}
        write_json(root / "paper_figures.json", record)
        # The figures' own manifest: their hashes and those of the sweeps' summaries they were drawn from.
        write_manifest(figures_dir, stage="experiments", extra={"job": "paper_figures", "first_k": k},
                       inputs={f"{d.name}/summary.csv": d / "summary.csv" for d in (retention_dir, paths_dir)})
        for path in written:
            print(path)
        return {"status": "done", **record}
