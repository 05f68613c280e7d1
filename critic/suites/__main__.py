"""``python -m critic.suites COMMAND SUITE key=value ...``: the field's suites in and out of the critic.

Commands (``SUITE`` is one of ``conf/suite/``: ``videophy2``, ``videophy2_captions``, ``vbench2``, ``dsg``,
``physics_iq``):

* ``import SUITE path=FILE [out=manifest.jsonl] [videos=DIR] [limit=N]``: the suite's rows as the critic's batch
  manifest (``python -m critic manifest=...``), each line with the suite's expectations (``expect``); rows that
  are malformed or name something the suite does not know are reported with their line and left out.
* ``export SUITE verdicts=RUN/verdicts.jsonl [manifest=...] [out=FILE]``: the critic's verdicts as the suite's
  labels. The manifest defaults to the one the critic run read (its ``.hydra/config.yaml``).
* ``agree SUITE verdicts=... [manifest=...] [out=DIR]``: ``agreement.json`` / ``.md``, the critic's states against
  the suite's labels (VideoPhy-2), with every disagreement and its packets.
* ``coverage SUITE path=FILE [half=dev|held_out|all] [out=DIR]``: ``coverage.json`` / ``.md`` and
  ``prompts.jsonl``, the planner on the suite's prompts (``critic/planner=...`` picks the planner): typed and
  instrumented shares on all prompts, the physics prompts and each group, per half; the suite's typed expectations
  recovered as operations; the unplanned words and constructions ranked.

Files go to ``out`` or the run directory ``outputs/suites/<date>/<time>/`` (with ``manifest.json``). The two
leading words are shorthand for ``command=... suite=...``. Paths with commas must be quoted for Hydra
(``'path="a,b.csv"'``). Exit code 2 for a user's error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from critic.suites.base import Suite, import_suite, manifest_of_run
from critic.suites.coverage import check_half, coverage_table
from critic.suites.run import build, export_verdicts, write_agreement, write_coverage
from veriphy.errors import EXIT_USER_ERROR, UserError, check_int
from veriphy.hydra_app import CONFIG_PATH, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest

CONF = Path(__file__).resolve().parents[2] / "conf"
COMMANDS = ("import", "export", "agree", "coverage")


def _path(cfg: DictConfig, key: str) -> Path:
    if cfg.get(key) is None:
        raise UserError(f"give {key}=...", field=key)
    return Path(str(cfg[key]))


def _out(cfg: DictConfig, default: Path) -> Path:
    return Path(str(cfg.out)) if cfg.get("out") is not None else default


def _manifest(cfg: DictConfig, verdicts: Path) -> Path:
    manifest = Path(str(cfg.manifest)) if cfg.get("manifest") is not None else manifest_of_run(verdicts)
    if manifest is None:
        raise UserError("give manifest=... (the suite manifest the critic read; no .hydra/config.yaml beside "
                        "the verdicts names it)", field="manifest")
    return manifest


def cmd_import(cfg: DictConfig, suite: Suite, run_dir: Path) -> None:
    path = _path(cfg, "path")
    out = _out(cfg, run_dir / "manifest.jsonl")
    videos = Path(str(cfg.videos)) if cfg.get("videos") is not None else None
    limit = None if cfg.get("limit") is None else check_int(cfg.limit, field="limit", minimum=1)
    result = import_suite(suite, path, out, videos, limit)
    write_manifest(run_dir, stage="suites", inputs={"path": path, "manifest": out},
                   extra={"command": "import", "suite": suite.name, "items": len(result.items),
                          "rows_left_out": len(result.problems)})
    print(f"{len(result.items)} {suite.name} manifest lines, {len(result.problems)} rows left out: {out}")


def cmd_export(cfg: DictConfig, suite: Suite, run_dir: Path) -> None:
    if suite.export_name is None:
        raise UserError(f"{suite.name} has no label format to export verdicts to", field="command")
    verdicts = _path(cfg, "verdicts")
    manifest = _manifest(cfg, verdicts)
    out = _out(cfg, run_dir / suite.export_name)
    counts = export_verdicts(suite, manifest, verdicts, out)
    write_manifest(run_dir, stage="suites", inputs={"verdicts": verdicts, "manifest": manifest, "export": out},
                   extra={"command": "export", "suite": suite.name, **counts})
    print(f"{counts['items']} items, {counts['not_critiqued']} not critiqued (no verdict line, or an error): {out}")


def cmd_agree(cfg: DictConfig, suite: Suite, run_dir: Path) -> None:
    verdicts = _path(cfg, "verdicts")
    manifest = _manifest(cfg, verdicts)
    out_dir = _out(cfg, run_dir)
    report = write_agreement(suite, manifest, verdicts, out_dir)
    write_manifest(run_dir, stage="suites", inputs={"verdicts": verdicts, "manifest": manifest},
                   extra={"command": "agree", "suite": suite.name, "agree": report.agree,
                          "labelled": report.labelled})
    print((out_dir / "agreement.md").read_text())


def cmd_coverage(cfg: DictConfig, suite: Suite, run_dir: Path) -> None:
    path = _path(cfg, "path")
    half = check_half(str(cfg.half))
    top = check_int(cfg.top, field="top", minimum=0)
    result = suite.read(path)
    for problem in result.problems:
        print(f"error: {problem.message}", file=sys.stderr)
    planner = build(cfg.critic.planner, "critic.planner")
    out_dir = _out(cfg, run_dir)
    report = write_coverage(suite, result.items, planner, out_dir, half=half, source=str(path), top=top,
                            progress=bool(cfg.progress))
    write_manifest(run_dir, stage="suites", inputs={"path": path},
                   extra={"command": "coverage", "suite": suite.name, "half": report.half, "prompts": report.prompts})
    print(coverage_table([report]), end="")
    print(f"coverage: {out_dir / 'coverage.md'}")


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="suites_app")
@exit_on_user_error
def main(cfg: DictConfig) -> None:
    commands = {"import": cmd_import, "export": cmd_export, "agree": cmd_agree, "coverage": cmd_coverage}
    if cfg.get("command") not in commands:
        raise UserError(f"the command must be one of {', '.join(COMMANDS)} (python -m critic.suites COMMAND SUITE "
                        "key=value ...)", field="command")
    if cfg.get("suite") is None:
        raise UserError(f"no suite: python -m critic.suites {cfg.command} SUITE ... with SUITE one of "
                        f"{', '.join(suite_names())}", field="suite")
    commands[cfg.command](cfg, build(cfg.suite, "suite"), hydra_run_dir())


def suite_names() -> list[str]:
    return sorted(p.stem for p in (CONF / "suite").glob("*.yaml"))


def with_positionals(argv: list[str]) -> list[str]:
    """``import videophy2 path=...`` -> ``command=import suite=videophy2 path=...`` (only the leading words)."""
    out, names = [], ["command", "suite"]
    for k, arg in enumerate(argv):
        if names and "=" not in arg and not arg.startswith("-"):
            out.append(f"{names.pop(0)}={arg}")
        else:
            return out + argv[k:]
    return out


def cli(argv: list[str] | None = None) -> None:
    """``python -m critic.suites COMMAND SUITE key=value ...`` (``argv``: default the command line's)."""
    args = with_positionals(sys.argv[1:] if argv is None else list(argv))
    suite = next((a.split("=", 1)[1] for a in args if a.startswith("suite=")), None)
    if suite is not None and suite not in suite_names():
        print(f"error: suite: unknown suite {suite!r} (known: {', '.join(suite_names())})", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)
    run_app(main, args)


if __name__ == "__main__":
    cli()
