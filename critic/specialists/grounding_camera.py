"""Global camera motion: estimate it per frame and undo it before the background is modelled.

A median background assumes a still camera; a panning or shaking one turns the whole scene into foreground.
Per pair of consecutive frames, corners (``cv2.goodFeaturesToTrack``) of the earlier frame are followed into
the later one (pyramidal Lucas-Kanade, ``cv2.calcOpticalFlowPyrLK``) and a similarity transform (rotation,
uniform scale, translation) is fitted with RANSAC (``cv2.estimateAffinePartial2D``), so moving objects are
outliers. The per-pair transforms are chained into one transform per frame that maps the frame's pixels onto
the first frame's (the reference). A still camera gives exactly the identity: a cheap check on a few frames
far apart decides that first, and a pair whose features move by under ``static_px`` counts as still.
"""

from __future__ import annotations

import cv2
import numpy as np

IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def _gray(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_RGB2GRAY) if frame.ndim == 3 else frame


def _features(gray: np.ndarray, max_features: int) -> np.ndarray | None:
    return cv2.goodFeaturesToTrack(gray, maxCorners=max_features, qualityLevel=0.01, minDistance=7, blockSize=7)


def pair_motion(a: np.ndarray, b: np.ndarray, *, max_features: int = 300, static_px: float = 0.1,
                pts: np.ndarray | None = None, min_inlier_frac: float = 0.5) -> tuple[np.ndarray, float]:
    """Transform (2, 3) mapping pixels of frame ``b`` onto frame ``a`` (both (H, W, 3) uint8 RGB or (H, W)
    grey) and the median feature displacement (px). Identity when too few features are found or followed,
    when they move by under ``static_px``, or when fewer than ``min_inlier_frac`` of them share one motion."""
    ga, gb = _gray(a), _gray(b)
    if pts is None:
        pts = _features(ga, max_features)
    if pts is None or len(pts) < 8:
        return IDENTITY.copy(), 0.0
    nxt, status, _ = cv2.calcOpticalFlowPyrLK(ga, gb, pts, None, winSize=(21, 21), maxLevel=4,
                                              criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 0.01))
    ok = status.ravel() == 1
    if ok.sum() < 8:
        return IDENTITY.copy(), 0.0
    src, dst = pts[ok].reshape(-1, 2), nxt[ok].reshape(-1, 2)
    shift = float(np.median(np.linalg.norm(dst - src, axis=1)))
    if shift < static_px:
        return IDENTITY.copy(), shift
    m, inliers = cv2.estimateAffinePartial2D(dst, src, method=cv2.RANSAC, ransacReprojThreshold=1.0,
                                             maxIters=2000, confidence=0.995, refineIters=10)
    if m is None or inliers is None or inliers.sum() < max(8, min_inlier_frac * len(src)):
        # no motion shared by most of the image (a textureless wall, a hand across the view): the camera is
        # taken as still rather than following whatever moves
        return IDENTITY.copy(), 0.0
    return m.astype(np.float64), shift


def _compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(2, 3) transform ``a`` after ``b`` (x -> a(b(x)))."""
    a3 = np.vstack([a, [0.0, 0.0, 1.0]])
    b3 = np.vstack([b, [0.0, 0.0, 1.0]])
    return (a3 @ b3)[:2]


def is_static(frames: np.ndarray, *, probes: int = 4, static_px: float = 0.25, max_features: int = 150,
              probe_width: int = 320) -> bool:
    """Whether the camera stays put: the first frame's corners stay within ``static_px`` (median) in a few
    frames spread over the clip."""
    if len(frames) < 2:
        return True
    # on a grey image at most ``probe_width`` wide: a still camera is decided in a few milliseconds
    scale = min(1.0, probe_width / frames.shape[2])

    def small(frame: np.ndarray) -> np.ndarray:
        g = _gray(frame)
        return g if scale >= 1.0 else cv2.resize(g, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)

    g0 = small(frames[0])
    pts = _features(g0, max_features)
    if pts is None or len(pts) < 8:
        return True
    for k in np.unique(np.linspace(1, len(frames) - 1, probes).round().astype(int)):
        m, _ = pair_motion(g0, small(frames[k]), pts=pts, static_px=static_px * scale)
        if np.abs(m[:, 2]).max() >= static_px * scale or np.abs(m[:, :2] - np.eye(2)).max() > 1e-3:
            return False
    return True


def estimate_camera_motion(frames: np.ndarray, *, max_features: int = 300, static_px: float = 0.1,
                           max_keyframes: int = 48) -> np.ndarray:
    """Per-frame transforms (T, 2, 3) mapping each frame's pixels (x right, y down) onto the first frame's.
    All identities for a still camera (``is_static``); otherwise chained over at most ``max_keyframes``
    keyframes (consecutive frames when the clip is short) and interpolated linearly in between (a camera
    moves smoothly between frames a fraction of a second apart)."""
    t_count = len(frames)
    out = np.repeat(IDENTITY[None], t_count, axis=0)
    if t_count < 2 or is_static(frames):
        return out
    keys = np.unique(np.linspace(0, t_count - 1, min(t_count, max_keyframes)).round().astype(int))
    at_keys = [IDENTITY.copy()]
    for a, b in zip(keys[:-1], keys[1:]):
        step, _ = pair_motion(frames[a], frames[b], max_features=max_features, static_px=static_px)
        at_keys.append(_compose(at_keys[-1], step))
    at_keys = np.stack(at_keys)
    for i in range(2):
        for j in range(3):
            out[:, i, j] = np.interp(np.arange(t_count), keys, at_keys[:, i, j])
    return out if explains_motion(frames, out) else np.repeat(IDENTITY[None], t_count, axis=0)


def explains_motion(frames: np.ndarray, transforms: np.ndarray, *, probes: int = 6, min_gain: float = 0.3) -> bool:
    """Whether undoing ``transforms`` makes frames spread over the clip agree with the first frame: the median
    absolute grey difference (robust to moving objects) must drop by at least ``min_gain`` of itself. A
    motion estimated from a textureless wall or a moving hand, not from the camera, fails this."""
    g0 = _gray(frames[0]).astype(np.float32)
    h, w = g0.shape
    before, after = [], []
    for k in np.unique(np.linspace(1, len(frames) - 1, probes).round().astype(int)):
        gk = _gray(frames[k]).astype(np.float32)
        warped = cv2.warpAffine(gk, transforms[k], (w, h), flags=cv2.INTER_LINEAR, borderValue=np.nan)
        seen = np.isfinite(warped)
        if seen.mean() < 0.3:
            continue
        before.append(float(np.median(np.abs(gk - g0)[seen])))
        after.append(float(np.median(np.abs(warped - g0)[seen])))
    return bool(before) and np.mean(after) <= (1.0 - min_gain) * np.mean(before)


def compensate(frames: np.ndarray, transforms: np.ndarray) -> np.ndarray:
    """``frames`` (T, H, W, 3) warped into the first frame's pixel grid by ``transforms`` (T, 2, 3); pixels the
    camera did not see there copy the nearest seen edge (so they do not read as foreground). Identity
    transforms return the frames unchanged (the same array)."""
    if np.allclose(transforms, IDENTITY[None]):
        return frames
    h, w = frames.shape[1:3]
    return np.stack([f if np.allclose(m, IDENTITY) else
                     cv2.warpAffine(np.ascontiguousarray(f), m, (w, h), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
                     for f, m in zip(frames, transforms)])
