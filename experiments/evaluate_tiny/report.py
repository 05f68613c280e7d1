"""The JSON report (``report.json``): settings, every clip's scores and the figures over them, by scene kind."""

from __future__ import annotations

from typing import Any

import numpy as np

from experiments.evaluate_tiny.scores import figure_of
from experiments.evaluate_tiny.settings import TinyEvaluation

# Scene kinds of the breakdown (key, label), in table order.
SCENE_KINDS = (("thrown", "thrown ball without wall contact"), ("wall", "thrown ball that hits the wall"),
               ("ramp", "ball rolling off a ramp"))


def scene_kind(info: dict[str, Any]) -> str:
    """A clip's key in :data:`SCENE_KINDS` from its sampler description (``template``, ``hits_wall``)."""
    if info["template"] == "ramp":
        return "ramp"
    return "wall" if info.get("hits_wall") else "thrown"


def report_head(clips: list[dict[str, Any]], ev: TinyEvaluation, seconds: float) -> dict[str, Any]:
    """What every report holds: settings, time, every clip's scores, the tracker's check on the ground truth and
    the autoencoder ceiling."""
    return {
        "settings": {k: v for k, v in vars(ev).items() if k != "data"} | {"data": ev.data.config},
        "seconds": seconds,
        "ground_truth_tracking": figure_of([c["ground_truth"] for c in clips], ev),
        "autoencoder_ceiling": figure_of([c["autoencoder"] for c in clips], ev),
        "clips": clips,
    }


def summarise_autoencoder(clips: list[dict[str, Any]], ev: TinyEvaluation, seconds: float) -> dict[str, Any]:
    """The report of an autoencoder-only evaluation: :func:`report_head` and the ceiling by scene kind."""
    return report_head(clips, ev, seconds) | {
        "autoencoder_by_scene": {kind: figure_of([c["autoencoder"] for c in clips if c["scene"] == kind], ev)
                                 for kind, _ in SCENE_KINDS},
    }


def summarise(clips: list[dict[str, Any]], ev: TinyEvaluation, sigma_rel: dict[int, float],
              seconds: float) -> dict[str, Any]:
    """The report of a whole evaluation: :func:`report_head`, control throughout and none, the release sweep,
    whether uncontrolled clips follow the prompt's direction, and control throughout by scene kind."""
    n = len(clips)

    def figure(key_fn, subset=clips) -> dict[str, Any]:
        return figure_of([key_fn(c) for c in subset], ev)

    by_scene = {}
    for kind, _ in SCENE_KINDS:
        subset = [c for c in clips if c["scene"] == kind]
        by_scene[kind] = {"autoencoder_ceiling": figure(lambda c: c["autoencoder"], subset),
                          "full_control": figure(lambda c: c["release"][str(ev.num_steps)], subset)}

    sweep = []
    for step in ev.release_steps:
        f = figure(lambda c, s=step: c["release"][str(s)])
        sweep.append({"release_step": step, "sigma_rel": sigma_rel.get(step), **f})
    follows = [c["no_control_direction"] == c["direction"] for c in clips]
    still = [c["no_control_direction"] == 0 for c in clips]
    return report_head(clips, ev, seconds) | {
        "full_control": figure(lambda c: c["release"][str(ev.num_steps)]),
        "no_control": figure(lambda c: c["release"]["0"]),
        "no_control_direction": {"clips": n, "follows_prompt": int(sum(follows)),
                                 "share_follows_prompt": float(np.mean(follows)) if n else None,
                                 "no_sideways_motion": int(sum(still))},
        "release_sweep": sweep,
        "full_control_by_scene": by_scene,
    }
