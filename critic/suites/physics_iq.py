"""Physics-IQ (Motamed et al.): descriptions of real physics scenes, filmed from three perspectives in two takes.

Input: ``descriptions.csv`` (``scenario, description, category, generated_video_name``). Each row becomes a
manifest line whose prompt is the description and whose clip is the row's ``generated_video_name`` (the name the
benchmark gives a model's continuation of that scenario). ``take`` keeps only one take (default 1: the
image-to-video and video-to-video set uses take 1 only, one row per generated video; ``null`` keeps both).
``expect`` carries the category, scene, perspective and take parsed from the scenario's file name; a row whose
scenario name does not parse, whose category is unknown or whose video name is missing is reported with its line.

Physics-IQ scores a generated video against the real one with motion metrics; it has no label format, so there
is nothing to export to. Coverage is measured on its descriptions, all of them physics prompts, grouped by
category.
"""

from __future__ import annotations

import re
from pathlib import Path

from critic.suites.base import ImportResult, Suite, csv_rows
from critic.suites.types import RowProblem, SourceRef, SuiteItem

CATEGORIES = ("Solid Mechanics", "Fluid Dynamics", "Optics", "Thermodynamics", "Magnetism")
SCENARIO_RE = re.compile(r"^(?P<number>\d{4})_perspective-(?P<perspective>left|center|right)_take-(?P<take>\d+)_"
                         r"trimmed-(?P<scene>[\w\-]+)\.mp4$")


class PhysicsIQDescriptions(Suite):
    """Physics-IQ descriptions. ``take``: the take to keep (``None``: every row)."""

    name = "physics_iq"

    def __init__(self, take: int | None = 1):
        self.take = take

    def read(self, path: Path) -> ImportResult:
        result = ImportResult()
        for line, row, shape in csv_rows(path, required=("scenario", "description", "category",
                                                          "generated_video_name")):
            scenario = (row.get("scenario") or "").strip()
            m = SCENARIO_RE.match(scenario)
            description, category = (row.get("description") or "").strip(), (row.get("category") or "").strip()
            video = (row.get("generated_video_name") or "").strip()
            problem = shape
            if problem is None and m is None:
                problem = f"scenario {scenario!r} is not NNNN_perspective-P_take-T_trimmed-SCENE.mp4"
            elif problem is None and not description:
                problem = "empty description"
            elif problem is None and category not in CATEGORIES:
                problem = f"unknown category {category!r} (known: {', '.join(CATEGORIES)})"
            elif problem is None and not video.endswith(".mp4"):
                problem = f"generated_video_name {video!r} is not an .mp4 name"
            if problem is not None:
                result.problems.append(RowProblem(file=str(path), line=line, reason=problem))
                continue
            if self.take is not None and int(m.group("take")) != self.take:
                continue
            result.items.append(SuiteItem(
                id=self.item_id(m.group("number"), m.group("scene")), video=video, prompt=description,
                suite=self.name, source=SourceRef(file=str(path), line=line),
                expect={"scenario": scenario, "category": category, "scene": m.group("scene"),
                        "perspective": m.group("perspective"), "take": int(m.group("take"))}))
        return result

    def coverage_group(self, item: SuiteItem) -> str:
        return item.expect["category"]

    def is_physics(self, item: SuiteItem) -> bool:
        return True
