"""Stage 2: the autoencoder, trained on whole clips with the ball's pixels weighted up, then its latent
normalisation measured on the data set."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from diffusers import AutoencoderKLWan
from tqdm import tqdm

from generate.train.config import VAETraining
from generate.train.models import build_vae, to_video_tensor
from generate.train.records import MetricsLog, save_state
from generate.train.steps import lr_at, step_generator


def train_vae(cfg: VAETraining, arrays: dict[str, np.ndarray], workdir: Path, *, seed: int, log: MetricsLog,
              progress: bool = True):
    """Train (or resume) the autoencoder; returns the trained ``AutoencoderKLWan`` (eval mode)."""
    final_dir = workdir / "vae_final"
    if (final_dir / "config.json").is_file():
        return AutoencoderKLWan.from_pretrained(final_dir).eval()
    vae = build_vae(cfg.model, seed)
    opt = torch.optim.AdamW(vae.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.99))
    ckpt = workdir / "vae_state.pt"
    start = 0
    if ckpt.is_file():
        state = torch.load(ckpt, weights_only=True)  # tensors and numbers only: a checkpoint never runs code
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
