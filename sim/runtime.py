"""Run-directory plumbing shared by every stage: user errors, deterministic files, hashes, manifests.

It lives in ``sim`` because ``sim`` is the root of the dependency chain (DESIGN §2): every later stage may
import it. Nothing here knows about physics.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------------------
# User errors: a clear message naming the file, the field and the reason, exit code 2, no traceback.
# --------------------------------------------------------------------------------------------------

EXIT_USER_ERROR = 2


class UserError(Exception):
    """A mistake in the user's input. Printed as ``error: FILE: FIELD: REASON`` and exit code 2."""

    def __init__(self, reason: str, *, file: str | os.PathLike | None = None, field: str | None = None):
        self.reason = reason
        self.file = None if file is None else str(file)
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        parts = [p for p in (self.file, self.field) if p]
        return ": ".join([*parts, self.reason])


def user_error_from_validation(exc: Exception, *, file: str | os.PathLike | None) -> UserError:
    """Turn a pydantic ``ValidationError`` into a :class:`UserError` naming the first bad field."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        errs = errors()
        # Drop consequences of a deeper error (e.g. "tuple too short" after one of its items failed).
        locs = [tuple(e.get("loc", ())) for e in errs]
        errs = [e for e, loc in zip(errs, locs)
                if not any(len(other) > len(loc) and other[:len(loc)] == loc for other in locs)] or errs
        if errs:
            fields = ".".join(str(p) for p in errs[0].get("loc", ())) or "(root)"
            reasons = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('msg')}" for e in errs[:5]
            )
            return UserError(reasons if len(errs) > 1 else str(errs[0].get("msg")), file=file,
                             field=fields if len(errs) == 1 else None)
    return UserError(str(exc), file=file)


def exit_on_user_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for task functions (inside ``@hydra.main``): a :class:`UserError` prints one line on
    stderr and exits with code 2. ``SystemExit`` passes through Hydra untouched."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            sys.exit(EXIT_USER_ERROR)

    return wrapper


def configure_threads(num_threads: int | None, *, only_if_imported: bool = False) -> None:
    """One torch thread by default: on two vCPUs more threads were 5-50x slower under load (DESIGN §11).

    ``only_if_imported``: leave torch alone unless something already imported it (importing torch takes
    seconds; a stage that never uses it should not pay for it)."""
    if num_threads is None:
        return
    if only_if_imported and "torch" not in sys.modules:
        return
    try:
        import torch

        torch.set_num_threads(int(num_threads))
    except ImportError:  # pragma: no cover - torch is a dependency
        pass


# --------------------------------------------------------------------------------------------------
# Deterministic files
# --------------------------------------------------------------------------------------------------


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _clean_floats(obj: Any) -> Any:
    """JSON has no NaN/inf: write them as null so files open in any reader."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean_floats(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean_floats(v) for v in obj]
    return obj


def dumps_json(obj: Any, *, indent: int | None = 2) -> str:
    """Deterministic JSON text: sorted keys, no NaN, numpy/pydantic values converted."""
    plain = json.loads(json.dumps(obj, default=_json_default))
    return json.dumps(_clean_floats(plain), indent=indent, sort_keys=True, allow_nan=False)


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (dumps_json(obj) + "\n").encode())
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write via a temporary file and rename, so an interrupted run never leaves a half-written file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_npz(path: str | os.PathLike, **arrays: np.ndarray) -> Path:
    """``np.savez_compressed`` with fixed zip timestamps, so equal arrays give equal bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, member.getvalue())
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue())
    return path


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    path = Path(path)
    if not path.is_file():
        raise UserError("file not found", file=path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UserError(f"not a readable .npz file ({exc})", file=path) from None


def read_json(path: str | os.PathLike) -> Any:
    path = Path(path)
    if not path.is_file():
        raise UserError("file not found", file=path)
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"not valid JSON (line {exc.lineno}: {exc.msg})", file=path) from None


# --------------------------------------------------------------------------------------------------
# Hashes and manifests
# --------------------------------------------------------------------------------------------------


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_json(obj: Any) -> str:
    return sha256_bytes(dumps_json(obj, indent=None).encode())


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


MANIFEST_PACKAGES = ("numpy", "scipy", "pydantic", "hydra-core", "omegaconf", "pybullet", "av", "torch",
                     "diffusers", "transformers", "opencv-python-headless", "wandb", "veriphy")


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
    every file already in ``run_dir`` (except ``.hydra/`` and the manifest itself)."""
    run_dir = Path(run_dir)
    status = _git("status", "--porcelain", "--untracked-files=no")
    hashes = dict(input_hashes)
    for key, p in inputs.items():
        p = Path(p)
        if p.is_file():
            hashes[key] = sha256_file(p)
    artifacts = {}
    for p in sorted(run_dir.rglob("*")):
        rel = p.relative_to(run_dir).as_posix()
        if p.is_file() and not rel.startswith((".hydra/", "wandb/")) and p.name != "manifest.json" \
                and not p.name.startswith("."):
            artifacts[rel] = sha256_file(p)
    manifest = {
        "stage": stage,
        "git_sha": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "input_sha256": hashes,
        "artifact_sha256": artifacts,
        **dict(extra),
    }
    return write_json(run_dir / "manifest.json", manifest)


def hydra_run_dir(default: str | os.PathLike = ".") -> Path:
    """The current Hydra run directory (Hydra 1.3 with ``version_base="1.3"`` does not chdir into it)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return Path(HydraConfig.get().runtime.output_dir)
    except Exception:  # not inside a Hydra app (e.g. called from a test)
        p = Path(default)
        p.mkdir(parents=True, exist_ok=True)
        return p
