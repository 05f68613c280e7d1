"""What every suite shares: reading its files with line numbers, writing the critic's batch manifest, reading the
critic's verdicts back, and the rule that turns a verdict's claims into one state.

A suite (``conf/suite/<name>.yaml``, a ``_target_``) implements:

* ``read(path) -> ImportResult``: the suite's rows as :class:`SuiteItem` (``video`` = the suite's own name for
  the clip, relative to the video folder) and the rows it could not import, each with its line;
* ``export(entries, out)``: the critic's verdicts written as the suite's own labels (optional);
* ``coverage_targets(item, plan)``: the suite's typed expectations of one prompt and whether the plan recovered
  them (optional; :mod:`critic.suites.coverage`);
* ``coverage_group(item)`` / ``is_physics(item)``: the group the coverage report counts the item's prompt under
  (a dimension, a category, a source) and whether the suite counts it as a physics prompt;
* ``label(item)``: the suite's label of an item, where the suite has labels (agreement reports).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from critic.suites.types import CoverageTarget, RowProblem, State, SuiteItem
from critic.types import Plan
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, dumps_json, read_json

#: Which claims decide an item's state: the prompt's own statements, or with its subjects' implicit obligations.
CLAIM_SETS = ("explicit", "all")


@dataclass
class ImportResult:
    """A suite file read into manifest items, and the rows left out (with their lines)."""

    items: list[SuiteItem] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


@dataclass(frozen=True)
class ExportEntry:
    """One manifest item with the critic's batch line for it (``None``: no line) and its per-clip folder
    (``plan.json``, ``verdict.json``; ``None`` when absent)."""

    item: SuiteItem
    verdict: dict[str, Any] | None
    clip_dir: Path | None


class Suite:
    """Base class of the suites. ``name`` is the suite's key in manifests; ``export_name`` the default file
    name of its export (``None``: the suite has no label format to export to); ``claims`` which claim states
    decide an item's state (``explicit``: the prompt's own statements; ``all``: with the implicit obligations of
    its subjects)."""

    name: str = ""
    export_name: str | None = None
    claims: str = "explicit"
    label_values: tuple[int, ...] = ()
    #: the label that means each critic state (suites with labels)
    state_labels: dict[str, int] = {}

    def read(self, path: Path) -> ImportResult:
        raise NotImplementedError

    def default_video_root(self, path: Path) -> Path | None:
        """Where the suite's clips are when ``videos=`` is not given (``None``: beside the manifest)."""
        return None

    def export(self, entries: list[ExportEntry], out: Path) -> Path:
        raise UserError(f"{self.name} has no label format to export verdicts to", field="command")

    def coverage_targets(self, item: SuiteItem, plan: Plan) -> list[CoverageTarget]:
        return []

    def coverage_group(self, item: SuiteItem) -> str:
        return self.name

    def is_physics(self, item: SuiteItem) -> bool:
        return False

    def label(self, item: SuiteItem) -> int | None:
        return None

    def item_id(self, *parts: Any) -> str:
        """A manifest id that is also the critic's per-clip folder name (letters, digits, ``_.-``)."""
        raw = "-".join([self.name, *(str(p) for p in parts)])
        return re.sub(r"[^A-Za-z0-9_.\-]+", "_", raw).strip("._")[:80]


# --------------------------------------------------------------------------------------------------
# Reading suite files with line numbers
# --------------------------------------------------------------------------------------------------


def read_text(path: Path, field_name: str = "path") -> str:
    if not path.is_file():
        raise UserError("file not found", file=path, field=field_name)
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=path, field=field_name) from None


def csv_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str], str | None]]:
    """``(line, row, problem)`` for every data row of a CSV file: ``line`` is where the row starts (quoted fields
    may span lines), ``problem`` says when the row has more or fewer fields than the header. A missing required
    column is the user's error (the file is not this suite's)."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = reader.fieldnames or []
    missing = [c for c in required if c not in header]
    if missing:
        raise UserError(f"missing column(s) {', '.join(missing)} (header: {', '.join(header) or 'none'})",
                        file=path, field="path")
    end = reader.line_num
    for row in reader:
        start, end = end + 1, reader.line_num
        problem = None
        if None in row:  # DictReader keeps the surplus under the key None
            problem = f"{len(row[None])} more field(s) than the header"
        elif any(v is None for v in row.values()):
            problem = f"{sum(v is None for v in row.values())} field(s) fewer than the header"
        yield start, row, problem


def json_array_items(path: Path) -> list[tuple[int, Any]]:
    """``(line, value)`` for every element of a top-level JSON array, ``line`` where the element starts."""
    text = read_text(path)
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")

    def skip(pos: int) -> int:
        return ws.match(text, pos).end()

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    pos = skip(0)
    if not text.startswith("[", pos):
        raise UserError("not a JSON array of prompt items", file=path, field="path")
    items: list[tuple[int, Any]] = []
    pos = skip(pos + 1)
    while not text.startswith("]", pos):
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise UserError(f"line {exc.lineno}: not valid JSON ({exc.msg})", file=path, field="path") from None
        items.append((line_of(pos), value))
        pos = skip(end)
        if text.startswith(",", pos):
            pos = skip(pos + 1)
        elif not text.startswith("]", pos):
            raise UserError(f"line {line_of(pos)}: expected ',' or ']' in the array", file=path, field="path")
    return items


# --------------------------------------------------------------------------------------------------
# The manifest
# --------------------------------------------------------------------------------------------------


def place_videos(items: list[SuiteItem], out: Path, root: Path | None) -> list[SuiteItem]:
    """Point each item's ``video`` (the suite's own clip name) at ``root``, relative to the manifest's folder;
    with no root the names stay as they are (the clips are expected beside the manifest)."""
    if root is None:
        return items
    base = out.parent.resolve()
    return [it.model_copy(update={"video": os.path.relpath((root / it.video).resolve(), base)}) for it in items]


def write_manifest_lines(items: list[SuiteItem], out: Path) -> Path:
    """The critic's batch manifest: one JSON object per line (sorted keys), written atomically."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [dumps_json(it.model_dump(mode="json"), indent=None) for it in items]
    atomic_write_bytes(out, ("\n".join(lines) + ("\n" if lines else "")).encode())
    return out


