"""Train the tiny Wan VACE generator on the project's own simulated clips (``python -m generate.train``).

Stages, each resumable from the checkpoint in ``workdir`` (re-run with ``workdir=<that folder>`` to resume):

1. **data**: render the training clips (:class:`generate.data.ClipDataset`; cached, written once).
2. **vae**: train ``AutoencoderKLWan`` as an autoencoder on full-length clips (all T frames, so every latent
   frame position is seen, including the late ones), squared error with the ball's pixels weighted up (the
   ball is a few dozen pixels of a 64x64 frame: with L1, or unweighted, the decoder settles on the background,
   the per-pixel median, for hundreds of steps and the ball vanishes), plus a small KL term. The decoder sees
   the posterior mean (sampling it at the initial unit variance drowned the signal and stalled training on a
   CPU budget); the pipeline encodes with the mode too. Then the latent normalisation (``latents_mean`` /
   ``latents_std`` in the VAE config, as Wan keeps them) is measured on the data set.
3. **encode**: every clip once through the frozen VAE and text encoder: clean video latents (T' = (T-1)/t+1
   latent frames, t the VAE's temporal factor), the control latents prepared exactly as ``WanVACEPipeline``
   prepares them (the control replicated to RGB, an all-white mask, inactive + reactive latents and the folded
   mask), and the prompt tokens (the configured tokenizer, padded to ``max_sequence_length`` like the
   pipeline; with a frozen text encoder also their embeddings through the tiny UMT5 at its seeded
   initialisation).
4. **transformer**: ``WanVACETransformer3DModel`` with the rectified-flow objective of Wan: x_t = (1 - s) x_0
   + s e, target e - x_0, timestep 1000 s, s drawn from the shifted distribution the sampler uses. Per-sample
   control dropout (the VACE hints of a sample are scaled by 0: the same arithmetic as the probe's skip path),
   so the same weights generate with and without control, and prompt dropout (empty prompt) for guidance.
   Optionally (``train_text_encoder``) the tiny text encoder learns with it. An exponential moving average of
   the weights is what ships.
5. **export**: a diffusers ``WanVACEPipeline`` directory (safetensors; tokenizer saved) plus
   ``MODEL_CARD.md``; copied to ``export_dir`` when set (``generate/pretrained`` for the shipped model).

Everything runs on the CPU with one thread and is deterministic for a seed: every random draw of step k comes
from a generator seeded with (seed, stage, k), so a resumed run takes the same path as an uninterrupted one.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from veriphy.files import atomic_write_bytes, read_json, write_json
from veriphy.hashing import sha256_json

STAGE_SEEDS = {"vae": 1, "transformer": 2}


def step_generator(seed: int, stage: str, step: int) -> torch.Generator:
    """The random stream of one training step (independent of how the run was interrupted)."""
    g = torch.Generator()
    g.manual_seed(int(seed) * 1_000_003 + STAGE_SEEDS[stage] * 100_000_019 + int(step))
    return g


def lr_at(step: int, total: int, peak: float, warmup: int, floor: float = 0.1) -> float:
    """Linear warm-up, then cosine decay to ``floor * peak``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    frac = (step - warmup) / max(1, total - warmup)
    return peak * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def save_state(path: Path, state: dict[str, Any]) -> None:
    """Atomic ``torch.save`` (an interrupted save never corrupts the previous checkpoint)."""
    import io

    buf = io.BytesIO()
    torch.save(state, buf)
    atomic_write_bytes(path, buf.getvalue())


class MetricsLog:
    """Appends one JSON line per logged step to ``metrics.jsonl`` (only ``experiments`` talks to W&B; it can
    replay this file into a run) and, when given, calls ``sink(stage, step, values)`` too."""

    def __init__(self, path: Path, sink=None):
        self.path = path
        self.sink = sink

    def log(self, stage: str, step: int, **values: float) -> None:
        rec = {"stage": stage, "step": step, **{k: float(v) for k, v in values.items()}}
        with open(self.path, "a") as fh:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
        if self.sink is not None:
            self.sink(stage, step, rec)


# --------------------------------------------------------------------------------------------------
# Stage configs (instantiated by Hydra from conf/train/*; cheap: nothing is built until run)
# --------------------------------------------------------------------------------------------------


