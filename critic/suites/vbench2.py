"""VBench-2.0 (Zheng, Huang et al.): prompts per dimension with their meta information.

Input: a per-dimension meta file (``prompts/meta_info/<Dimension>.json``: a JSON array of ``{"prompt_en",
"dimension", "auxiliary_info"}``), the combined ``VBench2_full_info.json`` (``dimension`` a list), or a folder of
such files. Each prompt becomes ``samples`` manifest lines (``diversity_samples`` for Diversity), one per sampled
video, named as VBench-2 names them: ``<Dimension>/<prompt[:180]>-<k>.mp4`` under the video folder.

``expect`` carries the dimension and its meta information, read per dimension: yes/no probe ``questions``
(Mechanics, Thermotics, Material, Motion_Rationality, Dynamic_Attribute, Dynamic_Spatial_Relationship),
ordered ``actions`` (Motion_Order_Understanding), the expected ``counts`` of objects (Instance_Preservation,
"2.orange dog"), story ``beats`` (Complex_Plot, Complex_Landscape), the ``camera`` motion (Camera_Motion), the
``descriptions`` to find with VBench-2's two flags (Composition: one creature only, every description required);
the human and diversity dimensions have none. An item whose
dimension is unknown or whose meta information does not have its dimension's shape is reported with its line.

Export: VBench-2's ``<name>_eval_results.json``: ``{dimension: [score, [{"video_path", "video_results"}]]}`` with
``video_results`` 1 (supported), 0 (contradicted) or -1 (unknown, or not critiqued: left out of the score, as
VBench-2 leaves out its invalid videos); ``score`` is the mean of the others (``null`` when none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from critic.suites.base import ExportEntry, ImportResult, Suite, check_claims, claims_state, json_array_items
from critic.suites.plans import count_kind, find_before, find_count, locate_phrase
from critic.suites.types import CoverageTarget, RowProblem, SourceRef, SuiteItem
from critic.types import Plan
from veriphy.errors import UserError
from veriphy.files import write_json

VIDEO_NAME_CHARS = 180  # VBench-2 names a video after the first 180 characters of its prompt
VIDEO_RESULT = {"supported": 1, "contradicted": 0, "unknown": -1}


def _strings(aux: Any, what: str) -> list[str]:
    if not isinstance(aux, list) or not aux or not all(isinstance(x, str) and x.strip() for x in aux):
        raise ValueError(f"auxiliary_info must be a non-empty list of {what}")
    return [x.strip() for x in aux]


def _questions(aux: Any) -> dict[str, Any]:
    return {"questions": _strings(aux, "yes/no questions")}


def _actions(aux: Any) -> dict[str, Any]:
    actions = _strings(aux, "actions in order")
    if len(actions) < 2:
        raise ValueError("auxiliary_info must list at least two actions in order")
    return {"actions": actions}


def _beats(aux: Any) -> dict[str, Any]:
    return {"beats": _strings(aux, "story beats")}


def _counts(aux: Any) -> dict[str, Any]:
    """``"2.orange dog"`` or ``"1.red ball and 1.blue ball"`` -> ``{"counts": [{"n": 2, "object": "orange dog"}]}``."""
    parts = re.split(r"\s+and\s+(?=\d+\s*\.)", aux.strip()) if isinstance(aux, str) else []
    matches = [re.fullmatch(r"(\d+)\s*\.\s*(\S.*?)", p) for p in parts]
    if not matches or not all(matches):
        raise ValueError(f"auxiliary_info {aux!r} is not 'N.object' (e.g. '2.orange dog', "
                         "'1.red ball and 1.blue ball')")
    return {"counts": [{"n": int(m.group(1)), "object": m.group(2)} for m in matches]}


def _camera(aux: Any) -> dict[str, Any]:
    if not isinstance(aux, str) or not re.fullmatch(r"[a-z_]+", aux):
        raise ValueError(f"auxiliary_info {aux!r} is not a camera motion like 'zoom_in'")
    return {"camera": aux}


def _composition(aux: Any) -> dict[str, Any]:
    """``{"question": [descriptions], "judge": [one creature only?, every description required?]}``."""
    if not isinstance(aux, dict) or set(aux) != {"question", "judge"}:
        raise ValueError("auxiliary_info must be {'question': [...], 'judge': [...]}")
    judge = aux["judge"]
    if not (isinstance(judge, list) and len(judge) == 2 and all(isinstance(x, bool) for x in judge)):
        raise ValueError("auxiliary_info 'judge' must be two booleans (one creature only, every description "
                         "required)")
    return {"descriptions": _strings(aux["question"], "descriptions"), "single_creature": judge[0],
            "all_required": judge[1]}


def _none(aux: Any) -> dict[str, Any]:
    if aux not in (None, "", []):
        raise ValueError("this dimension carries no auxiliary_info")
    return {}


#: How each VBench-2 dimension's auxiliary_info reads.
DIMENSIONS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "Mechanics": _questions, "Thermotics": _questions, "Material": _questions, "Motion_Rationality": _questions,
    "Dynamic_Attribute": _questions, "Dynamic_Spatial_Relationship": _questions,
    "Motion_Order_Understanding": _actions, "Instance_Preservation": _counts,
    "Complex_Plot": _beats, "Complex_Landscape": _beats, "Camera_Motion": _camera, "Composition": _composition,
    "Diversity": _none, "Human_Anatomy": _none, "Human_Clothes": _none, "Human_Identity": _none,
    "Human_Interaction": _none, "Multi-View_Consistency": _none,
}


#: The dimensions whose prompts describe physical events (coverage reports them as the physics prompts).
PHYSICS_DIMENSIONS = ("Mechanics", "Thermotics", "Material")


class VBench2Prompts(Suite):
    """VBench-2.0 prompts. ``samples``: videos per prompt (VBench-2 samples 3; ``diversity_samples`` = 20 for
    Diversity); ``claims``: which claim states decide a video's result (``explicit`` | ``all``); ``physics``: the
    dimensions the coverage report counts as physics prompts."""

    name = "vbench2"
    export_name = "veriphy_eval_results.json"

    def __init__(self, samples: int = 3, diversity_samples: int = 20, claims: str = "explicit",
                 physics: tuple[str, ...] | list[str] = PHYSICS_DIMENSIONS):
        if samples < 1 or diversity_samples < 1:
            raise UserError("samples and diversity_samples must be at least 1", field="suite.samples")
        unknown = [d for d in physics if d not in DIMENSIONS]
        if unknown:
            raise UserError(f"unknown dimension(s) {', '.join(map(repr, unknown))} (known: "
                            f"{', '.join(sorted(DIMENSIONS))})", field="suite.physics")
        self.samples = samples
        self.diversity_samples = diversity_samples
        self.claims = check_claims(claims)
        self.physics = tuple(physics)

    def read(self, path: Path) -> ImportResult:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        if not files:
            raise UserError("no .json meta files in this folder", file=path, field="path")
        result = ImportResult()
        for file in files:
            for index, (line, obj) in enumerate(json_array_items(file)):
                try:
                    prompt, dimension, expect = self._parse(obj)
                except ValueError as exc:
                    result.problems.append(RowProblem(file=str(file), line=line, reason=str(exc)))
                    continue
                n = self.diversity_samples if dimension == "Diversity" else self.samples
                for k in range(n):
                    result.items.append(SuiteItem(
                        id=self.item_id(dimension, f"{index:04d}", k),
                        video=f"{dimension}/{prompt[:VIDEO_NAME_CHARS]}-{k}.mp4", prompt=prompt, suite=self.name,
                        expect={"dimension": dimension, "sample": k, **expect},
                        source=SourceRef(file=str(file), line=line)))
        return result

    @staticmethod
    def _parse(obj: Any) -> tuple[str, str, dict[str, Any]]:
        if not isinstance(obj, dict):
            raise ValueError("an item must be an object with prompt_en, dimension and auxiliary_info")
        prompt = obj.get("prompt_en")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError("missing or empty prompt_en")
        dimensions = obj.get("dimension")
        dimensions = [dimensions] if isinstance(dimensions, str) else dimensions
        if not isinstance(dimensions, list) or len(dimensions) != 1 or not isinstance(dimensions[0], str):
            raise ValueError(f"dimension {obj.get('dimension')!r} is not one dimension name")
        dimension = dimensions[0]
        if dimension not in DIMENSIONS:
            raise ValueError(f"unknown dimension {dimension!r} (known: {', '.join(sorted(DIMENSIONS))})")
        return prompt.strip(), dimension, DIMENSIONS[dimension](obj.get("auxiliary_info"))

    def coverage_group(self, item: SuiteItem) -> str:
        return item.expect["dimension"]

    def is_physics(self, item: SuiteItem) -> bool:
        return item.expect["dimension"] in self.physics

    def coverage_targets(self, item: SuiteItem, plan: Plan) -> list[CoverageTarget]:
        expect = item.expect
        targets = []
        for count in expect.get("counts", []):
            op = find_count(plan, count["object"], count["n"])
            targets.append(CoverageTarget(kind=count_kind(count["n"]), item=item.id,
                                          expected=f"{count['n']} {count['object']}", recovered=op is not None, op=op))
        actions = expect.get("actions", [])
        where, start = [], 0
        for action in actions:
            span = locate_phrase(plan.prompt, action, start)
            where.append(span)
            start = span[1] if span else start
        for (first, a), (then, b) in zip(zip(actions, where), zip(actions[1:], where[1:])):
            op = find_before(plan, a, b) if a and b else None
            targets.append(CoverageTarget(kind="order", item=item.id, expected=f"'{first}' before '{then}'",
                                          recovered=op is not None, op=op,
                                          note="" if a and b else "an action is not found in the prompt"))
        return targets

    def export(self, entries: list[ExportEntry], out: Path) -> Path:
        per_dimension: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            state = claims_state(entry.verdict, self.claims)
            per_dimension.setdefault(entry.item.expect["dimension"], []).append(
                {"video_path": entry.item.video, "video_results": VIDEO_RESULT[state or "unknown"]})
        results = {}
        for dimension, videos in per_dimension.items():
            valid = [v["video_results"] for v in videos if v["video_results"] >= 0]
            results[dimension] = [sum(valid) / len(valid) if valid else None, videos]
        return write_json(out, results)
