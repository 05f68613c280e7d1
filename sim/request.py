"""A *physics request*: what a scene must do, as a YAML file or a ``conf/request/`` config.

```yaml
name: throw_to_target
text: Throw the red ball so that it lands on the green mark at x = 2 m.   # free text for an LLM author
scene:                                  # a scene template and its fixed arguments
  _target_: sim.scenes.thrown_ball
  launch_height_m: 1.0
free_parameters:                        # template keywords an author may change, with bounds
  - {name: launch_speed_mps, low: 1.0, high: 12.0, initial: 6.5}
  - {name: launch_angle_deg, low: 10.0, high: 75.0, initial: 45.0}
predicates:
  - {kind: lands_in_region, object: ball, x_range_m: [1.98, 2.02]}
```

The spec of a revision is ``scene._target_(**fixed_args, **free_values)``; so an author's output is a patch
of the free parameters, always inside their bounds.
"""

from __future__ import annotations

import inspect
import math
import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sim.predicates import Predicate, check_names
from sim.scenes import SCENE_TEMPLATES
from veriphy.errors import user_error_from_validation, UserError
from sim.types import SceneSpec, require_unique


def resolve_callable(path: str):
    """The registered scene template ``path`` names (``sim.scenes.SCENE_TEMPLATES``). A request or spec file is
    data: its ``_target_`` picks one of the project's scene templates and can never import or call anything
    else, so any other name is refused here, before anything runs."""
    fn = SCENE_TEMPLATES.get(str(path))
    if fn is None:
        raise ValueError(f"_target_ {path!r} is not a scene template; known: {', '.join(sorted(SCENE_TEMPLATES))}")
    return fn


def scene_from_config(node: Any, *, file: str | os.PathLike | None = None, field: str = "scene") -> SceneSpec:
    """The spec of a scene config node ``{_target_: sim.scenes.NAME, kwarg: value, ...}``: the template is
    looked up in the registry (never imported) and a bad node is a :class:`UserError` naming ``file``."""
    if not isinstance(node, dict):
        raise UserError(f"expected a scene template mapping ({{_target_: sim.scenes.NAME, ...}}), got {node!r}",
                        file=file, field=field)
    try:
        template = SceneTemplate.model_validate(node)
    except ValidationError as exc:
        err = user_error_from_validation(exc, file=file)
        raise UserError(err.reason, file=file, field=f"{field}.{err.field}" if err.field else field) from None
    return template.build({}, file=file)


class SceneTemplate(BaseModel):
    """A scene template (``_target_``: a function returning a SceneSpec) and its fixed keyword arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    target: str = Field(alias="_target_")
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("target")
    @classmethod
    def _registered(cls, target: str) -> str:
        resolve_callable(target)  # refuse an unknown target while validating, before any call
        return target

    @model_validator(mode="before")
    @classmethod
    def _split_args(cls, data):
        # The YAML node is flat ({_target_: ..., kwarg: value}); keep the kwargs under ``args``.
        if isinstance(data, dict) and "args" not in data:
            target = data.get("_target_", data.get("target"))
            args = {k: v for k, v in data.items() if k not in ("_target_", "target")}
            return {"_target_": target, "args": args}
        return data

    @model_validator(mode="after")
    def _check(self):
        fn = resolve_callable(self.target)
        params = inspect.signature(fn).parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            unknown = sorted(set(self.args) - set(params))
            if unknown:
                raise ValueError(f"{self.target} takes no argument(s) {unknown}; it takes {sorted(params)}")
        return self

    def parameter_names(self) -> set[str]:
        return set(inspect.signature(resolve_callable(self.target)).parameters)

    def default(self, name: str) -> Any:
        """The value of ``name`` in ``args``, else the template's default."""
        if name in self.args:
            return self.args[name]
        p = inspect.signature(resolve_callable(self.target)).parameters.get(name)
        return None if p is None or p.default is inspect.Parameter.empty else p.default

    def build(self, values: dict[str, float], *, file: str | os.PathLike | None = None) -> SceneSpec:
        """The spec for the fixed args overridden by ``values``; a bad value is a UserError."""
        fn = resolve_callable(self.target)
        try:
            spec = fn(**{**self.args, **values})
        except ValidationError as exc:
            # The template built a model from its arguments: name both the template and the model's field.
            err = user_error_from_validation(exc, file=file)
            inner = f"{exc.title}.{err.field}" if err.field else exc.title
            raise UserError(err.reason, file=file, field=f"scene ({self.target} -> {inner})") from None
        except (ValueError, TypeError) as exc:
            raise UserError(str(exc), file=file, field=f"scene ({self.target})") from None
        if not isinstance(spec, SceneSpec):
            raise UserError(f"{self.target} returned {type(spec).__name__}, not a SceneSpec", file=file, field="scene")
        return spec


