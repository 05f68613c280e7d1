"""Clip executors: how one release-point job obtains its clip. Chosen by config (``executor=...``).

* :class:`NaiveExecutor` runs the whole N-step denoising for its own release step i*.
* :class:`PrefixSharedExecutor` computes every release point of the job's group (same scene, control,
  prompt, seed, generator and N) from one controlled run: ``generate.sweep.generate_release_sweep`` keeps the
  latents and scheduler state at each requested i* and branches the uncontrolled remainder from there. The
  first job of a group to arrive computes the group's clips into ``<sweep>/.shared/<group>/`` under a file
  lock; its siblings (in the same process or in other launcher workers) read them from there. The clips are
  bit-identical to the naive jobs' (the generator guarantees it; ``tests/experiments`` checks the bytes).
* :class:`ControlAsClipExecutor` returns the control video itself as the "generated" clip: the paper's
  generated-vs-control check, run on the tracking and scoring pipeline without a generator.

Every executor is called as ``executor(request, generator_factory)`` and returns a ``generate.types.Clip``.
``generator_factory()`` loads the generator pipeline on first use (weights are never loaded for a cache hit).
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from control.types import ControlVideo
from experiments.types import GenerationSettings
from generate.io import load_clip, save_clip
from generate.types import Clip
from veriphy.hashing import sha256_bytes, sha256_file, sha256_json


@dataclass(frozen=True)
class ClipRequest:
    """What one job needs generated.

    * ``control``: the control video (T, H, W) at the generator's size.
    * ``release_step``: i* in [0, N]; control on steps 0..i*-1.
    * ``group_release_steps``: every release step the sweep asks for with this job's other settings
      (its own included); a prefix-shared executor computes them together.
    * ``shared_dir``: the sweep's cache for work shared between jobs.
    * ``generator_key``: a hash of the generator's config (part of the group key).
    * ``generation``: the other settings of the generator call (probe mode, guidance, prompt length, progress).
    """

    control: ControlVideo
    prompt: str
    seed: int
    num_steps: int
    release_step: int
    group_release_steps: tuple[int, ...] = ()
    shared_dir: Path | None = None
    generator_key: str = ""
    negative_prompt: str | None = None
    generation: GenerationSettings = GenerationSettings()

    def group_key(self) -> str:
        """Hash of everything a clip depends on except the release step."""
        return sha256_json({
            "control_frames": sha256_bytes(np.ascontiguousarray(self.control.frames).tobytes()),
            "control_shape": list(self.control.frames.shape), "control_kind": self.control.kind,
            "fps": self.control.fps, "prompt": self.prompt, "negative_prompt": self.negative_prompt,
            "seed": self.seed, "num_steps": self.num_steps, "generator": self.generator_key,
            # Under its former name, so that sweeps cached before it was typed keep their group keys.
            "extra": self.generation.clip_settings(),
        })[:20]


GeneratorFactory = Callable[[], Any]


def _generate_kwargs(request: ClipRequest) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"seed": request.seed, "num_steps": request.num_steps,
                              **request.generation.call_kwargs()}
    if request.negative_prompt is not None:
        kwargs["negative_prompt"] = request.negative_prompt
    return kwargs


class NaiveExecutor:
    """One full denoising run per job (``executor=naive``)."""

    name = "naive"

    def __call__(self, request: ClipRequest, generator_factory: GeneratorFactory) -> Clip:
        # Here, not at the top: it imports torch and diffusers, which jobs served by the control_as_clip
        # executor or from a cache never need.
        from generate.pipeline import generate_clip

        return generate_clip(generator_factory(), request.control, request.prompt,
                             release_step=request.release_step, **_generate_kwargs(request))


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path``: one worker computes a group, its siblings wait and reuse it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class PrefixSharedExecutor:
    """All release points of a group from one controlled run (``executor=prefix_shared``).

    A cached clip (``<group>/release_XXX/clip.npz``) is trusted only with a matching ``complete.sha256``
    written after it, so a worker killed mid-write leaves a clip that is recomputed, never read.
    """

    name = "prefix_shared"

    def __init__(self, cache_subdir: str = ".shared"):
        self.cache_subdir = cache_subdir

    @staticmethod
    def _step_dir(group_dir: Path, release_step: int) -> Path:
        return group_dir / f"release_{release_step:03d}"

    def _cached(self, group_dir: Path, release_step: int) -> bool:
        step_dir = self._step_dir(group_dir, release_step)
        npz, done = step_dir / "clip.npz", step_dir / "complete.sha256"
        return npz.is_file() and done.is_file() and done.read_text().strip() == sha256_file(npz)

    def __call__(self, request: ClipRequest, generator_factory: GeneratorFactory) -> Clip:
        if request.shared_dir is None:
            raise ValueError("the prefix-shared executor needs the sweep's shared directory")
        group_dir = Path(request.shared_dir) / self.cache_subdir / request.group_key()
        wanted = sorted({int(s) for s in request.group_release_steps} | {request.release_step})
        with file_lock(group_dir / "lock"):
            # Only the request's own clip decides; the siblings' are hashed only when the group is computed.
            if not self._cached(group_dir, request.release_step):
                missing = [s for s in wanted if not self._cached(group_dir, s)]
                from generate.sweep import generate_release_sweep  # torch and diffusers: see NaiveExecutor

                clips = generate_release_sweep(generator_factory(), request.control, request.prompt,
                                               release_steps=missing, **_generate_kwargs(request))
                for step in missing:
                    step_dir = self._step_dir(group_dir, step)
                    save_clip(clips[step], step_dir, mp4=False)
                    # Written last: a clip without it (a worker killed mid-write) is recomputed, never read.
                    (step_dir / "complete.sha256").write_text(sha256_file(step_dir / "clip.npz") + "\n")
        return load_clip(self._step_dir(group_dir, request.release_step))


class ControlAsClipExecutor:
    """The control video, grey replicated to RGB, as the clip (``executor=control_as_clip``).

    It records the release step and N so the job layout and summary are the same as a generated sweep's;
    the noise levels are left empty (no denoising happened)."""

    name = "control_as_clip"

    def __call__(self, request: ClipRequest, generator_factory: GeneratorFactory) -> Clip:
        frames = np.repeat(np.asarray(request.control.frames)[..., None], 3, axis=-1)
        return Clip(frames=frames, fps=request.control.fps, prompt=request.prompt, seed=request.seed,
                    model_id="control-video", release_step=request.release_step,
                    extra={"executor": self.name, "num_steps": request.num_steps})


def executor_name(executor: object) -> str:
    return getattr(executor, "name", type(executor).__name__)
