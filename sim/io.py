"""Read and write the ``sim`` artifacts: ``scene.json``, ``trajectory.npz``, physics requests.

User mistakes (missing file, bad YAML/JSON, unknown field, negative mass, NaN velocity, inverted bounds)
raise :class:`~veriphy.errors.UserError` naming the file, the field and the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import ValidationError

from sim.request import PhysicsRequest, scene_from_config
from sim.types import ContactEvent, SceneSpec, Trajectory, Window
from veriphy.errors import UserError, user_error_from_validation
from veriphy.files import atomic_write_bytes, dumps_json, load_npz, read_text, save_npz

TRAJECTORY_ARRAYS = ("t_s", "position_m", "orientation_xyzw", "linear_velocity_mps", "angular_velocity_radps",
                     "physics_t_s", "physics_position_m")


def read_mapping(path: str | os.PathLike) -> dict[str, Any]:
    """A JSON or YAML file (by suffix; YAML parses JSON too) that must hold a mapping."""
    path = Path(path)
    text = read_text(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise UserError(f"not valid YAML/JSON{where}: {getattr(exc, 'problem', exc)}", file=path) from None
    if not isinstance(data, dict):
        raise UserError(f"expected a mapping at the top level, got {type(data).__name__}", file=path)
    return data


def spec_from_mapping(data: dict[str, Any], *, file: str | os.PathLike | None = None) -> SceneSpec:
    """Validate a SceneSpec mapping, or build one from a template node ``{_target_: sim.scenes.X, ...}``."""
    if "_target_" in data:
        return scene_from_config(data, file=file)
    try:
        return SceneSpec.model_validate(data)
    except ValidationError as exc:
        raise user_error_from_validation(exc, file=file) from None


def load_spec(path: str | os.PathLike) -> SceneSpec:
    """Load a ``scene.json`` (or a YAML spec / scene-template config) as a validated :class:`SceneSpec`."""
    return spec_from_mapping(read_mapping(path), file=path)


def save_spec(spec: SceneSpec, path: str | os.PathLike) -> Path:
    """Write the spec as deterministic JSON (sorted keys)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (dumps_json(spec.model_dump(mode="json")) + "\n").encode())
    return path


def trajectory_meta(traj: Trajectory) -> dict[str, Any]:
    """The JSON part of a trajectory: names, contacts, windows, status, spec hash."""
    return {
        "object_names": list(traj.object_names),
        "contacts": [c.model_dump(mode="json") for c in traj.contacts],
        "windows": {k: v.model_dump(mode="json") for k, v in sorted(traj.windows.items())},
        "status": traj.status,
        "spec_sha256": traj.spec_sha256,
    }


def save_trajectory(traj: Trajectory, path: str | os.PathLike) -> Path:
    """``trajectory.npz``: the arrays (float64) plus a ``meta_json`` member (contacts, windows, status,
    object names, spec sha256). Same trajectory -> same bytes."""
    arrays = {name: np.asarray(getattr(traj, name)) for name in TRAJECTORY_ARRAYS}
    arrays["meta_json"] = np.array(dumps_json(trajectory_meta(traj), indent=None))
    return save_npz(path, **arrays)


def load_trajectory(path: str | os.PathLike) -> Trajectory:
    data = load_npz(path)
    missing = [n for n in (*TRAJECTORY_ARRAYS, "meta_json") if n not in data]
    if missing:
        raise UserError(f"not a trajectory file: missing members {missing}", file=path)
    try:
        meta = json.loads(str(data["meta_json"]))
        return Trajectory(
            object_names=tuple(meta["object_names"]),
            **{name: data[name] for name in TRAJECTORY_ARRAYS},
            contacts=tuple(ContactEvent.model_validate(c) for c in meta["contacts"]),
            windows={k: Window.model_validate(v) for k, v in meta["windows"].items()},
            status=meta["status"],
            spec_sha256=meta.get("spec_sha256", ""),
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise UserError(f"not a valid trajectory file ({exc})", file=path) from None


def load_request(path: str | os.PathLike):
    """Load a physics request (YAML) as a validated :class:`~sim.request.PhysicsRequest`."""
    return PhysicsRequest.from_mapping(read_mapping(path), file=path)
