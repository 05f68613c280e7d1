"""Reading a clip for the critic: frames, frame times from the container, audio, and sanity flags.

Frame times are ``pts * time_base`` (relative to the first frame), never ``index / fps``: a variable
frame rate or a slowed-down clip must show up in the measured times. The sanity checks record facts that
undermine some claims (DESIGN §5, §8):

* ``variable_frame_rate``: frame intervals differ by more than 10 % of the median interval;
* ``rotation``: the display matrix rotates the picture; frames are returned upright (rotated);
* ``no_audio``: the container has no audio stream (audio claims become unknown, never contradicted);
* ``slow_motion``: the capture rate in the metadata (e.g. ``com.android.capture.fps``) exceeds the
  playback rate, or the container rate is >= 100 fps (high-speed footage is usually played back slowed);
  gravity-magnitude claims become unknown. A measured free-fall far below g is flagged later by the
  free-fall measurement, which has the track.

User mistakes (missing, empty, truncated, non-video or frameless files) raise :class:`sim.runtime.UserError`
naming the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.runtime import UserError

if TYPE_CHECKING:  # pragma: no cover
    from critic.types import VideoContext, VideoSanity

#: Container rate at or above which footage is likely a high-speed capture (often played back slowed).
HIGH_SPEED_FPS = 100.0
#: Relative spread of frame intervals above which the frame rate counts as variable.
VFR_TOLERANCE = 0.10

_CAPTURE_FPS_KEYS = ("com.android.capture.fps", "com.apple.quicktime.capture.fps", "capture_fps", "capture.fps")


@dataclass(frozen=True)
class Sanity:
    """Facts about the container that undermine some claims; ``reasons`` maps a flag to its explanation."""

    variable_frame_rate: bool = False
    rotation_deg: int = 0
    has_audio: bool = False
    slow_motion: bool = False
    slow_motion_factor: float | None = None
    capture_fps: float | None = None
    container_fps: float | None = None
    reasons: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "variable_frame_rate": self.variable_frame_rate, "rotation_deg": self.rotation_deg,
            "has_audio": self.has_audio, "slow_motion": self.slow_motion,
            "slow_motion_factor": self.slow_motion_factor, "capture_fps": self.capture_fps,
            "container_fps": self.container_fps, "reasons": dict(self.reasons),
        }


@dataclass(frozen=True)
class DecodedVideo:
    """A decoded clip.

    * ``frames`` (T, H, W, 3) uint8 RGB, upright (display rotation applied).
    * ``times_s`` (T,) float64 frame times (s) from ``pts * time_base``, first frame at 0.
    * ``fps`` measured rate 1 / median frame interval (Hz).
    * ``audio`` (S,) float32 mono in [-1, 1] or ``None``; ``audio_rate_hz``; ``audio_offset_s``: time of the
      first audio sample on the video clock (s).
    """

    path: str
    frames: np.ndarray
    times_s: np.ndarray
    fps: float
    audio: np.ndarray | None
    audio_rate_hz: int | None
    audio_offset_s: float
    sanity: Sanity

    def __post_init__(self) -> None:
        for name in ("frames", "times_s", "audio"):
            a = getattr(self, name)
            if a is not None:
                a = np.ascontiguousarray(a)
                a.setflags(write=False)
                object.__setattr__(self, name, a)


def _capture_fps(*metadata: dict[str, str]) -> float | None:
    for md in metadata:
        for key, value in (md or {}).items():
            if key.lower() in _CAPTURE_FPS_KEYS or key.lower().endswith("capture.fps"):
                try:
                    return float(value)
                except ValueError:
                    continue
    return None


def sanity_from_times(times_s: np.ndarray, *, rotation_deg: int = 0, has_audio: bool = False,
                      capture_fps: float | None = None, container_fps: float | None = None) -> Sanity:
    """Sanity flags from frame times and container facts (shared by files and in-memory clips)."""
    reasons: dict[str, str] = {}
    dt = np.diff(np.asarray(times_s, dtype=np.float64))
    vfr = False
    fps = float(1.0 / np.median(dt)) if dt.size and np.median(dt) > 0 else (container_fps or 0.0)
    if dt.size >= 2 and np.median(dt) > 0:
        spread = float((dt.max() - dt.min()) / np.median(dt))
        if spread > VFR_TOLERANCE:
            vfr = True
            reasons["variable_frame_rate"] = (
                f"frame intervals range {dt.min() * 1e3:.1f}-{dt.max() * 1e3:.1f} ms "
                f"(median {np.median(dt) * 1e3:.1f} ms): times come from pts, rates per frame vary")
    if rotation_deg:
        reasons["rotation"] = f"display matrix rotates the picture by {rotation_deg} deg; frames were turned upright"
    if not has_audio:
        reasons["no_audio"] = "the container has no audio stream"
    slow, factor = False, None
    rate = container_fps or fps
    if capture_fps and rate and capture_fps > 1.5 * rate:
        slow, factor = True, float(capture_fps / rate)
        reasons["slow_motion"] = (f"captured at {capture_fps:g} fps, played at {rate:.3g} fps: "
                                  f"time runs {factor:.3g}x slower than real time")
    elif rate and rate >= HIGH_SPEED_FPS:
        slow = True
        reasons["slow_motion"] = (f"container rate {rate:.4g} fps >= {HIGH_SPEED_FPS:g} fps: high-speed footage, "
                                  "its playback time base may be slowed")
    return Sanity(variable_frame_rate=vfr, rotation_deg=int(rotation_deg), has_audio=has_audio, slow_motion=slow,
                  slow_motion_factor=factor, capture_fps=capture_fps, container_fps=container_fps, reasons=reasons)


def _rotate(frame: np.ndarray, rotation_deg: int) -> np.ndarray:
    """Turn a frame upright. ``rotation_deg`` is the display matrix's counter-clockwise angle (FFmpeg's
    ``av_display_rotation_get``); showing the picture needs that rotation undone, as ffmpeg's autorotate does."""
    k = int(round(rotation_deg / 90.0)) % 4
    return np.ascontiguousarray(np.rot90(frame, k=k)) if k else frame


