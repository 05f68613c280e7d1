"""The absence check on bodies that are there: every coloured body of the critic benchmark's corpus, and every colour a
truthful prompt names over the external correct clips, looked for as if no track had found it.

``permanence`` of a subject that no track found asks the pixels alone whether the subject is in the clip at all
(``continuity.absent_from_clip``, reached through the ``measure`` specialist as the critic reaches it): no blob of
its colour name in enough frames, and the subject is absent, over the whole clip. The grounder loses real bodies
(low contrast, small, merged), and each one it loses reaches this check, so the check's errors on bodies that are
there are contradictions of correct clips waiting to happen. This script puts every body there through it, not only
the ones the tracker happens to lose:

* corpus bodies present in their clip (any object with a colour name and a shape): called absent = an error;
* corpus bodies the prompt names but the clip lacks (``*_absent``, the missing_object defects): called absent = found;
* truthful colours (each colour a prompt of ``tests/data/external/truthful_prompts.yaml`` names, all there): called
  absent = an error, on footage whose colours are duller than any reference shade.

A change to the absence rule should find more absent bodies without calling one more present body or truthful colour
absent. Prints the three counts and every error (and, with ``--verbose``, every absent body left unknown).

    python benchmarks/critic_absence.py [--corpus DIR] [--matrix FILE] [--external DIR] [--verbose]
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

import yaml  # noqa: E402

from critic.run import build_components  # noqa: E402
from critic.specialists import colour as colours  # noqa: E402
from critic.types import MeasureOp, OperationInputs, SubjectSpec, VideoContext  # noqa: E402
from critic.video import load_video  # noqa: E402
from experiments.benchmark.scoring import SHAPE_NOUNS  # noqa: E402
from experiments.benchmark.types import ClipAnnotation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
EXTERNAL = ROOT / "tests" / "data" / "external"


def looked_for(comp, video: VideoContext, name: str, colour: str, noun: str, prompt: str) -> str:
    """The state the critic's ``measure`` specialist gives ``permanence`` of a singular ``colour`` ``noun`` that
    grounding found no track of in ``video`` (its own path: the pixels alone, ``absent_from_clip``)."""
    subject = SubjectSpec(name=name, noun=noun, color=colour)
    op = MeasureOp(id="m", subject=name, quantity="permanence")
    inputs = OperationInputs(subjects={name: subject}, tracks={name: ()}, prompt=prompt)
    return comp.specialists["measure"].run(op, inputs, video).state


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(ROOT / "outputs" / "benchmark" / "corpus"),
                    help="a corpus built by `python -m experiments.benchmark build` (its annotations.jsonl)")
    ap.add_argument("--matrix", default=str(EXTERNAL / "truthful_prompts.yaml"))
    ap.add_argument("--external", default=str(EXTERNAL))
    ap.add_argument("--verbose", action="store_true", help="also list the absent bodies left unknown")
    args = ap.parse_args()
    annotations = Path(args.corpus) / "annotations.jsonl"
    if not annotations.is_file():
        sys.exit(f"{annotations}: no such file; build the corpus first (python -m experiments.benchmark build) or "
                 "pass --corpus DIR")

    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="critic_app", overrides=["report=false", "progress=false"])
    comp = build_components(cfg)

    def video_of(path: Path) -> VideoContext:
        video = load_video(path)
        return comp.video_filter(video) if comp.video_filter is not None else video

    t0 = time.perf_counter()
    tally: Counter[tuple[str, str]] = Counter()
    errors: list[str] = []
    unfound: list[str] = []
    for line in annotations.read_text().splitlines():
        clip = ClipAnnotation.model_validate_json(line)
        bodies = [o for o in clip.objects if o.color and colours.known(o.color) and o.shape in SHAPE_NOUNS]
        if not bodies:
            continue
        video = video_of(Path(args.corpus) / clip.video)
        for body in bodies:
            absent = body.name.endswith("_absent")
            state = looked_for(comp, video, body.name, body.color, SHAPE_NOUNS[body.shape][0], clip.prompt)
            kind = "corpus absent" if absent else "corpus present"
            tally[(kind, state)] += 1
            if state == "contradicted" and not absent:
                size = f"radius {body.radius_px:.1f} px" if body.radius_px else "size unknown"
                errors.append(f"{clip.id}: {body.color} {body.shape} ({body.name}, {size})")
            elif absent and state != "contradicted":
                unfound.append(f"{clip.id}: {body.color} {body.shape}")
    matrix = yaml.safe_load(Path(args.matrix).read_text())
    for clip_path, prompts in matrix.items():
        video = video_of(Path(args.external) / clip_path)
        for prompt in prompts:
            for colour in colours.named_in(prompt):
                state = looked_for(comp, video, f"{colour}_body", colour, "ball", prompt)
                tally[("truthful colour", state)] += 1
                if state == "contradicted":
                    errors.append(f"{Path(clip_path).stem}: {colour} in {prompt!r}")

    def count(kind: str) -> str:
        n = sum(v for (k, _), v in tally.items() if k == kind)
        return f"{tally[(kind, 'contradicted')]} of {n}"

    print(f"absence check on {sum(tally.values())} bodies and colours ({time.perf_counter() - t0:.1f} s)")
    print(f"corpus bodies present, called absent (errors): {count('corpus present')}")
    print(f"corpus bodies absent, called absent (found):   {count('corpus absent')}")
    print(f"truthful colours, called absent (errors):      {count('truthful colour')}")
    if errors:
        print("called absent, but there:")
        for e in errors:
            print(f"  {e}")
    if args.verbose and unfound:
        print("absent, left unknown:")
        for u in unfound:
            print(f"  {u}")


if __name__ == "__main__":
    main()
