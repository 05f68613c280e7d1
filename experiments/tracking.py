"""Tracking the scene's object in a clip, with the critic's offline tracker.

The critic's ``BackgroundTracker`` finds every moving blob (median background, Otsu, connected components,
Hungarian identities) and ``bind_subject`` keeps the ones matching a colour (when given) and stitches
tracklets that follow each other into one identity. Which identity the job scores is the tracker's ``select``:

* ``longest_track`` (default): the identity observed in the most frames. It never looks at the simulated path:
  a clip has several blobs (a clip generated without control about seven), and choosing the one nearest the path
  scores a path of the clip's own making as following the control - whichever way the path runs, one blob goes
  that way - so retention measured that way cannot fall to chance.
* ``nearest_track``: the identity that stays closest to the simulated path over the whole clip, for scenes where
  the simulation must say *which* of several objects is meant (two balls in a collision); retention on it is an
  upper bound, not a measurement of following.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from critic.specialists.tracking import BackgroundTracker, bind_subject
from critic.types import SubjectSpec, Track


def empty_track(num_frames: int, fps: float, subject: str = "object", backend: str = "") -> Track:
    """A track that never saw the object: retention has no measurable frames (never a made-up path)."""
    nan2 = np.full((num_frames, 2), np.nan)
    return Track(subject=subject, identity=-1, boxes_xyxy=np.full((num_frames, 4), np.nan), centroid_px=nan2,
                 area_px=np.zeros(num_frames), visible=np.zeros(num_frames, bool),
                 coasted=np.zeros(num_frames, bool), touches_border=np.zeros(num_frames, bool),
                 times_s=np.arange(num_frames) / fps, backend=backend, meta={"reason": "no track found"})


class CriticObjectTracker:
    """``object_tracker`` of a release-point job: ``tracker(frames, fps, simulated_px) -> Track``.

    Args:
        subject: the subject's name in the track.
        color: a named colour (``"red"``) to bind by, or None for any moving object.
        select: ``(candidates, simulated_px) -> Track``, the identity to score (``longest_track`` or
            ``nearest_track``, see the module docstring).
        tracker_kwargs: passed to ``critic.specialists.tracking.BackgroundTracker``.
    """

    def __init__(self, subject: str = "object", color: str | None = None,
                 select: Callable[[list[Track], np.ndarray | None], Track] | None = None, **tracker_kwargs: Any):
        self.subject = subject
        self.color = color
        self.select = select or longest_track
        self.tracker_kwargs = tracker_kwargs

    def __call__(self, frames: np.ndarray, fps: float, simulated_px: np.ndarray | None = None) -> Track:
        """Args: ``frames`` (T, H, W, 3) uint8; ``fps`` Hz; ``simulated_px`` (T, 2) projected path or None."""
        frames = np.asarray(frames)
        times = np.arange(len(frames), dtype=np.float64) / float(fps)
        tracker = BackgroundTracker(**self.tracker_kwargs)
        result = tracker.track(frames, times)
        subject = SubjectSpec(name=self.subject, noun=self.subject, color=self.color)
        candidates = bind_subject(result, subject)
        backend = f"{type(tracker).__module__}.{type(tracker).__name__}"
        if not candidates:
            return empty_track(len(frames), fps, self.subject, backend)
        return self.select(candidates, simulated_px)


def _visible_frames(tr: Track) -> int:
    return int(np.sum(tr.visible & ~tr.coasted))


def longest_track(candidates: list[Track], simulated_px: np.ndarray | None = None) -> Track:
    """The candidate observed (not coasted) in the most frames; ties: the larger, then the lower identity.
    ``simulated_px`` is not looked at (see the module docstring)."""
    return max(candidates, key=lambda tr: (_visible_frames(tr), float(np.nan_to_num(tr.radius_px)), -tr.identity))


def nearest_track(candidates: list[Track], simulated_px: np.ndarray | None) -> Track:
    """The candidate closest to the simulated path over the clip, else the longest.

    Closest: the smallest median distance (px) over the frames where the simulated path is defined, a frame the
    candidate does not observe counting as infinitely far (so a candidate seen in fewer than half of them ranks
    after every one seen in more); ties, then the median over the frames it observes, then the most frames."""
    if simulated_px is None:
        return longest_track(candidates)
    sim = np.asarray(simulated_px, dtype=np.float64)
    defined = np.isfinite(sim).all(axis=1)

    def distance(tr: Track) -> tuple[float, float, int]:
        seen = tr.visible & ~tr.coasted & np.isfinite(tr.centroid_px).all(axis=1) & defined
        if not seen.any():
            return (np.inf, np.inf, -_visible_frames(tr))
        gaps = np.full(len(sim), np.inf)
        gaps[seen] = np.linalg.norm(tr.centroid_px[seen] - sim[seen], axis=1)
        return (float(np.median(gaps[defined])), float(np.median(gaps[seen])), -_visible_frames(tr))

    return min(candidates, key=distance)
