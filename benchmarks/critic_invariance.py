"""Critic on truthful prompts over changed clips: every prompt in ``tests/data/external/truthful_prompts.yaml`` is
true of its external correct clip, and stays true when the clip is made smaller, sampled at half its frame rate,
compressed hard, noisy, darker, or filmed by a slowly panning camera (``experiments.benchmark.invariance``). A
critic that holds on clips it was not tuned on calls none of them contradicted, whatever the change.

Prints one row per change: prompts contradicted, explicit claims supported, and the claims (explicit and
implicit) whose state differs from the unchanged clip's (supported -> contradicted and unknown -> contradicted
are the ones that matter; supported -> unknown is lost evidence). Then every contradicted prompt with its reason.
``--out FILE.csv`` writes the rows.

    python benchmarks/critic_invariance.py [--changes half_size,pan_3pct] [--clip SUBSTRING] [--out FILE.csv]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# This folder holds benchmarks/critic.py, named like the package it measures: keep the folder off the import
# path before the project's imports below.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import yaml  # noqa: E402

from veriphy.errors import UserError  # noqa: E402
from critic.run import build_components, critique  # noqa: E402
from critic.video import load_video  # noqa: E402
from experiments.benchmark.invariance import DEFAULT_CHANGES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
EXTERNAL = ROOT / "tests" / "data" / "external"
UNCHANGED = "unchanged"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matrix", default=str(EXTERNAL / "truthful_prompts.yaml"))
    ap.add_argument("--external", default=str(EXTERNAL))
    ap.add_argument("--changes", default=",".join(DEFAULT_CHANGES),
                    help=f"comma-separated, of: {', '.join(DEFAULT_CHANGES)}")
    ap.add_argument("--clip", default="", help="only clips whose path contains this")
    ap.add_argument("--out", default="", help="write the table as CSV here")
    args = ap.parse_args()
    names = [n.strip() for n in args.changes.split(",") if n.strip()]
    unknown_names = [n for n in names if n not in DEFAULT_CHANGES]
    if unknown_names:
        raise SystemExit(f"--changes: no change named {', '.join(unknown_names)} (known: {', '.join(DEFAULT_CHANGES)})")

    import torch

    torch.set_num_threads(1)
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    try:
        loaded = yaml.safe_load(Path(args.matrix).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise SystemExit(f"--matrix {args.matrix}: cannot read it as YAML ({type(err).__name__}: {err})") from None
    if not isinstance(loaded, dict):
        raise SystemExit(f"--matrix {args.matrix}: expected a mapping of clip path -> list of prompts")
    matrix = {clip: prompts for clip, prompts in loaded.items() if args.clip in clip}
    comp = build_components(cfg)
    tmp = Path(tempfile.mkdtemp(prefix="critic_invariance_"))

    # states[change][(clip, prompt index, claim id)] = state; verdicts[change][(clip, prompt index)] = verdict
    states: dict[str, dict[tuple[str, int, str], str]] = {}
    explicit: dict[str, Counter[str]] = {}
    contradicted: dict[str, list[tuple[str, str, str]]] = {}
    seconds: dict[str, float] = {}
    n = 0
    for change in [UNCHANGED, *names]:
        states[change], explicit[change], contradicted[change] = {}, Counter(), []
        t0 = time.perf_counter()
        for clip, prompts in matrix.items():
            path = Path(args.external) / clip
            try:
                video = load_video(path)
            except UserError as err:
                raise SystemExit(str(err)) from None
            if change != UNCHANGED:
                video = DEFAULT_CHANGES[change](video)
            for i, prompt in enumerate(prompts):
                v = critique(path, prompt, comp, tmp / f"run{n}", video=video)
                n += 1
                for c in v.claims:
                    states[change][(clip, i, c.id)] = c.state
                    if c.kind == "explicit":
                        explicit[change][c.state] += 1
                if v.verdict == "contradicted":
                    why = "; ".join(f"{c.text}: {s.reason or s.text}" for c in v.claims for s in c.sub_checks
                                    if s.state == "contradicted")
                    contradicted[change].append((clip, prompt, why or v.reason))
        seconds[change] = time.perf_counter() - t0
        print(f"{change}: {len(contradicted[change])} prompts contradicted ({seconds[change]:.1f} s)", flush=True)

    prompts_total = sum(len(p) for p in matrix.values())
    rows = []
    for change in [UNCHANGED, *names]:
        flips = Counter((states[UNCHANGED][k], s) for k, s in states[change].items()
                        if k in states[UNCHANGED] and states[UNCHANGED][k] != s)
        total = sum(explicit[change].values())
        rows.append({"change": change, "prompts": prompts_total, "contradicted": len(contradicted[change]),
                     "explicit_supported_pct": round(100.0 * explicit[change]["supported"] / max(total, 1), 1),
                     "supported_to_contradicted": flips[("supported", "contradicted")],
                     "unknown_to_contradicted": flips[("unknown", "contradicted")],
                     "supported_to_unknown": flips[("supported", "unknown")],
                     "unknown_to_supported": flips[("unknown", "supported")],
                     "seconds": round(seconds[change], 1)})
    print()
    print("| change | prompts contradicted | explicit supported | claims sup->contra | unk->contra | sup->unk | "
          "unk->sup |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['change']} | {r['contradicted']} / {r['prompts']} | {r['explicit_supported_pct']:.1f} % | "
              f"{r['supported_to_contradicted']} | {r['unknown_to_contradicted']} | {r['supported_to_unknown']} | "
              f"{r['unknown_to_supported']} |")
    for change in [UNCHANGED, *names]:
        if contradicted[change]:
            print(f"\ncontradicted under {change}:")
            for clip, prompt, why in contradicted[change]:
                print(f"  {Path(clip).stem}: {prompt!r}: {why}")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"\ntable: {out}")


if __name__ == "__main__":
    main()
