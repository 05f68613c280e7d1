"""Every config in the groups the sim stage owns composes and instantiates (cheaply)."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import get_class, instantiate
from omegaconf import OmegaConf

from sim.engine import EngineSettings
from sim.request import PhysicsRequest
from sim.types import SceneSpec

CONF = Path(__file__).resolve().parents[2] / "conf"


def _options(group):
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


def _compose(*overrides):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose(config_name="sim_app", overrides=list(overrides))


def test_primary_config():
    cfg = _compose()
    assert cfg.task == "sim" and cfg.num_threads == 1 and cfg.budget >= 1
    assert cfg.request.name == "throw_to_target"


@pytest.mark.parametrize("option", _options("scene"))
def test_scene_configs_instantiate(option):
    node = _compose(f"scene={option}").scene
    spec = instantiate(node)
    # Each option builds its template (wall_bounce is a thrown ball aimed at the wall).
    assert isinstance(spec, SceneSpec) and spec.template == node._target_.rsplit(".", 1)[-1]
    assert (spec.camera.width_px, spec.camera.height_px, spec.fps, spec.num_frames) == (848, 480, 16.0, 81)


@pytest.mark.parametrize("option", _options("author"))
def test_author_configs_instantiate(option):
    node = _compose(f"author={option}").author
    author = instantiate(node)
    assert type(author) is get_class(node._target_) and author.name == option


@pytest.mark.parametrize("option", _options("sim"))
def test_engine_configs_instantiate(option):
    assert isinstance(instantiate(_compose(f"sim={option}").sim), EngineSettings)


@pytest.mark.parametrize("option", _options("request"))
def test_request_configs_validate(option):
    cfg = _compose(f"request={option}")
    request = PhysicsRequest.from_mapping(OmegaConf.to_container(cfg.request, resolve=True), file=option)
    assert request.name == option
    assert isinstance(request.build_spec(request.initial_values()), SceneSpec)


def test_llm_author_config_nests_its_fallback():
    author = instantiate(_compose("author=llm").author)
    assert author.fallback is not None and author.fallback.name == "numeric"
