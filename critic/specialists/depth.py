"""``depth``: relations nearer/farther/approaching/receding.

Offline (:class:`GeometricDepth`): two cues from tracks, decided only when they agree -
apparent size (a larger image of the same kind of object is nearer) and the floor-contact row (on a floor seen
from above the horizon, lower in the image is nearer). Otherwise unknown: nothing measured it.
:class:`DepthAnythingDepth` reads relative depth from Depth Anything V2 (transformers, local weights).
"""

from __future__ import annotations

import numpy as np

from critic.specialists.base import unknown
from critic.specialists.kinematics import observed, radius, size_radius
from critic.specialists.measure.common import withhold_if_doubtful
from critic.types import Cost, DepthOp, Measurement, OperationInputs, Track, VideoContext


def _best(tracks: tuple[Track, ...]) -> Track | None:
    tracks = [t for t in tracks if observed(t).sum() >= 2]
    return max(tracks, key=lambda t: int(observed(t).sum())) if tracks else None


def _decide(op: DepthOp, score: float | None, measured: str, video: VideoContext, reason: str, margin: float,
            model_calls: int = 0, values: dict | None = None) -> Measurement:
    """``score`` > 0 means the relation holds (nearer / approaching), < 0 the opposite."""
    req = f"{op.a} {op.relation} {op.b or 'the camera'}"
    if score is None or abs(score) < margin:
        return Measurement(state="unknown", required=req, measured=measured, reason=reason or "cues too weak",
                           values=values or {}, cost=Cost(tool_calls=1, model_calls=model_calls))
    state = "supported" if score > 0 else "contradicted"
    window = video.window(0, video.num_frames - 1) if state == "contradicted" else None
    return Measurement(state=state, required=req, measured=measured, window=window, values=values or {},
                       cost=Cost(tool_calls=1, model_calls=model_calls))


def _withhold(result: Measurement, op: DepthOp, inputs: OperationInputs) -> Measurement:
    """A contradicted relation between tracks that may not be their subjects is unknown (ambiguous grounding)."""
    tracks = inputs.tracks
    picked = [t for t in (_best(tracks.get(op.a, ())), _best(tracks.get(op.b, ())) if op.b else None) if t is not None]
    return withhold_if_doubtful(result, picked)


