"""Critic on truthful prompts: every prompt in ``tests/data/external/truthful_prompts.yaml`` is true of its
external correct clip, so the ideal critic calls none of them contradicted and supports as many explicit
claims as it can measure.

Prints the verdict counts (supported / contradicted / unknown), the share of explicit claims supported, the
reasons of the unknown explicit claims counted (numbers in a reason are folded, so one cause is one row),
and the contradicted prompts with their reasons.

    python benchmarks/critic_truthful.py [--matrix FILE] [--external DIR] [--clip SUBSTRING] [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# This folder holds benchmarks/critic.py, named like the package it measures: keep the folder off the import
# path before the project's imports below.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import yaml  # noqa: E402

from critic.run import build_components, critique  # noqa: E402
from critic.video import load_video  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
EXTERNAL = ROOT / "tests" / "data" / "external"


def reason_class(reason: str) -> str:
    """A reason with its numbers and quoted names folded, so reasons of one cause count together."""
    text = re.sub(r"'[^']*'", "'X'", reason or "(no reason)")
    text = re.sub(r"[-+]?\d+(\.\d+)?", "N", text)
    return text[:150]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matrix", default=str(EXTERNAL / "truthful_prompts.yaml"))
    ap.add_argument("--external", default=str(EXTERNAL))
    ap.add_argument("--clip", default="", help="only clips whose path contains this")
    ap.add_argument("--verbose", action="store_true", help="print every prompt's verdict and unknown claims")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    matrix = yaml.safe_load(Path(args.matrix).read_text())
    comp = build_components(cfg)
    tmp = Path(tempfile.mkdtemp(prefix="critic_truthful_"))

    verdicts: Counter[str] = Counter()
    claims: Counter[str] = Counter()
    unknown_reasons: Counter[str] = Counter()
    contradicted: list[tuple[str, str, str]] = []
    t0 = time.perf_counter()
    n = 0
    for clip, prompts in matrix.items():
        if args.clip not in clip:
            continue
        path = Path(args.external) / clip
        video = load_video(path)
        for prompt in prompts:
            v = critique(path, prompt, comp, tmp / f"run{n}", video=video)
            n += 1
            verdicts[v.verdict] += 1
            if v.verdict == "contradicted":
                why = "; ".join(f"{c.text}: {s.reason or s.text}" for c in v.claims for s in c.sub_checks
                                if s.state == "contradicted")
                contradicted.append((clip, prompt, why or v.reason))
            for c in v.claims:
                if c.kind != "explicit":
                    continue
                claims[c.state] += 1
                if c.state == "unknown":
                    reasons = [s.reason for s in c.sub_checks if s.state == "unknown"] or [c.reason]
                    unknown_reasons[reason_class(reasons[0])] += 1
            if args.verbose:
                print(f"[{v.verdict:>12}] {Path(clip).stem}: {prompt}")
                for c in v.claims:
                    if c.kind == "explicit":
                        r = [s.reason for s in c.sub_checks if s.state == "unknown"]
                        print(f"      {c.state:>12} {c.text!r} {r[0] if r and c.state == 'unknown' else ''}")
    total = sum(claims.values())
    print(f"prompts: {n} over {sum(1 for c in matrix if args.clip in c)} clips "
          f"({time.perf_counter() - t0:.1f} s)")
    print("verdicts: " + ", ".join(f"{k} {verdicts[k]}" for k in ("supported", "contradicted", "unknown")))
    print(f"explicit claims: {total}; " + ", ".join(f"{k} {claims[k]}" for k in ("supported", "contradicted",
                                                                                   "unknown")))
    print(f"explicit claims supported: {100.0 * claims['supported'] / max(total, 1):.1f} %")
    print("unknown explicit claims by reason:")
    for reason, count in unknown_reasons.most_common():
        print(f"  {count:4d}  {reason}")
    if contradicted:
        print("contradicted prompts:")
        for clip, prompt, why in contradicted:
            print(f"  {Path(clip).stem}: {prompt!r}: {why}")


if __name__ == "__main__":
    main()
