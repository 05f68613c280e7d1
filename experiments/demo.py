"""The main job (``make demo``): physics request -> revised scene -> control -> a short release sweep with the
tiny generator -> retention and figures -> critic verdicts on the clips -> a printed summary with paths.

``python -m experiments.demo [--out DIR] [--release-steps 0,5,10,15,20] [--num-steps 20] [--tracker wandb|none]
[--override KEY=VALUE ...]``

Each stage runs as its own command line (the same ones a user would type), so the demo also checks that the
stages connect through their files on disk:

1. ``python -m sim``: the revision loop on ``conf/request/throw_to_target.yaml`` (numeric author) -> ``sim/``;
2. ``python -m experiments.run -m experiment=demo``: one job per release step (prefix-shared executor,
   W&B offline) on the revised scene -> ``sweep/<job>/`` (control, clip, retention) and ``sweep/summary.csv``;
3. figures from the sweep's files -> ``sweep/figures/``;
4. ``python -m critic manifest=...``: the critic's verdict on every clip -> ``critic/verdicts.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from experiments import jobstate
from experiments.figures import make_figures
from veriphy.files import atomic_write_bytes, dumps_json, read_json


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
        sys.stderr.write(log.read_text()[-4000:])
        raise SystemExit(f"[demo] {step} failed with exit code {proc.returncode}; see {log}")


def _fmt(v, digits: int = 3) -> str:
    return "  n/a" if v is None or v == "" else f"{float(v):.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.demo", description=__doc__.split("\n\n")[0])
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d_%H-%M-%S")
    parser.add_argument("--out", type=Path, default=Path("outputs") / "demo" / stamp)
    parser.add_argument("--release-steps", default="0,5,10,15,20", help="comma-separated release steps i*")
    parser.add_argument("--num-steps", type=int, default=20, help="denoising steps N")
    parser.add_argument("--tracker", default="wandb", choices=["wandb", "none"])
    parser.add_argument("--budget", type=int, default=3, help="solves of the physics revision loop")
    # The tiny model is trained on balls of 0.2-0.4 m (3-9 px at 64x64): the request's 0.1 m ball would be about
    # 1.5 px, below what its autoencoder keeps.
    parser.add_argument("--ball-radius", type=float, default=0.3, help="ball radius of the request's scene, m")
    parser.add_argument("--override", nargs="*", default=[],
                        help="further overrides of the sweep (e.g. video.width=32 generator=tiny_random)")
    args = parser.parse_args(argv)
    root = args.out.absolute()
    logs = root / "logs"
    tic = time.perf_counter()

    # 1. physics request -> revised scene
    sim_dir = root / "sim"
    _run("sim", ["-m", "sim", f"hydra.run.dir={sim_dir}", f"budget={args.budget}", "progress=false",
                 f"++request.scene.ball_radius_m={args.ball_radius}"], logs)
    predicates = read_json(sim_dir / "predicates.json")
    revisions = (sim_dir / "revisions.jsonl").read_text().splitlines()

    # 2. control + release sweep + retention (one Hydra job per release step)
    sweep_dir = root / "sweep"
    _run("sweep", ["-m", "experiments.run", "-m", "experiment=demo", f"scene.path={sim_dir / 'scene.json'}",
                   f"hydra.sweep.dir={sweep_dir}", f"sweep_name=demo_{root.name}", f"num_steps={args.num_steps}",
                   f"probe.release_step={args.release_steps}", f"tracker={args.tracker}", *args.override], logs)

    # 3. figures from the files on disk

    figures = make_figures(sweep_dir)
    print(f"[demo] figures: {len(figures)} files in {sweep_dir / 'figures'}", flush=True)

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

    # 5. summary
    rows = jobstate.summary_rows(sweep_dir, jobs)
    holds = predicates.get("all_hold", None)
    print()
    print("=" * 100)
    print(f"VeriPhy demo ({time.perf_counter() - tic:.0f} s) - outputs in {root}")
    print(f"physics: {len(revisions)} solve(s); predicates {'all hold' if holds else 'do not all hold'}"
          f" -> revised scene {sim_dir / 'scene.json'}")
    print(f"sweep: {len(rows)} clips ({rows[0]['executor'] if rows else '-'}), N = {args.num_steps}, "
          f"threshold {rows[0]['threshold'] if rows else '-'}")
    print(f"{'i*':>4} {'sigma_rel':>9} {'r_air_x':>8} {'r_air_y':>8} {'r_gnd_x':>8} {'r_gnd_y':>8} "
          f"{'med|dx|':>8} {'med|dy|':>8} {'frames':>6}  verdict")
    for r in rows:
        v = verdicts.get(Path(r["job"]).name, {})
        print(f"{r['release_step']:>4} {_fmt(r.get('sigma_rel')):>9} {_fmt(r.get('r_airborne_x')):>8} "
              f"{_fmt(r.get('r_airborne_y')):>8} {_fmt(r.get('r_after_ground_x')):>8} "
              f"{_fmt(r.get('r_after_ground_y')):>8} {_fmt(r.get('median_abs_px_x'), 1):>8} "
              f"{_fmt(r.get('median_abs_px_y'), 1):>8} {r.get('frames_measurable'):>6}  {v.get('verdict', '-')}")
    print(f"summary:  {sweep_dir / jobstate.SUMMARY}")
    print(f"figures:  {sweep_dir / 'figures'}")
    print(f"verdicts: {critic_dir / 'verdicts.jsonl'}")
    if args.tracker == "wandb":
        print(f"W&B (offline): {sweep_dir / 'wandb'}  (wandb sync to upload)")
    print("=" * 100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
