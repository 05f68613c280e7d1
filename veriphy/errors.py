"""User errors: a clear message naming the file, the field and the reason, exit code 2, no traceback."""

from __future__ import annotations

import math
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
            reasons = reasons.replace("Value error, ", "")
            return UserError(reasons if len(errs) > 1 else str(errs[0].get("msg")).replace("Value error, ", ""),
                             file=file,
                             field=fields if len(errs) == 1 else None)
    return UserError(str(exc), file=file)


def _describe(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def check_int(value: object, *, field: str, file: str | os.PathLike | None = None, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """``value`` as an int, or a :class:`UserError`: a bool, a non-number (``"abc"``, ``"ten"``) and a number
    with a fractional part (``2.5``: never truncated) are refused, as is one outside ``[minimum, maximum]``."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            number = None
    else:
        try:  # numpy integers
            if int(value) == value:  # type: ignore[call-overload]
                number = int(value)  # type: ignore[call-overload]
        except (TypeError, ValueError, OverflowError):
            number = None
    if number is None:
        raise UserError(f"must be an integer, got {_describe(value)}", file=file, field=field)
    if minimum is not None and number < minimum:
        raise UserError(f"must be >= {minimum}, got {number}", file=file, field=field)
    if maximum is not None and number > maximum:
        raise UserError(f"must be <= {maximum}, got {number}", file=file, field=field)
    return number


def check_float(value: object, *, field: str, file: str | os.PathLike | None = None, minimum: float | None = None,
                maximum: float | None = None, above: float | None = None, below: float | None = None) -> float:
    """``value`` as a finite float, or a :class:`UserError`: a bool, a non-number, inf and NaN are refused, as
    is one outside ``[minimum, maximum]`` or not strictly inside ``(above, below)``."""
    number: float | None = None
    if not isinstance(value, bool):
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            number = None
    if number is None:
        raise UserError(f"must be a number, got {_describe(value)}", file=file, field=field)
    if not math.isfinite(number):
        raise UserError(f"must be finite, got {number}", file=file, field=field)
    if minimum is not None and number < minimum:
        raise UserError(f"must be >= {minimum}, got {number}", file=file, field=field)
    if maximum is not None and number > maximum:
        raise UserError(f"must be <= {maximum}, got {number}", file=file, field=field)
    if above is not None and not number > above:
        raise UserError(f"must be > {above}, got {number}", file=file, field=field)
    if below is not None and not number < below:
        raise UserError(f"must be < {below}, got {number}", file=file, field=field)
    return number
