"""A run directory's ``manifest.json``: git sha and dirty flag, package versions, input and artifact hashes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from veriphy.files import write_json
from veriphy.hashing import sha256_file

# Wall-clock seconds (the only files that differ between reruns): listed by name, never hashed, so a rerun's
# manifest has the same artifact hashes.
UNHASHED_FILES = ("timings.json",)

MANIFEST_PACKAGES = ("numpy", "scipy", "pydantic", "hydra-core", "omegaconf", "pybullet", "av", "torch",
                     "diffusers", "transformers", "opencv-python-headless", "wandb", "veriphy")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def package_versions(names: Iterable[str] = MANIFEST_PACKAGES) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def write_manifest(run_dir: str | os.PathLike, *, stage: str, inputs: Mapping[str, str | os.PathLike] = {},
                   input_hashes: Mapping[str, str] = {}, extra: Mapping[str, Any] = {}) -> Path:
    """Write ``manifest.json``: git sha and dirty flag, package versions, input hashes and the sha256 of
    every file already in ``run_dir`` (except ``.hydra/``, hidden files, the manifest itself and the timings
    files, ``UNHASHED_FILES``, which are listed under ``unhashed``)."""
    run_dir = Path(run_dir)
    status = _git("status", "--porcelain", "--untracked-files=no")
    hashes = dict(input_hashes)
    for key, p in inputs.items():
        p = Path(p)
        if p.is_file():
            hashes[key] = sha256_file(p)
    artifacts, unhashed = {}, []
    for p in sorted(run_dir.rglob("*")):
        rel = p.relative_to(run_dir).as_posix()
        if p.is_file() and not rel.startswith((".hydra/", "wandb/")) and p.name != "manifest.json" \
                and not p.name.startswith(".") and p.suffix != ".log":
            if p.name in UNHASHED_FILES:
                unhashed.append(rel)
            else:
                artifacts[rel] = sha256_file(p)
    manifest = {
        "stage": stage,
        "git_sha": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "input_sha256": hashes,
        "artifact_sha256": artifacts,
        "unhashed": unhashed,
        **dict(extra),
    }
    return write_json(run_dir / "manifest.json", manifest)
