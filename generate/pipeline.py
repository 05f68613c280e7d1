"""Control-guided generation with the withdrawal probe: ``generate_clip(pipe, control, prompt, ...) -> Clip``.

The denoising loop is ``WanVACEPipeline.__call__``'s, copied step for step (same inputs, same order of
operations) and made explicit so that the probe can switch the control per step, stages can be timed, and a
release sweep can branch the loop (:mod:`generate.sweep`). Tests check that it reproduces the stock
``__call__`` bit for bit, with full control, with ``conditioning_scale=0`` and with :class:`ReleaseCallback`.

Shapes: control (T, H, W) uint8 -> replicated to RGB -> VAE latents (1, 2*z, T', H/s, W/s) plus the folded
all-white mask (1, s*s, T', H/s, W/s); noise latents (1, z, T', H/s, W/s) float32 with T' = (T-1)/4+1 (Wan VAE).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from PIL import Image
from tqdm.auto import tqdm

from control.types import ControlVideo
from generate.probe import WithdrawMode, experts, set_control
from generate.schedulers import SigmaSchedule, resolve_release_step, schedule_of
from generate.types import Clip
from veriphy.errors import UserError, check_float, check_int
from veriphy.hashing import sha256_bytes

DEFAULT_NEGATIVE_PROMPT = ""


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def vae_factors(pipe) -> tuple[int, int]:
    """(temporal, spatial) factors between pixels and latents, as the pipeline computes them."""
    return int(pipe.vae_scale_factor_temporal), int(pipe.vae_scale_factor_spatial)


def patch_size(pipe) -> tuple[int, int, int]:
    return tuple(int(p) for p in experts(pipe)[0].config.patch_size)


def check_control(pipe, control: ControlVideo, *, height: int | None = None, width: int | None = None,
                  num_frames: int | None = None, source: str | None = None) -> tuple[int, int, int]:
    """The request (T, H, W): the control's own size unless given. Refuses a control of another size (the
    stock pipeline would silently pad or crop it) and sizes the model cannot produce exactly."""
    t, h, w = control.shape_thw
    req = (num_frames or t, height or h, width or w)
    if req != (t, h, w):
        raise UserError(f"control video is {w}x{h} px x {t} frames (W x H x T) but the request is "
                        f"{req[2]}x{req[1]} px x {req[0]} frames; render the control at the generator's size",
                        file=source, field="frames")
    vt, vs = vae_factors(pipe)
    base = vs * patch_size(pipe)[1]
    if req[1] % base or req[2] % base:
        raise UserError(f"height and width must be multiples of {base} for this model, got {req[1]}x{req[2]}",
                        file=source, field="frames")
    if (req[0] - 1) % vt:
        raise UserError(f"the number of frames must be 1 + a multiple of {vt} for this model (e.g. "
                        f"{(req[0] - 1) // vt * vt + 1}), got {req[0]}", file=source, field="frames")
    # The rotary embedding has a fixed number of positions per axis (1024 for Wan, 64 for the tiny model):
    # a larger latent grid would fail deep inside the transformer after the (slow) control encoding.
    pt, ph, pw = patch_size(pipe)
    grid = (((req[0] - 1) // vt + 1) // pt, req[1] // vs // ph, req[2] // vs // pw)
    max_positions = int(getattr(experts(pipe)[0].config, "rope_max_seq_len", 1024))
    if max(grid) > max_positions:
        raise UserError(f"{req[2]}x{req[1]} px x {req[0]} frames makes a latent patch grid of {grid} (T, H, W) but "
                        f"this model's rotary embedding covers at most {max_positions} positions per axis; render "
                        f"the control smaller (the shipped tiny model is trained at 64x64 px x 17 frames)",
                        file=source, field="frames")
    return req


def control_images(control: ControlVideo) -> tuple[list[Image.Image], list[Image.Image]]:
    """The control video replicated to RGB and the all-white mask (white = generate everywhere, conditioned on
    the control), as PIL frames: the input type the pipeline documents."""
    t, h, w = control.shape_thw
    rgb = np.repeat(np.asarray(control.frames)[..., None], 3, axis=-1)
    video = [Image.fromarray(frame) for frame in rgb]
    mask = [Image.new("L", (w, h), 255)] * t
    return video, mask


@dataclass
class Prepared:
    """Everything a denoising run needs that does not change from step to step."""

    prompt_embeds: torch.Tensor
    negative_prompt_embeds: torch.Tensor | None
    conditioning_latents: torch.Tensor
    conditioning_scale: torch.Tensor
    initial_latents: torch.Tensor
    scheduler: Any  # a scheduler after set_timesteps, before any step
    schedule: SigmaSchedule
    guidance_scale: float
    guidance_scale_2: float | None
    num_reference_images: int
    transformer_dtype: torch.dtype
    height: int
    width: int
    num_frames: int
    timings_s: dict[str, Any] = field(default_factory=dict)

    @property
    def do_cfg(self) -> bool:
        return self.guidance_scale > 1.0


@torch.no_grad()
def prepare(pipe, control: ControlVideo, prompt: str, *, negative_prompt: str = DEFAULT_NEGATIVE_PROMPT,
            seed: int, num_steps: int, guidance_scale: float = 5.0, guidance_scale_2: float | None = None,
            conditioning_scale: float = 1.0, height: int | None = None, width: int | None = None,
            num_frames: int | None = None, max_sequence_length: int = 512, scheduler=None,
            source: str | None = None) -> Prepared:
    """Encode the prompt and the control, draw the initial noise (CPU generator seeded with ``seed``, so the
    noise is the same on every device) and set up the scheduler: steps 1-5 of ``WanVACEPipeline.__call__``."""
    num_frames, height, width = check_control(pipe, control, height=height, width=width, num_frames=num_frames,
                                              source=source)
    if not prompt:
        raise UserError("the prompt is empty", field="prompt")
    # inf or NaN guidance would turn every latent into NaN (a black clip), not an error: refused here.
    guidance_scale = check_float(guidance_scale, field="guidance_scale", minimum=0.0)
    if guidance_scale_2 is not None:
        guidance_scale_2 = check_float(guidance_scale_2, field="guidance_scale_2", minimum=0.0)
    seed = check_int(seed, field="seed", minimum=0)
    num_steps = check_int(num_steps, field="num_steps", minimum=1)
    if pipe.config.boundary_ratio is None and guidance_scale_2 is not None:
        raise UserError("guidance_scale_2 needs a two-expert model (boundary_ratio set)", field="guidance_scale_2")
    if pipe.config.boundary_ratio is not None and guidance_scale_2 is None:
        guidance_scale_2 = guidance_scale
    if pipe.transformer is None:
        raise ValueError("the pipeline has no `transformer` (high-noise expert)")
    generator = torch.Generator(device="cpu").manual_seed(int(seed))
    device = pipe._execution_device
    models = experts(pipe)
    transformer_dtype = models[0].dtype
    timings: dict[str, Any] = {}

    n_vace = len(models[0].config.vace_layers)
    scale = torch.tensor([float(conditioning_scale)] * n_vace).to(device=device, dtype=transformer_dtype)

    tic = time.perf_counter()
    do_cfg = guidance_scale > 1.0
    prompt_embeds, negative_prompt_embeds = pipe.encode_prompt(
        prompt=prompt, negative_prompt=negative_prompt, do_classifier_free_guidance=do_cfg,
        num_videos_per_prompt=1, max_sequence_length=max_sequence_length, device=device)
    prompt_embeds = prompt_embeds.to(transformer_dtype)
    if negative_prompt_embeds is not None:
        negative_prompt_embeds = negative_prompt_embeds.to(transformer_dtype)
    timings["text_encode"] = time.perf_counter() - tic

    scheduler = copy.deepcopy(pipe.scheduler if scheduler is None else scheduler)
    scheduler.set_timesteps(num_steps, device=device)
    schedule = schedule_of(scheduler, num_steps, boundary_ratio=pipe.config.boundary_ratio)

    tic = time.perf_counter()
    video, mask = control_images(control)
    video, mask, reference_images = pipe.preprocess_conditions(
        video, mask, None, 1, height, width, num_frames, torch.float32, device)
    num_reference_images = len(reference_images[0])
    conditioning_latents = pipe.prepare_video_latents(video, mask, reference_images, generator, device)
    mask = pipe.prepare_masks(mask, reference_images, generator)
    conditioning_latents = torch.cat([conditioning_latents, mask], dim=1).to(transformer_dtype)
    timings["control_encode"] = time.perf_counter() - tic

    latents = pipe.prepare_latents(
        1, models[0].config.in_channels, height, width,
        num_frames + num_reference_images * pipe.vae_scale_factor_temporal, torch.float32, device, generator, None)

    return Prepared(prompt_embeds=prompt_embeds, negative_prompt_embeds=negative_prompt_embeds,
                    conditioning_latents=conditioning_latents, conditioning_scale=scale, initial_latents=latents,
                    scheduler=scheduler, schedule=schedule, guidance_scale=float(guidance_scale),
                    guidance_scale_2=None if guidance_scale_2 is None else float(guidance_scale_2),
                    num_reference_images=num_reference_images, transformer_dtype=transformer_dtype,
                    height=height, width=width, num_frames=num_frames, timings_s=timings)


# --------------------------------------------------------------------------------------------------
# Denoising
# --------------------------------------------------------------------------------------------------


@dataclass
class StepRecord:
    step: int
    timestep: int
    expert: int
    control: bool
    seconds: float


@dataclass
class DenoiseStats:
    """What the loop did: a trace of (step, expert, control) and the number of transformer forwards (two per
    step with classifier-free guidance)."""

    trace: list[StepRecord] = field(default_factory=list)
    transformer_calls: int = 0
    controlled_calls: int = 0


@torch.no_grad()
def denoise_step(pipe, prep: Prepared, scheduler, latents: torch.Tensor, i: int, *, control: bool,
                 mode: WithdrawMode = "skip", stats: DenoiseStats | None = None) -> torch.Tensor:
    """One step of the stock loop: pick the expert by the boundary, run it (twice with CFG), step the
    scheduler. ``scheduler`` is stateful (UniPC keeps the last outputs and sample)."""
    tic = time.perf_counter()
    t = scheduler.timesteps[i]
    expert = prep.schedule.expert_of_step(i)
    model = pipe.transformer if expert == 1 else pipe.transformer_2
    guidance = prep.guidance_scale if expert == 1 else prep.guidance_scale_2
    set_control(pipe, control, mode)

    latent_model_input = latents.to(prep.transformer_dtype)
    timestep = t.expand(latents.shape[0])
    calls_before = model.forward_calls

    def predict(cache: str, embeds: torch.Tensor) -> torch.Tensor:
        with model.cache_context(cache):
            return model(hidden_states=latent_model_input, timestep=timestep, encoder_hidden_states=embeds,
                         control_hidden_states=prep.conditioning_latents,
                         control_hidden_states_scale=prep.conditioning_scale,
                         attention_kwargs=None, return_dict=False)[0]

    noise_pred = predict("cond", prep.prompt_embeds)
    calls = 1
    if prep.do_cfg:
        noise_uncond = predict("uncond", prep.negative_prompt_embeds)
        noise_pred = noise_uncond + guidance * (noise_pred - noise_uncond)
        calls = 2
    if model.forward_calls - calls_before != calls:
        # Something (a hook, a compiled wrapper) bypassed the probed forward: the control flag did nothing.
        raise RuntimeError("the transformer's probed forward was not called; make the pipeline probeable "
                           "before wrapping or offloading it")
    latents = scheduler.step(noise_pred, t, latents, return_dict=False)[0]
    if stats is not None:
        stats.transformer_calls += calls
        stats.controlled_calls += calls if control else 0
        stats.trace.append(StepRecord(step=i, timestep=int(t), expert=expert, control=bool(control),
                                      seconds=time.perf_counter() - tic))
    return latents


def denoise(pipe, prep: Prepared, scheduler, latents: torch.Tensor, steps: range, *, release_step: int,
            mode: WithdrawMode = "skip", stats: DenoiseStats | None = None, progress: bool = True,
            desc: str = "denoising") -> torch.Tensor:
    """Run ``steps`` of the loop; step i uses the control iff ``i < release_step``."""
    try:
        for i in tqdm(steps, desc=desc, disable=not progress, leave=False):
            latents = denoise_step(pipe, prep, scheduler, latents, i, control=i < release_step, mode=mode,
                                   stats=stats)
    finally:
        set_control(pipe, True, "skip")
    return latents


@torch.no_grad()
def decode(pipe, prep: Prepared, latents: torch.Tensor) -> np.ndarray:
    """Latents -> (T, H, W, 3) uint8 frames: the stock decode, then diffusers' own float->uint8 rounding."""
    latents = latents[:, :, prep.num_reference_images:]
    latents = latents.to(pipe.vae.dtype)
    z = pipe.vae.config.z_dim
    latents_mean = torch.tensor(pipe.vae.config.latents_mean).view(1, z, 1, 1, 1).to(latents.device, latents.dtype)
    latents_std = 1.0 / torch.tensor(pipe.vae.config.latents_std).view(1, z, 1, 1, 1).to(latents.device,
                                                                                           latents.dtype)
    latents = latents / latents_std + latents_mean
    video = pipe.vae.decode(latents, return_dict=False)[0]
    video = pipe.video_processor.postprocess_video(video, output_type="np")[0]  # (T, H, W, 3) float in [0, 1]
    return to_uint8(video)


