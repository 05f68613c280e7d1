"""The architecture's import rules (``docs/architecture.md``), checked on the source tree with ``ast``.

* dependency direction ``veriphy <- sim <- control <- generate <- critic <- experiments``: a package imports only
  the packages to its left;
* ``veriphy`` (the neutral base) imports no stage;
* ``critic`` stands on the base alone: it imports neither ``sim``, ``control`` nor ``generate`` (nor diffusers),
  so it can be lifted out as an evaluator that reads any video from disk;
* one video codec: only ``veriphy/video.py`` imports PyAV;
* only ``experiments`` imports wandb;
* every ``types.py`` imports only the standard library, numpy and pydantic.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = "veriphy"
STAGES = ["sim", "control", "generate", "critic", "experiments"]
PACKAGES = [BASE, *STAGES]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def test_every_package_has_source():
    for package in PACKAGES:
        assert _files(package), f"{package}/ has no Python files"


@pytest.mark.parametrize("package", PACKAGES)
def test_dependency_direction(package):
    allowed = set(PACKAGES[: PACKAGES.index(package) + 1])
    forbidden = set(PACKAGES) - allowed
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & forbidden) for p in _files(package)}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"{package} imports packages to its right: {offenders}"


def test_the_base_imports_no_stage():
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & set(STAGES)) for p in _files(BASE)}
    assert not {k: v for k, v in offenders.items() if v}


def test_critic_stands_on_the_base_alone():
    """The critic reads clips from disk: no physics, no control rendering, no generator, no diffusers."""
    banned = {"sim", "control", "generate", "diffusers"}
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & banned) for p in _files("critic")}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"critic must import only the base: {offenders}"


def test_one_video_codec():
    offenders = [str(p.relative_to(ROOT)) for pkg in PACKAGES for p in _files(pkg)
                 if "av" in _imports(p) and p != ROOT / BASE / "video.py"]
    assert not offenders, f"only veriphy/video.py may import PyAV: {offenders}"


def test_only_experiments_talks_to_wandb():
    offenders = [str(p.relative_to(ROOT)) for s in PACKAGES if s != "experiments" for p in _files(s)
                 if "wandb" in _imports(p)]
    assert not offenders, f"only experiments/ may import wandb: {offenders}"


@pytest.mark.parametrize("stage", STAGES)
def test_types_modules_import_only_stdlib_numpy_pydantic(stage):
    path = ROOT / stage / "types.py"
    assert path.is_file(), f"{stage} keeps its artifact types in types.py"
    allowed = set(sys.stdlib_module_names) | {"numpy", "pydantic", "__future__"}
    extra = sorted(_imports(path) - allowed)
    assert not extra, f"{path.relative_to(ROOT)} imports {extra}"
