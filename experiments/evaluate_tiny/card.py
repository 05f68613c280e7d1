"""A model card's measured section: the evaluation's figures written between the card's markers
(:data:`generate.train.card.EVALUATION_BEGIN` and ``EVALUATION_END``), the hand-written text around them kept."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from experiments.evaluate_tiny.markdown import FIGURES, mean_cell, pass_cell
from experiments.evaluate_tiny.report import SCENE_KINDS
from generate.train.card import EVALUATION_BEGIN, EVALUATION_END
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes


def card_section(rep: dict[str, Any]) -> str:
    """The measured figures for a model card (between ``generate.train.card.EVALUATION_BEGIN`` and ``..._END``)."""
    s = rep["settings"]

    def line(name: str, f: dict[str, Any]) -> str:
        return (f"| {name} | {pass_cell(f)} | {f['median_r_airborne_x']:.3f} / {f['median_r_airborne_y']:.3f} "
                f"| {mean_cell(f)} |")

    sweep = " -> ".join(f"{r['mean_r_airborne']:.2f} (sigma {r['sigma_rel']:.2f})" for r in rep["release_sweep"])
    d = rep["no_control_direction"]
    return "\n".join([
        f"{len(rep['clips'])} held-out clips (data seed {s['data']['seed']}), {s['num_steps']} UniPC steps, "
        f"guidance {s['guidance_scale']}, prompts of up to {s['max_sequence_length']} tokens; evaluated in "
        f"{rep['seconds'] / 60:.1f} min. A clip passes when the ball tracked by the critic's tracker has Pearson "
        f"r >= {s['pass_threshold']} with the simulated path on both axes of the airborne window; the autoencoder "
        "ceiling is the same check on the ground truth encoded and decoded by the model's VAE. Full report: "
        "`evaluation/report.md` and `evaluation/release_sweep.png`. In brackets: 95 % intervals (Wilson for pass "
        "rates, bootstrap over clips for means).",
        "",
        "| figure | pass | median r x / y | mean r airborne |",
        "| --- | --- | --- | --- |",
        *[line(label, rep[key]) for key, label in FIGURES[1:]],
        "",
        "By scene kind, control throughout passes "
        + "; ".join(f"{label}: {pass_cell(rep['full_control_by_scene'][key]['full_control'])}"
                    for key, label in SCENE_KINDS) + ".",
        "",
        f"Release sweep, mean airborne retention against sigma_rel: {sweep}. Without control the ball's sideways "
        f"motion follows the prompt's direction in {d['follows_prompt']}/{d['clips']} clips "
        f"({100 * d['share_follows_prompt']:.0f} %).",
    ])


def card_parts(card: Path) -> tuple[str, str, str]:
    """``card``'s text before, inside and after its measured section (markers excluded); a clear error when the
    file or its markers are missing (checked before an evaluation starts, so a typo costs seconds, not the run)."""
    card = Path(card)
    if not card.is_file():
        raise UserError("no such model card", file=card, field="card")
    head, sep, rest = card.read_text().partition(EVALUATION_BEGIN)
    section, sep2, tail = rest.partition(EVALUATION_END)
    if not sep or not sep2:
        raise UserError(f"no evaluation section (a line {EVALUATION_BEGIN!r} and, after it, "
                        f"{EVALUATION_END!r})", file=card, field="card")
    return head, section, tail


def write_card(card: Path, rep: dict[str, Any], run_dir: Path) -> None:
    """Rewrite ``card``'s measured section from ``rep`` and copy ``report.md`` and ``release_sweep.png`` from
    ``run_dir`` into ``evaluation/`` beside it. The card's hand-written text (outside the markers) is kept."""
    head, _, tail = card_parts(card)
    section = f"{EVALUATION_BEGIN}\n{card_section(rep)}\n{EVALUATION_END}"
    atomic_write_bytes(Path(card), f"{head}{section}{tail}".encode())
    out = Path(card).parent / "evaluation"
    out.mkdir(exist_ok=True)
    for name in ("report.md", "release_sweep.png"):
        shutil.copyfile(Path(run_dir) / name, out / name)
