"""``python -m experiments.benchmark critique corpus=DIR [critic overrides]``: run one critic configuration over the
benchmark corpus.

Resumable: each clip's report (``<out>/reports/<clip>.json``) is written last and atomically; a clip that has one is
skipped, so running the same command again finishes an interrupted run. Shards: ``shard=i num_shards=n`` takes the
clips whose position in ``annotations.jsonl`` is ``i`` modulo ``n``; a Hydra multirun spreads them over processes or
a cluster (``-m shard=0,1,2,3 num_shards=4 hydra/launcher=submitit_slurm``). Every shard writes into the same
``out`` folder and rewrites ``run.json`` (under a lock) from all reports present.

``out`` defaults to ``outputs/benchmark/runs/<name>``; ``name`` defaults to the critic's configuration in words (the
planner's option, then every ``critic...`` override): ``rules``, ``rules,critic.planner.implicit=false``. A folder
that already holds a run of another critic configuration is refused (pick another ``out`` or ``name``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from critic.run import CriticComponents, build_components, critique
from critic.types import ClipVerdict, Plan
from experiments.benchmark.runs import (CLIPS, RUN_FILE, load_corpus, load_run, report_path, report_from_verdict,
                                        safe_name)
from experiments.benchmark.scoring import ClipReport
from experiments.executors import file_lock
from veriphy.errors import UserError
from veriphy.files import read_json, write_json
from veriphy.hydra_app import configure_threads, exit_on_user_error

#: overrides that say where and which part of a run happens, not what the critic is
NOT_CONFIGURATION = ("corpus", "out", "name", "shard", "num_shards", "limit", "progress", "num_threads", "cache_dir",
                     "hydra", "report")


def configuration_overrides(overrides: Sequence[str]) -> list[str]:
    """The overrides that change the critic (``critic/planner=ungated``, ``critic.planner.implicit=false`` ...)."""
    out = []
    for o in overrides:
        key = o.split("=", 1)[0].lstrip("+~")
        if key.split(".")[0].split("/")[0] not in NOT_CONFIGURATION:
            out.append(o)
    return out


def default_name(planner_choice: str, overrides: Sequence[str]) -> str:
    rest = [o for o in configuration_overrides(overrides) if not o.startswith("critic/planner=")]
    return ",".join([planner_choice, *sorted(rest)])


def critique_corpus(corpus_dir: Path, out_dir: Path, comp: CriticComponents, *, critic_config: dict[str, Any],
                    overrides: Sequence[str] = (), name: str = "", shard: int = 0, num_shards: int = 1,
                    limit: int | None = None, log: Callable[[str], None] | None = None) -> dict[str, int]:
    """Critique this shard's clips of the corpus into ``out_dir``; returns counts (done, skipped, per verdict).

    ``critic_config``: the resolved ``critic`` node (planner, specialists, aggregator); a folder holding a run of
    another configuration is refused. ``limit``: at most this many clips of the corpus (before sharding)."""
    if not 0 <= shard < num_shards:
        raise UserError(f"shard {shard} is not in 0..{num_shards - 1}", field="shard")
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    clips = load_corpus(corpus_dir)
    if limit is not None:
        clips = clips[:int(limit)]
    out_dir.mkdir(parents=True, exist_ok=True)
    with file_lock(out_dir / ".run.lock"):
        if (out_dir / RUN_FILE).is_file():
            before = read_json(out_dir / RUN_FILE).get("critic")
            if before is not None and before != critic_config:
                raise UserError("this folder holds a run of another critic configuration; give another out= or name=",
                                file=out_dir / RUN_FILE, field="out")
        _write_run_file(out_dir, corpus_dir, clips, critic_config, overrides, name)
    mine = [(k, clip) for k, clip in enumerate(clips) if k % num_shards == shard]
    counts: dict[str, int] = {"skipped": 0}
    for n, (_, clip) in enumerate(mine, 1):
        head = f"[{n}/{len(mine)}]" + (f" shard {shard}/{num_shards}" if num_shards > 1 else "")
        target = report_path(out_dir, clip.id)
        if target.is_file():
            counts["skipped"] += 1
            log(f"{head} {clip.id}: done before, skipped")
            continue
        report = _critique_clip(corpus_dir, out_dir, clip.id, clip.video, clip.prompt, comp)
        write_json(target, report.model_dump(mode="json"))
        counts[report.verdict] = counts.get(report.verdict, 0) + 1
        what = report.error if report.verdict == "error" else report.reason
        log(f"{head} {clip.id}: {report.verdict} ({report.cost.calls} calls, {report.seconds:.1f} s) {what}")
    with file_lock(out_dir / ".run.lock"):
        _write_run_file(out_dir, corpus_dir, clips, critic_config, overrides, name)
    return counts


def _critique_clip(corpus_dir: Path, out_dir: Path, clip_id: str, video: str, prompt: str,
                   comp: CriticComponents) -> ClipReport:
    critic_dir = Path(CLIPS) / safe_name(clip_id)
    t0 = time.perf_counter()
    try:
        verdict: ClipVerdict = critique(corpus_dir / video, prompt, comp, out_dir / critic_dir)
    except UserError as exc:
        return ClipReport(id=clip_id, verdict="error", error=exc.message, critic_dir=None)
    except Exception as exc:  # one broken clip must not end the run; its report says why
        return ClipReport(id=clip_id, verdict="error", error=f"{type(exc).__name__}: {exc}", critic_dir=None)
    plan_file = out_dir / critic_dir / "plan.json"
    plan = Plan.model_validate(read_json(plan_file)) if plan_file.is_file() else None
    return report_from_verdict(clip_id, verdict, plan, critic_dir.as_posix(), time.perf_counter() - t0)


def _write_run_file(out_dir: Path, corpus_dir: Path, clips: list, critic_config: dict[str, Any],
                    overrides: Sequence[str], name: str) -> None:
    """``run.json``: the configuration and, per clip done so far, its verdict and cost."""
    _, reports = load_run(out_dir) if (out_dir / "reports").is_dir() else ({}, {})
    per_clip = {c.id: {"verdict": reports[c.id].verdict, **reports[c.id].cost.model_dump(),
                       "seconds": reports[c.id].seconds} for c in clips if c.id in reports}
    write_json(out_dir / RUN_FILE, {
        "name": name or out_dir.name, "corpus": str(corpus_dir), "overrides": list(overrides),
        "configuration": configuration_overrides(overrides), "critic": critic_config,
        "clips_in_corpus": len(clips), "clips_done": len(per_clip), "complete": len(per_clip) == len(clips),
        "cost": per_clip})


#: an absolute path: the app is started through ``experiments.benchmark``'s dispatcher, not as ``__main__``
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="benchmark_critique")
@exit_on_user_error
def main(cfg: DictConfig) -> None:
    configure_threads(cfg.get("num_threads"))
    if cfg.get("corpus") is None:
        raise UserError("no corpus: give corpus=DIR (the folder with annotations.jsonl)", field="corpus")
    hc = HydraConfig.get()
    overrides = list(hc.overrides.task)
    name = str(cfg.name) if cfg.get("name") else default_name(str(hc.runtime.choices.get("critic/planner")), overrides)
    out = Path(str(cfg.out)) if cfg.get("out") else Path("outputs/benchmark/runs") / safe_name(name)
    critic_config = OmegaConf.to_container(cfg.critic, resolve=True)
    counts = critique_corpus(Path(str(cfg.corpus)), out, build_components(cfg), critic_config=critic_config,
                             overrides=overrides, name=name, shard=int(cfg.shard), num_shards=int(cfg.num_shards),
                             limit=cfg.get("limit"))
    print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"run: {out}")


if __name__ == "__main__":
    main()
