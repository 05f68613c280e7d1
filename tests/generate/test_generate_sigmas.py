"""The sigma table is the scheduler's own; docs/architecture.md §11 values; sigma_rel falls as i* grows."""

from __future__ import annotations

import numpy as np
import pytest

from generate.schedulers import analytic_flow_sigmas, schedule_of, unipc_flow_scheduler
from generate.sigmas import format_table, main


def test_table_equals_scheduler_sigmas_exactly():
    sched = unipc_flow_scheduler(flow_shift=3.0)
    table = schedule_of(sched, 30, boundary_ratio=0.875)
    fresh = unipc_flow_scheduler(flow_shift=3.0)
    fresh.set_timesteps(30)
    assert np.array_equal(table.sigmas, fresh.sigmas.numpy().astype(np.float64))
    assert np.array_equal(table.timesteps, fresh.timesteps.numpy())
    assert sched.num_inference_steps is None  # the table works on a copy


def test_design_values_and_expert_switch():
    table = schedule_of(unipc_flow_scheduler(flow_shift=3.0), 30, boundary_ratio=0.875)
    assert len(table.sigmas) == 31 and table.sigmas[-1] == 0.0
    assert round(table.sigma_rel(10), 3) == 0.857
    assert round(table.sigma_rel(15), 3) == 0.750
    assert round(table.sigma_rel(20), 3) == 0.601
    assert table.expert_switch_step == 10
    assert [table.expert_of_step(i) for i in (9, 10)] == [1, 2]
    # the closed form (float32 rounding and the 1e-6 nudge of sigma_0 aside)
    np.testing.assert_allclose(table.sigmas, analytic_flow_sigmas(30, 3.0), atol=2e-6)


@pytest.mark.parametrize("steps,shift", [(30, 3.0), (50, 5.0), (4, 3.0)])
def test_sigma_rel_decreases_with_release_step(steps, shift):
    table = schedule_of(unipc_flow_scheduler(flow_shift=shift), steps)
    rel = [table.sigma_rel(i) for i in range(steps + 1)]
    assert all(a > b for a, b in zip(rel, rel[1:]))
    assert table.expert_switch_step is None


def test_cli_prints_table_with_marks(capsys):
    assert main(["steps=30", "shift=3.0", "boundary=0.875", "release=12"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line[:4].strip().isdigit()]
    assert len(rows) == 31
    assert "expert switch" in rows[10] and "release step" in rows[12]
    assert rows[10].split()[1] == "857" and rows[10].split()[2] == "0.857327"
    assert main(["steps=0"]) == 2
    assert main(["bogus=1"]) == 2


def test_clip_records_scheduler_sigmas(pipe2, control, run_clip, sizes):
    clip = run_clip(pipe2, control, release_step=2)
    table = schedule_of(pipe2.scheduler, sizes["N"], boundary_ratio=0.875)
    assert np.array_equal(clip.sigmas, table.sigmas)
    assert clip.sigma_rel == table.sigma_rel(2)
    assert clip.scheduler["prediction_type"] == "flow_prediction" and clip.scheduler["use_flow_sigmas"]
    assert "expert switch" in format_table(table)
