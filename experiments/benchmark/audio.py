"""Impact sounds: a short decaying click at each simulated contact onset, written as the clip's audio track.

The click is a 25 ms burst (a 1.8 kHz and a 3.1 kHz sine under an exponential decay, 4 ms time constant)
whose loudness grows with the impact speed. Sound defects move or drop one click; everything else stays.
"""

from __future__ import annotations

import numpy as np

RATE_HZ = 16000
CLICK_S = 0.025


def click(speed_mps: float) -> np.ndarray:
    t = np.arange(int(CLICK_S * RATE_HZ)) / RATE_HZ
    amp = 0.25 + 0.6 * min(1.0, speed_mps / 4.0)
    wave = 0.6 * np.sin(2 * np.pi * 1800 * t) + 0.4 * np.sin(2 * np.pi * 3100 * t)
    return (amp * np.exp(-t / 0.004) * wave).astype(np.float32)


def track(duration_s: float, clicks: list[tuple[float, float]]) -> np.ndarray:
    """Mono float32 samples for ``duration_s`` with a click (time s, speed m/s) at each entry (clipped)."""
    out = np.zeros(int(round(duration_s * RATE_HZ)) + 1, np.float32)
    for time_s, speed in clicks:
        a = int(round(time_s * RATE_HZ))
        if a < 0 or a >= len(out):
            continue
        c = click(speed)
        n = min(len(c), len(out) - a)
        out[a:a + n] += c[:n]
    return np.clip(out, -1.0, 1.0)
