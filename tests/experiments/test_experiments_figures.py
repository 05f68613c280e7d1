"""The paper's figures: ``experiment=paper_figures`` in its tiny form (the shipped tiny model at its size, 2
denoising steps, one scene, two seeds), each figure command on its sweeps with the CSV's numbers recomputed
from the job files, the prompt as a sweep axis, and a scene the generator cannot render refused before
generation."""

from __future__ import annotations

import csv
import dataclasses
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from scipy import stats

from control.depth import DepthControl
from experiments import jobstate
from experiments.figures.__main__ import main as figures_main
from experiments.figures.depth_frames import turning_frames
from experiments.figures.retention_curves import commitment
from experiments.paper import merge_overrides
from experiments.scene import measurability_problems, simulate_scene
from experiments.types import SceneRequirements, VideoSize
from veriphy.files import load_npz, read_json

from .conftest import run_app

CONF = Path(__file__).resolve().parents[2] / "conf"
STEMS = {"paths": "fig4_tracked_paths", "retention": "fig5_retention_vs_sigma", "frames": "fig6_depth_vs_generated"}
N = 2
PAPER_TINY = ["experiment=paper_figures", f"num_steps={N}", "job.seeds=2", "job.release_stride=1",
              "job.scenes=[thrown_ball]", 'job.overrides=["tracker=none"]']


# The tiny paper run takes about 1.5 minutes on two cores: the tests that read it are slow (``make test-all``).
@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("paper")
    out = run_app(PAPER_TINY, cwd)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    return cwd / "outputs" / "paper_figures" / "paper", out


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def _number(cell: str) -> float | None:
    return None if cell == "" else float(cell)


def _same(cell: str, value: float | None) -> bool:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return cell == ""
    return cell != "" and float(cell) == pytest.approx(value, rel=1e-5, abs=1e-9)


def _jobs(folder: Path) -> dict[str, dict]:
    """Each complete job under ``folder`` by name: its metrics.json and paths.npz, read directly."""
    return {p.relative_to(folder).as_posix(): {"metrics": read_json(p / "metrics.json"), "paths": load_npz(p / "paths.npz")}
            for p in jobstate.complete_jobs(folder)}


def _measurable(paths: dict[str, np.ndarray]) -> np.ndarray:
    return (paths["tracked_visible"].astype(bool) & np.isfinite(paths["tracked_px"]).all(axis=1)
            & np.isfinite(paths["simulated_px"]).all(axis=1))


