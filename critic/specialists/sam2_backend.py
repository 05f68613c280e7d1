"""``ground`` with the SAM 2 video predictor (local checkpoint), prompted with boxes from the offline grounder.

The offline grounder binds the named subject and gives each instance's first box; SAM 2 propagates a mask
per instance through the clip, and the masks become Tracks (box, centroid, area, visibility). The model is
built from the package's YAML with OmegaConf + ``hydra.utils.instantiate`` directly (not through the
package's global Hydra config module, so it does not disturb the application's Hydra state), and its weights
come from ``checkpoint`` (a ``.pt`` with a ``"model"`` state dict, as the official checkpoints).
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from critic.specialists.tracking import BackgroundGrounder, BackgroundTracker
from critic.types import GroundOp, OperationInputs, Track, VideoContext

#: SAM 2's own post-processing overrides for video (from ``sam2.build_sam.build_sam2_video_predictor``).
VIDEO_OVERRIDES = {
    "sam_mask_decoder_extra_args": {"dynamic_multimask_via_stability": True,
                                    "dynamic_multimask_stability_delta": 0.05,
                                    "dynamic_multimask_stability_thresh": 0.98},
    "binarize_mask_from_pts_for_mem_enc": True,
    "fill_hole_area": 8,
}


def import_sam2():
    """Import ``sam2`` without leaving Hydra's global state initialised (its ``__init__`` initialises it)."""
    from hydra.core.global_hydra import GlobalHydra

    was = GlobalHydra.instance().is_initialized()
    module = importlib.import_module("sam2")
    if not was and GlobalHydra.instance().is_initialized():
        GlobalHydra.instance().clear()
    return module


def sam2_model_config(model_cfg: str, image_size: int | None = None):
    """The ``model`` node of a SAM 2 YAML shipped in the package (e.g. ``configs/sam2.1/sam2.1_hiera_t.yaml``),
    with the video predictor as target and the video post-processing on."""
    from omegaconf import OmegaConf

    sam2 = import_sam2()
    path = Path(model_cfg)
    if not path.is_file():
        path = Path(sam2.__file__).parent / model_cfg
    cfg = OmegaConf.load(path)
    model = cfg.model
    model._target_ = "sam2.sam2_video_predictor.SAM2VideoPredictor"
    for k, v in VIDEO_OVERRIDES.items():
        if isinstance(v, dict):
            node = model.get(k) or {}
            model[k] = OmegaConf.merge(node, v)
        else:
            model[k] = v
    if image_size is not None:
        model.image_size = int(image_size)
    OmegaConf.resolve(cfg)
    return model


def build_sam2_video_predictor(model_cfg: str, checkpoint: str | None, *, image_size: int | None = None,
                               device: str = "cpu"):
    """Build the SAM 2 video predictor and load ``checkpoint`` (strict). ``checkpoint=None``: random weights."""
    import torch
    from hydra.utils import instantiate

    model = instantiate(sam2_model_config(model_cfg, image_size), _recursive_=True)
    if checkpoint is not None:
        state = torch.load(checkpoint, map_location="cpu", weights_only=True)
        model.load_state_dict(state["model"] if "model" in state else state, strict=True)
    return model.to(device).eval()


