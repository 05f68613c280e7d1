"""VideoPhy-2 (Bansal et al.): physical rules per generated clip, labelled 0 violated / 1 followed / 2 cannot be
grounded.

Input: the rule CSV (``rule.csv``: ``videopath,rule``; or the AutoRater's ``output_rule.csv``: an index column,
``videopath,rule,score`` with the label as ``score``). Each row becomes one manifest line whose prompt is the
rule itself, so the critic plans and checks the statement the label is about; the clip is the row's file, found
in the CSV's folder unless ``videos=`` says otherwise. ``expect`` keeps the rule, the label (when given), the
original ``videopath`` and the caption the file is named after.

Export: the ``output_rule.csv`` layout (``,videopath,rule,score``), the score being the label read off the claim
states: contradicted -> 0, supported -> 1, unknown -> 2 (an item the critic could not critique gets an empty
score). Which claims count is ``claims``: ``explicit`` (default: the rule's own statements) or ``all`` (the
implicit obligations of its subjects too).

The captions the clips were generated from are a suite of their own, :class:`VideoPhy2Captions`
(``conf/suite/videophy2_captions.yaml``): ``sa_pc.csv`` (``caption,videopath``) or the AutoRater's
``output_sa.csv`` / ``output_pc.csv`` (an index column, ``caption,videopath,score``: semantic adherence or physical
commonsense, 1 to 5); VideoPhy-1's ``example.csv`` (``videopath,caption``, optionally ``sa,pc``) has the same
columns. Each row becomes one manifest line whose prompt is the caption; the scores are kept in ``expect``. They
have no label the critic's three states map to, so there is no export and no agreement.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from critic.suites.base import ExportEntry, ImportResult, Suite, check_claims, claims_state, csv_rows
from critic.suites.types import RowProblem, SourceRef, SuiteItem
from veriphy.files import atomic_write_bytes

LABEL_COLUMNS = ("score", "label")
SCORE_COLUMNS = ("score", "sa", "pc")  # captions: the AutoRater's 1-5 score, VideoPhy-1's 0/1 sa and pc
INDEX_COLUMN = ""  # pandas writes its index under an empty header


def caption_of(videopath: str) -> str:
    """The caption a VideoPhy-2 clip is named after ("A_cat_jumps_0.mp4" -> "A cat jumps")."""
    stem = Path(videopath).stem
    return re.sub(r"_\d+$", "", stem).replace("_", " ").strip()


def parse_label(value: str) -> int:
    """``"1"``, ``"1.0"`` -> 1; anything but 0, 1 or 2 raises ``ValueError`` with the reason."""
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"label {value!r} is not a number") from None
    if number not in (0.0, 1.0, 2.0):
        raise ValueError(f"label {value!r} is not 0 (violated), 1 (followed) or 2 (cannot be grounded)")
    return int(number)


class ClipTextRows(Suite):
    """A CSV with one clip (``videopath``) and one text per row (``text_column``: a rule, a caption); the text is
    the prompt, the clip is found in the CSV's folder unless ``videos=`` says otherwise. Subclasses check their
    own columns (:meth:`row_problem`) and add them to ``expect`` (:meth:`row_expect`); the same clip and text twice
    is reported with the line that had them first."""

    text_column = ""

    def default_video_root(self, path: Path) -> Path:
        return path.parent

    def row_problem(self, row: dict[str, str]) -> str | None:
        return None

    def row_expect(self, row: dict[str, str], videopath: str) -> dict[str, Any]:
        return {}

    def read(self, path: Path) -> ImportResult:
        result = ImportResult()
        seen: dict[tuple[str, str], int] = {}
        for line, row, shape in csv_rows(path, required=("videopath", self.text_column)):
            key = ((row.get("videopath") or "").strip(), (row.get(self.text_column) or "").strip())
            problem = shape or self._problem(row)
            if problem is None and key in seen:
                problem = f"the same clip and {self.text_column} as line {seen[key]}"
            if problem is not None:
                result.problems.append(RowProblem(file=str(path), line=line, reason=problem))
                continue
            seen[key] = line
            videopath, text = key
            expect = {self.text_column: text, "videopath": videopath, **self.row_expect(row, videopath)}
            if (row.get(INDEX_COLUMN) or "").strip():
                expect["index"] = row[INDEX_COLUMN].strip()
            result.items.append(SuiteItem(id=self.item_id(f"L{line:05d}"), video=Path(videopath).name, prompt=text,
                                          suite=self.name, expect=expect, source=SourceRef(file=str(path), line=line)))
        return result

    def _problem(self, row: dict[str, str]) -> str | None:
        missing = [c for c in ("videopath", self.text_column) if not (row.get(c) or "").strip()]
        if missing:
            return f"empty {' and '.join(missing)}"
        if not row["videopath"].strip().lower().endswith(".mp4"):
            return f"videopath {row['videopath'].strip()!r} is not an .mp4 clip"
        return self.row_problem(row)

    def is_physics(self, item: SuiteItem) -> bool:
        return True


class VideoPhy2Rules(ClipTextRows):
    """VideoPhy-2 rule labels. ``claims``: which claim states decide a rule's label (``explicit`` | ``all``)."""

    name = "videophy2"
    export_name = "output_rule.csv"
    label_values = (0, 1, 2)
    state_labels = {"contradicted": 0, "supported": 1, "unknown": 2}
    text_column = "rule"

    def __init__(self, claims: str = "explicit"):
        self.claims = check_claims(claims)

    def row_problem(self, row: dict[str, str]) -> str | None:
        for column in LABEL_COLUMNS:
            if (row.get(column) or "").strip():
                try:
                    parse_label(row[column].strip())
                except ValueError as exc:
                    return str(exc)
        return None

    def row_expect(self, row: dict[str, str], videopath: str) -> dict[str, Any]:
        label_text = next((row[c].strip() for c in LABEL_COLUMNS if (row.get(c) or "").strip()), None)
        return {"caption": caption_of(videopath),
                "label": parse_label(label_text) if label_text is not None else None}

    def coverage_group(self, item: SuiteItem) -> str:
        return "rule"

    def label(self, item: SuiteItem) -> int | None:
        return item.expect.get("label")

    def rule_label(self, entry: ExportEntry) -> int | None:
        state = claims_state(entry.verdict, self.claims)
        return None if state is None else self.state_labels[state]

    def export(self, entries: list[ExportEntry], out: Path) -> Path:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow([INDEX_COLUMN, "videopath", "rule", "score"])
        for k, entry in enumerate(entries):
            label = self.rule_label(entry)
            expect = entry.item.expect
            writer.writerow([expect.get("index", str(k)), expect["videopath"], expect["rule"],
                             "" if label is None else f"{label:.1f}"])
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(out, buf.getvalue().encode())
        return out



class VideoPhy2Captions(ClipTextRows):
    """VideoPhy-2 (and VideoPhy-1) generation captions, with the AutoRater's or the annotators' scores (numbers)
    when the file has them."""

    name = "videophy2_captions"
    text_column = "caption"

    def row_problem(self, row: dict[str, str]) -> str | None:
        for column in SCORE_COLUMNS:
            value = (row.get(column) or "").strip()
            if value:
                try:
                    float(value)
                except ValueError:
                    return f"{column} {value!r} is not a number"
        return None

    def row_expect(self, row: dict[str, str], videopath: str) -> dict[str, Any]:
        return {c: float(row[c]) for c in SCORE_COLUMNS if (row.get(c) or "").strip()}

    def coverage_group(self, item: SuiteItem) -> str:
        return "caption"
