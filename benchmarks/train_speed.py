"""How long the shipped tiny model's recipe would take to train on this machine, from a few timed steps.

    python benchmarks/train_speed.py [--clips 8] [--steps 6] [--threads 1] [OVERRIDE ...]

The recipe (``conf/train_app.yaml`` with its ``train/*`` groups; Hydra overrides after the options, e.g.
``train.transformer.steps=3000``) is timed stage by stage on a small
sample, one torch thread as in training:

* data: ``--clips`` clips rendered by the data config's sampler (into a temporary folder);
* autoencoder: ``--steps`` steps on ball-centred crops and ``--steps`` on whole frames (the two kinds of step the
  stage takes, at very different costs);
* encode: the sample's clips encoded as the encode stage does (its one-time costs spread over the sample);
* transformer: ``--steps`` flow-matching steps at the recipe's batch size, text encoder trained with it.

Each stage's median time per unit (after one warm-up unit, whose cost includes allocations) is scaled to the
recipe's counts and the projected total is set against the 90-minute budget and the shipped model's measured
time (``generate/pretrained/training_summary.json``). Prints figures; asserts nothing. A full training takes
the projected time; this takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from diffusers import AutoencoderKLWan
from hydra import compose, initialize_config_dir
from hydra.errors import HydraException
from hydra.utils import instantiate

from generate.data import make_clip
from generate.train.config import TransformerTraining, VAETraining
from generate.train.encode import encode_dataset
from generate.train.models import assemble_pipeline, build_text_encoder, build_transformer
from generate.train.records import MetricsLog
from generate.train.transformer import train_transformer
from generate.train.vae import train_vae
from veriphy.hydra_app import configure_threads

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MIN = 90.0


def per_unit(seconds: list[float]) -> float:
    """Median seconds per unit, leaving out the first (warm-up) one when there are others (the median, as a
    shared CPU's speed drifts from step to step)."""
    return statistics.median(seconds[1:] if len(seconds) > 1 else seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=8, help="clips rendered and encoded (>= 2)")
    parser.add_argument("--steps", type=int, default=6, help="timed steps per training stage and step kind (>= 2)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of conf/train_app.yaml")
    args = parser.parse_args()
    if args.clips < 2 or args.steps < 2:
        parser.error("--clips and --steps must be at least 2 (the first unit is a warm-up)")

    configure_threads(args.threads)
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        try:
            cfg = compose(config_name="train_app", overrides=args.overrides)
        except HydraException as err:
            parser.error(f"conf/train_app.yaml: {err}")
    data = instantiate(cfg.train.data)
    vae_cfg: VAETraining = instantiate(cfg.train.vae)
    tr_cfg: TransformerTraining = instantiate(cfg.train.transformer)
    seed = int(cfg.seed)
    print(f"train speed: {args.clips} clips, {args.steps} steps per stage, {torch.get_num_threads()} thread(s)")

    # ---- data: clips rendered one at a time, as ClipDataset.build does
    clip_s = []
    clips = []
    for i in range(args.clips):
        tic = time.perf_counter()
        clips.append(make_clip(data.sampler, data.seed, i))
        clip_s.append(time.perf_counter() - tic)
    arrays = {key: np.stack([getattr(c, key) for c in clips])
              for key in ("rgb", "control", "mask", "centers_px")}
    prompts = [c.prompt for c in clips]

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)

        # ---- autoencoder: crop steps (all but the last full_frame_steps) and whole-frame steps
        def vae_step_seconds(steps: int, full_frame_steps: int) -> list[float]:
            short = replace(vae_cfg, steps=steps, full_frame_steps=full_frame_steps, checkpoint_every=10 ** 9,
                            log_every=1)
            folder = work / f"vae_{full_frame_steps}"
            folder.mkdir()
            train_vae(short, arrays, folder, seed=seed, log=MetricsLog(folder / "metrics.jsonl"),
                        progress=False)
            stamps = [0.0] + [json.loads(line)["seconds"] for line in (folder / "metrics.jsonl").open()]
            return [b - a for a, b in zip(stamps, stamps[1:])]

        crop_steps = max(0, vae_cfg.steps - vae_cfg.full_frame_steps) if vae_cfg.crop_px else 0
        full_steps = vae_cfg.steps - crop_steps
        crop_s = vae_step_seconds(args.steps, 0) if crop_steps else []
        full_s = vae_step_seconds(args.steps, args.steps)

        # ---- encode: the autoencoder of the whole-frame run (trained weights do not change the cost)
        vae = AutoencoderKLWan.from_pretrained(work / f"vae_{args.steps}" / "vae_final").eval()
        tokenizer = tr_cfg.tokenizer
        text_encoder = build_text_encoder(tr_cfg.text_encoder, seed, tokenizer)
        pipe = assemble_pipeline(vae, text_encoder, build_transformer(tr_cfg.model, seed), tokenizer=tokenizer,
                                   flow_shift=tr_cfg.flow_shift)
        tic = time.perf_counter()
        encoded = encode_dataset(pipe, arrays, prompts, max_sequence_length=tr_cfg.max_sequence_length,
                                   embed_text=not tr_cfg.train_text_encoder, progress=False)
        encode_s = [(time.perf_counter() - tic) / args.clips]  # per clip, one-time costs spread over the sample

        # ---- transformer
        short = replace(tr_cfg, checkpoint_every=10 ** 9, log_every=1)
        tfolder = work / "transformer"
        tfolder.mkdir()
        train_transformer(short, encoded, tfolder, seed=seed, log=MetricsLog(tfolder / "metrics.jsonl"),
                            progress=False, stop_step=args.steps, text_encoder=text_encoder)
        stamps = [0.0] + [json.loads(line)["seconds"] for line in (tfolder / "metrics.jsonl").open()]
        transformer_s = [b - a for a, b in zip(stamps, stamps[1:])]

    rows = [
        ("data", "clip", per_unit(clip_s), data.num_clips),
        ("autoencoder, crop steps", "step", per_unit(crop_s) if crop_s else 0.0, crop_steps),
        ("autoencoder, whole-frame steps", "step", per_unit(full_s), full_steps),
        ("encode", "clip", per_unit(encode_s), data.num_clips),
        ("transformer", "step", per_unit(transformer_s), tr_cfg.steps),
    ]
    print(f"  {'stage':32s} {'s/unit':>8s} {'units':>7s} {'projected min':>14s}")
    total = 0.0
    for name, unit, seconds, count in rows:
        minutes = seconds * count / 60.0
        total += minutes
        print(f"  {name:32s} {seconds:8.3f} {count:7d} {minutes:14.1f}   (per {unit})")
    verdict = "within" if total <= BUDGET_MIN else "OVER"
    print(f"  projected total: {total:.1f} min ({verdict} the {BUDGET_MIN:.0f}-min budget)")
    shipped = ROOT / "generate" / "pretrained" / "training_summary.json"
    if shipped.is_file():
        summary = json.loads(shipped.read_text())
        t = summary.get("timings_s", {})
        parts = ", ".join(f"{k} {v / 60:.1f}" for k, v in t.items())
        print(f"  shipped model, measured where it was trained: {summary['total_seconds'] / 60:.1f} min ({parts})")


if __name__ == "__main__":
    main()
