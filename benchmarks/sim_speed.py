"""Speed of the sim stage: one solve per scene template (81 frames at 16 fps, 240 Hz physics), the
predicates, and the revision loop with the numeric author. Prints figures; asserts nothing."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from sim import engine, scenes
from sim.authors import NumericAuthor
from sim.io import load_request
from sim.predicates import FallInOrder, LandsInRegion, StaysInFrame, evaluate
from sim.revise import run_revision_loop

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 3


def _time(fn) -> float:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    print(f"sim speed (median of {REPEATS})")
    for make in (scenes.thrown_ball, scenes.ramp, scenes.dominoes, scenes.collision):
        spec = make()
        steps = round(spec.duration_s * spec.physics_hz)
        seconds = _time(lambda: engine.simulate(spec))
        print(f"  simulate {spec.name:12s} {len(spec.objects):2d} objects {steps} steps: {seconds * 1e3:7.1f} ms "
              f"({seconds / steps * 1e6:.0f} us/step)")
    spec = scenes.thrown_ball()
    traj = engine.simulate(spec)
    predicates = [LandsInRegion(object="ball", x_range_m=(1.98, 2.02)), StaysInFrame(), FallInOrder(objects=())]
    print(f"  evaluate 3 predicates (thrown_ball): {_time(lambda: evaluate(predicates, spec, traj)) * 1e3:.2f} ms")
    for name in ("throw_to_target", "throw_to_target_wall_first", "ramp_to_target"):
        request = load_request(ROOT / "conf" / "request" / f"{name}.yaml")
        result = run_revision_loop(request, NumericAuthor(), budget=8)
        seconds = _time(lambda: run_revision_loop(request, NumericAuthor(), budget=8))
        print(f"  revision loop {name:28s} numeric: {result.solves} solve(s), converged={result.converged}, "
              f"{seconds:.2f} s")


if __name__ == "__main__":
    main()
