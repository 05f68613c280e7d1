"""Release-point sweeps through Hydra multirun: resume after a kill, W&B offline, prefix sharing, launchers.
The figures drawn from sweeps: test_experiments_figures.py."""

import csv
import signal

import pytest

from experiments import jobstate

from .conftest import ONE_SCENE, TINY, job_dirs, kill_app_when, run_app, thrown_ball_job

SWEEP = ["-m", "experiment=release_sweep", "probe.release_step=0,2,3", *ONE_SCENE, *TINY]
NAIVE = [*SWEEP, "executor=naive", "sweep_name=naive"]


def sweep_job(seed: int, release_step: int) -> str:
    """A release sweep's job directory: its prompt states the appearance only (``motion=unstated``)."""
    return thrown_ball_job(seed, release_step, prompt="red_on_grey-unstated")


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory):
    """A 3-point naive sweep with W&B offline, killed by SIGKILL inside its second job (once that job has
    written its first file, well before its metrics), then run again."""
    cwd = tmp_path_factory.mktemp("sweep")
    sweep_dir = cwd / "outputs" / "release_sweep" / "naive"
    second_job_started = (sweep_dir / sweep_job(0, 2) / "scoring.json").is_file
    killed = kill_app_when([*NAIVE, "tracker=wandb"], cwd, second_job_started)
    after_kill = {p.name: jobstate.job_complete(p) for p in job_dirs(sweep_dir)}
    second = run_app([*NAIVE, "tracker=wandb"], cwd)
    return cwd, sweep_dir, killed, after_kill, second


def test_killed_sweep_resumes_without_loss_or_duplicates(killed_and_resumed):
    cwd, sweep_dir, killed, after_kill, second = killed_and_resumed
    assert killed == -signal.SIGKILL
    # one complete job, one partial (started, no metrics), the third never started
    assert after_kill == {sweep_job(0, 0): True, sweep_job(0, 2): False}, after_kill
    assert second.returncode == 0, second.stderr[-3000:]
    jobs = job_dirs(sweep_dir)
    assert [p.name for p in jobs] == [sweep_job(0, i) for i in (0, 2, 3)]
    assert all(jobstate.job_complete(p) for p in jobs)
    assert (second.stdout + second.stderr).count("complete, skipped") == 1
    with open(sweep_dir / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["release_step"]) for r in rows] == [0, 2, 3]
    assert all(r["executor"] == "naive" and r["threshold"] == "0.7" for r in rows)
    # the prompt names the appearance only, without a stray space where the motion clause would be
    assert {(r["motion"], r["prompt"]) for r in rows} == {
        ("unstated", "a red ball; a medium-sized ball on a grey floor, pale background")}
    assert "nan" not in (sweep_dir / "summary.csv").read_text().lower()
    # the threshold was written into each run before scoring
    assert all((p / "scoring.json").is_file() for p in jobs)
    # W&B offline: one run per job (the killed job's redo continues its own run id), all under the sweep
    runs = {p.name.rsplit("-", 1)[-1] for p in (sweep_dir / "wandb").glob("offline-run-*")}
    assert len(runs) == 3


def test_rerun_skips_complete_jobs_and_redoes_a_partial_one(killed_and_resumed):
    """Rerunning a finished sweep skips its jobs; a job left with a clip but no metrics (a kill mid-job) and a
    stray file is cleared and recomputed, the others untouched."""
    cwd, sweep_dir, *_ = killed_and_resumed
    jobs = job_dirs(sweep_dir)
    before = {p.name: (p / "metrics.json").stat().st_mtime_ns for p in jobs}
    (jobs[1] / "metrics.json").unlink()
    (jobs[1] / "stale.txt").write_text("left by a killed attempt")
    again = run_app([*NAIVE, "tracker=none"], cwd)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (again.stdout + again.stderr).count("complete, skipped") == 2
    after = {p.name: (p / "metrics.json").stat().st_mtime_ns for p in job_dirs(sweep_dir)}
    assert after[jobs[0].name] == before[jobs[0].name] and after[jobs[2].name] == before[jobs[2].name]
    assert jobstate.job_complete(jobs[1]) and not (jobs[1] / "stale.txt").exists()
    assert len(job_dirs(sweep_dir)) == 3
    # A finished job made with other settings (here a prompt given in full, which the job directories do not
    # name: they name the appearance and motion choices) is refused, never skipped as if it were this job nor
    # overwritten.
    other = run_app([*NAIVE, "tracker=none", "prompt=another prompt"], cwd)
    assert other.returncode == 2 and "other settings" in other.stderr, other.stderr[-2000:]
    assert after == {p.name: (p / "metrics.json").stat().st_mtime_ns for p in job_dirs(sweep_dir)}


def test_prefix_shared_clips_are_byte_identical_to_naive(killed_and_resumed):
    cwd, naive_dir, *_ = killed_and_resumed
    shared = run_app([*SWEEP, "sweep_name=shared", "executor=prefix_shared", "tracker=none"], cwd)
    assert shared.returncode == 0, shared.stderr[-3000:]
    shared_dir = cwd / "outputs" / "release_sweep" / "shared"
    for job in job_dirs(naive_dir):
        for name in ("clip.npz", "clip.mp4"):
            assert (shared_dir / job.name / name).read_bytes() == (job / name).read_bytes(), (job.name, name)
    groups = list((shared_dir / ".shared").iterdir())
    assert len(groups) == 1  # one controlled run for the (scene, seed, prompt)
    assert sorted(p.name for p in groups[0].glob("release_*")) == ["release_000", "release_002", "release_003"]
    with open(shared_dir / "summary.csv") as f:
        assert {r["executor"] for r in csv.DictReader(f)} == {"prefix_shared"}


def test_submitit_local_launcher_runs_two_jobs(tmp_path):
    out = run_app(["-m", "experiment=control_check", "hydra/launcher=submitit_local", "sweep_name=s",
                   "tracker=none", "seed=0,1", "hydra.launcher.timeout_min=5", *TINY, "probe.release_step=3"],
                  tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    jobs = job_dirs(tmp_path / "outputs" / "control_check" / "s")
    assert [p.name for p in jobs] == [thrown_ball_job(0, 3), thrown_ball_job(1, 3)]
    assert all(jobstate.job_complete(p) for p in jobs)
