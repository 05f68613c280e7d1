"""Run-directory outputs of one critique.

* ``plan.json`` - the validated plan (or ``plan_rejected.json`` with the reasons);
* ``evidence.jsonl`` - one :class:`EvidenceRecord` per dispatched operation, in execution order;
* ``verdict.json`` - the :class:`ClipVerdict` (claims, sub-checks, contradiction packets, cost, p_plausible);
* ``timings.json`` - wall seconds per operation and cache hits (the only file that differs between runs);
* ``filmstrips/<claim>.png`` - frames around each contradicted claim's window, tracks drawn;
* ``report.html`` - a self-contained page (images inline as base64 PNG).

Same inputs give byte-identical JSON: no timestamps or wall-clock seconds outside ``timings.json``, sorted
keys, rounded numbers from the specialists.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from critic.types import ClipVerdict, EvidenceRecord, Plan, Track, VideoContext
from veriphy.files import atomic_write_bytes, dumps_json, write_json

PALETTE = [(255, 225, 25), (70, 240, 240), (60, 180, 75), (245, 130, 48), (230, 25, 75), (0, 130, 200),
           (145, 30, 180), (240, 50, 230), (210, 245, 60)]
STATE_COLOURS = {"supported": "#1b7f3b", "contradicted": "#c0392b", "unknown": "#7f8c8d"}


# --------------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------------


def tracks_by_subject(plan: Plan, results: dict[str, Any]) -> dict[str, list[Track]]:
    out: dict[str, list[Track]] = {}
    for op in plan.operations:
        if op.op == "ground":
            r = results.get(op.id) or []
            out[op.subject] = [r] if isinstance(r, Track) else [t for t in r if isinstance(t, Track)]
    return out


def draw_tracks(frame: np.ndarray, k: int, tracks: dict[str, list[Track]]) -> np.ndarray:
    """Boxes and labels of every track in frame ``k`` (coasted positions dashed-looking: thinner)."""
    import cv2

    img = np.ascontiguousarray(frame.copy())
    scale = max(0.3, img.shape[0] / 600)  # label size follows the frame height
    for i, (subject, ts) in enumerate(sorted(tracks.items())):
        colour = PALETTE[i % len(PALETTE)]
        for t in ts:
            if k >= len(t.boxes_xyxy) or not np.all(np.isfinite(t.boxes_xyxy[k])):
                continue
            x0, y0, x1, y1 = (int(round(v)) for v in t.boxes_xyxy[k])
            x0, y0, x1, y1 = x0 - 2, y0 - 2, x1 + 2, y1 + 2  # around the object, not on it
            thick = 2 if bool(t.visible[k]) else 1  # thinner: coasted (predicted, not observed)
            cv2.rectangle(img, (x0, y0), (x1, y1), (0, 0, 0), thick + 2)  # dark outline: visible on any colour
            cv2.rectangle(img, (x0, y0), (x1, y1), colour, thick)
            cv2.putText(img, f"{subject}#{t.identity}", (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                        colour, 1, cv2.LINE_AA)
    return img


def filmstrip(video: VideoContext, frames: list[int], tracks: dict[str, list[Track]],
              highlight: set[int] = frozenset(), height: int = 96) -> bytes:
    """A horizontal strip of the given frames (PNG bytes); highlighted frames get a red border."""
    import cv2
    from PIL import Image

    tiles = []
    for k in frames:
        img = draw_tracks(video.frames[k], k, tracks)
        h, w = img.shape[:2]
        img = cv2.resize(img, (max(1, int(round(w * height / h))), height), interpolation=cv2.INTER_AREA)
        border = (200, 30, 30) if k in highlight else (255, 255, 255)
        img = cv2.copyMakeBorder(img, 3, 14, 3, 3, cv2.BORDER_CONSTANT, value=border)
        cv2.putText(img, f"f{k} {video.times_s[k]:.2f}s", (4, img.shape[0] - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.33,
                    (0, 0, 0) if k not in highlight else (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(img)
    strip = np.concatenate(tiles, axis=1) if tiles else np.zeros((height, 1, 3), np.uint8)
    buf = io.BytesIO()
    Image.fromarray(strip).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def overview_frames(n: int, k: int = 8) -> list[int]:
    return sorted(set(np.linspace(0, n - 1, min(k, n)).round().astype(int).tolist())) if n else []


def window_frames(start: int, end: int, n: int, k: int = 8, pad: int = 2) -> list[int]:
    """Up to ``k`` frames covering the window plus ``pad`` frames of context on each side."""
    lo, hi = max(0, start - pad), min(n - 1, end + pad)
    return sorted(set(np.linspace(lo, hi, min(k, hi - lo + 1)).round().astype(int).tolist()) | {start, end})


# --------------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------------


def write_outputs(run_dir: str | Path, plan: Plan | None, records: list[EvidenceRecord], verdict: ClipVerdict,
                  video: VideoContext | None = None, results: dict[str, Any] | None = None,
                  timings: dict[str, Any] | None = None, rejected: dict[str, Any] | None = None,
                  report: bool = True) -> ClipVerdict:
    """Write every output file; returns the verdict with packet filmstrip paths filled in."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if plan is not None:
        write_json(run_dir / "plan.json", plan.model_dump(mode="json"))
    if rejected is not None:
        write_json(run_dir / "plan_rejected.json", rejected)
    lines = [dumps_json(r.model_dump(mode="json"), indent=None) for r in records]
    atomic_write_bytes(run_dir / "evidence.jsonl", ("\n".join(lines) + ("\n" if lines else "")).encode())

    tracks = tracks_by_subject(plan, results or {}) if plan is not None else {}
    strips: dict[str, bytes] = {}
    if video is not None and video.num_frames:
        packets = []
        for p in verdict.packets:
            if p.window is not None:
                frames = window_frames(p.window.start_frame, p.window.end_frame, video.num_frames)
                png = filmstrip(video, frames, tracks, set(range(p.window.start_frame, p.window.end_frame + 1)))
                rel = f"filmstrips/{p.claim}.png"
                (run_dir / "filmstrips").mkdir(exist_ok=True)
                atomic_write_bytes(run_dir / rel, png)
                strips[p.claim] = png
                p = p.model_copy(update={"filmstrip": rel})
            packets.append(p)
        verdict = verdict.model_copy(update={"packets": packets})
    write_json(run_dir / "verdict.json", verdict.model_dump(mode="json"))
    write_json(run_dir / "timings.json", timings or {})
    if report:
        overview = filmstrip(video, overview_frames(video.num_frames), tracks) \
            if video is not None and video.num_frames else None
        atomic_write_bytes(run_dir / "report.html", render_html(plan, verdict, records, overview, strips,
                                                                rejected).encode())
    return verdict


