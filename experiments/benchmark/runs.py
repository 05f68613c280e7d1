"""Reading the corpus and critique runs from disk, and the per-clip report a critique run writes.

A critique run is a folder::

    <run>/run.json                   the configuration (every override, the resolved critic) and cost per clip
    <run>/reports/<clip>.json        one ClipReport per clip (written last: a clip with a report is done)
    <run>/clips/<clip>/              the critic's own files (plan.json, evidence.jsonl, verdict.json, report.html)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from critic.types import ClipVerdict, Plan
from experiments.benchmark.scoring import ClipReport, ReportClaim, ReportCost, ReportWindow
from experiments.benchmark.types import ClipAnnotation
from veriphy.errors import UserError, user_error_from_validation
from veriphy.files import read_json

ANNOTATIONS = "annotations.jsonl"
RUN_FILE = "run.json"
REPORTS = "reports"
CLIPS = "clips"


def safe_name(clip_id: str) -> str:
    """A file name for a clip id (ids are unique in a corpus; unsafe characters become ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", clip_id).strip(".") or "clip"


def report_path(run_dir: Path, clip_id: str) -> Path:
    return run_dir / REPORTS / f"{safe_name(clip_id)}.json"


def load_corpus(corpus: str | Path) -> list[ClipAnnotation]:
    """The corpus's annotations in file order; a bad line is the user's error naming the file and line."""
    path = Path(corpus) / ANNOTATIONS
    if not path.is_file():
        raise UserError("no annotations.jsonl in the corpus folder", file=path, field="corpus")
    clips: list[ClipAnnotation] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            clip = ClipAnnotation.model_validate_json(line)
        except ValidationError as exc:
            err = user_error_from_validation(exc, file=path)
            raise UserError(f"line {n}: {err.reason}", file=path, field=err.field) from None
        if clip.id in seen:
            raise UserError(f"line {n}: clip id {clip.id!r} repeated", file=path, field="id")
        seen.add(clip.id)
        clips.append(clip)
    return clips


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], dict[str, ClipReport]]:
    """``(run.json's content, {clip id: report})`` of one critique run (run.json may be absent: ``{}``)."""
    run_dir = Path(run_dir)
    if not (run_dir / REPORTS).is_dir():
        raise UserError("not a critique run (no reports/ folder)", file=run_dir, field="runs")
    meta = read_json(run_dir / RUN_FILE) if (run_dir / RUN_FILE).is_file() else {}
    reports: dict[str, ClipReport] = {}
    for path in sorted((run_dir / REPORTS).glob("*.json")):
        try:
            report = ClipReport.model_validate(read_json(path))
        except ValidationError as exc:
            raise user_error_from_validation(exc, file=path) from None
        reports[report.id] = report
    return meta, reports


def _window(w: Any) -> ReportWindow | None:
    return None if w is None else ReportWindow(start_s=w.start_s, end_s=w.end_s, start_frame=w.start_frame,
                                               end_frame=w.end_frame)


def report_from_verdict(clip_id: str, verdict: ClipVerdict, plan: Plan | None, critic_dir: str,
                        seconds: float) -> ClipReport:
    """The scorer's view of one critique: claims with their subjects' words, windows and packet lines, and cost."""
    specs = {s.name: s for s in plan.subjects} if plan is not None else {}
    packets = {p.claim: p for p in verdict.packets}
    claims = []
    for c in verdict.claims:
        subject_words = []
        for name in c.subjects:
            spec = specs.get(name)
            if spec is not None:
                subject_words += [w for w in (spec.color, spec.size, spec.noun) if w]
        packet = packets.get(c.id)
        claims.append(ReportClaim(
            id=c.id, text=c.text, span=c.span, span_text=verdict.prompt[c.span[0]:c.span[1]], kind=c.kind,
            subjects=list(c.subjects), subject_words=subject_words, state=c.state, window=_window(c.window),
            required=list(packet.required) if packet else [], measured=list(packet.measured) if packet else []))
    cost = verdict.cost
    return ClipReport(id=clip_id, verdict=verdict.verdict, reason=verdict.reason, critic_dir=critic_dir, claims=claims,
                      cost=ReportCost(tool_calls=cost.tool_calls, model_calls=cost.model_calls,
                                      planner_model_calls=cost.planner_model_calls, operations=cost.operations,
                                      cache_hits=cost.cache_hits, calls=cost.calls),
                      seconds=round(seconds, 3))
