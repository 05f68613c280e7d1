"""Artifacts owned by the ``critic`` stage. Imports only the standard library, numpy and pydantic.

Shared vocabulary between the plan/executor/aggregator and the specialist backends:

* :data:`State` - the three verdict values.
* :class:`TimeWindow` - an event window in seconds *and* frames.
* :class:`Track` - one grounded subject over the clip (from ``ground``).
* :class:`Measurement` - what a specialist returns for one operation: required vs measured, state,
  event windows, raw evidence, cost. The executor wraps it into an ``EvidenceRecord``.
* :data:`QUANTITY_SPECS` - the registry of ``measure`` quantities (event windows, partners, which ``expect``
  fields apply, implicit obligations) that the validator, the planners and the measurer read.
* :class:`OperationInputs` - what a specialist receives with one operation besides the clip.

Plan, evidence and verdict types follow below them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

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
    "large"), expected ``count`` and ``rigid`` (rigid subjects carry implicit obligations); ``at_rest``: the prompt
    says it stays where it is over the clip ("a blue can stays where it is", "lies motionless"), which grounding
    reads as a prior on the identities that can be it."""

    name: str
    noun: str
    color: str | None = None
    size: str | None = None
    count: int | None = None
    rigid: bool = True
    span: tuple[int, int] | None = None
    at_rest: bool = False

    def is_group(self, prompt: str) -> bool:
        """Does the prompt name several instances of the subject: a count over one, or a plural noun in the
        subject's span of ``prompt`` ("dominoes" for the noun "domino")?"""
        if (self.count or 0) > 1:
            return True
        if not self.span or not prompt:
            return False
        words = prompt[self.span[0]:self.span[1]].lower().replace(",", " ").split()
        noun = self.noun.lower()
        return any(w != noun and w.startswith(noun[:max(3, len(noun) - 1)]) and w.endswith("s") for w in words)


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
    #: every occurrence of an event that recurs (each airborne run of a bouncing ball), in time order; ``windows``
    #: holds the first. Temporal operations hold when any pair of occurrences satisfies them.
    occurrences: dict[str, list[TimeWindow]] = Field(default_factory=dict)
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

    ``rivals``: other tracks that fit the subject about as well as this one (a binding that is not firm, see
    ``Track.meta["binding"]``), each over the same T frames; empty when the binding is firm or none was recorded.
    A state measured alike on this track and on every rival holds whichever of them is the subject.
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
    rivals: tuple[Track, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rivals", tuple(self.rivals))
        for name in ("boxes_xyxy", "centroid_px", "area_px", "visible", "coasted", "touches_border", "times_s"):
            a = np.ascontiguousarray(getattr(self, name))
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    @property
    def radius_px(self) -> float:
        """Median equivalent-circle radius over visible frames (px): the unit for displacements."""
        a = self.area_px[self.visible]
        return float(np.sqrt(np.median(a) / np.pi)) if a.size else float("nan")


# ==================================================================================================
# Video context (built by ``critic.video.load_video``; read by every specialist)
# ==================================================================================================


class VideoSanity(_Frozen):
    """What the decoder noticed about the clip's time base and streams (docs/architecture.md §5: slow motion is not
    weak gravity; leaving the frame is not vanishing)."""

    vfr: bool = False
    rotation_deg: int = 0
    has_audio: bool = False
    likely_slow_motion: bool = False
    notes: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class VideoContext:
    """One decoded clip.

    * ``frames`` (T, H, W, 3) uint8 RGB, read-only.
    * ``times_s`` (T,) float seconds, frame time = ``pts * time_base`` (not ``k / fps`` for VFR clips).
    * ``fps`` nominal frame rate (Hz).
    * ``audio`` (S,) float32 mono in [-1, 1] or ``None``; ``audio_rate_hz`` its sample rate (0 when none).
    * ``sha256`` of the file's bytes: the cache key for every operation on this clip.
    """

    path: str
    sha256: str
    frames: np.ndarray
    times_s: np.ndarray
    fps: float
    audio: np.ndarray | None = None
    audio_rate_hz: int = 0
    sanity: VideoSanity = field(default_factory=VideoSanity)

    def __post_init__(self) -> None:
        for name in ("frames", "times_s", "audio"):
            a = getattr(self, name)
            if a is None:
                continue
            a = np.ascontiguousarray(a)
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])

    @property
    def frame_period_s(self) -> float:
        return 1.0 / self.fps if self.fps > 0 else 0.0

    def window(self, start_frame: int, end_frame: int) -> TimeWindow:
        """The window covering frames ``start_frame..end_frame`` (inclusive). Seconds run from the first
        frame's time to the last frame's time plus one frame period, so a one-frame event has a non-zero
        length (the quarter-window slack of the temporal predicates needs it)."""
        t = self.times_s
        s = int(np.clip(start_frame, 0, len(t) - 1))
        e = int(np.clip(end_frame, s, len(t) - 1))
        return TimeWindow(start_s=round(float(t[s]), 6), end_s=round(float(t[e]) + self.frame_period_s, 6),
                          start_frame=s, end_frame=e)

    def window_s(self, start_s: float, end_s: float) -> TimeWindow:
        """The window for a time interval in seconds (e.g. an audio onset), with the frames it overlaps."""
        t = self.times_s
        s = int(np.clip(np.searchsorted(t, start_s, side="right") - 1, 0, len(t) - 1))
        e = int(np.clip(np.searchsorted(t, end_s, side="right") - 1, s, len(t) - 1))
        return TimeWindow(start_s=round(float(start_s), 6), end_s=round(float(end_s), 6), start_frame=s,
                          end_frame=e)


