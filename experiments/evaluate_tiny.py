"""Evaluate the trained tiny generator on held-out simulated scenes (``python -m experiments.evaluate_tiny``).

Held-out scenes come from the same sampler as the training clips (:class:`generate.data.ClipDataset`) with a
different data seed, so no scene is shared. For every clip the ball is tracked with the critic's offline
tracker and scored with the release sweep's retention (Pearson correlation of tracked vs projected path per
axis, over the airborne window and after the first ground contact):

* **autoencoder ceiling**: the ground-truth clip encoded and decoded by the model's VAE (what the generator
  could at best reproduce);
* **release sweep**: one clip per release step i* (prefix-shared, :func:`generate.sweep.generate_release_sweep`),
  from i* = 0 (no control) to i* = N (control throughout), against sigma_rel;
* **without control** (i* = 0): whether the ball's mean sideways motion follows the prompt's direction.

Writes ``report.json`` (every clip's scores), ``report.md`` (the figures) and ``release_sweep.png`` into the
run directory; with ``card=PATH/MODEL_CARD.md`` also the card's measured section and ``PATH/evaluation/``. A
clip "passes" when r >= ``pass_threshold`` on both axes in the airborne window; an unmeasurable window counts as
a failure (and as r = 0 in means).

With ``vae_dir=DIR`` only the autoencoder ceiling of that ``AutoencoderKLWan`` directory is measured (a training
work folder's ``vae_final``), so a weak autoencoder is caught before the transformer stage is spent on it.

Thirty clips leave each figure uncertain by several points, so every mean comes with a 95 % percentile-bootstrap
interval over clips (``scipy.stats.bootstrap``, seeded by the evaluation's seed, so a report is the same on every
run) and every pass rate with a 95 % Wilson interval (``scipy.stats.binomtest``). Control throughout is also
broken down by scene kind (:func:`scene_kind`), which shows where the control is lost.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from veriphy.files import write_json


@dataclass
class TinyEvaluation:
    """Settings of one evaluation (instantiated from ``conf/evaluate_app.yaml``; cheap).

    ``data``: the held-out :class:`generate.data.ClipDataset`; ``guidance_scale`` and ``max_sequence_length``:
    the generator's own settings (the app interpolates them from ``conf/generator/tiny.yaml``, so there is no
    second default to drift); ``num_clips``: how many of its clips to use;
    ``release_steps``: the i* of the sweep (must include 0 and ``num_steps``); ``pass_threshold``: r needed on
    both airborne axes; ``direction_min_px``: the least mean sideways travel that counts as a direction.
    """

    data: Any
    guidance_scale: float
    max_sequence_length: int
    num_clips: int = 30
    num_steps: int = 20
    release_steps: list[int] = field(default_factory=lambda: [0, 2, 4, 6, 8, 10, 12, 14, 16, 20])
    pass_threshold: float = 0.9
    retention_threshold: float = 0.7
    min_frames: int = 3
    direction_min_px: float = 2.0
    seed: int = 0

    def __post_init__(self) -> None:
        steps = sorted({int(s) for s in self.release_steps})
        if steps[0] != 0 or steps[-1] != self.num_steps:
            raise ValueError(f"release_steps must include 0 and num_steps ({self.num_steps}), got {steps}")
        self.release_steps = steps


def window_masks_of(record: dict[str, Any], num_frames: int) -> dict[str, np.ndarray]:
    """``airborne`` / ``after_ground`` frame masks (T,) from a clip record's frame windows."""
    masks = {}
    windows = record["windows"]
    air = np.zeros(num_frames, bool)
    if "airborne" in windows:
        a, b = windows["airborne"]
        air[a:b + 1] = True
    after = np.zeros(num_frames, bool)
    if "first_ground_contact" in windows:
        after[windows["first_ground_contact"][0]:] = True
    masks["airborne"] = air
    masks["after_ground"] = after
    return masks


