"""Tiny WanVACE pipelines built in code: the same classes as the real Wan2.1/2.2 VACE models, with small
configs, so every code path (control encoding, withdrawal, two experts, save/reload) runs on a CPU in seconds.

Nothing here reads a file or touches a model hub: the ByT5 tokenizer is byte-level and needs no vocabulary
file (a word-level tokenizer is built from a word list in code), the UMT5 encoder, Wan VAE and VACE transformer
are built from configs with seeded random weights.

The config functions are parametric so that a tiny model can also be trained (sizes are the knobs a training
script wants: width, layers, VACE layers, patch size, latent channels, VAE width).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

from generate.schedulers import unipc_flow_scheduler

# ByT5 has 256 byte ids + 3 special tokens + 125 extra ids = 384 ids.
BYT5_VOCAB_SIZE = 384


# Word-level tokenizer ids: padding 0 and end of sequence 1 as T5's (UMT5Config pad/eos ids), unknown words 2.
WORD_SPECIAL_TOKENS = ("<pad>", "</s>", "<unk>")


def word_tokenizer(words: Iterable[str]):
    """A word-level tokenizer over ``words`` (lowercased; words and punctuation split as
    ``tokenizers.pre_tokenizers.Whitespace`` does: ``medium-sized`` -> ``medium``, ``-``, ``sized``), ``</s>``
    appended, any other word -> ``<unk>``. Ids: the specials, then the words sorted, so the same list gives the
    same ids.

    Why words: a tiny text encoder trained for minutes reads one token per word ("purple", "left") directly,
    where over bytes it must first learn to spell them. Trained the same way, the word model draws the prompt's
    floor and background and keeps the ball under control in more clips than the byte model (model card).
    Saved by ``save_pretrained`` as ``tokenizer.json``; loads offline with the pipeline.
    """
    from tokenizers import Tokenizer, models, processors
    from transformers import PreTrainedTokenizerFast

    vocabulary = sorted({w.lower() for w in words} - set(WORD_SPECIAL_TOKENS))
    if not vocabulary:
        raise ValueError("word_tokenizer needs at least one word")
    ids = {w: i for i, w in enumerate([*WORD_SPECIAL_TOKENS, *vocabulary])}
    backend = Tokenizer(models.WordLevel(ids, unk_token="<unk>"))
    backend.normalizer, backend.pre_tokenizer = word_splitting()
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")


def word_splitting():
    """(normalizer, pre-tokenizer) of :func:`word_tokenizer`: lowercase, then words and punctuation apart. One
    definition, so :func:`split_words` (which builds the vocabulary) splits exactly as the tokenizer does."""
    from tokenizers import normalizers, pre_tokenizers

    return normalizers.Lowercase(), pre_tokenizers.Whitespace()


def split_words(text: str) -> list[str]:
    """``text`` split into words and punctuation as :func:`word_tokenizer` splits it."""
    normalizer, pre_tokenizer = word_splitting()
    return [w for w, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text))]


def evenly_spaced_vace_layers(num_layers: int, num_vace_layers: int) -> list[int]:
    """VACE hint positions as in Wan (every k-th block, starting at block 0: 1.3B has 30 blocks, VACE at 0,2,..,28
    for 15 VACE blocks). ``num_vace_layers`` must be in 1..num_layers."""
    if not 1 <= num_vace_layers <= num_layers:
        raise ValueError(f"num_vace_layers must be in 1..{num_layers}, got {num_vace_layers}")
    stride = num_layers // num_vace_layers
    return [i * stride for i in range(num_vace_layers)]


def tiny_vae_config(*, base_dim: int = 8, z_dim: int = 4, num_levels: int = 4, temporal_levels: int = 2,
                    num_res_blocks: int = 1) -> dict[str, Any]:
    """Config for :class:`diffusers.AutoencoderKLWan`.

    ``num_levels`` resolution levels give a spatial factor of ``2**(num_levels-1)`` (Wan: 4 levels, 8x);
    the first ``temporal_levels`` downsamplings (after the first level) also halve time (Wan: 2, so 4x:
    T frames -> (T-1)/4+1 latent frames). ``z_dim`` latent channels (Wan2.1: 16)."""
    if num_levels < 2 or not 0 <= temporal_levels <= num_levels - 1:
        raise ValueError(f"need num_levels >= 2 and 0 <= temporal_levels <= num_levels-1, got {num_levels}, "
                         f"{temporal_levels}")
    downsamples = num_levels - 1
    # Wan's order: the first spatial downsample keeps time, later ones halve it ([False, True, True]).
    temperal_downsample = [False] * (downsamples - temporal_levels) + [True] * temporal_levels
    return dict(
        base_dim=base_dim,
        z_dim=z_dim,
        dim_mult=[1] * num_levels,
        num_res_blocks=num_res_blocks,
        attn_scales=[],
        temperal_downsample=temperal_downsample,
        # Identity normalisation: the tiny VAE's latents are not calibrated against a data set.
        latents_mean=[0.0] * z_dim,
        latents_std=[1.0] * z_dim,
    )


def vae_scale_factors(vae_config: dict[str, Any]) -> tuple[int, int]:
    """(temporal, spatial) downsampling factors the pipeline derives from a VAE config."""
    td = vae_config["temperal_downsample"]
    return 2 ** sum(bool(x) for x in td), 2 ** len(td)


def tiny_text_encoder_config(*, d_model: int = 32, num_layers: int = 2, num_heads: int = 4, d_ff: int = 64,
                             d_kv: int | None = None) -> dict[str, Any]:
    """Config for :class:`transformers.UMT5EncoderModel` over ByT5 byte ids."""
    return dict(
        vocab_size=BYT5_VOCAB_SIZE,
        d_model=d_model,
        d_kv=d_kv or max(1, d_model // num_heads),
        d_ff=d_ff,
        num_layers=num_layers,
        num_heads=num_heads,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=32,
        dropout_rate=0.0,
        feed_forward_proj="gated-gelu",
        is_encoder_decoder=False,
        use_cache=False,
        pad_token_id=0,
        eos_token_id=1,
    )


def tiny_transformer_config(*, num_layers: int = 2, num_vace_layers: int = 1, num_heads: int = 2,
                            head_dim: int = 8, ffn_dim: int = 32, z_dim: int = 4, vae_spatial_factor: int = 8,
                            patch_size: tuple[int, int, int] = (1, 2, 2), text_dim: int = 32,
                            freq_dim: int = 32, rope_max_seq_len: int = 64,
                            vace_layers: list[int] | None = None) -> dict[str, Any]:
    """Config for :class:`diffusers.WanVACETransformer3DModel` (width = ``num_heads * head_dim``).

    The VACE input is the control video's latents (inactive + reactive halves, ``2*z_dim`` channels) plus the
    mask folded from pixel space (``vae_spatial_factor**2`` channels): 96 for Wan2.1 (16, 8x)."""
    if vace_layers is None:
        vace_layers = evenly_spaced_vace_layers(num_layers, num_vace_layers)
    return dict(
        patch_size=tuple(patch_size),
        num_attention_heads=num_heads,
        attention_head_dim=head_dim,
        in_channels=z_dim,
        out_channels=z_dim,
        text_dim=text_dim,
        freq_dim=freq_dim,
        ffn_dim=ffn_dim,
        num_layers=num_layers,
        cross_attn_norm=True,
        qk_norm="rms_norm_across_heads",
        rope_max_seq_len=rope_max_seq_len,
        vace_layers=list(vace_layers),
        vace_in_channels=2 * z_dim + vae_spatial_factor**2,
    )


def tiny_scheduler(*, flow_shift: float = 3.0):
    """Wan's sampler: UniPC on flow sigmas (see :mod:`generate.schedulers`)."""
    return unipc_flow_scheduler(flow_shift=flow_shift)


