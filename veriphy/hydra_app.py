"""What every entry point shares: the user-error guard, the run directory, the thread set-up.

The error contract (``docs/errors.md``): a user's mistake, wherever it is found, ends the command with one line
``error: FILE: FIELD: REASON`` on stderr, exit code 2, no traceback, and no files of the failed run left
behind. Two guards keep it:

* :func:`run_app` wraps a whole ``@hydra.main`` command, so Hydra's own failures (an unknown override key, a
  missing config option, a value that does not parse, an output folder it cannot create or log into) are
  reported the same way instead of Hydra's exit code 1;
* :func:`exit_on_user_error` wraps the task function inside Hydra: it also removes the files the failed task
  had written into its run directory (and the run directory itself when Hydra made it for this run).

A programming error is not a user's mistake: it still ends with its traceback (exit code 1).
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException
from omegaconf.errors import OmegaConfBaseException

from veriphy.errors import EXIT_USER_ERROR, UserError

# The project's configs, by absolute path: Hydra resolves a relative ``config_path`` against the calling module's
# package when the command is imported (console scripts, in-process tests), where ``conf/`` is not a package.
CONFIG_PATH = str(Path(__file__).resolve().parents[1] / "conf")

# OSErrors that describe the user's files or folders (not a bug): the filename says which.
_USER_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EISDIR, errno.ENOSPC, errno.EEXIST,
                errno.ENOENT, errno.ENAMETOOLONG, errno.EDQUOT}
# When the current command started (set by run_app): Hydra's own files newer than this belong to this run.
_started_at: float | None = None


def _chain(exc: BaseException):
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def user_error_of(exc: BaseException) -> UserError | None:
    """The user's mistake behind ``exc`` (itself or a cause): a :class:`UserError`, an ``OSError`` on a named
    path (permission denied, read-only file system, a file where a folder was expected, disk full), or a Hydra
    or OmegaConf error (composition, override syntax, a missing mandatory value, instantiating a config
    option). ``None`` when it is a programming error."""
    chain = list(_chain(exc))
    for cur in chain:
        if isinstance(cur, UserError):
            return cur
    for cur in chain:
        if isinstance(cur, OSError) and cur.errno in _USER_ERRNOS and cur.filename:
            reason = (cur.strerror or str(cur)).lower()
            if cur.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                reason += " (the output folder and the files read must be accessible)"
            elif cur.errno in (errno.ENOTDIR, errno.EEXIST):
                reason += " (a file stands where a folder is needed)"
            return UserError(reason, file=cur.filename)
    for cur in chain:
        if isinstance(cur, (HydraException, OmegaConfBaseException)):
            causes = [_one_line(c) for c in chain[chain.index(cur) + 1:] if str(c).strip()]
            # Hydra appends its search path to a missing option's message: noise for the user.
            own = _one_line(str(cur).split("Config search path:")[0])
            reason = own + ("" if not causes or causes[0] in own else f" ({causes[0]})")
            key = getattr(cur, "full_key", None)
            return UserError(reason or type(cur).__name__, field=str(key) if key else "overrides")
    return None


def _files_under(folder: Path) -> set[Path]:
    try:
        return {p for p in folder.rglob("*") if not p.is_dir()} if folder.is_dir() else set()
    except OSError:
        return set()


def _remove_partial_outputs(run_dir: Path, before: set[Path]) -> None:
    """Remove what the failed task wrote into ``run_dir``; then, when only Hydra's own record of this run is
    left (``.hydra/``, its log), the record and the folder too."""
    for p in sorted(_files_under(run_dir) - before, reverse=True):
        if ".hydra" not in p.relative_to(run_dir).parts and p.suffix != ".log":
            p.unlink(missing_ok=True)
    for d in sorted((p for p in run_dir.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if d.name != ".hydra" and not any(d.iterdir()):
            d.rmdir()
    left = _files_under(run_dir)
    hydra_own = {p for p in left if ".hydra" in p.relative_to(run_dir).parts or
                 (p.suffix == ".log" and p.parent == run_dir)}
    if _started_at is not None and left == hydra_own and all(p.stat().st_mtime >= _started_at - 1 for p in left):
        shutil.rmtree(run_dir, ignore_errors=True)


def _report(err: UserError) -> None:
    print(f"error: {err.message}", file=sys.stderr)


def exit_on_user_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for task functions (inside ``@hydra.main``): a user's mistake (:func:`user_error_of`) removes
    the files the task wrote into its run directory, prints one line on stderr and exits with code 2.
    ``SystemExit`` passes through Hydra untouched."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        run_dir = Path(HydraConfig.get().runtime.output_dir) if HydraConfig.initialized() else None
        before = _files_under(run_dir) if run_dir is not None else set()
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            err = user_error_of(exc)
            if err is None:
                raise
            if run_dir is not None:
                try:
                    _remove_partial_outputs(run_dir, before)
                except OSError:
                    pass
            _report(err)
            sys.exit(EXIT_USER_ERROR)

    return wrapper


def run_app(hydra_main: Callable[[], Any], argv: Sequence[str] | None = None) -> Any:
    """Run a ``@hydra.main`` function under the error contract (module docstring). ``argv``: the command-line
    arguments (default: ``sys.argv[1:]``), so tests run a command in-process and catch ``SystemExit``."""
    global _started_at
    saved_argv, saved_env, saved_started = list(sys.argv), os.environ.get("HYDRA_FULL_ERROR"), _started_at
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    # Let Hydra's own failures reach this guard as exceptions instead of printing them and exiting 1.
    os.environ["HYDRA_FULL_ERROR"] = "1"
    _started_at = time.time()
    try:
        return hydra_main()
    except Exception as exc:
        err = user_error_of(exc)
        if err is None:
            raise
        _report(err)
        sys.exit(EXIT_USER_ERROR)
    finally:
        sys.argv = saved_argv
        _started_at = saved_started
        if saved_env is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        else:
            os.environ["HYDRA_FULL_ERROR"] = saved_env


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


def take_verb(verbs: Sequence[str], usage: str, argv: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """The verb of a ``python -m PKG VERB [OVERRIDES]`` command and the overrides after it (``argv``: the command's
    arguments, default the command line's). A missing or unknown verb prints ``usage`` and exits 2."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in verbs:
        print(usage.strip(), file=sys.stderr)
        print(f"\nerror: the first argument must be one of: {', '.join(verbs)}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR)
    return args[0], args[1:]
