"""The architecture's import rules (DESIGN §2), checked on the source tree with ``ast``.

* dependency direction ``sim <- control <- generate <- critic <- experiments``;
* ``critic`` never imports ``generate`` or diffusers (it reads a clip from disk);
* only ``experiments`` imports wandb;
* every ``types.py`` imports only the standard library, numpy and pydantic.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = ["sim", "control", "generate", "critic", "experiments"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _stage_files(stage: str) -> list[Path]:
    return sorted(p for p in (ROOT / stage).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("stage", STAGES)
def test_dependency_direction(stage):
    allowed = set(STAGES[: STAGES.index(stage) + 1])
    forbidden = set(STAGES) - allowed
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & forbidden) for p in _stage_files(stage)}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"{stage} imports stages to its right: {offenders}"


def test_critic_never_imports_the_generator():
    offenders = [str(p.relative_to(ROOT)) for p in _stage_files("critic") if _imports(p) & {"generate", "diffusers"}]
    assert not offenders, f"critic must read clips from disk, not import the generator: {offenders}"


def test_only_experiments_talks_to_wandb():
    offenders = [str(p.relative_to(ROOT)) for s in STAGES if s != "experiments" for p in _stage_files(s)
                 if "wandb" in _imports(p)]
    assert not offenders, f"only experiments/ may import wandb: {offenders}"


@pytest.mark.parametrize("stage", STAGES)
def test_types_modules_import_only_stdlib_numpy_pydantic(stage):
    path = ROOT / stage / "types.py"
    if not path.exists():
        pytest.skip(f"{stage} has no types.py")
    allowed = set(sys.stdlib_module_names) | {"numpy", "pydantic", "__future__"}
    extra = sorted(_imports(path) - allowed)
    assert not extra, f"{path.relative_to(ROOT)} imports {extra}"
