"""``ground`` with transformers video segmenters from local weights: SAM 3 (text prompts) or EdgeTAM (box
prompts from the offline grounder).

``from_pretrained(model_dir, local_files_only=True)`` for both the model and its processor. Their processors
need torchvision (an optional extra): without it, loading raises ``ImportError`` naming it. The text prompt for
SAM 3 is built from the declared subject ("red ball"); it is the planner's subject, never text from the video.
"""

from __future__ import annotations

import numpy as np

from critic.specialists.sam2_backend import masks_to_track
from critic.specialists.tracking import BackgroundGrounder, BackgroundTracker
from critic.types import GroundOp, OperationInputs, SubjectSpec, Track, VideoContext

MODEL_CLASSES = {"sam3": "Sam3VideoModel", "edgetam": "EdgeTamVideoModel"}
PROCESSOR_CLASSES = {"sam3": "Sam3VideoProcessor", "edgetam": "Sam2VideoProcessor"}


def load_model(family: str, model_dir: str, device: str = "cpu"):
    """The family's video model from a local directory (no hub access)."""
    import transformers

    cls = getattr(transformers, MODEL_CLASSES[family])
    return cls.from_pretrained(model_dir, local_files_only=True).to(device).eval()


def load_processor(family: str, model_dir: str):
    import transformers

    from transformers.utils import is_torchvision_available

    if not is_torchvision_available():
        raise ImportError(f"the {family} processor needs torchvision (pip install torchvision matching torch)")
    return getattr(transformers, PROCESSOR_CLASSES[family]).from_pretrained(model_dir, local_files_only=True)


def subject_text(subject: SubjectSpec) -> str:
    return " ".join(p for p in (subject.size, subject.color, subject.noun) if p)


class HFTextGrounder:
    """See module doc. ``family``: ``sam3`` or ``edgetam``."""

    name = "hf_video_segmenter"
    version = "1"

    def __init__(self, family: str = "sam3", model_dir: str | None = None, device: str = "cpu",
                 score_threshold: float = 0.4, tracker: BackgroundTracker | None = None):
        if family not in MODEL_CLASSES:
            raise ValueError(f"family must be one of {sorted(MODEL_CLASSES)}, got {family!r}")
        self.family, self.model_dir, self.device, self.score_threshold = family, model_dir, device, score_threshold
        self.prompter = BackgroundGrounder(tracker=tracker)
        self.model = None
        self.processor = None

    def load(self):
        if self.model is None:
            if not self.model_dir:
                raise FileNotFoundError(f"{self.family} needs model_dir (a local directory)")
            self.processor = load_processor(self.family, self.model_dir)
            self.model = load_model(self.family, self.model_dir, self.device)
        return self.model, self.processor

    def run(self, op: GroundOp, inputs: OperationInputs, video: VideoContext) -> list[Track]:
        import torch

        subject = inputs.subjects.get(op.subject) or SubjectSpec(name=op.subject, noun=op.subject)
        model, processor = self.load()
        frames = [np.asarray(f) for f in video.frames]
        t_count, h, w = video.frames.shape[:3]
        masks: dict[int, np.ndarray] = {}
        backend = f"critic.specialists.hf_segmenter.HFTextGrounder[{self.family}]@{self.version}"
        with torch.inference_mode():
            session = processor.init_video_session(video=frames, inference_device=self.device)
            if self.family == "sam3":
                processor.add_text_prompt(session, subject_text(subject))
                for out in model.propagate_in_video_iterator(session):
                    pp = processor.postprocess_outputs(session, out)
                    k = int(out.frame_idx)
                    for oid, score, m in zip(pp["object_ids"].tolist(), pp["scores"].tolist(), pp["masks"]):
                        if score < self.score_threshold:
                            continue
                        masks.setdefault(int(oid), np.zeros((t_count, h, w), bool))[k] = m.cpu().numpy().astype(bool)
            else:
                prompts = self.prompter.run(op, inputs, video)
                if not prompts:
                    return []
                for tr in prompts:
                    k = int(np.flatnonzero(tr.visible)[0])
                    processor.add_inputs_to_inference_session(session, frame_idx=k, obj_ids=int(tr.identity),
                                                              input_boxes=[[list(map(float, tr.boxes_xyxy[k]))]])
                for out in model.propagate_in_video_iterator(session):
                    k = int(out.frame_idx)
                    pm = processor.post_process_masks([out.pred_masks], original_sizes=[[h, w]], binarize=True)[0]
                    for i, oid in enumerate(session.obj_ids):
                        masks.setdefault(int(oid), np.zeros((t_count, h, w), bool))[k] = pm[i, 0].cpu().numpy()
        return [masks_to_track(m, video.times_s, op.subject, i, backend) for i, m in sorted(masks.items()) if m.any()]