def _decode_audio(container, stream) -> tuple[np.ndarray, int, float]:
    import av

    rate = int(stream.codec_context.sample_rate or stream.rate)
    resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
    chunks: list[np.ndarray] = []
    first_time: float | None = None
    for frame in container.decode(stream):
        if first_time is None and frame.pts is not None:
            first_time = float(frame.pts * frame.time_base)
        for out in resampler.resample(frame):
            chunks.append(out.to_ndarray().reshape(-1))
    for out in resampler.resample(None):
        chunks.append(out.to_ndarray().reshape(-1))
    audio = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
    return np.clip(audio, -1.0, 1.0), rate, first_time or 0.0


def decode_video(path: str | os.PathLike, *, max_frames: int | None = None) -> DecodedVideo:
    """Decode a video file with PyAV (see module doc). ``max_frames`` stops early (benchmarks, previews)."""
    import av

    path = Path(path)
    if not path.exists():
        raise UserError("no such file", file=path)
    if path.is_dir():
        raise UserError("is a directory, expected a video file", file=path)
    if path.stat().st_size == 0:
        raise UserError("empty file", file=path)
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise UserError(f"not a readable video ({exc.__class__.__name__}: {exc})", file=path) from None
    try:
        if not container.streams.video:
            raise UserError("no video stream in the file", file=path)
        vstream = container.streams.video[0]
        container_fps = float(vstream.average_rate) if vstream.average_rate else None
        frames: list[np.ndarray] = []
        pts: list[float] = []
        rotation = 0
        try:
            for frame in container.decode(vstream):
                if not frames:
                    rotation = int(round(float(getattr(frame, "rotation", 0) or 0)))
                t = frame.pts if frame.pts is not None else frame.dts
                pts.append(float(t * frame.time_base) if t is not None else float("nan"))
                frames.append(_rotate(frame.to_ndarray(format="rgb24"), rotation))
                if max_frames is not None and len(frames) >= max_frames:
                    break
        except (av.error.FFmpegError, ValueError) as exc:
            if not frames:
                raise UserError(f"cannot decode video frames ({exc.__class__.__name__}: {exc})", file=path) from None
            raise UserError(f"truncated or corrupt after {len(frames)} frames ({exc})", file=path) from None
        if not frames:
            raise UserError("the video stream has zero frames", file=path)
        declared = int(vstream.frames or 0)
        if max_frames is None and declared and len(frames) < 0.9 * declared:
            raise UserError(f"truncated: decoded {len(frames)} of the {declared} frames the container declares",
                            file=path)
        times = np.asarray(pts, dtype=np.float64)
        if not np.all(np.isfinite(times)):  # no timestamps at all: fall back to the nominal rate, and say so
            times = np.arange(len(frames)) / (container_fps or 25.0)
        order = np.argsort(times, kind="stable")  # presentation order
        times = times[order]
        frames = [frames[i] for i in order]
        first_video_time = float(times[0])
        times = times - first_video_time

        audio, rate, offset = None, None, 0.0
        if container.streams.audio:
            container.seek(0)
            try:
                audio, rate, audio_start = _decode_audio(container, container.streams.audio[0])
                offset = audio_start - first_video_time
            except (av.error.FFmpegError, ValueError):
                audio, rate = None, None
        capture = _capture_fps(dict(container.metadata), dict(vstream.metadata))
        sanity = sanity_from_times(times, rotation_deg=rotation, has_audio=audio is not None and audio.size > 0,
                                   capture_fps=capture, container_fps=container_fps)
        dt = np.diff(times)
        fps = float(1.0 / np.median(dt)) if dt.size and np.median(dt) > 0 else (container_fps or 0.0)
        return DecodedVideo(path=str(path), frames=np.stack(frames), times_s=times, fps=fps, audio=audio,
                            audio_rate_hz=rate, audio_offset_s=float(offset), sanity=sanity)
    finally:
        container.close()


