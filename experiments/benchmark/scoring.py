"""Defect-level scoring of critic reports against the benchmark's annotations (pure functions, no files).

Inputs: the corpus's :class:`~experiments.benchmark.types.ClipAnnotation` list and, per critique run, one
:class:`ClipReport` per clip (what ``python -m experiments.benchmark critique`` writes as
``<run>/reports/<clip>.json``).

Per defect (``docs/benchmark_scoring.md`` has the definitions with examples):

* **whole**: the clip is contradicted and a contradicted claim names the defect's object and has a time window
  whose IoU with the defect window is at least ``iou`` (0.5) or that contains the defect window;
* **partial**: the clip is contradicted, but no contradicted claim both names the object and fits the window;
* **missed**: the clip is not contradicted (supported, unknown, or the critique failed).

False alarms: a clean clip called contradicted; on a flawed clip, a contradicted claim that matches no defect (it
names none of the defects' objects, or its window does not overlap any of that object's defect windows padded by one
frame period on each side). A contradicted claim without a window matches on the object alone.

Object naming (:func:`claim_names_object`), in order:

1. a clip with one object: every claim names it; so does a claim about the whole scene (implicit, with no subject:
   "nothing in the scene appears from nowhere") in any clip, whatever its span's words;
2. colours: when the claim's words (its subjects' colour, noun and name, and the words of its prompt span) hold a
   colour word and the object has a colour, the claim names the object only if the object's colour is among them;
3. the claim's prompt span overlaps the span where the prompt first names the object (``SceneObject.mention``):
   implicit claims carry the span of the phrase that introduced their subject, so this is how they are matched;
4. otherwise a word of the object's name (``red_ball`` -> red, ball), its shape noun (sphere -> ball, box -> cube,
   block ...) or its mention is among the claim's words. A claim that is ambiguous ("the ball" with two balls)
   names every object it fits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from critic.planners.lexicon import COLOURS
from experiments.benchmark.types import ClipAnnotation, Defect, FrameWindow, SceneObject

Outcome = Literal["whole", "partial", "missed"]
OUTCOMES: tuple[str, ...] = ("whole", "partial", "missed")

#: nouns a prompt may use for each annotated shape
SHAPE_NOUNS: dict[str, tuple[str, ...]] = {
    "sphere": ("ball", "sphere", "orb", "marble"),
    "box": ("box", "cube", "block", "brick", "crate", "domino"),
    "cylinder": ("cylinder", "can", "tube", "pipe", "barrel", "puck"),
}
#: defect durations (s): the upper bound of each bin and its label
DURATION_BINS: tuple[tuple[float, str], ...] = ((0.1, "<=0.1 s"), (0.5, "0.1-0.5 s"), (1.0, "0.5-1 s"),
                                                (math.inf, ">1 s"))
_WORD = re.compile(r"[a-z]+")
_COLOURS = frozenset(COLOURS) | {"grey", "gray"}


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReportWindow(_Frozen):
    """A critic claim's window: seconds (container frame times) and frames, inclusive."""

    start_s: float
    end_s: float
    start_frame: int | None = None
    end_frame: int | None = None


class ReportClaim(_Frozen):
    """One critic claim as the scorer reads it. ``subject_words``: the words of its subjects as the plan declared
    them (colour, noun, name); ``required``/``measured``: the contradiction packet's lines (contradicted claims)."""

    id: str
    text: str
    span: tuple[int, int]
    span_text: str = ""
    kind: Literal["explicit", "implicit"] = "explicit"
    subjects: list[str] = Field(default_factory=list)
    subject_words: list[str] = Field(default_factory=list)
    state: Literal["supported", "contradicted", "unknown"]
    window: ReportWindow | None = None
    required: list[str] = Field(default_factory=list)
    measured: list[str] = Field(default_factory=list)


class ReportCost(_Frozen):
    """The calls one critique made, as the critic counts them (``critic.types.CostSummary``)."""

    tool_calls: int = 0
    model_calls: int = 0
    planner_model_calls: int = 0
    operations: int = 0
    cache_hits: int = 0
    calls: int = 0


class ClipReport(_Frozen):
    """The critic's answer for one clip of the corpus. ``critic_dir``: the folder (relative to the run) with the
    critic's own files (``report.html``, ``verdict.json``, ``evidence.jsonl``); ``verdict`` is ``error`` when the
    critique failed (``error`` says why)."""

    id: str
    verdict: Literal["supported", "contradicted", "unknown", "error"]
    reason: str = ""
    error: str | None = None
    critic_dir: str | None = None
    claims: list[ReportClaim] = Field(default_factory=list)
    cost: ReportCost = ReportCost()
    seconds: float = 0.0