@pytest.mark.slow
def test_paper_figures_runs_its_sweeps_and_draws_all_three(paper):
    root, out = paper
    record = read_json(root / "paper_figures.json")
    assert record["first_k"] == 1 and record["num_steps"] == N
    for stem in STEMS.values():
        for ext in ("png", "pdf", "csv", "txt"):
            assert (root / "figures" / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
        pdf = (root / "figures" / f"{stem}.pdf").read_bytes()
        assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType fonts embedded, no Type 3 outlines
    retention = _jobs(root / "retention")
    assert len(retention) == 2 * (N + 1)  # seeds x release steps 0..N
    assert {m["metrics"]["row"]["scene"] for m in retention.values()} == {"thrown_ball"}
    # Fig. 5's sweep states no motion (the control's direction is not asked for by the words); Fig. 4's rows do.
    assert {(m["metrics"]["row"]["motion"], m["metrics"]["row"]["prompt"]) for m in retention.values()} == {
        ("unstated", "a red ball; a medium-sized ball on a grey floor, pale background")}
    # Fig. 5's sweep counterbalances the direction of motion: odd seeds see the scene mirrored, and say so.
    assert {(m["metrics"]["row"]["seed"], m["metrics"]["row"]["mirrored"]) for m in retention.values()} == {
        (0, False), (1, True)}
    summary = _csv(root / "retention" / "summary.csv")
    assert {(r["seed"], r["mirrored"]) for r in summary} == {("0", "False"), ("1", "True")}
    x0 = {(m["metrics"]["row"]["seed"], m["metrics"]["row"]["release_step"]): m["paths"]["simulated_px"][:, 0]
          for m in retention.values()}
    np.testing.assert_allclose(x0[(1, N)], 64 - x0[(0, N)], atol=1e-9)  # the same path, mirrored
    # Fig. 4 and 6 draw seed 0 alone: the scene as the template sets it up (the ball thrown to the right).
    assert not any(m["metrics"]["row"]["mirrored"] for m in _jobs(root / "paths").values())


@pytest.mark.slow
def test_prompt_is_a_sweep_axis_with_its_own_job_directories(paper):
    """The paths sweep: two appearances with the scene's motion and one motion the control does not perform,
    each prompt in its own job directories (and a rerun finds them all finished)."""
    root, _ = paper
    jobs = _jobs(root / "paths")
    prompts = defaultdict(set)
    for name, job in jobs.items():
        row = job["metrics"]["row"]
        prompts[(row["appearance"], row["motion"])].add(row["prompt"])
        assert name.startswith(f"thrown_ball_{row['appearance']}-{row['motion']}_seed0_release")
    assert set(prompts) == {("red_on_grey", "thrown_ball"), ("yellow_on_dark", "thrown_ball"),
                            ("red_on_grey", "thrown_left")}
    texts = [next(iter(p)) for p in prompts.values()]
    assert all(len(p) == 1 for p in prompts.values()) and len(set(texts)) == 3
    assert "a yellow ball is thrown to the right" in " ".join(texts) and "thrown to the left" in " ".join(texts)
    assert len(jobs) == 3 * 3  # prompts x release steps 0, k, N


@pytest.mark.slow
@pytest.mark.parametrize("figure", sorted(STEMS))
def test_figure_command_writes_the_numbers_of_the_job_files(paper, figure, tmp_path):
    root, _ = paper
    folder = root / ("retention" if figure == "retention" else "paths")
    assert figures_main([figure, str(folder), "--out", str(tmp_path)]) == 0
    stem = STEMS[figure]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{stem}.{e}" for e in ("csv", "pdf", "png", "txt"))
    # The same jobs give the same figure files as the preset drew.
    for ext in ("png", "pdf", "csv", "txt"):
        assert (tmp_path / f"{stem}.{ext}").read_bytes() == (root / "figures" / f"{stem}.{ext}").read_bytes()
    rows = _csv(tmp_path / f"{stem}.csv")
    jobs = _jobs(folder)
    {"paths": _check_paths, "retention": _check_retention, "frames": _check_frames}[figure](rows, jobs)
    if figure == "retention":  # the caption says which window each unmeasured cell is in
        caption = (tmp_path / f"{stem}.txt").read_text()
        for scene in {r["scene"] for r in rows}:
            left = {w: sum(int(r["unmeasured"]) for r in rows if r["scene"] == scene and r["series"] in (f"{w}_x", f"{w}_y"))
                    for w in ("airborne", "after_ground")}
            assert (f"(airborne {left['airborne']}, after the first ground contact {left['after_ground']})"
                    in caption), caption


def _check_paths(rows, jobs):
    assert len(rows) == 9  # 3 prompts x 3 conditions, each panel one clip
    assert {(r["row"], r["column"]) for r in rows} == {(str(a), str(b)) for a in (1, 2, 3) for b in (1, 2, 3)}
    assert [r["motion"] for r in rows if r["column"] == "1"] == ["thrown_ball", "thrown_ball", "thrown_left"]
    for r in rows:
        paths = jobs[r["job"]]["paths"]
        seen = _measurable(paths)
        sim_x = paths["simulated_px"][:, 0]
        assert _same(r["sideways_travel_px"], float(np.ptp(paths["tracked_px"][seen, 0])) if seen.any() else None)
        assert _same(r["sideways_travel_sim_px"], float(np.ptp(sim_x[np.isfinite(sim_x)])))
        assert int(r["frames_tracked"]) == int(seen.sum()) and int(r["frames_total"]) == len(paths["t_s"])
        step = int(r["release_step"])
        assert r["condition"] == {0: "no control", N: "control throughout"}.get(step, "control for the first k steps")


def _check_retention(rows, jobs):
    values = defaultdict(list)
    unmeasured = defaultdict(int)
    mirrored = defaultdict(int)
    for job in jobs.values():
        row = job["metrics"]["row"]
        mirrored[(row["scene"], row["release_step"])] += row["mirrored"]
        air = [row["r_airborne_x"], row["r_airborne_y"]]
        cells = {f"{w}_{a}": row[f"r_{w}_{a}"] for w in ("airborne", "after_ground") for a in ("x", "y")}
        cells["airborne_mean"] = None if None in air else float(np.mean(air))
        for series, value in cells.items():
            key = (row["scene"], series, row["release_step"])
            if value is None:
                unmeasured[key] += 1
            else:
                values[key].append(value)
    assert len(rows) == 5 * (N + 1)  # series x release steps
    for r in rows:
        key = (r["scene"], r["series"], int(r["release_step"]))
        v = np.asarray(values[key])
        assert int(r["seeds"]) == v.size and int(r["unmeasured"]) == unmeasured[key]
        assert int(r["mirrored"]) == mirrored[(r["scene"], int(r["release_step"]))] == 1  # seed 1 of seeds 0, 1
        assert _same(r["mean"], float(v.mean()) if v.size else None)
        if v.size >= 2:
            low, high = stats.t.interval(0.95, v.size - 1, loc=v.mean(), scale=stats.sem(v))
            assert _same(r["ci95_low"], float(low)) and _same(r["ci95_high"], float(high))
        assert r["threshold"] == "0.7"


def _check_frames(rows, jobs):
    assert [r["appearance"] for r in rows] == ["red_on_grey", "yellow_on_dark"]
    for r in rows:
        paths = jobs[r["job"]]["paths"]
        assert int(r["release_step"]) == int(r["num_steps"]) == N
        seen = _measurable(paths)
        assert int(r["frames_measurable"]) == int(seen.sum())
        trk, sim = paths["tracked_px"][seen], paths["simulated_px"][seen]
        for k, axis in enumerate("xy"):
            r_axis = None
            if seen.sum() >= 3 and np.ptp(trk[:, k]) > 0 and np.ptp(sim[:, k]) > 0:
                r_axis = float(stats.pearsonr(trk[:, k], sim[:, k]).statistic)
            assert _same(r[f"r_{axis}"], r_axis)
            assert _same(r[f"median_abs_px_{axis}"],
                         float(np.median(np.abs(trk[:, k] - sim[:, k]))) if seen.any() else None)
        times = [float(t) for t in r["timestamps_s"].split(";")]
        assert times == pytest.approx([paths["t_s"][int(f)] for f in r["frame_indices"].split(";")])


def test_unmeasurable_scene_is_refused_before_generation(tmp_path):
    """sim's former thrown ball (a 0.1 m ball, under 2 px at 64x64): the job says why and stops before any clip
    is generated or any file of its own is written."""
    out = run_app(["experiment=release_sweep", "scene.ball_radius_m=0.1", "tracker=none", "hydra.run.dir=run"],
                  tmp_path)
    assert out.returncode == 2, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        "error: scene: cannot be measured with this generator at this size: ball is 1.8 px in radius at 64x64, "
        "the generator renders 3-9 px (generator.object_radius_px; the scene's object size sets it)")
    assert not (tmp_path / "run").exists()  # no file of the failed run is left, Hydra's record included


