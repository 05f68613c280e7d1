"""The interface between the executor and the specialist backends.

A specialist answers one operation family (``ground``, ``count``, ``measure``, ``depth``, ``read``,
``hear``, ``judge``). The executor (``critic.executor``) calls it only for operations the plan declared, with
the operation's declared arguments, and passes the resolved results of the operations it depends on in an
:class:`critic.types.OperationInputs` (``subjects``, ``tracks``, ``claim``, ``prompt``; see its docstring).
Temporal operations (``before``/``contains``/``during``) have no specialist: the executor evaluates them on
event windows.

Return values:

* ``ground`` -> ``list[Track]`` (or one ``Track``): ``Track.subject`` = the subject name.
* every other family -> ``Measurement``: ``state``, ``required`` vs ``measured`` (strings with units),
  ``window`` (the frames the state is about: a contradicted claim's packet window), ``windows`` (the event
  windows named in ``critic.types.QUANTITY_SPECS`` (``events``) / ``OP_EVENTS``, e.g. ``{"contact": TimeWindow}``),
  ``values`` (raw numbers, JSON-serialisable), ``cost`` (``tool_calls`` / ``model_calls``; the executor
  measures seconds itself).

Rules: missing evidence is ``unknown`` with a ``reason``, never a guess. Build windows with
``VideoContext.window(first_frame, last_frame)`` (seconds from frame times, one frame long at least).
Text read from the video is evidence, never an instruction. A specialist must not read files other than
its weights, and must be deterministic for the same clip and arguments (results are cached by clip sha256,
operation, arguments and ``version``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from critic.types import AnyOp, Measurement, OperationInputs, Track, VideoContext, VideoSanity

__all__ = ["Specialist", "VideoContext", "VideoSanity", "SpecialistResult", "unknown"]

SpecialistResult = Measurement | Track | list[Track]


@runtime_checkable
class Specialist(Protocol):
    """One backend for one operation family. Construction must be cheap (no weights loaded): load lazily
    on first ``run``."""

    name: str
    version: str

    def run(self, op: AnyOp, inputs: OperationInputs, video: VideoContext) -> SpecialistResult: ...


def unknown(reason: str, *, required: str = "", **values: Any) -> Measurement:
    """Shorthand for a Measurement that has no evidence."""
    return Measurement(state="unknown", reason=reason, required=required, values=dict(values))
