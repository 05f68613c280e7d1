"""The models being trained, built from the stage settings, and the pipeline that assembles them."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from diffusers import AutoencoderKLWan, WanVACEPipeline, WanVACETransformer3DModel
from transformers import UMT5Config, UMT5EncoderModel

from generate.schedulers import unipc_flow_scheduler


def build_vae(model_cfg: dict[str, Any], seed: int):
    torch.manual_seed(seed)
    return AutoencoderKLWan(**dict(model_cfg))


def build_text_encoder(te_cfg: dict[str, Any], seed: int, tokenizer):
    """The tiny UMT5 encoder over ``tokenizer``'s ids (its ``vocab_size`` is the tokenizer's length)."""
    cfg = dict(te_cfg)
    vocab_size = len(tokenizer)
    if cfg.setdefault("vocab_size", vocab_size) != vocab_size:
        raise ValueError(f"text_encoder.vocab_size {cfg['vocab_size']} does not match the tokenizer's "
                         f"{vocab_size} ids; leave it out")
    torch.manual_seed(seed + 1)
    return UMT5EncoderModel(UMT5Config(**cfg)).eval()


def build_transformer(model_cfg: dict[str, Any], seed: int):
    cfg = dict(model_cfg)
    cfg["patch_size"] = tuple(cfg["patch_size"])
    torch.manual_seed(seed + 2)
    return WanVACETransformer3DModel(**cfg)


def assemble_pipeline(vae, text_encoder, transformer, *, tokenizer, flow_shift: float):
    """A stock ``WanVACEPipeline`` around the given components (UniPC flow scheduler)."""
    return WanVACEPipeline(tokenizer=tokenizer, text_encoder=text_encoder.eval(), vae=vae.eval(),
                           scheduler=unipc_flow_scheduler(flow_shift=flow_shift), transformer=transformer.eval())


def to_video_tensor(rgb_uint8: np.ndarray) -> torch.Tensor:
    """(N, T, H, W, 3) uint8 -> (N, 3, T, H, W) float32 in [-1, 1] (the pipeline's pixel range)."""
    x = torch.from_numpy(np.ascontiguousarray(rgb_uint8)).float().div_(127.5).sub_(1.0)
    return x.permute(0, 4, 1, 2, 3).contiguous()


def param_count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())
