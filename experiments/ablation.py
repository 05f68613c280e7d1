"""Critic ablations over the benchmark corpus: critique the corpus with each choice, score it, one table.

Each Hydra job of ``experiment=ablate_planner`` or ``experiment=ablate_specialists`` runs one critic configuration:
a config group's option (``critic/planner=rules,ungated,explicit_only,questions``) or an option inside a group
(``critic.planner.implicit=true,false``, ``critic.aggregator.slack_fraction=0.1,0.25,0.5``,
``critic.specialists.ground.tracker.max_coast_s=0,0.5``). The job critiques every clip of the corpus
(``experiments.benchmark.critique``, resumable, into ``<job>/critique``), scores the run
(``experiments.benchmark.scoring``) and writes a ``metrics.json`` row; after each job the sweep root's
``ablation.csv`` and ``ablation.md`` are rewritten from all complete jobs. Every row names the option it changed
(``option``: the job's ``critic`` overrides) and reports defect recall whole / whole+partial with 95% Wilson
intervals, false alarms and calls per clip.

Corpus: ``job.corpus`` (a folder with ``annotations.jsonl``). When null, a small annotated corpus is rendered from
the configured scene once per sweep (``experiments.benchmark.devcorpus``: the clean clip, a teleport and a vanish).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from critic.run import build_components
from experiments import jobstate
from experiments.benchmark.critique import critique_corpus
from experiments.benchmark.devcorpus import SimulatedScene, simulated_clips, write_corpus
from experiments.benchmark.runs import ANNOTATIONS, load_corpus, load_run
from experiments.benchmark.scoring import score_run
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
TABLE_COLUMNS = ["factor", "option", "choice", "clips", "supported", "contradicted", "unknown", "error", "defects",
                 "whole", "partial", "missed", "recall_whole", "recall_whole_lo", "recall_whole_hi", "recall_any",
                 "recall_any_lo", "recall_any_hi", "clean_clips", "false_alarm_clips", "false_alarm_rate",
                 "false_claims", "false_claims_per_flawed_clip", "calls_per_clip", "tool_calls_per_clip",
                 "model_calls_per_clip", "job"]
MARKDOWN_COLUMNS = ["option", "clips", "defects", "whole", "partial", "missed", "recall_whole", "recall_any",
                    "false_alarm_clips", "clean_clips", "false_claims", "calls_per_clip"]


def choice_of(factor: str) -> str:
    """The option chosen for config group ``factor`` in the running Hydra job (e.g. ``rules``)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return str(HydraConfig.get().runtime.choices.get(factor))
    except Exception:
        return "unknown"


def write_table(sweep_dir: Path, jobs: list[Path] | None = None) -> Path:
    """``ablation.csv`` and ``ablation.md`` at the sweep root, one row per complete ablation job."""
    rows = []
    for job_dir in jobstate.complete_jobs(sweep_dir) if jobs is None else jobs:
        metrics = read_json(job_dir / jobstate.METRICS)
        if "ablation" in metrics:
            rows.append({**metrics["ablation"], "job": job_dir.relative_to(sweep_dir).as_posix()})
    rows.sort(key=lambda r: (r["factor"], r["option"]))
    path = jobstate.write_csv(sweep_dir / f"{TABLE}.csv", rows, TABLE_COLUMNS)

    def cell(v: Any) -> str:
        return "n/a" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)

    def interval(r: dict[str, Any], key: str) -> str:
        v = r.get(key)
        return "n/a" if v is None else f"{v:.2f} [{r[key + '_lo']:.2f}, {r[key + '_hi']:.2f}]"

    md = ["| " + " | ".join(MARKDOWN_COLUMNS) + " |", "|" + "---|" * len(MARKDOWN_COLUMNS)]
    md += ["| " + " | ".join(interval(r, c) if c in ("recall_whole", "recall_any") else cell(r.get(c))
                             for c in MARKDOWN_COLUMNS) + " |" for r in rows]
    (sweep_dir / f"{TABLE}.md").write_text("Recall with 95% Wilson intervals.\n\n" + "\n".join(md) + "\n")
    return path


def changed_option(overrides: tuple[str, ...] | list[str], factor: str, choice: str) -> str:
    """What this job changed: its ``critic`` overrides (group options and options inside a group), or the varied
    group's choice when none was given."""
    picked = [o for o in overrides if o.split("=", 1)[0].lstrip("+~").startswith("critic")]
    return ",".join(sorted(picked)) or f"{factor}={choice}"


