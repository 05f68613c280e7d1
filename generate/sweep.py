"""Prefix-shared release sweep: all release points i* of one (control, prompt, seed) from one controlled run.

Every clip of a sweep shares its first i* steps with the fully controlled run, so the controlled "trunk" is run
once. When the trunk reaches a requested i* (before running step i*), the latents and the scheduler (UniPC keeps
its last model outputs and last sample: the state must be copied, not just the latents) are deep-copied and the
uncontrolled remainder i*..N-1 is run from the copy. Clips are bit-identical to separate
:func:`generate.pipeline.generate_clip` runs, with far fewer transformer forwards:

    naive:  sum over i* of N            sweep:  max(i*) + sum over i* of (N - i*)      (x2 with CFG)

Branches are run depth-first (one branch alive at a time), so memory is one extra latent + scheduler state.
"""

from __future__ import annotations

import copy
import time

from control.types import ControlVideo
from generate.pipeline import (DEFAULT_NEGATIVE_PROMPT, DenoiseStats, decode, denoise, make_clip, prepare)
from generate.probe import WithdrawMode
from generate.schedulers import resolve_release_step
from generate.types import Clip


def naive_transformer_calls(num_steps: int, release_steps, cfg: bool = True) -> int:
    """Forwards needed by one separate run per release step."""
    return num_steps * len(set(release_steps)) * (2 if cfg else 1)


def sweep_transformer_calls(num_steps: int, release_steps, cfg: bool = True) -> int:
    """Forwards needed by the prefix-shared sweep."""
    steps = sorted(set(release_steps))
    return (max(steps) + sum(num_steps - s for s in steps)) * (2 if cfg else 1)


def generate_release_sweep(pipe, control: ControlVideo, prompt: str, *, seed: int, num_steps: int,
                           release_steps: list[int], negative_prompt: str = DEFAULT_NEGATIVE_PROMPT,
                           guidance_scale: float = 5.0, guidance_scale_2: float | None = None,
                           height: int | None = None, width: int | None = None, num_frames: int | None = None,
                           max_sequence_length: int = 512, scheduler=None, mode: WithdrawMode = "skip",
                           progress: bool = True, source: str | None = None) -> dict[int, Clip]:
    """One clip per release step (keys: the distinct i*, ascending), equal bit for bit to ``generate_clip`` with
    the same arguments. Each clip's ``extra`` holds its own trace and the sweep's totals (``sweep`` key)."""
    steps = sorted({resolve_release_step(s, num_steps) for s in release_steps})
    if not steps:
        raise ValueError("release_steps is empty")

    prep = prepare(pipe, control, prompt, negative_prompt=negative_prompt, seed=seed, num_steps=num_steps,
                   guidance_scale=guidance_scale, guidance_scale_2=guidance_scale_2, height=height, width=width,
                   num_frames=num_frames, max_sequence_length=max_sequence_length, scheduler=scheduler,
                   source=source)
    trunk_sched = copy.deepcopy(prep.scheduler)
    trunk_latents = prep.initial_latents
    trunk_stats = DenoiseStats()
    trunk_seconds = 0.0
    done = 0  # trunk has run steps 0..done-1 (all controlled)
    results: dict[int, Clip] = {}
    total_calls = 0

    for i_star in steps:
        tic = time.perf_counter()
        trunk_latents = denoise(pipe, prep, trunk_sched, trunk_latents, range(done, i_star),
                                release_step=num_steps, mode=mode, stats=trunk_stats, progress=progress,
                                desc=f"controlled 0..{i_star - 1}")
        trunk_seconds += time.perf_counter() - tic
        total_calls += sum(2 if prep.do_cfg else 1 for _ in range(done, i_star))
        done = i_star

        # Branch: copies, so the trunk continues from its own untouched state.
        branch_sched = copy.deepcopy(trunk_sched)
        branch_latents = trunk_latents.clone()
        branch_stats = DenoiseStats()
        tic = time.perf_counter()
        branch_latents = denoise(pipe, prep, branch_sched, branch_latents, range(i_star, num_steps),
                                 release_step=i_star, mode=mode, stats=branch_stats, progress=progress,
                                 desc=f"released at {i_star}")
        branch_seconds = time.perf_counter() - tic
        total_calls += branch_stats.transformer_calls
        tic = time.perf_counter()
        frames = decode(pipe, prep, branch_latents)
        decode_seconds = time.perf_counter() - tic

        # The clip's own record: the shared prefix's steps followed by the branch's.
        stats = DenoiseStats(trace=[r for r in trunk_stats.trace if r.step < i_star] + branch_stats.trace)
        stats.transformer_calls = sum(2 if prep.do_cfg else 1 for _ in stats.trace)
        stats.controlled_calls = sum(2 if prep.do_cfg else 1 for r in stats.trace if r.control)
        timings = dict(prep.timings_s)
        timings.update({"denoise_shared_prefix": trunk_seconds, "denoise_branch": branch_seconds,
                        "decode": decode_seconds, "denoise_per_step": [r.seconds for r in stats.trace]})
        results[i_star] = make_clip(pipe, prep, control, frames, prompt=prompt, negative_prompt=negative_prompt,
                                    seed=seed, release_step=i_star, mode=mode, stats=stats, timings_s=timings)

    pipe.maybe_free_model_hooks()
    summary = {"release_steps": steps, "transformer_calls": total_calls,
               "naive_transformer_calls": naive_transformer_calls(num_steps, steps, prep.do_cfg)}
    for clip in results.values():
        clip.extra["sweep"] = summary
    return results
