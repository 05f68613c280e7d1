"""Stage 3: every clip once through the frozen autoencoder and text encoder, and the cache of the result.

The cache (``encoded.pt``) is keyed by everything the encoding depends on (:func:`encoding_key`); the key is
also written beside it (``encoded.key``, a few bytes), so a cache of other settings is recognised without
loading its hundreds of MB; a cache without that file is checked by its own ``key``."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from diffusers.pipelines.wan.pipeline_wan_vace import prompt_clean
from tqdm import tqdm

from control.types import ControlVideo
from generate.pipeline import control_images
from generate.train.config import TransformerTraining, VAETraining
from generate.train.models import to_video_tensor
from generate.train.records import save_state
from veriphy.files import atomic_write_bytes
from veriphy.hashing import sha256_json

CACHE = "encoded.pt"
CACHE_KEY = "encoded.key"


@torch.no_grad()
def encode_dataset(pipe, arrays: dict[str, np.ndarray], prompts: list[str], *, max_sequence_length: int,
                   embed_text: bool = True, progress: bool = True) -> dict[str, torch.Tensor]:
    """``x0`` (N, z, T', h, w) normalised latents; ``control`` (N, 2z + s^2, T', h, w) conditioning latents as
    the pipeline builds them; ``ball`` (N, 1, T', h, w) the ball's latent cells; the P distinct prompts plus the
    empty one (row P, the unconditional branch of guidance) as ``text_ids``/``text_mask`` (P+1, L) tokens and,
    with ``embed_text`` (a frozen text encoder), ``text`` (P+1, L, D) their embeddings by the initial text
    encoder; ``text_index`` (N,) a clip's row."""
    vae = pipe.vae
    z_dim = vae.config.z_dim
    mean = torch.tensor(vae.config.latents_mean).view(1, z_dim, 1, 1, 1)
    std = torch.tensor(vae.config.latents_std).view(1, z_dim, 1, 1, 1)
    n, t, h, w = arrays["control"].shape
    latents_mean = mean.view(z_dim)
    latents_std = std.view(z_dim)
    x0, ctrl = [], []
    inactive = None
    for i in tqdm(range(n), desc="encode clips", unit="clip", file=sys.stderr, disable=not progress):
        z = vae.encode(to_video_tensor(arrays["rgb"][i:i + 1])).latent_dist.mode()
        x0.append((z - mean) / std)
        control = ControlVideo(frames=arrays["control"][i], kind="depth", fps=1.0, object_names=("ball",),
                               centers_px=np.zeros((t, 1, 2)), near_m=np.zeros(t), far_m=np.zeros(t))
        video, mask = control_images(control)
        video, mask, refs = pipe.preprocess_conditions(video, mask, None, 1, h, w, t, torch.float32, "cpu")
        folded = pipe.prepare_masks(mask, refs, None)
        if inactive is None:
            # The first clip goes through the pipeline's own preparation. With the all-white mask the
            # "inactive" half is the encoding of video * 0, the same for every clip: kept from this one.
            latents = pipe.prepare_video_latents(video, mask, refs, None, "cpu")
            inactive = latents[:, :z_dim].clone()
        else:
            reactive = vae.encode(video * torch.where(mask > 0.5, 1.0, 0.0)).latent_dist.mode()
            reactive = (reactive - latents_mean.view(1, z_dim, 1, 1, 1)) / latents_std.view(1, z_dim, 1, 1, 1)
            latents = torch.cat([inactive, reactive], dim=1)
        ctrl.append(torch.cat([latents, folded], dim=1))
    if n > 1:
        # The shortcut must equal the pipeline's preparation (checked on the last clip).
        reference = pipe.prepare_video_latents(video, mask, refs, None, "cpu")
        torch.testing.assert_close(ctrl[-1][:, :2 * z_dim], reference, rtol=1e-5, atol=1e-5)
    unique = sorted(set(prompts))
    ids, attention = prompt_tokens(pipe, [*unique, ""], max_sequence_length)
    lookup = {p: k for k, p in enumerate(unique)}
    # The ball's footprint on the latent grid: a latent cell is "ball" when any pixel of any frame it covers is.
    vt = pipe.vae_scale_factor_temporal
    vs = pipe.vae_scale_factor_spatial
    mask = torch.from_numpy(arrays["mask"]).float().unsqueeze(1)  # (N, 1, T, H, W)
    mask = torch.cat([mask[:, :, :1].expand(-1, -1, vt, -1, -1), mask], dim=2)  # first frame is its own latent
    ball = F.max_pool3d(mask, kernel_size=(vt, vs, vs), stride=(vt, vs, vs))
    encoded = {"x0": torch.cat(x0).float(), "control": torch.cat(ctrl).float(), "ball": ball,
               "text_ids": ids, "text_mask": attention, "text_index": torch.tensor([lookup[p] for p in prompts])}
    if embed_text:
        encoded["text"] = torch.cat([prompt_embeddings(pipe.text_encoder, ids[lo:lo + 16], attention[lo:lo + 16])
                                     for lo in range(0, ids.shape[0], 16)]).float()
    return encoded


def prompt_tokens(pipe, prompts: list[str], max_sequence_length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and attention mask (P, L) exactly as ``WanVACEPipeline._get_t5_prompt_embeds`` makes them."""
    out = pipe.tokenizer([prompt_clean(p) for p in prompts], padding="max_length", max_length=max_sequence_length,
                         truncation=True, add_special_tokens=True, return_attention_mask=True, return_tensors="pt")
    return out.input_ids, out.attention_mask


def prompt_embeddings(text_encoder, ids: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """(P, L, D) prompt embeddings as the pipeline computes them (the encoder's states up to each prompt's
    length, zeros after it), differentiable, so the text encoder can be trained."""
    states = text_encoder(ids, attention).last_hidden_state
    return states * attention.unsqueeze(-1).to(states.dtype)


def encoding_key(*, data_sha256: str, vae_cfg: VAETraining, transformer_cfg: TransformerTraining, seed: int) -> str:
    """sha256 of everything the encode stage's output depends on: the data, the autoencoder's training (its
    weights are a pure function of it and the seed), the text encoder's initialisation and the prompt length.
    Logging and checkpoint intervals do not count."""
    vae = {k: v for k, v in asdict(vae_cfg).items() if k not in ("checkpoint_every", "log_every")}
    tokenizer = transformer_cfg.tokenizer
    return sha256_json({"data": data_sha256, "vae": vae, "seed": seed, "text_encoder": transformer_cfg.text_encoder,
                        "tokenizer": [type(tokenizer).__name__, sorted(tokenizer.get_vocab().items())],
                        "max_sequence_length": transformer_cfg.max_sequence_length,
                        "embed_text": not transformer_cfg.train_text_encoder})


def load_encoded(workdir: Path, key: str) -> dict[str, Any] | None:
    """The cached encoding in ``workdir`` when it was made with ``key``, else None."""
    cache, key_file = workdir / CACHE, workdir / CACHE_KEY
    stale = key_file.is_file() and key_file.read_text().strip() != key
    encoded = torch.load(cache, weights_only=True) if cache.is_file() and not stale else None
    if stale or (encoded is not None and encoded.get("key") != key):
        # Same work folder, other data/autoencoder/prompt settings: the cached latents would silently be wrong.
        print(f"{cache}: encoded with other settings; encoding again", file=sys.stderr)
        return None
    return encoded


def save_encoded(workdir: Path, key: str, encoded: dict[str, Any]) -> None:
    """Cache ``encoded`` (stamped with ``key``) and its key file in ``workdir``."""
    encoded["key"] = key
    save_state(workdir / CACHE, encoded)
    atomic_write_bytes(workdir / CACHE_KEY, key.encode())
