"""``python -m experiments.benchmark build``: render the annotated defect corpus (docs/benchmark.md, Corpus).

For each planned clip (all sources, sorted by id; this shard's slice ``plans[shard::num_shards]``): skip it when
its ``build.json`` carries the same config hash, else make it, check its annotation, and write
``clips/<id>/clip.mp4``, ``annotation.json`` and last ``build.json`` (atomic writes: an interrupted build leaves
no clip that looks finished). When every clip of the plan is present, ``annotations.jsonl`` (sorted by id) and
``corpus.json`` (counts by category, renderer, severity; the config) are rebuilt from the clip folders, so the
shards of a multirun need no coordination: whichever finishes last writes them (or run ``merge_only=true``).
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path
from typing import Any

import hydra
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from experiments.benchmark import audio as audio_mod
from experiments.benchmark.made import MadeClip
from experiments.benchmark.sources import ClipPlan, Source
from experiments.benchmark.types import DEFECT_CATEGORIES, ClipAnnotation
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, read_json, write_json
from veriphy.hashing import sha256_file, sha256_json
from veriphy.hydra_app import configure_threads, exit_on_user_error
from veriphy.video import write_video

#: Bump when a change to the makers changes what a clip with the same settings looks like.
CORPUS_VERSION = 3


def load_sources(cfg: DictConfig) -> dict[str, Source]:
    return {name: instantiate(node, _convert_="all") for name, node in cfg.sources.items()}


def all_plans(sources: dict[str, Source], seed: int) -> list[ClipPlan]:
    plans = [p for s in sources.values() for p in s.plans(seed)]
    return sorted(plans, key=lambda p: p.id)


def config_hash(plan: ClipPlan, source: Source, crf: int) -> str:
    return sha256_json({"version": CORPUS_VERSION, "plan": plan.__dict__, "source": source.settings(),
                        "crf": crf})[:20]


def up_to_date(clip_dir: Path, key: str) -> bool:
    marker = clip_dir / "build.json"
    if not (marker.is_file() and (clip_dir / "clip.mp4").is_file() and (clip_dir / "annotation.json").is_file()):
        return False
    try:
        return read_json(marker).get("config_hash") == key
    except UserError:
        return False


def annotation_of(plan: ClipPlan, made: MadeClip) -> ClipAnnotation:
    t, h, w = made.frames.shape[:3]
    return ClipAnnotation(id=plan.id, video=f"clips/{plan.id}/clip.mp4", prompt=made.prompt, renderer=made.renderer,
                          source=made.source, width=int(w), height=int(h), fps=float(made.fps), num_frames=int(t),
                          seed=plan.seed, camera=made.camera, objects=made.objects, claims=made.claims,
                          defects=made.defects, has_audio=made.audio is not None, notes=made.notes)


def build_clip(plan: ClipPlan, source: Source, out_dir: Path, crf: int) -> ClipAnnotation:
    made = source.make(plan, out_dir)
    ann = annotation_of(plan, made)
    clip_dir = out_dir / "clips" / plan.id
    clip_dir.mkdir(parents=True, exist_ok=True)
    (clip_dir / "build.json").unlink(missing_ok=True)  # not finished until build.json is written again
    write_video(clip_dir / "clip.mp4", made.frames, made.fps, audio=made.audio,
                audio_rate_hz=audio_mod.RATE_HZ if made.audio is not None else None, crf=crf)
    write_json(clip_dir / "annotation.json", ann.model_dump(mode="json"))
    return ann


def merge(out_dir: Path, plans: list[ClipPlan], cfg_for_record: dict[str, Any]) -> dict[str, Any] | None:
    """Rebuild annotations.jsonl and corpus.json from the clip folders; None when clips are missing."""
    missing = [p.id for p in plans if not (out_dir / "clips" / p.id / "build.json").is_file()]
    if missing:
        print(f"corpus: {len(missing)} of {len(plans)} clips not built yet (e.g. {missing[0]}); annotations.jsonl "
              "is written once every shard is done", file=sys.stderr)
        return None
    anns = [ClipAnnotation.model_validate(read_json(out_dir / "clips" / p.id / "annotation.json")) for p in plans]
    lines = "".join(a.model_dump_json() + "\n" for a in sorted(anns, key=lambda a: a.id))
    atomic_write_bytes(out_dir / "annotations.jsonl", lines.encode())
    summary = summarise(anns)
    summary["config"] = cfg_for_record
    write_json(out_dir / "corpus.json", summary)
    return summary


def summarise(anns: list[ClipAnnotation]) -> dict[str, Any]:
    by_cat = collections.Counter(d.category for a in anns for d in a.defects)
    by_sev = collections.Counter(str(d.severity) for a in anns for d in a.defects)
    clips_by_renderer = collections.Counter(a.renderer for a in anns)
    defects_by_renderer = collections.Counter(a.renderer for a in anns for _ in a.defects)
    clean_by_renderer = collections.Counter(a.renderer for a in anns if a.clean)
    per_clip = collections.Counter(str(len(a.defects)) for a in anns)
    return {
        "clips": len(anns),
        "clean_clips": sum(a.clean for a in anns),
        "defective_clips": sum(not a.clean for a in anns),
        "defects": sum(len(a.defects) for a in anns),
        "defects_by_category": {c: by_cat.get(c, 0) for c in DEFECT_CATEGORIES},
        "severity_histogram": {str(s): by_sev.get(str(s), 0) for s in range(1, 6)},
        "clips_by_renderer": dict(sorted(clips_by_renderer.items())),
        "clean_clips_by_renderer": dict(sorted(clean_by_renderer.items())),
        "defects_by_renderer": dict(sorted(defects_by_renderer.items())),
        "defects_per_clip": dict(sorted(per_clip.items())),
        "with_audio": sum(a.has_audio for a in anns),
        "resolutions": dict(sorted(collections.Counter(f"{a.width}x{a.height}" for a in anns).items())),
        "fps": dict(sorted(collections.Counter(f"{a.fps:g}" for a in anns).items())),
    }


def run(cfg: DictConfig) -> dict[str, Any] | None:
    configure_threads(cfg.num_threads, only_if_imported=False)
    if not 0 <= int(cfg.shard) < int(cfg.num_shards):
        raise UserError(f"shard {cfg.shard} is not in 0..{int(cfg.num_shards) - 1}", field="shard")
    out_dir = Path(cfg.out_dir)
    sources = load_sources(cfg)
    plans = all_plans(sources, int(cfg.seed))
    record = OmegaConf.to_container(cfg, resolve=True)
    for k in ("shard", "num_shards", "merge", "merge_only", "out_dir"):
        record.pop(k, None)
    if not cfg.merge_only:
        mine = plans[int(cfg.shard)::int(cfg.num_shards)]
        tic = time.perf_counter()
        built = 0
        for i, plan in enumerate(mine, 1):
            source = sources[plan.source]
            key = config_hash(plan, source, int(cfg.crf))
            clip_dir = out_dir / "clips" / plan.id
            prefix = f"[{i:>3}/{len(mine)}] {plan.id} {plan.source:<9}"
            if up_to_date(clip_dir, key):
                print(f"{prefix} up to date", flush=True)
                continue
            t0 = time.perf_counter()
            ann = build_clip(plan, source, out_dir, int(cfg.crf))
            seconds = time.perf_counter() - t0
            write_json(clip_dir / "build.json", {"config_hash": key, "clip_sha256": sha256_file(clip_dir / "clip.mp4"),
                                                 "seconds": round(seconds, 3)})
            built += 1
            cats = ", ".join(d.category for d in ann.defects) or "clean"
            print(f"{prefix} {ann.width}x{ann.height} {ann.num_frames:>3}f {ann.fps:g}fps "
                  f"{len(ann.defects)} defect(s): {cats} ({seconds:.1f} s)", flush=True)
        print(f"shard {cfg.shard}/{cfg.num_shards}: built {built}, skipped {len(mine) - built} of {len(mine)} clips "
              f"in {time.perf_counter() - tic:.1f} s", flush=True)
    if cfg.merge or cfg.merge_only:
        summary = merge(out_dir, plans, record)
        if summary is not None:
            print(f"corpus: {summary['clips']} clips ({summary['clean_clips']} clean), {summary['defects']} defects "
                  f"-> {out_dir / 'annotations.jsonl'}", flush=True)
        return summary
    return None


#: The repository's conf/ folder (an absolute path: the app runs as ``python -m experiments.benchmark build``,
#: where Hydra would otherwise look for a ``conf`` Python package).
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="benchmark_build")
def main(cfg: DictConfig) -> None:
    exit_on_user_error(run)(cfg)


if __name__ == "__main__":
    main()
