"""Settings of the two training stages (instantiated by Hydra from ``conf/train/vae`` and
``conf/train/transformer``; cheap: nothing is built until the stage runs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class VAETraining:
    """Autoencoder stage. ``model``: ``AutoencoderKLWan`` keyword arguments (see ``generate.tiny``).

    Every step sees whole clips in time (all T frames). The first ``steps - full_frame_steps`` steps see
    ``crop_px`` x ``crop_px`` windows placed on the ball's path (a quarter of the pixels of a 64x64 frame, so
    four times the steps for the same compute, and mostly ball); the last ``full_frame_steps`` see whole frames,
    so the decoder also learns the image borders and the global attention of its middle block."""

    model: dict[str, Any]
    steps: int = 400
    batch_size: int = 3
    lr: float = 2e-3
    warmup: int = 20
    weight_decay: float = 0.0
    loss: str = "mse"
    ball_weight: float = 30.0
    ball_dilation_px: int = 2
    kl_weight: float = 1e-6
    sample_posterior: bool = False
    crop_px: int | None = 32
    full_frame_steps: int = 60
    checkpoint_every: int = 50
    log_every: int = 10


@dataclass
class TransformerTraining:
    """Diffusion stage. ``model``: ``WanVACETransformer3DModel`` keyword arguments; ``text_encoder``:
    ``UMT5Config`` keyword arguments (``vocab_size`` comes from the tokenizer); ``tokenizer``: the prompt
    tokenizer object (a Hydra ``_target_``: ``generate.data.prompt_tokenizer`` words, or
    ``transformers.ByT5Tokenizer`` bytes), shipped with the pipeline. With ``train_text_encoder`` the tiny UMT5
    is trained with the transformer (same optimiser, its own moving average, shipped with it); otherwise it
    stays frozen at its seeded random initialisation and the prompt embeddings are computed once."""

    model: dict[str, Any]
    text_encoder: dict[str, Any]
    tokenizer: Any
    steps: int = 3000
    batch_size: int = 8
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.01
    ema_decay: float = 0.998
    flow_shift: float = 3.0
    control_dropout: float = 0.5
    text_dropout: float = 0.1
    ball_weight: float = 3.0
    max_sequence_length: int = 512
    train_text_encoder: bool = False
    checkpoint_every: int = 200
    log_every: int = 20