def airborne_rs(score: dict[str, Any]) -> tuple[float | None, float | None]:
    w = score["windows"]["airborne"]
    return w["x"]["r"], w["y"]["r"]


def passes(score: dict[str, Any], threshold: float) -> bool:
    rx, ry = airborne_rs(score)
    return rx is not None and ry is not None and rx >= threshold and ry >= threshold


def mean_r(score: dict[str, Any], window: str = "airborne") -> float:
    """Mean over the two axes, an unmeasurable axis counting as 0."""
    w = score["windows"][window]
    return float(np.mean([w[a]["r"] if w[a]["r"] is not None else 0.0 for a in ("x", "y")]))


# Scene kinds of the breakdown (key, label), in table order.
SCENE_KINDS = (("thrown", "thrown ball without wall contact"), ("wall", "thrown ball that hits the wall"),
               ("ramp", "ball rolling off a ramp"))


def scene_kind(info: dict[str, Any]) -> str:
    """A clip's key in :data:`SCENE_KINDS` from its sampler description (``template``, ``hits_wall``)."""
    if info["template"] == "ramp":
        return "ramp"
    return "wall" if info.get("hits_wall") else "thrown"


def mean_interval(values, *, seed: int, confidence: float = 0.95,
                  resamples: int = 2000) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of the mean of ``values`` (one per clip); None for fewer than 2 values."""
    from scipy import stats

    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return None
    if np.all(values == values[0]):  # every resample has the same mean (SciPy would warn and return NaN)
        return float(values[0]), float(values[0])
    res = stats.bootstrap((values,), np.mean, confidence_level=confidence, n_resamples=resamples,
                          method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def proportion_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a pass rate; None without trials."""
    from scipy import stats

    if trials == 0:
        return None
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def sideways_direction(track, min_px: float) -> int:
    """+1 / -1 when the tracked centre's mean sideways motion (slope of x over the observed frames, times the
    clip length) is at least ``min_px`` to the right / left, else 0."""
    seen = np.asarray(track.visible) & ~np.asarray(track.coasted) & np.isfinite(track.centroid_px).all(axis=1)
    if seen.sum() < 3:
        return 0
    t = np.flatnonzero(seen).astype(np.float64)
    x = np.asarray(track.centroid_px)[seen, 0]
    slope = np.polyfit(t, x, 1)[0]
    travel = slope * (len(seen) - 1)
    if abs(travel) < min_px:
        return 0
    return 1 if travel > 0 else -1


