"""Experiment trackers: one W&B run per job, one W&B group per sweep; or nothing.

Only this package talks to W&B, and only through these classes. Figures and summaries never read the W&B
API: they read the files each job writes. Trackers are chosen by config (``tracker=wandb`` | ``tracker=none``)
and instantiated cheaply; W&B is imported when the first run starts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veriphy.hashing import sha256_bytes


class NullTracker:
    """Records nothing (``tracker=none``)."""

    def start(self, *, name: str, group: str, run_dir: str | os.PathLike, sweep_dir: str | os.PathLike,
              config: Mapping[str, Any]) -> None:
        return None

    def log(self, values: Mapping[str, Any]) -> None:
        return None

    def finish(self, *, exit_code: int = 0) -> None:
        return None


class WandbTracker:
    """One W&B run per job, grouped by sweep. Offline by default: files under ``<sweep_dir>/wandb`` and no
    network. ``mode`` falls back to ``$WANDB_MODE`` when null; ``WANDB_DIR`` is set to the sweep root so that
    every job of a sweep writes into one place."""

    def __init__(self, project: str = "veriphy", mode: str | None = "offline", job_type: str = "release_point",
                 tags: tuple[str, ...] | list[str] = ()):
        self.project = project
        self.mode = mode
        self.job_type = job_type
        self.tags = list(tags)
        self._run = None

    def start(self, *, name: str, group: str, run_dir: str | os.PathLike, sweep_dir: str | os.PathLike,
              config: Mapping[str, Any]) -> None:
        import wandb

        sweep_dir = Path(sweep_dir)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        os.environ["WANDB_DIR"] = str(sweep_dir)
        mode = self.mode or os.environ.get("WANDB_MODE") or "offline"
        # One run id per job (from the group and job names): a job redone after a kill continues its own
        # run instead of adding a second one to the group.
        run_id = sha256_bytes(f"{group}/{name}".encode())[:16]
        self._run = wandb.init(project=self.project, group=group, name=name, job_type=self.job_type,
                               id=run_id, resume="allow", dir=str(sweep_dir), mode=mode, config=dict(config),
                               tags=self.tags, reinit="finish_previous",
                               settings=wandb.Settings(silent=True, console="off", x_disable_stats=True))

    def log(self, values: Mapping[str, Any]) -> None:
        if self._run is None:
            return
        # W&B charts numbers; None (no correlation for this window) is left out rather than sent as NaN.
        self._run.log({k: v for k, v in values.items() if isinstance(v, (int, float, bool)) and v is not None})
        self._run.summary.update({k: v for k, v in values.items() if v is not None})

    def finish(self, *, exit_code: int = 0) -> None:
        if self._run is not None:
            self._run.finish(exit_code=exit_code)
            self._run = None
