"""Simulate + render time per scene template: 81 frames at 848x480, one core.

    python benchmarks/sim_render.py [--scenes thrown_ball ramp] [--repeat 3] [--rgb] [--tinyrenderer]

Prints, per scene: simulate (sim.engine.simulate), render (distance + segmentation, analytic ray caster),
depth (percentiles and intensity mapping), their total, and optionally the RGB render and PyBullet's
TinyRenderer for comparison. Times are the best of ``--repeat`` runs (s).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from control.depth import DepthControl  # noqa: E402
from control.render import AnalyticRenderer, TinyRendererBackend  # noqa: E402
from sim import scenes  # noqa: E402
from sim.engine import simulate  # noqa: E402

SCENES = ("thrown_ball", "ramp", "dominoes", "collision")


def best_of(repeat: int, fn):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", nargs="+", default=list(SCENES), choices=SCENES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rgb", action="store_true", help="also time the shaded RGB render")
    parser.add_argument("--tinyrenderer", action="store_true", help="also time PyBullet's TinyRenderer")
    parser.add_argument("--width", type=int, default=848)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--frames", type=int, default=81)
    args = parser.parse_args()

    renderer = AnalyticRenderer(rgb=False, progress=False)
    control = DepthControl(renderer=renderer, progress=False)
    header = f"{'scene':<12} {'simulate':>9} {'render':>8} {'depth':>7} {'total':>7}"
    header += f" {'rgb':>7}" if args.rgb else ""
    header += f" {'tinyrend':>9} {'seg-diff px/frame':>18}" if args.tinyrenderer else ""
    print(f"{args.frames} frames at {args.width}x{args.height}, best of {args.repeat} (s)")
    print(header)
    for name in args.scenes:
        spec = getattr(scenes, name)(num_frames=args.frames)
        spec = spec.model_copy(update={"camera": spec.camera.model_copy(
            update={"width_px": args.width, "height_px": args.height})})
        t_sim, traj = best_of(args.repeat, lambda: simulate(spec))
        t_render, render = best_of(args.repeat, lambda: renderer.render(spec, traj))
        t_depth, video = best_of(args.repeat, lambda: control(spec, traj, render=render))
        row = f"{name:<12} {t_sim:9.3f} {t_render:8.3f} {t_depth:7.3f} {t_sim + t_render + t_depth:7.3f}"
        if args.rgb:
            t_rgb, _ = best_of(args.repeat, lambda: renderer.render(spec, traj, rgb=True))
            row += f" {t_rgb:7.3f}"
        if args.tinyrenderer:
            t_tiny, tiny = best_of(1, lambda: TinyRendererBackend(rgb=False, progress=False).render(spec, traj))
            diff = (tiny.segmentation != render.segmentation).sum(axis=(1, 2)).mean()
            row += f" {t_tiny:9.3f} {diff:18.1f}"
        print(row + f"   [{video.kind}]", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
