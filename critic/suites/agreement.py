"""The critic's three states against a suite's labels (VideoPhy-2: 0 violated / 1 followed / 2 cannot be
grounded): a confusion matrix and, for every item where they disagree, the critic's claims and packets.

The state of an item is read off its claims exactly as the exporter reads it (the suite's ``claims``:
``explicit`` or ``all``), so the matrix describes the exported labels.
"""

from __future__ import annotations

from typing import Any

from critic.suites.base import ExportEntry, Suite, claims_state, clip_files
from critic.suites.types import AgreementReport, Disagreement

STATES = ("contradicted", "supported", "unknown")


def _packets(verdict: dict[str, Any] | None) -> list[dict[str, Any]]:
    packets = []
    for p in (verdict or {}).get("packets", []):
        w = p.get("window")
        packets.append({"claim": p.get("claim"), "span_text": p.get("span_text"),
                        "window_s": [w["start_s"], w["end_s"]] if w else None,
                        "frames": [w["start_frame"], w["end_frame"]] if w else None,
                        "required": p.get("required", []), "measured": p.get("measured", [])})
    return packets


def _claims(entry: ExportEntry, verdict: dict[str, Any] | None, claims: str) -> list[dict[str, Any]]:
    """The claims that decided the state: from the clip's ``verdict.json`` (with reasons) when there is one,
    else from the batch line."""
    source = (verdict or {}).get("claims") or (entry.verdict or {}).get("claims", [])
    return [{"text": c.get("text"), "span": c.get("span"), "state": c.get("state"), "reason": c.get("reason", "")}
            for c in source if claims == "all" or c.get("kind") == "explicit"]


def agreement(suite: Suite, entries: list[ExportEntry]) -> AgreementReport:
    """Confusion matrix of the critic's states (rows, read off ``suite.claims``) against the suite's labels
    (columns) over the labelled entries; disagreements in manifest order."""
    claims = suite.claims
    matrix = {s: {str(v): 0 for v in suite.label_values} for s in STATES}
    labelled = agree = 0
    no_verdict, disagreements = [], []
    for entry in entries:
        label = suite.label(entry.item)
        if label is None:
            continue
        labelled += 1
        state = claims_state(entry.verdict, claims)
        if state is None:
            no_verdict.append(entry.item.id)
            continue
        matrix[state][str(label)] += 1
        if suite.state_labels[state] == label:
            agree += 1
            continue
        _, verdict = clip_files(entry)
        disagreements.append(Disagreement(
            id=entry.item.id, video=entry.item.video, prompt=entry.item.prompt, label=label, state=state,
            verdict=str(entry.verdict.get("verdict")), reason=str((verdict or entry.verdict).get("reason", "")),
            claims=_claims(entry, verdict, claims),
            packets=_packets(verdict)))
    judged = labelled - len(no_verdict)
    return AgreementReport(suite=suite.name, claims=claims, labels=list(suite.label_values),
                           pairing=dict(suite.state_labels), matrix=matrix, labelled=labelled, agree=agree,
                           accuracy=agree / judged if judged else None, no_verdict=no_verdict,
                           disagreements=disagreements)


def agreement_markdown(report: AgreementReport) -> str:
    labels = [str(v) for v in report.labels]
    out = [f"# Agreement: {report.suite} ({report.claims} claims)", "",
           "| critic \\ label | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for state in STATES:
        out.append(f"| {state} (= {report.pairing[state]}) | "
                   + " | ".join(str(report.matrix[state][v]) for v in labels) + " |")
    acc = "n/a" if report.accuracy is None else f"{100 * report.accuracy:.0f} %"
    out += ["", f"{report.agree} of {report.labelled - len(report.no_verdict)} labelled items agree ({acc}); "
                f"{len(report.no_verdict)} without a verdict" + (f" ({', '.join(report.no_verdict)})"
                                                                  if report.no_verdict else "") + ".", ""]
    if report.disagreements:
        out += ["## Disagreements", ""]
    for d in report.disagreements:
        out.append(f"- `{d.id}` label {d.label}, critic {d.state} (clip verdict {d.verdict}"
                   + (f": {d.reason}" if d.reason else "") + f"): \"{d.prompt}\"")
        for c in d.claims:
            out.append(f"  - claim \"{c['text']}\": {c['state']}" + (f" ({c['reason']})" if c.get("reason") else ""))
        for p in d.packets:
            window = f"{p['window_s'][0]:.2f}-{p['window_s'][1]:.2f} s" if p["window_s"] else "no window"
            out.append(f"  - packet {p['claim']} \"{p['span_text']}\" {window}: required "
                       f"{'; '.join(p['required'])}; measured {'; '.join(p['measured'])}")
    return "\n".join(out) + "\n"
