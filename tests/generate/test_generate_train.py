"""The training command's pieces at tiny sizes: data determinism, a few steps of both stages, checkpoint
resume equal to an uninterrupted run, and the exported pipeline loading offline."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from diffusers import WanVACEPipeline
from hydra.utils import instantiate
from omegaconf import OmegaConf

import generate.train.transformer as transformer_stage
import sim.scenes as scenes
from generate.data import SceneSampler, make_clip, mirror_x, prompt_tokenizer, prompt_vocabulary
from generate.probe import ProbedWanVACETransformer3DModel
from generate.tiny import WORD_SPECIAL_TOKENS
from generate.train.encode import prompt_embeddings, prompt_tokens
from generate.train.models import build_text_encoder, build_transformer
from generate.train.run import run_training
from generate.train.vae import ball_crops
from sim.engine import simulate

CONF = Path(__file__).resolve().parents[2] / "conf" / "train"


def smoke(tmp_path: Path):
    data = instantiate(OmegaConf.load(CONF / "data" / "smoke.yaml"), root=str(tmp_path / "cache"))
    vae = instantiate(OmegaConf.load(CONF / "vae" / "smoke.yaml"))
    transformer = instantiate(OmegaConf.load(CONF / "transformer" / "smoke.yaml"))
    return data, vae, transformer


def test_clip_is_a_pure_function_of_seed_and_index():
    sampler = SceneSampler(width_px=32, height_px=32, num_frames=5, fps=4.0, min_radius_px=0.5,
                           min_airborne_frames=2)
    a, b = make_clip(sampler, 3, 1), make_clip(sampler, 3, 1)
    assert a.prompt == b.prompt and np.array_equal(a.rgb, b.rgb) and np.array_equal(a.control, b.control)
    assert a.rgb.shape == (5, 32, 32, 3) and a.control.shape == (5, 32, 32) and a.mask.any()
    side = "right" if a.direction > 0 else "left"
    assert f"to the {side}" in a.prompt
    # The control is the depth video: bright where the ball is, black elsewhere.
    assert a.control[a.mask].min() > 0 and a.control[~a.mask].max() == 0


def test_prompt_tokenizer_gives_each_word_its_own_id():
    """Every word a training prompt can hold has one id (no <unk>), the same words the same ids in any case,
    other words <unk>, and </s> closes the sequence; the text encoder's vocabulary follows the tokenizer."""
    tok = prompt_tokenizer()
    unk, eos = tok.convert_tokens_to_ids("<unk>"), tok.eos_token_id
    vocabulary = prompt_vocabulary()
    assert len(tok) == len(vocabulary) + len(WORD_SPECIAL_TOKENS)
    assert {"purple", "left", "right", "wall", "ramp", "sized", ";"} <= set(vocabulary)
    ids = tok("a purple ball is thrown to the left, hits the wall and bounces; a medium-sized ball").input_ids
    assert unk not in ids and ids[-1] == eos and len(ids) == 21
    assert tok("A PURPLE Ball").input_ids == tok("a purple ball").input_ids
    left, right = tok("to the left").input_ids, tok("to the right").input_ids
    assert left[:2] == right[:2] and left[2] != right[2]
    assert tok("a zebra").input_ids == [tok.convert_tokens_to_ids("a"), unk, eos]
    assert prompt_tokenizer().get_vocab() == tok.get_vocab()
    tr_cfg = instantiate(OmegaConf.load(CONF / "transformer" / "smoke.yaml"))
    assert build_text_encoder(tr_cfg.text_encoder, 0, tok).config.vocab_size == len(tok)
    with pytest.raises(ValueError, match="vocab_size"):
        build_text_encoder({**tr_cfg.text_encoder, "vocab_size": 384}, 0, tok)


def test_mirror_reverses_the_direction():
    spec = scenes.thrown_ball(fps=8.0, num_frames=9, target_x_m=None)
    right = np.asarray(simulate(spec).position_m)[0]
    left = np.asarray(simulate(mirror_x(spec)).position_m)[0]
    np.testing.assert_allclose(left[:, 0], -right[:, 0], atol=1e-6)
    np.testing.assert_allclose(left[:, 2], right[:, 2], atol=1e-6)


