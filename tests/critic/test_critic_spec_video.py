"""critic.video: frame times from pts, audio, sanity flags, and user errors that name the file."""

from __future__ import annotations

import fractions
import sys
from pathlib import Path

import av
import numpy as np
import pytest

from critic.video import context_from_arrays, load_video
from veriphy.video import decode_video
from veriphy.errors import UserError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402



def write(path, n=10, *, pts_ms=None, rotation=None, metadata=None, fps=24, options=None):
    """A tiny H.264 file written with PyAV: custom pts (ms), display rotation, container metadata."""
    c = av.open(str(path), "w", options=options or {})
    if metadata:
        c.metadata.update(metadata)
    s = c.add_stream("libx264", rate=fps)
    s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
    if pts_ms is not None:
        s.time_base = s.codec_context.time_base = fractions.Fraction(1, 1000)
    if rotation is not None:
        s.set_display_rotation(rotation)
    c.start_encoding()
    for i in range(n):
        f = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i * 20 % 256, np.uint8), format="rgb24")
        if pts_ms is not None:
            f.pts, f.time_base = pts_ms[i], fractions.Fraction(1, 1000)
        for p in s.encode(f):
            c.mux(p)
    for p in s.encode():
        c.mux(p)
    c.close()
    return Path(path)


def test_frame_times_audio_and_sha(tmp_path):
    clip = S.drop_clip(t_count=24)
    path = clip.write(tmp_path / "drop.mp4")
    v = load_video(path)
    assert v.frames.shape == clip.frames.shape
    np.testing.assert_allclose(v.times_s, np.arange(24) / clip.fps, atol=1e-3)
    assert v.fps == pytest.approx(clip.fps, rel=1e-3)
    assert v.sanity.has_audio and not v.sanity.vfr and not v.sanity.likely_slow_motion
    assert v.audio.dtype == np.float32 and v.audio_rate_hz == S.AUDIO_RATE
    assert abs(v.audio.size - clip.audio.size) <= S.AUDIO_RATE // 50
    # the first loud sample of the decoded audio is at the first click (PCM round trip keeps timing)
    assert abs(np.argmax(np.abs(v.audio) > 0.1) / S.AUDIO_RATE - clip.contacts_s[0]) < 0.005
    assert len(v.sha256) == 64 and not v.frames.flags.writeable


def test_variable_frame_rate_is_detected_and_times_follow_pts(tmp_path):
    pts = [0, 40, 80, 120, 200, 240, 280, 360, 400, 440]
    v = decode_video(write(tmp_path / "vfr.mp4", pts_ms=pts))
    np.testing.assert_allclose(v.times_s, np.array(pts) / 1000, atol=2e-3)
    assert v.sanity.variable_frame_rate and "variable_frame_rate" in v.sanity.reasons


def test_rotation_is_applied_and_recorded(tmp_path):
    v = load_video(write(tmp_path / "rot.mp4", rotation=90))
    assert v.frames.shape[1:3] == (64, 48)
    assert v.sanity.rotation_deg == 90 and any("rotation" in n for n in v.sanity.notes)


def test_no_audio_track_is_recorded(tmp_path):
    v = load_video(write(tmp_path / "mute.mp4"))
    assert v.audio is None and not v.sanity.has_audio and any("no_audio" in n for n in v.sanity.notes)


def test_capture_rate_metadata_flags_slow_motion(tmp_path):
    path = write(tmp_path / "slow.mp4", metadata={"com.android.capture.fps": "120.000000"},
                 options={"movflags": "use_metadata_tags"})
    d = decode_video(path)
    assert d.sanity.slow_motion and d.sanity.slow_motion_factor == pytest.approx(5.0, rel=0.01)
    assert load_video(path).sanity.likely_slow_motion


def test_high_container_rate_flags_slow_motion(tmp_path):
    assert decode_video(write(tmp_path / "hs.mp4", fps=120)).sanity.slow_motion


def test_in_memory_context():
    clip = S.drop_clip(t_count=12)
    v = context_from_arrays(clip.frames, clip.fps, audio=clip.audio, audio_rate_hz=clip.audio_rate_hz)
    assert v.num_frames == 12 and v.sanity.has_audio
    w = v.window(2, 3)
    assert (w.start_frame, w.end_frame) == (2, 3) and w.end_s == pytest.approx(4 / clip.fps, abs=1e-5)


@pytest.mark.parametrize("make, words", [
    (lambda p: p, "no such file"),
    (lambda p: (p.write_bytes(b""), p)[1], "empty"),
    (lambda p: (p.write_text("not a video at all\n" * 50), p)[1], "not a readable video"),
])
def test_user_errors_name_the_file(tmp_path, make, words):
    path = make(tmp_path / "clip.mp4")
    with pytest.raises(UserError) as err:
        load_video(path)
    assert str(path) in err.value.message and words in err.value.message


def test_truncated_and_frameless_files_are_user_errors(tmp_path):
    full = S.drop_clip(t_count=24).write(tmp_path / "full.mp4").read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(full[: len(full) // 2])
    with pytest.raises(UserError) as err:
        load_video(cut)
    assert str(cut) in err.value.message
    empty = write(tmp_path / "frameless.mp4", n=0)
    with pytest.raises(UserError) as err:
        load_video(empty)
    assert str(empty) in err.value.message


def test_real_phone_clip_sanity(external_clip):
    d = decode_video(external_clip("real_clips/oliverius_gravity_ball_drop.mp4"))
    assert d.sanity.slow_motion and d.sanity.slow_motion_factor == pytest.approx(4.0, rel=0.01)
    assert d.sanity.rotation_deg == -90 and d.frames.shape[1] > d.frames.shape[2]  # portrait after rotation
    assert d.audio is not None and d.audio_rate_hz == 48000


def test_noise_is_measured_over_time_and_space_and_only_a_noisy_clip_is_smoothed():
    """A synthetic drop has no pixel noise; with Gaussian noise of 6 levels added it measures about 6. Panned (every
    frame shifted) its frame-to-frame difference is large, but its picture is smooth: not noisy. The filter passes
    a clean clip on as it is, and smooths a noisy one to under a third of its noise, with a note and a cache key of
    its own."""
    from critic.video import NoiseFilter, noise_sigma

    clip = S.drop_clip().context()
    rng = np.random.default_rng(0)
    noisy_frames = np.clip(clip.frames + rng.normal(0, 6.0, clip.frames.shape), 0, 255).astype(np.uint8)
    noisy = context_from_arrays(noisy_frames, clip.fps)
    panned = context_from_arrays(np.stack([np.roll(f, 3 * k, axis=1) for k, f in enumerate(clip.frames)]), clip.fps)
    assert noise_sigma(clip.frames) < 1.0
    assert 5.0 < noise_sigma(noisy.frames) < 7.0
    assert noise_sigma(panned.frames) < 1.0
    f = NoiseFilter(above_sigma=3.0, blur_sigma_px=1.0)
    assert f(clip) is clip and f(panned) is panned
    smoothed = f(noisy)
    assert noise_sigma(smoothed.frames) < 2.0
    assert smoothed.sha256 != noisy.sha256 and any(n.startswith("noisy:") for n in smoothed.sanity.notes)
    assert smoothed.frames.shape == noisy.frames.shape and np.array_equal(smoothed.times_s, noisy.times_s)
