"""Time per denoising step with the control on and withdrawn (VACE branch skipped), and peak memory.

    python benchmarks/withdrawal.py                       # 8 layers, 4 VACE blocks, 33x128x128, CPU
    python benchmarks/withdrawal.py --vace 8 --repeats 7  # other sizes; --device cuda on a GPU

A step is one scheduler step with classifier-free guidance (two transformer forwards). Controlled and
withdrawn steps are timed alternately (so machine load hits both alike) and the median is reported. Skipping
removes exactly the VACE share of the forward, so the ideal ratio is about L / (L + V) for L transformer blocks
and V VACE blocks (plus the shared embeddings and head): 8/12 = 0.67 here; Wan2.1-VACE-1.3B (30 + 15 blocks)
~0.67, Wan2.1-VACE-14B (40 + 8) ~0.83. Peak memory is the process's peak RSS on CPU (each mode in its own
process) or torch's peak allocation on CUDA.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from control.types import ControlVideo
from generate.pipeline import denoise_step, prepare
from generate.probe import make_probeable
from generate.sweep import naive_transformer_calls, sweep_transformer_calls
from generate.tiny import build_tiny_pipeline

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def build(args):
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    pipe = build_tiny_pipeline(seed=0, num_layers=args.layers, num_vace_layers=args.vace, num_heads=args.heads,
                               head_dim=args.head_dim, ffn_dim=args.ffn, z_dim=args.z_dim)
    make_probeable(pipe).to(args.device)
    t, h, w = args.frames, args.size, args.size
    frames = np.zeros((t, h, w), np.uint8)
    for k in range(t):
        x = int(k * (w - 24) / max(t - 1, 1))
        frames[k, h // 3: h // 3 + 20, x: x + 24] = 200
    control = ControlVideo(frames=frames, kind="depth", fps=16.0, object_names=("ball",),
                           centers_px=np.zeros((t, 1, 2)), near_m=np.ones(t), far_m=np.ones(t))
    return pipe, control


def time_steps(args, modes=("controlled", "withdrawn")):
    import copy

    import torch

    pipe, control = build(args)
    prep = prepare(pipe, control, "a red ball is thrown and bounces on the floor", seed=0, num_steps=30,
                   max_sequence_length=64)
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    times = {m: [] for m in modes}
    for rep in range(args.repeats + 1):  # the first round warms up
        for mode in modes:
            sched = copy.deepcopy(prep.scheduler)
            sync()
            tic = time.perf_counter()
            denoise_step(pipe, prep, sched, prep.initial_latents, 0, control=mode == "controlled")
            sync()
            if rep:
                times[mode].append(time.perf_counter() - tic)
    return {m: statistics.median(v) for m, v in times.items()}


def peak_memory_child(args, mode: str) -> float:
    """Peak memory (MiB) of a process that builds the model and runs steps in one mode only."""
    cmd = [sys.executable, __file__, "--child", mode, *sys.argv[1:]]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["peak_mib"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--vace", type=int, default=4, help="number of VACE blocks")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=32)
    ap.add_argument("--ffn", type=int, default=512)
    ap.add_argument("--z-dim", type=int, default=16)
    ap.add_argument("--frames", type=int, default=33)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        import resource

        import torch

        args.repeats = 1
        if args.device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        time_steps(args, modes=(args.child,))
        if args.device.startswith("cuda"):
            peak = torch.cuda.max_memory_allocated() / 2**20
        else:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"peak_mib": peak}))
        return

    med = time_steps(args)
    ratio = med["withdrawn"] / med["controlled"]
    ideal = args.layers / (args.layers + args.vace)
    print(f"tiny WanVACE: {args.layers} layers, {args.vace} VACE blocks, width {args.heads * args.head_dim}, "
          f"{args.frames}x{args.size}x{args.size} (T x H x W), device {args.device}, {args.threads} thread(s)")
    print(f"  time per denoising step (2 forwards, CFG), median of {args.repeats}:")
    print(f"    controlled: {med['controlled'] * 1e3:8.1f} ms")
    print(f"    withdrawn:  {med['withdrawn'] * 1e3:8.1f} ms   ratio {ratio:.3f} "
          f"(ideal ~L/(L+V) = {ideal:.3f}; goal <= 0.6)")
    mem = {m: peak_memory_child(args, m) for m in ("controlled", "withdrawn")}
    unit = "torch allocated" if args.device.startswith("cuda") else "process RSS, control encoding included"
    print(f"  peak memory ({unit}): controlled {mem['controlled']:.0f} MiB, withdrawn {mem['withdrawn']:.0f} MiB")
    tokens = ((args.frames - 1) // 4 + 1) * (args.size // 16) ** 2
    hint_mib = tokens * args.heads * args.head_dim * 4 / 2**20
    print(f"  VACE hints held during a controlled forward: {args.vace} x {tokens} tokens x "
          f"{args.heads * args.head_dim} = {args.vace * hint_mib:.1f} MiB (fp32); freed when withdrawn")
    steps = list(range(0, 31, 2))
    print(f"  release sweep of {len(steps)} points at N=30: transformer calls naive "
          f"{naive_transformer_calls(30, steps)}, prefix-shared {sweep_transformer_calls(30, steps)}")


if __name__ == "__main__":
    main()
