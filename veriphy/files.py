"""Deterministic files: sorted-key JSON without NaN, NPZ with fixed zip timestamps, atomic writes.

An interrupted run never leaves a half-written file: every write goes to a temporary file beside the target and
is renamed over it; a write that fails removes its temporary file.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from veriphy.errors import UserError


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


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write via a temporary file and rename, so an interrupted run never leaves a half-written file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the folder itself refused the write: nothing was left in it
            pass
        raise


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (dumps_json(obj) + "\n").encode())
    return path


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


def read_text(path: str | os.PathLike, *, field: str | None = None) -> str:
    """A user's text file (request, spec, prompt, manifest, suite, lessons): UTF-8, or a :class:`UserError`
    naming the file (missing, a folder, unreadable, or not UTF-8 with the byte offset of the first bad byte)."""
    path = Path(path)
    if path.is_dir():
        raise UserError("is a folder, expected a file", file=path, field=field)
    if not path.is_file():
        raise UserError("file not found", file=path, field=field)
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"not UTF-8 text (byte {exc.start}: {exc.reason})", file=path, field=field) from None
    except OSError as exc:
        raise UserError(f"cannot read ({exc.strerror})", file=path, field=field) from None


def read_json(path: str | os.PathLike) -> Any:
    path = Path(path)
    if not path.is_file():
        raise UserError("file not found", file=path)
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise UserError(f"not valid JSON (line {exc.lineno}: {exc.msg})", file=path) from None
