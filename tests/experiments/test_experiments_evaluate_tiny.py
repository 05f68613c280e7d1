"""The tiny-model evaluation end to end at smoke sizes: a few-step trained pipeline, held-out clips, every
figure in the report, the markdown and the plot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from diffusers import WanVACEPipeline
from hydra.utils import instantiate
from omegaconf import OmegaConf

from critic.types import Track
from experiments.evaluate_tiny.card import card_parts, write_card
from experiments.evaluate_tiny.evaluate import evaluate, sideways_direction
from experiments.evaluate_tiny.markdown import autoencoder_markdown, report_markdown
from experiments.evaluate_tiny.plot import plot_sweep
from experiments.evaluate_tiny.report import scene_kind
from experiments.evaluate_tiny.scores import mean_interval, proportion_interval
from experiments.evaluate_tiny.settings import TinyEvaluation
from generate.train.run import run_training
from veriphy.errors import UserError

CONF = Path(__file__).resolve().parents[2] / "conf"


def test_sideways_direction_reads_the_slope():
    t = 9
    xs = np.linspace(40, 10, t)
    track = Track(subject="ball", identity=0, boxes_xyxy=np.zeros((t, 4)),
                  centroid_px=np.stack([xs, np.full(t, 20.0)], 1), area_px=np.full(t, 9.0),
                  visible=np.ones(t, bool), coasted=np.zeros(t, bool), touches_border=np.zeros(t, bool),
                  times_s=np.arange(t) / 8.0)
    assert sideways_direction(track, 2.0) == -1
    assert sideways_direction(track, 100.0) == 0


def test_intervals_are_seeded_and_cover_the_estimate():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.uniform(0.9, 1.0, 24), np.zeros(6)])  # 24 good clips, 6 lost
    lo, hi = mean_interval(values, seed=0)
    assert lo < values.mean() < hi and 0.0 <= lo and hi <= 1.0
    assert mean_interval(values, seed=0) == (lo, hi)  # the same report on every run
    lo4, hi4 = mean_interval(np.tile(values, 4), seed=0)  # four times the clips: a narrower interval
    assert hi4 - lo4 < 0.7 * (hi - lo)
    assert mean_interval(np.full(5, 0.5), seed=0) == (0.5, 0.5)
    assert mean_interval([0.5], seed=0) is None
    # Wilson interval of 24/30: 0.627-0.905.
    assert np.allclose(proportion_interval(24, 30), (0.6269, 0.9050), atol=1e-3)
    assert proportion_interval(0, 0) is None and proportion_interval(0, 10)[0] == 0.0


def test_scene_kind_separates_wall_contacts():
    assert scene_kind({"template": "ramp", "hits_wall": False}) == "ramp"
    assert scene_kind({"template": "thrown_ball", "hits_wall": True}) == "wall"
    assert scene_kind({"template": "thrown_ball", "hits_wall": False}) == "thrown"


def test_evaluation_writes_every_figure(tmp_path):
    data = instantiate(OmegaConf.load(CONF / "train" / "data" / "smoke.yaml"), root=str(tmp_path / "cache"))
    run_training(data=data, vae_cfg=instantiate(OmegaConf.load(CONF / "train" / "vae" / "smoke.yaml")),
                 transformer_cfg=instantiate(OmegaConf.load(CONF / "train" / "transformer" / "smoke.yaml")),
                 workdir=tmp_path / "work", seed=0, export_dir=None, command="test", progress=False)
    pipe = WanVACEPipeline.from_pretrained(tmp_path / "work" / "pipeline", local_files_only=True)
    held_out = instantiate(OmegaConf.load(CONF / "train" / "data" / "smoke.yaml"), root=str(tmp_path / "cache"),
                           seed=7, num_clips=2)
    ev = TinyEvaluation(data=held_out, num_clips=2, num_steps=2, release_steps=[0, 1, 2], guidance_scale=3.0,
                        max_sequence_length=64)
    rep = evaluate(pipe, ev, progress=False)
    for key in ("autoencoder_ceiling", "full_control", "no_control", "ground_truth_tracking"):
        assert rep[key]["clips"] == 2 and rep[key]["pass_rate"] == rep[key]["pass"] / 2
    assert [r["release_step"] for r in rep["release_sweep"]] == [0, 1, 2]
    assert rep["release_sweep"][0]["sigma_rel"] > rep["release_sweep"][-1]["sigma_rel"]
    # The direction figure counts the clips whose uncontrolled ball moves the prompt's way.
    assert rep["no_control_direction"]["follows_prompt"] == sum(c["no_control_direction"] == c["direction"]
                                                                for c in rep["clips"])
    full = rep["full_control"]
    lo, hi = full["pass_rate_ci95"]
    assert lo <= full["pass_rate"] <= hi
    by_scene = rep["full_control_by_scene"]
    assert sum(k["full_control"]["clips"] for k in by_scene.values()) == 2
    assert sum(k["full_control"]["pass"] for k in by_scene.values()) == full["pass"]
    # The autoencoder alone (vae_dir=...): the same ceiling, no generation.
    alone = evaluate(SimpleNamespace(vae=pipe.vae), ev, progress=False, autoencoder_only=True)
    assert alone["autoencoder_ceiling"] == rep["autoencoder_ceiling"] and "release_sweep" not in alone
    assert [c["autoencoder"] for c in alone["clips"]] == [c["autoencoder"] for c in rep["clips"]]
    assert "| autoencoder ceiling | " in autoencoder_markdown(alone, "smoke/vae")
    md = report_markdown(rep, "smoke")
    assert "autoencoder ceiling" in md and "Release sweep" in md and "by scene kind" in md
    plot_sweep(rep, tmp_path / "sweep.png")
    assert (tmp_path / "sweep.png").stat().st_size > 0

    # The card's measured section is written from the report; the hand-written text around it stays.
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "report.md").write_text(md)
    (run_dir / "release_sweep.png").write_bytes((tmp_path / "sweep.png").read_bytes())
    card = tmp_path / "shipped" / "MODEL_CARD.md"
    card.parent.mkdir()
    card.write_text((tmp_path / "work" / "pipeline" / "MODEL_CARD.md").read_text() + "\nLimits: by hand.\n")
    assert "Not evaluated yet" in card.read_text()
    write_card(card, rep, run_dir)
    text = card.read_text()
    full = rep["full_control"]
    assert "Not evaluated yet" not in text and text.endswith("Limits: by hand.\n")
    assert f"| control throughout (i* = N) | {full['pass']}/{full['clips']} " in text
    assert text.startswith("# VeriPhy tiny Wan VACE generator")
    assert (card.parent / "evaluation" / "report.md").read_text() == md
    write_card(card, rep, run_dir)  # idempotent: the section is replaced, not appended
    assert card.read_text() == text

    (tmp_path / "bare.md").write_text("# a card without the markers\n")
    with pytest.raises(UserError, match="no evaluation section"):
        card_parts(tmp_path / "bare.md")
    with pytest.raises(UserError, match="no such model card"):
        card_parts(tmp_path / "missing.md")


def _evaluate_cli(args, cwd):
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(root), "WANDB_MODE": "offline"}
    return subprocess.run([sys.executable, "-m", "experiments.evaluate_tiny", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _autoencoder_args(tmp_path: Path) -> tuple[Path, list[str]]:
    vae_dir = Path(__file__).resolve().parents[2] / "generate" / "pretrained" / "vae"
    data = ["evaluation.num_clips=2", "evaluation.data.num_clips=2", "evaluation.data.shard_size=2",
            f"evaluation.data.root={tmp_path / 'cache'}", "tracker=none", "progress=false"]
    return vae_dir, data


@pytest.mark.slow
def test_cli_checks_an_autoencoder_alone(tmp_path):
    """vae_dir=DIR: the shipped autoencoder's ceiling on two held-out clips, without loading a generator (about 30 s
    on two cores: it simulates and encodes the clips)."""
    vae_dir, data = _autoencoder_args(tmp_path)
    out = tmp_path / "run"
    res = _evaluate_cli([f"vae_dir={vae_dir}", *data, f"hydra.run.dir={out}"], tmp_path)
    assert res.returncode == 0, res.stderr
    rep = json.loads((out / "report.json").read_text())
    assert rep["autoencoder_ceiling"]["clips"] == 2 and "release_sweep" not in rep
    assert sum(f["clips"] for f in rep["autoencoder_by_scene"].values()) == 2
    # The shipped autoencoder keeps the track of most held-out balls (27/30 in its card): of these two, one at least.
    assert rep["autoencoder_ceiling"]["pass"] >= 1
    md = (out / "report.md").read_text()
    assert md.startswith(f"# Autoencoder ceiling: {vae_dir}") and "| autoencoder ceiling | " in md
    assert json.loads((out / "metrics.json").read_text())["autoencoder_pass_rate"] == rep["autoencoder_ceiling"][
        "pass_rate"]


def test_an_autoencoder_check_of_a_folder_without_one_or_with_a_card_is_a_user_error(tmp_path):
    """A folder that holds no autoencoder, or a card asked of this partial evaluation, is a user error."""
    vae_dir, data = _autoencoder_args(tmp_path)
    res = _evaluate_cli([f"vae_dir={tmp_path}", *data, f"hydra.run.dir={tmp_path / 'bad'}"], tmp_path)
    assert res.returncode == 2 and "not an autoencoder directory" in res.stderr and "vae_dir" in res.stderr
    assert "Traceback" not in res.stderr
    res = _evaluate_cli([f"vae_dir={vae_dir}", "card=MODEL_CARD.md", *data, f"hydra.run.dir={tmp_path / 'bad2'}"],
                        tmp_path)
    assert res.returncode == 2 and "card" in res.stderr and "Traceback" not in res.stderr
