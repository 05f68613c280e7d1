"""The withdrawal probe: denoising steps 0..i*-1 see the control video, steps i*..N-1 do not.

``conditioning_scale`` is fixed for a whole ``WanVACEPipeline.__call__`` and ``callback_on_step_end`` cannot
change it, and scaling by zero would still pay for the VACE branch. So the transformer carries a runtime flag:
:class:`ProbedWanVACETransformer3DModel` is a ``WanVACETransformer3DModel`` whose forward, with
``control_enabled = False``, runs the base transformer only: no ``vace_patch_embedding``, no VACE blocks, no
hint additions. That is the same arithmetic as ``conditioning_scale = 0`` bit for bit, because the stock
forward adds ``hint * 0.0`` and ``x + (±0.0) == x`` for every finite ``x`` (the one exception, ``-0.0 + +0.0 ==
+0.0``, changes only the sign of an exact zero, which no later operation of the block can tell apart
from ``+0.0`` except ``1/x``-like ones the model does not use; tests check the equality end to end).

Why the withdrawal is spread over about one step: UniPC (order 2, the corrector on) at step i first *corrects*
the sample it predicted at step i-1 using the new model output, then predicts step i+1 from the outputs of
steps i and i-1. At the first withdrawn step i* the uncontrolled output therefore already re-corrects x at
sigmas[i*] (half a step "early"), while the controlled output of step i*-1 still enters the predictor of step
i* (half a step "late"). The release is sharp in the model calls and smooth in the sampler's state.

``mode = "zero_scale"`` keeps the VACE branch and multiplies its hints by zero instead: the reference the
skip path is checked against (and what a user would get from ``conditioning_scale=0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import torch
from diffusers import WanVACETransformer3DModel
from diffusers.models.modeling_outputs import Transformer2DModelOutput

from generate.schedulers import resolve_release_step

WithdrawMode = Literal["skip", "zero_scale"]


class ProbedWanVACETransformer3DModel(WanVACETransformer3DModel):
    """``WanVACETransformer3DModel`` with a runtime switch for its control branch.

    Attributes (plain Python, not config, so they never reach ``config.json``):

    * ``control_enabled``: run the VACE branch (stock forward) when ``True``.
    * ``withdraw_mode``: ``"skip"`` (no VACE compute) or ``"zero_scale"`` (stock forward, hints times 0).
    * ``forward_calls`` / ``vace_calls``: counters of forwards and of forwards that ran the VACE branch.
    """

    control_enabled: bool = True
    withdraw_mode: WithdrawMode = "skip"
    forward_calls: int = 0
    vace_calls: int = 0

    @classmethod
    def adopt(cls, model: WanVACETransformer3DModel) -> ProbedWanVACETransformer3DModel:
        """Turn a loaded ``WanVACETransformer3DModel`` into this class in place (same parameters, no copy:
        a 14B model cannot afford a second instance). Do this before CPU offload hooks wrap ``forward``."""
        if not isinstance(model, WanVACETransformer3DModel):
            raise TypeError(f"expected a WanVACETransformer3DModel, got {type(model).__name__}")
        if not isinstance(model, cls):
            if hasattr(model, "_hf_hook"):
                # accelerate's hook captured the stock forward: the flag would be silently ignored.
                raise RuntimeError("make the pipeline probeable (generate.probe.make_probeable) before enabling "
                                   "CPU offload or other accelerate hooks")
            model.__class__ = cls
        model.control_enabled = True
        model.withdraw_mode = "skip"
        model.forward_calls = 0
        model.vace_calls = 0
        return model

    def save_pretrained(self, *args, **kwargs):
        """Save as the stock class, so the directory loads anywhere diffusers runs."""
        probed = type(self)
        self.__class__ = WanVACETransformer3DModel
        try:
            return WanVACETransformer3DModel.save_pretrained(self, *args, **kwargs)
        finally:
            self.__class__ = probed

    def forward(self, hidden_states: torch.Tensor, timestep: torch.LongTensor, encoder_hidden_states: torch.Tensor,
                encoder_hidden_states_image: torch.Tensor | None = None,
                control_hidden_states: torch.Tensor | None = None,
                control_hidden_states_scale: torch.Tensor | None = None, return_dict: bool = True,
                attention_kwargs: dict[str, Any] | None = None):
        self.forward_calls += 1
        if self.control_enabled or self.withdraw_mode == "zero_scale":
            if not self.control_enabled:
                control_hidden_states_scale = control_hidden_states.new_zeros(len(self.config.vace_layers))
            else:
                self.vace_calls += 1
            return super().forward(hidden_states, timestep, encoder_hidden_states, encoder_hidden_states_image,
                                   control_hidden_states, control_hidden_states_scale, return_dict,
                                   attention_kwargs)
        return self._forward_without_control(hidden_states, timestep, encoder_hidden_states,
                                             encoder_hidden_states_image, return_dict)

    def _forward_without_control(self, hidden_states, timestep, encoder_hidden_states, encoder_hidden_states_image,
                                 return_dict):
        # The stock forward (diffusers 0.35-0.42) with every VACE line removed; the remaining lines are kept in
        # the same order with the same dtypes so that the result equals the hints-times-zero forward.
        batch_size, num_channels, num_frames, height, width = hidden_states.shape
        p_t, p_h, p_w = self.config.patch_size
        post_patch_num_frames = num_frames // p_t
        post_patch_height = height // p_h
        post_patch_width = width // p_w

        rotary_emb = self.rope(hidden_states)

        hidden_states = self.patch_embedding(hidden_states)
        hidden_states = hidden_states.flatten(2).transpose(1, 2)

        temb, timestep_proj, encoder_hidden_states, encoder_hidden_states_image = self.condition_embedder(
            timestep, encoder_hidden_states, encoder_hidden_states_image
        )
        timestep_proj = timestep_proj.unflatten(1, (6, -1))
        if encoder_hidden_states_image is not None:
            encoder_hidden_states = torch.concat([encoder_hidden_states_image, encoder_hidden_states], dim=1)

        use_checkpointing = torch.is_grad_enabled() and self.gradient_checkpointing
        for block in self.blocks:
            if use_checkpointing:
                hidden_states = self._gradient_checkpointing_func(
                    block, hidden_states, encoder_hidden_states, timestep_proj, rotary_emb)
            else:
                hidden_states = block(hidden_states, encoder_hidden_states, timestep_proj, rotary_emb)

        shift, scale = (self.scale_shift_table.to(temb.device) + temb.unsqueeze(1)).chunk(2, dim=1)
        shift = shift.to(hidden_states.device)
        scale = scale.to(hidden_states.device)
        hidden_states = (self.norm_out(hidden_states.float()) * (1 + scale) + shift).type_as(hidden_states)
        hidden_states = self.proj_out(hidden_states)

        hidden_states = hidden_states.reshape(
            batch_size, post_patch_num_frames, post_patch_height, post_patch_width, p_t, p_h, p_w, -1
        )
        hidden_states = hidden_states.permute(0, 7, 1, 4, 2, 5, 3, 6)
        output = hidden_states.flatten(6, 7).flatten(4, 5).flatten(2, 3)
        if not return_dict:
            return (output,)
        return Transformer2DModelOutput(sample=output)


def experts(pipe) -> list[ProbedWanVACETransformer3DModel]:
    """The pipeline's transformer(s) in order (high-noise first), each made probeable in place."""
    out = []
    for name in ("transformer", "transformer_2"):
        model = getattr(pipe, name, None)
        if model is not None:
            out.append(ProbedWanVACETransformer3DModel.adopt(model) if not isinstance(
                model, ProbedWanVACETransformer3DModel) else model)
    if not out:
        raise ValueError("the pipeline has neither `transformer` nor `transformer_2`")
    return out


