"""The refine job (``job=refine``): one (scene, prompt) cell of ``experiment=refine`` over its seeds and release
steps.

For each clip (seed, release step i*), in a fixed order:

1. **baseline**: the clip is generated (the configured executor: prefix-shared, one controlled run per seed
   for every release step), critiqued, and scored for retention against the simulation (the independent rater:
   the critic never sees the simulation); each channel proposes an edit from the contradiction packets
   (``conf/refine/``) when the clip is contradicted -> ``baseline.jsonl``.
2. **settings**: per release step and channel, the edit of the first seed it fired on is the cell's *changed
   setting*; a clip that is not contradicted gets it (``applied: group``) so that collateral can be measured.
3. **after**: each channel's edit is applied (the clip's own when it fired, else the cell's setting), the clip
   regenerated with the same seed, critiqued and scored again -> ``records.jsonl`` (one
   :class:`~experiments.refine.types.RefineRecord` per clip).

Both files are appended one finished clip per line, so a killed job resumes where it stopped (a truncated last
line is dropped and its clip redone). When every clip is recorded the job writes ``metrics.json`` (its cell's
counts) and ``manifest.json``, and the sweep's report (``refine.md``, ``refine.csv``, the dumbbell figure) is
rewritten from every cell's records (``experiments.refine.report``).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from critic.run import build_components, critique
from critic.types import ClipVerdict
from experiments import jobstate
from experiments.evaluate_tiny.scores import mean_r, passes
from experiments.executors import ClipRequest, file_lock
from experiments.jobs import JobContext, _config_dict, _validated, generation_settings, job_key, skip_complete_job
from experiments.refine.edits import EditContext, NoEdit
from experiments.refine.report import cell_counts, write_report
from experiments.refine.types import ChannelResult, EditSetting, Outcome, RefineRecord
from experiments.retention import score_retention
from experiments.scene import SimulatedScene, VideoSize, require_measurable, simulate_scene
from experiments.types import RetentionConfig, SceneRequirements
from generate.io import save_clip
from generate.types import Clip
from veriphy.errors import UserError
from veriphy.files import atomic_write_bytes, dumps_json, write_json
from veriphy.hashing import sha256_file, sha256_json
from veriphy.manifest import write_manifest

log = logging.getLogger(__name__)

BASELINE = "baseline.jsonl"
RECORDS = "records.jsonl"
KEY_FILE = "job_key.txt"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The complete lines of ``path`` (a last line cut short by a kill is dropped and the file rewritten)."""
    if not path.is_file():
        return []
    rows, good = [], []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
        good.append(line)
    if sum(len(x) for x in good) != path.stat().st_size:
        atomic_write_bytes(path, "".join(good).encode())
    return rows


