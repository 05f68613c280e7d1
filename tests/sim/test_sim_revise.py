"""The revision loop with the numeric author and with the LLM author.

The LLM tests start a small OpenAI-compatible HTTP server on 127.0.0.1 *inside the test*; it answers
``/v1/chat/completions`` with scripted replies (no real model is involved), and records what it was sent.
"""

import json
import math
import socket
import sys
from pathlib import Path

import pytest

from sim.authors import LLMAuthor, NumericAuthor
from sim.engine import EngineSettings
from sim.io import load_request
from sim.revise import run_revision_loop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from openai_stub import ScriptedServer  # noqa: E402

CONF = Path(__file__).resolve().parents[2] / "conf" / "request"


@pytest.fixture(scope="module")
def throw_request():
    return load_request(CONF / "throw_to_target.yaml")


@pytest.fixture(scope="module")
def wall_first_request():
    return load_request(CONF / "throw_to_target_wall_first.yaml")


def _landing_x(result):
    return result.report.results[0].details["landing_x_m"]


def _read_log(run_dir):
    return [json.loads(line) for line in (run_dir / "revisions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("which", ["throw_request", "wall_first_request"])
def test_numeric_author_lands_on_target_within_three_solves(which, request, tmp_path):
    req = request.getfixturevalue(which)
    result = run_revision_loop(req, NumericAuthor(), budget=3, run_dir=tmp_path)
    assert result.converged and result.solves <= 3
    assert abs(_landing_x(result) - 2.0) <= 0.02
    log = _read_log(tmp_path)
    assert len(log) == result.solves
    first = log[0]
    assert first["proposed_by"] is None and not first["all_hold"]
    if which == "wall_first_request":
        assert "hit the wall first" in first["summary"]
        assert first["report"]["results"][0]["details"]["diverted_by"] == "wall"
    assert log[-1]["all_hold"] and log[-1]["proposed_by"]["author"] == "numeric"
    for line in log:
        assert {"spec", "spec_sha256", "trajectory", "report", "summary", "values"} <= set(line)


def test_numeric_author_secant_steps_without_a_model(throw_request):
    # Without the free-flight model the author probes, then takes secant steps on the measured residuals.
    result = run_revision_loop(throw_request, NumericAuthor(use_model=False), budget=8)
    assert result.converged and abs(_landing_x(result) - 2.0) <= 0.02


def test_budget_ends_the_loop_and_keeps_the_best(throw_request):
    result = run_revision_loop(throw_request, NumericAuthor(), budget=1)
    assert result.solves == 1 and not result.converged


# ------------------------------------------------------------------------------------------------
# The LLM author against a scripted OpenAI-compatible server (tests/openai_stub.py; replies fixed in advance).
# ------------------------------------------------------------------------------------------------


def _speed_for_target(x_target, angle_deg, height=1.0, radius=0.1, g=9.81):
    """Launch speed whose free flight from (0, height) reaches (x_target, radius) - what a good LLM might say."""
    a = math.radians(angle_deg)
    drop = height - radius
    return x_target / math.cos(a) * math.sqrt(g / (2 * (x_target * math.tan(a) + drop)))


def test_llm_author_converges_against_scripted_server(wall_first_request, tmp_path):
    good = json.dumps({"parameters": {"launch_speed_mps": _speed_for_target(2.0, 45.0), "launch_angle_deg": 45.0},
                       "rationale": "the throw overshot into the wall; slow down"})
    replies = ["Sure! I would throw it a bit softer.",  # not JSON
               json.dumps({"parameters": {"launch_speed_mps": 50.0, "launch_angle_deg": 45.0}, "rationale": "x"}),
               good]
    with ScriptedServer(replies) as server:
        author = LLMAuthor(base_url=server.base_url, model="scripted", max_attempts=3, timeout_s=10,
                           fallback=NumericAuthor())
        result = run_revision_loop(wall_first_request, author, budget=3, run_dir=tmp_path)
    assert result.converged and abs(_landing_x(result) - 2.0) <= 0.02
    path, body = server.received[0]
    assert path.endswith("/chat/completions")
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["parameters"]["properties"]["launch_speed_mps"]["maximum"] == 12.0
    assert "hit the wall first" in body["messages"][1]["content"]
    # The repair turn shows the model its invalid reply.
    assert len(server.received[2][1]["messages"]) > len(body["messages"])
    log = _read_log(tmp_path)
    proposal = log[1]["proposed_by"]
    assert proposal["author"] == "llm" and proposal["message"].startswith("the throw overshot")
    attempts = proposal["log"]
    assert [a["ok"] for a in attempts] == [False, False, True]
    assert "invalid reply" in attempts[0]["error"] and "Sure!" in attempts[0]["reply"]
    assert "launch_speed_mps" in attempts[1]["error"]


def test_llm_author_falls_back_when_endpoint_is_down(throw_request, tmp_path):
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    author = LLMAuthor(base_url=f"http://127.0.0.1:{port}/v1", model="none", max_attempts=2, timeout_s=5,
                       fallback=NumericAuthor())
    result = run_revision_loop(throw_request, author, budget=3, run_dir=tmp_path)
    assert result.converged and abs(_landing_x(result) - 2.0) <= 0.02
    proposal = _read_log(tmp_path)[1]["proposed_by"]
    assert proposal["author"] == "llm->numeric" and proposal["message"].startswith("fallback after 2")
    assert len(proposal["log"]) == 2 and all("Connection" in a["error"] for a in proposal["log"])


@pytest.mark.parametrize("body", [b'{"error": "model not loaded"}', b"<html>502 Bad Gateway</html>"])
def test_llm_author_falls_back_when_the_endpoint_answers_garbage(throw_request, tmp_path, body):
    with ScriptedServer([body]) as server:
        author = LLMAuthor(base_url=server.base_url, max_attempts=2, timeout_s=10, fallback=NumericAuthor())
        result = run_revision_loop(throw_request, author, budget=3, run_dir=tmp_path)
    assert result.converged
    proposal = _read_log(tmp_path)[1]["proposed_by"]
    assert proposal["author"] == "llm->numeric" and len(proposal["log"]) == 2
    assert all(not a["ok"] and a["error"] for a in proposal["log"])


def test_llm_author_falls_back_on_persistent_nonsense(throw_request, tmp_path):
    with ScriptedServer(["{\"parameters\": {\"launch_speed_mps\": \"fast\"}}"]) as server:
        author = LLMAuthor(base_url=server.base_url, max_attempts=2, timeout_s=10, fallback=NumericAuthor())
        result = run_revision_loop(throw_request, author, budget=3, run_dir=tmp_path)
    assert result.converged
    proposal = _read_log(tmp_path)[1]["proposed_by"]
    assert proposal["author"] == "llm->numeric"
    assert [a["ok"] for a in proposal["log"]] == [False, False]
    assert all("fast" in a["reply"] for a in proposal["log"])


def test_numeric_author_without_a_flight_model_uses_secant_steps(tmp_path):
    # The ramp ball starts on the ramp, so no free-flight model applies: probe, then secant steps.
    request = load_request(CONF / "ramp_to_target.yaml")
    result = run_revision_loop(request, NumericAuthor(), budget=6, run_dir=tmp_path)
    assert result.converged
    messages = [line["proposed_by"]["message"] for line in _read_log(tmp_path)[1:]]
    assert "probe step" in messages[0] and all("free-flight" not in m for m in messages)


@pytest.mark.parametrize("speed, angle", [(11.5, 60.0), (1.5, 12.0), (8.0, 74.0), (6.0, 30.0)])
def test_numeric_author_converges_from_hard_first_guesses(wall_first_request, speed, angle):
    # (11.5, 60): over the wall; (6, 30): straight into the wall; (1.5, 12): far too short.
    result = run_revision_loop(wall_first_request, NumericAuthor(), budget=3,
                               initial_values={"launch_speed_mps": speed, "launch_angle_deg": angle})
    assert result.converged and abs(_landing_x(result) - 2.0) <= 0.02


def test_numeric_author_uses_what_happened_before_a_blow_up(wall_first_request):
    # A small world: the first throw lands beyond the wall and then leaves the world (invalid simulation).
    settings = EngineSettings(world_half_extent_m=10.0)
    result = run_revision_loop(wall_first_request, NumericAuthor(), budget=3, settings=settings,
                               initial_values={"launch_speed_mps": 11.5, "launch_angle_deg": 60.0})
    first = result.attempts[0]
    assert not first.trajectory.ok and "left the world" in first.summary
    assert result.converged and abs(_landing_x(result) - 2.0) <= 0.02


@pytest.mark.llm
def test_real_llm_endpoint_revises_the_throw(wall_first_request, tmp_path):
    """Against a real OpenAI-compatible server: VERIPHY_LLM_BASE_URL and VERIPHY_LLM_MODEL must be set."""
    import os

    base_url, model = os.environ.get("VERIPHY_LLM_BASE_URL"), os.environ.get("VERIPHY_LLM_MODEL")
    if not base_url or not model:
        pytest.skip("set VERIPHY_LLM_BASE_URL and VERIPHY_LLM_MODEL to test a real endpoint")
    author = LLMAuthor(base_url=base_url, model=model, fallback=NumericAuthor())
    result = run_revision_loop(wall_first_request, author, budget=5, run_dir=tmp_path)
    log = _read_log(tmp_path)
    assert all(line["proposed_by"]["log"] for line in log[1:])  # every revision records its LLM attempts
    assert result.converged
