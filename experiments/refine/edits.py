"""The channels: from a clip's contradiction packets to one edit (:class:`~experiments.refine.types.EditSetting`).

Each channel is a Hydra ``_target_`` (``conf/refine/``) called as ``channel.propose(context)``; it returns an
edit, or ``None`` with a reason when no edit applies (the clip is then not acted on by that channel).

* :class:`PromptRewrite` (the paper's word-only channel): the contradicted claim's span of the prompt is
  rewritten by a rewriter, :class:`RulesRewriter` (offline default: a template per measured quantity) or
  :class:`LLMRewriter` (any OpenAI-compatible endpoint; it falls back to the rules when the endpoint is down or
  its replies are invalid).
* :class:`ControlEdit`: when the simulated path itself contradicts the claim (the control shows the wrong
  motion), the scene is fixed (e.g. :class:`MirrorX`) and re-simulated; otherwise the control is kept on through
  the denoising steps whose noise level commits the contradicted motion (a later release step).

A packet is read through its ``measure`` evidence: ``args.quantity`` (``direction``, ``permanence``, ...) and
``args.expect`` (``direction``: ``left``/``right``/``up``/``down``), never through its words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from critic.types import ContradictionPacket
from experiments.refine.types import EditSetting
from generate.data import mirror_x
from sim.types import SceneSpec

#: Image-plane unit vector (x right, y down) of each direction word the critic's ``direction`` check expects.
DIRECTION_VECTORS = {"right": (1.0, 0.0), "left": (-1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}
#: Quantity used when a packet carries no ``measure`` evidence (e.g. a judge's dense check).
NO_QUANTITY = "other"


@dataclass(frozen=True)
class PacketCheck:
    """What one packet says was required: the measured ``quantity`` and its ``expect`` arguments."""

    claim: str
    span: tuple[int, int]
    span_text: str
    quantity: str
    expect: Mapping[str, Any]
    start_frame: int | None
    end_frame: int | None

    @property
    def direction(self) -> str | None:
        value = self.expect.get("direction")
        return str(value) if value in DIRECTION_VECTORS else None


def packet_check(packet: ContradictionPacket) -> PacketCheck:
    """The packet's first ``measure`` evidence as a :class:`PacketCheck` (``NO_QUANTITY`` without one)."""
    quantity, expect = NO_QUANTITY, {}
    for record in packet.evidence:
        if record.op == "measure" and record.args.get("quantity"):
            quantity, expect = str(record.args["quantity"]), dict(record.args.get("expect") or {})
            break
    window = packet.window
    return PacketCheck(claim=packet.claim, span=(int(packet.span[0]), int(packet.span[1])),
                       span_text=packet.span_text, quantity=quantity, expect=expect,
                       start_frame=None if window is None else window.start_frame,
                       end_frame=None if window is None else window.end_frame)


@dataclass(frozen=True)
class EditContext:
    """What a channel may read about one contradicted clip.

    * ``sigmas``: (N+1,) the clip's noise levels, ``sigmas[i]`` before step i, a final 0.
    * ``path_px``: (T, 2) the simulated object's projected centre (x right, y down) px, NaN where undefined:
      the control's motion, which the critic does not see.
    """

    prompt: str
    packets: tuple[ContradictionPacket, ...]
    release_step: int
    num_steps: int
    sigmas: np.ndarray
    path_px: np.ndarray
    checks: tuple[PacketCheck, ...] = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "checks", tuple(packet_check(p) for p in self.packets))


@dataclass(frozen=True)
class NoEdit:
    """Why a channel did not act on a contradicted clip."""

    reason: str


# ---------------------------------------------------------------------------------------------- prompt rewrite


class RulesRewriter:
    """A span rewritten by a template per measured quantity (``rules``: quantity -> template with ``{span}`` and
    the packet's ``expect`` arguments, e.g. ``"{span}, to the {direction}"``). A quantity without a rule, or a
    template whose arguments the packet lacks, gives no rewrite."""

    name = "rules"

    def __init__(self, rules: Mapping[str, str] | None = None):
        self.rules = dict(rules or {})

    def rewrite(self, prompt: str, check: PacketCheck) -> str | None:
        template = self.rules.get(check.quantity)
        if not template:
            return None
        try:
            return template.format(span=check.span_text, **{k: v for k, v in check.expect.items() if v is not None})
        except (KeyError, IndexError, ValueError):
            return None