def append_jsonl(path: Path, row: Any) -> None:
    """Append one line and flush it to disk before the next clip starts."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(dumps_json(row, indent=None) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class RefineJob:
    """One (scene, prompt) cell of the outward channel (``job=refine``).

    Args:
        seeds: generator seeds of the cell's clips.
        release_steps: the release steps i* of the cell's clips (early ones drift from the control: real failures).
        write_mp4: keep each clip's ``clip.mp4`` (the critic reads it; removed after critique when false).
    """

    def __init__(self, seeds: list[int] | tuple[int, ...] = (0, 1), release_steps: list[int] | tuple[int, ...] = (0,),
                 write_mp4: bool = True):
        self.seeds = sorted({int(s) for s in seeds})
        self.release_steps = sorted({int(s) for s in release_steps})
        if not self.seeds or not self.release_steps:
            raise UserError("needs at least one seed and one release step", field="job.seeds")
        self.write_mp4 = bool(write_mp4)

    # ------------------------------------------------------------------------------------------------ plumbing

    def _start(self, cfg: DictConfig, ctx: JobContext) -> str | None:
        """The job's key, or None when the job is complete (skip). Unlike a release-point job a partial refine
        job is resumed, not cleared: its per-clip lines are kept when its settings are the same."""
        key = job_key(cfg, exclude=("seed", "probe"))
        if skip_complete_job(ctx.job_dir, key):
            return None
        ctx.job_dir.mkdir(parents=True, exist_ok=True)
        key_file = ctx.job_dir / KEY_FILE
        if key_file.is_file() and key_file.read_text().strip() != key:
            raise UserError("holds a partial refine job with other settings; use another sweep_name or remove it",
                            file=ctx.job_dir)
        atomic_write_bytes(key_file, (key + "\n").encode())
        return key

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        # A cell frames its scene once for all its seeds: a framing that mirrors some seeds would be ignored.
        framing = instantiate(cfg.framing) if cfg.get("framing") else None
        if framing is not None and any(framing.mirrors(seed) for seed in self.seeds):
            raise UserError("must be never for a refine job: a cell frames one scene for all its seeds",
                            field="framing.mirror")
        key = self._start(cfg, ctx)
        if key is None:
            return {"status": "skipped", "job_dir": str(ctx.job_dir)}
        run = _CellRun(self, cfg, ctx)
        run.baseline()
        records = run.after()
        counts = cell_counts(records)
        write_json(ctx.job_dir / jobstate.METRICS, {"refine": counts, "job_key": key, "cell": run.cell,
                                                    "clips": len(records)})
        write_manifest(ctx.job_dir, stage="experiments", input_hashes={"scene": run.scene_sha},
                       extra={"job": ctx.name, "overrides": list(ctx.overrides)})
        with file_lock(ctx.sweep_dir / ".summary.lock"):
            written = write_report(ctx.sweep_dir)
        log.info("[refine] %s: %d clips; report %s", run.cell, len(records), written[0])
        return {"status": "done", "job_dir": str(ctx.job_dir), **counts}


class _CellRun:
    """The state of one cell while it runs: its scenes (the configured one and any fixed ones), the generator,
    the critic and the channels."""

    def __init__(self, job: RefineJob, cfg: DictConfig, ctx: JobContext):
        self.job, self.cfg, self.ctx = job, cfg, ctx
        self.cell = str(OmegaConf.select(cfg, "refine.cell_name") or ctx.name)
        self.num_steps = int(cfg.num_steps)
        for step in job.release_steps:
            if not 0 <= step <= self.num_steps:
                raise UserError(f"release step {step} outside [0, {self.num_steps}]", field="job.release_steps")
        self.scoring = _validated(RetentionConfig, cfg.retention, "retention")
        self.size = _validated(VideoSize, cfg.video, "video")
        self.requirements = (_validated(SceneRequirements, cfg.measurable, "measurable")
                             if cfg.get("measurable") else SceneRequirements())
        self.base_spec = instantiate(cfg.scene)
        self._scenes: dict[str, SimulatedScene] = {}
        self.scene = self._scene(None)
        self.scene_sha = sha256_json(self.scene.spec.model_dump(mode="json"))
        self.channels = {str(name): instantiate(node) for name, node in cfg.refine.channels.items()
                         if node is not None}
        self.critic = build_components(OmegaConf.create({"critic": _config_dict(cfg.critic), "report": False}))
        self.executor = instantiate(cfg.executor)
        self.object_tracker = instantiate(cfg.object_tracker)
        self.generation = generation_settings(cfg)
        self.generator_key = sha256_json(_config_dict(cfg.generator) if "generator" in cfg else {})
        self._pipe = None
        self.prompt = str(cfg.prompt)

    def _scene(self, fix: dict[str, Any] | None) -> SimulatedScene:
        """The cell's scene, or the scene with ``fix`` (a ``_target_`` config SceneSpec -> SceneSpec) applied
        before it is framed, simulated and its control rendered; each computed once."""
        name = "" if fix is None else sha256_json(fix)
        if name not in self._scenes:
            spec = self.base_spec if fix is None else instantiate(fix)(self.base_spec)
            scene = simulate_scene(spec, self.size, instantiate(self.cfg.control), self.cfg.get("object_name"),
                                   self.scoring.time_tolerance_s,
                                   framing=instantiate(self.cfg.framing) if self.cfg.get("framing") else None)
            require_measurable(scene, self.requirements)
            self._scenes[name] = scene
        return self._scenes[name]

    def _generator(self):
        if self._pipe is None:
            self._pipe = instantiate(self.cfg.generator).load()
        return self._pipe

    def _clip(self, scene: SimulatedScene, prompt: str, seed: int, release_step: int) -> Clip:
        request = ClipRequest(control=scene.control, prompt=prompt, seed=seed, num_steps=self.num_steps,
                              release_step=release_step, group_release_steps=tuple(self.job.release_steps),
                              shared_dir=self.ctx.sweep_dir, generator_key=self.generator_key,
                              negative_prompt=self.cfg.get("negative_prompt"), generation=self.generation)
        return self.executor(request, self._generator)

    def _outcome(self, out_dir: Path, clip: Clip, scene: SimulatedScene, prompt: str) -> tuple[Outcome, ClipVerdict]:
        """Critique ``clip`` against ``prompt`` and score its retention against ``scene``'s simulation."""
        save_clip(clip, out_dir, mp4=True)
        verdict = critique(out_dir / "clip.mp4", prompt, self.critic, out_dir / "critic")
        track = self.object_tracker(clip.frames, clip.fps, scene.path_px)
        score = score_retention(track.centroid_px, track.visible & ~track.coasted, scene.path_px,
                                scene.window_masks, self.scoring, track.area_px)
        clip_sha = sha256_file(out_dir / "clip.npz")
        if not self.job.write_mp4:
            (out_dir / "clip.mp4").unlink()
        outcome = Outcome(verdict=verdict.verdict, p_plausible=float(verdict.p_plausible),
                          contradicted=[c.id for c in verdict.claims if c.state == "contradicted"],
                          retained=passes(score, self.scoring.threshold), r_airborne=mean_r(score),
                          clip_sha256=clip_sha)
        return outcome, verdict

    def _clips(self) -> list[tuple[int, int, str]]:
        return [(seed, step, f"{self.cell}/seed{seed}_release{step:03d}")
                for seed in self.job.seeds for step in self.job.release_steps]

    # ---------------------------------------------------------------------------------------------- phases

    def baseline(self) -> None:
        path = self.ctx.job_dir / BASELINE
        done = {row["id"] for row in read_jsonl(path)}
        clips = self._clips()
        for n, (seed, step, clip_id) in enumerate(clips, 1):
            if clip_id in done:
                continue
            clip = self._clip(self.scene, self.prompt, seed, step)
            outcome, verdict = self._outcome(self._dir(clip_id, "baseline"), clip, self.scene, self.prompt)
            proposals: dict[str, Any] = {}
            if verdict.verdict == "contradicted":
                context = EditContext(prompt=self.prompt, packets=tuple(verdict.packets), release_step=step,
                                      num_steps=self.num_steps, sigmas=np.asarray(clip.sigmas, dtype=np.float64),
                                      path_px=self.scene.path_px)
                for name, channel in self.channels.items():
                    proposal = channel.propose(context)
                    proposals[name] = ({"reason": proposal.reason} if isinstance(proposal, NoEdit)
                                       else {"edit": proposal.model_dump(mode="json")})
            append_jsonl(path, {"id": clip_id, "seed": seed, "release_step": step, "sigma_rel": clip.sigma_rel,
                                "baseline": outcome.model_dump(mode="json"), "proposals": proposals})
            fired = [name for name, p in proposals.items() if "edit" in p]
            log.info("[refine] %s baseline %d/%d %s: %s (p %.2f, retained %s)%s", self.cell, n, len(clips), clip_id,
                     outcome.verdict, outcome.p_plausible, outcome.retained,
                     f"; fired: {', '.join(fired)}" if fired else "")

    def after(self) -> list[RefineRecord]:
        baseline = {row["id"]: row for row in read_jsonl(self.ctx.job_dir / BASELINE)}
        ordered = [baseline[clip_id] for _, _, clip_id in self._clips()]
        # The cell's changed setting per (release step, channel): the first seed's own edit.
        settings: dict[tuple[int, str], EditSetting] = {}
        for row in ordered:
            for name, proposal in row["proposals"].items():
                if "edit" in proposal:
                    settings.setdefault((row["release_step"], name), EditSetting.model_validate(proposal["edit"]))
        path = self.ctx.job_dir / RECORDS
        records = {row["id"]: RefineRecord.model_validate(row) for row in read_jsonl(path)}
        for n, row in enumerate(ordered, 1):
            if row["id"] in records:
                continue
            base = Outcome.model_validate(row["baseline"])
            results = {}
            for name in self.channels:
                proposal = row["proposals"].get(name)
                if proposal is not None and "edit" in proposal:
                    edit, applied = EditSetting.model_validate(proposal["edit"]), "own"
                elif base.verdict != "contradicted" and (row["release_step"], name) in settings:
                    edit, applied = settings[(row["release_step"], name)], "group"
                else:
                    reason = (proposal or {}).get("reason", "not contradicted" if base.verdict != "contradicted"
                                                  else "no channel output")
                    if base.verdict != "contradicted":
                        reason = "not contradicted; the edit fired on no other seed at this release step"
                    results[name] = ChannelResult(fired=False, reason=reason)
                    continue
                after = self._apply(row, name, edit)
                results[name] = ChannelResult(fired=applied == "own", applied=applied, edit=edit, after=after)
            record = RefineRecord(id=row["id"], cell=self.cell, prompt=self.prompt, seed=row["seed"],
                                  release_step=row["release_step"], num_steps=self.num_steps,
                                  sigma_rel=row["sigma_rel"], baseline=base, channels=results)
            append_jsonl(path, record.model_dump(mode="json"))
            records[record.id] = record
            log.info("[refine] %s after %d/%d %s: %s", self.cell, n, len(ordered), record.id, ", ".join(
                f"{k} {base.verdict}->{r.after.verdict}" if r.after else f"{k} -" for k, r in results.items()))
        return [records[row["id"]] for row in ordered]

    def _apply(self, row: dict[str, Any], channel: str, edit: EditSetting) -> Outcome:
        """Regenerate the clip with ``edit`` (same seed) and judge it against the user's prompt: a rewrite changes
        what the generator reads, never the yardstick."""
        seed, scene = int(row["seed"]), self.scene
        step = int(row["release_step"]) if edit.release_step is None else int(edit.release_step)
        prompt = self.prompt if edit.prompt is None else str(edit.prompt)
        if edit.scene_fix is not None:
            scene = self._scene(edit.scene_fix)
        clip = self._clip(scene, prompt, seed, step)
        outcome, _ = self._outcome(self._dir(row["id"], channel), clip, scene, self.prompt)
        return outcome

    def _dir(self, clip_id: str, variant: str) -> Path:
        return self.ctx.job_dir / "clips" / clip_id.split("/", 1)[-1] / variant
