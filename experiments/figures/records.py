"""The finished jobs a figure is drawn from, read from disk, and the choices every figure makes among them.

A job directory holds ``metrics.json`` (its summary row and retention), ``paths.npz`` (frame times, simulated
and tracked paths, tracked areas and visibility, window masks), ``scene.json`` (the fitted scene: the video's
size), ``control/`` and ``clip.npz`` (the frames). Figures read only these files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError
from scipy import stats

from experiments import jobstate
from experiments.retention import CLIP, score_retention
from experiments.types import AxisScore, RetentionConfig, RetentionScore
from sim.io import load_spec
from veriphy.errors import UserError, user_error_from_validation
from veriphy.files import load_npz, read_json

#: Condition of a clip by its release step i* of N.
NO_CONTROL, THROUGHOUT, FIRST_K = "no control", "control throughout", "control for the first k steps"


@dataclass(frozen=True)
class JobRecord:
    """One finished release-point job: ``job_dir``, its ``name`` (relative to the folder it was found under),
    ``row`` (``metrics.json``), ``retention`` and ``paths`` (``paths.npz`` arrays, see the module docstring)."""

    job_dir: Path
    name: str
    row: dict[str, Any]
    retention: RetentionScore
    paths: dict[str, np.ndarray]

    @property
    def scene(self) -> str:
        return str(self.row.get("scene"))

    @property
    def seed(self) -> int:
        return int(self.row.get("seed", 0))

    @property
    def prompt(self) -> str:
        return str(self.row.get("prompt", ""))

    @property
    def release_step(self) -> int:
        return int(self.row.get("release_step", 0))

    @property
    def num_steps(self) -> int:
        return int(self.row.get("num_steps", 0))

    @property
    def sigma_rel(self) -> float | None:
        s = self.row.get("sigma_rel")
        return None if s is None else float(s)

    @property
    def condition(self) -> str:
        i, n = self.release_step, self.num_steps
        return NO_CONTROL if i == 0 else THROUGHOUT if i >= n else FIRST_K

    @property
    def prompt_label(self) -> str:
        """The prompt by its config choices (``appearance / motion``), else its text."""
        parts = [self.row.get("appearance"), self.row.get("motion")]
        return " / ".join(str(p) for p in parts if p) or self.prompt

    def video_size(self) -> tuple[int, int]:
        """(width, height) px of the clip (the fitted scene's camera)."""
        camera = load_spec(self.job_dir / "scene.json").camera
        return int(camera.width_px), int(camera.height_px)

    def measurable(self) -> np.ndarray:
        """(T,) frames where the object was tracked (not coasted) and both paths are finite."""
        sim, trk = self.paths["simulated_px"], self.paths["tracked_px"]
        return (self.paths["tracked_visible"].astype(bool) & np.isfinite(trk).all(axis=1)
                & np.isfinite(sim).all(axis=1))

    def clip_score(self) -> tuple[AxisScore, AxisScore, dict[str, float | None]]:
        """Whole-clip correlation per axis and median pixel disagreement, over frames measurable in both: the
        job's own (``retention.windows.clip``), or scored now from ``paths.npz`` for a job that predates it."""
        window = self.retention.windows.get(CLIP)
        if window is None:
            masks = {"airborne": self.paths["airborne"], "after_ground": self.paths["after_ground"]}
            config = RetentionConfig(threshold=self.retention.threshold, min_frames=self.retention.min_frames)
            window = score_retention(self.paths["tracked_px"], self.paths["tracked_visible"],
                                     self.paths["simulated_px"], masks, config).windows[CLIP]
        return window.x, window.y, window.median_abs_px


def load_jobs(folders: Sequence[str | Path]) -> list[JobRecord]:
    """Every complete release-point job under ``folders`` (any depth), in (scene, prompt, seed, release step)
    order. The same clip found twice (two sweeps that share jobs) is kept once."""
    jobs: dict[tuple, JobRecord] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise UserError("not a directory", file=folder)
        for job_dir in jobstate.complete_jobs(folder):
            metrics = read_json(job_dir / jobstate.METRICS)
            if "retention" not in metrics:
                continue
            try:
                retention = RetentionScore.model_validate(metrics["retention"])
            except ValidationError as exc:
                raise user_error_from_validation(exc, file=job_dir / jobstate.METRICS) from None
            job = JobRecord(job_dir=job_dir, name=job_dir.relative_to(folder).as_posix(), row=metrics["row"],
                            retention=retention, paths=load_npz(job_dir / "paths.npz"))
            jobs.setdefault(_identity(job), job)
    if not jobs:
        raise UserError("no complete release-point jobs (metrics.json with retention) here",
                        file=", ".join(str(f) for f in folders))
    return sorted(jobs.values(), key=lambda j: (j.scene, j.prompt, j.seed, j.release_step, j.name))


def _identity(job: JobRecord) -> tuple:
    return (job.scene, job.prompt, job.seed, job.num_steps, job.release_step, job.row.get("clip_sha256"))


def scene_order(scenes: Iterable[str]) -> list[str]:
    """The paper's scenes first (thrown ball, ramp, wall bounce), then the others by name."""
    paper = ["thrown_ball", "ramp", "wall_bounce"]
    names = sorted(set(scenes))
    return [s for s in paper if s in names] + [s for s in names if s not in paper]


def prompt_order(jobs: Iterable[JobRecord]) -> list[str]:
    """Distinct prompts: those whose motion is the scene's own first, then by appearance and motion names."""
    first: dict[str, JobRecord] = {}
    for j in jobs:
        first.setdefault(j.prompt, j)
    return sorted(first, key=lambda p: (first[p].row.get("motion") not in (None, first[p].scene),
                                        str(first[p].row.get("appearance")), str(first[p].row.get("motion")), p))


def pick_scene(jobs: list[JobRecord], scene: str | None) -> str:
    """``scene`` (refused when absent), else the scene with the most distinct prompts (ties: paper order)."""
    scenes = scene_order(j.scene for j in jobs)
    if scene is not None:
        if scene not in scenes:
            raise UserError(f"no jobs of scene {scene!r}; the jobs have {scenes}", field="--scene")
        return scene
    counts = {s: len({j.prompt for j in jobs if j.scene == s}) for s in scenes}
    return max(scenes, key=lambda s: (counts[s], -scenes.index(s)))


def pick_seed(jobs: list[JobRecord], seed: int | None) -> int:
    seeds = sorted({j.seed for j in jobs})
    if seed is not None:
        if seed not in seeds:
            raise UserError(f"no jobs with seed {seed}; the jobs have {seeds}", field="--seed")
        return seed
    return seeds[0]


def mean_ci95(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """Mean and its 95 % Student-t interval over seeds (``None`` bounds for fewer than two values)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return None, None, None
    mean = float(v.mean())
    if v.size < 2:
        return mean, None, None
    half = float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))
    return mean, mean - half, mean + half