class LLMRewriter:
    """The span rewritten by a chat model behind an OpenAI-compatible endpoint (as ``sim.authors.LLMAuthor``
    talks to one: ``base_url``, ``model``, ``api_key``). The reply must be JSON ``{"rewrite": "<text>"}``; an
    endpoint that is down, or ``max_attempts`` invalid replies, hand the span to ``fallback`` (the rules)."""

    name = "llm"
    SYSTEM_PROMPT = ("You edit prompts of a small text-to-video model. A critic found that the video contradicts one "
                     "span of the prompt. Rewrite only that span so the model renders what it says; keep its words "
                     "where you can, use the vocabulary of the prompt. Reply with JSON only: "
                     '{"rewrite": "<the new span>"}.')

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key: str = "EMPTY",
                 max_attempts: int = 2, timeout_s: float = 30.0, temperature: float = 0.0, max_chars: int = 200,
                 fallback: Any = None):
        self.base_url, self.model, self.api_key = base_url, model, api_key
        self.max_attempts, self.timeout_s, self.temperature = int(max_attempts), float(timeout_s), float(temperature)
        self.max_chars = int(max_chars)
        self.fallback = fallback
        self._client = None

    def _ask(self, messages: list[dict[str, str]]) -> str:
        if self._client is None:
            import openai  # on first use: building the channel stays cheap and offline

            self._client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s,
                                         max_retries=0)
        resp = self._client.chat.completions.create(model=self.model, messages=messages,
                                                    temperature=self.temperature)
        content = resp.choices[0].message.content if resp.choices else None
        if not isinstance(content, str) or not content.strip():
            raise ValueError("no reply text")
        return content

    def rewrite(self, prompt: str, check: PacketCheck) -> str | None:
        import openai

        user = json.dumps({"prompt": prompt, "span": check.span_text, "claim": check.claim,
                           "quantity": check.quantity, "expected": dict(check.expect)}, sort_keys=True)
        messages = [{"role": "system", "content": self.SYSTEM_PROMPT}, {"role": "user", "content": user}]
        for _ in range(self.max_attempts):
            try:
                content = self._ask(messages)
            except (openai.OpenAIError, ValueError, TypeError, AttributeError, IndexError, KeyError):
                break  # the endpoint is down or not a chat endpoint: no use asking again
            match = re.search(r"\{.*\}", content, flags=re.S)
            try:
                text = json.loads(match.group(0) if match else content)["rewrite"]
            except (json.JSONDecodeError, KeyError, TypeError):
                text = None
            if isinstance(text, str) and text.strip() and len(text) <= self.max_chars:
                return text.strip()
            messages += [{"role": "assistant", "content": content[:2000]},
                         {"role": "user", "content": 'Reply with JSON {"rewrite": "<the new span>"} only.'}]
        return self.fallback.rewrite(prompt, check) if self.fallback is not None else None


class PromptRewrite:
    """The word-only channel: each contradicted span the rewriter can rewrite is replaced (spans that overlap an
    earlier packet's are left alone); fires when the prompt changed."""

    def __init__(self, rewriter: Any, name: str = "prompt"):
        self.rewriter = rewriter
        self.name = name

    def propose(self, ctx: EditContext) -> EditSetting | NoEdit:
        replacements: list[tuple[int, int, str, str]] = []
        for check in ctx.checks:
            start, end = check.span
            if end <= start or any(start < e and s < end for s, e, _, _ in replacements):
                continue
            new = self.rewriter.rewrite(ctx.prompt, check)
            if new is not None and new != check.span_text:
                replacements.append((start, end, new, check.claim))
        if not replacements:
            quantities = sorted({c.quantity for c in ctx.checks})
            return NoEdit(f"no rewrite for the contradicted quantities {quantities}")
        prompt = ctx.prompt
        for start, end, new, _ in sorted(replacements, reverse=True):  # from the end: offsets stay valid
            prompt = prompt[:start] + new + prompt[end:]
        claims = ",".join(c for _, _, _, c in replacements)
        return EditSetting(channel=self.name, kind="prompt_rewrite", claim=claims, prompt=prompt,
                           reason=f"{getattr(self.rewriter, 'name', 'rewriter')} rewrite of "
                                  + "; ".join(f"{ctx.prompt[s:e]!r} -> {n!r}" for s, e, n, _ in sorted(replacements)))


# ------------------------------------------------------------------------------------------------- control edit


class MirrorX:
    """Scene fix: the scene reflected in x (``generate.data.mirror_x``), for a horizontal direction the control
    performs the wrong way round."""

    def __call__(self, spec: SceneSpec) -> SceneSpec:
        return mirror_x(spec)