class GeometricDepth:
    name = "geometric"
    version = "2"

    def __init__(self, size_margin: float = 0.2, row_margin_radii: float = 1.0):
        self.size_margin, self.row_margin_radii = size_margin, row_margin_radii

    def run(self, op: DepthOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        return _withhold(self._run(op, inputs, video), op, inputs)

    def _run(self, op: DepthOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        tracks = inputs.tracks
        a = _best(tracks.get(op.a, ()))
        if a is None:
            return unknown(f"'{op.a}' was not found", required=op.relation)
        sign = 1.0 if op.relation in ("nearer", "approaching") else -1.0
        if op.b is None or op.relation in ("approaching", "receding"):
            idx = np.flatnonzero(observed(a))
            rs = size_radius(a)
            first, last = float(np.nanmedian(rs[idx[:3]])), float(np.nanmedian(rs[idx[-3:]]))
            bottom = a.boxes_xyxy[:, 3]
            drow = (float(np.nanmedian(bottom[idx[-3:]])) - float(np.nanmedian(bottom[idx[:3]]))) / radius(a)
            size_cue = np.log(last / first)
            agree = np.sign(size_cue) == np.sign(drow) or abs(drow) < 0.5
            score = sign * size_cue if agree else None
            return _decide(op, score, f"apparent size x{last / first:.2f}, floor row moved {drow:+.1f} radii",
                           video, "" if agree else "size and floor-row cues disagree", np.log(1 + self.size_margin))
        b = _best(tracks.get(op.b, ()))
        if b is None:
            return unknown(f"'{op.b}' was not found", required=op.relation)
        both = observed(a) & observed(b)
        if not both.any():
            return unknown("the two subjects are never seen together", required=op.relation)
        ra, rb = float(np.nanmedian(size_radius(a)[both])), float(np.nanmedian(size_radius(b)[both]))
        ya, yb = float(np.nanmedian(a.boxes_xyxy[both, 3])), float(np.nanmedian(b.boxes_xyxy[both, 3]))
        size_cue = np.log(ra / rb)
        row_cue = (ya - yb) / max(min(ra, rb), 1.0)
        if abs(row_cue) < self.row_margin_radii or np.sign(row_cue) != np.sign(size_cue):
            return unknown("apparent size and floor row do not agree (objects may differ in size)",
                           required=f"{op.a} {op.relation} {op.b}", size_ratio=ra / rb, row_diff_radii=row_cue)
        return _decide(op, sign * size_cue, f"size ratio {ra / rb:.2f}, floor row {row_cue:+.1f} radii lower",
                       video, "", np.log(1 + self.size_margin))


class DepthAnythingDepth:
    """Relative depth from Depth Anything V2 (``AutoModelForDepthEstimation.from_pretrained(model_dir,
    local_files_only=True)``): the model's output is inverse depth (larger = nearer); each subject's value is the
    median inside its box, averaged over ``frames`` frames where both are seen."""

    name = "depth_anything"
    version = "2"

    def __init__(self, model_dir: str | None = None, frames: int = 4, input_size: int = 518, margin: float = 0.1,
                 device: str = "cpu"):
        self.model_dir, self.frames, self.input_size = model_dir, frames, input_size
        self.margin, self.device = margin, device
        self.model = None

    def load(self):
        if self.model is None:
            from transformers import AutoModelForDepthEstimation

            if not self.model_dir:
                raise FileNotFoundError("depth_anything needs model_dir (a local directory)")
            self.model = AutoModelForDepthEstimation.from_pretrained(self.model_dir, local_files_only=True)
            self.model.eval().to(self.device)
        return self.model

    def predict(self, frame: np.ndarray) -> np.ndarray:
        """Relative inverse depth (H, W) float32 for one RGB frame (ImageNet normalisation, size multiple of 14)."""
        import cv2
        import torch

        model = self.load()
        h, w = frame.shape[:2]
        s = self.input_size / max(h, w)
        nh, nw = max(14, int(round(h * s / 14)) * 14), max(14, int(round(w * s / 14)) * 14)
        x = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_CUBIC).astype(np.float32) / 255.0
        x = (x - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
        with torch.no_grad():
            out = model(pixel_values=torch.from_numpy(x.transpose(2, 0, 1))[None].to(self.device)).predicted_depth
        d = out[0].float().cpu().numpy()
        return cv2.resize(d, (w, h), interpolation=cv2.INTER_LINEAR)

    def run(self, op: DepthOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        return _withhold(self._run(op, inputs, video), op, inputs)

    def _run(self, op: DepthOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        if not self.model_dir:
            return unknown("no Depth Anything weights configured", required=op.relation)
        tracks = inputs.tracks
        a = _best(tracks.get(op.a, ()))
        b = _best(tracks.get(op.b, ())) if op.b else None
        if a is None or (op.b and b is None):
            return unknown("a subject was not found", required=op.relation)
        sign = 1.0 if op.relation in ("nearer", "approaching") else -1.0

        def value(tr: Track, k: int, d: np.ndarray) -> float:
            x0, y0, x1, y1 = (int(round(v)) for v in tr.boxes_xyxy[k])
            return float(np.median(d[max(y0, 0):y1 + 1, max(x0, 0):x1 + 1]))

        if b is not None and op.relation in ("nearer", "farther"):
            both = np.flatnonzero(observed(a) & observed(b))
            if both.size == 0:
                return unknown("the two subjects are never seen together", required=op.relation)
            ks = both[np.unique(np.linspace(0, both.size - 1, min(self.frames, both.size)).round().astype(int))]
            diffs = []
            for k in ks:
                d = self.predict(video.frames[k])
                va, vb = value(a, k, d), value(b, k, d)
                diffs.append((va - vb) / max(abs(va) + abs(vb), 1e-6))
            score = sign * float(np.median(diffs))
            return _decide(op, score, f"relative inverse depth difference {np.median(diffs):+.2f}", video, "",
                           self.margin, model_calls=len(ks))
        idx = np.flatnonzero(observed(a))
        k0, k1 = int(idx[0]), int(idx[-1])
        v0, v1 = value(a, k0, self.predict(video.frames[k0])), value(a, k1, self.predict(video.frames[k1]))
        score = sign * (v1 - v0) / max(abs(v0) + abs(v1), 1e-6)
        return _decide(op, score, f"inverse depth {v0:.3g} -> {v1:.3g}", video, "", self.margin, model_calls=2)
