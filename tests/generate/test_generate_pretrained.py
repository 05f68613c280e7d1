"""The shipped tiny model (generate/pretrained/): loads offline as a stock diffusers pipeline, is small, says
how it was made, is what the ``tiny`` generator loads by default, and generates a clip from a depth control."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from control.types import ControlVideo
from experiments.evaluate_tiny.card import card_parts
from experiments.tracking import CriticObjectTracker
from generate.data import prompt_tokenizer
from generate.models import TinyGenerator
from generate.pipeline import generate_clip

ROOT = Path(__file__).resolve().parents[2]
PRETRAINED = ROOT / "generate" / "pretrained"
MAX_BYTES = 25 * 1024 * 1024

pytestmark = pytest.mark.skipif(not (PRETRAINED / "model_index.json").is_file(),
                                reason="no shipped model yet (python -m generate.train export_dir=generate/pretrained)")


@pytest.fixture(scope="module")
def pipe():
    from diffusers import WanVACEPipeline

    torch.set_num_threads(1)
    return WanVACEPipeline.from_pretrained(PRETRAINED, local_files_only=True)


def test_directory_is_small_safetensors_with_a_card():
    size = sum(p.stat().st_size for p in PRETRAINED.rglob("*") if p.is_file())
    assert size <= MAX_BYTES, f"{size / 2**20:.1f} MB"
    weights = list(PRETRAINED.rglob("*.safetensors"))
    assert {p.parent.name for p in weights} >= {"transformer", "vae", "text_encoder"}
    assert not list(PRETRAINED.rglob("*.bin")) and not list(PRETRAINED.rglob("*.pt"))
    card = (PRETRAINED / "MODEL_CARD.md").read_text()
    for needle in ("python -m generate.train", "Seed:", "Data:", "Training time:"):
        assert needle in card
    # Its measured section is the evaluation's, written by `experiments.evaluate_tiny card=...`, never a stub.
    _, section, _ = card_parts(PRETRAINED / "MODEL_CARD.md")
    assert "Not evaluated yet" not in section and "| control throughout (i* = N) |" in section
    assert (PRETRAINED / "evaluation" / "report.md").is_file()
    index = json.loads((PRETRAINED / "model_index.json").read_text())
    assert index["_class_name"] == "WanVACEPipeline"


def test_tokenizer_is_the_prompt_vocabulary_it_was_trained_on(pipe):
    """The shipped word ids are the code's: a change to the prompt templates' words needs a retrained model."""
    assert pipe.tokenizer.get_vocab() == prompt_tokenizer().get_vocab()
    assert pipe.text_encoder.config.vocab_size == len(pipe.tokenizer)


def test_loads_as_float32_and_the_tiny_generator_uses_it(pipe):
    assert pipe.transformer.dtype == torch.float32 and pipe.vae.dtype == torch.float32
    loaded = TinyGenerator(pretrained_dir="pretrained").load()
    assert loaded.veriphy_model_id.startswith("tiny-pretrained")
    a = dict(pipe.transformer.named_parameters())["proj_out.weight"]
    b = dict(loaded.transformer.named_parameters())["proj_out.weight"]
    torch.testing.assert_close(a, b)


@pytest.mark.parametrize("direction", [1, -1])
def test_generates_a_clip_that_follows_the_control(pipe, direction):
    """A depth disc thrown left to right (or back): the ball of the generated clip, found by the critic's tracker,
    moves with it (Pearson r of x >= 0.9 over the frames it is seen in, seen in most frames). Prompt length and
    guidance from the ``tiny`` generator's config, 20 steps."""
    from omegaconf import OmegaConf

    t, h, w = 17, 64, 64
    yy, xx = np.mgrid[:h, :w]
    frames = np.zeros((t, h, w), np.uint8)
    centers = np.zeros((t, 1, 2))
    for k in range(t):
        cx = 10 + 44 * k / (t - 1) if direction > 0 else 54 - 44 * k / (t - 1)
        cy = 20 + 0.15 * (k - 8) ** 2
        frames[k][(xx - cx) ** 2 + (yy - cy) ** 2 <= 16] = 200
        centers[k, 0] = (cx, cy)
    control = ControlVideo(frames=frames, kind="depth", fps=8.0, object_names=("ball",), centers_px=centers,
                           near_m=np.ones(t), far_m=np.full(t, 2.0))
    side = "right" if direction > 0 else "left"
    settings = OmegaConf.load(ROOT / "conf" / "generator" / "tiny.yaml")
    clip = generate_clip(pipe, control, f"a red ball is thrown to the {side} and bounces; a medium-sized ball on a "
                         "grey floor, pale background", seed=0, num_steps=20,
                         guidance_scale=float(settings.guidance_scale),
                         max_sequence_length=int(settings.max_sequence_length), progress=False)
    assert clip.frames.shape == (t, h, w, 3) and clip.frames.dtype == np.uint8
    track = CriticObjectTracker(subject="ball")(np.asarray(clip.frames), 8.0, centers[:, 0])
    seen = np.asarray(track.visible) & ~np.asarray(track.coasted)
    assert seen.sum() >= 12
    x = np.asarray(track.centroid_px)[seen, 0]
    assert np.corrcoef(x, centers[seen, 0, 0])[0, 1] >= 0.9
