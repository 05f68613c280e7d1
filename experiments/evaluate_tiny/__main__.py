"""``python -m experiments.evaluate_tiny [overrides]`` (``conf/evaluate_app.yaml``): the whole evaluation of a
trained tiny generator, or with ``vae_dir=DIR`` the autoencoder ceiling of one ``AutoencoderKLWan`` directory.
Writes ``report.json``, ``report.md``, ``metrics.json`` (also logged to the configured tracker) and
``manifest.json`` into the run directory, the whole evaluation also ``release_sweep.png`` and ``frames/``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import hydra
from diffusers import AutoencoderKLWan
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from experiments.evaluate_tiny.card import card_parts, write_card
from experiments.evaluate_tiny.evaluate import evaluate
from experiments.evaluate_tiny.markdown import autoencoder_markdown, report_markdown
from experiments.evaluate_tiny.plot import plot_sweep
from veriphy.errors import UserError
from veriphy.files import write_json
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest


def run(cfg: DictConfig) -> None:
    configure_threads(cfg.num_threads)
    if cfg.get("vae_dir"):
        if cfg.get("card"):
            raise UserError("a model card takes the whole evaluation, not the autoencoder's alone", field="card")
        evaluate_autoencoder(cfg, Path(cfg.vae_dir))
        return
    evaluate_generator(cfg)


def evaluate_generator(cfg: DictConfig) -> None:
    """The whole evaluation of the configured generator (``generator=...``); with ``card=PATH`` also the card's
    measured section (its markers are checked first, so a typo costs seconds, not the run)."""
    if cfg.get("card"):
        card_parts(Path(cfg.card))
    run_dir = hydra_run_dir()
    builder = instantiate(cfg.generator)
    pipe = builder.load()
    if getattr(pipe, "veriphy_model_id", "") == "tiny-random":
        raise UserError("no trained tiny model to evaluate (train one: python -m generate.train)",
                        field="generator.pretrained_dir")
    ev = instantiate(cfg.evaluation)
    tracker = _start_tracker(cfg, run_dir, "evaluate_tiny")
    rep = evaluate(pipe, ev, progress=bool(cfg.progress), frames_dir=run_dir / "frames")
    model = getattr(pipe, "veriphy_model_id", "tiny")
    rep["model"] = model
    plot_sweep(rep, run_dir / "release_sweep.png")
    flat = {"autoencoder_pass_rate": rep["autoencoder_ceiling"]["pass_rate"],
            "full_control_pass_rate": rep["full_control"]["pass_rate"],
            "no_control_direction_share": rep["no_control_direction"]["share_follows_prompt"]}
    for r in rep["release_sweep"]:
        flat[f"sweep_mean_r_airborne_i{r['release_step']:02d}"] = r["mean_r_airborne"]
    _write_report(run_dir, tracker, rep, report_markdown(rep, model), flat)
    if cfg.get("card"):
        write_card(Path(cfg.card), rep, run_dir)
    write_manifest(run_dir, stage="evaluate", extra={"model": model})
    print((run_dir / "report.md").read_text())


def evaluate_autoencoder(cfg: DictConfig, vae_dir: Path) -> None:
    """``vae_dir=DIR``: the autoencoder ceiling of an ``AutoencoderKLWan`` directory (a training work folder's
    ``vae_final``, or a pipeline's ``vae``), so a weak autoencoder is caught before a transformer is trained on it."""
    if not (vae_dir / "config.json").is_file():
        raise UserError("not an autoencoder directory (no config.json; a training run writes one to "
                        "<workdir>/vae_final when its autoencoder stage ends)", file=vae_dir, field="vae_dir")
    vae = AutoencoderKLWan.from_pretrained(vae_dir, local_files_only=True).eval()
    run_dir = hydra_run_dir()
    ev = instantiate(cfg.evaluation)
    tracker = _start_tracker(cfg, run_dir, "evaluate_autoencoder")
    rep = evaluate(SimpleNamespace(vae=vae), ev, progress=bool(cfg.progress), autoencoder_only=True)
    rep["model"] = str(vae_dir)
    flat = {"autoencoder_pass_rate": rep["autoencoder_ceiling"]["pass_rate"],
            "autoencoder_mean_r_airborne": rep["autoencoder_ceiling"]["mean_r_airborne"]}
    _write_report(run_dir, tracker, rep, autoencoder_markdown(rep, str(vae_dir)), flat)
    write_manifest(run_dir, stage="evaluate", extra={"model": str(vae_dir)})
    print((run_dir / "report.md").read_text())


def _start_tracker(cfg: DictConfig, run_dir: Path, name: str):
    """The configured experiment tracker (``tracker=...``), started for this run before its long work."""
    tracker = instantiate(cfg.tracker)
    tracker.start(name=name, group="evaluate_tiny", run_dir=run_dir, sweep_dir=run_dir,
                  config=OmegaConf.to_container(cfg, resolve=True))
    return tracker


def _write_report(run_dir: Path, tracker, rep: dict[str, Any], markdown: str, flat: dict[str, Any]) -> None:
    """``report.json``, ``report.md`` and ``metrics.json`` (``flat``, also logged to ``tracker``, then closed)."""
    write_json(run_dir / "report.json", rep)
    (run_dir / "report.md").write_text(markdown)
    tracker.log(flat)
    tracker.finish()
    write_json(run_dir / "metrics.json", flat)


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="evaluate_app")
def _hydra_main(cfg: DictConfig) -> None:
    exit_on_user_error(run)(cfg)


def main(argv: list[str] | None = None) -> None:
    """The command (``argv``: its arguments, default the command line's)."""
    run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