# ==================================================================================================
# Plan language (docs/architecture.md §5): claims (with prompt spans) -> obligations -> typed operations
# ==================================================================================================

#: The surface operations. ``contains(A, B)``: B lies within A; ``during(A, B)``: A lies within B.
OP_NAMES: tuple[str, ...] = ("ground", "count", "measure", "scene", "depth", "read", "hear", "before",
                             "contains", "during", "judge")

#: The track-based physical measurements of ``measure`` (docs/architecture.md §5 "Track-based measurements"). What
#: the plan language knows about each one is in :data:`QUANTITY_SPECS`.
Quantity = Literal["free_fall", "support", "bounce", "penetration", "continuity", "permanence", "size_constancy",
                   "direction", "collision_response", "rest", "still", "contact"]
QUANTITIES: tuple[str, ...] = Quantity.__args__  # type: ignore[attr-defined]

#: Event windows of the operations other than ``measure`` (``hear``: the first matching sound; ``read``: frames
#: where the text is legible; ``judge``: the frames a semantic verifier says the claim happens in, when it says
#: so). A ``measure``'s event windows depend on its quantity (``QuantitySpec.events``).
OP_EVENTS: dict[str, tuple[str, ...]] = {"hear": ("onset",), "read": ("visible",), "judge": ("occurs",)}

Direction = Literal["left", "right", "up", "down", "horizontal", "toward", "away"]
Surface = Literal["floor", "wall"]
DepthRelation = Literal["nearer", "farther", "approaching", "receding"]
SoundEvent = Literal["impact", "any"]


class Expect(_Frozen):
    """What the prompt asserts about a measured quantity.

    * ``holds``: the property is asserted (``False``: asserted absent, "does not bounce"; for the implicit
      ``penetration`` obligation ``holds=False`` means "does not pass into the floor/walls").
    * ``n``: the number of events where the prompt states one ("bounces twice"): a count, no unit.
    * ``direction``: for ``direction`` (image-plane left/right/up/down; toward/away from the camera).
    """

    holds: bool = True
    n: Annotated[int, Field(ge=0, le=100)] | None = None
    direction: Direction | None = None


