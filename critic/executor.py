"""Gate and executor: dispatch exactly the plan's operations, record evidence, cache results.

The gate (docs/architecture.md §5): only operations declared in a *validated* plan are dispatched, each with its
declared arguments (the frozen operation object itself), in dependency order. A specialist sees the clip and the
results of the operations the plan says this one reads - nothing else - and returns a typed result; it
cannot add operations or claims. Whatever it returns is evidence only: a string read from the video (OCR)
is stored in ``values`` and never parsed as an instruction. Windows it reports are clipped to the clip.

Results are cached by (clip sha256, operation and arguments, backend ``_target_`` and version, and the cache
keys of its inputs), as JSON and NPZ (:class:`OperationCache`). Every dispatch leaves an :class:`EvidenceRecord`
with the operation's cost node c(o), the same whether or not the result came from the cache; which operations
were cache hits is recorded in :attr:`Execution.cache_hits` (the verdict's cost counts no call for them, and
``timings.json`` lists them) and wall seconds in the timings table, so evidence files stay byte-identical across
runs.

Evidence discipline for temporal operations: an operand window is used only when the measurement that produced
it is firm (supported or contradicted). A window from a measurement that is unknown - withheld because its
track may not be its subject, or unable to decide - makes the temporal operation unknown, with the reason.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from critic.aggregator import SLACK_FRACTION, TEMPORAL, any_occurrence
from critic.plan import check_plan, dependencies, execution_order
from critic.types import (CONTRADICTED, SUPPORTED, UNKNOWN, AnyOp, Cost, EvidenceRecord, GroundOp, HearOp,
                          JudgeOp, Measurement, OperationInputs, Plan, TimeWindow, Track, VideoContext, op_event_refs,
                          op_subjects)
from veriphy.files import load_npz, read_json, save_npz, write_json
from veriphy.hashing import sha256_file, sha256_json

log = logging.getLogger(__name__)

EXECUTOR_VERSION = "2"
#: operations that read tracks and cannot say anything when a subject was not found
_NEEDS_TRACKS = ("measure", "depth")


class OperationCache:
    """Results by key, in memory and (when ``directory`` is set) on disk, so a re-run on the same clip skips the
    specialists.

    On disk a result is data, never code: a :class:`Measurement` is ``<key>.json``; the tracks of a ``ground``
    are ``<key>.npz`` (their arrays, plain numbers: no objects are ever loaded) beside ``<key>.json`` (their subjects,
    identities, backends and metadata, and the sha256 of the ``.npz`` bytes). An entry is used only when the key it
    records is the key asked for and, for tracks, the arrays are the ones it describes; anything else (a corrupt,
    foreign or stale file) is a miss and the operation runs again."""

    FORMAT = 2

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory else None
        self._mem: dict[str, Measurement | list[Track]] = {}

    def get(self, key: str) -> Measurement | list[Track] | None:
        if key in self._mem:
            return self._mem[key]
        if self.directory is None or not (self.directory / f"{key}.json").is_file():
            return None
        try:
            value = self._read(key)
        except Exception as exc:  # a corrupt or foreign entry is a miss, not an error
            log.warning("cache entry %s not used: %s: %s", key, type(exc).__name__, exc)
            return None
        self._mem[key] = value
        return value

    def put(self, key: str, value: Measurement | list[Track]) -> None:
        self._mem[key] = value
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        if isinstance(value, Measurement):
            write_json(self.directory / f"{key}.json", {"format": self.FORMAT, "key": key, "kind": "measurement",
                                                        "measurement": value.model_dump(mode="json")})
            return
        arrays = {f"t{i}_{name}": getattr(t, name) for i, t in enumerate(value) for name in _TRACK_ARRAYS}
        arrays.update({f"t{i}r{j}_{name}": getattr(r, name) for i, t in enumerate(value)
                       for j, r in enumerate(t.rivals) for name in _TRACK_ARRAYS})
        npz = self.directory / f"{key}.npz"
        save_npz(npz, **arrays)

        def described(t: Track) -> dict[str, Any]:
            return {"subject": t.subject, "identity": int(t.identity), "backend": t.backend, "meta": t.meta}

        write_json(self.directory / f"{key}.json", {
            "format": self.FORMAT, "key": key, "kind": "tracks", "npz_sha256": sha256_file(npz),
            "tracks": [{**described(t), "rivals": [described(r) for r in t.rivals]} for t in value]})

    def _read(self, key: str) -> Measurement | list[Track]:
        data = read_json(self.directory / f"{key}.json")
        if data.get("format") != self.FORMAT or data.get("key") != key:
            raise ValueError("the entry records another key or format")
        if data["kind"] == "measurement":
            return Measurement.model_validate(data["measurement"])
        npz = self.directory / f"{key}.npz"
        if sha256_file(npz) != data["npz_sha256"]:
            raise ValueError("the track arrays are not the ones the entry describes")
        arrays = load_npz(npz)

        def built(t: dict[str, Any], prefix: str, rivals: tuple[Track, ...] = ()) -> Track:
            return Track(subject=t["subject"], identity=int(t["identity"]), backend=t["backend"], meta=t["meta"],
                         rivals=rivals, **{name: arrays[f"{prefix}_{name}"] for name in _TRACK_ARRAYS})

        return [built(t, f"t{i}", tuple(built(r, f"t{i}r{j}") for j, r in enumerate(t["rivals"])))
                for i, t in enumerate(data["tracks"])]


#: the array fields of a Track, stored in the cache's .npz
_TRACK_ARRAYS = ("boxes_xyxy", "centroid_px", "area_px", "visible", "coasted", "touches_border", "times_s")


@dataclass
class Execution:
    """What one plan execution produced: records and raw results by operation id, and timings."""

    records: dict[str, EvidenceRecord] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    cache_hits: dict[str, bool] = field(default_factory=dict)
    dispatched: list[str] = field(default_factory=list)

    def timings(self) -> dict[str, Any]:
        return {"seconds": {k: round(v, 6) for k, v in self.seconds.items()}, "cache_hits": dict(self.cache_hits),
                "total_seconds": round(sum(self.seconds.values()), 6)}


def backend_name(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _clip_window(w: TimeWindow | None, video: VideoContext) -> TimeWindow | None:
    """Narrow a reported window to the clip (an observation may narrow a window, never widen the clip)."""
    if w is None or video.num_frames == 0:
        return w
    last = video.num_frames - 1
    t0 = float(video.times_s[0])
    t1 = float(video.times_s[-1]) + video.frame_period_s
    s, e = max(t0, min(w.start_s, t1)), max(t0, min(w.end_s, t1))
    return TimeWindow(start_s=s, end_s=max(s, e), start_frame=int(np.clip(w.start_frame, 0, last)),
                      end_frame=int(np.clip(w.end_frame, np.clip(w.start_frame, 0, last), last)))


def _tracks_summary(tracks: list[Track], video: VideoContext) -> Measurement:
    vis = [np.flatnonzero(t.visible) for t in tracks]
    frames = np.concatenate(vis) if vis else np.zeros(0, int)
    if not tracks or frames.size == 0:
        return Measurement(state=UNKNOWN, reason="subject not found in the clip", measured="0 tracks",
                           values={"tracks": len(tracks)})
    return Measurement(
        state=SUPPORTED, measured=f"{len(tracks)} track(s), visible in {int(np.unique(frames).size)} frames",
        window=video.window(int(frames.min()), int(frames.max())),
        values={"tracks": len(tracks), "identities": [int(t.identity) for t in tracks],
                "visible_frames": [int(v.size) for v in vis],
                "radius_px": [round(float(t.radius_px), 3) for t in tracks]})


class Executor:
    """Runs a validated plan against one clip with the configured specialists.

    ``specialists`` maps operation family names (``ground``, ``count``, ``measure``, ``scene``, ``depth``, ``read``,
    ``hear``, ``judge``) to objects with ``name``, ``version`` and ``run(op, inputs, video)`` (``inputs``: an
    :class:`OperationInputs`)."""

    def __init__(self, specialists: Mapping[str, Any], cache: OperationCache | None = None,
                 slack_fraction: float = SLACK_FRACTION, settings: Mapping[str, Any] | None = None):
        self.specialists = dict(specialists)
        #: per family, how its specialist was configured (plain data): part of the cache key, so that the same
        #: class and version with other arguments never reuses a result
        self.settings = dict(settings or {})
        self.slack_fraction = slack_fraction
        self.cache = cache if cache is not None else OperationCache()

    def run(self, plan: Plan, video: VideoContext, progress: bool = False) -> Execution:
        check_plan(plan)  # the gate: an invalid plan never reaches a specialist
        ex = Execution()
        keys: dict[str, str] = {}
        claim_of = {}
        for ob in plan.obligations:
            claim_of.setdefault(ob.check, ob.claim)
        order = execution_order(plan)
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(order), desc="operations", unit="op", leave=False)
        for op_id in order:
            op = plan.op(op_id)
            deps = dependencies(plan, op)
            t0 = time.perf_counter()
            if op.op in TEMPORAL:
                result, backend, version, key = self._temporal(op, ex, video), "critic.aggregator", EXECUTOR_VERSION, ""
            else:
                result, backend, version, key = self._dispatch(plan, op, deps, ex, keys, video, claim_of)
            ex.seconds[op_id] = time.perf_counter() - t0
            keys[op_id] = key
            ex.results[op_id] = result
            meas = _tracks_summary(result, video) if isinstance(op, GroundOp) else result
            cost = meas.cost if meas.cost.tool_calls or meas.cost.model_calls or op.op in TEMPORAL \
                else Cost(tool_calls=1)
            ex.records[op_id] = EvidenceRecord(
                op_id=op_id, op=op.op, backend=backend, version=version,
                args=op.model_dump(mode="json", exclude={"id"}), inputs=deps, state=meas.state,
                required=meas.required, measured=meas.measured, reason=meas.reason,
                window=_clip_window(meas.window, video),
                windows={k: _clip_window(w, video) for k, w in sorted(meas.windows.items())},
                occurrences={k: [_clip_window(w, video) for w in ws] for k, ws in sorted(meas.occurrences.items())},
                values=meas.values, cost=Cost(tool_calls=cost.tool_calls, model_calls=cost.model_calls),
                cache_key=key)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        return ex

    # ----------------------------------------------------------------------------------------------

    def _temporal(self, op: AnyOp, ex: Execution, video: VideoContext) -> Measurement:
        refs = op_event_refs(op)
        names = tuple(f"{ref.op}.{ref.event}" for ref in refs)
        doubts = [f"{name} comes from a measurement that is not firm ({ex.records[ref.op].reason or 'unknown'})"
                  for ref, name in zip(refs, names) if ex.records[ref.op].state == UNKNOWN]
        if doubts:
            # a window measured on what may be another object, or by a check that could not decide, is no
            # evidence of when the event happened: the order is neither supported nor contradicted on it
            return Measurement(state=UNKNOWN, required=f"{op.op}({names[0]}, {names[1]})", reason="; ".join(doubts))
        # an event's occurrences where its measurement lists them (an empty list: it happens at no time), else its
        # one window (None: not measured)
        a, b = (ex.records[ref.op].occurrences[ref.event] if ref.event in ex.records[ref.op].occurrences
                else [ex.records[ref.op].windows.get(ref.event)] for ref in refs)
        return any_occurrence(TEMPORAL[op.op], a, b, names, self.slack_fraction, video.frame_period_s)

    def _dispatch(self, plan: Plan, op: AnyOp, deps: list[str], ex: Execution, keys: dict[str, str],
                  video: VideoContext, claim_of: dict[str, str]):
        family = op.op
        spec = self.specialists.get(family)
        if spec is None:
            return (self._empty(op, f"no specialist configured for '{family}'"), "none", "", "")
        backend, version = backend_name(spec), str(getattr(spec, "version", ""))
        subjects = {name: plan.subject(name) for name in op_subjects(op)}
        if isinstance(op, GroundOp):
            # grounding binds the plan's subjects to tracks one to one: it sees every subject (its own first),
            # and so does the cache key (another set of subjects may bind this one to another track); it also
            # reads the prompt (whether a subject is one body or a group, its shade), so the key holds that too:
            # "The first domino" and "Several dominoes" are subjects alike in every field but what the prompt says
            subjects.update({s.name: s for s in plan.subjects if s.name not in subjects})
        key = sha256_json({"clip": video.sha256, "op": op.model_dump(mode="json", exclude={"id"}),
                           "backend": backend, "version": version, "settings": self.settings.get(family),
                           "inputs": [keys.get(d, "") for d in deps],
                           **({"subjects": [subjects[n].model_dump(mode="json") for n in subjects],
                               "prompt": plan.prompt} if isinstance(op, GroundOp) else {})})

        tracks: dict[str, list[Track]] = {}
        if not isinstance(op, GroundOp):
            # a validated plan binds every subject by a ground operation, whose result is a list (``_typed``)
            ground_of = {plan.op(d).subject: d for d in deps if isinstance(plan.op(d), GroundOp)}
            tracks = {name: ex.results[ground_of[name]] for name in subjects}
        claim_id = op.claim if isinstance(op, JudgeOp) else claim_of.get(op.id)
        inputs = OperationInputs(subjects=subjects, tracks=tracks, claim=plan.claim(claim_id) if claim_id else None,
                                 prompt=plan.prompt)

        # preconditions the executor enforces whatever the backend: no evidence -> unknown with the reason
        if isinstance(op, HearOp) and (video.audio is None or video.audio.size == 0):
            return self._empty(op, "the clip has no audio track"), backend, version, key
        if family in _NEEDS_TRACKS:
            missing = [n for n, t in tracks.items() if not t]
            # a specialist may still tell something of a subject no track found (a named colour nowhere in the clip)
            without = getattr(spec, "runs_without_tracks", None)
            if missing and not (without is not None and without(op, missing)):
                return self._empty(op, f"subject {', '.join(map(repr, missing))} not found in the clip"), backend, \
                    version, key

        cached = self.cache.get(key)
        if cached is not None:
            ex.cache_hits[op.id] = True
            return cached, backend, version, key
        ex.cache_hits[op.id] = False
        ex.dispatched.append(op.id)
        try:
            result = spec.run(op, inputs, video)
        except Exception as exc:  # a failing backend is missing evidence for this operation only
            log.warning("%s (%s) failed: %s: %s", op.id, backend, type(exc).__name__, exc)
            return self._empty(op, f"{backend} failed: {type(exc).__name__}: {exc}"), backend, version, key
        result = self._typed(op, result, backend)
        if not (isinstance(result, Measurement) and result.reason.startswith("backend returned")):
            self.cache.put(key, result)
        return result, backend, version, key

    @staticmethod
    def _empty(op: AnyOp, reason: str):
        return [] if isinstance(op, GroundOp) else Measurement(state=UNKNOWN, reason=reason)

    @staticmethod
    def _typed(op: AnyOp, result: Any, backend: str):
        """Accept only the declared result type; anything else is missing evidence."""
        if isinstance(op, GroundOp):
            if isinstance(result, Track):
                result = [result]
            if isinstance(result, (list, tuple)) and all(isinstance(t, Track) for t in result):
                return list(result)
            return []
        if isinstance(result, Measurement) and result.state in (SUPPORTED, CONTRADICTED, UNKNOWN):
            return result
        return Measurement(state=UNKNOWN, reason=f"backend returned {type(result).__name__}, not a Measurement")
