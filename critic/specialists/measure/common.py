"""What every measurement module shares: the measurer's tolerances, the signature of a measuring function,
the choice of the instance to measure, and the way an answer is written and withheld.

Displacements are in the subject's radii (``kinematics.radius``), times from the container.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from critic.specialists.kinematics import observed
from critic.specialists.tracking import at_clip_edge, grounding_doubt
from critic.types import Cost, Measurement, MeasureOp, Track, VideoContext


@dataclass(frozen=True)
class Tolerances:
    """The measurer's options (the arguments of ``critic.specialists.measure.TrackMeasurer``, which holds their
    defaults), in radii, seconds, pixels or ratios."""

    #: a jump larger than this many radii against the neighbouring velocities is a teleport
    teleport_radii: float
    #: a stationary run this many radii above the level the subject had landed on is hovering
    hover_radii: float
    #: a size change beyond this ratio within ``morph_window_s`` is morphing (depth changes are slower)
    morph_ratio: float
    morph_window_s: float
    #: at the end of the clip, faster than twice this is still moving
    rest_speed_radii_per_s: float
    #: centres closer than the two radii plus this many (smaller) radii are touching
    contact_gap_radii: float
    #: a size change must exceed this many robust sigmas of the track's frame-to-frame log-size noise
    noise_sigmas: float
    #: ... and this many pixels of radius (box sides are whole pixels; blur adds about one)
    min_change_px: float
    #: a radius step larger than this between consecutive frames is a merge or split of blobs
    abrupt_step: float
    #: at rest, a sustained change of the radius of the subject's own colour area beyond this ratio is morphing (a
    #: resting body cannot move in depth, and its colour area is steady to a few pixels)
    rest_morph_ratio: float
    #: a step of the radius from one frame to the next beyond this ratio, held steady on both sides, is morphing (a
    #: move in depth changes the size by a few per cent a frame)
    step_morph_ratio: float
    #: in a fall from no sideways speed, a sideways acceleration of this share of the downward one or more is a
    #: force other than gravity (a body falling off the camera's axis drifts by a small share only)
    sideways_accel_ratio: float
    #: a landing without a rebound denies a bounce only after a drop of this many radii or more: a body with a
    #: restitution of 0.35 (a dull ball) rises 0.12 of its drop, which the contact finder tells from jitter (0.3
    #: radius) from a drop of 2.5 radii on
    min_bounce_drop_radii: float


#: A measuring function: ``(op, track, other, video, tolerances) -> Measurement``, where ``track`` is the instance
#: of ``op.subject`` to measure and ``other`` that of ``op.other`` (None when the operation names no other subject).
Measure = Callable[[MeasureOp, Track, Track | None, VideoContext, Tolerances], Measurement]


def pick(tracks: tuple[Track, ...]) -> Track | None:
    """The instance to measure: the one observed longest (a subject with several instances is measured on
    each by the executor's plan; here the best-observed one). None when none is observed in 3 frames, or in the
    clip's first or last two (``tracking.at_clip_edge``: all that a body vanishing at the third frame shows)."""
    tracks = [t for t in tracks if observed(t).sum() >= 3 or (at_clip_edge(t) and observed(t).sum() == 2)]
    # the most salient instance: seen longest, weighted by its size
    return max(tracks, key=lambda t: int(observed(t).sum()) * max(t.radius_px, 0.0)) if tracks else None


def withhold_if_doubtful(result: Measurement, tracks: list[Track]) -> Measurement:
    """A state measured on a track that may not be its subject (ambiguous grounding, see
    ``tracking.binding_evidence``) is evidence neither against nor for the prompt: it becomes unknown, keeping
    what was measured, the event windows found, and why the state is withheld."""
    if result.state == "unknown":
        return result
    doubts = [d for d in (grounding_doubt(t) for t in tracks) if d]
    if not doubts:
        return result
    what = "contradiction" if result.state == "contradicted" else "support"
    return Measurement(state="unknown", required=result.required, measured=result.measured,
                       reason="; ".join(doubts) + f" - the {what} measured on it is withheld",
                       windows=result.windows, values={**result.values, "withheld": result.state},
                       cost=result.cost)


def for_expectation(op: MeasureOp, result: Measurement) -> Measurement:
    """The state of the claim from the state of the property: every measuring function reports whether the
    quantity's property holds (a bounce, a fall, a pass into the floor); a claim that asserts it absent
    (``expect.holds=False``: "does not fall", or the implicit "does not pass into the floor") is supported
    exactly when the property is contradicted, and the other way round. Unknown stays unknown; what was
    measured, the windows and the raw values are kept, so a contradiction keeps its evidence."""
    if op.expect.holds or result.state == "unknown":
        return result
    flipped = "contradicted" if result.state == "supported" else "supported"
    return result.model_copy(update={"state": flipped,
                                     "values": {**result.values, "property_state": result.state}})


def phrase(op: MeasureOp, present: str, absent: str) -> str:
    """The requirement in words for the claim's expectation: ``present`` when the property is asserted,
    ``absent`` when it is asserted absent."""
    return present if op.expect.holds else absent


def floor_row_of(track: Track) -> float | None:
    """The background's floor line (px row) the grounder recorded with the track, None when there is none."""
    v = (track.meta or {}).get("floor_row_px")
    return float(v) if v is not None else None


def measurement(state: str, required: str, measured: str, *, window=None, windows=None, occurrences=None,
                reason: str = "", **values: Any) -> Measurement:
    """One tool call's answer; ``values`` are made JSON-friendly (numpy scalars to Python, NaN to None)."""
    return Measurement(state=state, required=required, measured=measured, reason=reason, window=window,
                       windows=windows or {}, occurrences=occurrences or {}, values=jsonable(values),
                       cost=Cost(tool_calls=1))


def jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return round(f, 6) if np.isfinite(f) else None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v
