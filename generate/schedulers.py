"""Wan's sampler and its noise levels.

Wan samples with UniPC on flow-matching sigmas: ``prediction_type="flow_prediction"``, ``use_flow_sigmas``,
``flow_shift`` (3.0 at 480p, 5.0 at 720p). For N steps the sigmas are

    s = linspace(1, 1/1000, N+1)[:-1],  sigma = shift*s / (1 + (shift-1)*s),  then a final 0

(the first one nudged by 1e-6 below 1 so log(alpha) stays finite) and timestep_i = sigma_i * 1000, truncated
to an integer. Step i moves from sigmas[i] to sigmas[i+1]. A two-expert model (Wan2.2) runs the high-noise
expert while ``timestep >= boundary_ratio * 1000`` and the low-noise one after.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from veriphy.errors import check_float, check_int


def unipc_flow_scheduler(*, flow_shift: float = 3.0, num_train_timesteps: int = 1000, solver_order: int = 2,
                         lower_order_final: bool = True):
    """A :class:`diffusers.UniPCMultistepScheduler` configured as Wan samples (cheap to build). A shift that is
    not a positive finite number would give NaN or reversed sigmas: refused (``UserError``)."""
    from diffusers import UniPCMultistepScheduler

    flow_shift = check_float(flow_shift, field="scheduler.flow_shift", above=0.0)
    num_train_timesteps = check_int(num_train_timesteps, field="scheduler.num_train_timesteps", minimum=1)
    solver_order = check_int(solver_order, field="scheduler.solver_order", minimum=1, maximum=3)

    return UniPCMultistepScheduler(
        num_train_timesteps=num_train_timesteps,
        prediction_type="flow_prediction",
        use_flow_sigmas=True,
        flow_shift=float(flow_shift),
        solver_order=solver_order,
        lower_order_final=lower_order_final,
    )


@dataclass(frozen=True)
class SigmaSchedule:
    """The noise schedule of one N-step run.

    * ``timesteps`` (N,) int64: the model's timestep input at step i.
    * ``sigmas`` (N+1,) float64 copy of the scheduler's float32 sigmas (last 0).
    * ``expert_switch_step``: first step run by the low-noise expert (``None`` without a boundary;
      N when the boundary is never crossed).
    """

    timesteps: np.ndarray
    sigmas: np.ndarray
    num_train_timesteps: int
    boundary_ratio: float | None
    expert_switch_step: int | None

    @property
    def num_steps(self) -> int:
        return len(self.timesteps)

    def sigma_rel(self, release_step: int) -> float:
        """Noise level at which control is withdrawn: ``sigmas[i*]`` (1 -> withdrawn before any step,
        0 -> never withdrawn)."""
        return float(self.sigmas[resolve_release_step(release_step, self.num_steps)])

    def expert_of_step(self, i: int) -> int:
        """1 for the (high-noise) ``transformer``, 2 for ``transformer_2``."""
        if self.boundary_ratio is None:
            return 1
        return 1 if self.timesteps[i] >= self.boundary_ratio * self.num_train_timesteps else 2


def resolve_release_step(release_step: int | None, num_steps: int) -> int:
    """The release step i* of an N-step run: control on steps 0..i*-1. ``None`` means N (control throughout);
    anything outside 0..N is a ``ValueError`` (commands report it as the user's error in their own field)."""
    if release_step is None:
        i_star = num_steps
    elif isinstance(release_step, bool) or not isinstance(release_step, (int, float, str, np.integer)):
        raise ValueError(f"release step i* must be an integer, got {release_step!r}")
    else:
        try:
            value = float(release_step)
        except ValueError:
            raise ValueError(f"release step i* must be an integer, got {release_step!r}") from None
        if not (np.isfinite(value) and value.is_integer()):  # 2.5 is a mistake, not step 2
            raise ValueError(f"release step i* must be an integer, got {release_step!r}")
        i_star = int(value)
    if not 0 <= i_star <= num_steps:
        raise ValueError(f"release step i* must be in 0..{num_steps} (N = {num_steps} steps), got {release_step}")
    return i_star


def expert_switch_step(timesteps, boundary_ratio: float | None, num_train_timesteps: int = 1000) -> int | None:
    """First step whose timestep is below the boundary (the pipeline's ``t >= boundary`` test, reversed)."""
    if boundary_ratio is None:
        return None
    boundary = boundary_ratio * num_train_timesteps
    for i, t in enumerate(np.asarray(timesteps).tolist()):
        if not t >= boundary:
            return i
    return len(timesteps)


def schedule_of(scheduler, num_steps: int, *, boundary_ratio: float | None = None) -> SigmaSchedule:
    """Run ``set_timesteps`` on a copy of ``scheduler`` and read back its timesteps and sigmas (the table is the
    scheduler's own numbers, not a re-derivation)."""
    import copy

    sched = copy.deepcopy(scheduler)
    sched.set_timesteps(num_steps, device="cpu")
    timesteps = sched.timesteps.detach().cpu().numpy().astype(np.int64)
    sigmas = sched.sigmas.detach().cpu().numpy().astype(np.float64)
    n_train = int(sched.config.num_train_timesteps)
    return SigmaSchedule(timesteps=timesteps, sigmas=sigmas, num_train_timesteps=n_train,
                         boundary_ratio=boundary_ratio,
                         expert_switch_step=expert_switch_step(timesteps, boundary_ratio, n_train))


def analytic_flow_sigmas(num_steps: int, shift: float, num_train_timesteps: int = 1000) -> np.ndarray:
    """The closed form above (float64, without the 1e-6 nudge): for checking the scheduler, not for sampling."""
    s = np.linspace(1.0, 1.0 / num_train_timesteps, num_steps + 1)[:-1]
    sig = shift * s / (1.0 + (shift - 1.0) * s)
    return np.concatenate([sig, [0.0]])