class FreeParameter(BaseModel):
    """A template keyword an author may change within ``[low, high]`` (units in the name, e.g. ``_mps``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    low: float
    high: float
    initial: float | None = Field(None, description="first value; default: the scene's value")
    description: str = ""

    @model_validator(mode="after")
    def _check(self):
        for field in ("low", "high", "initial"):
            v = getattr(self, field)
            if v is not None and not math.isfinite(v):
                raise ValueError(f"{field} must be finite, got {v}")
        if not self.low < self.high:
            raise ValueError(f"bounds inverted or empty: low {self.low} >= high {self.high}")
        if self.initial is not None and not self.low <= self.initial <= self.high:
            raise ValueError(f"initial {self.initial} outside [{self.low}, {self.high}]")
        return self


class PhysicsRequest(BaseModel):
    """A scene template, its free parameters and the predicates the scene must satisfy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "request"
    text: str = Field("", description="free text describing the wanted motion (for an LLM author)")
    scene: SceneTemplate
    free_parameters: tuple[FreeParameter, ...] = ()
    predicates: tuple[Predicate, ...] = Field(min_length=1)

    @field_validator("free_parameters")
    @classmethod
    def _unique(cls, params):
        require_unique([p.name for p in params], "free parameter")
        return params

    @model_validator(mode="after")
    def _check(self):
        known = self.scene.parameter_names()
        for i, p in enumerate(self.free_parameters):
            if p.name not in known:
                raise ValueError(f"free_parameters.{i}.name: {self.scene.target} has no parameter {p.name!r}; "
                                 f"it has {sorted(known)}")
            if p.initial is None:
                value = self.scene.default(p.name)
                if not isinstance(value, (int, float)) or not p.low <= float(value) <= p.high:
                    raise ValueError(f"free_parameters.{i}: the scene's value {value!r} for {p.name} is outside "
                                     f"[{p.low}, {p.high}]; give initial")
        return self

    @classmethod
    def from_mapping(cls, data: dict[str, Any], *, file: str | os.PathLike | None = None) -> "PhysicsRequest":
        """Validate a mapping (parsed YAML or a Hydra node) and check it builds a scene whose names match
        the predicates. Mistakes become a UserError naming ``file`` and the field."""
        try:
            request = cls.model_validate(data)
        except ValidationError as exc:
            raise user_error_from_validation(exc, file=file) from None
        spec = request.build_spec(request.initial_values(), file=file)
        problems = check_names(request.predicates, spec)
        if problems:
            field, _, reason = problems[0].partition(": ")
            raise UserError(reason, file=file, field=field)
        return request

    def initial_values(self) -> dict[str, float]:
        return {p.name: float(p.initial if p.initial is not None else self.scene.default(p.name))
                for p in self.free_parameters}

    def clip(self, values: dict[str, float]) -> dict[str, float]:
        """``values`` limited to the free parameters' bounds (unknown names dropped)."""
        out = {}
        for p in self.free_parameters:
            v = float(values.get(p.name, self.initial_values()[p.name]))
            out[p.name] = min(max(v, p.low), p.high)
        return out

    def build_spec(self, values: dict[str, float], *, file: str | os.PathLike | None = None) -> SceneSpec:
        return self.scene.build(values, file=file)
