"""Generator builders: the objects of the ``generator/`` config group.

Instantiating one is cheap (it only holds settings); :meth:`load` builds or reads the pipeline. Both return a
``WanVACEPipeline`` whose transformer(s) are :class:`generate.probe.ProbedWanVACETransformer3DModel`, tagged
with ``veriphy_model_id`` and ``veriphy_config_sha256`` for the clip record.

* :class:`WanVACEGenerator`: a local diffusers directory (Wan2.1-VACE-1.3B/14B; Wan2.2 VACE-Fun A14B with
  ``transformer_2`` and ``boundary_ratio``), ``local_files_only=True`` always: a missing or incomplete
  directory is a :class:`UserError` listing what is missing, never a download.
* :class:`TinyGenerator`: the project's trained tiny model when ``pretrained_dir`` holds one, else a seeded
  random tiny pipeline built in code (:mod:`generate.tiny`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from veriphy.errors import UserError, check_float
from veriphy.hashing import sha256_json

PACKAGE_DIR = Path(__file__).resolve().parent

# What a diffusers component folder must hold to be loadable, by component name.
_CONFIG_FILES = {"scheduler": ("scheduler_config.json",),
                 "tokenizer": ("tokenizer_config.json",)}
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".safetensors.index.json", ".bin.index.json")
_MODEL_COMPONENTS = ("text_encoder", "vae", "transformer", "transformer_2")


def _dtype(name: str):
    import torch

    table = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
             "float16": torch.float16, "fp16": torch.float16}
    if name not in table:
        raise UserError(f"unknown dtype {name!r}; use one of {sorted(table)}", field="generator.dtype")
    return table[name]


def check_weights_dir(path: str | Path, *, require: tuple[str, ...] = ()) -> dict[str, Any]:
    """Check that ``path`` is a complete diffusers pipeline directory; returns its ``model_index.json``.

    Raises a :class:`UserError` naming every missing piece: the directory, ``model_index.json``, a component
    subfolder, its config file, its weight files, or a required component (e.g. ``transformer_2``)."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise UserError("weights directory not found (give a local diffusers directory; nothing is downloaded)",
                        file=path, field="generator.path")
    index_path = path / "model_index.json"
    if not index_path.is_file():
        raise UserError("missing model_index.json: not a diffusers pipeline directory", file=path,
                        field="generator.path")
    try:
        index = json.loads(index_path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"model_index.json is not valid JSON ({exc.msg})", file=index_path) from None
    missing: list[str] = []
    for name in require:
        entry = index.get(name)
        if not (isinstance(entry, list) and entry and entry[0] is not None):
            missing.append(f"{name} (not in model_index.json)")
    for name, entry in sorted(index.items()):
        if name.startswith("_") or not (isinstance(entry, list) and len(entry) == 2 and entry[0] is not None):
            continue
        sub = path / name
        if not sub.is_dir():
            missing.append(f"{name}/")
            continue
        if name in _MODEL_COMPONENTS:
            if not (sub / "config.json").is_file():
                missing.append(f"{name}/config.json")
            if not any(p.name.endswith(_WEIGHT_SUFFIXES) for p in sub.iterdir()):
                missing.append(f"{name}/*.safetensors")
        for cfg in _CONFIG_FILES.get(name, ()):
            if not (sub / cfg).is_file():
                missing.append(f"{name}/{cfg}")
    if missing:
        raise UserError("incomplete weights directory, missing: " + ", ".join(missing), file=path,
                        field="generator.path")
    return index


def weights_config_sha256(path: str | Path) -> str:
    """sha256 over ``model_index.json`` and every component's config (not the weights: hashing 30 GB per run
    is not worth it; the configs plus the directory name identify a release)."""
    path = Path(path)
    record: dict[str, Any] = {"model_index": json.loads((path / "model_index.json").read_text())}
    for cfg in sorted(path.glob("*/*config.json")):
        try:
            record[cfg.relative_to(path).as_posix()] = json.loads(cfg.read_text())
        except json.JSONDecodeError:
            record[cfg.relative_to(path).as_posix()] = None
    for rec in record.values():
        if isinstance(rec, dict):
            rec.pop("_name_or_path", None)
    return sha256_json(record)


