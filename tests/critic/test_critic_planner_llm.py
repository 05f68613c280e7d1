"""LLM planner against a scripted OpenAI-compatible server.

The "model" here is a small HTTP server started inside this test on 127.0.0.1: it answers each chat request
with the next scripted plan (no language model is involved). It checks that the planner sends the Plan's
JSON schema as the response format and the prompt only; that a valid plan is accepted; that an invalid plan
(unknown operation, unbound subject) is sent back with the reasons and repaired; and that a plan that stays
invalid is rejected and never executed.
"""

import json
import os
import sys
from pathlib import Path

import pytest

from critic.planners.llm import LLMPlanner
from critic.run import CriticComponents, critique
from critic.testing import FakeGrounder, ScriptedSpecialist, fake_video

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openai_stub import ScriptedServer  # noqa: E402

PROMPT = "A red ball falls, then bounces."

VALID = {
    "prompt": PROMPT,
    "subjects": [{"name": "ball", "noun": "ball", "color": "red"}],
    "claims": [{"id": "c1", "text": "A red ball falls", "span": [0, 16]},
               {"id": "c2", "text": "bounces", "span": [3, 10]},  # wrong offsets: fixed from the text
               {"id": "c3", "text": "A red ball falls, then bounces", "span": [0, 30]}],
    "obligations": [{"id": "c1.1", "claim": "c1", "check": "o2"}, {"id": "c2.1", "claim": "c2", "check": "o3"},
                    {"id": "c3.1", "claim": "c3", "check": "o4"}],
    "operations": [{"id": "o1", "op": "ground", "subject": "ball"},
                   {"id": "o2", "op": "measure", "subject": "ball", "quantity": "free_fall"},
                   {"id": "o3", "op": "measure", "subject": "ball", "quantity": "bounce"},
                   {"id": "o4", "op": "before", "a": {"op": "o2", "event": "airborne"},
                    "b": {"op": "o3", "event": "contact"}}],
}
UNKNOWN_OP = json.loads(json.dumps(VALID))
UNKNOWN_OP["operations"][1] = {"id": "o2", "op": "gravity_meter", "subject": "ball"}
UNBOUND = json.loads(json.dumps(VALID))
UNBOUND["operations"] = [o for o in UNBOUND["operations"] if o["op"] != "ground"]
UNBOUND["operations"][0]["subject"] = "ghost"


def planner(url, **kw):
    return LLMPlanner(base_url=url, model="scripted", timeout_s=10, **kw)


def test_valid_plan_accepted_with_schema_and_prompt_only():
    with ScriptedServer([VALID]) as srv:
        r = planner(srv.base_url).plan(PROMPT)
    assert r.plan is not None and r.attempts == 1 and r.cost.model_calls == 1
    req = srv.requests[0]
    assert req["response_format"]["type"] == "json_schema"
    assert "operations" in req["response_format"]["json_schema"]["schema"]["properties"]
    assert PROMPT in req["messages"][-1]["content"]
    c2 = r.plan.claim("c2")
    assert r.plan.prompt[c2.span[0]:c2.span[1]] == "bounces"  # offsets repaired from the text
    # implicit obligations added mechanically for the grounded rigid subject
    assert {c.kind for c in r.plan.claims} == {"explicit", "implicit"}


def test_unknown_op_then_unbound_subject_repaired():
    with ScriptedServer([UNKNOWN_OP, UNBOUND, VALID]) as srv:
        r = planner(srv.base_url, max_repairs=2).plan(PROMPT)
    assert r.plan is not None and r.attempts == 3 and r.cost.model_calls == 3
    feedback = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "user"][-1]
    assert "unknown operation 'gravity_meter'" in feedback
    feedback = [m["content"] for m in srv.requests[2]["messages"] if m["role"] == "user"][-1]
    assert "subject 'ghost' is not declared" in feedback


def test_still_invalid_is_rejected_and_never_executed(tmp_path):
    with ScriptedServer([UNKNOWN_OP, UNBOUND, "this is not json"]) as srv:
        p = planner(srv.base_url, max_repairs=2)
        spec = ScriptedSpecialist({"default": {"state": "supported"}})
        ground = FakeGrounder()
        comp = CriticComponents(planner=p, specialists={"ground": ground, "measure": spec})
        v = critique("clip.mp4", PROMPT, comp, tmp_path, video=fake_video())
    assert v.verdict == "unknown" and v.reason.startswith("plan rejected")
    assert not spec.calls and not ground.calls
    rejected = json.loads((tmp_path / "plan_rejected.json").read_text())
    assert rejected["attempts"] == 3 and "not valid JSON" in rejected["reasons"][0]
    assert not (tmp_path / "plan.json").exists()
    assert v.cost.planner_model_calls == 3


def test_endpoint_down_is_rejected_not_guessed():
    r = LLMPlanner(base_url="http://127.0.0.1:9/v1", timeout_s=2, max_retries=0).plan(PROMPT)
    assert r.plan is None and "endpoint error" in r.rejected[0]


@pytest.mark.llm
def test_real_endpoint_plans_a_simple_prompt():
    """Against a real model server: VERIPHY_LLM_BASE_URL (and VERIPHY_LLM_MODEL) must be set."""
    url = os.environ.get("VERIPHY_LLM_BASE_URL")
    if not url:
        pytest.skip("VERIPHY_LLM_BASE_URL not set")
    r = LLMPlanner(base_url=url, model=os.environ.get("VERIPHY_LLM_MODEL", "default")).plan(PROMPT)
    assert r.plan is not None, r.rejected  # a validated plan (the rejection reasons say why not)
    explicit = [c for c in r.plan.claims if c.kind == "explicit"]
    assert explicit and all(r.plan.prompt[c.span[0]:c.span[1]] == c.text for c in explicit)
    assert any(op.op == "measure" for op in r.plan.operations)
