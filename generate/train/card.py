"""The model card that ships with the weights: what made them (written at export from the training summary)
and a marked section for the measured figures, which ``python -m experiments.evaluate_tiny card=...`` rewrites."""

from __future__ import annotations

from typing import Any

import torch

# The card's measured section lies between these lines; ``python -m experiments.evaluate_tiny card=...`` writes it.
EVALUATION_BEGIN = ("<!-- evaluation: written by python -m experiments.evaluate_tiny card=... "
                    "(do not edit by hand) -->")
EVALUATION_END = "<!-- end of evaluation -->"


def model_card(summary: dict[str, Any]) -> str:
    """The card that ships with the weights: what made them, exactly."""
    s = summary
    lines = [
        "# VeriPhy tiny Wan VACE generator",
        "",
        "A tiny `WanVACEPipeline` (stock diffusers classes) trained from scratch on the project's own simulated",
        "clips. It exists so that the release sweep measures something on a CPU; it is not a general video model.",
        "",
        "## How it was made",
        "",
        f"- Command: `{s['command']}`",
        f"- Seed: {s['seed']}",
        f"- Data: {s['data']['num_clips']} clips (seed {s['data']['seed']}) of {s['data']['templates']}, "
        f"{s['data']['width_px']}x{s['data']['height_px']} px, {s['data']['num_frames']} frames at "
        f"{s['data']['fps']} fps; rendered by `sim`/`control` (`generate.data`); config sha256 "
        f"`{s['data']['config_sha256']}`",
        f"- Autoencoder: `AutoencoderKLWan` {s['vae']['params']:,} parameters, {s['vae']['steps']} steps of "
        f"{s['vae']['batch_size']} full-length clips, {s['vae']['seconds'] / 60:.1f} min",
        f"- Transformer: `WanVACETransformer3DModel` {s['transformer']['params']:,} parameters (EMA weights), "
        f"{s['transformer']['steps']} steps (of a {s['transformer']['schedule_steps']}-step learning-rate "
        f"schedule) of {s['transformer']['batch_size']}, control dropout "
        f"{s['transformer']['control_dropout']}, prompt dropout {s['transformer']['text_dropout']}, flow shift "
        f"{s['transformer']['flow_shift']}, {s['transformer']['seconds'] / 60:.1f} min",
        ("- Text encoder: tiny `UMT5EncoderModel`, trained with the transformer (EMA weights); "
         if s["transformer"]["text_encoder_trained"] else
         "- Text encoder: tiny `UMT5EncoderModel`, frozen at its seeded random initialisation "
         "(the transformer learns to read its features); ")
        + f"tokenizer `{s['transformer']['tokenizer']}` with "
        f"{s['transformer']['vocab_size']} ids (`tokenizer/`); prompts up to "
        f"{s['transformer']['max_sequence_length']} tokens.",
        f"- Training time: {s['total_seconds'] / 60:.1f} min wall on a 2-vCPU machine, one torch thread (the stages "
        "of the last run; a stage resumed from a checkpoint counts only its last leg).",
        f"- Software: torch {torch.__version__}, diffusers {s['versions']['diffusers']}, "
        f"transformers {s['versions']['transformers']}.",
        *([f"- Notes: {s['notes']}"] if s.get("notes") else []),
        "",
        "## Use",
        "",
        f"Generate at {s['data']['height_px']}x{s['data']['width_px']}, {s['data']['num_frames']} frames, with a "
        "depth control video of that size (`control.depth.DepthControl`), e.g. 20 UniPC steps "
        f"(`generate.pipeline.generate_clip`, `max_sequence_length` {s['transformer']['max_sequence_length']} "
        "as in training). Prompts like the training "
        "ones work best: \"a red ball is thrown to the left and bounces; a medium-sized ball on a grey floor, "
        "pale background\".",
        "",
        "Evaluation: `python -m experiments.evaluate_tiny` (retention with control, without it, over a release sweep, and "
        "the autoencoder's own ceiling on held-out scenes).",
        "",
        "## How well it works (held-out scenes, `python -m experiments.evaluate_tiny`)",
        "",
        EVALUATION_BEGIN,
        "Not evaluated yet: `python -m experiments.evaluate_tiny generator.pretrained_dir=<this folder> "
        "card=<this folder>/MODEL_CARD.md` writes the figures here.",
        EVALUATION_END,
        "",
    ]
    return "\n".join(lines)
