"""Planner coverage on external prompt suites: which prompts get a typed claim, and which words stay unplanned.

``python -m critic.coverage prompt_suite=vbench2 suite_dir=PATH`` (suites: ``vbench2``, ``physics_iq``, ``videophy``,
``dsg``; ``conf/prompt_suite/``) plans every prompt of the suite with the configured planner (``critic/planner``) and
writes into the run directory:

* ``coverage.json`` - per half and per group (a VBench-2.0 dimension, a Physics-IQ category ...): prompts, the
  share with at least one explicit claim ("typed": any operation, a ``judge`` included), the share with at least
  one explicit claim an instrument checks (any operation but ``judge``), the share with a physical clause left
  unplanned; and the unplanned content words ranked by frequency;
* ``coverage.md`` - the same as tables; ``prompts.jsonl`` - one line per prompt (its half, claims, unplanned
  spans).

The halves are fixed by the prompt's text alone (:func:`half_of`: the parity of the first byte of the sha256 of
the lower-cased, stripped prompt), so the rules can be written while reading the ``dev`` half and measured on the
``held_out`` half no rule was written from. ``half=dev|held_out`` plans one half only.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hydra
from hydra.utils import instantiate
from omegaconf import DictConfig

from critic.planners.base import content_words
from critic.types import JudgeOp, Plan
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, dumps_json, write_json
from veriphy.hydra_app import exit_on_user_error, hydra_run_dir

HALVES = ("dev", "held_out")


@dataclass(frozen=True)
class SuitePrompt:
    """One prompt of a suite: its text, its group (dimension or category) and whether the suite calls it a
    physics prompt."""

    text: str
    group: str
    physics: bool


def half_of(text: str) -> str:
    """``dev`` or ``held_out``, from the text alone (stable across runs, machines and suite versions)."""
    return HALVES[hashlib.sha256(text.strip().lower().encode()).digest()[0] % 2]


class _Suite:
    """A folder of a third-party suite; ``path`` (``suite_dir=``) or, when None, ``default`` (the copy in the
    repository, where there is one). Nothing is read before :meth:`prompts`."""

    name = ""

    def __init__(self, path: str | None = None, default: str | None = None):
        self.path = Path(path or default or "")
        self.given = path or default

    def folder(self, *required: str) -> Path:
        if not self.given:
            raise UserError(f"suite '{self.name}' has no copy in the repository: give suite_dir=PATH", field="suite_dir")
        for rel in required:
            if not (self.path / rel).exists():
                raise UserError(f"not a {self.name} folder: {rel} is missing", file=self.path, field="suite_dir")
        return self.path

    def prompts(self) -> list[SuitePrompt]:
        raise NotImplementedError


def _unique(prompts: list[SuitePrompt]) -> list[SuitePrompt]:
    """Drop repeated (text, group) pairs, keeping the first; the order of the files is kept."""
    return list({(p.text.strip(), p.group): p for p in prompts if p.text.strip()}.values())


class VBench2Suite(_Suite):
    """VBench-2.0 prompt meta-information: ``vbench2_meta_info/<Dimension>.json``, items with ``prompt_en`` and
    ``dimension``. ``physics``: the dimensions counted as physics prompts."""

    name = "vbench2"

    def __init__(self, path: str | None = None, default: str | None = None,
                 physics: tuple[str, ...] | list[str] = ("Mechanics", "Thermotics", "Material")):
        super().__init__(path, default)
        self.physics = tuple(physics)

    def prompts(self) -> list[SuitePrompt]:
        folder = self.folder("vbench2_meta_info") / "vbench2_meta_info"
        out = []
        for f in sorted(folder.glob("*.json")):
            for item in json.loads(f.read_text(encoding="utf-8")):
                dim = str(item.get("dimension") or f.stem)
                out.append(SuitePrompt(str(item["prompt_en"]), dim, dim in self.physics))
        return _unique(out)


class PhysicsIQSuite(_Suite):
    """Physics-IQ scene descriptions (``descriptions.csv``: ``description``, ``category``); all physics."""

    name = "physics_iq"

    def prompts(self) -> list[SuitePrompt]:
        path = self.folder("descriptions.csv") / "descriptions.csv"
        with path.open(encoding="utf-8", newline="") as f:
            return _unique([SuitePrompt(r["description"], r["category"], True) for r in csv.DictReader(f)])


class VideoPhySuite(_Suite):
    """VideoPhy 1 and 2 examples: generation captions (``v1_examples/example.csv``, ``v2_examples/sa_pc.csv``)
    and VideoPhy-2's physical rules (``v2_examples/rule.csv``); all physics."""

    name = "videophy"
    FILES = (("v1_examples/example.csv", "caption", "v1 caption"), ("v2_examples/sa_pc.csv", "caption", "v2 caption"),
             ("v2_examples/rule.csv", "rule", "v2 rule"))

    def prompts(self) -> list[SuitePrompt]:
        folder = self.folder()
        out = []
        for rel, column, group in self.FILES:
            if (folder / rel).is_file():
                with (folder / rel).open(encoding="utf-8", newline="") as f:
                    out += [SuitePrompt(r[column], group, True) for r in csv.DictReader(f)]
        if not out:
            raise UserError(f"no videophy file found ({', '.join(r for r, _, _ in self.FILES)})", file=folder,
                            field="suite_dir")
        return _unique(out)