@pytest.mark.parametrize("train_text_encoder", [True, False])
def test_training_runs_exports_and_loads_offline(tmp_path, train_text_encoder):
    data, vae_cfg, tr_cfg = smoke(tmp_path)
    tr_cfg = replace(tr_cfg, train_text_encoder=train_text_encoder)
    res = run_training(data=data, vae_cfg=vae_cfg, transformer_cfg=tr_cfg, workdir=tmp_path / "work",
                       seed=0, export_dir=tmp_path / "shipped", command="test", progress=False)
    assert (tmp_path / "shipped" / "MODEL_CARD.md").is_file()
    assert list((tmp_path / "shipped").rglob("*.safetensors"))
    card = (tmp_path / "shipped" / "MODEL_CARD.md").read_text()
    assert "Command: `test`" in card
    assert ("trained with the transformer" if train_text_encoder else "frozen at its seeded random") in card
    pipe = WanVACEPipeline.from_pretrained(tmp_path / "shipped", local_files_only=True)
    # The VAE carries the latent statistics measured on the data (not the identity normalisation).
    assert pipe.vae.config.latents_std != [1.0] * len(pipe.vae.config.latents_std)
    assert res.summary["transformer"]["steps"] == tr_cfg.steps
    stages = [line for line in (tmp_path / "work" / "metrics.jsonl").read_text().splitlines()]
    assert any('"vae"' in s for s in stages) and any('"transformer"' in s for s in stages)


