"""Print the noise schedule: ``python -m generate.sigmas steps=30 shift=3.0 [boundary=0.875] [release=10]``.

One row per release point i* = 0..N: the timestep of step i* (empty for i* = N: no step left), sigma_rel =
``scheduler.sigmas[i*]`` and which expert runs step i*; the expert-switch step (first low-noise step for the
given ``boundary`` ratio) and the chosen release step are marked. The numbers are the scheduler's own
(``UniPCMultistepScheduler.set_timesteps``), not a re-derivation.
"""

from __future__ import annotations

import sys

from generate.schedulers import SigmaSchedule, resolve_release_step, schedule_of, unipc_flow_scheduler
from veriphy.errors import EXIT_USER_ERROR, UserError, check_float, check_int


def format_table(schedule: SigmaSchedule, *, release_step: int | None = None) -> str:
    n = schedule.num_steps
    sw = schedule.expert_switch_step
    lines = [f"UniPC flow sigmas: N = {n} steps"
             + (f", boundary ratio {schedule.boundary_ratio} -> expert switch at step {sw}" if sw is not None
                else ", one expert"),
             f"{'i*':>4} {'timestep':>9} {'sigma_rel':>10}  {'expert':>6}  note"]
    for i in range(n + 1):
        t = f"{int(schedule.timesteps[i]):>9d}" if i < n else f"{'-':>9}"
        expert = str(schedule.expert_of_step(i)) if i < n else "-"
        notes = []
        if sw is not None and i == sw:
            notes.append("<- expert switch (first low-noise step)")
        if release_step is not None and i == release_step:
            notes.append("<- release step i*")
        if i == n:
            notes.append("(control throughout)")
        if i == 0:
            notes.append("(no control)")
        lines.append(f"{i:>4d} {t} {schedule.sigmas[i]:>10.6f}  {expert:>6}  {' '.join(notes)}".rstrip())
    return "\n".join(lines)


def _run(args: list[str]) -> None:
    from omegaconf import OmegaConf

    try:
        cfg = OmegaConf.merge(OmegaConf.create({"steps": 30, "shift": 3.0, "boundary": None, "release": None,
                                                "num_train_timesteps": 1000}),
                              OmegaConf.from_dotlist(args))
    except Exception as exc:  # malformed key=value
        raise UserError(str(exc).splitlines()[0], field="arguments") from None
    unknown = set(cfg.keys()) - {"steps", "shift", "boundary", "release", "num_train_timesteps"}
    if unknown:
        raise UserError(f"unknown keys {sorted(unknown)} (use steps=, shift=, boundary=, release=)",
                        field="arguments")
    steps = check_int(cfg.steps, field="steps", minimum=1)
    shift = check_float(cfg.shift, field="shift", above=0.0)
    # A ratio of the training timesteps: outside [0, 1] no step (or every step) would be the low-noise expert's.
    boundary = None if cfg.boundary is None else check_float(cfg.boundary, field="boundary", minimum=0.0,
                                                                maximum=1.0)
    try:
        release = None if cfg.release is None else resolve_release_step(cfg.release, steps)
    except ValueError as exc:
        raise UserError(str(exc), field="release") from None
    sched = unipc_flow_scheduler(flow_shift=shift, num_train_timesteps=cfg.num_train_timesteps)
    print(format_table(schedule_of(sched, steps, boundary_ratio=boundary), release_step=release))


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    try:
        _run(args)
    except UserError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_USER_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