def _to_context_sanity(s: Sanity) -> "VideoSanity":
    from critic.types import VideoSanity

    notes = [f"{flag}: {reason}" for flag, reason in sorted(s.reasons.items())]
    return VideoSanity(vfr=s.variable_frame_rate, rotation_deg=s.rotation_deg, has_audio=s.has_audio,
                       likely_slow_motion=s.slow_motion, notes=notes)


def load_video(path: str | os.PathLike, *, max_frames: int | None = None) -> "VideoContext":
    """Decode ``path`` into the critic's :class:`critic.types.VideoContext` (sha256 of the file's bytes)."""
    from critic.types import VideoContext
    from sim.runtime import sha256_file

    decoded = decode_video(path, max_frames=max_frames)
    audio = decoded.audio
    if audio is not None and decoded.audio_offset_s:
        # Put the first audio sample on the video clock: pad (audio starts late) or trim (starts early).
        shift = int(round(decoded.audio_offset_s * (decoded.audio_rate_hz or 0)))
        audio = np.concatenate([np.zeros(shift, np.float32), audio]) if shift > 0 else audio[-shift:]
    return VideoContext(path=str(path), sha256=sha256_file(path), frames=decoded.frames, times_s=decoded.times_s,
                        fps=decoded.fps, audio=audio, audio_rate_hz=int(decoded.audio_rate_hz or 0),
                        sanity=_to_context_sanity(decoded.sanity))


def context_from_arrays(frames: np.ndarray, fps: float, *, audio: np.ndarray | None = None,
                        audio_rate_hz: int | None = None, times_s: np.ndarray | None = None,
                        name: str = "<memory>", capture_fps: float | None = None) -> "VideoContext":
    """A :class:`VideoContext` for frames already in memory (a ``Clip``, a synthetic clip). ``sha256`` hashes
    the frames, the times and the audio, so caches keyed by it stay correct."""
    import hashlib

    from critic.types import VideoContext

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
                        audio_rate_hz=int(audio_rate_hz or 0), sanity=_to_context_sanity(sanity))