def ablation_row(factor: str, option: str, choice: str, corpus_dir: Path, run_dir: Path) -> AblationRow:
    """Score the critique run in ``run_dir`` against the corpus: one row of the ablation table."""
    corpus = load_corpus(corpus_dir)
    _, reports = load_run(run_dir)
    scored = score_run(corpus, reports)
    s = scored["summary"]
    counts = {k: 0 for k in ("supported", "contradicted", "unknown", "error")}
    for c in scored["clips"]:
        counts[c["verdict"]] += 1
    return AblationRow(
        factor=factor, option=option, choice=choice, clips=s["clips"], **counts, defects=s["defects"],
        whole=s["whole"], partial=s["partial"], missed=s["missed"],
        recall_whole=s["recall_whole"]["value"], recall_whole_lo=s["recall_whole"]["lo"],
        recall_whole_hi=s["recall_whole"]["hi"], recall_any=s["recall_any"]["value"],
        recall_any_lo=s["recall_any"]["lo"], recall_any_hi=s["recall_any"]["hi"], clean_clips=s["clean_clips"],
        false_alarm_clips=s["false_alarm_clips"], false_alarm_rate=s["false_alarm_rate"]["value"],
        false_claims=s["false_claims"], false_claims_per_flawed_clip=s["false_claims_per_flawed_clip"],
        calls_per_clip=s["mean_calls"], tool_calls_per_clip=s["mean_tool_calls"],
        model_calls_per_clip=s["mean_model_calls"])


class CriticAblation:
    """One choice of a critic ablation (``job=critic_ablation``).

    Args:
        factor: the config group being varied (``critic/planner`` or ``critic/specialists``); options inside it
            are named by the row's ``option``.
        corpus: the benchmark corpus folder; null renders a small annotated corpus from the scene.
        critic_options: top-level options of the critic (memory, cache_dir, report, progress, max_prompt_chars).
    """

    def __init__(self, factor: str = "critic/planner", corpus: str | None = None,
                 critic_options: dict[str, Any] | None = None):
        self.factor = factor
        self.corpus = corpus
        self.critic_options = dict(critic_options or {})

    def _corpus(self, cfg: DictConfig, ctx: JobContext) -> Path:
        if self.corpus:
            path = Path(self.corpus)
            if not (path / ANNOTATIONS).is_file():
                raise UserError("no annotations.jsonl in the corpus folder", file=path, field="job.corpus")
            return path
        out = ctx.sweep_dir / ".shared" / "corpus"
        with file_lock(ctx.sweep_dir / ".shared" / "corpus.lock"):
            if not (out / ANNOTATIONS).is_file():
                spec = fit_spec_to_video(instantiate(cfg.scene), _validated(VideoSize, cfg.video, "video"))
                scene = SimulatedScene(name=str(ctx.choice("scene") or "scene"), spec=spec, prompt=str(cfg.prompt),
                                       object_name=cfg.get("object_name"))
                write_corpus(out, simulated_clips(out, scene))
        return out

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        job_dir = ctx.job_dir
        key = job_key(cfg)
        if skip_complete_job(job_dir, key):
            return {"status": "skipped", "job_dir": str(job_dir)}
        jobstate.clear_partial_job(job_dir)
        job_dir.mkdir(parents=True, exist_ok=True)
        corpus = self._corpus(cfg, ctx)
        critic_config = _config_dict(cfg.critic)
        critic_cfg = OmegaConf.create({"critic": critic_config, **self.critic_options})
        choice = choice_of(self.factor)
        option = changed_option(ctx.overrides, self.factor, choice)
        tracker = instantiate(cfg.tracker)
        tracker.start(name=ctx.name, group=ctx.group, run_dir=job_dir, sweep_dir=ctx.sweep_dir,
                      config=_config_dict(cfg))
        run_dir = job_dir / "critique"
        try:
            critique_corpus(corpus, run_dir, build_components(critic_cfg), critic_config=critic_config,
                            overrides=list(ctx.overrides), name=option, log=log.info)
        except BaseException:
            tracker.finish(exit_code=1)
            raise
        row = ablation_row(self.factor, option, choice, corpus, run_dir).model_dump(mode="json")
        write_json(job_dir / jobstate.METRICS, {"ablation": row, "corpus": str(corpus), "job_key": key})
        write_manifest(job_dir, stage="experiments", input_hashes={"annotations": sha256_file(corpus / ANNOTATIONS)},
                       extra={"job": ctx.name, "factor": self.factor, "option": option, "choice": choice})
        tracker.log({k: v for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
        tracker.finish()
        with file_lock(ctx.sweep_dir / ".summary.lock"):
            write_table(ctx.sweep_dir)
        return {"status": "done", **row}
