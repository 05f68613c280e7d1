"""Overhead of the critic's own machinery (no specialist work): rules planning, static validation, gated
execution with instant fake specialists, aggregation, and writing the run directory (JSON + report).

    python benchmarks/critic_plan.py [--repeat 20]

Prints milliseconds per prompt for each stage, best of ``--repeat``; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# This folder holds benchmarks/critic.py, named like the package it measures: keep the folder off the import
# path before the project's imports below.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from critic.aggregator import Aggregator  # noqa: E402
from critic.executor import Executor  # noqa: E402
from critic.plan import validate_plan  # noqa: E402
from critic.planners.rules import RulesPlanner  # noqa: E402
from critic.report import write_outputs  # noqa: E402
from critic.testing import FakeGrounder, ScriptedSpecialist, fake_video  # noqa: E402

PROMPTS = [
    "A red ball falls, then bounces twice on the floor.",
    "A blue ball bounces off the wall, then lands on the floor with a thud as it lands.",
    "Three small red balls roll to the left and collide with the green cube.",
    "A sign reading 'OPEN' hangs on the wall while a domino topples.",
]


def best_ms(repeat: int, fn) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    planner = RulesPlanner()
    spec = ScriptedSpecialist({"default": {"state": "supported", "window": [2, 3],
                                           "windows": {k: [2, 3] for k in ("airborne", "contact", "rest", "motion",
                                                                            "onset")}}})
    specialists = ({k: spec for k in ("measure", "count", "scene", "read", "hear", "depth", "judge")}
                   | {"ground": FakeGrounder()})
    video = fake_video(num_frames=81, fps=16, height=480, width=848, audio=True)
    print(f"{'prompt':<40} {'ops':>4} {'plan ms':>8} {'valid ms':>9} {'exec ms':>8} {'agg ms':>7} {'write ms':>9}")
    for prompt in PROMPTS:
        t_plan, result = best_ms(args.repeat, lambda: planner.plan(prompt))
        plan = result.plan
        t_val, _ = best_ms(args.repeat, lambda: validate_plan(plan))
        t_exec, ex = best_ms(args.repeat, lambda: Executor(specialists).run(plan, video))
        agg = Aggregator()
        t_agg, verdict = best_ms(args.repeat, lambda: agg.aggregate(plan, ex.records))
        with tempfile.TemporaryDirectory() as d:
            t_write, _ = best_ms(max(1, args.repeat // 10), lambda: write_outputs(
                d, plan, list(ex.records.values()), verdict, video=video, results=ex.results, timings=ex.timings()))
        print(f"{prompt[:40]:<40} {len(plan.operations):>4} {t_plan:>8.2f} {t_val:>9.2f} {t_exec:>8.2f} "
              f"{t_agg:>7.2f} {t_write:>9.1f}")


if __name__ == "__main__":
    main()
