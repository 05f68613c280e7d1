"""User errors: a clear message naming the file, the field and the reason, exit code 2, no traceback."""

from __future__ import annotations

import os

EXIT_USER_ERROR = 2


class UserError(Exception):
    """A mistake in the user's input. Printed as ``error: FILE: FIELD: REASON`` and exit code 2."""

    def __init__(self, reason: str, *, file: str | os.PathLike | None = None, field: str | None = None):
        self.reason = reason
        self.file = None if file is None else str(file)
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        parts = [p for p in (self.file, self.field) if p]
        return ": ".join([*parts, self.reason])


def user_error_from_validation(exc: Exception, *, file: str | os.PathLike | None) -> UserError:
    """Turn a pydantic ``ValidationError`` into a :class:`UserError` naming the first bad field."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        errs = errors()
        # Drop consequences of a deeper error (e.g. "tuple too short" after one of its items failed).
        locs = [tuple(e.get("loc", ())) for e in errs]
        errs = [e for e, loc in zip(errs, locs)
                if not any(len(other) > len(loc) and other[:len(loc)] == loc for other in locs)] or errs
        if errs:
            fields = ".".join(str(p) for p in errs[0].get("loc", ())) or "(root)"
            reasons = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('msg')}" for e in errs[:5]
            )
            return UserError(reasons if len(errs) > 1 else str(errs[0].get("msg")), file=file,
                             field=fields if len(errs) == 1 else None)
    return UserError(str(exc), file=file)
