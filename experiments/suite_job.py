"""One of the field's suites end to end (``job=suite``; presets ``experiment=suite_videophy2``, ``suite_vbench2``,
``suite_dsg``, ``suite_physics_iq``):

1. imports the suite's file (``job.path``) into the critic's batch manifest ``manifest.jsonl`` (rows left out are
   listed in ``import.json`` with their lines);
2. measures the planner's coverage of its prompts (``coverage/coverage.json``, ``.md`` and ``prompts.jsonl``;
   both halves);
3. critiques the clips (``critic/verdicts.jsonl`` and one folder per clip) when they are there: ``job.critique``
   true, false, or null = when at least one clip of the manifest exists (VideoPhy-2's ship with its rules; the
   other suites' are a model's samples, found in ``job.videos``);
4. exports the verdicts as the suite's labels (``export/<file>``) and, where the suite has labels, writes the
   agreement report (``agreement/agreement.json`` and ``.md``);
5. writes ``metrics.json`` and, last, ``manifest.json``; a rerun skips a complete job.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from critic.__main__ import run_batch
from critic.run import build_components
from critic.suites.base import import_suite
from critic.suites.run import build, export_verdicts, write_agreement, write_coverage
from experiments import jobstate
from experiments.jobs import JobContext, _config_dict, job_key, start_job
from veriphy.errors import UserError
from veriphy.files import write_json
from veriphy.manifest import write_manifest

log = logging.getLogger(__name__)


class SuiteJob:
    """Args:
        path: the suite's file (or VBench-2 meta folder); required.
        videos: the folder of the clips (null: the suite's own, else beside the manifest).
        limit: keep the first N manifest lines (smoke runs).
        critique: run the critic (null: when at least one clip exists).
        top: unplanned words and constructions listed in the coverage report.
        critic_options: top-level options of the critic (memory, cache_dir, report, progress, max_prompt_chars).
    """

    def __init__(self, path: str | None = None, videos: str | None = None, limit: int | None = None, critique: bool | None = None,
                 top: int = 30, critic_options: dict[str, Any] | None = None):
        self.path = path
        self.videos = videos
        self.limit = limit
        self.critique = critique
        self.top = top
        self.critic_options = dict(critic_options or {})

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        if cfg.get("suite") is None:
            raise UserError("no suite: use a preset (experiment=suite_videophy2, ...) or suite=NAME", field="suite")
        if self.path is None:
            raise UserError("give the suite's file: job.path=...", field="job.path")
        suite = build(cfg.suite, "suite")
        job_dir = ctx.job_dir
        key = job_key(cfg)
        if not start_job(job_dir, key):
            return {"status": "skipped", "job_dir": str(job_dir)}
        path = Path(self.path)

        manifest = job_dir / "manifest.jsonl"
        imported = import_suite(suite, path, manifest, Path(self.videos) if self.videos else None, self.limit)
        write_json(job_dir / "import.json", {"path": str(path), "items": len(imported.items),
                                             "rows_left_out": [p.model_dump() for p in imported.problems]})
        coverage = write_coverage(suite, imported.items, instantiate(cfg.critic.planner), job_dir / "coverage",
                                  source=str(path), top=self.top)
        whole = coverage.halves["all"]
        metrics: dict[str, Any] = {
            "suite": suite.name, "items": len(imported.items), "rows_left_out": len(imported.problems),
            "coverage": {"prompts": coverage.prompts, "share_typed": whole.all.share_typed,
                         "share_instrumented": whole.all.share_instrumented,
                         "physics_share_typed": whole.physics.share_typed,
                         "physics_share_instrumented": whole.physics.share_instrumented,
                         **{f"{t.kind}_recovered": t.share for t in whole.targets}}}

        present = sum((manifest.parent / it.video).is_file() for it in imported.items)
        critique = self.critique if self.critique is not None else present > 0
        if critique:
            critic_cfg = OmegaConf.create({"critic": _config_dict(cfg.critic), **self.critic_options})
            verdicts = job_dir / "critic" / "verdicts.jsonl"
            metrics["verdicts"] = run_batch(manifest, build_components(critic_cfg), verdicts.parent)
            if suite.export_name is not None:
                export_verdicts(suite, manifest, verdicts, job_dir / "export" / suite.export_name)
            if suite.label_values and any(suite.label(it) is not None for it in imported.items):
                report = write_agreement(suite, manifest, verdicts, job_dir / "agreement")
                metrics["agreement"] = {"labelled": report.labelled, "agree": report.agree,
                                        "accuracy": report.accuracy, "matrix": report.matrix}
        else:
            log.info("%s: no clip of the manifest is present (%s); critique skipped", suite.name,
                     self.videos or "beside the manifest")
        metrics["critiqued"] = bool(critique)

        write_json(job_dir / jobstate.METRICS, {**metrics, "job_key": key})
        write_manifest(job_dir, stage="experiments", inputs={"path": path},
                       extra={"job": ctx.name, "suite": suite.name})
        tracker = instantiate(cfg.tracker)
        tracker.start(name=ctx.name, group=ctx.group, run_dir=job_dir, sweep_dir=ctx.sweep_dir,
                      config=_config_dict(cfg))
        tracker.log({"items": metrics["items"], "share_typed": whole.all.share_typed,
                     "share_instrumented": whole.all.share_instrumented,
                     **{f"agreement_{k}": v for k, v in metrics.get("agreement", {}).items() if k != "matrix"}})
        tracker.finish()
        return {"status": "done", **metrics}