def _place(pipe, *, device: str, cpu_offload: str, vae_tiling: bool):
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"device {device!r} requested but CUDA is not available (set generator.device=cpu)",
                        field="generator.device")
    if vae_tiling:
        pipe.vae.enable_tiling()
    if cpu_offload == "model":
        pipe.enable_model_cpu_offload(device=device)
    elif cpu_offload == "sequential":
        pipe.enable_sequential_cpu_offload(device=device)
    elif cpu_offload == "none":
        pipe.to(device)
    else:
        raise UserError(f"cpu_offload must be none, model or sequential, got {cpu_offload!r}",
                        field="generator.cpu_offload")
    return pipe


def load_wan_vace_dir(path: str | Path, *, transformer_dtype: str = "bfloat16", vae_dtype: str = "float32",
                      text_encoder_dtype: str | None = None, device: str = "cpu", cpu_offload: str = "none",
                      vae_tiling: bool = False, boundary_ratio: float | None = None,
                      require: tuple[str, ...] = ()):
    """Load a local WanVACE directory offline (``local_files_only=True``), transformers made probeable."""
    # torch and diffusers are imported when weights are loaded, not with this module: a builder is instantiated
    # from config wherever a generator is configured (config checks, jobs served from cache or by the
    # control_as_clip executor), and those never load one.
    from diffusers import AutoencoderKLWan, WanVACEPipeline
    from transformers import UMT5EncoderModel

    from generate.probe import make_probeable

    path = Path(path).expanduser()
    check_weights_dir(path, require=require)
    extra: dict[str, Any] = {}
    if boundary_ratio is not None:
        extra["boundary_ratio"] = check_float(boundary_ratio, field="generator.boundary_ratio", minimum=0.0,
                                              maximum=1.0)
    try:
        # The VAE stays in fp32 (Wan's recommendation: bf16 decoding bands); the text encoder follows the
        # transformer unless told otherwise.
        extra["vae"] = AutoencoderKLWan.from_pretrained(path, subfolder="vae", dtype=_dtype(vae_dtype),
                                                        local_files_only=True)
        if text_encoder_dtype is not None:
            extra["text_encoder"] = UMT5EncoderModel.from_pretrained(path, subfolder="text_encoder",
                                                                     dtype=_dtype(text_encoder_dtype),
                                                                     local_files_only=True)
        pipe = WanVACEPipeline.from_pretrained(path, dtype=_dtype(transformer_dtype), local_files_only=True,
                                               **extra)
    except UserError:
        raise
    except (OSError, ValueError, RuntimeError, EnvironmentError) as exc:
        # A truncated or corrupt weight file (safetensors' header, a shape that does not fit the config).
        reason = " ".join(str(exc).split())[:300]
        raise UserError(f"cannot load the weights ({type(exc).__name__}: {reason})", file=path,
                        field="generator.path") from None
    make_probeable(pipe)  # before offload hooks wrap forward
    return _place(pipe, device=device, cpu_offload=cpu_offload, vae_tiling=vae_tiling)


