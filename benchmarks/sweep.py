"""Naive vs prefix-shared release sweep: denoising steps and wall time through the experiments' executors.

    python benchmarks/sweep.py [--num-steps 30] [--points 11] [--size 32x32x9] [--repeats 1]

Eleven release points i* = 0, 3, ..., 30 at N = 30 on the tiny generator (random weights, CPU, one thread).
The naive executor runs each clip from scratch; the prefix-shared executor computes the group from one
controlled run (the first job) and the other ten jobs read its cache. Both sweeps' clips are compared byte
for byte. Goal: prefix-shared <= 0.6x the naive cost.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from control.depth import DepthControl
from experiments.executors import ClipRequest, NaiveExecutor, PrefixSharedExecutor
from experiments.scene import VideoSize, simulate_scene
from generate.models import TinyGenerator
from generate.sweep import naive_transformer_calls, sweep_transformer_calls
from sim.scenes import thrown_ball


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-steps", type=int, default=30)
    parser.add_argument("--points", type=int, default=11)
    parser.add_argument("--size", default="32x32x9", help="WIDTHxHEIGHTxFRAMES")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    w, h, t = (int(v) for v in args.size.split("x"))
    scene = simulate_scene(thrown_ball(), VideoSize(width=w, height=h, num_frames=t, fps=8.0), DepthControl(progress=False))
    n = args.num_steps
    steps = sorted({int(round(v)) for v in np.linspace(0, n, args.points)})
    pipe = TinyGenerator(pretrained_dir=None).load()
    gen = {"progress": False}

    def request(i: int, shared: Path) -> ClipRequest:
        return ClipRequest(control=scene.control, prompt="A red ball is thrown and bounces.", seed=0, num_steps=n,
                           release_step=i, group_release_steps=tuple(steps), shared_dir=shared, extra=gen)

    # Warm-up (first-call allocations, text encoder) outside the timings.
    NaiveExecutor()(request(n, None), lambda: pipe)

    # Transformer forwards are counted by the probe's own counter (measured, not derived from formulas).
    counter = pipe.transformer
    with tempfile.TemporaryDirectory() as tmp:
        counter.forward_calls = 0
        tic = time.perf_counter()
        naive = {i: NaiveExecutor()(request(i, None), lambda: pipe) for i in steps}
        naive_s = time.perf_counter() - tic
        naive_calls = counter.forward_calls
        counter.forward_calls = 0
        tic = time.perf_counter()
        shared = {i: PrefixSharedExecutor()(request(i, Path(tmp)), lambda: pipe) for i in steps}
        shared_s = time.perf_counter() - tic
        shared_calls = counter.forward_calls
    identical = all(np.array_equal(naive[i].frames, shared[i].frames) for i in steps)
    cfg = True  # the tiny pipeline runs classifier-free guidance (two forwards per step)
    expected = (naive_transformer_calls(n, steps, cfg), sweep_transformer_calls(n, steps, cfg))
    if (naive_calls, shared_calls) != expected:
        print(f"  note: measured forwards {naive_calls}/{shared_calls} differ from the expected {expected}")
    print(f"release sweep: {len(steps)} points i* = {steps}, N = {n}, {w}x{h}x{t}, tiny generator, "
          f"{args.threads} thread(s)")
    print(f"  naive:          {naive_calls // 2:4d} denoising steps ({naive_calls} transformer forwards), "
          f"{naive_s:7.2f} s")
    print(f"  prefix-shared:  {shared_calls // 2:4d} denoising steps ({shared_calls} transformer forwards), "
          f"{shared_s:7.2f} s")
    print(f"  ratio prefix/naive: steps {shared_calls / naive_calls:.3f}, wall time {shared_s / naive_s:.3f} "
          f"(goal <= 0.6)")
    print(f"  clips identical: {identical}")


if __name__ == "__main__":
    main()
