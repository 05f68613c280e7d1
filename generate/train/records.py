"""What a training run leaves in its work folder besides the models: checkpoints and the metrics log."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import torch

from veriphy.files import atomic_write_bytes


def save_state(path: Path, state: dict[str, Any]) -> None:
    """Atomic ``torch.save`` (an interrupted save never corrupts the previous checkpoint)."""
    buf = io.BytesIO()
    torch.save(state, buf)
    atomic_write_bytes(path, buf.getvalue())


class MetricsLog:
    """Appends one JSON line per logged step to ``metrics.jsonl`` (only ``experiments`` talks to W&B; it can
    replay this file into a run) and, when given, calls ``sink(stage, step, values)`` too."""

    def __init__(self, path: Path, sink=None):
        self.path = path
        self.sink = sink

    def log(self, stage: str, step: int, **values: float) -> None:
        rec = {"stage": stage, "step": step, **{k: float(v) for k, v in values.items()}}
        with open(self.path, "a") as fh:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
        if self.sink is not None:
            self.sink(stage, step, rec)