@dataclass
class GeneratorBuilder:
    """Settings shared by all generators. ``height``/``width``/``num_frames``: the size requested from the model
    (``None``: the control video's own size); ``max_sequence_length``: prompt tokens; ``guidance_scale``: the
    classifier-free guidance the model is meant to run with (Wan's 5.0; the tiny model's card says its own);
    ``object_radius_px``: [min, max] apparent radius (px) of the objects the model renders at its size, from its
    card (``None``: no known limit; the experiments refuse scenes outside it). Commands use these unless told
    otherwise."""

    height: int | None = None
    width: int | None = None
    num_frames: int | None = None
    max_sequence_length: int = 512
    guidance_scale: float = 5.0
    object_radius_px: tuple[float, float] | None = None

    def load(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {"class": type(self).__name__, **asdict(self)}

    @property
    def request(self) -> dict[str, int | None]:
        return {"height": self.height, "width": self.width, "num_frames": self.num_frames}


@dataclass
class WanVACEGenerator(GeneratorBuilder):
    """A local diffusers WanVACE directory.

    * ``path``: the directory (``model_index.json`` + component folders). Mandatory.
    * ``transformer_dtype`` (bf16 on GPUs), ``vae_dtype`` (fp32), ``text_encoder_dtype`` (``None``: as the
      transformer), ``device``, ``cpu_offload`` (``none`` | ``model`` | ``sequential``), ``vae_tiling``.
    * ``two_experts``: require ``transformer_2`` (Wan2.2 A14B); ``boundary_ratio`` overrides the directory's.
    """

    path: str = ""
    model_id: str | None = None
    transformer_dtype: str = "bfloat16"
    vae_dtype: str = "float32"
    text_encoder_dtype: str | None = None
    device: str = "cuda"
    cpu_offload: Literal["none", "model", "sequential"] = "none"
    vae_tiling: bool = False
    two_experts: bool = False
    boundary_ratio: float | None = None

    def load(self):
        if not self.path:
            raise UserError("no weights directory given", field="generator.path")
        pipe = load_wan_vace_dir(self.path, transformer_dtype=self.transformer_dtype, vae_dtype=self.vae_dtype,
                                 text_encoder_dtype=self.text_encoder_dtype, device=self.device,
                                 cpu_offload=self.cpu_offload, vae_tiling=self.vae_tiling,
                                 boundary_ratio=self.boundary_ratio,
                                 require=("transformer", "transformer_2") if self.two_experts else ())
        pipe.veriphy_model_id = self.model_id or Path(self.path).expanduser().resolve().name
        pipe.veriphy_config_sha256 = weights_config_sha256(Path(self.path).expanduser())
        return pipe


@dataclass
class TinyGenerator(GeneratorBuilder):
    """The tiny WanVACE model: trained weights from ``pretrained_dir`` (relative paths are taken from the
    ``generate`` package directory), or random weights from ``sizes`` and ``seed`` when ``pretrained_dir`` is
    null (``generator=tiny_random``). A ``pretrained_dir`` that does not exist is refused when the builder is
    made: never a quiet fall-back to random weights. ``require_pretrained`` also refuses ``pretrained_dir:
    null``."""

    pretrained_dir: str | None = None
    require_pretrained: bool = False
    seed: int = 0
    sizes: dict[str, Any] = field(default_factory=dict)
    dtype: str = "float32"
    device: str = "cpu"

    def __post_init__(self) -> None:
        pre = self.resolved_pretrained_dir()
        if pre is not None and not pre.is_dir():
            raise UserError("trained tiny model not found (no such folder; generator=tiny_random for random "
                            "weights)", file=pre, field="generator.pretrained_dir")
        if pre is None and self.require_pretrained:
            raise UserError("require_pretrained is set but no pretrained_dir is given",
                            field="generator.pretrained_dir")
        for name in ("guidance_scale",):
            check_float(getattr(self, name), field=f"generator.{name}", minimum=0.0)

    def resolved_pretrained_dir(self) -> Path | None:
        if not self.pretrained_dir:
            return None
        p = Path(self.pretrained_dir).expanduser()
        return p if p.is_absolute() else PACKAGE_DIR / p

    def load(self):
        # Here, not at the top: these import torch and diffusers (see load_wan_vace_dir).
        from generate.probe import make_probeable
        from generate.tiny import build_tiny_pipeline

        pre = self.resolved_pretrained_dir()
        if pre is not None:
            pipe = load_wan_vace_dir(pre, transformer_dtype=self.dtype, vae_dtype="float32", device=self.device)
            pipe.veriphy_model_id = f"tiny-pretrained:{pre.name}"
            pipe.veriphy_config_sha256 = weights_config_sha256(pre)
            return pipe
        sizes = dict(self.sizes)
        pipe = build_tiny_pipeline(seed=self.seed, dtype=_dtype(self.dtype), **sizes)
        make_probeable(pipe)
        pipe.to(self.device)
        pipe.veriphy_model_id = "tiny-random"
        pipe.veriphy_config_sha256 = sha256_json({"seed": self.seed, "sizes": sizes, "dtype": self.dtype})
        return pipe
