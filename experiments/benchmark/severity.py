"""Severity 1-5 of an inserted defect, from the size of the edit (the rules of ``docs/benchmark.md``, Corpus §4).

Each rule maps one number the builder knows exactly (a jump in the object's radii, a hold in seconds, a sound
shift in milliseconds, ...) onto five buckets by fixed thresholds. The thresholds were written down before any
clip was built and before any critic was run; they are never tuned to a critic's results.
"""

from __future__ import annotations

import bisect

#: Upper bounds of severities 1..4 (a value at or above the last bound is severity 5).
DISTANCE_RADII = (1.5, 3.0, 6.0, 12.0)        # teleport, wrong direction, anti-gravity, bounce errors
DURATION_S = (0.2, 0.4, 0.7, 1.2)             # hover, freeze, unexplained stop
DEPTH_RADII = (0.3, 0.7, 1.2, 1.8)            # pass-through (floor, wall, object), penetration on contact
SCALE_RATIO = (1.15, 1.3, 1.6, 2.2)           # morph: max(s, 1/s) of the size change
SIZE_PX = (3.0, 6.0, 12.0, 24.0)              # vanish, appear: apparent radius in pixels
ACCEL_G = (0.25, 0.5, 1.0, 2.0)               # wrong acceleration: error in units of g
SOUND_MS = (40.0, 80.0, 150.0, 300.0)         # sound early / late: shift in milliseconds
ORDER_GAP_S = (0.15, 0.3, 0.6, 1.0)           # wrong order: time between the two events
SOUND_MISSING = 4
MISSING_OBJECT = 4
#: Wrong count: 3 for one object off, 4 for two, 5 for three or more.
COUNT_BASE = 2
#: Wrong text: 2 for one changed character, 3 up to a third of the characters, 4 for more, 5 for a wholly
#: different word; one less when the text is under 10 px tall.
TEXT_SMALL_PX = 10.0


def bucket(value: float, bounds: tuple[float, float, float, float]) -> int:
    """1 + the number of bounds ``<= value`` (so 1..5)."""
    return 1 + bisect.bisect_right(list(bounds), float(value))


def clamp(severity: int) -> int:
    return max(1, min(5, int(severity)))


def low_contrast_penalty(severity: int, contrast: float) -> int:
    """One less for an object whose colour is within 0.12 (RGB distance in [0, 1]^3) of what is behind it:
    a defect on a barely visible object is harder for a person to see."""
    return clamp(severity - 1) if contrast < 0.12 else clamp(severity)


def teleport(jump_radii: float) -> int:
    return bucket(jump_radii, DISTANCE_RADII)


def duration(seconds: float) -> int:
    return bucket(seconds, DURATION_S)


def depth(depth_radii: float) -> int:
    return bucket(depth_radii, DEPTH_RADII)


def morph(scale: float) -> int:
    ratio = max(scale, 1.0 / scale)
    return bucket(ratio, SCALE_RATIO)


def size_px(radius_px: float) -> int:
    return bucket(radius_px, SIZE_PX)


def acceleration(error_g: float) -> int:
    return bucket(error_g, ACCEL_G)


def sound_shift(shift_ms: float) -> int:
    return bucket(abs(shift_ms), SOUND_MS)


def order_gap(gap_s: float) -> int:
    return bucket(gap_s, ORDER_GAP_S)


def count(difference: int) -> int:
    return clamp(COUNT_BASE + abs(int(difference)))


def text(shown: str, quoted: str, height_px: float) -> int:
    changed = sum(a != b for a, b in zip(shown, quoted)) + abs(len(shown) - len(quoted))
    if not set(shown) & set(quoted):
        sev = 5
    elif changed <= 1:
        sev = 2
    elif changed <= max(1, len(quoted)) / 3:
        sev = 3
    else:
        sev = 4
    return clamp(sev - 1) if height_px < TEXT_SMALL_PX else sev