@dataclass(frozen=True)
class ImplicitObligation:
    """How a quantity is presumed for every rigid grounded subject (docs/architecture.md §5 "Implicit obligations").

    * ``expect``: what is presumed (``penetration``: ``holds=False``, it does not pass into the floor/walls).
    * ``wording``: finishes the implicit claim's text after the phrase that introduced the subject
      ("a blue ball" + " moves continuously (no teleport)").
    * ``unless_stated``: left out for a subject the prompt already measures this quantity on (a ghost ball that
      "passes through the wall" is not also presumed not to).
    """

    expect: Expect
    wording: str
    unless_stated: bool = False


@dataclass(frozen=True)
class QuantitySpec:
    """What the plan language knows about one quantity of ``measure``. The static validator (``critic.plan``), the
    planners (``critic.planners``) and the measurer (``critic.specialists.measure``, one function per quantity)
    all read it from :data:`QUANTITY_SPECS`.

    * ``events``: the event windows its Measurement puts in ``windows`` (keys), which temporal operations may
      refer to; empty when it produces none.
    * ``needs_partner``: it relates the subject to something: ``other`` (a subject) or ``surface`` is required.
    * ``surface``: a static surface (``floor``/``wall``) is a meaningful partner.
    * ``counts_events``: ``expect.n`` (a number of events, "bounces twice") applies.
    * ``directional``: ``expect.direction`` is required; it applies to no quantity without this.
    * ``implicit``: presumed for every rigid grounded subject (None: checked only when the prompt says so).
    """

    events: tuple[str, ...] = ()
    needs_partner: bool = False
    surface: bool = False
    counts_events: bool = False
    directional: bool = False
    implicit: ImplicitObligation | None = None


#: The registry of quantities: one entry per :data:`Quantity`. The implicit ones come last, in the order a rigid
#: subject's implicit claims are added (claim and operation ids follow this order).
QUANTITY_SPECS: dict[str, QuantitySpec] = {
    # from release (or leaving a support) to the first contact
    "free_fall": QuantitySpec(events=("airborne",)),
    # the first impact; airborne after the first impact
    "bounce": QuantitySpec(events=("contact", "rebound"), surface=True, counts_events=True),
    # the first frames where A touches B (or the surface)
    "contact": QuantitySpec(events=("contact",), needs_partner=True, surface=True, counts_events=True),
    "collision_response": QuantitySpec(events=("contact",), needs_partner=True, surface=True, counts_events=True),
    # from coming to rest to the end of the clip
    "rest": QuantitySpec(events=("rest",), surface=True),
    # a state over the whole clip ("sits still", "stays where it is"): the frames it is measured still over, or
    # those of the move that breaks it
    "still": QuantitySpec(events=("still",)),
    # frames where the subject moves in the claimed direction
    "direction": QuantitySpec(events=("motion",), directional=True),
    "continuity": QuantitySpec(implicit=ImplicitObligation(Expect(), "moves continuously (no teleport)")),
    "permanence": QuantitySpec(implicit=ImplicitObligation(
        Expect(), "persists (no vanishing without an occluder or leaving the frame)")),
    "size_constancy": QuantitySpec(implicit=ImplicitObligation(Expect(), "keeps its size and shape")),
    "support": QuantitySpec(surface=True, implicit=ImplicitObligation(
        Expect(), "falls when unsupported and rests only when supported")),
    "penetration": QuantitySpec(surface=True, implicit=ImplicitObligation(
        Expect(holds=False), "does not pass into the floor or walls", unless_stated=True)),
}
if set(QUANTITY_SPECS) != set(QUANTITIES):
    raise ImportError(f"critic.types: QUANTITY_SPECS and Quantity disagree on "
                      f"{sorted(set(QUANTITY_SPECS) ^ set(QUANTITIES))}")

#: The quantities presumed for every rigid grounded subject, in the order their claims are added.
IMPLICIT_QUANTITIES: tuple[str, ...] = tuple(q for q, spec in QUANTITY_SPECS.items() if spec.implicit is not None)


class EventRef(_Frozen):
    """An event window produced by an earlier operation: ``Measurement.windows[event]`` of operation ``op``."""

    op: str
    event: str


