"""The critic's view of a clip: :func:`veriphy.video.decode_video` adapted to a :class:`critic.types.VideoContext`.

Decoding (frames, frame times from ``pts * time_base``, audio, container sanity) belongs to the one codec,
:mod:`veriphy.video`. Here the decoded clip gets what the critic's specialists read: the sha256 of the file's
bytes (the cache key of every operation), audio on the video clock, and the container's facts as
:class:`critic.types.VideoSanity` (slow motion is not weak gravity; a clip without audio makes sound claims unknown).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

import cv2
import numpy as np

from critic.types import VideoContext, VideoSanity
from veriphy.errors import UserError
from veriphy.hashing import sha256_file
from veriphy.video import DecodedVideo, Sanity, decode_video, sanity_from_times


def video_sanity(s: Sanity) -> VideoSanity:
    """The container's facts as the critic's :class:`VideoSanity` (one note per flag, sorted)."""
    notes = [f"{flag}: {reason}" for flag, reason in sorted(s.reasons.items())]
    return VideoSanity(vfr=s.variable_frame_rate, rotation_deg=s.rotation_deg, has_audio=s.has_audio,
                       likely_slow_motion=s.slow_motion, notes=notes)


def context_from_decoded(decoded: DecodedVideo, sha256: str) -> VideoContext:
    """A decoded clip as a :class:`VideoContext`, its first audio sample put on the video clock."""
    audio = decoded.audio
    if audio is not None and decoded.audio_offset_s:
        # Pad (audio starts late) or trim (starts early) so sample 0 is at the first frame's time.
        shift = int(round(decoded.audio_offset_s * (decoded.audio_rate_hz or 0)))
        audio = np.concatenate([np.zeros(shift, np.float32), audio]) if shift > 0 else audio[-shift:]
    return VideoContext(path=decoded.path, sha256=sha256, frames=decoded.frames, times_s=decoded.times_s,
                        fps=decoded.fps, audio=audio, audio_rate_hz=int(decoded.audio_rate_hz or 0),
                        sanity=video_sanity(decoded.sanity))


def load_video(path: str | os.PathLike, *, max_frames: int | None = None) -> VideoContext:
    """Decode ``path`` into a :class:`VideoContext` (sha256 of the file's bytes)."""
    return context_from_decoded(decode_video(path, max_frames=max_frames), sha256_file(path))


def context_from_arrays(frames: np.ndarray, fps: float, *, audio: np.ndarray | None = None,
                        audio_rate_hz: int | None = None, times_s: np.ndarray | None = None,
                        name: str = "<memory>", capture_fps: float | None = None) -> VideoContext:
    """A :class:`VideoContext` for frames already in memory (a ``Clip``, a synthetic clip). ``sha256`` hashes
    the frames, the times and the audio, so caches keyed by it stay correct."""
    frames = np.ascontiguousarray(frames, dtype=np.uint8)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.shape[0] == 0:
        raise UserError(f"expected (T,H,W,3) frames with T > 0, got {frames.shape}", file=name)
    times = np.arange(frames.shape[0]) / float(fps) if times_s is None else np.asarray(times_s, np.float64)
    h = hashlib.sha256(frames.tobytes())
    h.update(times.tobytes())
    if audio is not None:
        audio = np.asarray(audio, np.float32).reshape(-1)
        h.update(audio.tobytes())
    sanity = sanity_from_times(times, has_audio=audio is not None and audio.size > 0, capture_fps=capture_fps,
                               container_fps=float(fps))
    return VideoContext(path=name, sha256=h.hexdigest(), frames=frames, times_s=times, fps=float(fps), audio=audio,
                        audio_rate_hz=int(audio_rate_hz or 0), sanity=video_sanity(sanity))


#: the Laplacian-difference mask of Immerkaer's noise estimate: it cancels any plane, so what is left of a smooth
#: picture under it is its noise (6 times the noise's standard deviation, summed over the weights' squares)
_NOISE_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)


def noise_sigma(frames: np.ndarray, samples: int = 4, stride: int = 2) -> float:
    """Standard deviation (8-bit levels) of the pixel noise of a clip (T, H, W, 3) uint8: the smaller of two robust
    estimates over up to ``samples`` frames, each the median absolute value scaled to a Gaussian's sigma, on the
    green channel (noise is alike in the three) at every ``stride``-th pixel of every ``stride``-th row (a median
    needs a sample, not every pixel: about 25 ms for 81 frames at 848x480). Over time, the difference of
    consecutive frames (a moving camera or a changing picture makes it large, never small); over space,
    Immerkaer's Laplacian-difference residual, computed on the whole frame (a textured picture makes it large,
    never small). Only a clip noisy by both counts is noisy: a clean clip shot with a moving camera, or of a
    patterned floor, is not."""
    frames = np.asarray(frames)
    t = len(frames)
    if t == 0:
        return 0.0
    idx = np.unique(np.linspace(0, t - 1, min(samples, t)).round().astype(int))
    if t > 1:
        pairs = np.unique(np.minimum(idx, t - 2))
        step = np.concatenate([cv2.absdiff(frames[k + 1][..., 1], frames[k][..., 1])[::stride, ::stride].ravel()
                               for k in pairs])
        over_time = float(np.median(step)) / 0.6745 / np.sqrt(2.0)
    else:
        over_time = np.inf
    residual = [np.abs(cv2.filter2D(frames[k][..., 1].astype(np.float32), -1, _NOISE_MASK))[1:-1:stride, 1:-1:stride]
                for k in idx]
    over_space = float(np.median(np.concatenate([r.ravel() for r in residual]))) / 0.6745 / 6.0
    return float(min(over_time, over_space))


@dataclasses.dataclass(frozen=True)
class NoiseFilter:
    """Smooths the frames of a noisy clip before any specialist reads them.

    The offline specialists read pixels against the clip's own usual picture (the median background, the colour
    of a body at its place): a camera's grain, new in every frame, makes blobs fray at their edges and colours
    count differently from frame to frame, which the checks read as changes of size, landings and rests that did
    not happen. A clip whose noise (:func:`noise_sigma`) is over ``above_sigma`` levels has every frame smoothed
    with a Gaussian of ``blur_sigma_px`` px (OpenCV), which leaves about a quarter of the noise; a clip under it
    (every rendered clip, a clean camera's) is passed on untouched. The note in ``VideoSanity.notes`` says what
    was done; the cache key is the clip's with the filter's settings added."""

    above_sigma: float = 3.0
    blur_sigma_px: float = 1.0

    def __call__(self, video: VideoContext) -> VideoContext:
        sigma = noise_sigma(video.frames)
        if not sigma > self.above_sigma:
            return video
        frames = np.stack([cv2.GaussianBlur(f, (0, 0), self.blur_sigma_px) for f in video.frames])
        note = (f"noisy: pixel noise about {sigma:.1f} levels (over {self.above_sigma:g}); every frame smoothed "
                f"(Gaussian, sigma {self.blur_sigma_px:g} px) before the specialists read it")
        sanity = video.sanity.model_copy(update={"notes": sorted([*video.sanity.notes, note])})
        key = hashlib.sha256(f"{video.sha256}|NoiseFilter|{self.above_sigma}|{self.blur_sigma_px}".encode()).hexdigest()
        return dataclasses.replace(video, frames=frames, sanity=sanity, sha256=key)
