"""Artifacts of the critic benchmark. Imports only the standard library and pydantic.

The corpus is data on disk: one folder per clip (``<corpus>/clips/<clip_id>/clip.mp4``) and one
``annotations.jsonl`` with a :class:`ClipAnnotation` per line. Every annotation is exact by construction: a
defect is an edit the builder made (a displaced pose, a held frame, a removed object, a shifted sound, a
prompt that says something the clip does not show), never something measured on the pixels.

Conventions: frames are indices into the decoded clip, inclusive; seconds are frame times ``k / fps``; a window
covers ``[start_s, end_s]`` with ``end_s`` = the last frame's time plus one frame period. Prompt spans are
``[start, end)`` character offsets into ``ClipAnnotation.prompt``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: How the clip's pixels were made.
Renderer = Literal["pybullet", "analytic", "generator", "external"]

#: The defect categories. Physical defects break a law the prompt presumes; prompt defects show a physically
#: possible clip that is not what the prompt says.
DefectCategory = Literal[
    "teleport",                # the object jumps between two frames
    "hover",                   # the object stays still in mid-air, unsupported
    "freeze",                  # the whole motion (or the object) stops for a while, then resumes
    "pass_through_floor",      # the object sinks into / through the floor
    "pass_through_wall",       # the object goes into / through a wall
    "pass_through_object",     # two objects pass through each other
    "vanish",                  # the object disappears in view, with no occluder and not leaving the frame
    "appear",                  # an extra object appears in view from nowhere
    "missing_object",          # the prompt names more objects than the clip shows
    "morph",                   # the object changes size or shape beyond what depth explains
    "anti_gravity",            # an unsupported object accelerates upward (incl. a fall played backwards)
    "wrong_acceleration",      # a fall with a clearly wrong, non-constant or sideways acceleration
    "no_bounce",               # the prompt says it bounces; it lands dead
    "wrong_bounce_height",     # it rebounds higher than it fell
    "wrong_direction",         # it moves the opposite way to what the prompt says
    "wrong_order",             # events happen in the other order than the prompt says
    "wrong_count",             # the clip shows another number of objects than the prompt says
    "wrong_text",              # on-screen text differs from the quoted text
    "sound_missing",           # the impact sound the prompt names is absent
    "sound_early",             # the impact sound comes before the impact
    "sound_late",              # the impact sound comes after the impact
    "penetration_on_contact",  # two objects interpenetrate at contact
    "unexplained_stop",        # a moving object stops dead with no contact or friction to stop it
]
DEFECT_CATEGORIES: tuple[str, ...] = DefectCategory.__args__  # type: ignore[attr-defined]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Span(_Frozen):
    """``[start, end)`` character offsets into the prompt, and the text they cover."""

    start: Annotated[int, Field(ge=0)]
    end: Annotated[int, Field(ge=0)]
    text: str

    @model_validator(mode="after")
    def _ordered(self) -> "Span":
        if self.end <= self.start:
            raise ValueError(f"empty span [{self.start}, {self.end})")
        if len(self.text) != self.end - self.start:
            raise ValueError(f"span text {self.text!r} has {len(self.text)} characters, not {self.end - self.start}")
        return self


class FrameWindow(_Frozen):
    """Frames ``start_frame..end_frame`` (inclusive) and their time window in seconds."""

    start_frame: Annotated[int, Field(ge=0)]
    end_frame: Annotated[int, Field(ge=0)]
    start_s: float
    end_s: float

    @model_validator(mode="after")
    def _ordered(self) -> "FrameWindow":
        if self.end_frame < self.start_frame or self.end_s <= self.start_s:
            raise ValueError(f"window frames {self.start_frame}-{self.end_frame} / {self.start_s}-{self.end_s} s "
                             "is not ordered")
        return self


class SceneObject(_Frozen):
    """One object the clip shows (or, for ``missing_object``, that the prompt names but the clip lacks)."""

    name: str                       # unique in the clip: "red_ball", "domino_3"
    shape: str                      # "sphere", "box", "cylinder", "external"
    color: str | None = None        # the colour name the prompt may use ("red"), None when not named
    radius_px: float | None = None  # typical apparent radius (px), from the renderer's projection
    mention: Span | None = None     # where the prompt first names it


class TruthClaim(_Frozen):
    """A claim the prompt makes and whether the clip bears it out (false only where a defect breaks it)."""

    span: Span
    kind: Literal["explicit", "implicit"] = "explicit"
    holds: bool = True
    objects: list[str] = Field(default_factory=list)


class Defect(_Frozen):
    """One inserted defect.

    ``severity`` 1-5 follows the rule written in ``docs/benchmark.md`` (magnitude in the object's radii or in
    frames, fixed before any scoring). ``violates`` is the prompt span the defect contradicts: the explicit claim
    ("bounces twice") or, for a presumed law (continuity, support, ...), the phrase that introduced the object.
    ``edit`` says in words what the builder did; ``magnitude`` holds the numbers behind the severity."""

    id: str
    category: DefectCategory
    severity: Annotated[int, Field(ge=1, le=5)]
    window: FrameWindow
    object: str
    violates: Span
    edit: str
    magnitude: dict[str, float] = Field(default_factory=dict)


class ClipAnnotation(_Frozen):
    """One clip of the corpus: where it is, what made it, what the prompt claims, what was broken."""

    id: str
    video: str                      # path relative to the corpus folder
    prompt: str
    renderer: Renderer
    source: str                     # scene kind ("thrown_ball", "dominoes", ...) or the external file
    width: int
    height: int
    fps: float
    num_frames: int
    seed: int
    camera: dict[str, float] = Field(default_factory=dict)   # height m, pitch deg, fov deg (simulated clips)
    objects: list[SceneObject] = Field(default_factory=list)
    claims: list[TruthClaim] = Field(default_factory=list)
    defects: list[Defect] = Field(default_factory=list)
    has_audio: bool = False
    notes: list[str] = Field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.defects

    @model_validator(mode="after")
    def _consistent(self) -> "ClipAnnotation":
        names = {o.name for o in self.objects}
        for d in self.defects:
            if d.object not in names:
                raise ValueError(f"defect {d.id}: object {d.object!r} is not among the clip's objects")
            if self.prompt[d.violates.start:d.violates.end] != d.violates.text:
                raise ValueError(f"defect {d.id}: span {d.violates.start}-{d.violates.end} is not "
                                 f"{d.violates.text!r} in the prompt")
            if d.window.end_frame >= self.num_frames:
                raise ValueError(f"defect {d.id}: window ends at frame {d.window.end_frame} of {self.num_frames}")
        for c in self.claims:
            if self.prompt[c.span.start:c.span.end] != c.span.text:
                raise ValueError(f"claim span {c.span.start}-{c.span.end} is not {c.span.text!r} in the prompt")
        return self