# ---- matching -------------------------------------------------------------------------------------------------


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def object_words(obj: SceneObject) -> set[str]:
    """Words that name ``obj``: its name's words, its colour, its shape's nouns, its mention's words."""
    out = words(obj.name.replace("_", " ")) | set(SHAPE_NOUNS.get(obj.shape, ()))
    if obj.color:
        out.add(obj.color.lower())
    if obj.mention is not None:
        out |= words(obj.mention.text)
    return out


def claim_words(claim: ReportClaim) -> set[str]:
    out = words(claim.span_text)
    for w in [*claim.subject_words, *claim.subjects]:
        out |= words(w.replace("_", " "))
    return out


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def claim_names_object(claim: ReportClaim, obj: SceneObject, objects: Sequence[SceneObject]) -> bool:
    """Does ``claim`` speak of ``obj`` (one of the clip's ``objects``)? The rules are the module docstring's."""
    if len(objects) <= 1 or (claim.kind == "implicit" and not claim.subjects):
        return True
    cw = claim_words(claim)
    colours = cw & _COLOURS
    if colours and obj.color:
        return obj.color.lower() in colours
    if obj.mention is not None and _overlaps(tuple(claim.span), (obj.mention.start, obj.mention.end)):
        return True
    named = words(obj.name.replace("_", " ")) | set(SHAPE_NOUNS.get(obj.shape, ()))
    if obj.mention is not None:
        named |= words(obj.mention.text) - {"a", "an", "the", "one", "two", "three"}
    return bool(cw & (named - _COLOURS))


def iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0


def window_fits(claim_window: ReportWindow | None, defect_window: FrameWindow, min_iou: float = 0.5) -> bool:
    """The claim's window has IoU >= ``min_iou`` with the defect's, or contains it (1 microsecond tolerance on the
    ends; on the IoU, 1e-4: reports write times to the microsecond and floating point is not exact, so a claim over
    half of the defect's frames reads just under 0.5: [0.2, 0.6] s of [0.2, 1.0] s computes to 0.49999999999999994,
    [0.666667, 0.866667] s against [0.6, 0.8] s to 0.4999991; one frame more or less moves an IoU by a percent or
    more)."""
    if claim_window is None:
        return False
    c = (claim_window.start_s, claim_window.end_s)
    d = (defect_window.start_s, defect_window.end_s)
    eps = 1e-6
    return iou(c, d) >= min_iou - 1e-4 or (c[0] <= d[0] + eps and c[1] >= d[1] - eps)


def defect_outcome(defect: Defect, clip: ClipAnnotation, report: ClipReport | None,
                   min_iou: float = 0.5) -> tuple[Outcome, str | None]:
    """``(outcome, id of the claim that found it whole, or of the first contradicted claim naming the object)``."""
    if report is None or report.verdict != "contradicted":
        return "missed", None
    obj = next(o for o in clip.objects if o.name == defect.object)
    naming = [c for c in report.claims if c.state == "contradicted" and claim_names_object(c, obj, clip.objects)]
    for c in naming:
        if window_fits(c.window, defect.window, min_iou):
            return "whole", c.id
    return "partial", naming[0].id if naming else None


def claim_matches_a_defect(claim: ReportClaim, clip: ClipAnnotation) -> bool:
    """A contradicted claim is explained by a defect: it names the defect's object and (when it has a window) its
    window overlaps the defect window padded by one frame period on each side."""
    pad = 1.0 / clip.fps if clip.fps > 0 else 0.0
    for d in clip.defects:
        obj = next(o for o in clip.objects if o.name == d.object)
        if not claim_names_object(claim, obj, clip.objects):
            continue
        if claim.window is None:
            return True
        if claim.window.start_s < d.window.end_s + pad and d.window.start_s - pad < claim.window.end_s:
            return True
    return False


# ---- statistics ---------------------------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float | None, float | None]:
    """Wilson score interval for a proportion (95% by default); ``(None, None)`` when ``n`` is 0."""
    if n <= 0:
        return None, None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def duration_bin(defect: Defect) -> str:
    length = defect.window.end_s - defect.window.start_s
    for upper, label in DURATION_BINS:
        if length <= upper + 1e-9:
            return label
    return DURATION_BINS[-1][1]


