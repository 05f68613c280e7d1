"""Every option of every config group composes with its app and instantiates (docs/architecture.md §8).

For each primary config ``conf/<stage>_app.yaml`` the groups it selects are read from Hydra's
``runtime.choices``; every option found on disk for such a group is composed in turn and the node at the
group's package is instantiated (instantiation is cheap by convention: weights load on first use).
Mandatory values (``???``, e.g. a weights path) are filled with a placeholder first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import instantiate
from omegaconf import OmegaConf, open_dict

CONF = Path(__file__).resolve().parents[1] / "conf"
APPS = sorted(p.stem for p in CONF.glob("*_app.yaml"))
SKIP_GROUPS = ("hydra", "experiment")  # experiment presets run in tests/experiments; hydra's own groups


def _compose(app: str, overrides: list[str] = ()):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose(config_name=app, overrides=list(overrides), return_hydra_config=True)


def _cases():
    cases = []
    for app in APPS:
        choices = _compose(app).hydra.runtime.choices
        for group, chosen in choices.items():
            if group.startswith(SKIP_GROUPS) or chosen is None:
                continue
            for option in sorted(p.stem for p in (CONF / group).glob("*.yaml")):
                cases.append(pytest.param(app, group, option, id=f"{app}:{group}={option}"))
    return cases


def _has_target(node) -> bool:
    if OmegaConf.is_dict(node):
        return "_target_" in node or any(_has_target(v) for v in node.values())
    if OmegaConf.is_list(node):
        return any(_has_target(v) for v in node)
    return False


@pytest.mark.parametrize("app", APPS)
def test_primary_config_composes(app):
    cfg = _compose(app)
    assert cfg.get("task"), f"conf/{app}.yaml must set `task` (it names the run directory)"


@pytest.mark.parametrize(("app", "group", "option"), _cases())
def test_every_group_option_instantiates(app, group, option):
    cfg = _compose(app, [f"{group}={option}"])
    node = OmegaConf.select(cfg, group.replace("/", "."))
    if node is None or not _has_target(node):
        pytest.skip(f"{group}={option} has no _target_ at {group.replace('/', '.')}")
    with open_dict(cfg):
        for key in OmegaConf.missing_keys(node):
            OmegaConf.update(cfg, key, "placeholder-for-a-mandatory-value", force_add=True)
    obj = instantiate(node)
    assert obj is not None