class _Op(_Frozen):
    id: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.\-]+$")


class GroundOp(_Op):
    """Track a declared subject (all its instances). Returns ``list[Track]``."""

    op: Literal["ground"] = "ground"
    subject: str


class CountOp(_Op):
    """Identity-based count of the subject's tracks vs ``n`` (``at_least``: n or more, for a plural without a
    number, "dominoes fall"). ``moving``: the prompt says every instance moves and names no other body of their
    kind ("three balls fall", not "... and a red ball bounces", which may be one of them), so an instance that
    never moves is not one the claim speaks of, and motion alone finds them all. ``kin``: singular subjects of the
    subject's kind that the prompt says move as it does ("three balls fall ... a grey ball drops"): bodies the
    number counts too, named on their own. Returns a ``Measurement``."""

    op: Literal["count"] = "count"
    subject: str
    n: Annotated[int, Field(ge=0, le=1000)]
    at_least: bool = False
    moving: bool = False
    kin: tuple[str, ...] = ()


class MeasureOp(_Op):
    """One track-based measurement. ``other`` names a second subject (contact, collision_response,
    pass-through); ``surface`` names static geometry (lands on the floor, hits the wall)."""

    op: Literal["measure"] = "measure"
    subject: str
    quantity: Quantity
    expect: Expect = Expect()
    other: str | None = None
    surface: Surface | None = None


class SceneOp(_Op):
    """A check of the whole picture that reads no track. ``permanence``: nothing in view appears from nowhere or
    vanishes in place (a body the prompt never names pasted into the clip, one painted out of it); ``continuity``:
    time runs on (bodies in motion do not all stop dead at once and go on from where they stopped: a frozen clip;
    nor does the moving picture skip ahead: frames cut out). Returns a ``Measurement`` (no event windows)."""

    op: Literal["scene"] = "scene"
    quantity: Literal["permanence", "continuity"] = "permanence"


class DepthOp(_Op):
    """Depth relation between subject ``a`` and subject ``b`` (or the camera when ``b`` is None)."""

    op: Literal["depth"] = "depth"
    a: str
    relation: DepthRelation
    b: str | None = None


class ReadOp(_Op):
    """OCR: is ``text`` legible in the frames (inside subject ``where``'s boxes when given)?"""

    op: Literal["read"] = "read"
    text: str = Field(min_length=1, max_length=200)
    where: str | None = None


class HearOp(_Op):
    """Audio event onsets (``onset`` window of the first matching event)."""

    op: Literal["hear"] = "hear"
    event: SoundEvent = "impact"
    description: str = ""


class _PairOp(_Op):
    """A temporal relation between two event references (subclasses fix ``op``)."""

    op: str
    a: EventRef
    b: EventRef


class BeforeOp(_PairOp):
    """``a`` ends before ``b`` starts, with quarter-window slack."""

    op: Literal["before"] = "before"


class ContainsOp(_PairOp):
    """``b`` lies within ``a`` (quarter-window slack)."""

    op: Literal["contains"] = "contains"


class DuringOp(_PairOp):
    """``a`` lies within ``b`` (quarter-window slack): ``during(a, b) = contains(b, a)``."""

    op: Literal["during"] = "during"


class JudgeOp(_Op):
    """A semantic verifier's yes/no answer to ``question`` about claim ``claim`` (unknown when none)."""

    op: Literal["judge"] = "judge"
    claim: str
    question: str = Field(min_length=1, max_length=1000)


Operation = Annotated[GroundOp | CountOp | MeasureOp | SceneOp | DepthOp | ReadOp | HearOp | BeforeOp | ContainsOp
                      | DuringOp | JudgeOp, Field(discriminator="op")]
AnyOp = (GroundOp | CountOp | MeasureOp | SceneOp | DepthOp | ReadOp | HearOp | BeforeOp | ContainsOp | DuringOp
         | JudgeOp)