def defects_per_clip_bin(clip: ClipAnnotation) -> str:
    n = len(clip.defects)
    return str(n) if n < 3 else "3+"


#: the breakdowns of the defect table (the paper's Table 10): name -> the defect's group
BREAKDOWNS: dict[str, Any] = {
    "category": lambda d, clip: d.category,
    "severity": lambda d, clip: str(d.severity),
    "duration": lambda d, clip: duration_bin(d),
    "defects_per_clip": lambda d, clip: defects_per_clip_bin(clip),
    "renderer": lambda d, clip: clip.renderer,
}


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"value": (k / n) if n else None, "lo": lo, "hi": hi}


def score_run(corpus: Sequence[ClipAnnotation], reports: dict[str, ClipReport], min_iou: float = 0.5) -> dict[str, Any]:
    """Score one run: per-defect outcomes, per-clip false alarms, totals and breakdowns.

    Clips without a report (a run still in progress) are left out of every denominator and counted in
    ``not_run``; a report whose critique failed counts as not contradicted (its defects missed)."""
    defects: list[dict[str, Any]] = []
    clips: list[dict[str, Any]] = []
    not_run = 0
    for clip in corpus:
        report = reports.get(clip.id)
        if report is None:
            not_run += 1
            continue
        contradicted = [c for c in report.claims if c.state == "contradicted"]
        false_claims = [c.id for c in contradicted if clip.defects and not claim_matches_a_defect(c, clip)]
        clips.append({"id": clip.id, "clean": clip.clean, "verdict": report.verdict, "calls": report.cost.calls,
                      "tool_calls": report.cost.tool_calls,
                      "model_calls": report.cost.model_calls + report.cost.planner_model_calls,
                      "false_alarm": clip.clean and report.verdict == "contradicted",
                      "false_claims": false_claims})
        for d in clip.defects:
            outcome, claim = defect_outcome(d, clip, report, min_iou)
            defects.append({"clip": clip.id, "defect": d.id, "outcome": outcome, "claim": claim,
                            **{k: f(d, clip) for k, f in BREAKDOWNS.items()}})
    clean = [c for c in clips if c["clean"]]
    flawed = [c for c in clips if not c["clean"]]
    n = len(defects)
    whole = sum(d["outcome"] == "whole" for d in defects)
    partial = sum(d["outcome"] == "partial" for d in defects)
    false_alarm_clips = sum(c["false_alarm"] for c in clean)
    false_claims = sum(len(c["false_claims"]) for c in flawed)
    mean = (lambda key: sum(c[key] for c in clips) / len(clips) if clips else None)
    summary = {
        "clips": len(clips), "not_run": not_run, "clean_clips": len(clean), "flawed_clips": len(flawed),
        "errors": sum(c["verdict"] == "error" for c in clips),
        "defects": n, "whole": whole, "partial": partial, "missed": n - whole - partial,
        "recall_whole": _rate(whole, n), "recall_any": _rate(whole + partial, n),
        "false_alarm_clips": false_alarm_clips, "false_alarm_rate": _rate(false_alarm_clips, len(clean)),
        "false_claims": false_claims,
        "false_claims_per_flawed_clip": (false_claims / len(flawed)) if flawed else None,
        "mean_calls": mean("calls"), "mean_tool_calls": mean("tool_calls"), "mean_model_calls": mean("model_calls"),
    }
    tables = {name: breakdown(defects, name) for name in BREAKDOWNS}
    return {"summary": summary, "defects": defects, "clips": clips, "tables": tables}


def breakdown(defects: Iterable[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """One row per group of ``key``: defects, whole, partial, missed and both recalls with Wilson intervals."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for d in defects:
        groups.setdefault(str(d[key]), []).append(d)
    rows = []
    order = {label: i for i, (_, label) in enumerate(DURATION_BINS)}  # duration bins in their own order
    for group in sorted(groups, key=lambda g: (order.get(g, -1), g)):
        ds = groups[group]
        whole = sum(d["outcome"] == "whole" for d in ds)
        partial = sum(d["outcome"] == "partial" for d in ds)
        rows.append({"group": group, "defects": len(ds), "whole": whole, "partial": partial,
                     "missed": len(ds) - whole - partial, "recall_whole": _rate(whole, len(ds)),
                     "recall_any": _rate(whole + partial, len(ds))})
    return rows
