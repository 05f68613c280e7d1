"""``python -m control``: render the control video of a simulated scene.

Inputs (exactly one):

* ``run_dir=PATH``: a ``python -m sim`` run directory (``scene.json`` + ``trajectory.npz``);
* ``scene_file=PATH``: a SceneSpec file or scene-template config (simulated here with ``sim.engine.simulate``);
* ``scene=NAME``: a ``conf/scene`` option (simulated here).

``height=``, ``width=``, ``num_frames=`` state the size the generator needs; a scene that renders another
size is refused (exit 2) naming both. Writes ``control.mp4``, ``control.npz``, ``meta.json`` (and
``scene_rgb.mp4`` with ``save_rgb=true``; ``scene.json`` and ``trajectory.npz`` when it simulated) and
``manifest.json`` to the Hydra run directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from control.io import save_control, save_scene_rgb
from control.render import check_trajectory_matches
from sim.engine import simulate
from sim.io import load_spec, load_trajectory, save_spec, save_trajectory, spec_from_mapping
from sim.types import SceneSpec, Trajectory
from veriphy.errors import UserError, check_int
from veriphy.files import write_json
from veriphy.hashing import sha256_file, sha256_json
from veriphy.hydra_app import CONFIG_PATH, configure_threads, exit_on_user_error, hydra_run_dir, run_app
from veriphy.manifest import write_manifest


def check_requested_size(spec: SceneSpec, height: int | None, width: int | None, num_frames: int | None, *,
                         trajectory_frames: int | None = None, file: str | None = None) -> None:
    """Refuse a requested H x W x T that differs from what the scene renders (diffusers would pad silently),
    and a trajectory whose frame count differs from its spec's."""
    scene = (spec.camera.height_px, spec.camera.width_px, spec.num_frames)
    if trajectory_frames is not None and trajectory_frames != spec.num_frames:
        raise UserError(f"the trajectory has {trajectory_frames} frames but its scene has num_frames = "
                        f"{spec.num_frames}", file=file, field="num_frames")
    req = tuple(r if r is not None else s for r, s in zip((height, width, num_frames), scene))
    if req != scene:
        fields = [name for name, a, b in zip(("height", "width", "num_frames"), req, scene) if a != b]
        raise UserError(
            f"requested control size {req[0]}x{req[1]}x{req[2]} (HxWxT) does not match the scene: its camera "
            f"renders {scene[0]}x{scene[1]} px and it has {scene[2]} frames ({scene[0]}x{scene[1]}x{scene[2]}); "
            "change the scene's camera/num_frames or the request", file=file, field=",".join(fields))


def _load_inputs(cfg: DictConfig) -> tuple[SceneSpec, Trajectory, dict[str, str], bool, str | None]:
    """(spec, trajectory, input file hashes, whether it was simulated here, the file that defines the scene)."""
    given = [k for k in ("run_dir", "scene_file", "scene") if cfg.get(k) is not None]
    if len(given) != 1:
        raise UserError("give exactly one input: run_dir=PATH (a sim run), scene_file=PATH (a scene spec) or "
                        f"scene=NAME (a conf/scene option); got {given or 'none'}")
    if given[0] == "run_dir":
        run_dir = Path(cfg.run_dir)
        if not run_dir.is_dir():
            raise UserError("run directory not found", file=run_dir, field="run_dir")
        scene_path, traj_path = run_dir / "scene.json", run_dir / "trajectory.npz"
        spec = load_spec(scene_path)
        traj = load_trajectory(traj_path)
        hashes = {"scene.json": sha256_file(scene_path), "trajectory.npz": sha256_file(traj_path)}
        return spec, traj, hashes, False, str(scene_path)

    if given[0] == "scene_file":
        path = Path(cfg.scene_file)
        spec = load_spec(path)
        hashes = {"scene_file": sha256_file(path)}
        where = str(path)
    else:
        node = OmegaConf.to_container(cfg.scene, resolve=True)
        if not isinstance(node, dict):
            raise UserError(f"expected a scene config mapping, got {node!r}", field="scene")
        spec = spec_from_mapping(node, file="scene config")
        hashes = {"scene_config": sha256_json(node)}
        where = "scene config"
    check_requested_size(spec, cfg.height, cfg.width, cfg.num_frames, file=where)  # before simulating
    traj = simulate(spec, progress=bool(cfg.progress))
    return spec, traj, hashes, True, where


@exit_on_user_error
def run(cfg: DictConfig) -> Path:
    configure_threads(cfg.get("num_threads"))
    # Plain values first: a mistake must not surface after the simulation and the rendering.
    crf = check_int(cfg.crf, field="crf", minimum=0, maximum=51)
    for key in ("height", "width", "num_frames"):
        if cfg.get(key) is not None:
            check_int(cfg[key], field=key, minimum=1)

    spec, traj, input_hashes, simulated, where = _load_inputs(cfg)
    try:
        check_trajectory_matches(spec, traj)
    except ValueError as exc:
        raise UserError(str(exc), file=where) from None
    check_requested_size(spec, cfg.height, cfg.width, cfg.num_frames, trajectory_frames=len(traj.t_s), file=where)
    if not traj.ok:
        print(f"warning: the trajectory is not valid ({traj.status}); rendering it anyway", file=sys.stderr)

    control = instantiate(cfg.control)
    render = control.renderer.render(spec, traj, rgb=bool(cfg.save_rgb))
    video = control(spec, traj, render=render)

    out = hydra_run_dir()
    if simulated:
        save_spec(spec, out / "scene.json")
        save_trajectory(traj, out / "trajectory.npz")
    save_control(video, out, input_sha256=input_hashes, crf=crf)
    if cfg.save_rgb:
        save_scene_rgb(render, out, crf=crf)
    object_fraction = float((video.frames > 0).mean())
    write_json(out / "metrics.json", {"kind": video.kind, "fallback_reason": video.fallback_reason,
                                      "object_pixel_fraction": object_fraction,
                                      "near_m": float(video.near_m[0]), "far_m": float(video.far_m[0]),
                                      "shape_thw": list(video.shape_thw)})
    write_manifest(out, stage="control", input_hashes=input_hashes,
                   extra={"kind": video.kind, "fallback_reason": video.fallback_reason,
                          "spec_sha256": video.spec_sha256, "trajectory_status": traj.status})
    t, h, w = video.shape_thw
    reason = f" (fallback: {video.fallback_reason})" if video.fallback_reason else ""
    print(f"control: {video.kind} {h}x{w}x{t} -> {out}{reason}")
    return out


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="control_app")
def _hydra_main(cfg: DictConfig) -> None:
    run(cfg)


def main(argv: list[str] | None = None) -> None:
    """``python -m control [key=value ...]`` (``argv``: the arguments, default the command line's)."""
    run_app(_hydra_main, argv)


if __name__ == "__main__":
    main()
