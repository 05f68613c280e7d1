"""``python -m experiments.benchmark score corpus=DIR runs=[RUN_A,RUN_B,...]``: score critique runs against the corpus.

Writes into the Hydra run directory (or ``out``):

* ``scores.json``: per run, the summary (defect recall whole / any with 95% Wilson intervals, false alarms, mean calls
  per clip), the breakdown tables, every defect's outcome and every clip's false alarms;
* ``summary.md`` / ``summary.csv``: one row per run;
* ``by_<breakdown>.md`` / ``.csv`` for category, severity, duration, defects_per_clip and renderer (Table 10);
* ``recall_vs_calls.png`` / ``.pdf``: recall against mean calls per clip, one point per run (Fig. 9);
* ``index.html`` and ``clips/<clip>.html``: each defect with each run's outcome, the claim that found it (state,
  window, the packet's required / measured lines) and a link to the critic's own report.

Matching rules and metrics: ``experiments.benchmark.scoring`` and ``docs/benchmark_scoring.md``.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import hydra
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from experiments.benchmark.runs import load_corpus, load_run, safe_name  # noqa: E402
from experiments.benchmark.scoring import BREAKDOWNS, ClipReport, score_run  # noqa: E402
from experiments.benchmark.types import ClipAnnotation  # noqa: E402
from experiments.jobstate import write_csv  # noqa: E402
from veriphy.errors import UserError  # noqa: E402
from veriphy.files import atomic_write_bytes, write_json  # noqa: E402
from veriphy.hydra_app import exit_on_user_error, hydra_run_dir  # noqa: E402

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")

SUMMARY_COLUMNS = ["run", "clips", "not_run", "errors", "defects", "whole", "partial", "missed", "recall_whole",
                   "recall_whole_lo", "recall_whole_hi", "recall_any", "recall_any_lo", "recall_any_hi", "clean_clips",
                   "false_alarm_clips", "false_alarm_rate", "false_alarm_lo", "false_alarm_hi", "flawed_clips",
                   "false_claims", "false_claims_per_flawed_clip", "mean_calls", "mean_tool_calls",
                   "mean_model_calls"]
BREAKDOWN_COLUMNS = ["run", "group", "defects", "whole", "partial", "missed", "recall_whole", "recall_whole_lo",
                     "recall_whole_hi", "recall_any", "recall_any_lo", "recall_any_hi"]


def _flat(prefix: str, rate: dict[str, Any]) -> dict[str, Any]:
    return {prefix: rate["value"], f"{prefix}_lo": rate["lo"], f"{prefix}_hi": rate["hi"]}


def summary_row(name: str, s: dict[str, Any]) -> dict[str, Any]:
    fa = s["false_alarm_rate"]
    return {"run": name, **{k: s[k] for k in ("clips", "not_run", "errors", "defects", "whole", "partial", "missed")},
            **_flat("recall_whole", s["recall_whole"]), **_flat("recall_any", s["recall_any"]),
            "clean_clips": s["clean_clips"], "false_alarm_clips": s["false_alarm_clips"], "false_alarm_rate": fa["value"],
            "false_alarm_lo": fa["lo"], "false_alarm_hi": fa["hi"], "flawed_clips": s["flawed_clips"],
            "false_claims": s["false_claims"], "false_claims_per_flawed_clip": s["false_claims_per_flawed_clip"],
            "mean_calls": s["mean_calls"], "mean_tool_calls": s["mean_tool_calls"],
            "mean_model_calls": s["mean_model_calls"]}


def _fmt(v: Any) -> str:
    return "n/a" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)


def _ci(v: Any, lo: Any, hi: Any) -> str:
    return "n/a" if v is None else f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def summary_markdown(rows: list[dict[str, Any]]) -> str:
    head = ["run", "clips", "defects", "whole", "partial", "missed", "recall whole (95% Wilson)",
            "recall whole+partial (95% Wilson)", "false alarms on clean clips (95% Wilson)",
            "false contradicted claims per flawed clip", "calls per clip (tool + model)"]
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        fa = "n/a" if r["false_alarm_rate"] is None else \
            f"{r['false_alarm_clips']}/{r['clean_clips']} = " + _ci(r["false_alarm_rate"], r["false_alarm_lo"],
                                                                     r["false_alarm_hi"])
        md.append("| " + " | ".join([
            r["run"], str(r["clips"]), str(r["defects"]), str(r["whole"]), str(r["partial"]), str(r["missed"]),
            _ci(r["recall_whole"], r["recall_whole_lo"], r["recall_whole_hi"]),
            _ci(r["recall_any"], r["recall_any_lo"], r["recall_any_hi"]), fa,
            _fmt(r["false_claims_per_flawed_clip"]),
            f"{_fmt(r['mean_calls'])} ({_fmt(r['mean_tool_calls'])} + {_fmt(r['mean_model_calls'])})"]) + " |")
    return "\n".join(md) + "\n"


def breakdown_markdown(key: str, rows: list[dict[str, Any]]) -> str:
    head = ["run", key, "defects", "whole", "partial", "missed", "recall whole (95% Wilson)",
            "recall whole+partial (95% Wilson)"]
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        md.append("| " + " | ".join([r["run"], r["group"], str(r["defects"]), str(r["whole"]), str(r["partial"]),
                                     str(r["missed"]), _ci(r["recall_whole"], r["recall_whole_lo"], r["recall_whole_hi"]),
                                     _ci(r["recall_any"], r["recall_any_lo"], r["recall_any_hi"])]) + " |")
    return "\n".join(md) + "\n"


def recall_vs_calls_figure(rows: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Fig. 9: defect recall (whole, and whole + partial) against mean calls per clip, one point per run."""
    fig, ax = plt.subplots(figsize=(5.0, 3.6), dpi=150)
    for k, r in enumerate(rows):
        if r["recall_whole"] is None or r["mean_calls"] is None:
            continue
        x = r["mean_calls"]
        ax.errorbar([x], [r["recall_whole"]], yerr=[[r["recall_whole"] - r["recall_whole_lo"]],
                                                    [r["recall_whole_hi"] - r["recall_whole"]]],
                    fmt="o", color="C0", capsize=3)
        ax.plot([x], [r["recall_any"]], marker="^", color="C1", linestyle="none")
        # staggered so that runs at about the same point keep readable labels
        ax.annotate(r["run"], (x, r["recall_whole"]), textcoords="offset points", xytext=(5, 4 + 9 * (k % 3)),
                    fontsize=7)
    ax.plot([], [], "o", color="C0", label="whole (95% Wilson)")
    ax.plot([], [], "^", color="C1", label="whole + partial")
    ax.set_xlabel("mean calls per clip (tool + model)")
    ax.set_ylabel("defect recall")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    paths = [out_dir / "recall_vs_calls.png", out_dir / "recall_vs_calls.pdf"]
    for p in paths:
        fig.savefig(p, metadata={"CreationDate": None} if p.suffix == ".pdf" else None)
    plt.close(fig)
    return paths


