"""What every entry point shares: the user-error guard, the run directory, the thread set-up."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig

from veriphy.errors import EXIT_USER_ERROR, UserError


def exit_on_user_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for task functions (inside ``@hydra.main``): a :class:`UserError` prints one line on
    stderr and exits with code 2. ``SystemExit`` passes through Hydra untouched."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            sys.exit(EXIT_USER_ERROR)

    return wrapper


def configure_threads(num_threads: int | None, *, only_if_imported: bool = False) -> None:
    """One torch thread by default: on two vCPUs more threads were 5-50x slower under load.

    ``only_if_imported``: leave torch alone unless something already imported it (importing torch takes
    seconds; a stage that never uses it should not pay for it)."""
    if num_threads is None:
        return
    if only_if_imported and "torch" not in sys.modules:
        return
    try:
        import torch

        torch.set_num_threads(int(num_threads))
    except ImportError:  # pragma: no cover - torch is a dependency
        pass


def hydra_run_dir(default: str | Path = ".") -> Path:
    """The current Hydra run directory (Hydra 1.3 with ``version_base="1.3"`` does not chdir into it)."""
    if HydraConfig.initialized():
        return Path(HydraConfig.get().runtime.output_dir)
    p = Path(default)  # not inside a Hydra app (e.g. called from a test)
    p.mkdir(parents=True, exist_ok=True)
    return p
