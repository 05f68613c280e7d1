"""Stage 5: the trained pipeline written as a diffusers directory, the same bytes however the run went."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def forget_load_paths(pipeline_dir: Path) -> None:
    """Drop ``_name_or_path`` from the components' ``config.json``. diffusers records there the folder a
    component was loaded from (a resumed run loads its autoencoder from the work folder), so the shipped files
    would depend on where and whether a run was interrupted. Rewritten as diffusers writes them (indent 2,
    sorted keys, final newline): a resumed run exports the same bytes as an uninterrupted one."""
    for config in sorted(Path(pipeline_dir).glob("*/config.json")):
        values = json.loads(config.read_text())
        if "_name_or_path" in values:
            del values["_name_or_path"]
            config.write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")


def export_pipeline(pipe, out_dir: Path, card: str) -> Path:
    """``save_pretrained`` (safetensors) plus ``MODEL_CARD.md``; replaces ``out_dir`` atomically enough for a
    single writer (written beside it, then renamed)."""
    out_dir = Path(out_dir)
    tmp = out_dir.with_name(out_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    pipe.save_pretrained(tmp, safe_serialization=True)
    forget_load_paths(tmp)
    (tmp / "MODEL_CARD.md").write_text(card)
    if out_dir.exists():
        old = out_dir.with_name(out_dir.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        out_dir.rename(old)
        tmp.rename(out_dir)
        shutil.rmtree(old)
    else:
        tmp.rename(out_dir)
    return out_dir


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())
