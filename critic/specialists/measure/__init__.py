"""``measure``: the eleven track-based physical measurements (docs/architecture.md §5), offline, from tracks alone.

Displacements are in the subject's radii (``kinematics.radius``), times from the container. Every answer
states what was required and what was measured, and the event windows found (``QuantitySpec.events``). The
tolerances are chosen so that a correct clip is never contradicted by tracking noise; where a check cannot tell
(no level the subject touched, the subject left the frame, slow motion for a magnitude), the state is unknown with
the reason. Each function reports whether the quantity's property holds; the claim's state follows from its
``expect.holds`` (``common.for_expectation``), the same way for every quantity. A
track whose binding to its subject is not firm (``tracking.grounding_doubt``) gives unknown whatever it measured:
the measurement may be about another object.

One module per family of quantities (``fall``: free fall and support, ``bounce``, ``continuity``: continuity and
permanence, ``size``, ``direction``, ``contact``: contact and collision response, ``rest``, ``penetration``) and
what they share in ``common``. :data:`MEASURES` names the function of each quantity of
:data:`critic.types.QUANTITY_SPECS`; importing this module fails when the two disagree.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import observed
from critic.specialists.measure.bounce import bounce
from critic.specialists.measure.common import Measure, Tolerances, for_expectation, pick, withhold_if_doubtful
from critic.specialists.measure.contact import collision_response, contact
from critic.specialists.measure.continuity import ACROSS_INSTANCES, WITHOUT_TRACKS, continuity, permanence
from critic.specialists.measure.direction import direction
from critic.specialists.measure.fall import free_fall, support
from critic.specialists.measure.penetration import penetration
from critic.specialists.measure.rest import rest
from critic.specialists.measure.size import size_constancy
from critic.specialists.measure.still import still
from critic.specialists.tracking import binding_doubt, identity_doubt, may_be_absent
from critic.types import QUANTITY_SPECS, Cost, Measurement, MeasureOp, OperationInputs, Track, VideoContext

__all__ = ["MEASURES", "TrackMeasurer", "check_measures", "withhold_if_doubtful"]

#: The function that measures each quantity (keys: exactly those of ``critic.types.QUANTITY_SPECS``).
MEASURES: dict[str, Measure] = {
    "free_fall": free_fall,
    "support": support,
    "bounce": bounce,
    "penetration": penetration,
    "continuity": continuity,
    "permanence": permanence,
    "size_constancy": size_constancy,
    "direction": direction,
    "collision_response": collision_response,
    "rest": rest,
    "still": still,
    "contact": contact,
}


def check_measures(measures: Mapping[str, Measure]) -> None:
    """Raise ``LookupError`` unless ``measures`` has one function for every quantity of the registry and no other."""
    missing = sorted(set(QUANTITY_SPECS) - set(measures))
    extra = sorted(set(measures) - set(QUANTITY_SPECS))
    if missing or extra:
        raise LookupError(f"measuring functions disagree with critic.types.QUANTITY_SPECS: no function for "
                          f"{missing or 'none'}, function for unknown quantities {extra or 'none'}")


check_measures(MEASURES)

#: the most bindings (the bound track and its rivals, times those of the other subject) measured for one operation
MAX_BINDINGS = 8


class TrackMeasurer:
    """``measure`` specialist over tracks (offline default): picks the instance of each subject to measure, runs
    the quantity's function from :data:`MEASURES` (which reports whether the quantity's property holds), adds
    what only the subject's tracks together show (:data:`ACROSS_INSTANCES`), turns the property's state into the
    claim's (``expect.holds=False`` asserts it absent) and withholds a state measured on a doubtful track. The
    arguments are tolerances (:class:`critic.specialists.measure.common.Tolerances` says what each one means)."""

    name = "tracks"
    version = "95"

    def __init__(self, teleport_radii: float = 2.5, hover_radii: float = 1.5, morph_ratio: float = 1.6,
                 morph_window_s: float = 0.3, rest_speed_radii_per_s: float = 1.0, contact_gap_radii: float = 0.35,
                 noise_sigmas: float = 6.0, min_change_px: float = 2.5, abrupt_step: float = 1.4,
                 rest_morph_ratio: float = 1.3, sideways_accel_ratio: float = 0.5, step_morph_ratio: float = 1.3,
                 min_bounce_drop_radii: float = 2.5):
        self.tolerances = Tolerances(
            teleport_radii=teleport_radii, hover_radii=hover_radii, morph_ratio=morph_ratio,
            morph_window_s=morph_window_s, rest_speed_radii_per_s=rest_speed_radii_per_s,
            contact_gap_radii=contact_gap_radii, noise_sigmas=noise_sigmas, min_change_px=min_change_px,
            abrupt_step=abrupt_step, rest_morph_ratio=rest_morph_ratio,
            sideways_accel_ratio=sideways_accel_ratio, step_morph_ratio=step_morph_ratio,
            min_bounce_drop_radii=min_bounce_drop_radii)

    def runs_without_tracks(self, op: MeasureOp, missing: list[str]) -> bool:
        """Whether :meth:`run` can tell something when the subjects ``missing`` have no track: only its own subject
        (not a partner), for a quantity of :data:`WITHOUT_TRACKS`."""
        return list(missing) == [op.subject] and op.quantity in WITHOUT_TRACKS

    def run(self, op: MeasureOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        track = pick(inputs.tracks.get(op.subject, ()))
        if track is None:
            # no track: only what the clip's pixels say of the subject as a whole (is it there at all?)
            found = self._without_tracks(op, inputs, video)
            return found if found is not None else unknown(f"'{op.subject}' was not found in the clip",
                                                           required=op.quantity)
        # seen in the clip's first or last two frames only (``pick``): whether it stays is all they can tell
        two_frames = int(observed(track).sum()) < 3
        if two_frames and op.quantity != "permanence":
            return unknown(f"'{op.subject}' is seen in the clip's first or last two frames only", required=op.quantity)
        other = pick(inputs.tracks.get(op.other, ())) if op.other else None
        if op.other and other is None:
            return unknown(f"'{op.other}' was not found in the clip", required=op.quantity)
        if other is not None and int(observed(other).sum()) < 3:
            return unknown(f"'{op.other}' is seen in the clip's first or last two frames only", required=op.quantity)
        result = self._measured(op, track, other, inputs.tracks.get(op.subject, ()), inputs, video)
        if two_frames and result.state == "supported":
            # two frames can show a body go, not that it stays: lost by the tracker is no evidence of staying
            return unknown(f"'{op.subject}' is seen in the clip's first or last two frames only: that it stays is "
                           "not observed", required=result.required)
        agreed = self._on_every_binding(op, track, other, result, inputs, video)
        if agreed is not None:
            return agreed
        withheld = withhold_if_doubtful(result, [track] + ([other] if other is not None else []))
        if withheld.state == "unknown" and other is None and may_be_absent(track):
            # bound only loosely, absence fitting as well: when the pixels alone find no body of its colour anywhere,
            # neither the track nor any of its rivals is the subject (a claim only contradicted so, never supported)
            absent = self._without_tracks(op, inputs, video)
            if absent is not None and absent.state == "contradicted":
                return absent.model_copy(update={"measured": f"{absent.measured} (the track it was bound to "
                                                             f"loosely, {int(track.identity)}, is not of its colour)"})
        return withheld

    def _without_tracks(self, op: MeasureOp, inputs: OperationInputs, video: VideoContext) -> Measurement | None:
        """The claim's state from what the clip's pixels alone say of the subject (:data:`WITHOUT_TRACKS`: is it
        there at all?), or None when the quantity has no such test."""
        without = WITHOUT_TRACKS.get(op.quantity)
        if without is None:
            return None
        return for_expectation(op, without(op, inputs.subjects.get(op.subject), video, self.tolerances,
                                           inputs.prompt))

    def _measured(self, op: MeasureOp, track: Track, other: Track | None, instances: tuple[Track, ...],
                  inputs: OperationInputs, video: VideoContext) -> Measurement:
        """The claim's state measured on ``track`` (and ``other``), ``instances`` being all the subject's tracks."""
        result = MEASURES[op.quantity](op, track, other, video, self.tolerances)
        across = ACROSS_INSTANCES.get(op.quantity)
        if across is not None and result.state != "unknown":
            # a jump that splits the subject's track in two, or an instance that appears from nothing, is only
            # visible across the subject's tracks (a singular subject should have one)
            spec = inputs.subjects.get(op.subject)
            singular = spec is not None and not spec.is_group(inputs.prompt) and (spec.count or 1) == 1
            found = across(instances, video, self.tolerances, singular)
            if found is not None:
                result = found
        # every function reports the state of the property; the claim may assert it absent
        result = for_expectation(op, result)
        if result.state == "contradicted" and result.window is None and result.values.get("property_state"):
            # a property that held throughout contradicts its denial over the frames it was measured on
            seen = np.flatnonzero(observed(track))
            result = result.model_copy(update={"window": video.window(int(seen[0]), int(seen[-1]))})
        if result.state == "contradicted" and result.window is None:
            # a contradiction must point at the frames that show it
            result = result.model_copy(update={"state": "unknown", "reason": "contradicted, but no window of frames "
                                               "shows it: withheld", "values": {**result.values,
                                                                                 "withheld": "contradicted"}})
        return result

    def _on_every_binding(self, op: MeasureOp, track: Track, other: Track | None, result: Measurement,
                          inputs: OperationInputs, video: VideoContext) -> Measurement | None:
        """The claim supported under every binding the grounding left open, or None (then a doubtful binding
        withholds the state as before). Where the subject (or ``other``) is not bound firmly, its rivals
        (``Track.rivals``) are what else it may be; each binding is measured as the bound track is, and the claim
        is supported when every binding supports it (at most ``MAX_BINDINGS`` are measured). A subject that may be
        absent from the clip supports nothing.

        Only support is settled so: a contradiction must rest on the subject's own track, since a track that is
        another body, or a piece of one, shows the measurement's own failures (a rebound the segmentation lost
        against a wall of a near colour reads as none on every piece of the ball). The support is firm, but no
        binding's event windows are: the result keeps none, so a temporal check on them stays unknown."""
        if result.state != "supported" or not any(binding_doubt(t) for t in (track, other) if t is not None):
            return None
        choices: list[list[Track | None]] = []
        for t in (track, other):
            if t is None:
                choices.append([None])
                continue
            binding = (t.meta or {}).get("binding") or {}
            if identity_doubt(t) or any(identity_doubt(r) for r in t.rivals):
                return None  # a track that does not follow one object measures nothing firmly
            if not binding_doubt(t):
                choices.append([t])
                continue
            if "rivals" not in binding or len(t.rivals) != len(binding["rivals"]) or binding.get("absent_fits") \
                    or not t.rivals:
                return None  # what else it may be was not recorded, or it may be nothing in the clip
            choices.append([t, *t.rivals])
        bindings = [(a, b) for a in choices[0] for b in choices[1] if b is None or b.identity != a.identity]
        if len(bindings) > MAX_BINDINGS:
            return None
        results = [result] + [self._measured(op, a, b, (a,), inputs, video) for a, b in bindings[1:]]
        if any(r.state != "supported" for r in results):
            return None
        return Measurement(state="supported", required=result.required,
                           measured=f"{result.measured} - alike on all {len(bindings)} tracks that may be the subject",
                           values={**result.values, "bindings": [
                               {"subject": int(a.identity), "other": None if b is None else int(b.identity),
                                "measured": r.measured} for (a, b), r in zip(bindings, results)]},
                           cost=Cost(tool_calls=result.cost.tool_calls * len(bindings)))