class DSGSuite(_Suite):
    """DSG-1k prompts (``dsg-1k-anns.csv``: one row per tuple; ``item_id`` = ``<source>_<n>``, ``text``); the
    group is the source data set. Not physics prompts: a check of the planner on everyday captions."""

    name = "dsg"

    def prompts(self) -> list[SuitePrompt]:
        path = self.folder("dsg-1k-anns.csv") / "dsg-1k-anns.csv"
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        return _unique([SuitePrompt(r["text"], r["item_id"].rsplit("_", 1)[0], False) for r in rows])


# --------------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------------


def prompt_coverage(plan: Plan | None) -> dict[str, Any]:
    """What the plan of one prompt covers: explicit claims (typed, instrumented), physical clauses left
    unplanned, and the content words outside every explicit claim."""
    if plan is None:
        return {"claims": 0, "instrumented": 0, "unplanned_physical": [], "unplanned_words": [], "rejected": True}
    checks: dict[str, list[str]] = {}
    for ob in plan.obligations:
        checks.setdefault(ob.claim, []).append(ob.check)
    explicit = [c for c in plan.claims if c.kind == "explicit"]
    instrumented = [c for c in explicit if any(not isinstance(plan.op(k), JudgeOp) for k in checks.get(c.id, []))]
    words = [w for u in plan.unplanned for w in content_words(u.text)]
    return {"claims": len(explicit), "instrumented": len(instrumented),
            "unplanned_physical": [u.text for u in plan.unplanned if u.physical], "unplanned_words": words,
            "rejected": False}


def _shares(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)

    def share(key) -> float | None:
        return round(sum(1 for r in rows if key(r)) / n, 4) if n else None

    return {"prompts": n, "typed": share(lambda r: r["claims"] > 0), "instrumented": share(lambda r: r["instrumented"] > 0),
            "unplanned_physical": share(lambda r: bool(r["unplanned_physical"]))}


def summarise(rows: list[dict[str, Any]], top_words: int = 40) -> dict[str, Any]:
    """Coverage per half (all prompts, physics prompts, each group) and the unplanned words of each half."""
    out: dict[str, Any] = {}
    for half in HALVES + ("all",):
        part = [r for r in rows if half in ("all", r["half"])]
        words = Counter(w for r in part for w in r["unplanned_words"])
        out[half] = {"all": _shares(part), "physics": _shares([r for r in part if r["physics"]]),
                     "groups": {g: _shares([r for r in part if r["group"] == g])
                                for g in sorted({r["group"] for r in part})},
                     "unplanned_words": words.most_common(top_words)}
    return out


def coverage_markdown(suite: str, summary: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f} %"

    lines = [f"# Planner coverage: {suite}", "",
             "typed: >= 1 explicit claim; instrumented: >= 1 explicit claim an instrument checks (not judge); "
             "unplanned physical: a physical clause no claim covers.", ""]
    for half in HALVES + ("all",):
        part = summary[half]
        lines += [f"## {half}", "", "| group | prompts | typed | instrumented | unplanned physical |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        rows = [("**all**", part["all"]), ("**physics**", part["physics"])] + sorted(part["groups"].items())
        for name, s in rows:
            lines.append(f"| {name} | {s['prompts']} | {pct(s['typed'])} | {pct(s['instrumented'])} | "
                         f"{pct(s['unplanned_physical'])} |")
        lines += ["", "Unplanned words: " + ", ".join(f"{w} {n}" for w, n in part["unplanned_words"]), ""]
    return "\n".join(lines)


def measure_coverage(planner: Any, prompts: list[SuitePrompt], half: str = "all") -> list[dict[str, Any]]:
    """Plan every prompt of ``half`` and return one row per prompt."""
    rows = []
    for p in prompts:
        h = half_of(p.text)
        if half not in ("all", h):
            continue
        plan = planner.plan(p.text).plan
        rows.append({"text": p.text, "group": p.group, "physics": p.physics, "half": h, **prompt_coverage(plan),
                     "unplanned": [u.model_dump(mode="json") for u in plan.unplanned] if plan else []})
    return rows


@hydra.main(version_base="1.3", config_path="../conf", config_name="coverage_app")
@exit_on_user_error
def main(cfg: DictConfig) -> None:
    if cfg.half not in HALVES + ("all",):
        raise UserError(f"half must be one of {', '.join(HALVES + ('all',))}, not {cfg.half!r}", field="half")
    suite = instantiate(cfg.prompt_suite)
    planner = instantiate(cfg.critic.planner)
    rows = measure_coverage(planner, suite.prompts(), cfg.half)
    summary = summarise(rows, int(cfg.top_words))
    run_dir = hydra_run_dir()
    write_json(run_dir / "coverage.json", {"suite": suite.name, "planner": planner.name, **summary})
    text = coverage_markdown(suite.name, summary)
    atomic_write_bytes(run_dir / "coverage.md", (text + "\n").encode())
    atomic_write_bytes(run_dir / "prompts.jsonl", "".join(dumps_json(r, indent=None) + "\n" for r in rows).encode())
    print(text)
    print(f"run directory: {run_dir}")


if __name__ == "__main__":
    main()
