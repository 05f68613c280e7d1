"""The report's tables in Markdown (``report.md``): the figures, by scene kind, and the release sweep."""

from __future__ import annotations

from typing import Any

from experiments.evaluate_tiny.report import SCENE_KINDS

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
