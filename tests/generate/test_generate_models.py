"""Loading generators: tiny save/reload through the wan_vace path; incomplete directories refused."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from generate.models import TinyGenerator, WanVACEGenerator, check_weights_dir
from generate.probe import ProbedWanVACETransformer3DModel
from veriphy.errors import UserError


@pytest.mark.parametrize("experts", [1, 2])
def test_saved_tiny_reloads_offline_with_same_frames(experts, pipe1, pipe2, control, run_clip, tmp_path,
                                                      monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pipe = pipe1 if experts == 1 else pipe2
    pipe.save_pretrained(tmp_path)
    cfg = (tmp_path / "transformer" / "config.json").read_text()
    assert '"WanVACETransformer3DModel"' in cfg  # saved as the stock class
    loaded = WanVACEGenerator(path=str(tmp_path), transformer_dtype="float32", device="cpu",
                              two_experts=experts == 2).load()
    assert isinstance(loaded.transformer, ProbedWanVACETransformer3DModel)
    assert loaded.config.boundary_ratio == pipe.config.boundary_ratio
    a = run_clip(pipe, control, seed=2, release_step=2)
    b = run_clip(loaded, control, seed=2, release_step=2)
    assert np.array_equal(a.frames, b.frames)
    assert b.model_id == tmp_path.name and len(b.extra["model_config_sha256"]) == 64

    # the tiny builder picks the directory up as its trained weights
    tiny = TinyGenerator(pretrained_dir=str(tmp_path)).load()
    c = run_clip(tiny, control, seed=2, release_step=2)
    assert np.array_equal(a.frames, c.frames) and c.model_id.startswith("tiny-pretrained")


def test_incomplete_directories_are_refused_with_what_is_missing(pipe1, tmp_path):
    with pytest.raises(UserError, match="not found"):
        WanVACEGenerator(path=str(tmp_path / "nope"), device="cpu").load()
    pipe1.save_pretrained(tmp_path)
    check_weights_dir(tmp_path)  # complete
    with pytest.raises(UserError, match="transformer_2"):
        WanVACEGenerator(path=str(tmp_path), device="cpu", two_experts=True).load()

    shutil.rmtree(tmp_path / "vae")
    (tmp_path / "scheduler" / "scheduler_config.json").unlink()
    with pytest.raises(UserError) as err:
        WanVACEGenerator(path=str(tmp_path), device="cpu").load()
    assert "vae/" in str(err.value) and "scheduler/scheduler_config.json" in str(err.value)

    (tmp_path / "model_index.json").unlink()
    with pytest.raises(UserError, match="model_index.json"):
        WanVACEGenerator(path=str(tmp_path), device="cpu").load()


def test_weights_missing_from_a_component_are_named(pipe1, tmp_path):
    pipe1.save_pretrained(tmp_path)
    for p in (tmp_path / "transformer").glob("*.safetensors"):
        p.unlink()
    with pytest.raises(UserError, match=r"transformer/\*\.safetensors"):
        check_weights_dir(tmp_path)


def test_tiny_random_only_when_asked_and_a_missing_pretrained_dir_is_refused(tmp_path):
    pipe = TinyGenerator(pretrained_dir=None, seed=0).load()
    assert pipe.veriphy_model_id == "tiny-random"
    # A folder that does not exist is a mistake, never a quiet fall-back to random weights.
    with pytest.raises(UserError, match="trained tiny model not found"):
        TinyGenerator(pretrained_dir=str(tmp_path / "absent"), seed=0)
    with pytest.raises(UserError, match="no pretrained_dir"):
        TinyGenerator(pretrained_dir=None, require_pretrained=True)
