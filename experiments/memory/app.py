"""``python -m experiments.memory distill|review|measure corpus=DIR lessons=FILE [critic overrides]``.

* ``distill``: critique the training split untaught and write every missed defect's candidate lesson into the lessons
  file (lessons already there keep their status); ``distill.csv`` in the run directory logs each defect;
* ``review``: teach each candidate alone on the validation split and gate it (``min_hits``, ``max_false_alarms``);
  the file gets each lesson's status, hits, false alarms and reason; ``review.csv`` logs the clips it changed;
* ``measure``: on the test split, flaws found untaught vs taught with the file's accepted lessons (exact McNemar
  interval on the change), false alarms before and after, and the saturation curve: distil from the first N
  training clips and review again, for each N of ``grid`` (``measure.json``/``.md``, ``saturation.csv``/``.png``/
  ``.pdf`` in ``out``).

Apply: ``python -m critic ... memory=FILE`` or ``python -m experiments.benchmark critique ... memory=FILE``: the
planner reads the accepted lessons.

Critiques are kept in ``work`` keyed by the clip and the SHA-256 of (plan, critic configuration, video bytes): a lesson whose
trigger does not match a prompt leaves its plan unchanged, so that clip is not critiqued again, and a rerun (or
another N of the saturation grid) critiques only what it has not seen.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import hydra
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from critic.memory import Lesson, Memory  # noqa: E402
from critic.run import CriticComponents, build_components, critique  # noqa: E402
from experiments.benchmark.runs import load_corpus, report_from_verdict, safe_name  # noqa: E402
from experiments.benchmark.scoring import ClipReport  # noqa: E402
from experiments.benchmark.types import ClipAnnotation  # noqa: E402
from experiments.jobstate import write_csv  # noqa: E402
from experiments.memory.lessons import Critique, compare, distil, review, split_corpus  # noqa: E402
from veriphy.errors import UserError  # noqa: E402
from veriphy.files import atomic_write_bytes, read_json, write_json  # noqa: E402
from veriphy.hashing import sha256_file, sha256_json  # noqa: E402
from veriphy.hydra_app import configure_threads, exit_on_user_error, hydra_run_dir, take_verb  # noqa: E402

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")
VERBS = ("distill", "review", "measure")


class CorpusCritic:
    """Critiques corpus clips with lessons taught, keeping each report in ``work`` under the clip id and the hash of
    (plan, ``critic_config``, the video file's SHA-256): the same plan on the same clip is never critiqued twice, and
    a clip rebuilt since is critiqued again."""

    def __init__(self, corpus_dir: Path, work_dir: Path, comp: CriticComponents, critic_config: Any):
        self.corpus_dir, self.work_dir, self.comp = Path(corpus_dir), Path(work_dir), comp
        self.critic_config = critic_config
        self.critiqued = 0
        self._video_sha: dict[str, str] = {}

    def __call__(self, clip: ClipAnnotation, lessons: Sequence[Lesson]) -> Critique:
        memory = Memory(None)
        for lesson in lessons:
            memory.lessons[lesson.id] = lesson.model_copy(update={"status": "accepted"})
        result = self.comp.planner.plan(clip.prompt, memory.active())
        plan = result.plan
        if clip.id not in self._video_sha:
            video = self.corpus_dir / clip.video
            self._video_sha[clip.id] = sha256_file(video) if video.is_file() else ""
        key = sha256_json({"plan": plan.model_dump(mode="json") if plan else list(result.rejected),
                           "critic": self.critic_config, "video": self._video_sha[clip.id]})[:16]
        where = Path("critiques") / safe_name(clip.id) / key
        path = self.work_dir / where / "report.json"
        if path.is_file():
            return Critique(plan, ClipReport.model_validate(read_json(path)))
        t0 = time.perf_counter()
        try:
            verdict = critique(self.corpus_dir / clip.video, clip.prompt, replace(self.comp, memory=memory),
                               self.work_dir / where)
            report = report_from_verdict(clip.id, verdict, plan, where.as_posix(), time.perf_counter() - t0)
        except Exception as exc:  # one broken clip must not end the run: it counts as not contradicted
            report = ClipReport(id=clip.id, verdict="error", error=f"{type(exc).__name__}: {exc}")
        write_json(path, report.model_dump(mode="json"))
        self.critiqued += 1
        return Critique(plan, report)


def _setup(cfg: DictConfig) -> tuple[dict[str, list[ClipAnnotation]], CorpusCritic, Path]:
    configure_threads(cfg.get("num_threads"))
    if cfg.get("corpus") is None:
        raise UserError("no corpus: give corpus=DIR (the folder with annotations.jsonl)", field="corpus")
    corpus = Path(str(cfg.corpus))
    try:
        splits = split_corpus(load_corpus(corpus), list(cfg.splits))
    except ValueError as exc:
        raise UserError(str(exc), field="splits") from None
    critic_config = OmegaConf.to_container(cfg.critic, resolve=True)
    work = Path(str(cfg.work)) if cfg.get("work") else Path("outputs/memory/work")
    critic = CorpusCritic(corpus, work, build_components(cfg), critic_config)
    return splits, critic, Path(str(cfg.lessons))


def _training(splits: dict[str, list[ClipAnnotation]], limit: int | None) -> list[ClipAnnotation]:
    train = splits["train"]
    return train if limit is None else train[:int(limit)]


def run_distill(train: Sequence[ClipAnnotation], critic: Any, min_iou: float) -> tuple[list[Lesson], list[dict]]:
    return distil(train, {c.id: critic(c, []) for c in train}, min_iou)


def merge_candidates(memory: Memory, candidates: Sequence[Lesson]) -> list[str]:
    """Add the candidates the file does not hold yet (a reviewed lesson keeps its status); returns the new ids."""
    new = [c.id for c in candidates if c.id not in memory.lessons]
    for c in candidates:
        if c.id in new:
            memory.propose(c)
    return new


def do_distill(cfg: DictConfig) -> None:
    splits, critic, lessons_path = _setup(cfg)
    train = _training(splits, cfg.get("train_limit"))
    candidates, log = run_distill(train, critic, float(cfg.min_iou))
    memory = Memory(lessons_path)
    new = merge_candidates(memory, candidates)
    memory.save()
    out = hydra_run_dir()
    write_csv(out / "distill.csv", log, ["clip", "defect", "category", "object", "outcome", "lesson", "skipped"])
    print(f"distill: {len(train)} training clips ({critic.critiqued} critiqued), {len(log)} defects, "
          f"{len(candidates)} candidate(s), {len(new)} new in {lessons_path}")
    for c in candidates:
        print(f"  {c.id}: trigger {c.trigger!r} -> {c.quantity} (from {c.provenance.clip} {c.provenance.flaw}, "
              f"{c.examples} example(s))")


def do_review(cfg: DictConfig) -> None:
    splits, critic, lessons_path = _setup(cfg)
    if not lessons_path.is_file():
        raise UserError("no lessons file: run distill first", file=lessons_path, field="lessons")
    memory = Memory(lessons_path, min_hits=int(cfg.min_hits), max_false_alarms=int(cfg.max_false_alarms))
    candidates = [lesson for _, lesson in sorted(memory.lessons.items()) if lesson.status == "candidate"]
    gated, rows = review(candidates, splits["validation"], critic, min_hits=int(cfg.min_hits),
                         max_false_alarms=int(cfg.max_false_alarms), min_iou=float(cfg.min_iou))
    memory.lessons.update(gated.lessons)
    memory.save()
    write_csv(hydra_run_dir() / "review.csv", [{**r, "gained": " ".join(r["gained"]), "lost": " ".join(r["lost"])}
                                               for r in rows], ["lesson", "clip", "gained", "lost", "false_alarms"])
    print(f"review: {len(candidates)} candidate(s) on {len(splits['validation'])} validation clips "
          f"({critic.critiqued} critiqued)")
    for lesson in (gated.lessons[k] for k in sorted(gated.lessons)):
        print(f"  {lesson.id}: {lesson.reason}")


def measure_lessons(test: Sequence[ClipAnnotation], critic: Any, lessons: Sequence[Lesson], min_iou: float
                    ) -> dict[str, Any]:
    untaught = {c.id: critic(c, []).report for c in test}
    taught = {c.id: critic(c, lessons).report for c in test}
    return compare(test, untaught, taught, min_iou)


def default_grid(n_train: int) -> list[int]:
    grid, n = [0], 1
    while n < n_train:
        grid.append(n)
        n *= 2
    return sorted(set(grid + [n_train]))


SATURATION_COLUMNS = ["experience_clips", "candidates", "accepted", "pruned", "defects", "recall_untaught",
                      "recall_taught", "change", "change_lo", "change_hi", "p_value", "whole_untaught", "whole_taught",
                      "false_alarm_clips_untaught", "false_alarm_clips_taught", "clean_clips",
                      "false_claims_untaught", "false_claims_taught"]


def saturation(splits: dict[str, list[ClipAnnotation]], critic: Any, grid: Sequence[int], *, min_hits: int,
               max_false_alarms: int, min_iou: float) -> list[dict[str, Any]]:
    """For each N of ``grid``: distil from the first N training clips, review on validation, measure on test."""
    rows = []
    for n in grid:
        candidates, _ = run_distill(splits["train"][:n], critic, min_iou)
        gated, _ = review(candidates, splits["validation"], critic, min_hits=min_hits,
                          max_false_alarms=max_false_alarms, min_iou=min_iou)
        m = measure_lessons(splits["test"], critic, gated.active(), min_iou)
        rows.append(saturation_row(n, candidates, gated, m))
    return rows


def saturation_row(n: int, candidates: Sequence[Lesson], gated: Memory, m: dict[str, Any]) -> dict[str, Any]:
    a, w, fa = m["any"], m["whole"], m["false_alarms"]
    return {"experience_clips": n, "candidates": len(candidates), "accepted": len(gated.active()),
            "pruned": sum(lesson.status == "pruned" for lesson in gated.lessons.values()), "defects": m["defects"],
            "recall_untaught": a["recall_untaught"], "recall_taught": a["recall_taught"], "change": a["change"],
            "change_lo": a["change_lo"], "change_hi": a["change_hi"], "p_value": a["p_value"],
            "whole_untaught": w["recall_untaught"], "whole_taught": w["recall_taught"],
            "false_alarm_clips_untaught": fa["untaught"]["false_alarm_clips"],
            "false_alarm_clips_taught": fa["taught"]["false_alarm_clips"], "clean_clips": m["clean_clips"],
            "false_claims_untaught": fa["untaught"]["false_claims"], "false_claims_taught": fa["taught"]["false_claims"]}


def saturation_figure(rows: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Test-split recall (whole or partial) against the number of training clips lessons were distilled from."""
    fig, ax = plt.subplots(figsize=(5.0, 3.4), dpi=150)
    ok = [r for r in rows if r["recall_taught"] is not None]
    xs = [r["experience_clips"] for r in ok]
    ax.plot(xs, [r["recall_untaught"] for r in ok], "--", color="0.5", label="untaught")
    ax.plot(xs, [r["recall_taught"] for r in ok], "o-", color="C0", label="taught (accepted lessons)")
    lo = [r["recall_untaught"] + r["change_lo"] for r in ok]
    hi = [r["recall_untaught"] + r["change_hi"] for r in ok]
    ax.fill_between(xs, lo, hi, color="C0", alpha=0.2, label="95% exact McNemar interval")
    ax.set_xlabel("training clips distilled from")
    ax.set_ylabel("test defects found (whole or partial)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    paths = []
    for ext in ("png", "pdf"):
        p = out_dir / f"saturation.{ext}"
        tmp = p.with_suffix(f".tmp.{ext}")
        fig.savefig(tmp, metadata={"CreationDate": None} if ext == "pdf" else {"Software": None})
        tmp.replace(p)
        paths.append(p)
    plt.close(fig)
    return paths


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}%"


def _p(v: Any) -> str:
    return "n/a" if v is None else f"{v:.3g}"


def measure_markdown(m: dict[str, Any], lessons: Sequence[Lesson]) -> str:
    a, w, fa = m["any"], m["whole"], m["false_alarms"]
    lines = [f"Test split: {m['clips']} clips ({m['clean_clips']} clean), {m['defects']} defects; "
             f"{len(lessons)} accepted lesson(s): {', '.join(x.id for x in lessons) or 'none'}.", "",
             "| found | untaught | taught | lost (b) | gained (c) | change (95% exact McNemar) | p |", "|---|---|---|---|---|---|---|"]
    for name, r in (("whole or partial", a), ("whole", w)):
        ci = "n/a" if r["change"] is None else \
            f"{100 * r['change']:+.1f} pp [{100 * r['change_lo']:+.1f}, {100 * r['change_hi']:+.1f}]"
        lines.append(f"| {name} | {r['found_untaught']}/{r['n']} = {_pct(r['recall_untaught'])} | "
                     f"{r['found_taught']}/{r['n']} = {_pct(r['recall_taught'])} | {r['b_lost']} | {r['c_gained']} | "
                     f"{ci} | {_p(r['p_value'])} |")
    lines += ["", "| category | defects | found untaught | found taught |", "|---|---|---|---|"]
    lines += [f"| {k} | {r['defects']} | {r['found_untaught']} | {r['found_taught']} |"
              for k, r in m["by_category"].items()]
    lines += ["", f"False alarms on clean clips: {fa['untaught']['false_alarm_clips']}/{m['clean_clips']} untaught, "
              f"{fa['taught']['false_alarm_clips']}/{m['clean_clips']} taught; false contradicted claims on flawed "
              f"clips: {fa['untaught']['false_claims']} untaught, {fa['taught']['false_claims']} taught."]
    return "\n".join(lines) + "\n"


def do_measure(cfg: DictConfig) -> None:
    splits, critic, lessons_path = _setup(cfg)
    if not lessons_path.is_file():
        raise UserError("no lessons file: run distill and review first", file=lessons_path, field="lessons")
    out = Path(str(cfg.out)) if cfg.get("out") else hydra_run_dir()
    out.mkdir(parents=True, exist_ok=True)
    lessons = Memory(lessons_path).active()
    min_iou = float(cfg.min_iou)
    m = measure_lessons(splits["test"], critic, lessons, min_iou)
    grid = list(cfg.grid) if cfg.get("grid") is not None else default_grid(len(splits["train"]))
    rows = saturation(splits, critic, [min(int(n), len(splits["train"])) for n in grid],
                      min_hits=int(cfg.min_hits), max_false_alarms=int(cfg.max_false_alarms), min_iou=min_iou)
    sizes = {k: len(v) for k, v in splits.items()}
    write_json(out / "measure.json", {"splits": sizes, "lessons": [x.id for x in lessons], "test": m,
                                      "saturation": rows})
    md = measure_markdown(m, lessons)
    atomic_write_bytes(out / "measure.md", md.encode())
    write_csv(out / "saturation.csv", rows, SATURATION_COLUMNS)
    saturation_figure(rows, out)
    print(f"splits: {sizes}; {critic.critiqued} critiques run")
    print(md, end="")
    for r in rows:
        print(f"  N={r['experience_clips']}: {r['accepted']}/{r['candidates']} accepted, recall "
              f"{_pct(r['recall_untaught'])} -> {_pct(r['recall_taught'])}, false alarm clips "
              f"{r['false_alarm_clips_untaught']} -> {r['false_alarm_clips_taught']}")
    print(f"out: {out}")


VERB_FUNCTIONS = {"distill": do_distill, "review": do_review, "measure": do_measure}


@hydra.main(version_base="1.3", config_path=CONF_DIR, config_name="memory_app")
@exit_on_user_error
def main(cfg: DictConfig) -> None:
    verb = cfg.get("verb")
    if verb not in VERB_FUNCTIONS:
        raise UserError(f"verb must be one of {', '.join(VERBS)}", field="verb")
    VERB_FUNCTIONS[verb](cfg)


def cli(argv: list[str] | None = None) -> None:
    verb, args = take_verb(VERBS, __doc__, argv)
    # Hydra reads sys.argv: hand it the overrides with the verb as one of them.
    sys.argv = [f"{sys.argv[0]} {verb}", f"verb={verb}", *args]
    main()
