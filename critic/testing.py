"""Fake specialists and an in-memory clip for tests and dry runs of the plan/gate/aggregator machinery.

* :func:`fake_video` - a small synthetic :class:`VideoContext` (a bright square moving on grey).
* :class:`FakeGrounder` - one moving-box Track per declared instance of the subject.
* :class:`ScriptedSpecialist` - answers each operation from a script keyed by quantity (``measure``) or by
  operation family, and records every call (the gate tests check that only declared operations arrive).

They read no weights and no files, and are deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from critic.types import AnyOp, Measurement, MeasureOp, OperationInputs, TimeWindow, Track, VideoContext, VideoSanity


def fake_video(num_frames: int = 20, fps: float = 10.0, height: int = 48, width: int = 64, audio: bool = False,
               sha256: str = "f" * 64, path: str = "fake.mp4") -> VideoContext:
    frames = np.full((num_frames, height, width, 3), 90, np.uint8)
    for k in range(num_frames):
        x = 4 + int(k * (width - 16) / max(1, num_frames - 1))
        y = 4 + int(k * (height - 16) / max(1, num_frames - 1))
        frames[k, y:y + 8, x:x + 8] = (220, 40, 40)
    rate = 8000
    sound = np.zeros(int(rate * num_frames / fps), np.float32) if audio else None
    return VideoContext(path=path, sha256=sha256, frames=frames, times_s=np.arange(num_frames) / fps, fps=fps,
                        audio=sound, audio_rate_hz=rate if audio else 0,
                        sanity=VideoSanity(has_audio=audio))


def moving_track(subject: str, identity: int, video: VideoContext, offset: float = 0.0) -> Track:
    t = video.num_frames
    h, w = video.frames.shape[1:3]
    k = np.arange(t)
    x = 4 + k * (w - 16) / max(1, t - 1) + offset
    y = 4 + k * (h - 16) / max(1, t - 1)
    boxes = np.stack([x, y, x + 8, y + 8], axis=1).astype(float)
    return Track(subject=subject, identity=identity, boxes_xyxy=boxes, centroid_px=boxes[:, :2] + 4,
                 area_px=np.full(t, 64.0), visible=np.ones(t, bool), coasted=np.zeros(t, bool),
                 touches_border=np.zeros(t, bool), times_s=video.times_s, backend="fake")


class FakeGrounder:
    """``ground`` -> one moving-box Track per instance (``subject.count`` or 1); ``missing`` names subjects
    it never finds."""

    name = "fake_ground"
    version = "1"

    def __init__(self, missing: list[str] | tuple[str, ...] = ()):
        self.missing = set(missing)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def run(self, op: AnyOp, inputs: OperationInputs, video: VideoContext) -> list[Track]:
        self.calls.append((op.id, op.model_dump(mode="json")))
        spec = inputs.subjects[op.subject]
        if op.subject in self.missing or spec.noun in self.missing:
            return []
        return [moving_track(op.subject, i, video, offset=3.0 * i) for i in range(spec.count or 1)]


class ScriptedSpecialist:
    """Answers from ``script``: key = measure quantity, else the operation family, else ``"default"``; value =
    ``{"state", "window": [f0, f1], "windows": {name: [f0, f1]}, "required", "measured", "values"}``.
    Without an entry the answer is ``unknown``. Every call is recorded in ``calls``."""

    name = "scripted"
    version = "1"

    def __init__(self, script: dict[str, dict[str, Any]] | None = None, version: str = "1"):
        self.script = dict(script or {})
        self.version = version
        self.calls: list[tuple[str, dict[str, Any], OperationInputs]] = []

    def run(self, op: AnyOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        self.calls.append((op.id, op.model_dump(mode="json"), inputs))
        key = op.quantity if isinstance(op, MeasureOp) else op.op
        entry = self.script.get(key, self.script.get("default"))
        if entry is None:
            return Measurement(state="unknown", reason=f"no scripted answer for {key}")

        def win(fr) -> TimeWindow | None:
            return None if fr is None else video.window(int(fr[0]), int(fr[1]))

        return Measurement(state=entry.get("state", "unknown"), required=entry.get("required", f"{key} holds"),
                           measured=entry.get("measured", f"scripted {entry.get('state', 'unknown')}"),
                           reason=entry.get("reason", ""), window=win(entry.get("window")),
                           windows={k: win(v) for k, v in (entry.get("windows") or {}).items()},
                           values=dict(entry.get("values") or {}))
