"""What one experiment job does (``job=...``): a release-point job, or a critic ablation (see ``ablation``).

A release-point job, for one (scene, seed, prompt, release step i*):

1. skips itself when its outputs are complete and valid (resume), else clears what a killed attempt left;
2. fits the scene to the generator's size (``framing``), simulates it and renders its control video, and
   refuses a scene whose retention cannot be measured with this generator (``measurable``) before anything
   is written or generated;
3. writes the scoring settings (``scoring.json``: threshold, minimum frames) before anything is scored;
4. obtains its clip from the configured executor (naive, prefix-shared, or the control itself);
5. tracks the scene's object in the clip and scores retention against the projected simulated path;
6. writes ``scene.json``, ``trajectory.npz``, ``control/``, ``clip.npz`` (+ ``clip.mp4``, ``clip.json``),
   ``paths.npz``, ``metrics.json`` (its ``row`` names the prompt's ``appearance`` and ``motion`` choices, and
   says whether the framing viewed the scene from the other side, ``mirrored``) and, last, ``manifest.json``;
7. logs one tracker run (W&B group = sweep) and rewrites the sweep's ``summary.csv``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from pydantic import ValidationError

from control.io import save_control
from experiments import jobstate
from experiments.executors import ClipRequest, executor_name, file_lock
from experiments.retention import RetentionConfig, flat_metrics, score_retention
from experiments.scene import SimulatedScene, VideoSize, require_measurable, simulate_scene
from experiments.sweep_plan import sibling_release_steps
from experiments.types import GenerationSettings, SceneRequirements
from generate.io import save_clip
from generate.schedulers import resolve_release_step
from sim.io import save_spec, save_trajectory
from veriphy.errors import UserError, check_int, user_error_from_validation
from veriphy.files import read_json, save_npz, write_json
from veriphy.hashing import sha256_file, sha256_json
from veriphy.manifest import write_manifest

log = logging.getLogger(__name__)


def generation_settings(cfg: DictConfig) -> GenerationSettings:
    """The settings of a job's generator call: the probe's mode, the prompt length and guidance the generator
    config says the model is meant for (``generator.max_sequence_length``, ``generator.guidance_scale``), then
    ``generation.*`` (which overrides them)."""
    values: dict[str, Any] = {"mode": str(OmegaConf.select(cfg, "probe.mode", default="skip"))}
    if OmegaConf.select(cfg, "generator.max_sequence_length") is not None:
        values["max_sequence_length"] = int(cfg.generator.max_sequence_length)
    if OmegaConf.select(cfg, "generator.guidance_scale") is not None:
        values["guidance_scale"] = float(cfg.generator.guidance_scale)
    if cfg.get("generation"):
        values.update(_config_dict(cfg.generation))
    return _validated(GenerationSettings, values, "generation")


def job_prompt(cfg: DictConfig) -> str:
    """The job's prompt: ``cfg.prompt`` with runs of whitespace made one space and none left before a comma or a
    semicolon, so that an empty motion clause (``motion=unstated``) gives "a red ball; a medium-sized ball ...",
    not "a red ball ; a ..."."""
    return re.sub(r"\s+([;,])", r"\1", " ".join(str(cfg.get("prompt") or "").split()))


@dataclass(frozen=True)
class JobContext:
    """Where a job runs: its directory, the sweep root (== job dir for a single run), its name, the
    overrides that define it (for finding sibling jobs in a multirun) and the config group choices it was
    composed with (``appearance``, ``motion``, ...: the row names the prompt by them)."""

    job_dir: Path
    sweep_dir: Path
    name: str
    overrides: tuple[str, ...] = ()
    multirun: bool = False
    group: str = "default"
    choices: tuple[tuple[str, str], ...] = ()

    def choice(self, group: str) -> str | None:
        return dict(self.choices).get(group)


def _config_dict(cfg: DictConfig) -> dict[str, Any]:
    return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=False)  # type: ignore[return-value]


def _validated(model, node: DictConfig | dict[str, Any], field: str):
    """``model`` from a config node (or its values); a bad value is the user's error naming the field."""
    try:
        return model(**(node if isinstance(node, dict) else _config_dict(node)))
    except ValidationError as exc:
        err = user_error_from_validation(exc, file=None)
        raise UserError(err.reason, field=f"{field}.{err.field}" if err.field else field) from None


#: Settings that do not change a job's outputs: a finished job is the same job whatever they are (the
#: prefix-shared and naive executors give byte-identical clips; ``measurable`` only decides whether a job runs,
#: ``prompt_name`` only names its directory).
_KEY_EXCLUDED = ("tracker", "num_threads", "executor", "sweep_name", "shared_release_steps",
                 "generation.progress", "control.progress", "control.renderer.progress", "job.write_mp4",
                 "measurable", "prompt_name")