def autoencode(pipe, rgb: np.ndarray) -> np.ndarray:
    """(T, H, W, 3) uint8 through the VAE (posterior mode) and back, uint8."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(rgb)).float().div(127.5).sub(1.0).permute(3, 0, 1, 2)[None]
    with torch.no_grad():
        z = pipe.vae.encode(x).latent_dist.mode()
        y = pipe.vae.decode(z).sample[0]
    y = ((y.clamp(-1, 1) + 1) * 127.5).round().permute(1, 2, 3, 0).to(torch.uint8).numpy()
    return y


def control_video_of(frames: np.ndarray, centers_px: np.ndarray, fps: float):
    from control.types import ControlVideo

    t = frames.shape[0]
    return ControlVideo(frames=frames, kind="depth", fps=fps, object_names=("ball",),
                        centers_px=np.asarray(centers_px).reshape(t, 1, 2), near_m=np.zeros(t), far_m=np.zeros(t))


def evaluate(pipe, ev: TinyEvaluation, *, progress: bool = True, frames_dir: Path | None = None,
             autoencoder_only: bool = False) -> dict[str, Any]:
    """Run every figure on the first ``ev.num_clips`` held-out clips; returns the JSON-ready report. With
    ``autoencoder_only`` only ``pipe.vae`` is used (the ground-truth check and the autoencoder ceiling, see
    :func:`summarise_autoencoder`): a trained autoencoder is checked before a transformer is trained on it."""
    from experiments.retention import RetentionConfig, score_retention
    from experiments.tracking import CriticObjectTracker
    from generate.sweep import generate_release_sweep

    ev.data.build(progress=progress)
    arrays, index = ev.data.arrays()
    n = min(ev.num_clips, len(index))
    fps = float(ev.data.sampler.fps)
    scoring = RetentionConfig(threshold=ev.retention_threshold, min_frames=ev.min_frames)
    tracker = CriticObjectTracker(subject="ball")
    clips = []
    sigma_rel: dict[int, float] = {}
    tic = time.perf_counter()
    for i in tqdm(range(n), desc="evaluate", unit="clip", file=sys.stderr, disable=not progress):
        rec = index[i]
        sim_px = np.asarray(arrays["centers_px"][i], dtype=np.float64)
        t = sim_px.shape[0]
        masks = window_masks_of(rec, t)

        def score(frames: np.ndarray) -> tuple[dict[str, Any], Any]:
            track = tracker(frames, fps, sim_px)
            return score_retention(track.centroid_px, track.visible & ~track.coasted, sim_px, masks, scoring,
                                   track.area_px), track

        entry: dict[str, Any] = {"index": rec["index"], "prompt": rec["prompt"], "direction": rec["direction"],
                                 "template": rec["info"]["template"], "scene": scene_kind(rec["info"]),
                                 "radius_px": rec["info"]["radius_px"]}
        entry["ground_truth"] = score(arrays["rgb"][i])[0]
        recon = autoencode(pipe, arrays["rgb"][i])
        entry["autoencoder"] = score(recon)[0]
        clips.append(entry)
        if autoencoder_only:
            continue
        control = control_video_of(arrays["control"][i], sim_px, fps)
        out = generate_release_sweep(pipe, control, rec["prompt"], seed=ev.seed + i, num_steps=ev.num_steps,
                                     release_steps=ev.release_steps, guidance_scale=ev.guidance_scale,
                                     max_sequence_length=ev.max_sequence_length, progress=False)
        entry["release"] = {}
        for step, clip in out.items():
            s, _ = score(np.asarray(clip.frames))
            entry["release"][str(step)] = s
            sigma_rel[step] = float(clip.sigma_rel)
            if frames_dir is not None and step in (0, ev.num_steps) and i < 8:
                from PIL import Image

                frames_dir.mkdir(parents=True, exist_ok=True)
                strip = np.concatenate([*np.asarray(clip.frames)[::2]], axis=1)
                Image.fromarray(strip).save(frames_dir / f"clip{i:02d}_release{step:02d}.png")
        free = np.asarray(out[0].frames)
        free_track = tracker(free, fps, None)  # no simulated path: the tracker must not be steered to it
        entry["no_control_direction"] = sideways_direction(free_track, ev.direction_min_px)
    seconds = time.perf_counter() - tic
    if autoencoder_only:
        return summarise_autoencoder(clips, ev, seconds)
    return summarise(clips, ev, sigma_rel, seconds)


def report_head(clips: list[dict[str, Any]], ev: TinyEvaluation, seconds: float) -> dict[str, Any]:
    """What every report holds: settings, time, every clip's scores, the tracker's check on the ground truth and
    the autoencoder ceiling."""
    return {
        "settings": {k: v for k, v in vars(ev).items() if k != "data"} | {"data": ev.data.config},
        "seconds": seconds,
        "ground_truth_tracking": figure_of([c["ground_truth"] for c in clips], ev),
        "autoencoder_ceiling": figure_of([c["autoencoder"] for c in clips], ev),
        "clips": clips,
    }


def summarise_autoencoder(clips: list[dict[str, Any]], ev: TinyEvaluation, seconds: float) -> dict[str, Any]:
    """The report of an autoencoder-only evaluation: :func:`report_head` and the ceiling by scene kind."""
    return report_head(clips, ev, seconds) | {
        "autoencoder_by_scene": {kind: figure_of([c["autoencoder"] for c in clips if c["scene"] == kind], ev)
                                 for kind, _ in SCENE_KINDS},
    }


def figure_of(scores: list[dict[str, Any]], ev: TinyEvaluation) -> dict[str, Any]:
    """One figure over clips' retention scores: passes (r >= ``ev.pass_threshold`` on both airborne axes), their
    rate and 95 % interval, median r per axis, mean airborne r and its interval, unmeasurable axes."""
    thr = ev.pass_threshold
    k = len(scores)
    rx = [airborne_rs(s)[0] for s in scores]
    ry = [airborne_rs(s)[1] for s in scores]
    passed = int(sum(passes(s, thr) for s in scores))
    airborne = [mean_r(s) for s in scores]
    return {
        "clips": k,
        "pass": passed,
        "pass_rate": passed / k if k else None,
        "pass_rate_ci95": proportion_interval(passed, k),
        "median_r_airborne_x": float(np.median([r if r is not None else 0.0 for r in rx])) if k else None,
        "median_r_airborne_y": float(np.median([r if r is not None else 0.0 for r in ry])) if k else None,
        "mean_r_airborne": float(np.mean(airborne)) if k else None,
        "mean_r_airborne_ci95": mean_interval(airborne, seed=ev.seed),
        "mean_r_after_ground": float(np.mean([mean_r(s, "after_ground") for s in scores])) if k else None,
        "unmeasurable": int(sum(r is None for r in rx + ry)),
    }


def summarise(clips: list[dict[str, Any]], ev: TinyEvaluation, sigma_rel: dict[int, float],
              seconds: float) -> dict[str, Any]:
    n = len(clips)

    def figure(key_fn, subset=clips) -> dict[str, Any]:
        return figure_of([key_fn(c) for c in subset], ev)

    by_scene = {}
    for kind, _ in SCENE_KINDS:
        subset = [c for c in clips if c["scene"] == kind]
        by_scene[kind] = {"autoencoder_ceiling": figure(lambda c: c["autoencoder"], subset),
                          "full_control": figure(lambda c: c["release"][str(ev.num_steps)], subset)}

    sweep = []
    for step in ev.release_steps:
        f = figure(lambda c, s=step: c["release"][str(s)])
        sweep.append({"release_step": step, "sigma_rel": sigma_rel.get(step), **f})
    follows = [c["no_control_direction"] == c["direction"] for c in clips]
    still = [c["no_control_direction"] == 0 for c in clips]
    return report_head(clips, ev, seconds) | {
        "full_control": figure(lambda c: c["release"][str(ev.num_steps)]),
        "no_control": figure(lambda c: c["release"]["0"]),
        "no_control_direction": {"clips": n, "follows_prompt": int(sum(follows)),
                                 "share_follows_prompt": float(np.mean(follows)) if n else None,
                                 "no_sideways_motion": int(sum(still))},
        "release_sweep": sweep,
        "full_control_by_scene": by_scene,
    }


# The report's figures (key in the report, row label), in table order; a model card shows all but the first.
FIGURES = (("ground_truth_tracking", "ground truth (tracker check)"), ("autoencoder_ceiling", "autoencoder ceiling"),
           ("full_control", "control throughout (i* = N)"), ("no_control", "no control (i* = 0)"))


def pass_cell(f: dict[str, Any]) -> str:
    """"24/30 (80 %, 62-90)": passes, rate and its 95 % interval."""
    if not f["clips"]:
        return "0/0"
    ci = f.get("pass_rate_ci95")
    rng = f", {100 * ci[0]:.0f}-{100 * ci[1]:.0f}" if ci else ""
    return f"{f['pass']}/{f['clips']} ({100 * f['pass_rate']:.0f} %{rng})"


def mean_cell(f: dict[str, Any]) -> str:
    """"0.828 (0.74-0.91)": mean airborne r and its 95 % interval."""
    if not f["clips"]:
        return "-"
    ci = f.get("mean_r_airborne_ci95")
    return f"{f['mean_r_airborne']:.3f}" + (f" ({ci[0]:.2f}-{ci[1]:.2f})" if ci else "")


def scene_line(label: str, kind: dict[str, Any]) -> str:
    """A row of the by-scene-kind table: clips, autoencoder ceiling, control throughout and its mean r."""
    full = kind["full_control"]
    return (f"| {label} | {full['clips']} | {pass_cell(kind['autoencoder_ceiling'])} | {pass_cell(full)} "
            f"| {mean_cell(full)} |")


def figure_row(name: str, f: dict[str, Any], *, after_ground: bool = True) -> str:
    """A row of a report's figure table: pass, median r per axis, mean airborne r, (mean r after ground contact,)
    unmeasurable axes."""
    ground = f" {f['mean_r_after_ground']:.3f} |" if after_ground else ""
    return (f"| {name} | {pass_cell(f)} | {f['median_r_airborne_x']:.3f} | {f['median_r_airborne_y']:.3f} "
            f"| {mean_cell(f)} |{ground} {f['unmeasurable']} |")


def report_markdown(rep: dict[str, Any], model: str) -> str:
    s = rep["settings"]
    thr = s["pass_threshold"]

    d = rep["no_control_direction"]
    rows = [
        f"# Tiny generator evaluation: {model}",
        "",
        f"Held-out scenes: {len(rep['clips'])} clips of data seed {s['data']['seed']} (training used another "
        f"seed); {s['num_steps']} UniPC steps, guidance {s['guidance_scale']}, max_sequence_length "
        f"{s['max_sequence_length']}. Pass: Pearson r >= {thr} on both axes in the airborne window. "
        f"Took {rep['seconds'] / 60:.1f} min. In brackets: 95 % intervals (pass rates: Wilson; means: bootstrap "
        "over clips).",
        "",
        "| figure | pass | median r x | median r y | mean r airborne | mean r after ground | unmeasurable axes |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *[figure_row(label, rep[key]) for key, label in FIGURES],
        "",
        f"Without control, the ball's mean sideways motion follows the prompt's direction in "
        f"{d['follows_prompt']}/{d['clips']} clips ({100 * d['share_follows_prompt']:.0f} %); "
        f"{d['no_sideways_motion']} show no sideways motion.",
        "",
        "## Control throughout, by scene kind",
        "",
        "| scene | clips | autoencoder ceiling | control throughout | mean r airborne |",
        "| --- | --- | --- | --- | --- |",
        *[scene_line(label, rep["full_control_by_scene"][key]) for key, label in SCENE_KINDS],
        "",
        "## Release sweep (mean retention over clips, airborne window, mean of the two axes)",
        "",
        "| i* | sigma_rel | mean r airborne | mean r after ground | pass |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rep["release_sweep"]:
        rows.append(f"| {r['release_step']} | {r['sigma_rel']:.3f} | {mean_cell(r)} | "
                    f"{r['mean_r_after_ground']:.3f} | {r['pass']}/{r['clips']} |")
    rows += ["", "![release sweep](release_sweep.png)", ""]
    return "\n".join(rows)


def autoencoder_markdown(rep: dict[str, Any], vae: str) -> str:
    """The report of an autoencoder-only evaluation (:func:`summarise_autoencoder`)."""
    s = rep["settings"]
    figures = [("ground truth (tracker check)", rep["ground_truth_tracking"]),
               ("autoencoder ceiling", rep["autoencoder_ceiling"]),
               *[(f"... {label}", rep["autoencoder_by_scene"][key]) for key, label in SCENE_KINDS
                 if rep["autoencoder_by_scene"][key]["clips"]]]
    return "\n".join([
        f"# Autoencoder ceiling: {vae}",
        "",
        f"{len(rep['clips'])} clips of data seed {s['data']['seed']}, each encoded and decoded (posterior mode) and "
        f"tracked. Pass: Pearson r >= {s['pass_threshold']} on both axes in the airborne window. Took "
        f"{rep['seconds'] / 60:.1f} min. In brackets: 95 % intervals (pass rates: Wilson; means: bootstrap over "
        "clips).",
        "",
        "| figure | pass | median r x | median r y | mean r airborne | unmeasurable axes |",
        "| --- | --- | --- | --- | --- | --- |",
        *[figure_row(name, f, after_ground=False) for name, f in figures],
        "",
    ])


def card_section(rep: dict[str, Any]) -> str:
    """The measured figures for a model card (between ``generate.train.EVALUATION_BEGIN`` and ``..._END``)."""
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
    from generate.train import EVALUATION_BEGIN, EVALUATION_END
    from veriphy.errors import UserError

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
    import shutil

    from generate.train import EVALUATION_BEGIN, EVALUATION_END
    from veriphy.files import atomic_write_bytes

    head, _, tail = card_parts(card)
    section = f"{EVALUATION_BEGIN}\n{card_section(rep)}\n{EVALUATION_END}"
    atomic_write_bytes(Path(card), f"{head}{section}{tail}".encode())
    out = Path(card).parent / "evaluation"
    out.mkdir(exist_ok=True)
    for name in ("report.md", "release_sweep.png"):
        shutil.copyfile(Path(run_dir) / name, out / name)


def plot_sweep(rep: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sw = rep["release_sweep"]
    sig = [r["sigma_rel"] for r in sw]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    line, = ax.plot(sig, [r["mean_r_airborne"] for r in sw], "o-", label="airborne")
    if all(r.get("mean_r_airborne_ci95") for r in sw):
        ax.fill_between(sig, [r["mean_r_airborne_ci95"][0] for r in sw], [r["mean_r_airborne_ci95"][1] for r in sw],
                        color=line.get_color(), alpha=0.15, lw=0, label="airborne, 95 % interval")
    ax.plot(sig, [r["mean_r_after_ground"] for r in sw], "s--", label="after ground contact")
    ax.axhline(rep["settings"]["retention_threshold"], color="grey", lw=0.8, ls=":")
    ax.set_xlabel("sigma_rel (control released at)")
    ax.set_ylabel("mean retention r")
    ax.invert_xaxis()
    ax.set_ylim(-0.2, 1.0)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _task(cfg) -> None:
    from hydra.utils import instantiate

    from veriphy.errors import UserError
    from veriphy.hydra_app import configure_threads, hydra_run_dir
    from veriphy.manifest import write_manifest

    configure_threads(cfg.num_threads)
    if cfg.get("vae_dir"):
        if cfg.get("card"):
            raise UserError("a model card takes the whole evaluation, not the autoencoder's alone", field="card")
        _autoencoder_task(cfg, Path(cfg.vae_dir))
        return
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


def _start_tracker(cfg, run_dir: Path, name: str):
    """The configured experiment tracker (``tracker=...``), started for this run before its long work."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

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


def _autoencoder_task(cfg, vae_dir: Path) -> None:
    """``vae_dir=DIR``: the autoencoder ceiling of an ``AutoencoderKLWan`` directory (a training work folder's
    ``vae_final``, or a pipeline's ``vae``), so a weak autoencoder is caught before a transformer is trained on it."""
    from types import SimpleNamespace

    from diffusers import AutoencoderKLWan
    from hydra.utils import instantiate

    from veriphy.errors import UserError
    from veriphy.hydra_app import hydra_run_dir
    from veriphy.manifest import write_manifest

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


def main() -> None:
    import hydra

    from veriphy.hydra_app import exit_on_user_error

    @hydra.main(version_base="1.3", config_path="../conf", config_name="evaluate_app")
    def app(cfg) -> None:
        exit_on_user_error(_task)(cfg)

    app()


if __name__ == "__main__":
    main()