def to_uint8(video: np.ndarray) -> np.ndarray:
    """float [0, 1] -> uint8 exactly as diffusers' ``numpy_to_pil`` does (x*255, rounded)."""
    return (np.asarray(video) * 255).round().astype(np.uint8)


# --------------------------------------------------------------------------------------------------
# Clip
# --------------------------------------------------------------------------------------------------


def model_identity(pipe) -> tuple[str, str]:
    """(model id, config sha256) recorded in clips; set by the generator builders on load."""
    model_id = getattr(pipe, "veriphy_model_id", None) or str(pipe.config.get("_name_or_path", "") or "")
    sha = getattr(pipe, "veriphy_config_sha256", None) or ""
    return model_id, sha


def scheduler_record(scheduler) -> dict[str, Any]:
    cfg = {k: v for k, v in dict(scheduler.config).items() if not k.startswith("_")}
    cfg["class_name"] = type(scheduler).__name__
    return cfg


def make_clip(pipe, prep: Prepared, control: ControlVideo, frames: np.ndarray, *, prompt: str,
              negative_prompt: str, seed: int, release_step: int, mode: WithdrawMode, stats: DenoiseStats,
              timings_s: dict[str, Any], extra: dict[str, Any] | None = None) -> Clip:
    model_id, config_sha = model_identity(pipe)
    sched = prep.schedule
    info = {
        "model_config_sha256": config_sha,
        "control_sha256": sha256_bytes(np.ascontiguousarray(control.frames).tobytes()),
        "control_kind": control.kind,
        "control_spec_sha256": control.spec_sha256,
        "height": prep.height, "width": prep.width, "num_frames": prep.num_frames,
        "num_steps": sched.num_steps,
        "timesteps": sched.timesteps.tolist(),
        "guidance_scale": prep.guidance_scale, "guidance_scale_2": prep.guidance_scale_2,
        "boundary_ratio": sched.boundary_ratio,
        "withdraw_mode": mode,
        "trace": [{"step": r.step, "timestep": r.timestep, "expert": r.expert, "control": r.control}
                  for r in stats.trace],
        "transformer_calls": stats.transformer_calls,
        "controlled_transformer_calls": stats.controlled_calls,
        "timings_s": dict(timings_s),
        **(extra or {}),
    }
    return Clip(frames=frames, fps=float(control.fps), prompt=prompt, negative_prompt=negative_prompt,
                seed=int(seed), model_id=model_id, scheduler=scheduler_record(prep.scheduler),
                sigmas=sched.sigmas, release_step=int(release_step), sigma_rel=sched.sigma_rel(release_step),
                expert_switch_step=sched.expert_switch_step, extra=info)


