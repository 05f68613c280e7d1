"""Critic ablations: the critic over one manifest with each planner / specialists choice, one table.

Each Hydra job of ``experiment=ablate_planner`` (``critic/planner=rules,llm``) or ``experiment=ablate_specialists``
(``critic/specialists=...``) critiques every clip of the manifest with its choice and writes
``verdicts.jsonl`` and a ``metrics.json`` row; after each job the sweep root's ``ablation.csv`` (and
``ablation.md``) is rewritten from all complete jobs: verdict counts, recall on flawed clips and precision on
clean ones where the manifest has labels, and calls per clip.

Manifest: ``ablation.manifest`` (JSONL, the critic's batch format, with an optional ``label`` field:
``supported`` for a clean clip, ``contradicted`` for a flawed one). When null, a small labelled set is rendered
from the configured scene (``experiments.synthetic``) once per sweep.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from experiments import jobstate
from experiments.executors import file_lock
from experiments.jobs import JobContext, _config_dict, _validated, job_key, skip_complete_job
from experiments.scene import fit_spec_to_video
from experiments.types import AblationRow, VideoSize
from veriphy.errors import UserError
from veriphy.files import read_json, write_json
from veriphy.hashing import sha256_file
from veriphy.manifest import write_manifest

log = logging.getLogger(__name__)

TABLE = "ablation"
TABLE_COLUMNS = ["factor", "choice", "clips", "supported", "contradicted", "unknown", "error", "labelled_flawed",
                 "recall", "labelled_clean", "precision_clean", "calls_per_clip", "job"]


def choice_of(factor: str) -> str:
    """The option chosen for config group ``factor`` in the running Hydra job (e.g. ``rules``)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return str(HydraConfig.get().runtime.choices.get(factor))
    except Exception:
        return "unknown"


def score_verdicts(verdicts: list[dict[str, Any]], labels: dict[str, str | None]) -> dict[str, Any]:
    """Counts per verdict; recall = flawed clips found contradicted / flawed clips; precision on clean clips =
    clean clips not contradicted / clean clips (None without labels); mean calls per clip."""
    counts = {k: 0 for k in ("supported", "contradicted", "unknown", "error")}
    for v in verdicts:
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    flawed = [v for v in verdicts if labels.get(v["id"]) == "contradicted"]
    clean = [v for v in verdicts if labels.get(v["id"]) == "supported"]
    calls = [int(v.get("calls") or 0) for v in verdicts]
    return {
        "clips": len(verdicts), **counts,
        "labelled_flawed": len(flawed),
        "recall": (sum(v["verdict"] == "contradicted" for v in flawed) / len(flawed)) if flawed else None,
        "labelled_clean": len(clean),
        "precision_clean": (sum(v["verdict"] != "contradicted" for v in clean) / len(clean)) if clean else None,
        "calls_per_clip": (sum(calls) / len(calls)) if calls else None,
    }


def read_labels(manifest: Path) -> dict[str, str | None]:
    labels = {}
    for n, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict):
            labels[str(item.get("id", f"line{n}"))] = item.get("label")
    return labels


def write_table(sweep_dir: Path, jobs: list[Path] | None = None) -> Path:
    """``ablation.csv`` and ``ablation.md`` at the sweep root, one row per complete ablation job."""
    rows = []
    for job_dir in jobstate.complete_jobs(sweep_dir) if jobs is None else jobs:
        metrics = read_json(job_dir / jobstate.METRICS)
        if "ablation" in metrics:
            rows.append({**metrics["ablation"], "job": job_dir.relative_to(sweep_dir).as_posix()})
    rows.sort(key=lambda r: (r["factor"], r["choice"]))
    path = jobstate.write_csv(sweep_dir / f"{TABLE}.csv", rows, TABLE_COLUMNS)

    def cell(v: Any) -> str:
        return "n/a" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)

    md = ["| " + " | ".join(TABLE_COLUMNS[:-1]) + " |", "|" + "---|" * (len(TABLE_COLUMNS) - 1)]
    md += ["| " + " | ".join(cell(r.get(c)) for c in TABLE_COLUMNS[:-1]) + " |" for r in rows]
    (sweep_dir / f"{TABLE}.md").write_text("\n".join(md) + "\n")
    return path


class CriticAblation:
    """One choice of a critic ablation (``job=critic_ablation``).

    Args:
        factor: the config group being varied (``critic/planner`` or ``critic/specialists``).
        manifest: the clips (JSONL); null renders the synthetic labelled set from the scene.
        critic_options: top-level options of the critic (memory, cache_dir, report, progress, max_prompt_chars).
    """

    def __init__(self, factor: str = "critic/planner", manifest: str | None = None,
                 critic_options: dict[str, Any] | None = None):
        self.factor = factor
        self.manifest = manifest
        self.critic_options = dict(critic_options or {})

    def _manifest(self, cfg: DictConfig, ctx: JobContext) -> Path:
        if self.manifest:
            path = Path(self.manifest)
            if not path.is_file():
                raise UserError("manifest not found", file=path, field="job.manifest")
            return path
        from experiments.synthetic import write_synthetic_set

        out = ctx.sweep_dir / ".shared" / "synthetic"
        with file_lock(out / "lock"):
            manifest = out / "manifest.jsonl"
            if not manifest.is_file():
                spec = fit_spec_to_video(instantiate(cfg.scene), _validated(VideoSize, cfg.video, "video"))
                write_synthetic_set(out, spec, str(cfg.prompt), cfg.get("object_name"))
        return manifest

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        from critic.__main__ import run_batch
        from critic.run import build_components

        job_dir = ctx.job_dir
        key = job_key(cfg)
        if skip_complete_job(job_dir, key):
            return {"status": "skipped", "job_dir": str(job_dir)}
        jobstate.clear_partial_job(job_dir)
        job_dir.mkdir(parents=True, exist_ok=True)
        manifest = self._manifest(cfg, ctx)
        critic_cfg = OmegaConf.create({"critic": _config_dict(cfg.critic), **self.critic_options})
        tracker = instantiate(cfg.tracker)
        tracker.start(name=ctx.name, group=ctx.group, run_dir=job_dir, sweep_dir=ctx.sweep_dir,
                      config=_config_dict(cfg))
        try:
            run_batch(manifest, build_components(critic_cfg), job_dir)
        except BaseException:
            tracker.finish(exit_code=1)
            raise
        verdicts = [json.loads(line) for line in (job_dir / "verdicts.jsonl").read_text().splitlines() if line]
        row = AblationRow(factor=self.factor, choice=choice_of(self.factor),
                          **score_verdicts(verdicts, read_labels(manifest))).model_dump(mode="json")
        write_json(job_dir / jobstate.METRICS, {"ablation": row, "manifest": str(manifest), "job_key": key})
        write_manifest(job_dir, stage="experiments", input_hashes={"manifest": sha256_file(manifest)},
                       extra={"job": ctx.name, "factor": self.factor, "choice": row["choice"]})
        tracker.log(row)
        tracker.finish()
        with file_lock(ctx.sweep_dir / ".summary.lock"):
            write_table(ctx.sweep_dir)
        return {"status": "done", **row}
