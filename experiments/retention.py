"""Trajectory retention: how closely a generated clip's object follows the simulated (projected) path.

Retention is the Pearson correlation between the tracked and the simulated image path, per axis
(``x``: across the frame, px right; ``y``: up/down, px down), separately over two windows of the simulated
motion:

* ``airborne``: the frames inside the trajectory's ``<object>/airborne`` window;
* ``after_ground``: the frames from the start of ``<object>/first_ground_contact`` to the end of the clip.

The same correlation over the whole clip (``clip``: every frame measurable in both) is the generated-vs-control
figure's number (the paper's Fig. 6 caption).

Only frames *measurable in both* count: the tracker observed the object (not coasted) and the projected
centre is finite. A window with fewer than ``min_frames`` such frames, or a constant series, has no
correlation: it is recorded as ``None`` with a reason, never as NaN.

Besides the correlations: the median absolute pixel disagreement per axis, the sideways travel
(x range of the tracked path, px) and the number of frames measurable.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import stats

from experiments.types import RetentionConfig, RetentionScore

AXES = ("x", "y")
WINDOWS = ("airborne", "after_ground")
#: The whole clip, scored like a window (its correlation is the figures' generated-vs-control number).
CLIP = "clip"


def window_frame_masks(t_s: np.ndarray, windows: Mapping[str, object], object_name: str,
                       tolerance_s: float = 1e-6) -> dict[str, np.ndarray]:
    """Boolean frame masks (T,) for the ``airborne`` and ``after_ground`` windows of ``object_name``.

    ``windows`` maps trajectory window names to objects with ``start_s``/``end_s`` (``sim.types.Window``)
    or to ``(start_s, end_s)`` pairs. A window the simulation did not produce gives an all-False mask.
    """
    t = np.asarray(t_s, dtype=np.float64)

    def bounds(key: str) -> tuple[float, float] | None:
        w = windows.get(f"{object_name}/{key}")
        if w is None:
            return None
        if isinstance(w, Mapping):
            return float(w["start_s"]), float(w["end_s"])
        if isinstance(w, (tuple, list)):
            return float(w[0]), float(w[1])
        return float(w.start_s), float(w.end_s)

    masks = {}
    air = bounds("airborne")
    masks["airborne"] = (np.zeros_like(t, dtype=bool) if air is None
                         else (t >= air[0] - tolerance_s) & (t <= air[1] + tolerance_s))
    ground = bounds("first_ground_contact")
    masks["after_ground"] = (np.zeros_like(t, dtype=bool) if ground is None
                             else t >= ground[0] - tolerance_s)
    return masks


def _pearson(a: np.ndarray, b: np.ndarray, min_frames: int) -> tuple[float | None, str]:
    if a.size < min_frames:
        return None, f"too few frames ({a.size} < {min_frames})"
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        which = "tracked" if np.ptp(a) == 0 else "simulated"
        return None, f"{which} path is constant on this axis"
    # Finite: both series are finite (measurable frames only) and neither is constant.
    return float(stats.pearsonr(a, b).statistic), "ok"


def score_retention(tracked_px: np.ndarray, tracked_visible: np.ndarray, simulated_px: np.ndarray,
                    window_masks: Mapping[str, np.ndarray], config: RetentionConfig = RetentionConfig(),
                    tracked_area_px: np.ndarray | None = None) -> RetentionScore:
    """Score one clip.

    Args:
        tracked_px: (T, 2) tracked centroid (x right, y down) px; NaN where unseen.
        tracked_visible: (T,) True where the tracker observed the object (not coasted).
        simulated_px: (T, 2) projected simulated centre px, same convention; NaN where undefined.
        window_masks: name -> (T,) bool, from :func:`window_frame_masks`.
        config: threshold and minimum frames.
        tracked_area_px: (T,) optional tracked mask area, only summarised.

    Returns:
        The clip's :class:`~experiments.types.RetentionScore`: ``windows[name].x``/``.y`` (``r``, ``retained``,
        ``frames``, ``status``) for ``airborne``, ``after_ground`` and ``clip`` (the whole clip), per-window
        and whole-clip ``median_abs_px`` per axis, ``sideways_travel_px``
        (tracked and simulated x range), ``frames_measurable`` and the settings used.
    """
    tracked = np.asarray(tracked_px, dtype=np.float64)
    sim = np.asarray(simulated_px, dtype=np.float64)
    if tracked.shape != sim.shape or tracked.ndim != 2 or tracked.shape[1] != 2:
        raise ValueError(f"tracked {tracked.shape} and simulated {sim.shape} paths must both be (T, 2)")
    measurable = (np.asarray(tracked_visible, dtype=bool) & np.isfinite(tracked).all(axis=1)
                  & np.isfinite(sim).all(axis=1))

    def median_abs(mask: np.ndarray) -> dict[str, float | None]:
        out = {}
        for k, axis in enumerate(AXES):
            d = np.abs(tracked[mask, k] - sim[mask, k])
            out[axis] = float(np.median(d)) if d.size else None
        return out

    windows = {}
    whole_clip = {CLIP: np.ones(len(sim), dtype=bool)}
    for name in (*WINDOWS, CLIP):
        in_window = np.asarray({**window_masks, **whole_clip}.get(name, np.zeros(len(sim), bool)), dtype=bool)
        mask = measurable & in_window
        per_axis = {}
        for k, axis in enumerate(AXES):
            r, status = _pearson(tracked[mask, k], sim[mask, k], config.min_frames)
            per_axis[axis] = {"r": r, "retained": None if r is None else bool(r >= config.threshold),
                              "frames": int(mask.sum()), "status": status}
        windows[name] = {**per_axis, "frames_in_window": int(in_window.sum()),
                         "median_abs_px": median_abs(mask)}

    def x_range(path: np.ndarray, mask: np.ndarray) -> float | None:
        xs = path[mask, 0]
        return float(np.ptp(xs)) if xs.size else None

    sim_ok = np.isfinite(sim).all(axis=1)
    area = None if tracked_area_px is None else np.asarray(tracked_area_px, dtype=np.float64)
    return RetentionScore.model_validate({
        "threshold": config.threshold,
        "min_frames": config.min_frames,
        "frames_total": int(len(sim)),
        "frames_measurable": int(measurable.sum()),
        "windows": windows,
        "median_abs_px": median_abs(measurable),
        "sideways_travel_px": {"tracked": x_range(tracked, measurable), "simulated": x_range(sim, sim_ok)},
        "median_tracked_area_px": (None if area is None or not measurable.any()
                                   else float(np.median(area[measurable]))),
    })


def flat_metrics(score: RetentionScore) -> dict[str, float | int | str | bool | None]:
    """One flat row (for ``summary.csv`` and the tracker): ``r_airborne_x``, ``status_airborne_x``, ...
    Missing correlations stay ``None`` (an empty cell), never NaN."""
    row: dict[str, float | int | str | bool | None] = {
        "frames_measurable": score.frames_measurable,
        "median_abs_px_x": score.median_abs_px["x"],
        "median_abs_px_y": score.median_abs_px["y"],
        "sideways_travel_px": score.sideways_travel_px["tracked"],
        "sideways_travel_sim_px": score.sideways_travel_px["simulated"],
    }
    for name in (*WINDOWS, CLIP):
        if name not in score.windows:  # scored before the whole clip was
            continue
        for axis in AXES:
            cell = score.windows[name].axis(axis)
            row[f"r_{name}_{axis}"] = cell.r
            row[f"retained_{name}_{axis}"] = cell.retained
            row[f"frames_{name}_{axis}"] = cell.frames
            row[f"status_{name}_{axis}"] = cell.status
    return row
