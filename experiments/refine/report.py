"""The outward channel's report, every number recomputed from the per-clip records (``records.jsonl``).

Per channel (and per edit kind within it), with the paper's definitions (docs/refine.md):

* ``fired``: clips acted on (contradicted, and the channel proposed an edit) / contradicted clips;
* ``improved``: fired clips whose ``p_plausible`` rose on regeneration / fired clips;
* ``flipped``: fired clips no longer contradicted on regeneration / fired clips (``to_supported``: how many of
  them the critic now supports; the rest it calls unknown);
* ``collateral``: clips not acted on (not contradicted) that are contradicted when regenerated with the cell's
  changed setting / such clips regenerated;
* the independent rater, trajectory retention against the simulation (the critic does not see it), over the
  fired clips before and after: ``retained`` (both airborne axes r >= threshold) and the mean airborne r.

Proportions carry 95 % Wilson score intervals, means 95 % percentile-bootstrap intervals (2000 resamples,
fixed seed), so the same records give the same bytes.

``python -m experiments.refine.report SWEEP_DIR [--out DIR]`` rewrites ``refine.md``, ``refine.csv`` and the
dumbbell figure ``refine_dumbbell.{png,pdf,csv,txt}`` from the records under SWEEP_DIR.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments.evaluate_tiny.scores import mean_interval, proportion_interval
from experiments.figures.style import PAGE_WIDTH_IN, new_figure, page_style, save_figure
from experiments.jobstate import write_csv
from experiments.refine.types import RefineRecord
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes
from veriphy.hydra_app import exit_on_user_error

# The PDF backend's font subsetter logs every table at INFO, which the jobs' log level shows.
logging.getLogger("fontTools").setLevel(logging.WARNING)

RECORDS = "records.jsonl"
TABLE = "refine"
FIGURE = "refine_dumbbell"
BOOTSTRAP_SEED = 0

COLUMNS = ["channel", "kind", "clips", "contradicted", "fired", "fired_rate", "fired_ci95", "improved",
           "improved_rate", "improved_ci95", "flipped", "flipped_rate", "flipped_ci95", "to_supported", "collateral_n",
           "collateral",
           "collateral_rate", "collateral_ci95", "not_contradicted_before", "not_contradicted_before_ci95",
           "retained_before", "retained_before_ci95", "retained_after",
           "retained_after_ci95", "r_before", "r_before_ci95", "r_after", "r_after_ci95", "p_before", "p_before_ci95",
           "p_after", "p_after_ci95"]


def load_records(sweep_dir: Path) -> list[RefineRecord]:
    """Every complete record line under ``sweep_dir`` (each cell's ``records.jsonl``), ordered by id."""
    records = []
    for path in sorted(Path(sweep_dir).rglob(RECORDS)):
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if line.endswith("\n") and line.strip():
                records.append(RefineRecord.model_validate(json.loads(line)))
    return sorted(records, key=lambda r: r.id)


def _rate(k: int, n: int) -> tuple[float | None, list[float] | None]:
    ci = proportion_interval(k, n)
    return (k / n if n else None), (None if ci is None else [round(ci[0], 4), round(ci[1], 4)])


def _mean(values: Sequence[float]) -> tuple[float | None, list[float] | None]:
    ci = mean_interval(list(values), seed=BOOTSTRAP_SEED)
    return (float(np.mean(values)) if len(values) else None), (None if ci is None else
                                                              [round(ci[0], 4), round(ci[1], 4)])


def channel_row(records: Sequence[RefineRecord], channel: str,
                kind: str | None = None) -> dict[str, Any]:
    """The counts of one channel (of one edit kind when ``kind``) over ``records``."""
    def of_kind(r: RefineRecord) -> bool:
        res = r.channels.get(channel)
        return res is not None and (kind is None or (res.edit is not None and res.edit.kind == kind))

    contradicted = [r for r in records if r.baseline.verdict == "contradicted"]
    fired = [r for r in contradicted if r.channels.get(channel) and r.channels[channel].fired and of_kind(r)]
    after = [r.channels[channel].after for r in fired]
    improved = sum(a.p_plausible > r.baseline.p_plausible for a, r in zip(after, fired))
    flipped = sum(a.verdict != "contradicted" for a in after)
    to_supported = sum(a.verdict == "supported" for a in after)
    group = [r for r in records if r.channels.get(channel) and r.channels[channel].applied == "group" and of_kind(r)]
    collateral = sum(r.channels[channel].after.verdict == "contradicted" for r in group)
    row: dict[str, Any] = {"channel": channel, "kind": kind or "all", "clips": len(records),
                           "contradicted": len(contradicted), "fired": len(fired), "improved": improved,
                           "flipped": flipped, "to_supported": to_supported, "collateral_n": len(group),
                           "collateral": collateral}
    row["fired_rate"], row["fired_ci95"] = _rate(len(fired), len(contradicted))
    row["improved_rate"], row["improved_ci95"] = _rate(improved, len(fired))
    row["flipped_rate"], row["flipped_ci95"] = _rate(flipped, len(fired))
    row["collateral_rate"], row["collateral_ci95"] = _rate(collateral, len(group))
    # Every fired clip was contradicted before its edit: the "before" end of the flipped dumbbell.
    row["not_contradicted_before"], row["not_contradicted_before_ci95"] = _rate(0, len(fired))
    row["retained_before"], row["retained_before_ci95"] = _rate(sum(r.baseline.retained for r in fired), len(fired))
    row["retained_after"], row["retained_after_ci95"] = _rate(sum(a.retained for a in after), len(fired))
    row["r_before"], row["r_before_ci95"] = _mean([r.baseline.r_airborne for r in fired])
    row["r_after"], row["r_after_ci95"] = _mean([a.r_airborne for a in after])
    row["p_before"], row["p_before_ci95"] = _mean([r.baseline.p_plausible for r in fired])
    row["p_after"], row["p_after_ci95"] = _mean([a.p_plausible for a in after])
    return row


def channels_of(records: Sequence[RefineRecord]) -> list[str]:
    return sorted({name for r in records for name in r.channels})


def report_rows(records: Sequence[RefineRecord]) -> list[dict[str, Any]]:
    """One row per channel, then one per (channel, edit kind) that fired or was applied."""
    rows = []
    for channel in channels_of(records):
        rows.append(channel_row(records, channel))
        kinds = sorted({r.channels[channel].edit.kind for r in records
                        if channel in r.channels and r.channels[channel].edit is not None})
        if len(kinds) > 1:
            rows += [channel_row(records, channel, kind) for kind in kinds]
    return rows


def cell_counts(records: Sequence[RefineRecord]) -> dict[str, Any]:
    """The short counts of one cell (a job's ``metrics.json``)."""
    out: dict[str, Any] = {"clips": len(records),
                           "contradicted": sum(r.baseline.verdict == "contradicted" for r in records)}
    for channel in channels_of(records):
        row = channel_row(records, channel)
        out.update({f"{channel}_{k}": row[k] for k in ("fired", "improved", "flipped", "collateral_n", "collateral")})
    return out


def _cell(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return f"[{value[0]:.2f}, {value[1]:.2f}]"
    return str(value)


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    """Counts with rates and 95 % intervals: k/n rate [low, high]."""
    head = ["channel", "edit", "clips", "contradicted", "fired", "improved", "flipped (to supported)", "collateral",
            "retained before -> after", "mean r_air before -> after", "p_plausible before -> after"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        fired_n = row["fired"]
        cells = [
            row["channel"], row["kind"], str(row["clips"]), str(row["contradicted"]),
            f"{row['fired']}/{row['contradicted']} {_cell(row['fired_rate'])} {_cell(row['fired_ci95'])}",
            f"{row['improved']}/{fired_n} {_cell(row['improved_rate'])} {_cell(row['improved_ci95'])}",
            f"{row['flipped']}/{fired_n} {_cell(row['flipped_rate'])} {_cell(row['flipped_ci95'])} "
            f"({row['to_supported']})",
            f"{row['collateral']}/{row['collateral_n']} {_cell(row['collateral_rate'])} "
            f"{_cell(row['collateral_ci95'])}",
            f"{_cell(row['retained_before'])} {_cell(row['retained_before_ci95'])} -> "
            f"{_cell(row['retained_after'])} {_cell(row['retained_after_ci95'])}",
            f"{_cell(row['r_before'])} {_cell(row['r_before_ci95'])} -> {_cell(row['r_after'])} "
            f"{_cell(row['r_after_ci95'])}",
            f"{_cell(row['p_before'])} {_cell(row['p_before_ci95'])} -> {_cell(row['p_after'])} "
            f"{_cell(row['p_after_ci95'])}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


#: The dumbbell's panels: (title, before key, after key) over the fired clips.
PANELS: list[tuple[str, str, str]] = [
    ("critic: not contradicted", "not_contradicted_before", "flipped_rate"),
    ("critic: mean p_plausible", "p_before", "p_after"),
    ("rater: retained", "retained_before", "retained_after"),
    ("rater: mean airborne r", "r_before", "r_after"),
]
#: Where each end's interval is drawn: above (before) and below (after) its dumbbell, the y axis pointing down.
BAND_OFFSET = 0.17
BEFORE_COLOR, AFTER_COLOR = "#8a8a8a", "#1f5fa8"


def _interval_of(row: dict[str, Any], key: str) -> list[float] | None:
    return row[key.replace("_rate", "") + "_ci95"]


def dumbbell_figure(rows: Sequence[dict[str, Any]], out_dir: Path, n_clips: int) -> list[Path]:
    """One panel per measure, one dumbbell per channel row: before (open) -> after (filled) over the fired
    clips, each end with its 95 % interval."""
    shown = [r for r in rows if r["fired"] > 0]
    labels = [f"{r['channel']}" + ("" if r["kind"] == "all" else f": {r['kind']}") + f" (n={r['fired']})"
              for r in shown]
    table: list[dict[str, Any]] = []
    with page_style():
        fig, axes = new_figure(PAGE_WIDTH_IN, 0.45 + 0.32 * max(1, len(shown)), 1, len(PANELS), sharey=True)
        for ax, (title, before_key, after_key) in zip(axes[0], PANELS):
            for y, row in enumerate(shown):
                before, after = row[before_key], row[after_key]
                before_ci, after_ci = _interval_of(row, before_key), _interval_of(row, after_key)
                if before is not None and after is not None:
                    ax.plot([before, after], [y, y], color="#b0b0b0", lw=1.2, zorder=1)
                for value, ci, offset, color, face in ((before, before_ci, -BAND_OFFSET, BEFORE_COLOR, "white"),
                                                       (after, after_ci, BAND_OFFSET, AFTER_COLOR, AFTER_COLOR)):
                    if value is None:
                        continue
                    if ci is not None:
                        ax.plot(ci, [y + offset] * 2, color=color, lw=1.0, solid_capstyle="butt", zorder=0)
                    ax.scatter([value], [y], s=20, facecolor=face, edgecolor=color, linewidths=1.0, zorder=2)
                table.append({"measure": title, "row": labels[y], "before": before, "after": after,
                              "before_ci95": before_ci, "after_ci95": after_ci})
            ax.set_title(title)
            ax.set_ylim(len(shown) - 0.4, -0.6)  # the first row on top
            if before_key != "r_before":
                ax.set_xlim(-0.05, 1.05)
            ax.grid(axis="x", lw=0.3, color="#dddddd")
        axes[0][0].set_yticks(range(len(shown)))
        axes[0][0].set_yticklabels(labels)
        caption = (f"Outward channel over {n_clips} clips: each dumbbell goes from the fired clips before the edit "
                   "(open, grey) to the same clips regenerated with the same seed after it (filled, blue); the "
                   "lines above and below are their 95 % intervals (Wilson for proportions, percentile bootstrap "
                   "for means). The critic's measures on the left; the independent rater on the right: retained = "
                   "both airborne axes r >= 0.7 against the simulation, which the critic does not see.")
        return save_figure(fig, out_dir, FIGURE, table, ["measure", "row", "before", "after", "before_ci95",
                                                         "after_ci95"], caption)


def write_report(sweep_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """``refine.md``, ``refine.csv`` and the dumbbell figure from every record under ``sweep_dir``."""
    out_dir = Path(out_dir or sweep_dir)
    records = load_records(Path(sweep_dir))
    rows = report_rows(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [write_csv(out_dir / f"{TABLE}.csv", rows, COLUMNS)]
    md = out_dir / f"{TABLE}.md"
    atomic_write_bytes(md, (f"{len(records)} clips, {sum(r.baseline.verdict == 'contradicted' for r in records)} "
                            "contradicted before any edit.\n\n" + markdown_table(rows)).encode())
    written.append(md)
    if rows:
        written += dumbbell_figure(rows, out_dir, len(records))
    return written


@exit_on_user_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.refine.report", description=__doc__.split("\n")[0])
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: the sweep directory)")
    args = parser.parse_args(argv)
    if not args.sweep_dir.is_dir():
        raise UserError("not a directory", file=args.sweep_dir)
    written = write_report(args.sweep_dir, args.out)
    print((written[1]).read_text())
    print("\n".join(str(p) for p in written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
