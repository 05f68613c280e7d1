"""Figures over clips' retention scores: passes, their rate and 95 % Wilson interval, median and mean r and the
mean's 95 % bootstrap interval."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from experiments.evaluate_tiny.settings import TinyEvaluation
from experiments.types import RetentionScore


def airborne_rs(score: RetentionScore) -> tuple[float | None, float | None]:
    window = score.windows["airborne"]
    return window.x.r, window.y.r


def passes(score: RetentionScore, threshold: float) -> bool:
    rx, ry = airborne_rs(score)
    return rx is not None and ry is not None and rx >= threshold and ry >= threshold


def mean_r(score: RetentionScore, window: str = "airborne") -> float:
    """Mean over the two axes, an unmeasurable axis counting as 0."""
    scored = score.windows[window]
    return float(np.mean([axis.r if axis.r is not None else 0.0 for axis in (scored.x, scored.y)]))


def mean_interval(values, *, seed: int, confidence: float = 0.95,
                  resamples: int = 2000) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of the mean of ``values`` (one per clip); None for fewer than 2 values."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return None
    if np.all(values == values[0]):  # every resample has the same mean (SciPy would warn and return NaN)
        return float(values[0]), float(values[0])
    res = stats.bootstrap((values,), np.mean, confidence_level=confidence, n_resamples=resamples,
                          method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def proportion_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a pass rate; None without trials."""
    if trials == 0:
        return None
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def figure_of(scores: list[RetentionScore], ev: TinyEvaluation) -> dict[str, Any]:
    """One figure over clips' retention scores: passes (r >= ``ev.pass_threshold`` on both airborne axes), their
    rate and 95 % interval, median r per axis, mean airborne r and its interval, unmeasurable axes."""
    thr = ev.pass_threshold
    k = len(scores)
    rx = [airborne_rs(s)[0] for s in scores]
    ry = [airborne_rs(s)[1] for s in scores]
    passed = int(sum(passes(s, thr) for s in scores))
    airborne = [mean_r(s) for s in scores]
    return {
        "clips": k,
        "pass": passed,
        "pass_rate": passed / k if k else None,
        "pass_rate_ci95": proportion_interval(passed, k),
        "median_r_airborne_x": float(np.median([r if r is not None else 0.0 for r in rx])) if k else None,
        "median_r_airborne_y": float(np.median([r if r is not None else 0.0 for r in ry])) if k else None,
        "mean_r_airborne": float(np.mean(airborne)) if k else None,
        "mean_r_airborne_ci95": mean_interval(airborne, seed=ev.seed),
        "mean_r_after_ground": float(np.mean([mean_r(s, "after_ground") for s in scores])) if k else None,
        "unmeasurable": int(sum(r is None for r in rx + ry)),
    }
