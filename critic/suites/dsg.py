"""DSG-1k (Cho et al., Davidsonian Scene Graph): prompts decomposed into atomic tuples with dependencies.

Input: ``dsg-1k-anns.csv`` (``item_id, text, keywords, proposition_id, dependency, category_broad,
category_detailed, tuple, question_natural_language``), one row per tuple. The rows of one ``item_id`` become one
manifest line: the prompt is its ``text``, the clip ``<item_id>.mp4`` (DSG scores images; a video model's clip
for the prompt takes its name), and ``expect.tuples`` lists every tuple with its id, parent ids, category, type,
arguments and question. A row is reported with its line and left out when its proposition id, dependency or tuple
does not parse, its category is unknown, its text differs from the item's other rows, or it depends on a
proposition the item does not have.

Export: one row per tuple in the layout of DSG's VQA answer files (``dsg_prompt_split, qg_model, t2i_model,
item_id, question, question_id, dependency_id, answer``, then ``tuple`` and the ``claim`` that answered):
``yes`` / ``no`` / ``unknown`` from the state of the claim whose operation the tuple maps to (count tuples ->
``count``, text tuples -> ``read``); tuples no operation answers are ``unknown``. As in DSG's scoring, a tuple
whose parent is answered ``no`` is ``no`` too.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from critic.suites.base import ExportEntry, ImportResult, Suite, clip_files, csv_rows
from critic.suites.plans import claims_checking, count_kind, find_count, find_read
from critic.suites.types import CoverageTarget, RowProblem, SourceRef, SuiteItem
from critic.types import Plan
from veriphy.files import atomic_write_bytes

REQUIRED = ("item_id", "text", "proposition_id", "dependency", "category_broad", "category_detailed", "tuple")
CATEGORIES = ("entity", "attribute", "relation", "global", "other")
TUPLE_RE = re.compile(r"^\s*(?P<category>[a-z]+)\s+-\s+(?P<type>[^()]+?)\s*\((?P<args>.*)\)\s*$")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
ANSWERS = {"supported": "yes", "contradicted": "no", "unknown": "unknown"}
EXPORT_COLUMNS = ["dsg_prompt_split", "qg_model", "t2i_model", "item_id", "question", "question_id", "dependency_id",
                  "answer", "tuple", "claim"]


def parse_tuple(text: str) -> tuple[str, str, list[str]]:
    """``"other - count (soccer balls, ==2)"`` -> ``("other", "count", ["soccer balls", "==2"])`` (quoted
    arguments may hold commas: ``text rendering (sign, "one way, or not")``)."""
    m = TUPLE_RE.match(text)
    if m is None:
        raise ValueError(f"tuple {text!r} is not 'category - type (arguments)'")
    args = next(csv.reader([m.group("args")], skipinitialspace=True), [])
    return m.group("category"), m.group("type").strip(), [a.strip() for a in args]


def exact_count(argument: str) -> int | None:
    """``"==3"`` / ``"==three"`` -> 3; inexact counts (``">1"``, ``"==few"``) -> None."""
    m = re.fullmatch(r"==\s*(\w+)", argument.strip())
    if m is None:
        return None
    word = m.group(1).lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


def parse_dependency(text: str) -> list[int]:
    """``"0"`` -> [] (a root), ``"1,4"`` -> [1, 4]."""
    if not re.fullmatch(r"\s*\d+(\s*,\s*\d+)*\s*", text):
        raise ValueError(f"dependency {text!r} is not 0 or a list of proposition ids")
    return [int(x) for x in text.split(",") if int(x) != 0]


class DSGTuples(Suite):
    """DSG-1k tuples. ``t2i_model``: the name written in the export's ``t2i_model`` column (the generator the
    clips came from)."""

    name = "dsg"
    export_name = "dsg_answers.csv"

    def __init__(self, t2i_model: str = ""):
        self.t2i_model = t2i_model

    def read(self, path: Path) -> ImportResult:
        result = ImportResult()
        items: dict[str, dict[str, Any]] = {}
        for line, row, shape in csv_rows(path, required=REQUIRED):
            try:
                if shape:
                    raise ValueError(shape)
                item_id, text = row["item_id"].strip(), row["text"].strip()
                if not item_id or not text:
                    raise ValueError("empty item_id or text")
                entry = self._tuple(row)
                item = items.setdefault(item_id, {"text": text, "line": line, "tuples": {}, "lines": {}})
                if item["text"] != text:
                    raise ValueError(f"text differs from line {item['line']} of the same item {item_id}")
                if entry["id"] in item["tuples"]:
                    raise ValueError(f"proposition {entry['id']} repeats line {item['lines'][entry['id']]}")
            except ValueError as exc:
                result.problems.append(RowProblem(file=str(path), line=line, reason=str(exc)))
                continue
            item["tuples"][entry["id"]] = entry
            item["lines"][entry["id"]] = line
        for item_id, item in items.items():
            tuples = dict(item["tuples"])
            # a tuple whose parent is missing (never given, or left out above) is left out too, until nothing changes
            changed = True
            while changed:
                changed = False
                for pid, entry in list(tuples.items()):
                    missing = [p for p in entry["parents"] if p not in tuples]
                    if missing:
                        result.problems.append(RowProblem(
                            file=str(path), line=item["lines"][pid],
                            reason=f"depends on proposition {missing[0]}, missing from item {item_id}"))
                        del tuples[pid]
                        changed = True
            result.items.append(SuiteItem(
                id=self.item_id(item_id), video=f"{item_id}.mp4", prompt=item["text"], suite=self.name,
                expect={"item_id": item_id, "split": item_id.rsplit("_", 1)[0],
                        "tuples": [tuples[k] for k in sorted(tuples)]},
                source=SourceRef(file=str(path), line=item["line"])))
        result.problems.sort(key=lambda p: p.line)
        return result

    @staticmethod
    def _tuple(row: dict[str, str]) -> dict[str, Any]:
        pid_text = row["proposition_id"].strip()
        if not pid_text.isdigit() or int(pid_text) < 1:
            raise ValueError(f"proposition_id {pid_text!r} is not a positive whole number")
        category = row["category_broad"].strip()
        if category not in CATEGORIES:
            raise ValueError(f"unknown category_broad {category!r} (known: {', '.join(CATEGORIES)})")
        _, kind, args = parse_tuple(row["tuple"])
        if not args:
            raise ValueError(f"tuple {row['tuple']!r} has no arguments")
        return {"id": int(pid_text), "parents": parse_dependency(row["dependency"]), "category": category,
                "type": row["category_detailed"].strip() or kind, "args": args, "tuple": row["tuple"].strip(),
                "question": (row.get("question_natural_language") or "").strip()}

    # ---- tuples -> operations ----------------------------------------------------------------------
    @staticmethod
    def tuple_op(plan: Plan, entry: dict[str, Any]) -> tuple[str | None, str]:
        """The operation that answers a count or text tuple (``None`` with the reason when none does)."""
        if entry["type"] == "count":
            n = exact_count(entry["args"][-1])
            if n is None:
                return None, f"not an exact count ({entry['args'][-1]})"
            return find_count(plan, entry["args"][0], n), ""
        if entry["type"] == "text rendering":
            return find_read(plan, entry["args"][-1]), ""
        return None, "no operation answers this tuple type"

    def coverage_group(self, item: SuiteItem) -> str:
        """The source data set of the item (``tifa160``, ``countbench``, ``drawtext`` ...); everyday captions,
        not physics prompts."""
        return item.expect["split"]

    def coverage_targets(self, item: SuiteItem, plan: Plan) -> list[CoverageTarget]:
        targets = []
        for entry in item.expect["tuples"]:
            if entry["type"] not in ("count", "text rendering"):
                continue
            op, note = self.tuple_op(plan, entry)
            n = exact_count(entry["args"][-1]) if entry["type"] == "count" else None
            kind = "text" if entry["type"] == "text rendering" else count_kind(n) if n is not None \
                else "count (inexact)"
            targets.append(CoverageTarget(kind=kind, item=item.id,
                                          expected=entry["tuple"], recovered=op is not None, op=op, note=note))
        return targets

    def answers(self, entry: ExportEntry) -> dict[int, tuple[str, str]]:
        """Per proposition id: the answer and the claim that gave it (``parent N`` when a parent's ``no`` did)."""
        plan, verdict = clip_files(entry)
        states = {c["id"]: c["state"] for c in (verdict or {}).get("claims", [])}
        out: dict[int, tuple[str, str]] = {}
        for t in entry.item.expect["tuples"]:
            op = self.tuple_op(plan, t)[0] if plan is not None else None
            claims = [c for c in claims_checking(plan, op) if c in states] if op else []
            out[t["id"]] = (ANSWERS[states[claims[0]]], claims[0]) if claims else ("unknown", "")
        parents = {t["id"]: t["parents"] for t in entry.item.expect["tuples"]}
        changed = True
        while changed:  # DSG: a "no" to a parent question is a "no" to every question that depends on it
            changed = False
            for pid, ps in parents.items():
                no = next((p for p in ps if out.get(p, ("",))[0] == "no"), None)
                if no is not None and out[pid][0] != "no":
                    out[pid] = ("no", f"parent {no}")
                    changed = True
        return out

    def export(self, entries: list[ExportEntry], out: Path) -> Path:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(EXPORT_COLUMNS)
        for entry in entries:
            expect = entry.item.expect
            answers = self.answers(entry)
            for t in expect["tuples"]:
                answer, claim = answers[t["id"]]
                writer.writerow([expect["split"], "dsg", self.t2i_model, expect["item_id"], t["question"], t["id"],
                                 ",".join(str(p) for p in t["parents"]) or "0", answer, t["tuple"], claim])
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(out, buf.getvalue().encode())
        return out
