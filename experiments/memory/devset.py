"""A development corpus for memory M while the benchmark corpus is being built: the simulated scenes of ``conf/scene``
at a few sizes and jump lengths, each clean, with a teleport and with a vanish (``experiments.benchmark.devcorpus``).

``python -m experiments.memory.devset OUT_DIR`` writes ``OUT_DIR/annotations.jsonl`` and the clips (a minute or two on
one core). The clip ids name the scene and the variant (``ramp_128x80_j16_teleport``), so the hash split of
``experiments.memory.lessons`` spreads every scene over training, validation and test.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import OmegaConf

from experiments.benchmark.devcorpus import SimulatedScene, simulated_clips, write_corpus
from experiments.benchmark.types import ClipAnnotation
from experiments.scene import fit_spec_to_video
from experiments.types import VideoSize

SCENE_DIR = Path(__file__).resolve().parents[2] / "conf" / "scene"

#: scene config -> (prompt, the object the doctoring changes)
PROMPTS: dict[str, tuple[str, str | None]] = {
    "thrown_ball": ("A red ball is thrown to the right and bounces on a grey floor", None),
    "ramp": ("An orange ball rolls down a ramp, off its edge and falls to the floor", None),
    "wall_bounce": ("A red ball rolls to the right, hits a wall and bounces back", None),
    "collision": ("A red ball rolls to the right and hits a blue ball", "ball_a"),
    "dominoes": ("A red domino tips over and knocks down a row of red and blue dominoes", "domino_1"),
}
#: (width, height, frames, fps, jump in px)
VARIANTS: tuple[tuple[int, int, int, float, int], ...] = (
    (96, 64, 21, 24.0, 8), (96, 64, 21, 24.0, 16), (128, 80, 25, 24.0, 10), (128, 80, 25, 24.0, 20),
    (112, 72, 23, 24.0, 6), (112, 72, 23, 24.0, 14), (144, 96, 27, 24.0, 12), (144, 96, 27, 24.0, 24))


def build(out_dir: str | Path, scenes: dict[str, tuple[str, str | None]] = PROMPTS,
          variants: tuple[tuple[int, int, int, float, int], ...] = VARIANTS) -> list[ClipAnnotation]:
    out_dir = Path(out_dir)
    clips: list[ClipAnnotation] = []
    for scene, (prompt, target) in scenes.items():
        for width, height, frames, fps, jump in variants:
            spec = fit_spec_to_video(instantiate(OmegaConf.load(SCENE_DIR / f"{scene}.yaml")),
                                     VideoSize(width=width, height=height, num_frames=frames, fps=fps))
            name = f"{scene}_{width}x{height}_j{jump}"
            clips += simulated_clips(out_dir, SimulatedScene(name, spec, prompt, target), jump_px=jump)
    write_corpus(out_dir, clips)
    return clips


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m experiments.memory.devset OUT_DIR", file=sys.stderr)
        raise SystemExit(2)
    made = build(sys.argv[1])
    print(f"{len(made)} clips ({sum(c.clean for c in made)} clean) in {sys.argv[1]}")
