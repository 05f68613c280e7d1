"""Benign changes of a clip: what a prompt says of it stays true, so a critic that called the clip correct before
must not call it contradicted after.

Clips from outside come smaller, blurrier, darker, noisier, at a lower frame rate or from a camera that moves, and
a critic tuned on one look of a scene may read any of these as a physical defect. Each change here keeps every
object, motion, colour name, caption and sound of the clip; none crops the picture (a body cut at a new border
would change what is in view) or mirrors it (captions would read backwards, "left" would be "right").

A change maps a decoded :class:`~critic.types.VideoContext` to another one; the audio is kept as it is (no change
moves a sound against the picture). Every change is deterministic: its noise comes from a generator seeded by the
change's own ``seed``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from critic.types import VideoContext
from critic.video import context_from_arrays

#: a change of a clip: decoded clip -> decoded clip
Change = Callable[[VideoContext], VideoContext]


def _rebuilt(video: VideoContext, frames: np.ndarray, *, every: int = 1) -> VideoContext:
    """``video`` with its frames replaced by ``frames`` (T', H', W', 3) uint8, which are every ``every``-th frame of
    it (their times taken from the original, the frame rate divided by ``every``); what the decoder noticed of the
    original (slow motion, a variable frame rate) is kept."""
    changed = context_from_arrays(frames, video.fps / every, audio=video.audio,
                                  audio_rate_hz=video.audio_rate_hz or None, times_s=np.asarray(video.times_s)[::every],
                                  name=video.path)
    return dataclasses.replace(changed, sanity=video.sanity)


@dataclass(frozen=True)
class Downscale:
    """The picture at ``scale`` of its size (area interpolation, even sides, at least 64 px): a clip rendered or
    delivered smaller, every body with fewer pixels."""

    scale: float = 0.5

    def __call__(self, video: VideoContext) -> VideoContext:
        h, w = video.frames.shape[1:3]
        size = (max(64, int(round(w * self.scale / 2)) * 2), max(64, int(round(h * self.scale / 2)) * 2))
        return _rebuilt(video, np.stack([cv2.resize(f, size, interpolation=cv2.INTER_AREA) for f in video.frames]))


@dataclass(frozen=True)
class FrameStep:
    """Every ``step``-th frame, at 1/``step`` of the frame rate: the same motion sampled more coarsely (a fall
    covers more pixels per frame, a contact falls between frames)."""

    step: int = 2

    def __call__(self, video: VideoContext) -> VideoContext:
        return _rebuilt(video, video.frames[::self.step], every=self.step)


@dataclass(frozen=True)
class Compress:
    """Every frame through JPEG at ``quality`` (OpenCV): the blocking and the smeared colour edges of a clip that
    was compressed hard."""

    quality: int = 25

    def __call__(self, video: VideoContext) -> VideoContext:
        def once(frame: np.ndarray) -> np.ndarray:
            ok, data = cv2.imencode(".jpg", frame[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            return cv2.imdecode(data, cv2.IMREAD_COLOR)[..., ::-1]

        return _rebuilt(video, np.stack([once(f) for f in video.frames]))


@dataclass(frozen=True)
class SensorNoise:
    """Gaussian noise of ``sigma`` (8-bit levels) on every pixel and channel, new in every frame (seeded): a
    camera's grain, which moves where the bodies do not."""

    sigma: float = 6.0
    seed: int = 0

    def __call__(self, video: VideoContext) -> VideoContext:
        rng = np.random.default_rng(self.seed)
        noisy = video.frames.astype(np.float32) + rng.normal(0.0, self.sigma, video.frames.shape).astype(np.float32)
        return _rebuilt(video, np.clip(np.rint(noisy), 0, 255).astype(np.uint8))


@dataclass(frozen=True)
class Exposure:
    """Brightness and contrast: every level ``v`` (0..255) becomes ``255 * (v / 255) ** gamma`` scaled by ``gain``
    (clipped): a darker or lighter exposure that keeps every colour's name."""

    gain: float = 0.85
    gamma: float = 1.2

    def __call__(self, video: VideoContext) -> VideoContext:
        lut = np.clip(np.rint(self.gain * 255.0 * (np.arange(256) / 255.0) ** self.gamma), 0, 255).astype(np.uint8)
        return _rebuilt(video, lut[video.frames])


@dataclass(frozen=True)
class SlowPan:
    """The camera pans: frame ``k`` shifted left by ``share_per_s`` of the picture's width per second of its time
    (sub-pixel, the edge uncovered on the right filled by repeating the last column). Every body moves in the
    picture by the same shift; its motion in the scene, what the prompt describes, does not change."""

    share_per_s: float = 0.03

    def __call__(self, video: VideoContext) -> VideoContext:
        h, w = video.frames.shape[1:3]
        t = np.asarray(video.times_s, float) - float(video.times_s[0])
        out = np.empty_like(video.frames)
        for k, frame in enumerate(video.frames):
            shift = np.float32([[1, 0, -self.share_per_s * w * t[k]], [0, 1, 0]])
            out[k] = cv2.warpAffine(frame, shift, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return _rebuilt(video, out)


#: the changes the invariance benchmark applies by default, by the name it reports them under
DEFAULT_CHANGES: dict[str, Change] = {
    "half_size": Downscale(0.5),
    "half_rate": FrameStep(2),
    "jpeg_25": Compress(25),
    "noise_6": SensorNoise(6.0),
    "darker": Exposure(0.85, 1.2),
    "pan_3pct": SlowPan(0.03),
}
