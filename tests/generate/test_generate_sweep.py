"""Prefix-shared release sweep: bit-identical to separate runs, fewer transformer calls."""

from __future__ import annotations

import numpy as np
import pytest

from generate.sweep import generate_release_sweep, naive_transformer_calls, sweep_transformer_calls


@pytest.mark.parametrize("experts", [1, 2])
def test_sweep_equals_naive_runs(experts, pipe1, pipe2, control, run_clip, sizes):
    pipe = pipe1 if experts == 1 else pipe2
    n = sizes["N"]
    steps = [3, 0, 1, 4, 1]  # unsorted, with a duplicate
    clips = generate_release_sweep(pipe, control, sizes["prompt"], seed=5, num_steps=n, release_steps=steps,
                                   max_sequence_length=sizes["max_seq"], progress=False)
    assert sorted(clips) == [0, 1, 3, 4]
    for i_star, clip in clips.items():
        naive = run_clip(pipe, control, seed=5, release_step=i_star)
        assert np.array_equal(clip.frames, naive.frames), i_star
        assert clip.release_step == i_star and clip.sigma_rel == naive.sigma_rel
        assert clip.extra["trace"] == naive.extra["trace"]
        assert clip.extra["transformer_calls"] == naive.extra["transformer_calls"]
    sigma_rel = [clips[i].sigma_rel for i in sorted(clips)]
    assert all(a > b for a, b in zip(sigma_rel, sigma_rel[1:]))
    summary = clips[0].extra["sweep"]
    assert summary["transformer_calls"] == sweep_transformer_calls(n, steps) == 2 * (4 + 4 + 3 + 1 + 0)
    assert summary["naive_transformer_calls"] == naive_transformer_calls(n, steps) == 2 * 4 * 4


def test_sweep_rejects_bad_release_steps(pipe1, control, sizes):
    with pytest.raises(ValueError):
        generate_release_sweep(pipe1, control, sizes["prompt"], seed=0, num_steps=4, release_steps=[],
                               progress=False)
    with pytest.raises(ValueError, match="0..4"):
        generate_release_sweep(pipe1, control, sizes["prompt"], seed=0, num_steps=4, release_steps=[2, 9],
                               progress=False)