def path_direction_holds(path_px: np.ndarray, check: PacketCheck, min_travel_px: float = 1.0) -> bool | None:
    """Whether the simulated path moves along ``check.direction`` over the packet's frames: its net displacement
    (last minus first finite frame) projected on the direction is at least ``min_travel_px``. ``None`` when the
    packet has no direction or the path too few finite frames."""
    if check.direction is None:
        return None
    path = np.asarray(path_px, dtype=np.float64)
    lo = 0 if check.start_frame is None else max(0, check.start_frame)
    hi = len(path) - 1 if check.end_frame is None else min(len(path) - 1, check.end_frame)
    window = path[lo:hi + 1]
    finite = np.flatnonzero(np.isfinite(window).all(axis=1))
    if finite.size < 2:
        return None
    travel = window[finite[-1]] - window[finite[0]]
    return bool(float(np.dot(travel, DIRECTION_VECTORS[check.direction])) >= min_travel_px)


class ControlEdit:
    """The control channel.

    1. The contradiction is in the control itself (the simulated path does not move the way the packet
       requires, :func:`path_direction_holds`) and ``scene_fixes`` has a fix for that direction: re-simulate the
       fixed scene and re-render its control (``resimulate``), and keep the new control on to the commit step
       of 2. when the clip was released before it.
    2. Otherwise keep the control on through the steps whose noise level commits the contradicted quantity: the
       new release step is the first step i > i* with ``sigmas[i] <= commit_sigma[quantity]`` (``default_sigma``
       for a quantity not listed), at most N (``later_release``). A clip released at N (control throughout) has
       no later step: the channel does not fire.

    Args:
        commit_sigma: quantity -> the noise level by which the generator has committed it (coarse motion commits
            early, at a high sigma; see docs/refine.md).
        default_sigma: the level for other quantities.
        scene_fixes: direction word -> a fix (SceneSpec -> SceneSpec) as a ``_target_`` config.
        min_travel_px: the simulated travel along the required direction below which the control contradicts it.
    """

    def __init__(self, commit_sigma: Mapping[str, float] | None = None, default_sigma: float = 0.5,
                 scene_fixes: Mapping[str, Mapping[str, Any]] | None = None, min_travel_px: float = 1.0,
                 name: str = "control"):
        self.commit_sigma = {str(k): float(v) for k, v in (commit_sigma or {}).items()}
        self.default_sigma = float(default_sigma)
        self.scene_fixes = {str(k): dict(v) for k, v in (scene_fixes or {}).items()}
        self.min_travel_px = float(min_travel_px)
        self.name = name

    def commit_step(self, ctx: EditContext) -> int:
        """The first step i > i* whose noise level has committed every contradicted quantity (N at most; i*
        itself when i* = N). The quantity that commits latest (lowest sigma) decides: keeping the control on
        longer never loses another."""
        sigmas = np.asarray(ctx.sigmas, dtype=np.float64)
        wanted = min((self.commit_sigma.get(c.quantity, self.default_sigma) for c in ctx.checks),
                     default=self.default_sigma)
        later = [i for i in range(ctx.release_step + 1, ctx.num_steps + 1) if sigmas[i] <= wanted]
        if ctx.release_step >= ctx.num_steps:
            return ctx.num_steps
        return later[0] if later else ctx.num_steps

    def propose(self, ctx: EditContext) -> EditSetting | NoEdit:
        step = self.commit_step(ctx)
        sigma = float(np.asarray(ctx.sigmas, dtype=np.float64)[step])
        for check in ctx.checks:
            holds = path_direction_holds(ctx.path_px, check, self.min_travel_px)
            if holds is False and check.direction in self.scene_fixes:
                fix = self.scene_fixes[check.direction]
                # A new control helps only while it is on: a release before the commit step moves too.
                return EditSetting(channel=self.name, kind="resimulate", claim=check.claim, scene_fix=fix,
                                   release_step=step if step != ctx.release_step else None,
                                   reason=f"the simulated path does not move {check.direction} over frames "
                                          f"{check.start_frame}-{check.end_frame}: the control contradicts "
                                          f"{check.span_text!r}; re-simulated with {fix.get('_target_')}, control "
                                          f"on to step {step}")
        if ctx.release_step >= ctx.num_steps:
            return NoEdit("control is on through every step already and the simulation agrees with the claim")
        claims = ",".join(c.claim for c in ctx.checks)
        return EditSetting(channel=self.name, kind="later_release", claim=claims, release_step=int(step),
                           reason=f"control kept on to step {step} (sigma {sigma:.3f}, where "
                                  f"{'/'.join(sorted({c.quantity for c in ctx.checks}))} is committed) "
                                  f"instead of {ctx.release_step}")
