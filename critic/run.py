"""One critique, end to end: prompt -> plan (validated, before any frame is read) -> gated execution on the
clip -> aggregation -> files in the run directory.

``critique(video_path, prompt, cfg_or_components, run_dir)`` is the API the command line, the synthetic-clip
tests and the experiments use. ``cfg_or_components`` is either the app config (``cfg.critic.planner``,
``cfg.critic.specialists.<family>``, ``cfg.critic.aggregator``, each with a ``_target_``) or ready-made
:class:`CriticComponents` (tests pass fake specialists this way).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from critic.aggregator import Aggregator
from critic.executor import Execution, Executor, OperationCache
from critic.memory import Memory
from critic.planners.base import PlanResult
from critic.report import write_outputs
from critic.types import ClipVerdict, CostSummary, VideoContext, VideoSanity
from critic.video import load_video
from veriphy.errors import UserError, check_int
from veriphy.hashing import sha256_file, sha256_json

DEFAULT_MAX_PROMPT_CHARS = 4000


@dataclass
class CriticComponents:
    """Everything a critique needs besides the clip and the prompt."""

    planner: Any
    specialists: Mapping[str, Any]
    aggregator: Aggregator = field(default_factory=Aggregator)
    memory: Memory | None = None
    cache: OperationCache = field(default_factory=OperationCache)
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    report: bool = True
    progress: bool = False
    #: what is done to the decoded clip before any specialist reads it (``critic.video.NoiseFilter``), or nothing
    video_filter: Callable[[VideoContext], VideoContext] | None = None
    #: each specialist family's configuration as plain data (its ``_target_`` and arguments), part of every cache
    #: key of its operations: one class and version with other arguments (an ablation) shares no cached result
    settings: Mapping[str, Any] = field(default_factory=dict)


def build_components(cfg: Any) -> CriticComponents:
    """Instantiate the configured planner, specialists and aggregator (cheap: no weights are loaded)."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    critic_cfg = cfg.critic
    specialists, settings = {}, {}
    for family, node in (critic_cfg.get("specialists") or {}).items():
        if node is not None and "_target_" in node:
            specialists[str(family)] = instantiate(node)
            settings[str(family)] = OmegaConf.to_container(node, resolve=True)
    cache_dir = cfg.get("cache_dir")
    if cache_dir and Path(str(cache_dir)).exists() and not Path(str(cache_dir)).is_dir():
        raise UserError("is a file; the operation cache needs a folder", file=str(cache_dir), field="cache_dir")
    if cfg.get("memory") and Path(str(cfg.memory)).is_dir():
        raise UserError("is a folder; the lessons file is a JSON file", file=str(cfg.memory), field="memory")
    max_prompt_chars = check_int(cfg.get("max_prompt_chars", DEFAULT_MAX_PROMPT_CHARS), field="max_prompt_chars",
                                 minimum=1)
    memory = Memory(cfg.memory) if cfg.get("memory") else None
    video_filter = critic_cfg.get("video_filter")
    return CriticComponents(planner=instantiate(critic_cfg.planner), specialists=specialists,
                            aggregator=instantiate(critic_cfg.aggregator), memory=memory,
                            video_filter=instantiate(video_filter) if video_filter and "_target_" in video_filter
                            else None,
                            cache=OperationCache(cfg.get("cache_dir")), settings=settings,
                            max_prompt_chars=max_prompt_chars,
                            report=bool(cfg.get("report", True)), progress=bool(cfg.get("progress", False)))


def check_prompt(prompt: Any, max_chars: int, source: str | None = None) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise UserError("the prompt is empty", file=source, field="prompt")
    if len(prompt) > max_chars:
        raise UserError(f"the prompt has {len(prompt)} characters (at most {max_chars}); shorten it or raise "
                        "max_prompt_chars", file=source, field="prompt")
    return prompt


def critique(video_path: str | os.PathLike, prompt: str, cfg_or_components: Any, run_dir: str | os.PathLike, *,
             video: VideoContext | None = None) -> ClipVerdict:
    """Critique one clip against its prompt and write the run directory's files (see ``critic.report``).

    ``video`` may be given already decoded (tests, in-memory clips); otherwise ``video_path`` is decoded with
    ``critic.video.load_video`` - after the plan has been made and validated."""
    comp = cfg_or_components if isinstance(cfg_or_components, CriticComponents) else build_components(cfg_or_components)
    prompt = check_prompt(prompt, comp.max_prompt_chars)
    if video is None and not Path(video_path).is_file():
        raise UserError("video file not found", file=video_path)
    run_dir = Path(run_dir)

    # 1. plan from the prompt alone, validated before any frame is read
    lessons = comp.memory.active() if comp.memory is not None else None
    result: PlanResult = comp.planner.plan(prompt, lessons)
    clip_sha = video.sha256 if video is not None else sha256_file(video_path)
    video_name = Path(video.path if video is not None else video_path).name
    if result.plan is None:
        rejected = {"prompt": prompt, "planner": getattr(comp.planner, "name", ""), "reasons": list(result.rejected),
                    "attempts": result.attempts, "transcript": list(result.transcript)}
        verdict = ClipVerdict(clip_sha256=clip_sha, video=video_name, prompt=prompt, plan_sha256="", verdict="unknown",
                              reason="plan rejected: " + "; ".join(result.rejected), claims=[], packets=[],
                              cost=CostSummary(planner_model_calls=result.cost.model_calls), p_plausible=0.5)
        return write_outputs(run_dir, None, [], verdict, rejected=rejected, report=comp.report)
    plan = result.plan
    plan_sha = sha256_json(plan.model_dump(mode="json"))

    # 2. nothing to check: no need to decode the clip
    if not plan.claims:
        agg = comp.aggregator.aggregate(plan, {}, clip_sha256=clip_sha, video=video_name, plan_sha256=plan_sha,
                                        planner_cost=result.cost)
        return write_outputs(run_dir, plan, [], agg, report=comp.report)

    # 3. execute the declared operations on the clip, then aggregate
    if video is None:
        video = load_video(video_path)
    if comp.video_filter is not None:
        video = comp.video_filter(video)  # its frames, and so its cache key; the verdict keeps the file's sha256
    ex: Execution = Executor(comp.specialists, comp.cache, slack_fraction=comp.aggregator.slack_fraction,
                             settings=comp.settings).run(plan, video, progress=comp.progress)
    verdict = comp.aggregator.aggregate(plan, ex.records, clip_sha256=clip_sha, video=video_name,
                                        plan_sha256=plan_sha, sanity=video.sanity or VideoSanity(),
                                        planner_cost=result.cost, cache_hits=ex.cache_hits)
    return write_outputs(run_dir, plan, list(ex.records.values()), verdict, video=video, results=ex.results,
                         timings=ex.timings(), report=comp.report)