def make_probeable(pipe):
    """Adopt every expert of ``pipe`` into :class:`ProbedWanVACETransformer3DModel` (in place); returns ``pipe``."""
    experts(pipe)
    return pipe


def set_control(pipe, enabled: bool, mode: WithdrawMode | None = None) -> None:
    for model in experts(pipe):
        model.control_enabled = bool(enabled)
        if mode is not None:
            model.withdraw_mode = mode


@dataclass(frozen=True)
class WithdrawalProbe:
    """Config object of the ``probe/`` group.

    * ``release_step`` i*: control on steps 0..i*-1, off on i*..N-1. ``None`` means N (control throughout).
    * ``mode``: ``"skip"`` saves the VACE compute; ``"zero_scale"`` computes it and multiplies by zero (reference).
    """

    release_step: int | None = None
    mode: WithdrawMode = "skip"

    def __post_init__(self) -> None:
        if self.mode not in ("skip", "zero_scale"):
            raise ValueError(f"probe.mode must be 'skip' or 'zero_scale', got {self.mode!r}")

    def resolve(self, num_steps: int) -> int:
        """i* for an N-step run (:func:`generate.schedulers.resolve_release_step`)."""
        return resolve_release_step(self.release_step, num_steps)


class ReleaseCallback:
    """``callback_on_step_end`` for the stock ``WanVACEPipeline.__call__``: turns the control off after step
    i*-1. Call :meth:`start` (or use it as a context manager) before the pipeline call so step 0 already has
    the right flag::

        with ReleaseCallback(pipe, release_step=10) as cb:
            pipe(..., callback_on_step_end=cb)
    """

    def __init__(self, pipe, release_step: int, mode: WithdrawMode = "skip"):
        self.pipe = pipe
        self.release_step = int(release_step)
        self.mode = mode
        self.trace: list[tuple[int, bool]] = []

    def start(self) -> None:
        set_control(self.pipe, self.release_step > 0, self.mode)

    def __enter__(self) -> ReleaseCallback:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        set_control(self.pipe, True, "skip")

    def __call__(self, pipe, step: int, timestep, callback_kwargs: dict) -> dict:
        self.trace.append((int(step), bool(experts(pipe)[0].control_enabled)))
        set_control(pipe, step + 1 < self.release_step, self.mode)
        return {}