def job_key(cfg: DictConfig, exclude: tuple[str, ...] = ()) -> str:
    """Hash of the resolved settings that determine a job's outputs (all but ``_KEY_EXCLUDED`` and
    ``exclude``)."""
    plain = _config_dict(cfg)
    for dotted in (*_KEY_EXCLUDED, *exclude):
        node = plain
        *parents, leaf = dotted.split(".")
        for p in parents:
            node = node.get(p) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(leaf, None)
    return sha256_json(plain)


def skip_complete_job(job_dir: Path, key: str) -> bool:
    """True when ``job_dir`` holds this job, complete (skip it). A complete job made with other settings is
    refused rather than skipped or overwritten: the sweep varies something its directory names do not show."""
    if not jobstate.job_complete(job_dir):
        return False
    stored = read_json(job_dir / jobstate.METRICS).get("job_key")
    if stored is not None and stored != key:
        raise UserError("holds a finished job with other settings; this sweep varies a setting that "
                        "hydra.sweep.subdir does not name (add it there, or use another sweep_name)", file=job_dir)
    log.info("complete, skipped: %s", job_dir)
    return True


def start_job(job_dir: Path, key: str) -> bool:
    """False when ``job_dir`` already holds this job, complete (skip it); else clear what an interrupted attempt
    left there, make the directory and return True (run it)."""
    if skip_complete_job(job_dir, key):
        return False
    jobstate.clear_partial_job(job_dir)
    job_dir.mkdir(parents=True, exist_ok=True)
    return True


