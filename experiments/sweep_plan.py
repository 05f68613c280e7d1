"""What the whole multirun asks for, seen from inside one job.

Hydra's basic sweeper saves the multirun's configuration (with the command-line overrides, sweeps not yet
expanded) as ``<sweep_dir>/multirun.yaml`` before any job starts, whatever the launcher. A job re-expands
those overrides the way the sweeper does, to find its *siblings*: the jobs whose overrides equal its own
except for the release step. The prefix-shared executor computes the siblings' clips together.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from omegaconf import OmegaConf

log = logging.getLogger(__name__)

RELEASE_KEY = "probe.release_step"


def _split(override: str) -> tuple[str, str]:
    key, _, value = override.partition("=")
    return key.lstrip("+~"), value


def expand_multirun(sweep_dir: str | Path) -> list[list[str]] | None:
    """Every job's override list of the multirun in ``sweep_dir`` (None when it cannot be read)."""
    path = Path(sweep_dir) / "multirun.yaml"
    if not path.is_file():
        return None
    try:
        from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
        from hydra.core.override_parser.overrides_parser import OverridesParser

        cfg = OmegaConf.load(path)
        params = OmegaConf.select(cfg, "hydra.sweeper.params") or {}
        arguments = [f"{k}={v}" for k, v in params.items()]
        arguments += list(OmegaConf.select(cfg, "hydra.overrides.task") or [])
        overrides = OverridesParser.create().parse_overrides(arguments)
        batches = BasicSweeper.split_arguments(overrides, None)
        return [list(job) for batch in batches for job in batch]
    except Exception as exc:  # a sweep the basic parser cannot expand (e.g. glob): share nothing
        log.warning("could not expand the multirun in %s (%s); no release points are shared", sweep_dir, exc)
        return None


def sibling_release_steps(sweep_dir: str | Path | None, job_overrides: Sequence[str], own_release_step: int,
                          key: str = RELEASE_KEY) -> tuple[int, ...]:
    """Release steps of the jobs in the multirun that differ from this one only in ``key`` (own included).

    Falls back to ``(own_release_step,)`` outside a multirun or when the plan cannot be read."""
    jobs = expand_multirun(sweep_dir) if sweep_dir is not None else None
    if not jobs:
        return (own_release_step,)
    own = dict(_split(o) for o in job_overrides if _split(o)[0] != key)
    steps = {own_release_step}
    for job in jobs:
        pairs = dict(_split(o) for o in job)
        release = pairs.pop(key, None)
        if release is None or pairs != own:
            continue
        try:
            steps.add(int(release))
        except ValueError:
            continue
    return tuple(sorted(steps))
