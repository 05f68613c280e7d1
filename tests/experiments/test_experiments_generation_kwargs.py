"""A job calls its generator with the prompt length and guidance the generator config says the model is meant
for (the tiny model was trained with 32-token prompts; Wan uses 512), and ``generation.*`` overrides them."""

from __future__ import annotations

from omegaconf import OmegaConf

from experiments.jobs import generation_kwargs


def test_generator_settings_reach_the_call_and_generation_overrides_them():
    cfg = OmegaConf.create({"probe": {"mode": "skip"},
                            "generator": {"max_sequence_length": 160, "guidance_scale": 8.0},
                            "generation": {"progress": False}})
    assert generation_kwargs(cfg) == {"mode": "skip", "max_sequence_length": 160, "guidance_scale": 8.0,
                                      "progress": False}
    cfg.generation.guidance_scale = 1.0
    assert generation_kwargs(cfg)["guidance_scale"] == 1.0


def test_a_generator_without_those_settings_leaves_the_defaults():
    cfg = OmegaConf.create({"generator": {"_target_": "x"}, "generation": None})
    assert generation_kwargs(cfg) == {"mode": "skip"}