@dataclass
class VAETraining:
    """Autoencoder stage. ``model``: ``AutoencoderKLWan`` keyword arguments (see ``generate.tiny``).

    Every step sees whole clips in time (all T frames). The first ``steps - full_frame_steps`` steps see
    ``crop_px`` x ``crop_px`` windows placed on the ball's path (a quarter of the pixels of a 64x64 frame, so
    four times the steps for the same compute, and mostly ball); the last ``full_frame_steps`` see whole frames,
    so the decoder also learns the image borders and the global attention of its middle block."""

    model: dict[str, Any]
    steps: int = 400
    batch_size: int = 3
    lr: float = 2e-3
    warmup: int = 20
    weight_decay: float = 0.0
    loss: str = "mse"
    ball_weight: float = 30.0
    ball_dilation_px: int = 2
    kl_weight: float = 1e-6
    sample_posterior: bool = False
    crop_px: int | None = 32
    full_frame_steps: int = 60
    checkpoint_every: int = 50
    log_every: int = 10


@dataclass
class TransformerTraining:
    """Diffusion stage. ``model``: ``WanVACETransformer3DModel`` keyword arguments; ``text_encoder``:
    ``UMT5Config`` keyword arguments (``vocab_size`` comes from the tokenizer); ``tokenizer``: the prompt
    tokenizer object (a Hydra ``_target_``: ``generate.data.prompt_tokenizer`` words, or
    ``transformers.ByT5Tokenizer`` bytes), shipped with the pipeline. With ``train_text_encoder`` the tiny UMT5
    is trained with the transformer (same optimiser, its own moving average, shipped with it); otherwise it
    stays frozen at its seeded random initialisation and the prompt embeddings are computed once."""

    model: dict[str, Any]
    text_encoder: dict[str, Any]
    tokenizer: Any
    steps: int = 3000
    batch_size: int = 8
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.01
    ema_decay: float = 0.998
    flow_shift: float = 3.0
    control_dropout: float = 0.5
    text_dropout: float = 0.1
    ball_weight: float = 3.0
    max_sequence_length: int = 512
    train_text_encoder: bool = False
    checkpoint_every: int = 200
    log_every: int = 20


# --------------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------------


def build_vae(model_cfg: dict[str, Any], seed: int):
    from diffusers import AutoencoderKLWan

    torch.manual_seed(seed)
    return AutoencoderKLWan(**dict(model_cfg))


def build_text_encoder(te_cfg: dict[str, Any], seed: int, tokenizer):
    """The tiny UMT5 encoder over ``tokenizer``'s ids (its ``vocab_size`` is the tokenizer's length)."""
    from transformers import UMT5Config, UMT5EncoderModel

    cfg = dict(te_cfg)
    vocab_size = len(tokenizer)
    if cfg.setdefault("vocab_size", vocab_size) != vocab_size:
        raise ValueError(f"text_encoder.vocab_size {cfg['vocab_size']} does not match the tokenizer's "
                         f"{vocab_size} ids; leave it out")
    torch.manual_seed(seed + 1)
    return UMT5EncoderModel(UMT5Config(**cfg)).eval()


def build_transformer(model_cfg: dict[str, Any], seed: int):
    from diffusers import WanVACETransformer3DModel

    cfg = dict(model_cfg)
    cfg["patch_size"] = tuple(cfg["patch_size"])
    torch.manual_seed(seed + 2)
    return WanVACETransformer3DModel(**cfg)


def assemble_pipeline(vae, text_encoder, transformer, *, tokenizer, flow_shift: float):
    """A stock ``WanVACEPipeline`` around the given components (UniPC flow scheduler)."""
    from diffusers import WanVACEPipeline

    from generate.schedulers import unipc_flow_scheduler

    return WanVACEPipeline(tokenizer=tokenizer, text_encoder=text_encoder.eval(), vae=vae.eval(),
                           scheduler=unipc_flow_scheduler(flow_shift=flow_shift), transformer=transformer.eval())


def to_video_tensor(rgb_uint8: np.ndarray) -> torch.Tensor:
    """(N, T, H, W, 3) uint8 -> (N, 3, T, H, W) float32 in [-1, 1] (the pipeline's pixel range)."""
    x = torch.from_numpy(np.ascontiguousarray(rgb_uint8)).float().div_(127.5).sub_(1.0)
    return x.permute(0, 4, 1, 2, 3).contiguous()


