"""Real backends load from local weights: each is built from its config with random weights, saved, reloaded
and run on a few small frames (CPU). Nothing is downloaded."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from critic.specialists.depth import DepthAnythingDepth, GeometricDepth
from critic.specialists.hf_segmenter import HFTextGrounder, load_model, load_processor
from critic.specialists.sam2_backend import Sam2Grounder, build_sam2_video_predictor
from critic.specialists.tracking import BackgroundGrounder
from critic.types import DepthOp, GroundOp, OperationInputs, SubjectSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402

HAS_SAM2 = importlib.util.find_spec("sam2") is not None
HAS_TORCHVISION = importlib.util.find_spec("torchvision") is not None


@pytest.mark.skipif(not HAS_SAM2, reason="sam2 is not installed")
def test_sam2_random_weights_save_reload_propagate(tmp_path):
    import torch

    torch.manual_seed(0)
    cfg = "configs/sam2.1/sam2.1_hiera_t.yaml"
    model = build_sam2_video_predictor(cfg, None, image_size=128)
    ckpt = tmp_path / "sam2_random.pt"
    torch.save({"model": model.state_dict()}, ckpt)
    reloaded = build_sam2_video_predictor(cfg, str(ckpt), image_size=128)
    for (k, a), (_, b) in zip(model.state_dict().items(), reloaded.state_dict().items()):
        assert torch.equal(a, b), k

    clip = S.drop_clip(t_count=5)
    grounder = Sam2Grounder(checkpoint=str(ckpt), model_cfg=cfg, image_size=128)
    subject = SubjectSpec(name="ball", noun="ball", color="red")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracks = grounder.run(GroundOp(id="g", subject="ball"), OperationInputs(subjects={"ball": subject}),
                              clip.context())
    assert len(tracks) == 1
    tr = tracks[0]
    assert tr.subject == "ball" and tr.boxes_xyxy.shape == (5, 4) and "sam2" in tr.backend


def test_sam2_without_checkpoint_refuses_to_load():
    with pytest.raises(FileNotFoundError):
        Sam2Grounder(checkpoint=None).load()


def tiny_depth_anything(path):
    import torch
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config

    backbone = Dinov2Config(hidden_size=32, num_hidden_layers=4, num_attention_heads=2, intermediate_size=64,
                            image_size=56, patch_size=14, out_features=["stage1", "stage2", "stage3", "stage4"],
                            reshape_hidden_states=False)
    cfg = DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 32, 32],
                              fusion_hidden_size=16, head_hidden_size=8, patch_size=14)
    torch.manual_seed(0)
    model = DepthAnythingForDepthEstimation(cfg).eval()
    model.save_pretrained(path)
    return model


def test_depth_anything_random_weights_save_reload(tmp_path):
    import torch

    model = tiny_depth_anything(tmp_path / "da")
    depth = DepthAnythingDepth(model_dir=str(tmp_path / "da"), input_size=56, frames=2)
    clip = S.two_drops_clip(t_count=8)
    frame = clip.frames[0]
    out = depth.predict(frame)
    assert out.shape == frame.shape[:2] and np.isfinite(out).all()
    x = torch.zeros(1, 3, 56, 56)
    with torch.no_grad():
        assert torch.allclose(model(pixel_values=x).predicted_depth, depth.load()(pixel_values=x).predicted_depth)
    video = clip.context()
    subjects = {n: SubjectSpec(name=n, noun="ball", color=n) for n in ("red", "blue")}
    g = BackgroundGrounder()
    tracks = {n: g.run(GroundOp(id="g", subject=n), OperationInputs(subjects=subjects), video) for n in subjects}
    m = depth.run(DepthOp(id="d", a="red", relation="nearer", b="blue"), OperationInputs(tracks=tracks), video)
    # the reloaded model ran on the two sampled frames where both balls are seen (random weights: any state)
    assert m.cost.model_calls == 2 and m.measured.startswith("relative inverse depth difference")


def test_depth_unconfigured_and_geometric_unknown():
    clip = S.two_drops_clip(t_count=8)
    video = clip.context()
    subjects = {n: SubjectSpec(name=n, noun="ball", color=n) for n in ("red", "blue")}
    g = BackgroundGrounder()
    tracks = {n: g.run(GroundOp(id="g", subject=n), OperationInputs(subjects=subjects), video) for n in subjects}
    op = DepthOp(id="d", a="red", relation="nearer", b="blue")
    assert DepthAnythingDepth().run(op, OperationInputs(tracks=tracks), video).state == "unknown"
    # same size, same floor row: nothing measures which is nearer
    assert GeometricDepth().run(op, OperationInputs(tracks=tracks), video).state == "unknown"


def assert_reloads_the_same(model, family: str, directory: Path, tensors: int | None = None) -> None:
    """``model`` saved to ``directory`` and loaded back by ``hf_segmenter.load_model`` has the same weights (the
    first ``tensors`` of them when given)."""
    import torch

    model.save_pretrained(directory)
    reloaded = load_model(family, str(directory))
    a, b = model.state_dict(), reloaded.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in list(a)[:tensors])


def test_edgetam_model_random_weights_save_reload(tmp_path):
    import torch
    from transformers import EdgeTamVideoConfig, EdgeTamVideoModel

    torch.manual_seed(0)
    assert_reloads_the_same(EdgeTamVideoModel(EdgeTamVideoConfig()).eval(), "edgetam", tmp_path / "edgetam", 50)


def tiny_sam3_config():
    """A SAM 3 video config small enough for CPU tests (112 px input, 1-2 layers everywhere)."""
    from transformers import Sam3VideoConfig

    vit = dict(model_type="sam3_vit_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
               num_attention_heads=2, image_size=112, patch_size=14, window_size=4, global_attn_indexes=[1],
               pretrain_image_size=56)
    vision = dict(backbone_config=vit, backbone_feature_sizes=[[32, 32], [16, 16], [8, 8]])
    small = dict(num_layers=1, intermediate_size=64)
    return Sam3VideoConfig(
        detector_config=dict(vision_config=vision,
                             text_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                              num_attention_heads=2, projection_dim=32),
                             geometry_encoder_config=small, detr_encoder_config=small,
                             detr_decoder_config=dict(num_layers=1, intermediate_size=64, num_queries=8)),
        tracker_config=dict(vision_config=vision, image_size=112, prompt_encoder_config=dict(image_size=112)))


def test_sam3_model_random_weights_save_reload(tmp_path):
    import torch
    from transformers import Sam3VideoModel

    torch.manual_seed(0)
    assert_reloads_the_same(Sam3VideoModel(tiny_sam3_config()).eval(), "sam3", tmp_path / "sam3")


def test_hf_segmenter_needs_model_dir_and_torchvision(tmp_path):
    with pytest.raises(FileNotFoundError):
        HFTextGrounder(family="sam3").load()
    with pytest.raises(ValueError):
        HFTextGrounder(family="nope")
    if not HAS_TORCHVISION:
        with pytest.raises(ImportError, match="torchvision"):
            load_processor("sam3", str(tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(not HAS_TORCHVISION, reason="the SAM 3 / EdgeTAM processors need torchvision")
def test_edgetam_grounder_propagates_with_processor(tmp_path):
    from transformers import (EdgeTamVideoConfig, EdgeTamVideoModel, Sam2ImageProcessor, Sam2VideoProcessor,
                              Sam2VideoVideoProcessor)

    EdgeTamVideoModel(EdgeTamVideoConfig()).save_pretrained(tmp_path / "m")
    processor = Sam2VideoProcessor(image_processor=Sam2ImageProcessor(), video_processor=Sam2VideoVideoProcessor())
    processor.save_pretrained(tmp_path / "m")
    clip = S.drop_clip(t_count=4)
    g = HFTextGrounder(family="edgetam", model_dir=str(tmp_path / "m"))
    subject = SubjectSpec(name="ball", noun="ball", color="red")
    tracks = g.run(GroundOp(id="g", subject="ball"), OperationInputs(subjects={"ball": subject}), clip.context())
    assert isinstance(tracks, list)

