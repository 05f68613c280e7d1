"""Calibrated colour names in CIELAB: what a person would call a track's colour, and how far a colour is from
a name the prompt used.

Colours are compared in CIELAB (``cv2.cvtColor`` on float RGB in [0, 1]: L* in [0, 100], a* and b* roughly in
[-128, 127]) because distances there follow perceived differences. Shading changes lightness far more than hue,
so a chromatic name is matched mostly by hue angle (h = atan2(b*, a*)) and chroma (C = hypot(a*, b*)), and
lightness counts only weakly; the achromatic names (black, grey, white, silver) are low chroma and split by
lightness. Every reference is a plain sRGB triple, so the table can be read and checked by eye.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

#: Reference sRGB colours (0..255) per name; a name may have several (e.g. a light and a dark shade).
REFERENCES: dict[str, list[tuple[int, int, int]]] = {
    "red": [(200, 30, 30), (130, 20, 35), (110, 20, 40), (70, 10, 35)],
    "maroon": [(110, 20, 40)],
    "crimson": [(220, 20, 60)],
    "scarlet": [(255, 36, 0)],
    "orange": [(255, 140, 0), (200, 100, 30)],
    "yellow": [(240, 220, 40), (190, 180, 90)],
    "gold": [(212, 175, 55)],
    "golden": [(212, 175, 55)],
    "green": [(40, 160, 50), (30, 90, 40), (120, 170, 60)],
    "teal": [(0, 128, 128), (30, 100, 90)],
    "turquoise": [(64, 224, 208)],
    "cyan": [(0, 200, 220)],
    "blue": [(30, 60, 200), (40, 60, 120), (60, 130, 220)],
    "navy": [(20, 30, 100)],
    "indigo": [(75, 0, 130)],
    "purple": [(128, 50, 160), (90, 40, 110)],
    "violet": [(140, 80, 220)],
    "magenta": [(220, 40, 200)],
    "pink": [(250, 130, 170), (230, 60, 110)],
    "brown": [(130, 80, 40), (90, 55, 35)],
    "tan": [(210, 180, 140)],
    "beige": [(225, 210, 175)],
}
#: Achromatic names: lightness range (L*, low and high) for colours under ``ACHROMATIC_CHROMA``.
ACHROMATIC: dict[str, tuple[float, float]] = {
    "black": (0.0, 22.0), "gray": (22.0, 82.0), "grey": (22.0, 82.0), "silver": (55.0, 88.0),
    "white": (82.0, 100.0)}
#: Chroma (C*) under which a colour reads as black, grey or white rather than as a hue.
ACHROMATIC_CHROMA = 12.0
#: Chroma a colour needs to count fully as its hue: at least ``MIN_CHROMA``, and ``CHROMA_PER_LIGHTNESS``
#: times its L*; under it a chromatic name fits less and less, and not at all at half of it (a dull red such as
#: skin is no "red"; a near-black blob has no reliable hue).
MIN_CHROMA = 12.0
CHROMA_PER_LIGHTNESS = 0.55
#: Names that are said but mean another name here.
ALIASES = {"violet": "purple", "navy": "blue", "maroon": "red", "crimson": "red", "scarlet": "red",
           "golden": "gold", "turquoise": "cyan"}
#: The finer names :func:`name_colour` gives that people also call by a basic colour term: a teal ball is "green"
#: to many and "blue" to others, an indigo one blue or purple, gold a yellow, tan a brown, silver a grey. A body the
#: prompt names by the basic term may show the finer name in every pixel.
SHADES: dict[str, tuple[str, ...]] = {
    "green": ("teal",), "blue": ("teal", "cyan", "indigo"), "purple": ("indigo", "magenta"), "pink": ("magenta",),
    "yellow": ("gold",), "brown": ("tan", "beige"), "grey": ("silver",), "white": ("silver", "beige")}
#: Hue angle (degrees) at which a chromatic name's cost reaches 1 (the names around it are about that far).
HUE_SCALE_DEG = 60.0


def canonical(name: str) -> str:
    """The one name this module gives a colour that is said several ways: aliases resolved ("violet" ->
    "purple"), "gray" -> "grey", lower case; the names :func:`name_colour` returns."""
    low = name.lower()
    return "grey" if low == "gray" else ALIASES.get(low, low)


def shades_of(name: str) -> frozenset[str]:
    """The canonical names a person may mean by ``name``: itself and, for a basic colour term, the finer names
    (:data:`SHADES`) of its range: ``shades_of("green")`` -> ``{"green", "teal"}``."""
    key = canonical(name)
    return frozenset((key, *SHADES.get(key, ())))


def known(name: str | None) -> bool:
    """Whether ``name`` is a colour this module can measure."""
    return bool(name) and (name.lower() in REFERENCES or name.lower() in ACHROMATIC)


def named_in(text: str) -> list[str]:
    """The colour names this module can measure that ``text`` uses (aliases resolved, lower case, first use
    first, each once): ``named_in("a violet cube and a red ball")`` -> ``["purple", "red"]``."""
    out: list[str] = []
    for word in re.findall(r"[a-z]+", text.lower()):
        name = ALIASES.get(word, word)
        if known(name) and name not in out:
            out.append(name)
    return out


def rgb_to_lab(rgb: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """(..., 3) sRGB in 0..255 -> (..., 3) CIELAB (L* 0..100, a*, b*), as ``dtype`` (OpenCV computes in float32:
    ``np.float32`` saves a copy on whole frames)."""
    rgb = np.asarray(rgb)
    arr = rgb.astype(np.float32).reshape(-1, 1, 3)
    arr /= np.float32(255.0)
    # no clip to 0..1 first: OpenCV's float conversion clamps each channel to 0..1 itself (a test holds it to that),
    # and a whole clip's frames are converted at once
    lab = cv2.cvtColor(arr, cv2.COLOR_RGB2LAB).reshape(rgb.shape)
    return lab.astype(dtype, copy=False)


def norm_last_axis(x: np.ndarray) -> np.ndarray:
    """Euclidean length over the last axis of ``x`` (..., k) -> (...): the bits of ``np.linalg.norm(x, axis=-1)``
    (the squares summed in the same order, first to last, in ``x``'s float type), several times faster for the two
    or three components of image vectors and colours, which numpy reduces by a slow strided loop (a whole clip's
    colour differences are taken at once). Other lengths are numpy's own."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.inexact):
        x = x.astype(float)
    if x.ndim == 0 or x.shape[-1] not in (2, 3) or np.iscomplexobj(x):
        return np.linalg.norm(x, axis=-1)
    squares = x * x
    total = squares[..., 0] + squares[..., 1]
    if x.shape[-1] == 3:
        total += squares[..., 2]
    return np.sqrt(total, out=total)


def delta_e(rgb: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """CIE76 colour difference of each of the (..., 3) sRGB colours (0..255) from the CIELAB colour ``lab`` (3,)
    -> (...,) float: Euclidean distance in L*a*b* (about 2.3 is a just noticeable difference)."""
    rgb = np.asarray(rgb, np.float64)
    return norm_last_axis(rgb_to_lab(rgb.reshape(-1, 3)) - np.asarray(lab, np.float64)).reshape(rgb.shape[:-1])


def _hue_chroma(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.degrees(np.arctan2(lab[..., 2], lab[..., 1])) % 360.0, np.hypot(lab[..., 1], lab[..., 2])


_REF_LAB = {name: rgb_to_lab(np.array(refs, float)) for name, refs in REFERENCES.items()}


def colour_cost(rgb: np.ndarray, name: str, shade: str | None = None) -> np.ndarray:
    """How far each of the (N, 3) sRGB colours is from the colour ``name`` -> (N,) float, 0 = the reference,
    about 1 = the neighbouring name (60 degrees of hue, or a grey for a hue), more = clearly another colour.

    Chromatic names: the hue angle difference to the nearest reference over ``HUE_SCALE_DEG``, plus a penalty
    when the colour is nearly achromatic (a grey is no "green"), plus a weak lightness term. ``shade`` ("dark",
    "light", "pale", "bright", "deep") moves the expected lightness. Achromatic names: the chroma over
    ``ACHROMATIC_CHROMA`` plus the lightness distance outside the name's range, in units of 20 L*."""
    return _cost_of_lab(rgb_to_lab(np.atleast_2d(np.asarray(rgb, float))), name, shade)


def colour_costs(rgb: np.ndarray, names: list[str], shade: str | None = None) -> np.ndarray:
    """:func:`colour_cost` of the (N, 3) sRGB colours for each of ``names`` -> (N, len(names)), converting the
    colours to CIELAB once (a whole frame against several names)."""
    return colour_costs_of_lab(rgb_to_lab(np.atleast_2d(np.asarray(rgb, float))), names, shade)


def colour_costs_of_lab(lab: np.ndarray, names: list[str], shade: str | None = None) -> np.ndarray:
    """:func:`colour_costs` of (N, 3) CIELAB colours (:func:`rgb_to_lab`), for a caller that needs the CIELAB
    colours too or compares them with several lists of names."""
    return np.stack([_cost_of_lab(lab, n, shade) for n in names], axis=1) if names else np.zeros((len(lab), 0))


def _cost_of_lab(lab: np.ndarray, name: str, shade: str | None) -> np.ndarray:
    """:func:`colour_cost` of (N, 3) CIELAB colours."""
    hue, chroma = _hue_chroma(lab)
    light = lab[:, 0]
    key = name.lower()
    if key in ACHROMATIC:
        lo, hi = ACHROMATIC[key]
        if shade in ("dark", "deep"):
            hi = lo + 0.6 * (hi - lo)
        elif shade in ("light", "pale", "bright"):
            lo = hi - 0.6 * (hi - lo)
        outside = np.maximum(lo - light, 0.0) + np.maximum(light - hi, 0.0)
        return chroma / ACHROMATIC_CHROMA + outside / 20.0
    refs = _REF_LAB.get(key)
    if refs is None:
        raise KeyError(name)
    ref_hue, _ = _hue_chroma(refs)
    dh = np.abs((hue[:, None] - ref_hue[None, :] + 180.0) % 360.0 - 180.0)  # (N, R) degrees
    nearest = np.argmin(dh, axis=1)
    cost = dh[np.arange(len(dh)), nearest] / HUE_SCALE_DEG
    # a colour with little chroma has an unstable hue: it is only weakly any hue (skin is a dull red, no red
    # ball), and a grey is none. The chroma a colour needs grows with its lightness (a dark green cube in
    # shade has little chroma and is still green; a light colour with as little is a tinted grey).
    need = np.maximum(MIN_CHROMA, CHROMA_PER_LIGHTNESS * light)
    cost = cost + np.clip((need - chroma) / (0.5 * need), 0.0, 1.0) * 1.5
    ref_light = refs[nearest, 0]
    if shade in ("dark", "deep"):
        cost = cost + 0.2 * np.clip((light - 45.0) / 30.0, 0.0, 1.0)
    elif shade in ("light", "pale", "bright"):
        cost = cost + 0.2 * np.clip((55.0 - light) / 30.0, 0.0, 1.0)
    else:
        cost = cost + 0.1 * np.clip(np.abs(light - ref_light) / 50.0, 0.0, 1.0)
    return cost


def name_colour(rgb: np.ndarray) -> list[str]:
    """The name a person would give each of the (N, 3) sRGB colours -> N names: black / grey / white by
    lightness when the chroma is under ``ACHROMATIC_CHROMA``, otherwise the nearest chromatic reference in
    hue (canonical names only: no aliases such as "maroon")."""
    rgb = np.atleast_2d(np.asarray(rgb, float))
    lab = rgb_to_lab(rgb)
    _, chroma = _hue_chroma(lab)
    names = [n for n in REFERENCES if n not in ALIASES]
    costs = np.stack([_cost_of_lab(lab, n, None) for n in names], axis=1)
    out = []
    for i in range(len(rgb)):
        if chroma[i] < ACHROMATIC_CHROMA:
            light = lab[i, 0]
            out.append("black" if light < ACHROMATIC["black"][1] else "white" if light >= ACHROMATIC["white"][0]
                       else "grey")
        else:
            out.append(names[int(np.argmin(costs[i]))])
    return out


def is_shadow(rgb: np.ndarray, background_rgb: np.ndarray, *, darker: tuple[float, float] = (0.45, 0.95),
              max_chroma_shift: float = 6.0, min_background_chroma: float = 0.0) -> np.ndarray:
    """Which of the (N, 3) sRGB pixels are a shadow on the (N, 3) background pixels behind them -> (N,) bool.

    A cast shadow dims the surface it falls on without changing its colour: L* drops to a ratio within
    ``darker`` of the background's while a* and b* move by under ``max_chroma_shift`` (scaled with the
    dimming, since chroma shrinks with lightness). Pixels much darker than that are an object (a black ball on
    a grey floor), and pixels whose colour changes are one too."""
    lab = rgb_to_lab(np.asarray(rgb, float).reshape(-1, 3))
    bg = rgb_to_lab(np.asarray(background_rgb, float).reshape(-1, 3))
    ratio = lab[:, 0] / np.maximum(bg[:, 0], 1e-3)
    dim = np.clip(ratio, 0.0, 1.0)
    shift = np.hypot(lab[:, 1] - dim * bg[:, 1], lab[:, 2] - dim * bg[:, 2])
    bg_chroma = np.hypot(bg[:, 1], bg[:, 2])
    return (ratio >= darker[0]) & (ratio <= darker[1]) & (shift <= max_chroma_shift) & \
        (bg_chroma >= min_background_chroma)
