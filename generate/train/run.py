"""All training stages in order (:func:`run_training`); each skips what the work folder already holds."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import diffusers
import transformers

from generate.data import dataset_fingerprint
from generate.train.card import model_card
from generate.train.config import TransformerTraining, VAETraining
from generate.train.encode import encode_dataset, encoding_key, load_encoded, save_encoded
from generate.train.export import directory_bytes, export_pipeline
from generate.train.models import assemble_pipeline, build_text_encoder, build_transformer, param_count
from generate.train.records import MetricsLog
from generate.train.transformer import train_transformer
from generate.train.vae import train_vae
from veriphy.files import read_json, write_json


@dataclass
class TrainResult:
    workdir: Path
    pipeline_dir: Path
    summary: dict[str, Any] = field(default_factory=dict)


def run_training(*, data, vae_cfg: VAETraining, transformer_cfg: TransformerTraining, workdir: Path, seed: int,
                 export_dir: Path | None, command: str, metrics_sink=None, progress: bool = True,
                 stop_after: str | None = None, transformer_stop_step: int | None = None,
                 card_notes: str = "") -> TrainResult:
    """All stages in order; each skips what ``workdir`` already holds. ``stop_after`` in {data, vae, encode}
    ends early (for tests and for checking the autoencoder's ceiling before the transformer)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    log = MetricsLog(workdir / "metrics.jsonl", metrics_sink)
    timings_path = workdir / "timings.json"
    timings = read_json(timings_path) if timings_path.is_file() else {}

    def timed(name: str, fn):
        tic = time.perf_counter()
        out = fn()
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - tic
        write_json(timings_path, timings)
        return out

    timed("data", lambda: data.build(progress=progress))
    arrays, index = data.arrays()
    if stop_after == "data":
        return TrainResult(workdir, workdir / "pipeline")
    vae = timed("vae", lambda: train_vae(vae_cfg, arrays, workdir, seed=seed, log=log, progress=progress))
    if stop_after == "vae":
        return TrainResult(workdir, workdir / "pipeline")
    tokenizer = transformer_cfg.tokenizer
    text_encoder = build_text_encoder(transformer_cfg.text_encoder, seed, tokenizer)
    pipe = assemble_pipeline(vae, text_encoder, build_transformer(transformer_cfg.model, seed), tokenizer=tokenizer,
                             flow_shift=transformer_cfg.flow_shift)
    key = encoding_key(data_sha256=dataset_fingerprint(data), vae_cfg=vae_cfg, transformer_cfg=transformer_cfg,
                       seed=seed)
    encoded = load_encoded(workdir, key)
    if encoded is None:
        encoded = timed("encode", lambda: encode_dataset(
            pipe, arrays, [r["prompt"] for r in index], max_sequence_length=transformer_cfg.max_sequence_length,
            embed_text=not transformer_cfg.train_text_encoder, progress=progress))
        save_encoded(workdir, key, encoded)
    if stop_after == "encode":
        return TrainResult(workdir, workdir / "pipeline")
    ema, text_ema, steps_done = timed("transformer", lambda: train_transformer(
        transformer_cfg, encoded, workdir, seed=seed, log=log, progress=progress, stop_step=transformer_stop_step,
        text_encoder=text_encoder))
    pipe = assemble_pipeline(vae, text_encoder if text_ema is None else text_ema, ema, tokenizer=tokenizer,
                             flow_shift=transformer_cfg.flow_shift)
    summary = training_summary(data=data, vae=vae, transformer=ema, vae_cfg=vae_cfg,
                               transformer_cfg=transformer_cfg, steps_done=steps_done, timings=timings, seed=seed,
                               command=command, card_notes=card_notes)
    card = model_card(summary)
    pipeline_dir = export_pipeline(pipe, workdir / "pipeline", card)
    write_json(workdir / "summary.json", summary)
    if export_dir is not None:
        export_pipeline(pipe, Path(export_dir), card)
        write_json(Path(export_dir) / "training_summary.json", summary)
    summary["pipeline_bytes"] = directory_bytes(pipeline_dir)
    return TrainResult(workdir, pipeline_dir, summary)


def training_summary(*, data, vae, transformer, vae_cfg: VAETraining, transformer_cfg: TransformerTraining,
                     steps_done: int, timings: dict[str, float], seed: int, command: str,
                     card_notes: str) -> dict[str, Any]:
    """What made the weights (``summary.json``, ``training_summary.json`` and the model card's source)."""
    sampler = data.sampler
    tokenizer = transformer_cfg.tokenizer
    return {
        "command": command,
        "seed": seed,
        "data": {"num_clips": data.num_clips, "seed": data.seed, "templates": " and ".join(sampler.templates),
                 "width_px": sampler.width_px, "height_px": sampler.height_px, "num_frames": sampler.num_frames,
                 "fps": sampler.fps, "config_sha256": dataset_fingerprint(data)},
        "vae": {"params": param_count(vae), "steps": vae_cfg.steps, "batch_size": vae_cfg.batch_size,
                "seconds": timings.get("vae", 0.0)},
        "transformer": {"params": param_count(transformer), "steps": steps_done,
                        "schedule_steps": transformer_cfg.steps, "batch_size": transformer_cfg.batch_size,
                        "control_dropout": transformer_cfg.control_dropout,
                        "text_dropout": transformer_cfg.text_dropout, "flow_shift": transformer_cfg.flow_shift,
                        "text_encoder_trained": bool(transformer_cfg.train_text_encoder),
                        "max_sequence_length": transformer_cfg.max_sequence_length,
                        "tokenizer": type(tokenizer).__name__, "vocab_size": len(tokenizer),
                        "seconds": timings.get("transformer", 0.0)},
        "total_seconds": sum(timings.values()),
        "notes": card_notes,
        "timings_s": timings,
        "versions": {"diffusers": diffusers.__version__, "transformers": transformers.__version__},
    }
