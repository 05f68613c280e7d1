"""``python -m sim``: run the revision loop on a physics request (or solve one scene) and write
``scene.json``, ``trajectory.npz``, ``predicates.json``, ``revisions.jsonl`` and ``manifest.json`` into the
Hydra run directory. See ``conf/sim_app.yaml`` for the modes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf
from pydantic import TypeAdapter, ValidationError

from sim.engine import simulate, spec_sha256
from sim.io import load_request, load_spec, save_spec, save_trajectory
from sim.predicates import Predicate, check_names, evaluate
from sim.request import PhysicsRequest, scene_from_config
from sim.revise import run_revision_loop
from sim.summarize import summarize
from veriphy.errors import UserError, check_int, user_error_from_validation
from veriphy.files import write_json
from veriphy.hashing import sha256_file
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"


_STOP_WORDS = {"budget": "budget spent", "repeated": "the author proposed a spec it had already solved",
               "no_improvement": "no improvement on the best solve within patience", "converged": "converged"}


def _group_file(group: str) -> str:
    """The YAML file a config group option came from (for error messages)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        choice = HydraConfig.get().runtime.choices.get(group)
    except Exception:  # not running under Hydra
        choice = None
    return f"conf/{group}/{choice}.yaml" if choice else f"{group} config"


def _instantiate(node: Any, group: str):
    """``hydra.utils.instantiate`` with a user error (file, field, reason) for a bad config value."""
    try:
        return hydra.utils.instantiate(node)
    except Exception as exc:  # Hydra wraps the target's exception in InstantiationException
        cause = exc
        while cause.__cause__ is not None and not isinstance(cause, ValidationError):
            cause = cause.__cause__
        if isinstance(cause, ValidationError):
            raise user_error_from_validation(cause, file=_group_file(group)) from None
        raise UserError(str(cause).splitlines()[0], file=_group_file(group)) from None


def _predicates(cfg: DictConfig, file: str):
    try:
        return TypeAdapter(tuple[Predicate, ...]).validate_python(OmegaConf.to_container(cfg.predicates, resolve=True))
    except ValidationError as exc:
        raise user_error_from_validation(exc, file=file) from None


def _write_outputs(run_dir: Path, spec, traj, report, extra: dict[str, Any]) -> None:
    save_spec(spec, run_dir / "scene.json")
    save_trajectory(traj, run_dir / "trajectory.npz")
    write_json(run_dir / "predicates.json", {
        "report": report.model_dump(mode="json"),
        "summary": summarize(report),
        "all_hold": report.all_hold,
        "spec_sha256": spec_sha256(spec),
        "trajectory_sha256": sha256_file(run_dir / "trajectory.npz"),
        **extra,
    })


def run(cfg: DictConfig) -> int:
    """The task body; returns the process exit code (0 when every predicate holds, 1 otherwise)."""
    configure_threads(cfg.get("num_threads"), only_if_imported=True)  # sim itself never uses torch
    # Plain values first: a mistake must not surface after the solves.
    budget = check_int(cfg.budget, field="budget", file="sim_app", minimum=1)
    patience = None if cfg.get("patience") is None else check_int(cfg.patience, field="patience", file="sim_app",
                                                                  minimum=1)
    run_dir = hydra_run_dir()
    settings = _instantiate(cfg.sim, "sim")
    inputs: dict[str, str] = {}

    if cfg.get("spec_file") or cfg.get("scene") is not None:
        # One solve of a given spec or scene template, checked against cfg.predicates.
        if cfg.get("spec_file"):
            spec, source = load_spec(cfg.spec_file), str(cfg.spec_file)
            inputs["spec"] = cfg.spec_file
        else:
            source = _group_file("scene")
            spec = scene_from_config(OmegaConf.to_container(cfg.scene, resolve=True), file=source)
        predicates = _predicates(cfg, "predicates (sim_app)")
        problems = check_names(predicates, spec)
        if problems:
            field, _, reason = problems[0].partition(": ")
            raise UserError(reason, file="predicates (sim_app)", field=field)
        traj = simulate(spec, progress=bool(cfg.progress), settings=settings)
        report = evaluate(predicates, spec, traj)
        _write_outputs(run_dir, spec, traj, report, {"source": source})
        summary = summarize(report) if predicates else f"trajectory status: {traj.status}"
        ok = traj.ok and report.all_hold
    else:
        if cfg.get("request_file"):
            request = load_request(cfg.request_file)
            inputs["request"] = cfg.request_file
        else:
            source = _group_file("request")
            request = PhysicsRequest.from_mapping(OmegaConf.to_container(cfg.request, resolve=True), file=source)
            if (CONF_DIR.parent / source).is_file():
                inputs["request"] = str(CONF_DIR.parent / source)
        author = _instantiate(cfg.author, "author")
        result = run_revision_loop(request, author, budget, run_dir, settings=settings, progress=bool(cfg.progress),
                                   patience=patience)
        # The best spec found and its predicates, whatever ended the loop.
        _write_outputs(run_dir, result.spec, result.trajectory, result.report,
                       {"request": request.name, "converged": result.converged, "solves": result.solves,
                        "values": result.values, "stop_reason": result.stop_reason})
        summary = summarize(result.report)
        summary += (f"\n{'converged' if result.converged else 'not converged'} after {result.solves} solve(s)"
                    + ("" if result.converged else f" ({_STOP_WORDS[result.stop_reason]})"))
        ok = result.converged
    write_manifest(run_dir, stage="sim", inputs=inputs)
    print(summary)
    print(f"outputs: {run_dir}")
    return 0 if ok else 1


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="sim_app")
@exit_on_user_error
def _hydra_main(cfg: DictConfig) -> None:
    code = run(cfg)
    # Unmet predicates are a result, not an error (a sweep goes on); ``strict=true`` makes them exit 1.
    if code and cfg.get("strict", False):
        sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """``python -m sim [key=value ...]`` (``argv``: the arguments, default the command line's)."""
    run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
