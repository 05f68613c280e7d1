"""The suite steps as functions on files, shared by ``python -m critic.suites`` and the experiments' suite job:
build a suite from its config, export verdicts, write an agreement report, write a coverage report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.errors import InstantiationException
from hydra.utils import instantiate
from omegaconf import DictConfig

from critic.suites.agreement import agreement, agreement_markdown
from critic.suites.base import Suite, claims_state, export_entries, read_manifest
from critic.suites.coverage import coverage_markdown, measure_coverage
from critic.suites.types import AgreementReport, SuiteCoverage, SuiteItem
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, dumps_json, write_json


def build(node: DictConfig, field: str) -> Any:
    """Instantiate a config node; a user error raised while building it stays a user error."""
    try:
        return instantiate(node)
    except InstantiationException as exc:
        if isinstance(exc.__cause__, UserError):
            raise exc.__cause__ from None
        raise UserError(f"cannot build it ({exc.__cause__ or exc})", field=field) from None


def suite_items(suite: Suite, manifest: Path) -> list[SuiteItem]:
    """The manifest's lines of this suite (a manifest written by ``import``)."""
    items = [it for it in read_manifest(manifest) if it.suite == suite.name]
    if not items:
        raise UserError(f"no {suite.name} lines (a manifest written by python -m critic.suites import "
                        f"{suite.name} ...)", file=manifest, field="manifest")
    return items


def export_verdicts(suite: Suite, manifest: Path, verdicts: Path, out: Path) -> dict[str, int]:
    """Write the suite's labels for the critic's verdicts; returns how many items were critiqued (a verdict line
    that is not an error)."""
    entries = export_entries(suite_items(suite, manifest), verdicts)
    suite.export(entries, out)
    critiqued = sum(claims_state(e.verdict) is not None for e in entries)
    return {"items": len(entries), "critiqued": critiqued, "not_critiqued": len(entries) - critiqued}


def write_agreement(suite: Suite, manifest: Path, verdicts: Path, out_dir: Path) -> AgreementReport:
    """``agreement.json`` and ``agreement.md`` in ``out_dir``."""
    if not suite.label_values:
        raise UserError(f"{suite.name} has no labels to agree with", field="command")
    report = agreement(suite, export_entries(suite_items(suite, manifest), verdicts))
    write_json(out_dir / "agreement.json", report.model_dump(mode="json"))
    atomic_write_bytes(out_dir / "agreement.md", agreement_markdown(report).encode())
    return report


def write_coverage(suite: Suite, items: list[SuiteItem], planner: Any, out_dir: Path, *, half: str = "all",
                   source: str = "", top: int = 30, progress: bool = False) -> SuiteCoverage:
    """``coverage.json``, ``coverage.md`` and ``prompts.jsonl`` (one line per planned prompt) in ``out_dir``."""
    report, prompts = measure_coverage(suite, items, planner, half=half, source=source, top=top, progress=progress)
    write_json(out_dir / "coverage.json", report.model_dump(mode="json"))
    atomic_write_bytes(out_dir / "coverage.md", coverage_markdown(report).encode())
    atomic_write_bytes(out_dir / "prompts.jsonl",
                       "".join(dumps_json(p.model_dump(mode="json"), indent=None) + "\n" for p in prompts).encode())
    return report
