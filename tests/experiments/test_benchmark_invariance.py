"""The benign changes of the invariance benchmark (``experiments.benchmark.invariance``): each does what it says to
the picture, keeps the clip's sound and what the decoder noticed, and gives the same bytes every time."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from critic.specialists import colour as colours
from critic.video import context_from_arrays
from experiments.benchmark.invariance import (DEFAULT_CHANGES, Compress, Downscale, Exposure, FrameStep, SensorNoise,
                                              SlowPan)


def _clip(t: int = 10, h: int = 96, w: int = 128, fps: float = 10.0):
    """A grey picture with a red square (rows 40-55, columns 60-75) and a second of sound at 16 kHz."""
    frames = np.full((t, h, w, 3), 128, np.uint8)
    frames[:, 40:56, 60:76] = (200, 30, 30)
    audio = np.sin(np.linspace(0, 200 * np.pi, 16000)).astype(np.float32)
    video = context_from_arrays(frames, fps, audio=audio, audio_rate_hz=16000, name="square.mp4")
    return dataclasses.replace(video, sanity=video.sanity.model_copy(update={"likely_slow_motion": True}))


@pytest.mark.parametrize("name", list(DEFAULT_CHANGES))
def test_every_change_keeps_the_sound_and_the_decoders_notes_and_repeats_byte_for_byte(name):
    video = _clip()
    a, b = DEFAULT_CHANGES[name](video), DEFAULT_CHANGES[name](video)
    assert a.sha256 == b.sha256 and np.array_equal(a.frames, b.frames)
    assert np.array_equal(a.audio, video.audio) and a.audio_rate_hz == 16000
    assert a.sanity.likely_slow_motion and a.path == "square.mp4"
    assert a.frames.dtype == np.uint8 and a.frames.shape[-1] == 3


def test_downscale_and_frame_step_change_size_and_rate_only():
    video = _clip()
    small = Downscale(0.5)(video)
    assert small.frames.shape == (10, 64, 64, 3)  # 48 x 64, raised to the 64 px floor on the short side
    assert small.fps == video.fps and np.array_equal(small.times_s, video.times_s)
    coarse = FrameStep(2)(video)
    assert coarse.frames.shape[0] == 5 and coarse.fps == pytest.approx(5.0)
    assert np.array_equal(coarse.times_s, video.times_s[::2])


def test_the_square_stays_red_under_compression_noise_and_a_darker_exposure():
    video = _clip()
    for change in (Compress(25), SensorNoise(6.0), Exposure(0.85, 1.2)):
        centre = change(video).frames[:, 44:52, 64:72].reshape(-1, 3).mean(axis=0)
        assert colours.name_colour(centre) == ["red"], (change, centre)
    noisy = SensorNoise(6.0)(video).frames[:, :30, :30].astype(float)
    assert 5.0 < noisy.std() < 7.0


def test_a_pan_shifts_the_picture_left_by_its_share_of_the_width_per_second():
    video = _clip()
    panned = SlowPan(0.1)(video)  # 12.8 px per second: 11.52 px by the last frame, at 0.9 s
    cols = np.flatnonzero(panned.frames[-1, 48, :, 0] > 160)
    assert cols[0] == pytest.approx(60 - 11.52, abs=1.0) and cols[-1] == pytest.approx(75 - 11.52, abs=1.0)
    assert np.array_equal(panned.frames[0], video.frames[0])