def import_suite(suite: Suite, path: Path, out: Path, videos: Path | None = None,
                 limit: int | None = None) -> ImportResult:
    """Read ``path`` with ``suite``, report every row left out on stderr (``error: FILE: line N: REASON``) and
    write the manifest to ``out`` (the first ``limit`` items); returns the items as written. No importable row at
    all is the user's error."""
    result = suite.read(path)
    for problem in result.problems:
        print(f"error: {problem.message}", file=sys.stderr)
    if not result.items:
        raise UserError(f"no {suite.name} rows could be imported ({len(result.problems)} left out)", file=path,
                        field="path")
    items = result.items[:limit] if limit is not None else result.items
    root = videos if videos is not None else suite.default_video_root(path)
    placed = place_videos(items, out, root)
    write_manifest_lines(placed, out)
    return ImportResult(items=placed, problems=result.problems)


def jsonl_objects(path: Path, field_name: str) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for every non-empty line of a JSON-lines file; a line that is not JSON is the user's
    error."""
    for n, line in enumerate(read_text(path, field_name).splitlines(), 1):
        if line.strip():
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"line {n}: not JSON ({exc.msg})", file=path, field=field_name) from None


def read_manifest(path: Path) -> list[SuiteItem]:
    """The items of a manifest written by :func:`import_suite` (lines without ``suite`` are skipped)."""
    items = []
    for n, obj in jsonl_objects(path, "manifest"):
        if isinstance(obj, dict) and "suite" in obj:
            try:
                items.append(SuiteItem.model_validate(obj))
            except ValueError as exc:
                raise UserError(f"line {n}: not a suite manifest line ({exc})", file=path, field="manifest") from None
    return items


# --------------------------------------------------------------------------------------------------
# Verdicts back
# --------------------------------------------------------------------------------------------------


def read_verdicts(path: Path) -> dict[str, dict[str, Any]]:
    """The critic's ``verdicts.jsonl`` by id (the last line wins for a repeated id)."""
    out: dict[str, dict[str, Any]] = {}
    for n, obj in jsonl_objects(path, "verdicts"):
        if not isinstance(obj, dict) or "id" not in obj or "verdict" not in obj:
            raise UserError(f"line {n}: not a verdict line (needs id and verdict)", file=path, field="verdicts")
        out[str(obj["id"])] = obj
    return out


def manifest_of_run(verdicts: Path) -> Path | None:
    """The manifest a ``python -m critic manifest=...`` run read, from its ``.hydra/config.yaml`` (relative paths
    as the run was given them: against the current folder)."""
    config = verdicts.parent / ".hydra" / "config.yaml"
    if not config.is_file():
        return None
    value = OmegaConf.load(config).get("manifest")
    return Path(str(value)) if value else None


def export_entries(items: list[SuiteItem], verdicts: Path) -> list[ExportEntry]:
    """Each item with its verdict line and its per-clip folder beside ``verdicts.jsonl`` (the critic names it by
    the id, which the importers keep folder-safe)."""
    lines = read_verdicts(verdicts)
    entries = []
    for it in items:
        clip_dir = verdicts.parent / it.id
        entries.append(ExportEntry(item=it, verdict=lines.get(it.id),
                                   clip_dir=clip_dir if (clip_dir / "verdict.json").is_file() else None))
    return entries


def check_claims(claims: str) -> str:
    if claims not in CLAIM_SETS:
        raise UserError(f"claims must be one of {', '.join(CLAIM_SETS)}, not {claims!r}", field="suite.claims")
    return claims


def claims_state(verdict: dict[str, Any] | None, claims: str = "explicit") -> State | None:
    """One state from a verdict line's claims (``explicit``: the prompt's own statements; ``all``: the implicit
    obligations too): any contradicted -> contradicted; all supported (and at least one) -> supported; otherwise
    unknown. ``None`` for a clip the critic could not critique (an ``error`` line, or none)."""
    if verdict is None or verdict.get("verdict") == "error":
        return None
    states = [c.get("state") for c in verdict.get("claims", []) if claims == "all" or c.get("kind") == "explicit"]
    if "contradicted" in states:
        return "contradicted"
    if states and all(s == "supported" for s in states):
        return "supported"
    return "unknown"


def clip_files(entry: ExportEntry) -> tuple[Plan | None, dict[str, Any] | None]:
    """The recorded plan and verdict of an entry's clip (``None`` where the folder or file is missing)."""
    if entry.clip_dir is None:
        return None, None
    plan_path, verdict_path = entry.clip_dir / "plan.json", entry.clip_dir / "verdict.json"
    plan = Plan.model_validate(read_json(plan_path)) if plan_path.is_file() else None
    return plan, read_json(verdict_path)
