"""The experiments app: ``python -m experiments.run [-m] experiment=<preset> ...``.

Each Hydra job runs the configured ``job`` (``_target_``): a release-point job (one clip, its retention
``metrics.json``) or a critic ablation (one table). In a multirun the sweep directory is the preset's
stable ``outputs/<experiment>/<sweep_name>`` and each job's subdirectory is named by its scene, seed and
release step, so running the same command again finds finished jobs and skips them.

Examples::

    python -m experiments.run -m experiment=release_sweep probe.release_step=0,3,6 seed=0,1
    python -m experiments.run -m experiment=release_sweep executor=prefix_shared probe.release_step=0,15,30
    python -m experiments.run -m experiment=release_sweep hydra/launcher=submitit_slurm ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig

from experiments.jobs import JobContext
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, run_app


def job_context(cfg: DictConfig):
    """The :class:`~experiments.jobs.JobContext` of the current Hydra job."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    hc = HydraConfig.get()
    job_dir = Path(hc.runtime.output_dir)
    multirun = hc.mode == RunMode.MULTIRUN
    sweep_dir = Path(hc.sweep.dir).absolute() if multirun else job_dir
    name = job_dir.relative_to(sweep_dir).as_posix() if multirun else job_dir.name
    choices = tuple(sorted((str(k), str(v)) for k, v in hc.runtime.choices.items() if v is not None))
    return JobContext(job_dir=job_dir, sweep_dir=sweep_dir, name=name, overrides=tuple(hc.overrides.task),
                      multirun=multirun, group=str(cfg.get("sweep_name") or sweep_dir.name), choices=choices)


@exit_on_user_error
def run_task(cfg: DictConfig) -> dict[str, Any]:
    from hydra.utils import instantiate

    configure_threads(cfg.get("num_threads"))
    job = instantiate(cfg.job)
    return job(cfg, job_context(cfg))


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="experiments_app")
def _hydra_main(cfg: DictConfig) -> Any:
    return run_task(cfg)


def main(argv: list[str] | None = None) -> Any:
    """``python -m experiments.run [-m] key=value ...`` (``argv``: default the command line's)."""
    return run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