def frames_state(predictor, frames: np.ndarray) -> dict:
    """An inference state for in-memory frames (T, H, W, 3) uint8 - what ``init_state`` builds from a path."""
    import cv2
    import torch

    size = predictor.image_size
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    imgs = np.stack([(cv2.resize(f, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255 - mean) / std
                     for f in frames]).transpose(0, 3, 1, 2)
    device = predictor.device
    state: dict[str, Any] = {
        "images": torch.from_numpy(np.ascontiguousarray(imgs)).to(device), "num_frames": len(frames),
        "offload_video_to_cpu": False, "offload_state_to_cpu": False,
        "video_height": int(frames.shape[1]), "video_width": int(frames.shape[2]), "device": device,
        "storage_device": device, "point_inputs_per_obj": {}, "mask_inputs_per_obj": {}, "cached_features": {},
        "constants": {}, "obj_id_to_idx": OrderedDict(), "obj_idx_to_id": OrderedDict(), "obj_ids": [],
        "output_dict_per_obj": {}, "temp_output_dict_per_obj": {}, "frames_tracked_per_obj": {},
    }
    predictor._get_image_feature(state, frame_idx=0, batch_size=1)
    return state


def masks_to_track(masks: np.ndarray, times_s: np.ndarray, subject: str, identity: int, backend: str,
                   meta: dict | None = None) -> Track:
    """(T, H, W) bool masks -> a Track (boxes, centroids, areas, border contact)."""
    t_count, h, w = masks.shape
    boxes = np.full((t_count, 4), np.nan)
    cents = np.full((t_count, 2), np.nan)
    area = np.zeros(t_count)
    vis = np.zeros(t_count, bool)
    border = np.zeros(t_count, bool)
    for k in range(t_count):
        ys, xs = np.nonzero(masks[k])
        if xs.size == 0:
            continue
        vis[k] = True
        boxes[k] = (xs.min(), ys.min(), xs.max(), ys.max())
        cents[k] = (xs.mean(), ys.mean())
        area[k] = xs.size
        border[k] = xs.min() == 0 or ys.min() == 0 or xs.max() == w - 1 or ys.max() == h - 1
    return Track(subject=subject, identity=identity, boxes_xyxy=boxes, centroid_px=cents, area_px=area, visible=vis,
                 coasted=np.zeros(t_count, bool), touches_border=border, times_s=times_s, backend=backend,
                 meta=meta or {})


class Sam2Grounder:
    """``ground`` specialist with SAM 2 (see module doc). Construction is cheap; the model loads on first use."""

    name = "sam2"
    version = "1"

    def __init__(self, checkpoint: str | None = None, model_cfg: str = "configs/sam2.1/sam2.1_hiera_t.yaml",
                 device: str = "cpu", image_size: int | None = 512, tracker: BackgroundTracker | None = None,
                 allow_random_weights: bool = False):
        self.checkpoint, self.model_cfg, self.device, self.image_size = checkpoint, model_cfg, device, image_size
        self.allow_random_weights = allow_random_weights
        self.prompter = BackgroundGrounder(tracker=tracker)
        self.predictor = None

    def load(self):
        if self.predictor is None:
            if self.checkpoint is None and not self.allow_random_weights:
                raise FileNotFoundError("sam2 needs checkpoint= (a local .pt file)")
            if self.checkpoint is not None and not Path(self.checkpoint).is_file():
                raise FileNotFoundError(f"sam2 checkpoint not found: {self.checkpoint}")
            self.predictor = build_sam2_video_predictor(self.model_cfg, self.checkpoint, image_size=self.image_size,
                                                        device=self.device)
        return self.predictor

    def run(self, op: GroundOp, inputs: OperationInputs, video: VideoContext) -> list[Track]:
        import torch

        prompts = self.prompter.run(op, inputs, video)
        if not prompts:
            return []
        predictor = self.load()
        with torch.inference_mode():
            state = frames_state(predictor, video.frames)
            starts = {}
            for tr in prompts:
                k = int(np.flatnonzero(tr.visible)[0])
                starts[tr.identity] = k
                predictor.add_new_points_or_box(state, frame_idx=k, obj_id=int(tr.identity),
                                                box=np.asarray(tr.boxes_xyxy[k], np.float32))
            t_count, h, w = video.frames.shape[:3]
            masks = {tr.identity: np.zeros((t_count, h, w), bool) for tr in prompts}
            first = min(starts.values())
            for frame_idx, obj_ids, logits in predictor.propagate_in_video(state, start_frame_idx=first):
                for i, oid in enumerate(obj_ids):
                    masks[int(oid)][frame_idx] = (logits[i, 0] > 0).cpu().numpy()
        backend = f"critic.specialists.sam2_backend.Sam2Grounder@{self.version}"
        return [masks_to_track(masks[tr.identity], video.times_s, op.subject, tr.identity, backend, dict(tr.meta))
                for tr in prompts]
