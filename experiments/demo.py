"""The main job (``make demo``): physics request -> revised scene -> control -> a short release sweep with the
tiny generator -> retention and figures -> critic verdicts on the clips -> a printed summary with paths.

``python -m experiments.demo [--out DIR] [--release-steps 0,5,10,15,20] [--seeds 0,1,2,3,4] [--num-steps 20]
[--tracker wandb|none] [--override KEY=VALUE ...]``

Each stage runs as its own command line (the same ones a user would type), so the demo also checks that the
stages connect through their files on disk:

1. ``python -m sim``: the revision loop on ``conf/request/throw_to_target.yaml`` (numeric author) -> ``sim/``;
2. ``python -m experiments.run -m experiment=demo``: one job per (seed, release step) (prefix-shared executor,
   W&B offline) on the revised scene -> ``sweep/<job>/`` (control, clip, retention) and ``sweep/summary.csv``;
   then the same scene with control throughout in a second appearance (``appearance=yellow_on_dark``);
3. the analogues of the paper's Fig. 5 (retention against sigma_rel) and Fig. 6 (depth control above the
   generated frames, both appearances) from the sweep's files -> ``sweep/figures/``;
4. ``python -m critic manifest=...``: the critic's verdict on every clip -> ``critic/verdicts.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from experiments import jobstate
from experiments.figures import depth_frames_figure, load_jobs, retention_figure
from veriphy.errors import EXIT_USER_ERROR, UserError, check_float, check_int
from veriphy.files import atomic_write_bytes, dumps_json, read_json

#: The second appearance of the Fig. 6 analogue (conf/appearance/); the sweep's own is the app's default.
SECOND_APPEARANCE = "yellow_on_dark"


def _run(step: str, args: list[str], log_dir: Path) -> None:
    """Run ``python ARGS``; its output goes to ``log_dir/<step>.log``; a failure stops the demo with that log."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{step}.log"
    print(f"[demo] {step}: python {' '.join(args)}", flush=True)
    tic = time.perf_counter()
    with open(log, "w") as f:
        proc = subprocess.run([sys.executable, *args], stdout=f, stderr=subprocess.STDOUT,
                              env={**os.environ, "WANDB_MODE": os.environ.get("WANDB_MODE", "offline")})
    print(f"[demo] {step}: {time.perf_counter() - tic:.1f} s (log: {log})", flush=True)
    if proc.returncode != 0:
        text = log.read_text(errors="replace")
        sys.stderr.write(text[-4000:])
        print(f"[demo] {step} failed with exit code {proc.returncode}; see {log}", file=sys.stderr)
        # The step's own exit code: 2 when it refused the user's input, 1 when it failed.
        raise SystemExit(EXIT_USER_ERROR if proc.returncode == EXIT_USER_ERROR else 1)


def _int_list(text: str, field: str, *, minimum: int = 0, maximum: int | None = None) -> list[int]:
    """``"0,5,10"`` as integers, or a :class:`UserError` naming the option and the bad item."""
    items = [t.strip() for t in str(text).split(",")]
    if not items or any(not t for t in items):
        raise UserError(f"expected a comma-separated list of integers, got {text!r}", field=field)
    return [check_int(t, field=field, minimum=minimum, maximum=maximum) for t in items]


def check_arguments(args: argparse.Namespace) -> None:
    """Every option of the demo, before anything runs or is written."""
    check_int(args.num_steps, field="--num-steps", minimum=1)
    check_int(args.budget, field="--budget", minimum=1)
    check_float(args.ball_radius, field="--ball-radius", above=0.0)
    _int_list(args.release_steps, "--release-steps", minimum=0, maximum=args.num_steps)
    _int_list(args.seeds, "--seeds", minimum=0)
    out = Path(args.out)
    for parent in (out, *out.parents):
        if parent.exists():
            if not parent.is_dir():
                raise UserError("is a file; the demo's output must be a folder", file=parent, field="--out")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise UserError("folder not writable", file=parent, field="--out")
            break


def _fmt(v, digits: int = 3) -> str:
    return "  n/a" if v is None or v == "" else f"{float(v):.{digits}f}"


def _mean(rows: list[dict], key: str, digits: int = 3, counted: bool = True) -> str:
    """Mean of ``key`` over the rows that have it, with (measured/rows) when ``counted``."""
    values = [float(r[key]) for r in rows if r.get(key) not in (None, "")]
    mean = _fmt(float(np.mean(values)) if values else None, digits)
    return f"{mean} ({len(values)}/{len(rows)})" if counted else mean


