"""The reader on true captions over changed clips: every caption a corpus prompt quotes that the clip shows as quoted
(no wrong_text defect there), read by the critic's ``read`` specialist on the clip as it is and made smaller, sampled
at half its frame rate, compressed hard, noisy, darker, or panned (``experiments.benchmark.invariance``).

The invariance benchmark (``benchmarks/critic_invariance.py``) runs over external footage that carries no caption,
so it cannot see a reader that misreads a small or blurred caption as another text, firmly. This script does: a
true caption called contradicted is a false contradiction waiting on any clip that is smaller or softer than the
corpus's. Prints, per change, the captions supported, unknown and contradicted, then every contradiction with what
was read.

    python benchmarks/critic_captions.py [--corpus DIR] [--changes half_size,pan_3pct] [--clip ID] [--recognizer false]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

# This folder holds benchmarks/critic.py, named like the package it measures: keep the folder off the import path
# before the project's imports below.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from critic.run import build_components  # noqa: E402
from critic.types import OperationInputs, ReadOp  # noqa: E402
from critic.video import load_video  # noqa: E402
from experiments.benchmark.invariance import DEFAULT_CHANGES  # noqa: E402
from experiments.benchmark.types import ClipAnnotation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
UNCHANGED = "unchanged"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(ROOT / "outputs" / "benchmark" / "corpus"),
                    help="a corpus built by `python -m experiments.benchmark build` (its annotations.jsonl)")
    ap.add_argument("--changes", default=",".join(DEFAULT_CHANGES),
                    help=f"comma-separated, of {', '.join(DEFAULT_CHANGES)}")
    ap.add_argument("--clip", default="", help="only clips whose id contains this")
    ap.add_argument("--recognizer", default="true", choices=["true", "false"],
                    help="false: the reader with Tesseract alone (read.recognizer=null)")
    args = ap.parse_args()
    annotations = Path(args.corpus) / "annotations.jsonl"
    if not annotations.is_file():
        sys.exit(f"{annotations}: no such file; build the corpus first (python -m experiments.benchmark build) or "
                 "pass --corpus DIR")
    unknown_changes = [c for c in args.changes.split(",") if c not in DEFAULT_CHANGES]
    if unknown_changes:
        sys.exit(f"--changes: unknown change(s) {', '.join(unknown_changes)}; known: {', '.join(DEFAULT_CHANGES)}")
    changes = {UNCHANGED: None, **{c: DEFAULT_CHANGES[c] for c in args.changes.split(",")}}

    import torch
    from hydra import compose, initialize_config_dir

    torch.set_num_threads(1)
    overrides = ["report=false", "progress=false"]
    if args.recognizer == "false":
        overrides.append("critic.specialists.read.recognizer=null")
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=overrides)
    comp = build_components(cfg)
    reader = comp.specialists["read"]

    t0 = time.perf_counter()
    tally: Counter[tuple[str, str]] = Counter()
    errors: list[str] = []
    for line in annotations.read_text().splitlines():
        clip = ClipAnnotation.model_validate_json(line)
        if args.clip not in clip.id or any(d.category == "wrong_text" for d in clip.defects):
            continue
        plan = comp.planner.plan(clip.prompt).plan
        texts = [op.text for op in (plan.operations if plan is not None else []) if getattr(op, "op", "") == "read"
                 and not getattr(op, "where", None)]
        if not texts:
            continue
        video = load_video(Path(args.corpus) / clip.video)
        if comp.video_filter is not None:
            video = comp.video_filter(video)
        for name, change in changes.items():
            changed = video if change is None else change(video)
            for text in texts:
                m = reader.run(ReadOp(id="r", text=text), OperationInputs(prompt=clip.prompt), changed)
                tally[(name, m.state)] += 1
                if m.state == "contradicted":
                    errors.append(f"{clip.id} {name}: \"{text}\" {m.measured}")
        print(f"  {clip.id}: {len(texts)} caption(s)", file=sys.stderr, flush=True)

    print(f"true captions read over {len(changes)} looks ({time.perf_counter() - t0:.1f} s; "
          f"recogniser {'on' if args.recognizer == 'true' else 'off'})")
    print("| change | captions | supported | unknown | contradicted |")
    print("|---|---|---|---|---|")
    for name in changes:
        n = sum(v for (c, _), v in tally.items() if c == name)
        print(f"| {name} | {n} | {tally[(name, 'supported')]} | {tally[(name, 'unknown')]} | "
              f"{tally[(name, 'contradicted')]} |")
    if errors:
        print("true captions called contradicted:")
        for e in errors:
            print(f"  {e}")


if __name__ == "__main__":
    main()
