"""The critic's view of a clip: :func:`veriphy.video.decode_video` adapted to a :class:`critic.types.VideoContext`.

Decoding (frames, frame times from ``pts * time_base``, audio, container sanity) belongs to the one codec,
:mod:`veriphy.video`. Here the decoded clip gets what the critic's specialists read: the sha256 of the file's
bytes (the cache key of every operation), audio on the video clock, and the container's facts as
:class:`critic.types.VideoSanity` (slow motion is not weak gravity; a clip without audio makes sound claims unknown).
"""

from __future__ import annotations

import hashlib
import os

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