def _img(png: bytes | None, alt: str) -> str:
    if not png:
        return ""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def _badge(state: str) -> str:
    return f'<span class="badge" style="background:{STATE_COLOURS.get(state, "#555")}">{html.escape(state)}</span>'


def marked_prompt(prompt: str, spans: list[tuple[int, int]], unchecked: list[tuple[int, int]] = ()) -> str:
    """The prompt with the given character spans wrapped in ``<mark>`` (overlaps merged) and the ``unchecked``
    ones (physical clauses no claim covers) in ``<mark class="unchecked">``."""
    style = np.zeros(len(prompt) + 1, np.int8)
    for value, group in ((2, unchecked), (1, spans)):
        for a, b in group:
            style[max(0, a):max(0, min(b, len(prompt)))] = value
    out, k = [], 0
    while k < len(prompt):
        j = k
        while j < len(prompt) and style[j] == style[k]:
            j += 1
        chunk = html.escape(prompt[k:j])
        out.append({0: chunk, 1: f"<mark>{chunk}</mark>", 2: f'<mark class="unchecked">{chunk}</mark>'}[int(style[k])])
        k = j
    return "".join(out)


def render_html(plan: Plan | None, verdict: ClipVerdict, records: list[EvidenceRecord], overview: bytes | None,
                strips: dict[str, bytes], rejected: dict[str, Any] | None = None) -> str:
    esc = html.escape
    contradicted = [c.span for c in verdict.claims if c.state == "contradicted"]
    unchecked = [u.span for u in verdict.unplanned if u.physical]
    unplanned = "".join(f"<tr><td>{esc(u.text)}<br><small>chars {u.span[0]}-{u.span[1]}</small></td>"
                        f"<td>{'physical: ' + esc(', '.join(u.words)) if u.physical else 'not physical'}</td></tr>"
                        for u in verdict.unplanned)
    rows = []
    for c in verdict.claims:
        subs = "<br>".join(f"{esc(s.obligation)} {_badge(s.state)} <code>{esc(s.op_id)}</code> {esc(s.text)}"
                           + (f" <small>({esc(s.reason)})</small>" if s.reason else "") for s in c.sub_checks)
        w = f"{c.window.start_s:.3f}-{c.window.end_s:.3f} s" if c.window else ""
        rows.append(f"<tr><td>{esc(c.id)}</td><td>{esc(c.kind)}</td><td>{esc(c.text)}<br><small>chars "
                    f"{c.span[0]}-{c.span[1]}</small></td><td>{_badge(c.state)}"
                    f"{' (overturned)' if c.overturned else ''}</td><td>{subs}</td><td>{w}</td></tr>")
    packets = []
    for p in verdict.packets:
        w = (f"{p.window.start_s:.3f}-{p.window.end_s:.3f} s (frames {p.window.start_frame}-{p.window.end_frame})"
             if p.window else "no window")
        ev = "".join(f"<tr><td>{esc(r.op_id)}</td><td>{esc(r.op)}</td><td><code>{esc(r.backend)}</code> "
                     f"{esc(r.version)}</td><td><code>{esc(json.dumps(r.args, sort_keys=True))}</code></td>"
                     f"<td>{_badge(r.state)}</td><td>{esc(r.required)}</td><td>{esc(r.measured)}</td></tr>"
                     for r in p.evidence)
        packets.append(f'<div class="packet"><h3>{esc(p.claim)}: &ldquo;{esc(p.span_text)}&rdquo; '
                       f'<small>chars {p.span[0]}-{p.span[1]}</small></h3><p>Window: <b>{esc(w)}</b></p>'
                       f"{_img(strips.get(p.claim), 'filmstrip for ' + p.claim)}"
                       "<table><tr><th>op</th><th>kind</th><th>backend</th><th>args</th><th>state</th>"
                       f"<th>required</th><th>measured</th></tr>{ev}</table></div>")
    ops = ""
    if plan is not None:
        ops = "".join(f"<tr><td>{esc(op.id)}</td><td>{esc(op.op)}</td><td><code>"
                      f"{esc(json.dumps(op.model_dump(mode='json', exclude={'id', 'op'}), sort_keys=True))}"
                      "</code></td></tr>" for op in plan.operations)
    rej = ""
    if rejected is not None:
        rej = "<h2>Plan rejected</h2><ul>" + "".join(f"<li>{esc(r)}</li>" for r in rejected.get("reasons", [])) \
              + "</ul>"
    cost = verdict.cost
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>VeriPhy critic: {esc(verdict.verdict)}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; max-width: 1400px; }}
mark {{ background: #f5b7b1; }} mark.unchecked {{ background: #fcf3cf; }} .badge {{ color: white; padding: 1px 6px; border-radius: 4px; font-size: 90%; }}
table {{ border-collapse: collapse; margin: .5em 0; }} td, th {{ border: 1px solid #ccc; padding: 3px 6px;
vertical-align: top; font-size: 90%; }} .packet {{ border-left: 4px solid #c0392b; padding-left: 1em;
margin: 1em 0; }} img {{ max-width: 100%; display: block; margin: .5em 0; }} .prompt {{ font-size: 120%; }}
</style></head><body>
<h1>Verdict: {_badge(verdict.verdict)} <small>p_plausible = {verdict.p_plausible:.3f}</small></h1>
<p class="prompt">{marked_prompt(verdict.prompt, contradicted, unchecked)}</p>
<p>{esc(verdict.reason)}. Clip <code>{esc(verdict.video)}</code> (sha256 {esc(verdict.clip_sha256[:16])}&hellip;).
Calls: {cost.calls} ({cost.tool_calls} tool, {cost.model_calls} model, {cost.planner_model_calls} planner)
over {cost.operations} operations.</p>
{('<p>Clip notes: ' + esc('; '.join(verdict.sanity.notes)) + '</p>') if verdict.sanity.notes else ''}
{_img(overview, 'filmstrip')}
{rej}
<h2>Contradiction packets</h2>{''.join(packets) or '<p>none</p>'}
<h2>Claims</h2><table><tr><th>id</th><th>kind</th><th>claim</th><th>state</th><th>sub-checks</th>
<th>window</th></tr>{''.join(rows)}</table>
<h2>Not checked</h2>{('<p>Clauses of the prompt no claim covers (a physical one keeps the clip from being '
                        'supported):</p><table><tr><th>clause</th><th>kind</th></tr>' + unplanned + '</table>')
                       if unplanned else '<p>none: every clause of the prompt is covered by a claim</p>'}
<h2>Plan</h2><table><tr><th>id</th><th>op</th><th>arguments</th></tr>{ops}</table>
<p><small>{len(records)} evidence records in evidence.jsonl.</small></p>
</body></html>
"""
