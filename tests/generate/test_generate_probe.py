"""The withdrawal probe: skipping the VACE branch is exactly conditioning_scale=0, step by step."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from generate.probe import ProbedWanVACETransformer3DModel, ReleaseCallback, WithdrawalProbe, make_probeable
from generate.schedulers import schedule_of
from generate.tiny import build_tiny_pipeline


def test_adding_zero_times_a_finite_hint_is_exact():
    # The premise of "skip == scale 0": x + h*0 == x for finite h (also in bf16).
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        x = (torch.randn(4096, generator=g) * 10).to(dtype)
        h = (torch.randn(4096, generator=g) * 1e4).to(dtype)
        scale = torch.zeros((), dtype=dtype)
        assert torch.equal(x + h * scale, x)


def test_full_release_equals_stock_full_control(pipe1, control, stock_run, run_clip):
    clip = run_clip(pipe1, control, seed=3)  # release_step None -> N
    assert clip.release_step == 4 and clip.sigma_rel == 0.0
    assert np.array_equal(clip.frames, stock_run(pipe1, control, seed=3))


def test_release_at_zero_equals_stock_conditioning_scale_zero(pipe1, control, stock_run, run_clip):
    clip = run_clip(pipe1, control, seed=3, release_step=0)
    assert np.array_equal(clip.frames, stock_run(pipe1, control, seed=3, conditioning_scale=0.0))
    # and the control matters at all for this model, so the equalities above are not vacuous
    assert not np.array_equal(clip.frames, stock_run(pipe1, control, seed=3))


@pytest.mark.parametrize("experts", [1, 2])
def test_every_release_step_skip_equals_zero_scale_and_stock_callback(experts, pipe1, pipe2, control, stock_run,
                                                                     run_clip, sizes):
    pipe = pipe1 if experts == 1 else pipe2
    n = sizes["N"]
    seen = set()
    for i_star in range(n + 1):
        skip = run_clip(pipe, control, seed=1, release_step=i_star)
        zero = run_clip(pipe, control, seed=1, release_step=i_star, mode="zero_scale")
        assert np.array_equal(skip.frames, zero.frames), i_star
        with ReleaseCallback(pipe, i_star) as cb:
            stock = stock_run(pipe, control, seed=1, callback_on_step_end=cb)
        assert np.array_equal(skip.frames, stock), i_star
        assert [c for _, c in cb.trace] == [i < i_star for i in range(n)]
        seen.add(skip.frames.tobytes())
    assert len(seen) > 1  # releasing earlier changes the clip


def test_withdrawn_steps_run_no_vace_compute(pipe1, control, run_clip):
    model = pipe1.transformer
    assert isinstance(model, ProbedWanVACETransformer3DModel)
    calls = {"patch": 0, "blocks": 0}
    hooks = [model.vace_patch_embedding.register_forward_hook(lambda *a: calls.__setitem__("patch", calls["patch"] + 1))]
    hooks += [b.register_forward_hook(lambda *a: calls.__setitem__("blocks", calls["blocks"] + 1))
              for b in model.vace_blocks]
    try:
        clip = run_clip(pipe1, control, seed=0, release_step=1)
    finally:
        for h in hooks:
            h.remove()
    n_vace = len(model.vace_blocks)
    # step 0 only, twice (classifier-free guidance): conditional and unconditional forward
    assert calls == {"patch": 2, "blocks": 2 * n_vace}
    assert clip.extra["transformer_calls"] == 8 and clip.extra["controlled_transformer_calls"] == 2


def test_two_expert_trace_follows_boundary_and_release(pipe2, control, run_clip, sizes):
    n = sizes["N"]
    sched = schedule_of(pipe2.scheduler, n, boundary_ratio=pipe2.config.boundary_ratio)
    boundary_t = pipe2.config.boundary_ratio * 1000
    switch = next(i for i, t in enumerate(sched.timesteps) if t < boundary_t)
    assert 0 < switch < n  # the tiny schedule crosses the boundary mid-run (t = 999, 900 | 750, 500)
    used = []
    hooks = [pipe2.transformer.register_forward_hook(lambda m, a, o: used.append((1, m.control_enabled))),
             pipe2.transformer_2.register_forward_hook(lambda m, a, o: used.append((2, m.control_enabled)))]
    try:
        for i_star in range(n + 1):
            used.clear()
            clip = run_clip(pipe2, control, seed=0, release_step=i_star)
            expected = [(1 if i < switch else 2, i < i_star) for i in range(n)]
            assert used[::2] == expected and used[1::2] == expected  # cond and uncond forwards
            assert [(r["expert"], r["control"]) for r in clip.extra["trace"]] == expected
            assert clip.expert_switch_step == switch
    finally:
        for h in hooks:
            h.remove()


def test_probe_config_object():
    assert WithdrawalProbe().resolve(30) == 30
    assert WithdrawalProbe(release_step=10).resolve(30) == 10
    with pytest.raises(ValueError, match="0..30"):
        WithdrawalProbe(release_step=31).resolve(30)
    with pytest.raises(ValueError):
        WithdrawalProbe(mode="half")


def test_release_step_out_of_range_refused(pipe1, control, run_clip):
    with pytest.raises(ValueError, match="0..4"):
        run_clip(pipe1, control, release_step=5)


def test_bypassed_probe_is_detected_not_ignored(control, run_clip):
    import types

    from diffusers import WanVACETransformer3DModel

    hooked = build_tiny_pipeline(seed=0)
    hooked.transformer._hf_hook = object()  # as accelerate's offload leaves it
    with pytest.raises(RuntimeError, match="before enabling"):
        make_probeable(hooked)

    pipe = make_probeable(build_tiny_pipeline(seed=0))
    # a wrapper that captured the stock forward (what an offload hook added after adoption would do)
    pipe.transformer.forward = types.MethodType(WanVACETransformer3DModel.forward, pipe.transformer)
    with pytest.raises(RuntimeError, match="probed forward was not called"):
        run_clip(pipe, control, release_step=1)