def test_resume_equals_an_uninterrupted_run(tmp_path, monkeypatch):
    data, vae_cfg, tr_cfg = smoke(tmp_path)
    kwargs = dict(data=data, vae_cfg=vae_cfg, transformer_cfg=tr_cfg, seed=0, export_dir=None, command="test",
                  progress=False)
    run_training(workdir=tmp_path / "straight", **kwargs)

    # Interrupt the second run right after its first transformer checkpoint, then run it again.
    real_save = transformer_stage.save_state

    def crash_after_first_transformer_checkpoint(path, state):
        real_save(path, state)
        if Path(path).name == "transformer_state.pt":
            raise KeyboardInterrupt

    monkeypatch.setattr(transformer_stage, "save_state", crash_after_first_transformer_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        run_training(workdir=tmp_path / "resumed", **kwargs)
    assert torch.load(tmp_path / "resumed" / "transformer_state.pt", weights_only=False)["step"] == \
        tr_cfg.checkpoint_every
    monkeypatch.setattr(transformer_stage, "save_state", real_save)
    run_training(workdir=tmp_path / "resumed", **kwargs)

    a = torch.load(tmp_path / "straight" / "transformer_state.pt", weights_only=False)
    b = torch.load(tmp_path / "resumed" / "transformer_state.pt", weights_only=False)
    assert a["step"] == b["step"] == tr_cfg.steps
    assert tr_cfg.train_text_encoder  # the smoke config trains the text encoder too: its state resumes as well
    for part in ("ema", "text_encoder_ema"):
        for key in a[part]:
            torch.testing.assert_close(a[part][key], b[part][key], rtol=0, atol=0)

    # The exported pipelines are the same files, byte for byte (the card alone differs: it states the timings),
    # though the resumed run loaded its autoencoder from the work folder rather than training it.
    straight, resumed = tmp_path / "straight" / "pipeline", tmp_path / "resumed" / "pipeline"
    files = sorted(p.relative_to(straight) for p in straight.rglob("*") if p.is_file() and p.name != "MODEL_CARD.md")
    assert files == sorted(p.relative_to(resumed) for p in resumed.rglob("*")
                           if p.is_file() and p.name != "MODEL_CARD.md")
    for name in files:
        assert (straight / name).read_bytes() == (resumed / name).read_bytes(), name


def test_encoded_latents_are_reused_only_for_the_same_settings(tmp_path, monkeypatch):
    """A work folder's ``encoded.pt`` is kept while its inputs are unchanged and rebuilt when they change (here
    the prompt length), so a changed setting never trains on stale latents."""
    data, vae_cfg, tr_cfg = smoke(tmp_path)
    kwargs = dict(data=data, vae_cfg=vae_cfg, workdir=tmp_path / "work", seed=0, export_dir=None, command="test",
                  progress=False, stop_after="encode")
    run_training(transformer_cfg=tr_cfg, **kwargs)
    cache = tmp_path / "work" / "encoded.pt"
    first = torch.load(cache, weights_only=False)
    assert "text" not in first  # the trained text encoder embeds prompts itself: no frozen table is kept
    assert first["text_ids"].shape[1] == tr_cfg.max_sequence_length
    stamp = cache.stat().st_mtime_ns
    run_training(transformer_cfg=tr_cfg, **kwargs)
    assert cache.stat().st_mtime_ns == stamp

    shorter = replace(tr_cfg, max_sequence_length=tr_cfg.max_sequence_length // 2)
    run_training(transformer_cfg=shorter, **kwargs)
    second = torch.load(cache, weights_only=False)
    assert second["text_ids"].shape[1] == shorter.max_sequence_length and second["key"] != first["key"]
    torch.testing.assert_close(second["x0"], first["x0"], rtol=0, atol=0)
    key_file = tmp_path / "work" / "encoded.key"
    assert key_file.read_text() == second["key"]

    # Back to the first settings: the key file alone tells the cache is stale; it is not loaded to find out.
    def no_load(*args, **kwargs):
        raise AssertionError("a stale cache was loaded")

    monkeypatch.setattr(torch, "load", no_load)
    run_training(transformer_cfg=tr_cfg, **kwargs)
    assert key_file.read_text() == first["key"]


def test_trained_text_encoder_ships_and_prompt_embeddings_match_the_pipeline(tmp_path):
    """The training-side embedding (differentiable) equals the pipeline's ``encode_prompt``, and the shipped
    text encoder is the trained one (not the initialisation)."""
    data, vae_cfg, tr_cfg = smoke(tmp_path)
    run_training(data=data, vae_cfg=vae_cfg, transformer_cfg=tr_cfg, workdir=tmp_path / "work", seed=0,
                 export_dir=None, command="test", progress=False)
    pipe = WanVACEPipeline.from_pretrained(tmp_path / "work" / "pipeline", local_files_only=True)
    prompts = ["a red ball is thrown to the left and bounces", "", "a blue ball rolls down a ramp"]
    ids, attention = prompt_tokens(pipe, prompts, tr_cfg.max_sequence_length)
    with torch.no_grad():
        ours = prompt_embeddings(pipe.text_encoder, ids, attention)
    theirs, _ = pipe.encode_prompt(prompts, do_classifier_free_guidance=False,
                                   max_sequence_length=tr_cfg.max_sequence_length, device="cpu")
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-6)
    initial = build_text_encoder(tr_cfg.text_encoder, 0, tr_cfg.tokenizer)
    moved = [not torch.equal(a, b) for a, b in zip(pipe.text_encoder.state_dict().values(),
                                                   initial.state_dict().values())]
    assert any(moved)
    assert "trained with the transformer" in (tmp_path / "work" / "pipeline" / "MODEL_CARD.md").read_text()


def test_flow_matching_control_dropout_is_the_skip_path():
    """A sample whose control is dropped gets exactly the output of a forward without the VACE branch."""
    tr_cfg = instantiate(OmegaConf.load(CONF / "transformer" / "smoke.yaml"))
    model = build_transformer(tr_cfg.model, 0).eval()
    x = torch.randn(2, 4, 2, 4, 4)
    ctrl = torch.randn(2, tr_cfg.model["vace_in_channels"], 2, 4, 4)
    text = torch.randn(2, 8, tr_cfg.model["text_dim"])
    t = torch.tensor([500.0, 500.0])
    n = len(model.config.vace_layers)
    scale = torch.tensor([1.0, 0.0]).view(1, 2, 1, 1).expand(n, 2, 1, 1)
    with torch.no_grad():
        mixed = model(x, t, text, control_hidden_states=ctrl, control_hidden_states_scale=scale,
                      return_dict=False)[0]
        on = model(x, t, text, control_hidden_states=ctrl, return_dict=False)[0]
        probed = ProbedWanVACETransformer3DModel.adopt(model)
        probed.control_enabled = False
        off = probed(x, t, text, control_hidden_states=ctrl, return_dict=False)[0]
    torch.testing.assert_close(mixed[0], on[0])
    torch.testing.assert_close(mixed[1], off[1])


def test_ball_crops_follow_the_ball():
    rgb = np.zeros((1, 3, 16, 16, 3), np.uint8)
    mask = np.zeros((1, 3, 16, 16), bool)
    mask[0, :, 10:12, 12:14] = True
    centers = np.tile(np.array([[12.5, 10.5]]), (1, 3, 1))
    g = torch.Generator().manual_seed(0)
    _, m = ball_crops(rgb, mask, centers, 8, g)
    assert m.shape == (1, 3, 8, 8) and m.any()
