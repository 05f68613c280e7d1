"""Artifacts owned by the ``critic`` stage. Imports only the standard library, numpy and pydantic.

Shared vocabulary between the plan/executor/aggregator and the specialist backends:

* :data:`State` - the three verdict values.
* :class:`TimeWindow` - an event window in seconds *and* frames.
* :class:`Track` - one grounded subject over the clip (from ``ground``).
* :class:`Measurement` - what a specialist returns for one operation: required vs measured, state,
  event windows, raw evidence, cost. The executor wraps it into an ``EvidenceRecord``.

Plan, evidence and verdict types follow below them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

State = Literal["supported", "contradicted", "unknown"]
SUPPORTED: State = "supported"
CONTRADICTED: State = "contradicted"
UNKNOWN: State = "unknown"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TimeWindow(_Frozen):
    """A closed event window. Seconds come from the container's frame times (``pts * time_base``);
    frames are indices into the decoded clip, inclusive."""

    start_s: float
    end_s: float
    start_frame: int
    end_frame: int

    @property
    def length_s(self) -> float:
        return self.end_s - self.start_s


class Cost(_Frozen):
    """Cost node c(o) of one operation: calls to tools and models, and wall seconds."""

    tool_calls: int = 0
    model_calls: int = 0
    seconds: float = 0.0

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(tool_calls=self.tool_calls + other.tool_calls, model_calls=self.model_calls + other.model_calls,
                    seconds=self.seconds + other.seconds)


class SubjectSpec(_Frozen):
    """A named subject as the planner declared it: ``"ball"`` with colour ``"blue"``, ``size`` ("small",
    "large"), expected ``count`` and ``rigid`` (rigid subjects carry implicit obligations)."""

    name: str
    noun: str
    color: str | None = None
    size: str | None = None
    count: int | None = None
    rigid: bool = True
    span: tuple[int, int] | None = None


class Measurement(_Frozen):
    """A specialist's answer to one operation.

    ``required`` and ``measured`` are short human-readable strings with units
    ("downward acceleration > 0 while airborne" vs "a = -0.3 radii/s^2 (upward)"); ``values`` holds the
    raw numbers; ``windows`` the event windows found (e.g. ``{"contact": TimeWindow}``); ``window`` the
    window this state is about (a packet's time window when contradicted)."""

    state: State
    required: str = ""
    measured: str = ""
    reason: str = ""
    window: TimeWindow | None = None
    windows: dict[str, TimeWindow] = Field(default_factory=dict)
    values: dict[str, Any] = Field(default_factory=dict)
    cost: Cost = Cost()


@dataclass(frozen=True)
class Track:
    """One grounded subject (identity kept across frames).

    Arrays over the clip's T frames, pixel coordinates (x right, y down):

    * ``boxes_xyxy`` (T, 4) float, NaN where not visible.
    * ``centroid_px`` (T, 2) float, NaN where not visible.
    * ``area_px`` (T,) float, 0 where not visible.
    * ``visible`` (T,) bool: observed in this frame (not coasted).
    * ``coasted`` (T,) bool: position predicted through an occlusion/merge, not observed.
    * ``touches_border`` (T,) bool: the mask touches the image border (leaving the frame, not vanishing).
    * ``times_s`` (T,) frame times from the container.
    """

    subject: str
    identity: int
    boxes_xyxy: np.ndarray
    centroid_px: np.ndarray
    area_px: np.ndarray
    visible: np.ndarray
    coasted: np.ndarray
    touches_border: np.ndarray
    times_s: np.ndarray
    backend: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("boxes_xyxy", "centroid_px", "area_px", "visible", "coasted", "touches_border", "times_s"):
            a = np.ascontiguousarray(getattr(self, name))
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    @property
    def radius_px(self) -> float:
        """Median equivalent-circle radius over visible frames (px): the unit for displacements."""
        a = self.area_px[self.visible]
        return float(np.sqrt(np.median(a) / np.pi)) if a.size else float("nan")