def op_subjects(op: AnyOp) -> list[str]:
    """Subject names an operation reads (its tracks are inputs)."""
    if isinstance(op, GroundOp):
        return [op.subject]
    if isinstance(op, CountOp):
        return [op.subject, *op.kin]
    if isinstance(op, MeasureOp):
        return [op.subject] + ([op.other] if op.other else [])
    if isinstance(op, DepthOp):
        return [op.a] + ([op.b] if op.b else [])
    if isinstance(op, ReadOp):
        return [op.where] if op.where else []
    return []


def op_event_refs(op: AnyOp) -> list[EventRef]:
    return [op.a, op.b] if isinstance(op, (BeforeOp, ContainsOp, DuringOp)) else []


def op_events(op: AnyOp) -> tuple[str, ...]:
    """Event windows an operation produces (keys of its ``Measurement.windows``)."""
    if isinstance(op, MeasureOp):
        return QUANTITY_SPECS[op.quantity].events
    return OP_EVENTS.get(op.op, ())


class Claim(_Frozen):
    """One checkable statement. ``span`` = ``[start, end)`` character offsets into the prompt; implicit
    claims (docs/architecture.md §5) carry the span of the phrase that introduced their subject."""

    id: str = Field(min_length=1, max_length=32)
    text: str
    span: tuple[int, int]
    kind: Literal["explicit", "implicit"] = "explicit"
    subjects: list[str] = Field(default_factory=list)

    @property
    def about_scene(self) -> bool:
        """A claim of the whole scene (``SceneOp``): implicit, with no subject; its span is the whole prompt by
        convention, so it plans none of the prompt's words."""
        return self.kind == "implicit" and not self.subjects


class Obligation(_Frozen):
    """A sub-check of a claim, decided by the state of one checking operation ``check``.
    ``kind="dense"``: a first-pass semantic answer that instrument obligations re-verify."""

    id: str = Field(min_length=1, max_length=40)
    claim: str
    text: str = ""
    check: str
    kind: Literal["instrument", "dense"] = "instrument"


class UnplannedSpan(_Frozen):
    """A stretch of the prompt (a clause, ``span`` = ``[start, end)`` character offsets) that no explicit claim
    covers. ``physical``: it speaks of something physical (``words``: the physical words found in it), so a clip
    cannot be supported as a whole while it stays unchecked."""

    span: tuple[int, int]
    text: str
    physical: bool = False
    words: list[str] = Field(default_factory=list)


class Plan(_Frozen):
    """The surface plan: subjects, claims, obligations, operations (in any order; the validator checks
    the dependencies are acyclic and the executor runs them in dependency order), and the prompt's clauses that
    no claim covers (``unplanned``)."""

    prompt: str
    subjects: list[SubjectSpec] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    obligations: list[Obligation] = Field(default_factory=list)
    operations: list[Operation] = Field(default_factory=list)
    unplanned: list[UnplannedSpan] = Field(default_factory=list)
    planner: str = ""
    notes: list[str] = Field(default_factory=list)

    def op(self, op_id: str) -> AnyOp:
        for o in self.operations:
            if o.id == op_id:
                return o
        raise KeyError(op_id)

    def subject(self, name: str) -> SubjectSpec:
        for s in self.subjects:
            if s.name == name:
                return s
        raise KeyError(name)

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(claim_id)


@dataclass(frozen=True)
class OperationInputs:
    """What the executor hands a specialist with one operation, besides the clip: the results of the operations
    the plan says this one reads, and nothing else (the gate, docs/architecture.md §5).

    * ``subjects``: every subject the operation names (``op_subjects(op)``), as the plan declared them; for
      ``ground``, its own subject first and then every other subject of the plan (binding is one to one).
    * ``tracks``: the ``ground`` result for each of those subjects, one Track per instance (an empty tuple when
      grounding found nothing). Empty for ``ground`` itself.
    * ``claim``: the claim the operation serves (``judge`` reads its text); None when it serves none.
    * ``prompt``: the whole prompt, for context only (``ground`` reads whether a noun is plural); never an
      instruction source.

    Read-only: the mappings are read-only views and each subject's tracks a tuple.
    """

    subjects: Mapping[str, SubjectSpec] = field(default_factory=dict)
    tracks: Mapping[str, tuple[Track, ...]] = field(default_factory=dict)
    claim: Claim | None = None
    prompt: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "subjects", MappingProxyType(dict(self.subjects)))
        object.__setattr__(self, "tracks", MappingProxyType({name: tuple(t) for name, t in self.tracks.items()}))


