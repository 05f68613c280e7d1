"""The revision loop ends on an unreachable target: when the author proposes a spec it has already solved (it
would cycle), or after ``patience`` solves without improvement; and the command always writes the best spec
found with its predicates."""

import json
from pathlib import Path

import yaml

from sim.authors import NumericAuthor
from sim.authors.base import Proposal
from sim.io import load_request
from sim.__main__ import main as sim_main
from sim.revise import run_revision_loop

# The ball cannot reach x = 40 m at 3 m/s at most: no author can make this hold.
UNREACHABLE = {
    "name": "unreachable",
    "scene": {"_target_": "sim.scenes.thrown_ball", "launch_height_m": 1.0, "wall_x_m": 60.0, "target_x_m": 40.0},
    "free_parameters": [{"name": "launch_speed_mps", "low": 1.0, "high": 3.0, "initial": 2.0},
                        {"name": "launch_angle_deg", "low": 10.0, "high": 75.0, "initial": 30.0}],
    "predicates": [{"kind": "lands_in_region", "object": "ball", "x_range_m": [39.9, 40.1]}],
}


def _request(tmp_path: Path):
    path = tmp_path / "unreachable.yaml"
    path.write_text(yaml.safe_dump(UNREACHABLE))
    return path, load_request(path)


class Alternating:
    """An author that alternates between two proposals whatever it is shown."""

    name = "alternating"

    def __init__(self):
        self.calls = 0

    def propose(self, request, history):
        self.calls += 1
        speed = 2.5 if self.calls % 2 else 2.0
        return Proposal(values={"launch_speed_mps": speed, "launch_angle_deg": 30.0}, message="again",
                        author=self.name)


def test_an_author_that_repeats_a_spec_stops_the_loop(tmp_path):
    _, request = _request(tmp_path)
    result = run_revision_loop(request, Alternating(), budget=500, run_dir=tmp_path)
    # initial (2.0), 2.5, then 2.0 again: already solved, so the loop ends instead of alternating 500 times
    assert result.solves == 2 and result.stop_reason == "repeated"
    assert not result.converged
    assert len((tmp_path / "revisions.jsonl").read_text().splitlines()) == 2
    # the best of the two (the faster throw lands nearer x = 40 m) is the result
    assert result.values["launch_speed_mps"] == 2.5


def test_no_improvement_within_patience_stops_the_loop(tmp_path):
    _, request = _request(tmp_path)
    result = run_revision_loop(request, NumericAuthor(), budget=2000, patience=4)
    assert not result.converged and result.stop_reason in ("repeated", "no_improvement")
    assert result.solves < 60


def test_the_command_writes_the_best_spec_and_says_why_it_stopped(tmp_path):
    path, _ = _request(tmp_path)
    run = tmp_path / "run"
    sim_main([f"request_file={path}", "budget=100000", "patience=4", "progress=false", f"hydra.run.dir={run}"])
    predicates = json.loads((run / "predicates.json").read_text())
    assert predicates["converged"] is False and predicates["stop_reason"] in ("repeated", "no_improvement")
    assert predicates["solves"] < 60 and not predicates["all_hold"]
    assert (run / "scene.json").is_file() and (run / "trajectory.npz").is_file()
    # the written spec is the best solve's: its landing is the nearest to the target of all solves
    landings = [json.loads(line)["report"]["results"][0]["details"].get("landing_x_m")
                for line in (run / "revisions.jsonl").read_text().splitlines()]
    best = predicates["report"]["results"][0]["details"]["landing_x_m"]
    assert best == max(x for x in landings if x is not None)
