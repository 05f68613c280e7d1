"""``hear``: impact-like sound onsets from short-time energy (SciPy), and one-to-one matching to contacts.

Audio is decoded with PyAV by :mod:`critic.video` (mono float32, on the video clock). Onsets are rises of
the short-time energy (``frame_ms`` windows every ``hop_ms``) above ``ratio`` x the clip's noise floor (the
median energy), located to the hop (about +-2 ms at the defaults).
"""

from __future__ import annotations

import numpy as np
from scipy.ndimage import uniform_filter1d
from scipy.optimize import linear_sum_assignment
from scipy.signal import find_peaks

from critic.specialists.base import unknown
from critic.types import Cost, HearOp, Measurement, OperationInputs, VideoContext


def onsets(audio: np.ndarray, rate: int, *, frame_ms: float = 4.0, hop_ms: float = 1.0, ratio: float = 30.0,
           min_gap_s: float = 0.06, abs_floor: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """Onset times (s from the first sample) and peak energies of impact-like sounds in ``audio`` (S,)."""
    x = np.asarray(audio, np.float64)
    if x.size == 0 or rate <= 0:
        return np.zeros(0), np.zeros(0)
    hop = max(1, int(round(rate * hop_ms / 1000)))
    win = max(1, int(round(rate * frame_ms / 1000)))
    energy = uniform_filter1d(x * x, size=win, mode="constant")[::hop]
    noise = max(float(np.median(energy)), abs_floor * abs_floor)
    thr = ratio * noise
    peaks, props = find_peaks(energy, height=thr, distance=max(1, int(min_gap_s * 1000 / hop_ms)))
    times = []
    for p in peaks:
        # walk back to where the energy first rose above the threshold's tenth (the sound's start)
        k = p
        level = max(thr, 0.1 * energy[p])
        while k > 0 and energy[k - 1] >= level:
            k -= 1
        # the energy window is centred: its first crossing lags the start by half a window
        times.append(max(k * hop - win / 2, 0) / rate)
    return np.asarray(times), np.asarray(props.get("peak_heights", np.zeros(0)))


def match_onsets(onsets_s: np.ndarray, contacts_s: np.ndarray, tolerance_s: float) -> list[tuple[int, int, float]]:
    """One-to-one matching of sound onsets to visual contact times (Hungarian on |dt|) -> (onset index, contact
    index, dt = onset - contact) for pairs within ``tolerance_s``."""
    a, b = np.asarray(onsets_s, float), np.asarray(contacts_s, float)
    if a.size == 0 or b.size == 0:
        return []
    cost = np.abs(a[:, None] - b[None, :])
    rows, cols = linear_sum_assignment(cost)
    return [(int(i), int(j), float(a[i] - b[j])) for i, j in zip(rows, cols) if cost[i, j] <= tolerance_s]


class EnergyOnsetHearer:
    """``hear`` specialist: the first impact-like onset as the ``onset`` window (``onset_window_s`` long), every
    onset as an occurrence of it.

    No audio stream -> unknown (nothing to hear with: a clip without sound says nothing of it); an audio track
    that carries nothing (digital silence: every sample under 1e-6 of full scale) or sound but no onset ->
    contradicted (the claimed sound is absent: the clip has sound and it is not there)."""

    name = "energy_onsets"
    version = "4"

    def __init__(self, frame_ms: float = 4.0, hop_ms: float = 1.0, ratio: float = 30.0, onset_window_s: float = 0.02):
        self.frame_ms, self.hop_ms, self.ratio = frame_ms, hop_ms, ratio
        self.onset_window_s = onset_window_s

    def run(self, op: HearOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        required = f"an audible {op.event} sound" + (f" ({op.description})" if op.description else "")
        if video.audio is None or not video.sanity.has_audio or video.audio_rate_hz <= 0:
            return unknown("the clip has no audio track", required=required)
        audio = np.asarray(video.audio, np.float64)
        silent = audio.size == 0 or float(np.abs(audio).max()) < 1e-6
        times = np.zeros(0)
        if not silent:
            times, _ = onsets(audio, video.audio_rate_hz, frame_ms=self.frame_ms, hop_ms=self.hop_ms, ratio=self.ratio)
            times = times[times <= video.times_s[-1] + video.frame_period_s]
        values = {"onsets_s": [round(float(t), 4) for t in times]}
        if times.size == 0:
            # the sound is at no time: no onset is listed, so a timing check with it fails (``any_occurrence``)
            measured = "the audio track is digital silence: no sound at all" if silent else \
                "no sound onset above the noise floor"
            return Measurement(state="contradicted", required=required, measured=measured,
                               window=video.window(0, video.num_frames - 1), occurrences={"onset": []}, values=values,
                               cost=Cost(tool_calls=1))
        t0 = float(times[0])
        w = video.window_s(t0, t0 + self.onset_window_s)
        # every onset is an occurrence of the sound: with several impacts in the clip, which one the prompt's sound
        # is cannot be told from the energy alone, so a timing check may pair any of them with its event
        every = [video.window_s(float(t), float(t) + self.onset_window_s) for t in times]
        return Measurement(state="supported", required=required,
                           measured=f"{len(times)} onset(s), first at {t0:.3f} s", window=w, windows={"onset": w},
                           occurrences={"onset": every}, values=values, cost=Cost(tool_calls=1))
