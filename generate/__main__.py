"""python -m generate: a clip from a control video and a prompt, with the withdrawal probe.

    python -m generate control=outputs/control/DATE/TIME prompt="a red ball bounces" probe.release_step=10
    python -m generate control=RUN_DIR prompt_file=prompt.txt generator=wan21_vace_1_3b generator.path=/models/x
    python -m generate control=RUN_DIR prompt="..." sweep=[0,10,20,30]   # prefix-shared release sweep

Writes ``clip.mp4``, ``clip.npz``, ``clip.json``, ``metrics.json`` and ``manifest.json`` into the run directory
(with ``sweep``: one ``release_XX/`` folder per release step).
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import MissingMandatoryValue

from control.io import load_control
from generate.io import save_clip
from generate.pipeline import generate_clip
from generate.schedulers import resolve_release_step
from generate.sweep import generate_release_sweep
from veriphy.errors import UserError, check_float, check_int
from veriphy.files import read_text, write_json
from veriphy.hashing import sha256_bytes, sha256_json
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest


def read_prompt(cfg: DictConfig) -> tuple[str, str]:
    """(prompt, where it came from); exactly one of ``prompt`` and ``prompt_file``."""
    if cfg.get("prompt") and cfg.get("prompt_file"):
        raise UserError("give prompt or prompt_file, not both", field="prompt")
    if cfg.get("prompt_file"):
        path = Path(cfg.prompt_file)
        text = read_text(path, field="prompt_file").strip()
        if not text:
            raise UserError("the prompt file is empty", file=path, field="prompt_file")
        return text, str(path)
    if not cfg.get("prompt"):
        raise UserError('no prompt: give prompt="..." or prompt_file=PATH', field="prompt")
    return str(cfg.prompt), "prompt"


def _instantiate(node: DictConfig, group: str):
    try:
        return instantiate(node, _convert_="all")
    except MissingMandatoryValue as exc:
        raise UserError(f"missing mandatory value ({exc.full_key}=...)", field=group) from None
    except Exception as exc:  # Hydra wraps constructor errors; show the cause in one line
        cause = exc.__cause__ or exc
        if isinstance(cause, UserError):
            raise cause from None
        raise UserError(f"{type(cause).__name__}: {cause}", field=group) from None


@exit_on_user_error
def run(cfg: DictConfig) -> Path:
    configure_threads(cfg.get("num_threads"))
    if cfg.get("control_dir") in (None, "", "???"):
        raise UserError("no control video: give control=RUN_DIR (a control run directory)", field="control")
    prompt, prompt_source = read_prompt(cfg)
    # Every plain value first: a mistake found after the weights loaded would waste the load.
    num_steps = check_int(cfg.num_steps, field="num_steps", minimum=1)
    seed = check_int(cfg.seed, field="seed", minimum=0)
    crf = check_int(cfg.mp4_crf, field="mp4_crf", minimum=0, maximum=51)
    guidance_scale = check_float(cfg.guidance_scale, field="guidance_scale", minimum=0.0)
    guidance_scale_2 = None if cfg.get("guidance_scale_2") is None else \
        check_float(cfg.guidance_scale_2, field="guidance_scale_2", minimum=0.0)
    if cfg.get("sweep") is not None and not OmegaConf.is_list(cfg.sweep):
        raise UserError(f"must be a list of release steps like [0,10,20], got {cfg.sweep!r}", field="sweep")
    sweep = None if cfg.get("sweep") is None else [check_int(s, field="sweep") for s in cfg.sweep]
    control = load_control(cfg.control_dir)
    builder = _instantiate(cfg.generator, "generator")
    scheduler = _instantiate(cfg.scheduler, "scheduler")
    probe = _instantiate(cfg.probe, "probe")
    try:
        release_step = probe.resolve(num_steps)
        for s in sweep or []:
            resolve_release_step(s, num_steps)
    except ValueError as exc:
        raise UserError(str(exc), field="sweep" if sweep else "probe.release_step") from None

    # Check the control's size against the request before loading any weights.
    req = builder.request
    t, h, w = control.shape_thw
    want = (req["num_frames"] or t, req["height"] or h, req["width"] or w)
    if want != (t, h, w):
        raise UserError(f"control video is {w}x{h} px x {t} frames (W x H x T) but the generator requests "
                        f"{want[2]}x{want[1]} px x {want[0]} frames; render the control at the generator's size "
                        "or override generator.height/width/num_frames", file=cfg.control_dir, field="frames")
    pipe = builder.load()
    common = dict(seed=seed, num_steps=num_steps, negative_prompt=str(cfg.negative_prompt or ""),
                  guidance_scale=guidance_scale, guidance_scale_2=guidance_scale_2,
                  max_sequence_length=int(builder.max_sequence_length), scheduler=scheduler, mode=probe.mode,
                  progress=bool(cfg.progress), source=str(cfg.control_dir), **req)
    out = hydra_run_dir()
    if sweep:
        clips = generate_release_sweep(pipe, control, prompt, release_steps=sweep, **common)
        dirs = {}
        for i_star, clip in clips.items():
            d = out / f"release_{i_star:02d}"
            save_clip(clip, d, crf=crf)
            dirs[i_star] = d
        first = next(iter(clips.values()))
        metrics = {"release_steps": sorted(clips), "sigma_rel": {str(k): c.sigma_rel for k, c in clips.items()},
                   "expert_switch_step": first.expert_switch_step, **first.extra["sweep"]}
    else:
        clip = generate_clip(pipe, control, prompt, release_step=release_step, **common)
        save_clip(clip, out, crf=crf)
        # Wall-clock seconds are in timings.json (save_clip), so metrics.json is reproducible.
        metrics = {"release_step": clip.release_step, "sigma_rel": clip.sigma_rel,
                   "expert_switch_step": clip.expert_switch_step,
                   "transformer_calls": clip.extra["transformer_calls"]}
        first = clip
    write_json(out / "metrics.json", metrics)
    input_hashes = {"control_frames": first.extra["control_sha256"], "prompt": sha256_bytes(prompt.encode()),
                    "generator_config": sha256_json(OmegaConf.to_container(cfg.generator, resolve=True))}
    write_manifest(out, stage="generate", inputs={"prompt_file": cfg.prompt_file} if cfg.get("prompt_file") else {},
                   input_hashes=input_hashes,
                   extra={"model_id": first.model_id, "model_config_sha256": first.extra["model_config_sha256"],
                          "prompt_source": prompt_source, "control_dir": str(cfg.control_dir)})
    where = f"{len(sweep)} release points" if sweep else f"i* = {first.release_step}, sigma_rel = {first.sigma_rel:.3f}"
    print(f"generate: {first.model_id} {w}x{h}x{t}, {num_steps} steps, {where} -> {out}", file=sys.stderr)
    return out


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="generate_app")
def _hydra_main(cfg: DictConfig) -> None:
    run(cfg)


def command_line_aliases(argv: list[str]) -> list[str]:
    """``control=RUN_DIR`` -> ``control_dir=RUN_DIR``: ``conf/control/`` is the control stage's config group,
    so Hydra would read ``control=...`` as a choice of that group rather than a path."""
    return [f"control_dir={a[len('control='):]}" if a.startswith("control=") else a for a in argv]


def main(argv: list[str] | None = None) -> None:
    """``python -m generate [key=value ...]`` (``argv``: the arguments, default the command line's)."""
    run_app(_hydra_main, command_line_aliases(sys.argv[1:] if argv is None else list(argv)))


if __name__ == "__main__":
    main()