def main(argv: list[str] | None = None) -> int:
    """The demo; a user's mistake exits 2 with ``error: FIELD: REASON`` before anything runs."""
    try:
        return _main(argv)
    except UserError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_USER_ERROR


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.demo", description=__doc__.split("\n\n")[0])
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d_%H-%M-%S")
    parser.add_argument("--out", type=Path, default=Path("outputs") / "demo" / stamp)
    parser.add_argument("--release-steps", default="0,5,10,15,20", help="comma-separated release steps i*")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds (each point's mean and "
                                                             "95 %% interval are over them)")
    parser.add_argument("--num-steps", type=int, default=20, help="denoising steps N")
    parser.add_argument("--tracker", default="wandb", choices=["wandb", "none"])
    parser.add_argument("--budget", type=int, default=3, help="solves of the physics revision loop")
    # The tiny model is trained on balls of 0.2-0.4 m (3-9 px at 64x64): the request's 0.1 m ball would be about
    # 1.5 px, below what its autoencoder keeps.
    parser.add_argument("--ball-radius", type=float, default=0.3, help="ball radius of the request's scene, m")
    parser.add_argument("--override", nargs="*", default=[],
                        help="further overrides of the sweep (e.g. video.width=32 generator=tiny_random)")
    args = parser.parse_args(argv)
    check_arguments(args)
    root = args.out.absolute()
    logs = root / "logs"
    tic = time.perf_counter()

    # 1. physics request -> revised scene. The author starts from a 60 deg lob: the nearer solution (a flat throw
    # from the first guess's 30 deg) flies for 5 frames at 8 fps, too few to correlate (measurable.*).
    sim_dir = root / "sim"
    _run("sim", ["-m", "sim", f"hydra.run.dir={sim_dir}", f"budget={args.budget}", "progress=false",
                 f"++request.scene.ball_radius_m={args.ball_radius}", "request.free_parameters.1.initial=60"],
         logs)
    predicates = read_json(sim_dir / "predicates.json")
    revisions = (sim_dir / "revisions.jsonl").read_text().splitlines()

    # 2. control + release sweep + retention (one Hydra job per seed and release step), then the same scene with
    # control throughout in a second appearance for the Fig. 6 analogue
    sweep_dir = root / "sweep"
    sweep = ["-m", "experiments.run", "-m", "experiment=demo", f"scene.path={sim_dir / 'scene.json'}",
             f"hydra.sweep.dir={sweep_dir}", f"sweep_name=demo_{root.name}", f"num_steps={args.num_steps}",
             f"tracker={args.tracker}"]
    _run("sweep", [*sweep, f"seed={args.seeds}", f"probe.release_step={args.release_steps}", *args.override], logs)
    first_seed = args.seeds.split(",")[0]
    _run("appearance", [*sweep, f"appearance={SECOND_APPEARANCE}", f"seed={first_seed}",
                        f"probe.release_step={args.num_steps}", *args.override], logs)

    # 3. the Fig. 5 and Fig. 6 analogues from the files on disk
    figures_dir = sweep_dir / "figures"
    sweep_jobs = load_jobs([sweep_dir])
    fig5 = retention_figure(sweep_jobs, figures_dir)
    fig6 = depth_frames_figure(sweep_jobs, figures_dir)
    print(f"[demo] figures: {len(fig5) + len(fig6)} files in {figures_dir}", flush=True)

    # 4. critic verdicts on every clip
    jobs = jobstate.complete_jobs(sweep_dir)
    lines = []
    for job in jobs:
        row = read_json(job / jobstate.METRICS)["row"]
        lines.append(dumps_json({"id": job.name, "video": str(job / "clip.mp4"), "prompt": row["prompt"]},
                                indent=None))
    manifest = root / "critic_manifest.jsonl"
    atomic_write_bytes(manifest, ("\n".join(lines) + "\n").encode())
    critic_dir = root / "critic"
    _run("critic", ["-m", "critic", f"manifest={manifest}", f"hydra.run.dir={critic_dir}", "progress=false"], logs)
    verdicts = {d["id"]: d for d in (json.loads(x) for x in (critic_dir / "verdicts.jsonl").read_text().splitlines()
                                     if x.strip())}

    # 5. summary: per release step, the mean over seeds of the sweep's own appearance
    rows = jobstate.summary_rows(sweep_dir, jobs)
    main = [r for r in rows if r.get("appearance") != SECOND_APPEARANCE]
    holds = predicates.get("all_hold", None)
    print()
    print("=" * 100)
    print(f"VeriPhy demo ({time.perf_counter() - tic:.0f} s) - outputs in {root}")
    print(f"physics: {len(revisions)} solve(s); predicates {'all hold' if holds else 'do not all hold'}"
          f" -> revised scene {sim_dir / 'scene.json'}")
    print(f"sweep: {len(rows)} clips ({rows[0]['executor'] if rows else '-'}), N = {args.num_steps}, seeds "
          f"{args.seeds}, threshold {rows[0]['threshold'] if rows else '-'}; mean over seeds (measured/seeds):")
    print(f"{'i*':>4} {'sigma_rel':>9} {'r_air_x':>12} {'r_air_y':>12} {'r_gnd_x':>12} {'r_gnd_y':>12} "
          f"{'med|dx|':>8} {'med|dy|':>8}  verdicts")
    for step in sorted({int(r["release_step"]) for r in main}):
        at = [r for r in main if int(r["release_step"]) == step]
        cells = " ".join(f"{_mean(at, key):>12}" for key in ("r_airborne_x", "r_airborne_y", "r_after_ground_x",
                                                              "r_after_ground_y"))
        counts = Counter(verdicts.get(Path(r["job"]).name, {}).get("verdict", "-") for r in at)
        print(f"{step:>4} {_fmt(at[0].get('sigma_rel')):>9} {cells} {_mean(at, 'median_abs_px_x', 1, False):>8} "
              f"{_mean(at, 'median_abs_px_y', 1, False):>8}  {', '.join(f'{n} {v}' for v, n in sorted(counts.items()))}")
    print(f"summary:  {sweep_dir / jobstate.SUMMARY}")
    print(f"Fig. 5 analogue (retention vs sigma_rel): {fig5[0].with_suffix('.pdf')} (+ .png, .csv, .txt)")
    print(f"Fig. 6 analogue (depth control vs generated): {fig6[0].with_suffix('.pdf')} (+ .png, .csv, .txt)")
    print("  " + fig6[-1].read_text().strip().split("\n", 1)[-1].replace("\n", "\n  "))
    print(f"verdicts: {critic_dir / 'verdicts.jsonl'}")
    if args.tracker == "wandb":
        print(f"W&B (offline): {sweep_dir / 'wandb'}  (wandb sync to upload)")
    print("=" * 100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