class ReleasePointJob:
    """One clip of a release-point sweep and its retention metrics (``job=release_point``)."""

    def __init__(self, write_mp4: bool = True):
        self.write_mp4 = write_mp4

    def __call__(self, cfg: DictConfig, ctx: JobContext) -> dict[str, Any]:
        job_dir = ctx.job_dir
        check_job_values(cfg)
        # The critic's settings (used by ablations and the demo's verdicts) do not change a release job.
        key = job_key(cfg, exclude=("critic",))
        if not start_job(job_dir, key):
            return {"status": "skipped", "job_dir": str(job_dir)}
        scoring = _validated(RetentionConfig, cfg.retention, "retention")
        scene = simulate_scene(instantiate(cfg.scene), _validated(VideoSize, cfg.video, "video"),
                               instantiate(cfg.control), cfg.get("object_name"), scoring.time_tolerance_s,
                               framing=instantiate(cfg.framing) if cfg.get("framing") else None,
                               seed=check_int(cfg.seed, field="seed", minimum=0))
        # Before anything is written or generated: a scene this generator cannot render at this size, or whose
        # windows are too short to correlate, would only give empty cells.
        require_measurable(scene, _validated(SceneRequirements, cfg.measurable, "measurable")
                           if cfg.get("measurable") else SceneRequirements())

        # The threshold is fixed in the run before any clip is scored.
        write_json(job_dir / "scoring.json", {"threshold": scoring.threshold, "min_frames": scoring.min_frames,
                                              "time_tolerance_s": scoring.time_tolerance_s})
        tracker = instantiate(cfg.tracker)
        tracker.start(name=ctx.name, group=ctx.group, run_dir=job_dir, sweep_dir=ctx.sweep_dir,
                      config=_config_dict(cfg))
        try:
            metrics = self._run(cfg, ctx, scoring, key, scene)
        except BaseException:
            tracker.finish(exit_code=1)
            raise
        tracker.log(metrics["row"])
        tracker.finish()
        with file_lock(ctx.sweep_dir / ".summary.lock"):
            jobstate.write_summary(ctx.sweep_dir)
        return {"status": "done", "job_dir": str(job_dir), **metrics["row"]}

    def _run(self, cfg: DictConfig, ctx: JobContext, scoring: RetentionConfig, key: str,
             scene: SimulatedScene) -> dict[str, Any]:
        job_dir = ctx.job_dir
        release_step = release_step_of(cfg)
        save_spec(scene.spec, job_dir / "scene.json")
        save_trajectory(scene.trajectory, job_dir / "trajectory.npz")
        save_control(scene.control, job_dir / "control", input_sha256={
            "scene.json": sha256_file(job_dir / "scene.json"),
            "trajectory.npz": sha256_file(job_dir / "trajectory.npz")})

        generator_cfg = _config_dict(cfg.generator) if "generator" in cfg else {}
        release_steps = _sibling_steps(cfg, ctx)
        request = ClipRequest(control=scene.control, prompt=job_prompt(cfg), seed=check_int(cfg.seed, field="seed"),
                              num_steps=check_int(cfg.num_steps, field="num_steps"), release_step=release_step,
                              group_release_steps=release_steps, shared_dir=ctx.sweep_dir,
                              generator_key=sha256_json(generator_cfg),
                              negative_prompt=cfg.get("negative_prompt"),
                              generation=generation_settings(cfg))
        pipe_holder: dict[str, Any] = {}

        def generator_factory():
            if "pipe" not in pipe_holder:
                pipe_holder["pipe"] = instantiate(cfg.generator).load()
            return pipe_holder["pipe"]

        executor = instantiate(cfg.executor)
        clip = executor(request, generator_factory)
        save_clip(clip, job_dir, mp4=self.write_mp4)

        object_tracker = instantiate(cfg.object_tracker)
        track = object_tracker(clip.frames, clip.fps, scene.path_px)
        score = score_retention(track.centroid_px, track.visible & ~track.coasted, scene.path_px,
                                scene.window_masks, scoring, track.area_px)
        save_npz(job_dir / "paths.npz", t_s=np.asarray(scene.trajectory.t_s),
                 simulated_px=scene.path_px, tracked_px=np.asarray(track.centroid_px, dtype=np.float64),
                 tracked_area_px=np.asarray(track.area_px, dtype=np.float64),
                 tracked_visible=np.asarray(track.visible & ~track.coasted),
                 airborne=scene.window_masks["airborne"], after_ground=scene.window_masks["after_ground"],
                 simulated_radius_px=scene.radius_px)

        sigmas = np.asarray(clip.sigmas, dtype=np.float64)
        switch = clip.expert_switch_step
        row = {
            "scene": str(OmegaConf.select(cfg, "scene_name") or scene.spec.name),
            "seed": int(cfg.seed), "prompt": job_prompt(cfg), "appearance": ctx.choice("appearance"),
            "motion": ctx.choice("motion"), "object": scene.object_name, "mirrored": scene.mirrored,
            "release_step": request.release_step, "num_steps": request.num_steps,
            "sigma_rel": clip.sigma_rel if clip.sigma_rel is not None else None,
            "expert_switch_step": switch,
            "sigma_expert_switch": float(sigmas[switch]) if switch is not None and switch < len(sigmas) else None,
            "executor": executor_name(executor), "model_id": clip.model_id,
            "control_kind": scene.control.kind, "threshold": scoring.threshold,
            "clip_sha256": sha256_file(job_dir / "clip.npz"),
            **flat_metrics(score),
        }
        metrics = {"row": row, "retention": score, "job": ctx.name, "job_key": key,
                   "group_release_steps": list(request.group_release_steps),
                   "scene_sha256": sha256_json(scene.spec.model_dump(mode="json")),
                   "control_sha256": scene.control.spec_sha256, "track_backend": track.backend}
        write_json(job_dir / jobstate.METRICS, metrics)
        write_manifest(job_dir, stage="experiments", input_hashes={"scene": metrics["scene_sha256"]},
                       extra={"job": ctx.name, "executor": row["executor"], "overrides": list(ctx.overrides)})
        return metrics


def check_job_values(cfg: DictConfig) -> None:
    """The plain values of a release-point job, checked before anything is simulated, rendered or written
    (a seed that is not a number must not surface after the scene was simulated and its control rendered)."""
    check_int(cfg.seed, field="seed", minimum=0)
    check_int(cfg.num_steps, field="num_steps", minimum=1)
    release_step_of(cfg)
    generation_settings(cfg)
    if not job_prompt(cfg):
        raise UserError("the prompt is empty", field="prompt")


def release_step_of(cfg: DictConfig) -> int:
    """i* of the job: ``probe.release_step``, or N (control throughout) when null."""
    num_steps = check_int(cfg.num_steps, field="num_steps", minimum=1)
    try:
        return resolve_release_step(OmegaConf.select(cfg, "probe.release_step"), num_steps)
    except ValueError as exc:
        raise UserError(str(exc), field="probe.release_step") from None


def _sibling_steps(cfg: DictConfig, ctx: JobContext) -> tuple[int, ...]:
    own = release_step_of(cfg)
    listed = OmegaConf.select(cfg, "shared_release_steps")
    if listed:  # given explicitly (e.g. the demo, which runs its jobs in one process without Hydra's sweeper)
        return tuple(sorted({int(s) for s in listed} | {own}))
    if not ctx.multirun:
        return (own,)
    return sibling_release_steps(ctx.sweep_dir, ctx.overrides, own)
