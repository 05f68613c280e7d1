"""``python -m generate.train [overrides]``: the training command (``conf/train_app.yaml``). Writes the work
folder (checkpoints, cache, exported pipeline; ``workdir=`` to resume), ``metrics.json`` (the training summary)
and ``manifest.json`` into the run directory."""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig

from generate.train.run import run_training
from veriphy.files import write_json
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest


def run(cfg: DictConfig) -> None:
    configure_threads(cfg.num_threads)
    torch.manual_seed(cfg.seed)
    run_dir = hydra_run_dir()
    workdir = Path(cfg.workdir) if cfg.workdir else run_dir / "work"
    data = instantiate(cfg.train.data)
    vae_cfg = instantiate(cfg.train.vae)
    transformer_cfg = instantiate(cfg.train.transformer)
    overrides = " ".join(sys.argv[1:])
    command = f"python -m generate.train {overrides}".strip()
    result = run_training(data=data, vae_cfg=vae_cfg, transformer_cfg=transformer_cfg, workdir=workdir,
                          seed=int(cfg.seed), export_dir=Path(cfg.export_dir) if cfg.export_dir else None,
                          command=command, progress=bool(cfg.progress), stop_after=cfg.stop_after,
                          transformer_stop_step=cfg.transformer_stop_step, card_notes=cfg.card_notes)
    write_json(run_dir / "metrics.json", result.summary)
    write_manifest(run_dir, stage="train", extra={"workdir": str(workdir), "pipeline_dir": str(result.pipeline_dir)})
    print(f"pipeline: {result.pipeline_dir}", file=sys.stderr)


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="train_app")
def _hydra_main(cfg: DictConfig) -> None:
    exit_on_user_error(run)(cfg)


def main(argv: list[str] | None = None) -> None:
    """The command (``argv``: its arguments, default the command line's)."""
    run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
