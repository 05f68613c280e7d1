"""The paper's trajectory figures, each from the files of finished release-point jobs, each one command.

    python -m experiments.figures paths SWEEP [SWEEP ...]       Fig. 4: tracked paths, prompts x conditions
    python -m experiments.figures retention SWEEP [SWEEP ...]   Fig. 5: retention against sigma_rel per scene
    python -m experiments.figures frames SWEEP [SWEEP ...]      Fig. 6: depth control above the generated clip
    python -m experiments.figures all SWEEP [SWEEP ...]         all three

Each writes into ``--out`` (default ``<first SWEEP>/figures``) ``<stem>.png``, ``<stem>.pdf`` (fonts embedded),
``<stem>.csv`` (the numbers the figure shows) and ``<stem>.txt`` (its caption). ``experiment=paper_figures``
runs the sweeps the three need and draws them (``experiments.paper``).
"""

from __future__ import annotations

from pathlib import Path

from experiments.figures.depth_frames import depth_frames_figure
from experiments.figures.records import JobRecord, load_jobs
from experiments.figures.retention_curves import DEFAULT_EXPERT_BOUNDARY, retention_figure
from experiments.figures.tracked_paths import tracked_paths_figure

__all__ = ["JobRecord", "load_jobs", "tracked_paths_figure", "retention_figure", "depth_frames_figure",
           "make_figures", "DEFAULT_EXPERT_BOUNDARY"]


def make_figures(folders: str | Path | list[str | Path], out_dir: str | Path | None = None,
                 expert_boundary: float | None = DEFAULT_EXPERT_BOUNDARY) -> list[Path]:
    """All three figures of the jobs under ``folders`` into ``out_dir`` (default ``<first folder>/figures``)."""
    folders = [folders] if isinstance(folders, (str, Path)) else list(folders)
    out = Path(out_dir) if out_dir is not None else Path(folders[0]) / "figures"
    jobs = load_jobs(folders)
    return (tracked_paths_figure(jobs, out) + retention_figure(jobs, out, expert_boundary)
            + depth_frames_figure(jobs, out))