def build_tiny_pipeline(*, seed: int = 0, num_layers: int = 2, num_vace_layers: int = 1, num_heads: int = 2,
                        head_dim: int = 8, ffn_dim: int = 32, patch_size: tuple[int, int, int] = (1, 2, 2),
                        z_dim: int = 4, vae_base_dim: int = 8, vae_levels: int = 4, vae_temporal_levels: int = 2,
                        text_dim: int = 32, text_layers: int = 2, two_experts: bool = False,
                        boundary_ratio: float | None = None, flow_shift: float = 3.0,
                        dtype: torch.dtype = torch.float32):
    """A :class:`diffusers.WanVACEPipeline` with seeded random tiny components (stock classes, so that
    ``save_pretrained`` writes a directory shaped exactly like a real Wan VACE one).

    ``two_experts`` adds ``transformer_2`` (same config, different weights) and sets ``boundary_ratio``
    (default 0.875, Wan2.2's value), like Wan2.2 VACE-Fun A14B."""
    from diffusers import AutoencoderKLWan, WanVACEPipeline, WanVACETransformer3DModel
    from transformers import ByT5Tokenizer, UMT5Config, UMT5EncoderModel

    vae_cfg = tiny_vae_config(base_dim=vae_base_dim, z_dim=z_dim, num_levels=vae_levels,
                              temporal_levels=vae_temporal_levels)
    _, spatial = vae_scale_factors(vae_cfg)
    tr_cfg = tiny_transformer_config(num_layers=num_layers, num_vace_layers=num_vace_layers, num_heads=num_heads,
                                     head_dim=head_dim, ffn_dim=ffn_dim, z_dim=z_dim, vae_spatial_factor=spatial,
                                     patch_size=patch_size, text_dim=text_dim)
    te_cfg = tiny_text_encoder_config(d_model=text_dim, num_layers=text_layers)

    # One seed per component, so changing one component's size does not reshuffle the others' weights.
    torch.manual_seed(seed)
    vae = AutoencoderKLWan(**vae_cfg)
    torch.manual_seed(seed + 1)
    text_encoder = UMT5EncoderModel(UMT5Config(**te_cfg))
    torch.manual_seed(seed + 2)
    transformer = WanVACETransformer3DModel(**tr_cfg)
    transformer_2 = None
    if two_experts:
        torch.manual_seed(seed + 3)
        transformer_2 = WanVACETransformer3DModel(**tr_cfg)
        boundary_ratio = 0.875 if boundary_ratio is None else boundary_ratio
    elif boundary_ratio is not None:
        raise ValueError("boundary_ratio needs two experts (two_experts=True)")

    pipe = WanVACEPipeline(
        tokenizer=ByT5Tokenizer(),
        text_encoder=text_encoder.eval(),
        vae=vae.eval(),
        scheduler=tiny_scheduler(flow_shift=flow_shift),
        transformer=transformer.eval(),
        transformer_2=None if transformer_2 is None else transformer_2.eval(),
        boundary_ratio=boundary_ratio,
    )
    if dtype != torch.float32:
        pipe.transformer.to(dtype)
        if pipe.transformer_2 is not None:
            pipe.transformer_2.to(dtype)
    return pipe