def param_count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


# --------------------------------------------------------------------------------------------------
# Stage 2: autoencoder
# --------------------------------------------------------------------------------------------------


def train_vae(cfg: VAETraining, arrays: dict[str, np.ndarray], workdir: Path, *, seed: int, log: MetricsLog,
              progress: bool = True):
    """Train (or resume) the autoencoder; returns the trained ``AutoencoderKLWan`` (eval mode)."""
    from diffusers import AutoencoderKLWan

    final_dir = workdir / "vae_final"
    if (final_dir / "config.json").is_file():
        return AutoencoderKLWan.from_pretrained(final_dir).eval()
    vae = build_vae(cfg.model, seed)
    opt = torch.optim.AdamW(vae.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.99))
    ckpt = workdir / "vae_state.pt"
    start = 0
    if ckpt.is_file():
        state = torch.load(ckpt, weights_only=False)
        vae.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start = int(state["step"])
    n = arrays["rgb"].shape[0]
    vae.train()
    bar = tqdm(range(start, cfg.steps), initial=start, total=cfg.steps, desc="vae", unit="step", file=sys.stderr,
               disable=not progress)
    tic = time.perf_counter()
    for step in bar:
        g = step_generator(seed, "vae", step)
        idx = torch.randint(0, n, (cfg.batch_size,), generator=g).numpy()
        rgb, mask = arrays["rgb"][idx], arrays["mask"][idx]
        if cfg.crop_px and step < cfg.steps - cfg.full_frame_steps:
            rgb, mask = ball_crops(rgb, mask, arrays["centers_px"][idx], cfg.crop_px, g)
        x = to_video_tensor(rgb)
        ball = torch.from_numpy(mask).float().unsqueeze(1)  # (B, 1, T, H, W)
        if cfg.ball_dilation_px > 0:
            k = 2 * cfg.ball_dilation_px + 1
            ball = F.max_pool3d(ball, kernel_size=(1, k, k), stride=1, padding=(0, k // 2, k // 2))
        weight = 1.0 + cfg.ball_weight * ball
        for group in opt.param_groups:
            group["lr"] = lr_at(step, cfg.steps, cfg.lr, cfg.warmup)
        posterior = vae.encode(x).latent_dist
        z = posterior.mean
        if cfg.sample_posterior:
            z = z + posterior.std * torch.randn(posterior.mean.shape, generator=g)
        recon = vae.decode(z).sample
        err = (recon - x).abs() if cfg.loss == "l1" else (recon - x).pow(2)
        l1 = (err * weight).sum() / (weight.sum() * 3)
        kl = 0.5 * (posterior.mean.pow(2) + posterior.var - 1.0 - posterior.logvar).mean()
        loss = l1 + cfg.kl_weight * kl
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(vae.parameters(), 1.0)
        opt.step()
        if (step + 1) % cfg.log_every == 0 or step + 1 == cfg.steps:
            with torch.no_grad():
                ball_err = ((recon - x).abs() * ball).sum() / (ball.sum() * 3 + 1e-6)
            log.log("vae", step + 1, loss=loss.item(), recon_weighted=l1.item(), kl=kl.item(),
                    l1_ball=ball_err.item(), seconds=time.perf_counter() - tic)
            bar.set_postfix(loss=f"{loss.item():.4f}", ball=f"{ball_err.item():.3f}")
        if (step + 1) % cfg.checkpoint_every == 0 or step + 1 == cfg.steps:
            save_state(ckpt, {"model": vae.state_dict(), "optimizer": opt.state_dict(), "step": step + 1})
    bar.close()
    vae.eval()
    set_latent_normalisation(vae, arrays["rgb"])
    vae.save_pretrained(final_dir)
    return vae


def ball_crops(rgb: np.ndarray, mask: np.ndarray, centers_px: np.ndarray, size: int, g: torch.Generator):
    """Square ``size`` windows (all frames) centred near the ball's projected centre at a random frame, with a
    random offset of up to a quarter window. (B, T, H, W, 3), (B, T, H, W), (B, T, 2) -> cropped copies."""
    b, t, h, w = mask.shape
    out_rgb = np.empty((b, t, size, size, 3), dtype=rgb.dtype)
    out_mask = np.empty((b, t, size, size), dtype=mask.dtype)
    frames = torch.randint(0, t, (b,), generator=g).numpy()
    jitter = (torch.rand(b, 2, generator=g).numpy() - 0.5) * (size / 2)
    for i in range(b):
        cx, cy = centers_px[i, frames[i]] + jitter[i]
        x0 = int(np.clip(np.round(cx - size / 2), 0, w - size)) if np.isfinite(cx) else (w - size) // 2
        y0 = int(np.clip(np.round(cy - size / 2), 0, h - size)) if np.isfinite(cy) else (h - size) // 2
        out_rgb[i] = rgb[i, :, y0:y0 + size, x0:x0 + size]
        out_mask[i] = mask[i, :, y0:y0 + size, x0:x0 + size]
    return out_rgb, out_mask


@torch.no_grad()
def encode_mode(vae, video: torch.Tensor) -> torch.Tensor:
    """Un-normalised posterior mode, (N, z, T', H/s, W/s), one clip at a time (the Wan VAE's cache is per clip)."""
    return torch.cat([vae.encode(video[i:i + 1]).latent_dist.mode() for i in range(video.shape[0])])


@torch.no_grad()
def set_latent_normalisation(vae, rgb: np.ndarray, max_clips: int = 200, batch: int = 8) -> None:
    """Per-channel mean and std of the posterior mode over (up to) ``max_clips`` clips, written into the
    VAE config as Wan does (the pipeline normalises with them)."""
    sums = None
    count = 0
    for lo in range(0, min(max_clips, rgb.shape[0]), batch):
        z = encode_mode(vae, to_video_tensor(rgb[lo:lo + batch]))
        flat = z.transpose(0, 1).reshape(z.shape[1], -1).double()
        s = torch.stack([flat.sum(1), flat.pow(2).sum(1)])
        sums = s if sums is None else sums + s
        count += flat.shape[1]
    mean = sums[0] / count
    std = (sums[1] / count - mean.pow(2)).clamp_min(1e-8).sqrt()
    vae.register_to_config(latents_mean=[round(float(v), 6) for v in mean],
                           latents_std=[round(float(v), 6) for v in std])


# --------------------------------------------------------------------------------------------------
# Stage 3: encode every clip once
# --------------------------------------------------------------------------------------------------


@torch.no_grad()
def encode_dataset(pipe, arrays: dict[str, np.ndarray], prompts: list[str], *, max_sequence_length: int,
                   embed_text: bool = True, progress: bool = True) -> dict[str, torch.Tensor]:
    """``x0`` (N, z, T', h, w) normalised latents; ``control`` (N, 2z + s^2, T', h, w) conditioning latents as
    the pipeline builds them; ``ball`` (N, 1, T', h, w) the ball's latent cells; the P distinct prompts plus the
    empty one (row P, the unconditional branch of guidance) as ``text_ids``/``text_mask`` (P+1, L) tokens and,
    with ``embed_text`` (a frozen text encoder), ``text`` (P+1, L, D) their embeddings by the initial text
    encoder; ``text_index`` (N,) a clip's row."""
    from control.types import ControlVideo
    from generate.pipeline import control_images

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
    from diffusers.pipelines.wan.pipeline_wan_vace import prompt_clean

    out = pipe.tokenizer([prompt_clean(p) for p in prompts], padding="max_length", max_length=max_sequence_length,
                         truncation=True, add_special_tokens=True, return_attention_mask=True, return_tensors="pt")
    return out.input_ids, out.attention_mask


def prompt_embeddings(text_encoder, ids: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """(P, L, D) prompt embeddings as the pipeline computes them (the encoder's states up to each prompt's
    length, zeros after it), differentiable, so the text encoder can be trained."""
    states = text_encoder(ids, attention).last_hidden_state
    return states * attention.unsqueeze(-1).to(states.dtype)


# --------------------------------------------------------------------------------------------------
# Stage 4: diffusion transformer
# --------------------------------------------------------------------------------------------------


def sample_sigmas(batch: int, shift: float, g: torch.Generator) -> torch.Tensor:
    """Noise levels s in (0, 1) distributed as the sampler visits them: u ~ U(0, 1), s = shift u / (1 +
    (shift - 1) u) (Wan's flow shift), so the high-noise steps that fix the layout get their share."""
    u = torch.rand(batch, generator=g).clamp(1e-3, 1 - 1e-3)
    return shift * u / (1 + (shift - 1) * u)


def flow_matching_loss(transformer, batch: dict[str, torch.Tensor], *, shift: float, control_keep: torch.Tensor,
                       g: torch.Generator, ball_weight: float = 0.0) -> torch.Tensor:
    """Rectified-flow loss of one batch. ``control_keep`` (B,) 1 where the sample sees its control, 0 where
    the VACE hints are scaled away (per-sample dropout). With ``batch["ball"]`` (B, 1, T', h, w), latent cells
    the ball passes through weigh ``1 + ball_weight`` (the ball is a few cells of a flat background)."""
    x0 = batch["x0"]
    b = x0.shape[0]
    sigma = sample_sigmas(b, shift, g)
    noise = torch.randn(x0.shape, generator=g)
    s = sigma.view(b, 1, 1, 1, 1)
    xt = (1 - s) * x0 + s * noise
    n_vace = len(transformer.config.vace_layers)
    # Per-layer scales broadcast over (B, L, D): shape (n_vace, B, 1, 1) unbinds to n_vace tensors (B, 1, 1).
    scale = control_keep.view(1, b, 1, 1).expand(n_vace, b, 1, 1)
    pred = transformer(hidden_states=xt, timestep=sigma * 1000.0, encoder_hidden_states=batch["text"],
                       control_hidden_states=batch["control"], control_hidden_states_scale=scale,
                       return_dict=False)[0]
    err = (pred - (noise - x0)).pow(2)
    if "ball" not in batch or ball_weight == 0:
        return err.mean()
    weight = 1.0 + ball_weight * batch["ball"]
    return (err * weight).sum() / (weight.sum() * err.shape[1])


def train_transformer(cfg: TransformerTraining, encoded: dict[str, torch.Tensor], workdir: Path, *, seed: int,
                      log: MetricsLog, progress: bool = True, stop_step: int | None = None, text_encoder=None):
    """Train (or resume) the VACE transformer (and, with ``cfg.train_text_encoder``, ``text_encoder``, which
    must then be given); returns the EMA transformer (eval mode), the EMA text encoder (``None`` when it is
    not trained) and the number of steps done. ``stop_step`` ends the run early (the learning-rate schedule
    still spans ``cfg.steps``; a later run without it continues where this one stopped)."""
    transformer = build_transformer(cfg.model, seed)
    ema = build_transformer(cfg.model, seed)
    ema.load_state_dict(transformer.state_dict())
    ema.requires_grad_(False)
    modules = {"model": transformer}
    averages = {"ema": ema}
    if cfg.train_text_encoder:
        if text_encoder is None:
            raise ValueError("train_text_encoder needs the text encoder")
        text_encoder = copy.deepcopy(text_encoder).train().requires_grad_(True)
        text_ema = copy.deepcopy(text_encoder).eval().requires_grad_(False)
        modules["text_encoder"] = text_encoder
        averages["text_encoder_ema"] = text_ema
    params = [p for m in modules.values() for p in m.parameters()]
    decay_params = [p for p in params if p.ndim >= 2]
    other_params = [p for p in params if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay_params, "weight_decay": cfg.weight_decay},
                             {"params": other_params, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.99))
    ckpt = workdir / "transformer_state.pt"
    start = 0
    if ckpt.is_file():
        state = torch.load(ckpt, weights_only=False)
        for key, module in {**modules, **averages}.items():
            module.load_state_dict(state[key])
        opt.load_state_dict(state["optimizer"])
        start = int(state["step"])
    n = encoded["x0"].shape[0]
    empty_row = encoded["text_ids"].shape[0] - 1
    transformer.train()
    end = cfg.steps if stop_step is None else max(start, min(cfg.steps, int(stop_step)))
    bar = tqdm(range(start, end), initial=start, total=cfg.steps, desc="transformer", unit="step",
               file=sys.stderr, disable=not progress)
    tic = time.perf_counter()
    running = None
    for step in bar:
        g = step_generator(seed, "transformer", step)
        idx = torch.randint(0, n, (cfg.batch_size,), generator=g)
        keep_control = (torch.rand(cfg.batch_size, generator=g) >= cfg.control_dropout).float()
        drop_text = torch.rand(cfg.batch_size, generator=g) < cfg.text_dropout
        # A dropped prompt is the empty one, the last row of the prompt table.
        rows = torch.where(drop_text, empty_row, encoded["text_index"][idx])
        if cfg.train_text_encoder:
            text = prompt_embeddings(text_encoder, encoded["text_ids"][rows], encoded["text_mask"][rows])
        else:
            text = encoded["text"][rows]
        batch = {"x0": encoded["x0"][idx], "control": encoded["control"][idx], "text": text,
                 "ball": encoded["ball"][idx]}
        for group in opt.param_groups:
            group["lr"] = lr_at(step, cfg.steps, cfg.lr, cfg.warmup)
        loss = flow_matching_loss(transformer, batch, shift=cfg.flow_shift, control_keep=keep_control, g=g,
                                  ball_weight=cfg.ball_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        with torch.no_grad():
            # Early on the average follows the weights closely (a short run still ships a useful EMA).
            d = min(cfg.ema_decay, (1 + step) / (10 + step))
            for average, module in zip(averages.values(), modules.values()):
                for pe, pm in zip(average.parameters(), module.parameters()):
                    pe.lerp_(pm, 1 - d)
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if (step + 1) % cfg.log_every == 0 or step + 1 == end:
            log.log("transformer", step + 1, loss=loss.item(), loss_smooth=running,
                    seconds=time.perf_counter() - tic)
            bar.set_postfix(loss=f"{running:.4f}")
        if (step + 1) % cfg.checkpoint_every == 0 or step + 1 == end:
            save_state(ckpt, {**{k: m.state_dict() for k, m in {**modules, **averages}.items()},
                              "optimizer": opt.state_dict(), "step": step + 1})
    bar.close()
    return ema.eval(), averages.get("text_encoder_ema"), end


# --------------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------------


def forget_load_paths(pipeline_dir: Path) -> None:
    """Drop ``_name_or_path`` from the components' ``config.json``. diffusers records there the folder a
    component was loaded from (a resumed run loads its autoencoder from the work folder), so the shipped files
    would depend on where and whether a run was interrupted. Rewritten as diffusers writes them (indent 2,
    sorted keys, final newline): a resumed run exports the same bytes as an uninterrupted one."""
    for config in sorted(Path(pipeline_dir).glob("*/config.json")):
        values = json.loads(config.read_text())
        if "_name_or_path" in values:
            del values["_name_or_path"]
            config.write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")


def export_pipeline(pipe, out_dir: Path, card: str) -> Path:
    """``save_pretrained`` (safetensors) plus ``MODEL_CARD.md``; replaces ``out_dir`` atomically enough for a
    single writer (written beside it, then renamed)."""
    out_dir = Path(out_dir)
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    pipe.save_pretrained(tmp, safe_serialization=True)
    forget_load_paths(tmp)
    (tmp / "MODEL_CARD.md").write_text(card)
    if out_dir.exists():
        old = out_dir.with_name(out_dir.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        out_dir.rename(old)
        tmp.rename(out_dir)
        shutil.rmtree(old)
    else:
        tmp.rename(out_dir)
    return out_dir


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


@dataclass
class TrainResult:
    workdir: Path
    pipeline_dir: Path
    summary: dict[str, Any] = field(default_factory=dict)


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


def run_training(*, data, vae_cfg: VAETraining, transformer_cfg: TransformerTraining, workdir: Path, seed: int,
                 export_dir: Path | None, command: str, metrics_sink=None, progress: bool = True,
                 stop_after: str | None = None, transformer_stop_step: int | None = None,
                 card_notes: str = "") -> TrainResult:
    """All stages in order; each skips what ``workdir`` already holds. ``stop_after`` in {data, vae, encode}
    ends early (for tests and for checking the autoencoder's ceiling before the transformer)."""
    import diffusers
    import transformers

    from generate.data import dataset_fingerprint

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
    cache = workdir / "encoded.pt"
    encode_key = encoding_key(data_sha256=dataset_fingerprint(data), vae_cfg=vae_cfg,
                              transformer_cfg=transformer_cfg, seed=seed)
    # The key is also written beside the cache (a few bytes), so a cache of other settings is recognised
    # without loading its hundreds of MB; a cache without that file is checked by its own "key".
    key_file = workdir / "encoded.key"
    stale = key_file.is_file() and key_file.read_text().strip() != encode_key
    encoded = torch.load(cache, weights_only=False) if cache.is_file() and not stale else None
    if stale or (encoded is not None and encoded.get("key") != encode_key):
        # Same work folder, other data/autoencoder/prompt settings: the cached latents would silently be wrong.
        print(f"{cache}: encoded with other settings; encoding again", file=sys.stderr)
        encoded = None
    if encoded is None:
        encoded = timed("encode", lambda: encode_dataset(
            pipe, arrays, [r["prompt"] for r in index], max_sequence_length=transformer_cfg.max_sequence_length,
            embed_text=not transformer_cfg.train_text_encoder, progress=progress))
        encoded["key"] = encode_key
        save_state(cache, encoded)
        atomic_write_bytes(key_file, encode_key.encode())
    if stop_after == "encode":
        return TrainResult(workdir, workdir / "pipeline")
    ema, text_ema, steps_done = timed("transformer", lambda: train_transformer(
        transformer_cfg, encoded, workdir, seed=seed, log=log, progress=progress, stop_step=transformer_stop_step,
        text_encoder=text_encoder))
    pipe = assemble_pipeline(vae, text_encoder if text_ema is None else text_ema, ema, tokenizer=tokenizer,
                             flow_shift=transformer_cfg.flow_shift)
    sampler = data.sampler
    summary = {
        "command": command,
        "seed": seed,
        "data": {"num_clips": data.num_clips, "seed": data.seed, "templates": " and ".join(sampler.templates),
                 "width_px": sampler.width_px, "height_px": sampler.height_px, "num_frames": sampler.num_frames,
                 "fps": sampler.fps, "config_sha256": dataset_fingerprint(data)},
        "vae": {"params": param_count(vae), "steps": vae_cfg.steps, "batch_size": vae_cfg.batch_size,
                "seconds": timings.get("vae", 0.0)},
        "transformer": {"params": param_count(ema), "steps": steps_done, "schedule_steps": transformer_cfg.steps,
                        "batch_size": transformer_cfg.batch_size, "control_dropout": transformer_cfg.control_dropout,
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
    card = model_card(summary)
    pipeline_dir = export_pipeline(pipe, workdir / "pipeline", card)
    write_json(workdir / "summary.json", summary)
    if export_dir is not None:
        export_pipeline(pipe, Path(export_dir), card)
        write_json(Path(export_dir) / "training_summary.json", summary)
    summary["pipeline_bytes"] = directory_bytes(pipeline_dir)
    return TrainResult(workdir, pipeline_dir, summary)


def _task(cfg) -> None:
    from hydra.utils import instantiate
    from veriphy.hydra_app import configure_threads, hydra_run_dir
    from veriphy.manifest import write_manifest

    configure_threads(cfg.num_threads)
    torch.manual_seed(cfg.seed)
    run_dir = hydra_run_dir()
    workdir = Path(cfg.workdir) if cfg.workdir else run_dir / "work"
    data = instantiate(cfg.train.data)
    vae_cfg = instantiate(cfg.train.vae)
    transformer_cfg = instantiate(cfg.train.transformer)
    overrides = " ".join(sys.argv[1:])
    command = f"python -m generate.train {overrides}".strip()
    result = run_training(data=data, vae_cfg=vae_cfg, transformer_cfg=transformer_cfg, workdir=workdir,
                          seed=int(cfg.seed), export_dir=Path(cfg.export_dir) if cfg.export_dir else None,
                          command=command, progress=bool(cfg.progress), stop_after=cfg.stop_after,
                          transformer_stop_step=cfg.transformer_stop_step, card_notes=cfg.card_notes)
    write_json(run_dir / "metrics.json", result.summary)
    write_manifest(run_dir, stage="train", extra={"workdir": str(workdir), "pipeline_dir": str(result.pipeline_dir)})
    print(f"pipeline: {result.pipeline_dir}", file=sys.stderr)


def _hydra_main():
    import hydra

    from veriphy.hydra_app import exit_on_user_error

    @hydra.main(version_base="1.3", config_path="../conf", config_name="train_app")
    def main(cfg) -> None:
        exit_on_user_error(_task)(cfg)

    return main


def main() -> None:
    """Console entry point: ``python -m generate.train [overrides]``."""
    _hydra_main()()


if __name__ == "__main__":
    main()
