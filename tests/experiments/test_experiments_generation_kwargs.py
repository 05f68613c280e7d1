"""A job calls its generator with the prompt length and guidance the generator config says the model is meant
for (the tiny model was trained with 32-token prompts; Wan uses 512), and ``generation.*`` overrides them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from omegaconf import OmegaConf

from control.types import ControlVideo
from experiments.executors import ClipRequest
from experiments.jobs import generation_settings
from experiments.types import GenerationSettings
from veriphy.errors import UserError


def test_generator_settings_reach_the_call_and_generation_overrides_them():
    cfg = OmegaConf.create({"probe": {"mode": "skip"},
                            "generator": {"max_sequence_length": 160, "guidance_scale": 8.0},
                            "generation": {"progress": False}})
    settings = generation_settings(cfg)
    assert settings.call_kwargs() == {"mode": "skip", "max_sequence_length": 160, "guidance_scale": 8.0,
                                      "progress": False}
    cfg.generation.guidance_scale = 1.0
    assert generation_settings(cfg).call_kwargs()["guidance_scale"] == 1.0


def test_a_generator_without_those_settings_leaves_the_defaults():
    cfg = OmegaConf.create({"generator": {"_target_": "x"}, "generation": None})
    assert generation_settings(cfg).call_kwargs() == {"mode": "skip", "progress": True}


def test_an_unknown_or_bad_generation_setting_is_the_users_error():
    base = {"generator": {"_target_": "x"}}
    with pytest.raises(UserError, match="generation.guidance"):
        generation_settings(OmegaConf.create({**base, "generation": {"guidance": 2.0}}))
    with pytest.raises(UserError, match="generation.max_sequence_length"):
        generation_settings(OmegaConf.create({**base, "generation": {"max_sequence_length": 0}}))


def test_progress_does_not_change_the_group_of_a_clip():
    """Jobs that differ only in showing progress share their prefix-shared clips; other settings do not."""
    t = 3
    control = ControlVideo(frames=np.zeros((t, 4, 4), np.uint8), kind="depth", fps=4.0, object_names=("ball",),
                           centers_px=np.zeros((t, 1, 2)), near_m=np.ones(t), far_m=np.ones(t))
    request = ClipRequest(control=control, prompt="p", seed=0, num_steps=3, release_step=3,
                          generation=GenerationSettings(progress=False))
    loud = replace(request, generation=GenerationSettings(progress=True))
    guided = replace(request, generation=GenerationSettings(progress=False, guidance_scale=2.0))
    assert request.group_key() == loud.group_key() != guided.group_key()
