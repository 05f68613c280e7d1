"""Shared test set-up: one torch thread, W&B offline, a temporary outputs root."""

import os

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass
