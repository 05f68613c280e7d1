"""Artifacts of the outward channel. Imports only the standard library, numpy and pydantic.

* :class:`EditSetting` - what one channel changes for one clip (the prompt, the release step, or the scene).
* :class:`Outcome` - one critique and one retention score of one clip (before or after an edit).
* :class:`ChannelResult` - one channel on one clip: whether it fired, the setting it applied and the outcome.
* :class:`RefineRecord` - one clip: its identity, its baseline outcome and each channel's result (a line of
  ``records.jsonl``; every count of the report is recomputed from these lines).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EditSetting(_Frozen):
    """The change a channel makes before regenerating (same seed, everything else kept).

    * ``kind``: ``prompt_rewrite`` (``prompt`` is the new prompt), ``later_release`` (``release_step`` is the
      new i*: control kept on through more denoising steps), ``resimulate`` (``scene_fix`` is the ``_target_``
      config of a function SceneSpec -> SceneSpec applied before the scene is simulated and its control rendered;
      with ``release_step`` when the new control must also stay on longer).
    * ``claim``: the contradicted claim it answers; ``reason``: why, in words.
    """

    channel: str
    kind: Literal["prompt_rewrite", "later_release", "resimulate"]
    claim: str
    reason: str
    prompt: str | None = None
    release_step: int | None = None
    scene_fix: dict[str, Any] | None = None


class Outcome(_Frozen):
    """One critique and one retention score of a clip.

    * ``verdict``: the critic's Y; ``p_plausible``: its ranking score in [0, 1] (``critic.types.ClipVerdict``);
      ``contradicted``: ids of the contradicted claims.
    * ``retained``: both airborne axes have Pearson r >= the retention threshold against the simulation the clip
      was generated from; ``r_airborne``: the mean of the two axes' r (an unmeasurable axis counts as 0).
    """

    verdict: Literal["supported", "contradicted", "unknown"]
    p_plausible: float
    contradicted: list[str] = Field(default_factory=list)
    retained: bool
    r_airborne: float
    clip_sha256: str


class ChannelResult(_Frozen):
    """One channel on one clip.

    * ``fired``: the clip was contradicted and the channel proposed an edit for it (the clip is *acted on*).
    * ``applied``: ``own`` (the clip's own edit), ``group`` (not acted on: the edit fired on another seed of the
      same cell and release step, applied here to measure collateral), or ``None`` (nothing regenerated).
    * ``reason``: why the channel did not fire, when it did not.
    """

    fired: bool
    applied: Literal["own", "group"] | None = None
    edit: EditSetting | None = None
    reason: str = ""
    after: Outcome | None = None


class RefineRecord(_Frozen):
    """One clip of a refine run: ``id`` = ``<cell>/seed<seed>_release<i*>``."""

    id: str
    cell: str
    prompt: str
    seed: int
    release_step: int
    num_steps: int
    sigma_rel: float | None
    baseline: Outcome
    channels: dict[str, ChannelResult]
