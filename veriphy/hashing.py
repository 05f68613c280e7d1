"""sha256 of bytes, files and JSON values (the keys of caches and the hashes of manifests)."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from veriphy.files import dumps_json


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_json(obj: Any) -> str:
    """The hash of ``obj``'s deterministic JSON text (sorted keys, no whitespace)."""
    return sha256_bytes(dumps_json(obj, indent=None).encode())