def generate_clip(pipe, control: ControlVideo, prompt: str, *, seed: int, num_steps: int,
                  release_step: int | None = None, negative_prompt: str = DEFAULT_NEGATIVE_PROMPT,
                  guidance_scale: float = 5.0, guidance_scale_2: float | None = None,
                  height: int | None = None, width: int | None = None, num_frames: int | None = None,
                  max_sequence_length: int = 512, scheduler=None, mode: WithdrawMode = "skip",
                  progress: bool = True, source: str | None = None) -> Clip:
    """One clip with control on steps 0..i*-1 and off on i*..N-1 (``release_step=None`` means i* = N).

    ``pipe``: a ``WanVACEPipeline`` (its transformers are made probeable in place). ``scheduler`` replaces
    ``pipe.scheduler`` for this call (a copy is stepped; the pipeline's is untouched). Deterministic for a seed.
    """
    release_step = resolve_release_step(release_step, num_steps)
    prep = prepare(pipe, control, prompt, negative_prompt=negative_prompt, seed=seed, num_steps=num_steps,
                   guidance_scale=guidance_scale, guidance_scale_2=guidance_scale_2, height=height, width=width,
                   num_frames=num_frames, max_sequence_length=max_sequence_length, scheduler=scheduler,
                   source=source)
    timings = dict(prep.timings_s)
    stats = DenoiseStats()
    sched = copy.deepcopy(prep.scheduler)
    tic = time.perf_counter()
    latents = denoise(pipe, prep, sched, prep.initial_latents, range(num_steps), release_step=release_step,
                      mode=mode, stats=stats, progress=progress)
    timings["denoise"] = time.perf_counter() - tic
    timings["denoise_per_step"] = [r.seconds for r in stats.trace]
    tic = time.perf_counter()
    frames = decode(pipe, prep, latents)
    timings["decode"] = time.perf_counter() - tic
    pipe.maybe_free_model_hooks()
    return make_clip(pipe, prep, control, frames, prompt=prompt, negative_prompt=negative_prompt, seed=seed,
                     release_step=release_step, mode=mode, stats=stats, timings_s=timings)
