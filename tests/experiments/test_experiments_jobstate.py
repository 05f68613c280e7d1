"""Job completeness for resuming and the summary table (no NaN). The ablation table's scores: test_benchmark_score.py."""

import csv

from experiments import jobstate
from experiments.summary import main
from veriphy.files import write_json
from veriphy.manifest import write_manifest


def _job(tmp_path, name, r):
    job = tmp_path / name
    write_json(job / "metrics.json", {"row": {"scene": "s", "seed": 0, "prompt": "p", "release_step": int(name[-1]),
                                              "r_airborne_x": r}})
    (job / "clip.npz").write_bytes(b"clip")
    (job / "run.log").write_text("attempt 1\n")
    write_manifest(job, stage="experiments")
    return job


def test_complete_only_with_metrics_and_matching_hashes(tmp_path):
    job = _job(tmp_path, "job_1", 0.9)
    assert jobstate.job_complete(job)
    (job / "run.log").write_text("attempt 1\nattempt 2: skipped\n")  # Hydra appends to logs on a rerun
    assert jobstate.job_complete(job)
    (job / "clip.npz").write_bytes(b"changed")
    assert not jobstate.job_complete(job)
    other = _job(tmp_path, "job_2", 0.5)
    (other / "metrics.json").unlink()
    assert not jobstate.job_complete(other)
    assert not jobstate.job_complete(tmp_path / "missing")


def test_clear_partial_job_keeps_hydra_and_logs(tmp_path):
    job = tmp_path / "j"
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "config.yaml").write_text("a: 1\n")
    (job / "run.log").write_text("log\n")
    (job / "clip.npz").write_bytes(b"x")
    (job / "control").mkdir()
    (job / "control" / "control.npz").write_bytes(b"x")
    jobstate.clear_partial_job(job)
    assert sorted(p.name for p in job.iterdir()) == [".hydra", "run.log"]


def test_summary_has_one_row_per_complete_job_and_no_nan(tmp_path):
    _job(tmp_path, "job_2", None)
    _job(tmp_path, "job_1", 0.91)
    (tmp_path / ".shared" / "x").mkdir(parents=True)
    jobstate.write_summary(tmp_path)
    text = (tmp_path / "summary.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert [r["job"] for r in rows] == ["job_1", "job_2"]
    assert rows[0]["r_airborne_x"] == "0.91" and rows[1]["r_airborne_x"] == ""
    assert "nan" not in text.lower()


def test_summary_command_rewrites_the_table(tmp_path, capsys):
    import pytest

    _job(tmp_path, "job_1", 0.5)
    assert main([str(tmp_path)]) == 0
    assert (tmp_path / "summary.csv").read_text().count("\n") == 2
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "missing")])
    assert exc.value.code == 2
