"""``python -m experiments.summary SWEEP_DIR``: rewrite a sweep's ``summary.csv`` (and ``ablation.csv``) from the
complete jobs on disk. Jobs rewrite them as they finish; this is for sweeps whose workers could not share a
file lock (e.g. some network file systems) or were stopped."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments import jobstate
from experiments.ablation import write_table
from veriphy.errors import UserError
from veriphy.files import read_json
from veriphy.hydra_app import exit_on_user_error


@exit_on_user_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.summary", description=__doc__.split("\n")[0])
    parser.add_argument("sweep_dir", type=Path)
    args = parser.parse_args(argv)
    if not args.sweep_dir.is_dir():
        raise UserError("not a directory", file=args.sweep_dir)
    jobs = jobstate.complete_jobs(args.sweep_dir)
    ablation = ["ablation" in read_json(j / jobstate.METRICS) for j in jobs]
    if any(ablation):
        print(write_table(args.sweep_dir, jobs))
    if not all(ablation) or not jobs:
        print(jobstate.write_summary(args.sweep_dir, jobs))
    print(f"{len(jobs)} complete job(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
