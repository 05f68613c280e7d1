"""``python -m experiments.figures {paths,retention,frames,all} SWEEP [SWEEP ...] [options]`` (see the package)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.figures import (DEFAULT_EXPERT_BOUNDARY, depth_frames_figure, load_jobs, retention_figure,
                                 tracked_paths_figure)
from veriphy.errors import UserError
from veriphy.hydra_app import exit_on_user_error


def _boundary(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise UserError(f"a sigma or 'none', got {text!r}", field="--expert-boundary") from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.figures",
                                description="The paper's trajectory figures from finished release-point jobs.")
    sub = p.add_subparsers(dest="figure", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("folders", type=Path, nargs="+", help="sweep folders (jobs are found at any depth)")
    common.add_argument("--out", type=Path, default=None, help="output folder (default FIRST_FOLDER/figures)")
    selection = argparse.ArgumentParser(add_help=False)
    selection.add_argument("--scene", default=None, help="scene (default: the one with the most prompts)")
    selection.add_argument("--seed", type=int, default=None, help="seed (default: the smallest)")
    boundary = argparse.ArgumentParser(add_help=False)
    boundary.add_argument("--expert-boundary", type=_boundary, default=DEFAULT_EXPERT_BOUNDARY,
                          help="sigma of the expert-switch guide when the clips record none (Wan2.2: 0.875; "
                               "'none': no guide)")
    paths = sub.add_parser("paths", parents=[common, selection], help="Fig. 4: tracked paths")
    paths.add_argument("--first-k", type=int, default=None,
                       help="release step of the 'first k steps' column (default: the earliest partial one)")
    paths.add_argument("--max-prompts", type=int, default=3)
    sub.add_parser("retention", parents=[common, boundary], help="Fig. 5: retention against sigma_rel")
    frames = sub.add_parser("frames", parents=[common, selection], help="Fig. 6: depth control vs generated")
    frames.add_argument("--columns", type=int, default=6, help="timestamps shown (at most)")
    frames.add_argument("--max-prompts", type=int, default=2)
    sub.add_parser("all", parents=[common, boundary], help="Fig. 4, 5 and 6 with their defaults")
    return p


@exit_on_user_error
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = args.out if args.out is not None else args.folders[0] / "figures"
    jobs = load_jobs(args.folders)
    written = []
    if args.figure in ("paths", "all"):
        written += tracked_paths_figure(jobs, out, scene=getattr(args, "scene", None),
                                        seed=getattr(args, "seed", None), first_k=getattr(args, "first_k", None),
                                        max_prompts=getattr(args, "max_prompts", 3))
    if args.figure in ("retention", "all"):
        written += retention_figure(jobs, out, args.expert_boundary)
    if args.figure in ("frames", "all"):
        written += depth_frames_figure(jobs, out, scene=getattr(args, "scene", None), seed=getattr(args, "seed", None),
                                       columns=getattr(args, "columns", 6), max_prompts=getattr(args, "max_prompts", 2))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
