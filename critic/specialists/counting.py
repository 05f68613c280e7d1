"""``count``: identity-based counting of a grounded subject's tracks (docs/architecture.md §5)."""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.grounding import ELONGATED_NOUNS, box_aspect
from critic.specialists.kinematics import runs
from critic.specialists.tracking import grounding_doubt, travel_radii
from critic.types import Cost, CountOp, Measurement, OperationInputs, Track, VideoContext


class IdentityCounter:
    """Counts distinct identities (tracks after stitching) seen in at least ``min_frames`` frames.

    A count of zero is unknown (grounding may have missed the subject); a different positive count (with
    ``at_least``: a smaller one) is contradicted, with the frames where the number of instances in view disagrees
    with ``n``. Instances bound by kin (an uncoloured plural given the named bodies of its kind, all the clip
    shows: ``grounding.ground_subjects``) bound the count from above: fewer than ``n`` is contradicted, more is
    unknown. Fewer identities than ``n`` found by motion alone (no colour named) count when the prompt says every
    instance moves (``op.moving``) and each identity is one body of a compact kind (``_one_body``); more stay
    unknown (moving blobs split into parts and shadows). More bodies than ``n`` among ``op.kin`` (of the kind,
    named on their own and said to move as the counted ones do), each one firmly bound track seen moving, is
    contradicted: a number said of a kind counts them too."""

    name = "identity"
    version = "6"

    def __init__(self, min_frames: int = 3):
        self.min_frames = min_frames

    def run(self, op: CountOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        tracks: list[Track] = [t for t in inputs.tracks.get(op.subject, ())
                               if int(np.asarray(t.visible).sum()) >= self.min_frames]
        required = f"{'at least ' if op.at_least else ''}{op.n} distinct '{op.subject}'"
        named = _named_movers(op, inputs)
        if named is not None and len(named) > op.n and not op.at_least:
            # more bodies of the kind, each named on its own and seen moving as the prompt says the counted ones
            # do, than the number said of the kind: the number is wrong whatever else the clip shows
            in_named = _in_view([t for _, t in named])
            over = runs(in_named > op.n)
            seen = runs(in_named > 0)
            s, e = (over[0][0], over[-1][1]) if over else (seen[0][0], seen[-1][1])
            names = ", ".join(n for n, _ in named)
            return Measurement(state="contradicted", required=required,
                               measured=f"{len(named)} of its kind named on their own ({names}), each bound firmly "
                                        f"and seen moving as said (at most {int(in_named.max())} in view at once)",
                               values={"named": [n for n, _ in named]}, window=video.window(s, e),
                               cost=Cost(tool_calls=1))
        if not tracks:
            return unknown(f"no '{op.subject}' was grounded", required=required)
        found = len(tracks)
        in_view = _in_view(tracks)
        values = {"identities": [int(t.identity) for t in tracks], "max_in_view": int(in_view.max())}
        measured = f"{found} distinct identities (at most {int(in_view.max())} in view at once)"
        kin = [t for t in tracks if ((t.meta or {}).get("binding") or {}).get("by") == "kin"]
        if kin and found > op.n and not op.at_least:
            # the named bodies of the kind are more than the number said of it: the plural may be some of them
            return unknown(f"{found} bodies of the kind are named and seen; '{op.subject}' may be {op.n} of them",
                           required=required, **values)
        if found == op.n or (op.at_least and found > op.n):
            return Measurement(state="supported", required=required, measured=measured, values=values,
                               cost=Cost(tool_calls=1))
        if kin:
            names = sorted({n for t in kin for n in t.meta["binding"].get("kin", [])})
            measured = (f"{found} of its kind in the clip, all named on their own ({', '.join(names)}), and no other "
                        f"body there (at most {int(in_view.max())} in view at once)")
        wrong = runs(in_view < op.n) if op.at_least else runs(in_view != op.n)
        if found > op.n:
            # the frames where more instances than claimed are in view (an extra object appeared)
            extra = runs(in_view > op.n)
            wrong = extra or wrong
        s, e = (wrong[0][0], wrong[-1][1]) if wrong else (0, video.num_frames - 1)
        doubts = sorted({d for d in (grounding_doubt(t) for t in tracks) if d})
        by = sorted({str((t.meta or {}).get("binding", {}).get("by", "")) for t in tracks} & {"motion", "any"})
        spec = inputs.subjects.get(op.subject)
        if by and not doubts and op.moving and found < op.n and not op.at_least \
                and all(_one_body(t, spec.noun if spec else "") for t in tracks):
            # fewer than said, where every instance is said to move and each moving blob found is one body of the
            # kind: motion finds them all (splits and shadows add blobs; they do not take one away)
            by = []
        if by and not doubts:
            doubts = [f"'{op.subject}' was found by {by[0]} alone (no colour): moving blobs split into parts and "
                      "shadows and merge when they touch, so their number is not a count of objects"]
        if doubts:
            # identities found by motion alone split and merge (shadows, parts, occlusions): not a count
            return Measurement(state="unknown", required=required, measured=measured, values=values,
                               reason="; ".join(doubts) + " - the count mismatch is withheld",
                               cost=Cost(tool_calls=1))
        return Measurement(state="contradicted", required=required, measured=measured, values=values,
                           window=video.window(s, e), cost=Cost(tool_calls=1))


def _in_view(tracks: list[Track]) -> np.ndarray:
    """(T,) int: how many of ``tracks`` are in view (seen, or coasted over a short loss) in each frame."""
    return np.sum([np.asarray(t.visible) | np.asarray(t.coasted) for t in tracks], axis=0)


def _named_movers(op: CountOp, inputs: OperationInputs, min_travel_radii: float = 1.0,
                  ) -> list[tuple[str, Track]] | None:
    """The bodies of ``op.kin`` (named on their own, said to move as the counted ones do) as (name, track), or None
    when any of them is not one firmly bound track that moves (``min_travel_radii`` or more) or two of them may be
    one body (within the larger radius of each other over the frames both are seen): then they tell no count."""
    named: list[tuple[str, Track]] = []
    for name in op.kin:
        found = inputs.tracks.get(name, ())
        if len(found) != 1 or grounding_doubt(found[0]) or travel_radii(found[0]) < min_travel_radii:
            return None
        named.append((name, found[0]))
    for i, (_, a) in enumerate(named):
        for _, b in named[i + 1:]:
            both = np.asarray(a.visible, bool) & np.asarray(b.visible, bool)
            if not both.any():
                return None  # never seen together: one body's two tracklets, for all the counter can tell
            apart = np.linalg.norm(a.centroid_px[both] - b.centroid_px[both], axis=1)
            if float(np.median(apart)) <= max(a.radius_px, b.radius_px):
                return None
    return named


def _one_body(track: Track, noun: str, max_aspect: float = 1.5) -> bool:
    """Whether ``track`` is one body of a compact kind (``noun`` not elongated): one tracklet (not two bodies
    stitched one after the other), its box about as wide as high (median long / short side at most
    ``max_aspect``: two bodies side by side in one blob are twice as wide). A merge for a few frames (coasted)
    takes no identity away: both are found on either side of it."""
    if noun in ELONGATED_NOUNS or len((track.meta or {}).get("tracklets", [track.identity])) > 1:
        return False
    seen = np.asarray(track.visible, bool) & ~np.asarray(track.coasted, bool)
    return int(seen.sum()) >= 3 and box_aspect(track) <= max_aspect