def _scene(overrides: list[str]):
    with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
        cfg = compose("experiments_app", overrides=overrides)
    return simulate_scene(instantiate(cfg.scene), VideoSize(**cfg.video), DepthControl(progress=False),
                          framing=instantiate(cfg.framing)), SceneRequirements(object_radius_px=(3.0, 9.0))


@pytest.mark.parametrize("scene", ["thrown_ball", "ramp", "wall_bounce"])
def test_shipped_scenes_are_measurable_at_the_tiny_models_size(scene):
    simulated, requirements = _scene([f"scene={scene}"])
    assert measurability_problems(simulated, requirements) == []
    assert simulated.window_masks["airborne"].sum() >= 6


def test_every_shortfall_is_named():
    """sim's former ramp (a 0.1 m ball off a 0.8 m edge, in its template's camera) and a ball that rolls out of
    the picture: each reason names its setting."""
    simulated, requirements = _scene(["scene=ramp", "scene.edge_height_m=0.8", "scene.start_distance_m=0.5",
                                      "scene.ball_radius_m=0.1", "framing=template"])
    problems = measurability_problems(simulated, requirements)
    assert problems[0] == "ball is airborne for 2 frame(s) at 8 fps, fewer than 6 (measurable.min_airborne_frames)"
    assert any("generator.object_radius_px" in p for p in problems)
    rolled = dataclasses.replace(simulated, path_px=simulated.path_px + [60.0, 0.0])
    assert any(p.startswith("ball's centre leaves the picture") and p.endswith("(measurable.margin_px)")
               for p in measurability_problems(rolled, requirements))


def test_commitment_band():
    sigmas = [1.0, 0.9, 0.8, 0.7, 0.0]
    band = commitment(sigmas, [0.1, 0.8, 0.5, 0.9, 1.0], 0.7)  # dips below after 0.9: commits from 0.7 on
    assert (band.state, band.high, band.low) == ("crosses", 0.8, 0.7)
    assert band.cross == pytest.approx(0.8 + (0.7 - 0.5) * (0.7 - 0.8) / (0.9 - 0.5))
    assert commitment(sigmas, [0.8, 0.9, 0.9, 0.9, 1.0], 0.7).state == "from the earliest release"
    assert commitment(sigmas, [0.1, 0.9, 0.9, 0.9, 0.2], 0.7).state == "never"
    assert commitment(sigmas, [None, 0.1, None, 0.9, 0.95], 0.7).high == 0.9  # unmeasured points are skipped


def test_turning_frames_are_the_tops_and_bounces():
    t = np.arange(17)
    y = np.abs(np.sin(t / 16 * 2 * np.pi)) * -10.0  # two arcs: tops at frames 4 and 12, a bounce at 8
    seen = np.ones(17, bool)
    seen[0] = False
    assert turning_frames(y, seen, 5) == [1, 4, 8, 12, 16]
    assert turning_frames(y, seen, 6) == [1, 4, 8, 12, 14, 16]  # one more column: the middle of a widest gap
    assert turning_frames(y, seen, 3) == [1, 8, 16]  # the bounce turns sharpest
    assert turning_frames(np.zeros(5), np.zeros(5, bool), 3) == [0, 2, 4]


def test_sweep_overrides_merge_by_key():
    assert merge_overrides(["num_steps=30", "seed=0"], ["seed=range(0,5)"], ["num_steps=3", "tracker=none"]) == [
        "num_steps=3", "seed=range(0,5)", "tracker=none"]
