"""The four pixel sources as configurable objects (``_target_`` in ``conf/benchmark_build.yaml``).

Each source plans ``defective`` + ``clean`` clips (ids ``<prefix><index>``) and makes one clip from a plan. A
clip's seed comes from the corpus seed, the source and the clip's index only, so any shard makes the same clip.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from experiments.benchmark import external_edits, generator_clips, simulated
from experiments.benchmark.made import MadeClip
from experiments.benchmark.world import MAX_PIXEL_FRAMES
from veriphy.hashing import sha256_json

#: Defects planned in a defective clip: 1, 2 or 3 with these probabilities (some are dropped as invisible).
DEFECTS_PER_CLIP = ((1, 0.3), (2, 0.42), (3, 0.28))


@dataclass(frozen=True)
class ClipPlan:
    id: str
    source: str
    index: int
    defective: bool
    seed: int


def clip_seed(corpus_seed: int, source: str, index: int) -> int:
    return int(sha256_json({"corpus_seed": corpus_seed, "source": source, "index": index})[:12], 16)


def num_defects(rng: np.random.Generator, defective: bool) -> int:
    if not defective:
        return 0
    counts, probs = zip(*DEFECTS_PER_CLIP)
    return int(rng.choice(counts, p=probs))


@dataclass
class Source:
    """Shared: ``prefix`` of clip ids, how many ``defective`` and ``clean`` clips."""

    name: str = ""
    prefix: str = ""
    defective: int = 0
    clean: int = 0

    def plans(self, corpus_seed: int) -> list[ClipPlan]:
        total = self.defective + self.clean
        # Clean clips spread evenly among the defective ones, so every shard gets both.
        clean_at = {int(i) for i in np.floor(np.arange(self.clean) * total / max(self.clean, 1))}
        return [ClipPlan(id=f"{self.prefix}{i:04d}", source=self.name, index=i, defective=i not in clean_at,
                         seed=clip_seed(corpus_seed, self.name, i)) for i in range(total)]

    def settings(self) -> dict:
        """What a clip depends on (the counts are not: adding clips leaves the others up to date)."""
        # An empty focus is left out, so that sources without one keep the hashes they had before it existed.
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()
                if k not in ("defective", "clean") and not (k == "focus" and not v)}

    def make(self, plan: ClipPlan, out_dir: Path) -> MadeClip:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass
class SimulatedSource(Source):
    """PyBullet or analytic renders of sampled worlds (``renderer``: pybullet | analytic)."""

    renderer: str = "pybullet"
    max_objects: int = 6
    max_width: int = 848
    max_pixel_frames: int = MAX_PIXEL_FRAMES
    #: Categories the clips must carry first, in turn (clip i: focus[i % len]); empty: all drawn at random.
    focus: tuple[str, ...] = ()

    def make(self, plan: ClipPlan, out_dir: Path) -> MadeClip:
        rng = np.random.default_rng(plan.seed)
        focus = self.focus[plan.index % len(self.focus)] if self.focus and plan.defective else None
        return simulated.make_clip(rng, renderer=self.renderer, num_defects=num_defects(rng, plan.defective),
                                   max_objects=self.max_objects, max_width=self.max_width,
                                   max_pixel_frames=self.max_pixel_frames, focus=focus)


@dataclass
class GeneratorSource(Source):
    """Edited clips of the tiny generator: ``bases`` base clips of ``num_steps`` denoising steps, each reused by
    several corpus clips; ``upscale_share`` of clips shown at 128x128 (pixel repeat)."""

    bases: int = 5
    num_steps: int = 8
    pretrained_dir: str | None = "pretrained"
    upscale_share: float = 0.3
    base_seed: int = 100

    def make(self, plan: ClipPlan, out_dir: Path) -> MadeClip:
        rng = np.random.default_rng(plan.seed)
        seed = self.base_seed + plan.index % max(1, self.bases)
        base = generator_clips.base_clip(out_dir / "cache" / "generator", seed, num_steps=self.num_steps,
                                         pretrained_dir=self.pretrained_dir)
        upscale = 2 if rng.random() < self.upscale_share else 1
        return generator_clips.make_clip(rng, base, base_seed=seed, num_defects=num_defects(rng, plan.defective),
                                         upscale=upscale)


@dataclass
class ExternalSource(Source):
    """Doctored copies of the external correct clips under ``external_dir`` (relative to the working
    directory)."""

    external_dir: str = "tests/data/external"

    def make(self, plan: ClipPlan, out_dir: Path) -> MadeClip:
        rng = np.random.default_rng(plan.seed)
        return external_edits.make_clip(rng, Path(self.external_dir), num_defects=num_defects(rng, plan.defective))
