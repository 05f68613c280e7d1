"""``python -m critic``: critique clips against their prompts.

Single clip: ``video=PATH`` and ``prompt="..."`` (or ``prompt_file=PATH`` for prompts with commas or quotes,
which Hydra's override syntax would otherwise split). Writes ``plan.json``, ``evidence.jsonl``,
``verdict.json``, ``timings.json``, ``report.html`` and ``manifest.json`` into the run directory and prints
the verdict.

Batch: ``manifest=FILE.jsonl`` with one ``{"id": ..., "video": ..., "prompt": ...}`` object per line (relative
video paths are resolved against the manifest's folder). Each clip gets ``<run_dir>/<id>/``; ``verdicts.jsonl``
gets one line per manifest line: ``{"id", "verdict", "claims": [{"text", "span", "state", "window_s"}],
"unplanned": [{"text", "span"}], "calls"}``. Ids are unique in the output: a repeated id becomes ``<id>_2``,
``<id>_3`` ... (in its line and its folder, the line keeping the manifest's id as ``renamed_from``). A line that cannot be critiqued (not JSON, a missing field, a missing video, an empty prompt) is
reported on stderr naming the clip and the reason, written as ``"verdict": "error"`` with an ``"error"``
field, and the batch goes on.

Exit code 0 whatever the verdicts; 2 for a user's error (missing input, unreadable manifest or video).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig

from critic.run import CriticComponents, build_components, critique
from critic.types import ClipVerdict
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, dumps_json
from veriphy.hashing import sha256_bytes
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest


def summary_line(clip_id: str, verdict: ClipVerdict) -> dict[str, Any]:
    """The batch line for one clip."""
    return {"id": clip_id, "verdict": verdict.verdict,
            "claims": [{"text": c.text, "span": list(c.span), "state": c.state, "kind": c.kind,
                        "window_s": [c.window.start_s, c.window.end_s] if c.window else None}
                       for c in verdict.claims],
            "unplanned": [{"text": u.text, "span": list(u.span)} for u in verdict.unplanned if u.physical],
            "calls": verdict.cost.calls, "p_plausible": verdict.p_plausible}


def _read_prompt(cfg: DictConfig) -> str:
    if cfg.get("prompt_file") is not None:
        if cfg.get("prompt") is not None:
            raise UserError("give prompt= or prompt_file=, not both", field="prompt_file")
        path = Path(str(cfg.prompt_file))
        if not path.is_file():
            raise UserError("prompt file not found", file=path, field="prompt_file")
        try:
            return path.read_text(encoding="utf-8").strip()
        except UnicodeDecodeError:
            raise UserError("prompt file is not UTF-8 text", file=path, field="prompt_file") from None
    if cfg.get("prompt") is None:
        raise UserError("no prompt: give prompt=\"...\" or prompt_file=PATH", field="prompt")
    return str(cfg.prompt)


def _unique_id(clip_id: str, seen: set[str]) -> str:
    """``clip_id``, or ``<clip_id>_2``, ``_3`` ... when the batch already has it."""
    name, k = clip_id, 2
    while name in seen:
        name, k = f"{clip_id}_{k}", k + 1
    seen.add(name)
    return name


def _safe_id(clip_id: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.\-]+", "_", clip_id).strip("._") or "clip"
    name, k = base[:80], 2
    while name in taken:
        name, k = f"{base[:80]}_{k}", k + 1
    taken.add(name)
    return name


def run_batch(manifest: Path, comp: CriticComponents, run_dir: Path) -> dict[str, int]:
    """Critique every line of ``manifest``; returns counts per verdict (and ``error``)."""
    if not manifest.is_file():
        raise UserError("manifest not found", file=manifest, field="manifest")
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise UserError("manifest is not UTF-8 text", file=manifest, field="manifest") from None
    from tqdm import tqdm

    run_dir.mkdir(parents=True, exist_ok=True)
    out_lines: list[str] = []
    counts: dict[str, int] = {}
    taken: set[str] = set()  # folder names
    seen: set[str] = set()  # ids in verdicts.jsonl
    entries = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    for n, line in tqdm(entries, desc="clips", unit="clip", file=sys.stderr, disable=not comp.progress):
        clip_id = f"line{n}"
        try:
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"not JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(item, dict):
                raise UserError("a manifest line must be a JSON object {\"id\", \"video\", \"prompt\"}")
            manifest_id = str(item.get("id", clip_id))
            clip_id = _unique_id(manifest_id, seen)
            if clip_id != manifest_id:
                print(f"warning: {manifest}: line {n}: id {manifest_id!r} repeated, written as {clip_id!r}",
                      file=sys.stderr)
            missing = [k for k in ("video", "prompt") if not item.get(k)]
            if missing:
                raise UserError(f"missing field(s) {', '.join(missing)}")
            video = Path(str(item["video"]))
            if not video.is_absolute():
                video = manifest.parent / video
            verdict = critique(video, str(item["prompt"]), comp, run_dir / _safe_id(clip_id, taken))
            record = summary_line(clip_id, verdict)
            if clip_id != manifest_id:
                record["renamed_from"] = manifest_id
            print(f"[{n}/{len(lines)}] {clip_id}: {verdict.verdict} ({verdict.reason})", file=sys.stderr)
        except UserError as exc:
            print(f"error: {manifest}: line {n} (clip {clip_id}): {exc.message}", file=sys.stderr)
            record = {"id": clip_id, "verdict": "error", "error": exc.message, "claims": [], "calls": 0}
        except Exception as exc:  # one broken clip must not end the batch; the message names it
            reason = f"{type(exc).__name__}: {exc}"
            print(f"error: {manifest}: line {n} (clip {clip_id}): {reason}", file=sys.stderr)
            record = {"id": clip_id, "verdict": "error", "error": reason, "claims": [], "calls": 0}
        counts[record["verdict"]] = counts.get(record["verdict"], 0) + 1
        out_lines.append(dumps_json(record, indent=None))
    atomic_write_bytes(run_dir / "verdicts.jsonl", ("\n".join(out_lines) + ("\n" if out_lines else "")).encode())
    return counts


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="critic_app")
@exit_on_user_error
def _hydra_main(cfg: DictConfig) -> None:
    configure_threads(cfg.get("num_threads"))
    run_dir = hydra_run_dir()
    if cfg.get("manifest") is not None:
        if cfg.get("video") is not None or cfg.get("prompt") is not None:
            raise UserError("give manifest= alone, or video= with prompt=", field="manifest")
        comp = build_components(cfg)
        manifest = Path(str(cfg.manifest))
        counts = run_batch(manifest, comp, run_dir)
        write_manifest(run_dir, stage="critic", inputs={"manifest": manifest}, extra={"counts": counts})
        print(f"{sum(counts.values())} clips: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        print(f"verdicts: {run_dir / 'verdicts.jsonl'}")
        return
    if cfg.get("video") is None:
        raise UserError("no input: give video=PATH with prompt=\"...\" (or prompt_file=PATH), or manifest=FILE.jsonl",
                        field="video")
    prompt = _read_prompt(cfg)
    video = Path(str(cfg.video))
    if not video.is_file():
        raise UserError("video file not found", file=video, field="video")
    comp = build_components(cfg)
    verdict = critique(video, prompt, comp, run_dir)
    write_manifest(run_dir, stage="critic", inputs={"video": video},
                   input_hashes={"prompt": sha256_bytes(prompt.encode())},
                   extra={"verdict": verdict.verdict})
    print(f"{verdict.verdict}: {verdict.reason}")
    for c in verdict.claims:
        if c.state == "contradicted":
            w = f" [{c.window.start_s:.2f}-{c.window.end_s:.2f} s]" if c.window else ""
            print(f"  contradicted: \"{c.text}\" (chars {c.span[0]}-{c.span[1]}){w}")
    print(f"run directory: {run_dir}")


def main(argv: list[str] | None = None) -> None:
    """``python -m critic [key=value ...]`` (``argv``: the arguments, default the command line's)."""
    run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
