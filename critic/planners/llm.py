"""LLM planner: any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, a hosted API).

The response format is the Plan's JSON schema. The answer is parsed and statically validated; when it fails,
the reasons go back to the model as a repair request, up to ``max_repairs`` times; a plan that still fails
is rejected (``PlanResult.plan is None`` with the reasons) and never executed. The model sees the prompt
(and accepted lessons from memory M), never the clip. Implicit obligations are added mechanically after
validation, exactly as for the rules planner.
"""

from __future__ import annotations

import json
import re
from typing import Any

from critic.plan import PlanError, check_plan, parse_plan
from critic.planners.base import PlanBuilder, PlanResult, check_implicit
from critic.planners.rules import RulesPlanner
from critic.types import (IMPLICIT_QUANTITIES, OP_EVENTS, OP_NAMES, QUANTITIES, QUANTITY_SPECS, Cost, GroundOp,
                          Plan)

SYSTEM = """You turn a video-generation prompt into a verification plan (JSON, the given schema).
Claims: each physical statement of the prompt, with "span" = [start, end) character offsets into the prompt
and "text" = prompt[start:end]. Subjects: every physical object ("name" unique, "noun", optional "color",
"size", "count"). Operations ("op"): {ops}. Every subject used by an operation needs one "ground"
operation. measure.quantity is one of: {quantities}. Temporal operations (before, contains, during) take
two event references {{"op": <operation id>, "event": <name>}}; event names produced: {events}.
Obligations link a claim to the id of the operation that checks it ("check"); ground cannot be a check.
Every claim needs an obligation; every operation must serve a claim. Answer with the JSON plan only."""


def _events_doc() -> str:
    parts = [f"measure {q}: {', '.join(spec.events)}" for q, spec in QUANTITY_SPECS.items() if spec.events]
    parts += [f"{op}: {', '.join(e)}" for op, e in OP_EVENTS.items()]
    return "; ".join(parts)


def example_plan() -> str:
    """A worked example for the model: the rules planner's plan of a short prompt (implicit claims left out,
    they are added after validation)."""
    plan = RulesPlanner(implicit=()).plan("A red ball falls, then bounces twice on the floor.").plan
    def compact(x):
        if isinstance(x, dict):
            return {k: compact(v) for k, v in x.items() if v is not None}
        return [compact(v) for v in x] if isinstance(x, list) else x

    return json.dumps(compact(plan.model_dump(mode="json", exclude={"planner", "notes", "unplanned"})),
                      separators=(",", ":"))


def fix_spans(data: dict[str, Any], prompt: str) -> dict[str, Any]:
    """Models miscount characters: where a claim's text occurs in the prompt, take its offsets from there."""
    data = dict(data)
    data["prompt"] = prompt  # the plan is about this prompt, whatever the model echoed
    data.pop("unplanned", None)  # which clauses no claim covers is measured from the claims, not taken from the model
    claims = []
    for c in data.get("claims") or []:
        if isinstance(c, dict) and isinstance(c.get("text"), str):
            span = c.get("span")
            ok = isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(x, int) for x in span) \
                and prompt[span[0]:span[1]] == c["text"]
            i = prompt.lower().find(c["text"].lower()) if c["text"] else -1
            if not ok and i >= 0:
                c = {**c, "span": [i, i + len(c["text"])]}
        claims.append(c)
    data["claims"] = claims
    return data


class LLMPlanner:
    """Plan with a chat model behind an OpenAI-compatible endpoint. Construction opens no connection."""

    name = "llm"

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key: str = "none",
                 max_repairs: int = 2, temperature: float = 0.0, timeout_s: float = 120.0, max_tokens: int = 4096,
                 implicit: list[str] | tuple[str, ...] = IMPLICIT_QUANTITIES,
                 response_format: str = "json_schema", max_retries: int = 1):
        self.base_url, self.model, self.api_key = base_url, model, api_key
        self.max_repairs, self.temperature, self.timeout_s = max_repairs, temperature, timeout_s
        self.max_tokens, self.implicit, self.response_format = max_tokens, check_implicit(implicit), response_format
        self.max_retries = max_retries
        self._client = None

    def _chat(self, messages: list[dict[str, str]]) -> str:
        if self._client is None:
            from openai import OpenAI  # here, not at the top: its import takes ~0.6 s and only an endpoint needs it

            self._client = OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s,
                                  max_retries=self.max_retries)
        fmt: dict[str, Any] = {"type": "json_object"}
        if self.response_format == "json_schema":
            fmt = {"type": "json_schema", "json_schema": {"name": "plan", "schema": Plan.model_json_schema()}}
        out = self._client.chat.completions.create(model=self.model, messages=messages, temperature=self.temperature,
                                                   max_tokens=self.max_tokens, response_format=fmt)
        return out.choices[0].message.content or ""

    def plan(self, prompt: str, lessons: list[Any] | None = None) -> PlanResult:
        system = SYSTEM.format(ops=", ".join(OP_NAMES), quantities=", ".join(QUANTITIES), events=_events_doc())
        system += "\nExample:\n" + example_plan()
        user = f"Prompt: {json.dumps(prompt)}"
        if lessons:
            user += "\nLessons (also check these where they apply):\n" + "\n".join(
                f"- when the prompt matches /{lesson.trigger}/: measure {lesson.quantity} ({lesson.text})"
                for lesson in lessons)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        transcript: list[dict[str, Any]] = []
        reasons: list[str] = []
        calls = 0
        for attempt in range(1, self.max_repairs + 2):
            try:
                content = self._chat(messages)
            except Exception as exc:  # the endpoint is down or refused: reject, do not guess
                reasons = [f"endpoint error: {type(exc).__name__}: {exc}"]
                transcript.append({"attempt": attempt, "error": reasons[0]})
                break
            calls += 1
            try:
                data = json.loads(_strip_fences(content))
                if not isinstance(data, dict):
                    raise PlanError(["a plan must be a JSON object"])
                plan = check_plan(parse_plan(fix_spans(data, prompt)))
                transcript.append({"attempt": attempt, "valid": True})
                plan = self._with_implicit(plan)
                return PlanResult(plan=plan, cost=Cost(model_calls=calls), attempts=attempt,
                                  rejected=tuple(reasons), transcript=tuple(transcript))
            except json.JSONDecodeError as exc:
                reasons = [f"not valid JSON: {exc.msg}"]
            except PlanError as exc:
                reasons = exc.reasons
            transcript.append({"attempt": attempt, "valid": False, "reasons": reasons})
            messages += [{"role": "assistant", "content": content},
                         {"role": "user", "content": "The plan is invalid:\n- " + "\n- ".join(reasons)
                          + "\nReturn the corrected plan as JSON."}]
        return PlanResult(plan=None, cost=Cost(model_calls=calls), attempts=len(transcript),
                          rejected=tuple(reasons), transcript=tuple(transcript))

    def _with_implicit(self, plan: Plan) -> Plan:
        b = PlanBuilder.from_plan(plan)
        for s in plan.subjects:
            if any(isinstance(op, GroundOp) and op.subject == s.name for op in plan.operations):
                b.add_implicit(s.name, self.implicit)
        b.add_scene(self.implicit)
        return b.build(plan.planner or self.name)


def _strip_fences(text: str) -> str:
    """Some servers wrap JSON in a Markdown code fence even when asked for JSON."""
    m = re.search(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    return m.group(1) if m else text
