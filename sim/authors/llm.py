"""An LLM author behind any OpenAI-compatible endpoint (vLLM, llama.cpp server, Ollama, ...).

The model sees the request's free text, the free parameters with their bounds, and every solve so far
(values -> summary of the predicate report). It must answer with a JSON *parameter patch* constrained by a
JSON schema (``response_format`` ``json_schema``); the reply is validated with pydantic (bounds included).
An invalid reply is logged and retried with the validation error fed back; an endpoint that is down or
keeps replying nonsense hands the revision to the ``fallback`` author. Every attempt goes into the
proposal's log, so the revision log keeps it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from sim.authors.base import Attempt, Author, Proposal
from sim.request import PhysicsRequest

SYSTEM_PROMPT = (
    "You revise the free parameters of a rigid-body physics scene so that every predicate holds. "
    "Each solve shows the parameter values and what went wrong, with numbers. Physics: no air drag, "
    "g = 9.81 m/s^2 downwards, z is up. Reply with JSON only: "
    '{"parameters": {<name>: <number within its bounds>, ...}, "rationale": "<one sentence>"}.'
)


def patch_model(request: PhysicsRequest) -> type[BaseModel]:
    """The pydantic model of a valid reply: every free parameter, within its bounds, nothing else."""
    fields: dict[str, Any] = {
        p.name: (float, Field(ge=p.low, le=p.high, description=p.description or p.name))
        for p in request.free_parameters
    }
    params = create_model("ParameterPatch", __config__=ConfigDict(extra="forbid"), **fields)
    return create_model("Reply", __config__=ConfigDict(extra="forbid"), parameters=(params, ...),
                        rationale=(str, ""))


def patch_schema(request: PhysicsRequest) -> dict[str, Any]:
    """JSON schema for ``response_format`` (strict: all properties required, no others)."""
    props = {p.name: {"type": "number", "minimum": p.low, "maximum": p.high,
                      "description": p.description or p.name} for p in request.free_parameters}
    return {
        "type": "object",
        "properties": {
            "parameters": {"type": "object", "properties": props, "required": list(props),
                           "additionalProperties": False},
            "rationale": {"type": "string"},
        },
        "required": ["parameters", "rationale"],
        "additionalProperties": False,
    }


def _strip_fences(text: str) -> str:
    m = re.search(r"```(?:json)?\s*(.*?)```", text, flags=re.S)
    return m.group(1) if m else text


def user_prompt(request: PhysicsRequest, history: list[Attempt]) -> str:
    fixed = ", ".join(f"{k}={v}" for k, v in sorted(request.scene.args.items()))
    lines = [f"Request: {request.text or request.name}",
             f"Scene: {request.scene.target}({fixed})", "", "Free parameters (name: bounds):"]
    lines += [f"- {p.name}: [{p.low}, {p.high}]" + (f" ({p.description})" if p.description else "")
              for p in request.free_parameters]
    lines += ["", "Predicates:"] + [f"- {p.model_dump_json(exclude_none=True)}" for p in request.predicates]
    lines += ["", "Solves so far:"]
    for a in history:
        values = ", ".join(f"{k}={v:.4g}" for k, v in a.values.items())
        lines.append(f"{a.index}. {values} -> {a.summary}")
    lines += ["", "Give the next parameter values."]
    return "\n".join(lines)


class LLMAuthor:
    """``base_url``/``model``/``api_key`` of an OpenAI-compatible server; ``max_attempts`` replies per
    revision before the ``fallback`` author (any author, e.g. ``NumericAuthor``) takes over."""

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key: str = "EMPTY",
                 max_attempts: int = 3, timeout_s: float = 60.0, temperature: float = 0.0,
                 fallback: Author | None = None, use_json_schema: bool = True, name: str = "llm"):
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self.max_attempts = int(max_attempts)
        self.timeout_s = float(timeout_s)
        self.temperature = float(temperature)
        self.fallback = fallback
        self.use_json_schema = bool(use_json_schema)
        self.name = name
        self._client = None

    def _get_client(self):
        if self._client is None:
            import openai  # imported on first use: instantiating the author stays cheap

            # Retries are ours (with the error fed back), not the client's.
            self._client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s,
                                         max_retries=0)
        return self._client

    def _ask(self, messages: list[dict[str, str]], request: PhysicsRequest) -> str:
        kwargs: dict[str, Any] = {}
        if self.use_json_schema:
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": "parameter_patch", "strict": True,
                                                         "schema": patch_schema(request)}}
        resp = self._get_client().chat.completions.create(model=self.model, messages=messages,
                                                          temperature=self.temperature, **kwargs)
        content = resp.choices[0].message.content if resp.choices else None
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"no reply text in the response ({str(resp)[:200]})")
        return content

    def propose(self, request: PhysicsRequest, history: list[Attempt]) -> Proposal:
        import openai

        reply_model = patch_model(request)
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": user_prompt(request, history)}]
        log: list[dict[str, Any]] = []
        for attempt in range(1, self.max_attempts + 1):
            entry: dict[str, Any] = {"author": self.name, "attempt": attempt, "model": self.model,
                                     "base_url": self.base_url}
            try:
                content = self._ask(messages, request)
            # A server that is down, times out, or answers with something that is not a chat completion.
            except (openai.OpenAIError, ValueError, TypeError, AttributeError, IndexError, KeyError) as exc:
                entry.update(ok=False, error=f"{type(exc).__name__}: {exc}")
                log.append(entry)
                continue
            entry["reply"] = content[:4000]
            try:
                reply = reply_model.model_validate(json.loads(_strip_fences(content)))
            except (json.JSONDecodeError, ValidationError) as exc:
                reason = str(exc).splitlines()[0] if isinstance(exc, json.JSONDecodeError) else \
                    "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
                entry.update(ok=False, error=f"invalid reply: {reason}")
                log.append(entry)
                # Repair: show the model its reply and what was wrong with it.
                messages += [{"role": "assistant", "content": content[:4000]},
                             {"role": "user", "content": f"That reply was invalid ({reason}). Reply with JSON "
                                                         "matching the schema, values within bounds."}]
                continue
            entry["ok"] = True
            log.append(entry)
            values = request.clip(reply.parameters.model_dump())
            return Proposal(values=values, message=reply.rationale or "(no rationale)", author=self.name,
                            log=tuple(log))
        if self.fallback is None:
            return Proposal(values=dict(history[-1].values), author=self.name, log=tuple(log),
                            message=f"no valid reply in {self.max_attempts} attempt(s) and no fallback; unchanged")
        fb = self.fallback.propose(request, history)
        return Proposal(values=fb.values, author=f"{self.name}->{fb.author}", log=tuple(log) + fb.log,
                        message=f"fallback after {self.max_attempts} failed attempt(s): {fb.message}")
