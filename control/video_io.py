"""Video files with PyAV: H.264 in MP4 (byte-deterministic), an exact lossless option, optional audio.

* :func:`write_video` encodes (T, H, W, 3) RGB or (T, H, W) grey uint8 frames at a constant frame rate with
  libx264 (yuv420p, ``crf``, no macroblock tree) using one encoder thread, so the same frames give the same
  bytes whatever else the process runs. With ``lossless=True`` it uses libx264rgb at qp 0 (RGB kept exactly;
  files are larger). An optional mono audio track (float samples in [-1, 1]) is stored as 16-bit PCM (exact
  timing) or AAC.
* :func:`read_video` decodes every frame to RGB with its time ``pts * time_base`` (s), which is what a
  variable-frame-rate or slowed-down clip must be measured against, not ``index / fps``.
* :func:`read_audio` decodes the audio track to mono float32.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from sim.runtime import UserError

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
    os.replace(tmp, path)
    return path


def _open(path: str | os.PathLike):
    path = Path(path)
    if not path.is_file():
        raise UserError("file not found", file=path)
    try:
        return av.open(str(path))
    except av.error.FFmpegError as exc:
        raise UserError(f"not a readable video ({exc})", file=path) from None


def read_video(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, float]:
    """Decode the first video stream of ``path``.

    Returns ``(frames (T, H, W, 3) uint8 RGB, times_s (T,) from pts * time_base, fps)`` where ``fps`` is the
    stream's average rate (nominal; trust ``times_s`` for measurements)."""
    with _open(path) as container:
        if not container.streams.video:
            raise UserError("no video stream", file=path)
        stream = container.streams.video[0]
        stream.thread_type = "NONE"
        frames, times = [], []
        for frame in container.decode(stream):
            frames.append(frame.to_ndarray(format="rgb24"))
            pts = frame.pts if frame.pts is not None else frame.dts
            times.append(float(pts * frame.time_base) if pts is not None else np.nan)
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        fps = float(rate) if rate else float("nan")
    if not frames:
        raise UserError("video has no frames", file=path)
    return np.stack(frames), np.asarray(times, dtype=np.float64), fps


def read_audio(path: str | os.PathLike) -> tuple[np.ndarray, int] | None:
    """Decode the first audio stream of ``path`` to mono float32 samples in [-1, 1].

    Returns ``(samples (N,), rate_hz)``, sample 0 at t = 0 s (decoder priming before t = 0 is dropped), or
    None when the file has no audio."""
    with _open(path) as container:
        if not container.streams.audio:
            return None
        stream = container.streams.audio[0]
        rate = int(stream.rate)
        chunks = []
        start_s = None
        for frame in container.decode(stream):
            data = frame.to_ndarray().astype(np.float32)
            if frame.format.name.startswith("s16"):
                data = data / 32767.0
            elif frame.format.name.startswith("s32"):
                data = data / 2147483647.0
            if not frame.format.is_planar and frame.layout.nb_channels > 1:
                data = data.reshape(-1, frame.layout.nb_channels).T
            chunks.append(data.mean(axis=0) if data.ndim == 2 else data)
            if start_s is None and frame.pts is not None:
                start_s = float(frame.pts * frame.time_base)
    if not chunks:
        return np.zeros(0, dtype=np.float32), rate
    samples = np.concatenate(chunks)
    if start_s is not None and start_s < 0:
        samples = samples[int(round(-start_s * rate)):]
    return samples.astype(np.float32), rate
