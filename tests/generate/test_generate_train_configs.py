"""Every option of the training config groups instantiates (cheaply), and the apps compose."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import get_object, instantiate
from omegaconf import DictConfig, OmegaConf

CONF = Path(__file__).resolve().parents[2] / "conf"


@pytest.mark.parametrize("path", sorted((CONF / "train").rglob("*.yaml")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_train_group_option_instantiates(path):
    """The object is of the class the option names, and every setting the option states reaches it."""
    node = OmegaConf.load(path)
    _assert_built_from(instantiate(node), node, path.stem)


def _assert_built_from(obj, node: DictConfig, where: str) -> None:
    target = get_object(node._target_)
    if inspect.isclass(target):
        assert type(obj) is target, where
    for key, value in node.items():
        if key.startswith("_"):
            continue
        if OmegaConf.is_dict(value) and "_target_" in value:
            _assert_built_from(getattr(obj, key), value, f"{where}.{key}")
        else:
            stated = OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
            assert getattr(obj, key) == stated, f"{where}.{key}"


def test_train_app_composes():
    with initialize_config_dir(str(CONF), version_base="1.3"):
        cfg = compose("train_app", overrides=["train/data=smoke", "train/vae=smoke", "train/transformer=smoke"])
    assert cfg.task == "train" and cfg.num_threads == 1
    data = instantiate(cfg.train.data)
    assert data.sampler.width_px == 32


def test_evaluate_app_composes_with_a_held_out_seed():
    with initialize_config_dir(str(CONF), version_base="1.3"):
        cfg = compose("evaluate_app")
        train_cfg = compose("train_app")
    ev = instantiate(cfg.evaluation)
    train_data = instantiate(train_cfg.train.data)
    assert ev.data.seed != train_data.seed
    assert ev.data.sampler == train_data.sampler  # same distribution, other scenes
    assert ev.max_sequence_length == cfg.generator.max_sequence_length
    # The generator reads prompts at the length the shipped model was trained with.
    assert train_cfg.train.transformer.max_sequence_length == cfg.generator.max_sequence_length
    assert ev.release_steps[0] == 0 and ev.release_steps[-1] == ev.num_steps