# ==================================================================================================
# Evidence and verdict
# ==================================================================================================


class EvidenceRecord(_Frozen):
    """One dispatched operation. ``cost`` is the operation's cost node c(o) (the calls its result took), the same
    whether or not this run took it from the cache; ``cost.seconds`` is wall-clock and therefore left at 0 here;
    seconds and cache hits go to ``timings.json`` (and the hits to the verdict's cost), so the same inputs give
    byte-identical evidence files whether or not a result came from the cache. ``args`` are the operation's declared arguments (its id excluded);
    ``inputs`` the ids of the operations it read."""

    op_id: str
    op: str
    backend: str
    version: str
    args: dict[str, Any]
    inputs: list[str] = Field(default_factory=list)
    state: State
    required: str = ""
    measured: str = ""
    reason: str = ""
    window: TimeWindow | None = None
    windows: dict[str, TimeWindow] = Field(default_factory=dict)
    occurrences: dict[str, list[TimeWindow]] = Field(default_factory=dict)
    values: dict[str, Any] = Field(default_factory=dict)
    cost: Cost = Cost()
    cache_key: str = ""


class SubCheckVerdict(_Frozen):
    obligation: str
    text: str
    kind: Literal["instrument", "dense"]
    op_id: str
    state: State
    reason: str = ""
    window: TimeWindow | None = None


class ClaimVerdict(_Frozen):
    id: str
    text: str
    span: tuple[int, int]
    kind: Literal["explicit", "implicit"]
    subjects: list[str]
    state: State
    sub_checks: list[SubCheckVerdict]
    window: TimeWindow | None = None
    overturned: bool = False
    reason: str = ""


class ContradictionPacket(_Frozen):
    """Everything a person needs to check one contradicted claim."""

    claim: str
    span: tuple[int, int]
    span_text: str
    window: TimeWindow | None
    required: list[str]
    measured: list[str]
    evidence: list[EvidenceRecord]
    filmstrip: str | None = None


class CostSummary(_Frozen):
    """The calls one critique made. An operation answered from the cache made none: it is counted in
    ``cache_hits``, not in ``tool_calls``/``model_calls``."""

    tool_calls: int = 0
    model_calls: int = 0
    operations: int = 0
    planner_model_calls: int = 0
    cache_hits: int = 0
    #: every call made for this clip (tools + models + planner models); filled in when left at -1
    calls: int = -1

    @model_validator(mode="after")
    def _total(self) -> "CostSummary":
        if self.calls < 0:
            object.__setattr__(self, "calls", self.tool_calls + self.model_calls + self.planner_model_calls)
        return self


class ClipVerdict(_Frozen):
    """The clip-level verdict Y with its claims, packets, cost and a plausibility score.

    ``p_plausible`` is a ranking score in [0, 1], not a calibrated probability:
    ``(n_supported + 0.5 * n_unknown) / n_claims`` for a clip that is not contradicted, half of it for a
    contradicted clip (so ``p < 0.5`` iff contradicted), 0.5 when there are no claims; an unplanned physical
    clause counts as an unknown claim. ``unplanned``: the plan's clauses no claim covers (a physical one keeps
    the clip from being supported)."""

    clip_sha256: str
    video: str
    prompt: str
    plan_sha256: str
    verdict: State
    reason: str = ""
    claims: list[ClaimVerdict]
    packets: list[ContradictionPacket]
    cost: CostSummary
    p_plausible: float
    unplanned: list[UnplannedSpan] = Field(default_factory=list)
    sanity: VideoSanity = VideoSanity()
