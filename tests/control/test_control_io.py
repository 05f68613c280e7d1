"""Video files and control artifacts: byte determinism, exact lossless frames, frame times, audio, round trips."""

from __future__ import annotations

import json

import numpy as np
import pytest

from control.depth import DepthControl
from control.io import load_control, save_control, save_scene_rgb
from control.render import AnalyticRenderer
from veriphy.errors import UserError
from veriphy.video import decode_video, write_video


@pytest.fixture
def frames():
    rng = np.random.default_rng(0)
    f = np.zeros((6, 48, 64, 3), dtype=np.uint8)
    for t in range(6):
        f[t, 10:30, 5 + 6 * t:25 + 6 * t] = (200, 40, 30)
    f[..., 2] += rng.integers(0, 20, size=f.shape[:3], dtype=np.uint8)
    return f


def test_write_video_is_byte_deterministic(tmp_path, frames):
    a = write_video(tmp_path / "a.mp4", frames, 16)
    b = write_video(tmp_path / "b.mp4", frames, 16)
    assert a.read_bytes() == b.read_bytes()
    decoded = decode_video(a)
    assert decoded.frames.shape == frames.shape
    assert decoded.fps == 16.0
    np.testing.assert_allclose(decoded.times_s, np.arange(6) / 16)
    assert np.abs(decoded.frames.astype(int) - frames).mean() < 6  # lossy but close


def test_write_video_is_byte_deterministic_beside_a_busy_thread_pool(tmp_path):
    """The same frames give the same file after torch's thread pool has run (the generator runs before the
    clip is written). With x264's macroblock tree on, the files of one process differed."""
    import torch

    yy, xx = np.mgrid[:64, :64]
    frames = np.zeros((17, 64, 64, 3), np.uint8)
    for t in range(17):  # smooth colour ramps and a moving disc (noise frames did not show the difference)
        frames[t] = np.stack([(3 * xx + t) % 256, (2 * yy) % 256, (2 * (xx + yy)) % 256], axis=-1)
        frames[t][(xx - 10 - 3 * t) ** 2 + (yy - 30) ** 2 < 20] = (200, 30, 20)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        digests = set()
        for k in range(6):
            torch.randn(400, 400) @ torch.randn(400, 400)
            digests.add(write_video(tmp_path / f"{k}.mp4", frames, 8).read_bytes())
    finally:
        torch.set_num_threads(threads)
    assert len(digests) == 1


def test_lossless_video_is_exact(tmp_path, frames):
    write_video(tmp_path / "l.mp4", frames, 24, lossless=True)
    decoded = decode_video(tmp_path / "l.mp4")
    assert np.array_equal(decoded.frames, frames)
    np.testing.assert_allclose(decoded.times_s, np.arange(6) / 24)
    grey = frames[..., 0]
    write_video(tmp_path / "g.mp4", grey, 24, lossless=True)
    assert np.array_equal(decode_video(tmp_path / "g.mp4").frames, np.repeat(grey[..., None], 3, axis=-1))


def test_non_integer_frame_rate(tmp_path, frames):
    write_video(tmp_path / "ntsc.mp4", frames, 30000 / 1001)
    decoded = decode_video(tmp_path / "ntsc.mp4")
    assert decoded.fps == pytest.approx(29.97, abs=1e-2)
    np.testing.assert_allclose(decoded.times_s, np.arange(6) * 1001 / 30000, atol=1e-9)


def test_odd_size_is_refused_with_the_size(tmp_path):
    odd = np.zeros((2, 47, 64, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="47x64"):
        write_video(tmp_path / "odd.mp4", odd, 16)
    write_video(tmp_path / "odd.mp4", odd, 16, lossless=True)  # RGB keeps odd sizes


@pytest.mark.parametrize("codec,tolerance", [("pcm_s16le", 1e-4), ("aac", 0.1)])
def test_audio_track_round_trip(tmp_path, frames, codec, tolerance):
    rate = 16000
    audio = np.zeros(int(rate * 6 / 16), dtype=np.float32)
    audio[2000:2160] = 0.8  # a click at 125 ms
    path = write_video(tmp_path / "a.mp4", frames, 16, audio=audio, audio_rate_hz=rate, audio_codec=codec)
    assert path.read_bytes() == write_video(tmp_path / "b.mp4", frames, 16, audio=audio, audio_rate_hz=rate,
                                            audio_codec=codec).read_bytes()
    decoded = decode_video(path)
    samples, got_rate = decoded.audio, decoded.audio_rate_hz
    assert got_rate == rate and decoded.audio_offset_s == pytest.approx(0.0, abs=1e-6)
    loud = np.flatnonzero(np.abs(samples) > 0.4)
    assert abs(loud[0] - 2000) <= 0.004 * rate  # onset within 4 ms
    if codec == "pcm_s16le":
        np.testing.assert_allclose(samples[: len(audio)], audio, atol=tolerance)
    silent = decode_video(write_video(tmp_path / "silent.mp4", frames, 16))
    assert silent.audio is None and not silent.sanity.has_audio


def test_missing_video_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        decode_video(tmp_path / "none.mp4")


def test_save_and_load_control_round_trip(tmp_path, two_balls_scene):
    spec, traj = two_balls_scene
    render = AnalyticRenderer(progress=False).render(spec, traj)
    cv = DepthControl(renderer=AnalyticRenderer(rgb=False, progress=False), progress=False)(spec, traj, render)
    paths = save_control(cv, tmp_path / "a", input_sha256={"scene.json": "abc"})
    save_control(cv, tmp_path / "b", input_sha256={"scene.json": "abc"})
    for name in ("control.mp4", "control.npz", "meta.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    loaded = load_control(tmp_path / "a")
    assert np.array_equal(loaded.frames, cv.frames)
    np.testing.assert_allclose(loaded.centers_px, cv.centers_px)
    np.testing.assert_allclose(loaded.near_m, cv.near_m)
    assert loaded.kind == cv.kind and loaded.object_names == cv.object_names
    assert loaded.frame_fallback_reasons == cv.frame_fallback_reasons
    assert loaded.spec_sha256 == cv.spec_sha256 != ""
    assert load_control(paths["npz"]).shape_thw == cv.shape_thw
    meta = json.loads(paths["meta"].read_text())
    assert meta["kind"] == "depth" and meta["input_sha256"] == {"scene.json": "abc"}
    assert len(meta["centers_px"]) == 3 and meta["fallback_reason"] is None
    decoded = decode_video(paths["mp4"]).frames
    assert decoded.shape == (3, 64, 96, 3)
    assert np.abs(decoded[..., 0].astype(int) - cv.frames).mean() < 3
    rgb = save_scene_rgb(render, tmp_path / "a")
    assert decode_video(rgb).frames.shape == render.rgb.shape


def test_load_control_of_a_silhouette_keeps_nan_and_reasons(tmp_path, cx):
    spec = cx.scene([cx.ball()], num_frames=2)
    traj = cx.make_trajectory(spec, np.array([[[0.0, -8.0, 0.6], [0.0, -9.0, 0.6]]]))
    cv = DepthControl(renderer=AnalyticRenderer(rgb=False, progress=False), progress=False)(spec, traj)
    save_control(cv, tmp_path)
    loaded = load_control(tmp_path)
    assert loaded.kind == "silhouette" and loaded.fallback_reason == cv.fallback_reason
    assert np.isnan(loaded.near_m).all() and np.isnan(loaded.centers_px).all()