# ---- per-clip pages -------------------------------------------------------------------------------------------


def _e(x: Any) -> str:
    return html.escape(str(x))


def _window_text(w: Any) -> str:
    if w is None:
        return "no window"
    frames = f", frames {w.start_frame}-{w.end_frame}" if getattr(w, "start_frame", None) is not None else ""
    return f"{w.start_s:.3f}-{w.end_s:.3f} s{frames}"


_STYLE = ("body{font-family:sans-serif;margin:1.5em;max-width:70em} table{border-collapse:collapse} "
          "td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;font-size:90%} .whole{background:#cfc} "
          ".partial{background:#ffd} .missed{background:#fcc} .fa{background:#fcc}")


def clip_page(clip: ClipAnnotation, runs: list[dict[str, Any]], page_dir: Path) -> str:
    """One clip: prompt, defects with each run's outcome and the claim behind it, every contradicted claim."""
    parts = [f"<!doctype html><meta charset='utf-8'><title>{_e(clip.id)}</title><style>{_STYLE}</style>",
             f"<p><a href='../index.html'>index</a></p><h1>{_e(clip.id)}</h1>",
             f"<p><b>prompt</b>: {_e(clip.prompt)}<br><b>renderer</b>: {_e(clip.renderer)} ({_e(clip.source)}), "
             f"{clip.width}x{clip.height}, {clip.num_frames} frames at {clip.fps:g} fps</p>"]
    parts.append("<h2>Defects</h2>" if clip.defects else "<h2>Clean clip (no defect)</h2>")
    if clip.defects:
        parts.append("<table><tr><th>defect</th>" + "".join(f"<th>{_e(r['name'])}</th>" for r in runs) + "</tr>")
        for d in clip.defects:
            cells = []
            for r in runs:
                outcome = next((x for x in r["scores"]["defects"] if x["defect"] == d.id), None)
                report: ClipReport | None = r["reports"].get(clip.id)
                if outcome is None or report is None:
                    cells.append("<td>not run</td>")
                    continue
                claim = next((c for c in report.claims if c.id == outcome["claim"]), None)
                detail = ""
                if claim is not None:
                    detail = (f"<br>claim {_e(claim.id)}: {_e(claim.text)} ({_e(claim.state)}, "
                              f"{_e(_window_text(claim.window))})<br>required: {_e('; '.join(claim.required))}"
                              f"<br>measured: {_e('; '.join(claim.measured))}")
                cells.append(f"<td class='{outcome['outcome']}'>{outcome['outcome']} (clip {_e(report.verdict)})"
                             f"{detail}{_critic_link(r, report, page_dir)}</td>")
            parts.append(f"<tr><td>{_e(d.id)}: {_e(d.category)}, severity {d.severity}, {_e(d.object)}, "
                         f"{_e(_window_text(d.window))}<br>violates \"{_e(d.violates.text)}\"<br>{_e(d.edit)}</td>"
                         + "".join(cells) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Contradicted claims</h2><table><tr><th>run</th><th>clip verdict</th><th>claim</th><th>window"
                 "</th><th>required / measured</th><th>matches a defect</th></tr>")
    for r in runs:
        report = r["reports"].get(clip.id)
        if report is None:
            continue
        clip_score = next((c for c in r["scores"]["clips"] if c["id"] == clip.id), {})
        false_ids = set(clip_score.get("false_claims", []))
        for c in report.claims:
            if c.state != "contradicted":
                continue
            ok = "no (false alarm)" if (clip.clean or c.id in false_ids) else "yes"
            cls = " class='fa'" if ok.startswith("no") else ""
            parts.append(f"<tr{cls}><td>{_e(r['name'])}</td><td>{_e(report.verdict)}{_critic_link(r, report, page_dir)}"
                         f"</td><td>{_e(c.id)}: {_e(c.text)}</td><td>{_e(_window_text(c.window))}</td><td>"
                         f"{_e('; '.join(c.required))}<br>{_e('; '.join(c.measured))}</td><td>{ok}</td></tr>")
    parts.append("</table>")
    return "\n".join(parts) + "\n"


