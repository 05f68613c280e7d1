"""The one video codec (PyAV): writing and decoding video and audio.

Writing (:func:`write_video`): (T, H, W, 3) RGB or (T, H, W) grey uint8 frames at a constant frame rate, H.264
in MP4 with libx264 (yuv420p, ``crf``, no macroblock tree) on one encoder thread, so the same frames give the
same bytes whatever else the process runs; ``lossless=True`` uses libx264rgb at qp 0 (RGB kept exactly). An
optional mono audio track (float samples in [-1, 1]) is stored as 16-bit PCM (exact timing) or AAC.

Decoding (:func:`decode_video`): every frame to upright RGB with its time ``pts * time_base`` (relative to the
first frame), never ``index / fps``: a variable frame rate or a slowed-down clip must show up in the measured
times. Audio is resampled to mono float32 in [-1, 1] whatever its sample format, with the time of its first
sample on the video clock. :class:`Sanity` records the container facts that undermine some measurements:

* ``variable_frame_rate``: frame intervals differ by more than 10 % of the median interval;
* ``rotation``: the display matrix rotates the picture; frames are returned upright (rotated);
* ``no_audio``: the container has no audio stream;
* ``slow_motion``: the capture rate in the metadata (e.g. ``com.android.capture.fps``) exceeds the
  playback rate, or the container rate is >= 100 fps (high-speed footage is usually played back slowed).

User mistakes (missing, empty, truncated, non-video or frameless files) raise :class:`veriphy.errors.UserError`
naming the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from veriphy.errors import UserError

AUDIO_CODECS = ("pcm_s16le", "aac")
_AUDIO_CHUNK = 1024  # samples per audio frame (AAC's frame size; any size works for PCM)


def _as_rgb_frames(frames: np.ndarray) -> np.ndarray:
    frames = np.asarray(frames)
    if frames.dtype != np.uint8:
        raise ValueError(f"frames must be uint8, got {frames.dtype}")
    if frames.ndim == 3:
        frames = np.repeat(frames[..., None], 3, axis=-1)
    if frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"frames must be (T,H,W) or (T,H,W,3), got {frames.shape}")
    if frames.shape[0] == 0:
        raise ValueError("no frames to write")
    return frames


def write_video(path: str | os.PathLike, frames: np.ndarray, fps: float, *, audio: np.ndarray | None = None,
                audio_rate_hz: int | None = None, crf: int = 18, preset: str = "medium", lossless: bool = False,
                audio_codec: str = "pcm_s16le") -> Path:
    """Write ``frames`` (T, H, W, 3) or (T, H, W) uint8 to an MP4 at ``fps`` (frame k at k / fps s).

    Args:
        audio: optional mono (N,) or (N, C) float samples in [-1, 1] (channels are averaged to mono).
        audio_rate_hz: sample rate of ``audio`` (required with it).
        crf: libx264 quality (0-51, lower is better); ignored when ``lossless``.
        lossless: libx264rgb at qp 0: decoded RGB equals the input exactly.
        audio_codec: ``"pcm_s16le"`` (exact) or ``"aac"``.

    H.264 with 4:2:0 chroma needs even width and height: odd sizes are refused (use ``lossless``, which
    keeps full-resolution RGB, or crop/pad the frames first).
    """
    frames = _as_rgb_frames(frames)
    _, height, width, _ = frames.shape
    if not lossless and (height % 2 or width % 2):
        raise ValueError(f"libx264 (yuv420p) needs even height and width, got {height}x{width} (HxW); "
                         "use lossless=True or crop/pad to even sizes")
    if not (fps > 0 and np.isfinite(fps)):
        raise ValueError(f"fps must be positive, got {fps}")
    if audio is not None and not audio_rate_hz:
        raise ValueError("audio_rate_hz is required with audio")
    if audio_codec not in AUDIO_CODECS:
        raise ValueError(f"audio_codec must be one of {AUDIO_CODECS}, got {audio_codec!r}")

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rate = Fraction(fps).limit_denominator(100000)
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}{path.suffix}")
    try:
        _encode(tmp, frames, rate, width, height, lossless=lossless, crf=crf, preset=preset, audio=audio,
                audio_rate_hz=audio_rate_hz, audio_codec=audio_codec)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a failed write leaves no partial file behind
        raise
    return path


def _encode(tmp: Path, frames: np.ndarray, rate: Fraction, width: int, height: int, *, lossless: bool, crf: int,
            preset: str, audio: np.ndarray | None, audio_rate_hz: int | None, audio_codec: str) -> None:
    with av.open(str(tmp), mode="w", format="mp4") as container:
        if lossless:
            stream = container.add_stream("libx264rgb", rate=rate, options={"qp": "0", "preset": preset, "threads": "1"})
            stream.pix_fmt = "rgb24"
        else:
            # mbtree=0: x264's macroblock-tree rate control (float SIMD) gave different files for the same
            # frames once torch's thread pool had run in the process (the generator runs before the clip is
            # written); without it, and with one thread, the bytes are the same.
            stream = container.add_stream("libx264", rate=rate, options={"crf": str(int(crf)), "preset": preset,
                                                                   "threads": "1", "x264-params": "mbtree=0"})
            stream.pix_fmt = "yuv420p"
        stream.width, stream.height = width, height
        stream.time_base = Fraction(1, 1) / rate
        # One thread: multi-threaded x264 output can depend on scheduling; one keeps files byte-identical.
        stream.codec_context.thread_count = 1
        stream.codec_context.thread_type = "NONE"

        audio_stream = None
        if audio is not None:
            audio_stream = container.add_stream(audio_codec, rate=int(audio_rate_hz))
            audio_stream.layout = "mono"

        for k, frame in enumerate(frames):
            vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            vf.pts = k
            container.mux(stream.encode(vf))
        container.mux(stream.encode(None))

        if audio_stream is not None:
            samples = np.asarray(audio, dtype=np.float32)
            if samples.ndim == 2:
                samples = samples.mean(axis=1)
            samples = np.clip(samples, -1.0, 1.0)
            for start in range(0, len(samples), _AUDIO_CHUNK):
                chunk = samples[start:start + _AUDIO_CHUNK]
                if audio_codec == "aac":
                    af = av.AudioFrame.from_ndarray(chunk[None, :], format="fltp", layout="mono")
                else:
                    pcm = np.rint(chunk * 32767.0).astype(np.int16)
                    af = av.AudioFrame.from_ndarray(pcm[None, :], format="s16", layout="mono")
                af.sample_rate = int(audio_rate_hz)
                af.pts = start
                container.mux(audio_stream.encode(af))
            container.mux(audio_stream.encode(None))


# --------------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------------

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
