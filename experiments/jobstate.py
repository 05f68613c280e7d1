"""Job completeness (for resuming sweeps) and the sweep's ``summary.csv``.

A job is *complete* when its ``metrics.json`` exists and every artifact hash recorded in its
``manifest.json`` (written last) matches the file on disk (logs excepted: Hydra appends to them). A rerun of a sweep skips complete jobs and redoes
the rest from scratch (their partial files are removed first), so nothing is lost or duplicated.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from veriphy.files import atomic_write_bytes, read_json
from veriphy.hashing import sha256_file

METRICS = "metrics.json"
MANIFEST = "manifest.json"
SUMMARY = "summary.csv"
# Kept when a partial job is cleared: Hydra's own record of the job and its log.
_KEEP = {".hydra"}


def job_complete(job_dir: str | Path) -> bool:
    job_dir = Path(job_dir)
    metrics, manifest = job_dir / METRICS, job_dir / MANIFEST
    if not (metrics.is_file() and manifest.is_file()):
        return False
    try:
        recorded = read_json(manifest).get("artifact_sha256", {})
    except Exception:
        return False
    if METRICS not in recorded:
        return False
    for rel, digest in recorded.items():
        if rel.endswith(".log"):  # Hydra appends to the job's log on every attempt, skips included
            continue
        path = job_dir / rel
        if not path.is_file() or sha256_file(path) != digest:
            return False
    return True


def clear_partial_job(job_dir: str | Path) -> None:
    """Remove what an interrupted attempt left in ``job_dir`` (keeping Hydra's ``.hydra/`` and logs)."""
    job_dir = Path(job_dir)
    if not job_dir.is_dir():
        return
    for child in job_dir.iterdir():
        if child.name in _KEEP or child.suffix == ".log":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def complete_jobs(sweep_dir: str | Path) -> list[Path]:
    """Complete job directories under ``sweep_dir`` (any depth; the shared cache is not a job)."""
    sweep_dir = Path(sweep_dir)
    out = []
    for metrics in sorted(sweep_dir.rglob(METRICS)):
        job_dir = metrics.parent
        rel = job_dir.relative_to(sweep_dir).parts
        if any(p.startswith(".") or p == "wandb" for p in rel):
            continue
        if job_complete(job_dir):
            out.append(job_dir)
    return out


def _cell(v: Any) -> Any:
    # An absent value (e.g. no correlation for a window with too few frames) is an empty cell, never NaN.
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def summary_rows(sweep_dir: str | Path, jobs: Iterable[Path] | None = None) -> list[dict[str, Any]]:
    """One row per complete job; ``jobs`` (from :func:`complete_jobs`) spares re-hashing every artifact."""
    rows = []
    for job_dir in complete_jobs(sweep_dir) if jobs is None else jobs:
        metrics = read_json(job_dir / METRICS)
        row = {"job": job_dir.relative_to(sweep_dir).as_posix(), **metrics.get("row", {})}
        rows.append(row)
    rows.sort(key=lambda r: (str(r.get("scene", "")), str(r.get("seed", "")), str(r.get("prompt", "")),
                             int(r.get("release_step") or 0), r["job"]))
    return rows


def write_csv(path: str | Path, rows: Iterable[Mapping[str, Any]], columns: list[str] | None = None) -> Path:
    rows = list(rows)
    if columns is None:
        columns = []
        for row in rows:
            columns += [k for k in row if k not in columns]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in columns})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue().encode())
    return path


#: Leading columns of ``summary.csv`` (the rest follow in name order).
LEADING_COLUMNS = ["job", "scene", "appearance", "motion", "seed", "prompt", "object", "release_step", "num_steps",
                   "sigma_rel", "expert_switch_step", "sigma_expert_switch", "executor", "threshold",
                   "frames_measurable", "r_airborne_x", "r_airborne_y", "r_after_ground_x", "r_after_ground_y",
                   "r_clip_x", "r_clip_y", "median_abs_px_x", "median_abs_px_y", "sideways_travel_px", "sideways_travel_sim_px"]


def write_summary(sweep_dir: str | Path, jobs: Iterable[Path] | None = None) -> Path:
    """(Re)write ``<sweep_dir>/summary.csv``: one row per complete job."""
    rows = summary_rows(sweep_dir, jobs)
    names = sorted({k for r in rows for k in r})
    columns = [c for c in LEADING_COLUMNS if c in names] + [c for c in names if c not in LEADING_COLUMNS]
    return write_csv(Path(sweep_dir) / SUMMARY, rows, columns)
