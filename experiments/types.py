"""Artifacts and settings of the ``experiments`` stage. Imports only the standard library, numpy and pydantic.

* :class:`RetentionConfig` - scoring settings, fixed in a run (``scoring.json``) before any clip is scored.
* :class:`VideoSize` - the generated video's size; the control video is rendered at exactly this size.
* :class:`SceneRequirements` - what a scene must offer for its retention to be measured at that size.
* :class:`GenerationSettings` - the settings of a release-point job's generator call.
* :class:`RetentionScore` - one clip's retention (the ``retention`` block of a job's ``metrics.json``).
* :class:`AblationRow` - one critic-ablation choice (a row of ``ablation.csv``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetentionConfig(_Frozen):
    """* ``threshold``: a window/axis is *retained* when Pearson r >= threshold (the paper's 0.7).
    * ``min_frames``: fewest frames measurable in both paths for a correlation to be computed.
    * ``time_tolerance_s``: frame times within this of a window edge count as inside (float rounding)."""

    threshold: Annotated[float, Field(ge=-1.0, le=1.0)] = 0.7
    min_frames: Annotated[int, Field(ge=2)] = 3
    time_tolerance_s: Annotated[float, Field(ge=0.0)] = 1e-6


class VideoSize(_Frozen):
    """``width`` x ``height`` px, ``num_frames`` frames at ``fps`` Hz."""

    width: Annotated[int, Field(gt=0, le=4096)]
    height: Annotated[int, Field(gt=0, le=4096)]
    num_frames: Annotated[int, Field(gt=0, le=2000)]
    fps: Annotated[float, Field(gt=0, le=240)]


class SceneRequirements(_Frozen):
    """What a release-point job's scene must offer, at the generator's size, for retention to be measured.
    A scene that falls short is refused before anything is generated (``measurable`` in the app's config).

    * ``object_radius_px``: [min, max] pixel radius of the tracked object the generator renders (its model
      card's range; ``None``: any size), in every frame of the scored windows;
    * ``min_airborne_frames``: frames of the airborne window (from the first free flight to the next contact);
    * ``min_after_ground_frames``: frames from the first ground contact to the end of the clip;
    * ``margin_px``: how far inside the picture the object's projected centre stays in the scored windows."""

    object_radius_px: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]] | None = None
    min_airborne_frames: Annotated[int, Field(ge=0)] = 6
    min_after_ground_frames: Annotated[int, Field(ge=0)] = 3
    margin_px: Annotated[float, Field(ge=0)] = 2.0

    @model_validator(mode="after")
    def _ordered(self) -> "SceneRequirements":
        if self.object_radius_px is not None and self.object_radius_px[0] > self.object_radius_px[1]:
            raise ValueError(f"object_radius_px must be [min, max], got {list(self.object_radius_px)}")
        return self


class GenerationSettings(_Frozen):
    """Keyword arguments of a release-point job's generator call (``generate.pipeline.generate_clip``).

    * ``mode``: how the probe withdraws the control (``skip``: no VACE compute; ``zero_scale``: hints times 0).
    * ``guidance_scale`` (``guidance_scale_2``: the low-noise expert's, two-expert models only) and
      ``max_sequence_length`` (prompt tokens): what the model is meant to run with; ``None`` leaves the
      generator call's default.
    * ``progress``: show the denoising steps (the only one that does not change the clip)."""

    mode: Literal["skip", "zero_scale"] = "skip"
    guidance_scale: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    guidance_scale_2: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    max_sequence_length: Annotated[int, Field(gt=0)] | None = None
    progress: bool = True

    def call_kwargs(self) -> dict[str, str | float | int | bool]:
        """The keyword arguments given (unset ones left to the generator call's defaults)."""
        return self.model_dump(exclude_none=True)

    def clip_settings(self) -> dict[str, str | float | int]:
        """The given settings the clip depends on (:meth:`call_kwargs` without ``progress``)."""
        return self.model_dump(exclude_none=True, exclude={"progress"})


class AxisScore(_Frozen):
    """Pearson r over the frames measurable in both paths (``None`` with a ``status`` saying why: too few
    frames, a constant path); ``retained`` = r >= threshold (``None`` without r)."""

    r: float | None
    retained: bool | None
    frames: int
    status: str


class WindowScore(_Frozen):
    """One window (``airborne`` or ``after_ground``): per-axis scores, the window's frame count and the median
    absolute pixel disagreement per axis over its measurable frames (px; ``None`` without frames)."""

    x: AxisScore
    y: AxisScore
    frames_in_window: int
    median_abs_px: dict[str, float | None]

    def axis(self, name: Literal["x", "y"]) -> AxisScore:
        """The score of axis ``name``."""
        return {"x": self.x, "y": self.y}[name]


class RetentionScore(_Frozen):
    """One clip's retention. Pixel units; x right, y down (image rows).

    * ``windows``: ``airborne``, ``after_ground`` (from the first ground contact to the end of the clip) and
      ``clip`` (the whole clip; absent from scores made before it was added);
    * ``median_abs_px``: median |tracked - simulated| per axis over all measurable frames;
    * ``sideways_travel_px``: x range of the ``tracked`` path (measurable frames) and of the ``simulated`` one;
    * ``frames_measurable``: frames where the tracker observed the object and the projection is defined."""

    threshold: float
    min_frames: int
    frames_total: int
    frames_measurable: int
    windows: dict[str, WindowScore]
    median_abs_px: dict[str, float | None]
    sideways_travel_px: dict[str, float | None]
    median_tracked_area_px: float | None = None


class AblationRow(_Frozen):
    """One choice of a critic ablation over the benchmark corpus. ``option``: what this row changed, as overrides
    (``critic.planner.implicit=false``, ``critic/planner=ungated``); ``choice``: the option of the varied config
    group. Verdict counts per clip; defect-level recall (``whole``: a contradicted claim on the right object and
    window; ``any``: whole or partial, the clip contradicted) with 95% Wilson intervals; false alarms (clean clips
    contradicted; contradicted claims matching no defect on flawed clips); mean calls per clip (tool + model).
    ``None`` where the corpus has no clip of the kind."""

    factor: str
    option: str
    choice: str
    clips: int
    supported: int = 0
    contradicted: int = 0
    unknown: int = 0
    error: int = 0
    defects: int = 0
    whole: int = 0
    partial: int = 0
    missed: int = 0
    recall_whole: float | None = None
    recall_whole_lo: float | None = None
    recall_whole_hi: float | None = None
    recall_any: float | None = None
    recall_any_lo: float | None = None
    recall_any_hi: float | None = None
    clean_clips: int = 0
    false_alarm_clips: int = 0
    false_alarm_rate: float | None = None
    false_claims: int = 0
    false_claims_per_flawed_clip: float | None = None
    calls_per_clip: float | None = None
    tool_calls_per_clip: float | None = None
    model_calls_per_clip: float | None = None
