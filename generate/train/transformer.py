"""Stage 4: the VACE transformer with Wan's rectified-flow objective, per-sample control dropout (the skip path
of the probe) and prompt dropout; an exponential moving average of its weights is what ships."""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path

import torch
from tqdm import tqdm

from generate.train.config import TransformerTraining
from generate.train.encode import prompt_embeddings
from generate.train.models import build_transformer
from generate.train.records import MetricsLog, save_state
from generate.train.steps import lr_at, step_generator


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
        state = torch.load(ckpt, weights_only=True)  # tensors and numbers only: a checkpoint never runs code
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