def _critic_link(run: dict[str, Any], report: ClipReport, page_dir: Path) -> str:
    if not report.critic_dir:
        return f"<br>error: {_e(report.error)}" if report.error else ""
    target = run["dir"] / report.critic_dir / "report.html"
    if not target.is_file():
        target = run["dir"] / report.critic_dir / "verdict.json"
    rel = os.path.relpath(target.resolve(), page_dir.resolve())
    return f"<br><a href='{_e(Path(rel).as_posix())}'>critic report</a>"


def index_page(corpus: list[ClipAnnotation], runs: list[dict[str, Any]], summary_md: str) -> str:
    parts = [f"<!doctype html><meta charset='utf-8'><title>critic benchmark</title><style>{_STYLE}</style>",
             "<h1>Critic benchmark</h1><pre>" + _e(summary_md) + "</pre>",
             "<table><tr><th>clip</th><th>renderer</th><th>defects</th>"
             + "".join(f"<th>{_e(r['name'])}</th>" for r in runs) + "</tr>"]
    for clip in corpus:
        cells = []
        for r in runs:
            outs = [x["outcome"] for x in r["scores"]["defects"] if x["clip"] == clip.id]
            rep = r["reports"].get(clip.id)
            if rep is None:
                cells.append("<td>not run</td>")
            elif clip.clean:
                cls = " class='fa'" if rep.verdict == "contradicted" else ""
                cells.append(f"<td{cls}>{_e(rep.verdict)}</td>")
            else:
                cells.append(f"<td>{_e(rep.verdict)}: {_e(', '.join(outs))}</td>")
        defects = ", ".join(f"{d.category} (s{d.severity})" for d in clip.defects) or "clean"
        parts.append(f"<tr><td><a href='clips/{_e(safe_name(clip.id))}.html'>{_e(clip.id)}</a></td>"
                     f"<td>{_e(clip.renderer)}</td><td>{_e(defects)}</td>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    return "\n".join(parts) + "\n"


# ---- the command ----------------------------------------------------------------------------------------------


def score_runs(corpus_dir: Path, run_dirs: list[Path], out_dir: Path, *, min_iou: float = 0.5,
               names: list[str] | None = None, pages: bool = True) -> dict[str, Any]:
    """Score every run in ``run_dirs`` against the corpus and write the outputs into ``out_dir``."""
    corpus = load_corpus(corpus_dir)
    ids = {c.id for c in corpus}
    runs: list[dict[str, Any]] = []
    taken: set[str] = set()
    for k, run_dir in enumerate(run_dirs):
        meta, reports = load_run(run_dir)
        stray = sorted(set(reports) - ids)
        if stray:
            raise UserError(f"reports for clips the corpus does not have: {', '.join(stray[:5])}", file=run_dir,
                            field="runs")
        name = (names[k] if names and k < len(names) else None) or meta.get("name") or run_dir.name
        base, j = name, 2
        while name in taken:
            name, j = f"{base}_{j}", j + 1
        taken.add(name)
        runs.append({"name": name, "dir": run_dir, "meta": meta, "reports": reports,
                     "scores": score_run(corpus, reports, min_iou)})
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [summary_row(r["name"], r["scores"]["summary"]) for r in runs]
    write_csv(out_dir / "summary.csv", rows, SUMMARY_COLUMNS)
    summary_md = summary_markdown(rows)
    atomic_write_bytes(out_dir / "summary.md", summary_md.encode())
    for key in BREAKDOWNS:
        brows = [{"run": r["name"], "group": b["group"], "defects": b["defects"], "whole": b["whole"],
                  "partial": b["partial"], "missed": b["missed"], **_flat("recall_whole", b["recall_whole"]),
                  **_flat("recall_any", b["recall_any"])} for r in runs for b in r["scores"]["tables"][key]]
        write_csv(out_dir / f"by_{key}.csv", brows, BREAKDOWN_COLUMNS)
        atomic_write_bytes(out_dir / f"by_{key}.md", breakdown_markdown(key, brows).encode())
    figures = recall_vs_calls_figure(rows, out_dir)
    scores = {"corpus": str(corpus_dir), "min_iou": min_iou, "interval": "Wilson score, 95%",
              "runs": [{"name": r["name"], "dir": str(r["dir"]), "configuration": r["meta"].get("configuration"),
                        "overrides": r["meta"].get("overrides"), **r["scores"]} for r in runs]}
    write_json(out_dir / "scores.json", scores)
    if pages:
        page_dir = out_dir / "clips"
        page_dir.mkdir(exist_ok=True)
        for clip in corpus:
            atomic_write_bytes(page_dir / f"{safe_name(clip.id)}.html", clip_page(clip, runs, page_dir).encode())
        atomic_write_bytes(out_dir / "index.html", index_page(corpus, runs, summary_md).encode())
    return {"rows": rows, "figures": figures, "summary_md": summary_md, "scores": scores}


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="benchmark_score")
@exit_on_user_error
def main(cfg: DictConfig) -> None:
    if cfg.get("corpus") is None:
        raise UserError("no corpus: give corpus=DIR (the folder with annotations.jsonl)", field="corpus")
    runs = cfg.get("runs")
    if not runs:
        raise UserError("no runs: give runs=[DIR,...] (folders written by the critique command)", field="runs")
    run_dirs = [Path(str(r)) for r in ([runs] if isinstance(runs, str) else runs)]
    out = Path(str(cfg.out)) if cfg.get("out") else hydra_run_dir()
    names = [str(n) for n in cfg.names] if cfg.get("names") else None
    result = score_runs(Path(str(cfg.corpus)), run_dirs, out, min_iou=float(cfg.min_iou), names=names,
                        pages=bool(cfg.pages))
    print(result["summary_md"], end="")
    print(f"scores: {out / 'scores.json'}")
    print(f"figure: {result['figures'][0]} {result['figures'][1]}")
    if cfg.pages:
        print(f"pages: {out / 'index.html'}")


if __name__ == "__main__":
    main()
