"""Memory M: human-readable lessons the planner reads (docs/architecture.md §5).

A lesson is distilled from a clip where the plan missed a recorded flaw: "when the prompt says *spins*,
also check size constancy". It keeps its provenance (clip, flaw, who/what proposed it) and passes a
candidate-and-pruning gate before the planner uses it:

* ``propose`` adds it as a ``candidate`` (never used while a candidate);
* ``review`` records how it did on held-out clips - ``hits`` (flaws it caught that the plan alone missed)
  and ``false_alarms`` (contradictions it raised on clean clips) - and accepts it when
  ``hits >= min_hits`` and ``false_alarms <= max_false_alarms``, else prunes it;
* only ``accepted`` lessons are returned by ``active()``.

The file is plain JSON (sorted keys, one entry per lesson in id order, no timestamps), so a person can read,
edit and diff it. ``experiments.memory`` distils candidates from the benchmark corpus, reviews them and measures
what the accepted ones change.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from critic.types import QUANTITY_SPECS, Expect, MeasureOp, Quantity
from veriphy.errors import user_error_from_validation, UserError
from veriphy.files import read_json, write_json


class Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    clip: str = ""
    flaw: str = ""
    source: str = ""


class Lesson(BaseModel):
    """When ``trigger`` (a regular expression, case-insensitive) matches the prompt, every subject named in
    the matching sentence (all subjects when none) also gets ``measure(quantity, expect)``, as a claim tied to
    the matched words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    text: str
    trigger: str
    quantity: Quantity
    expect: Expect = Expect()
    status: Literal["candidate", "accepted", "pruned"] = "candidate"
    provenance: Provenance = Provenance()
    hits: int = 0
    false_alarms: int = 0
    #: how many recorded flaws proposed this same lesson (the provenance names the first)
    examples: int = Field(default=1, ge=1)
    #: why the gate accepted or pruned it, in words (empty while a candidate)
    reason: str = ""

    @field_validator("trigger")
    @classmethod
    def _compiles(cls, v: str) -> str:
        re.compile(v)
        return v

    def apply(self, builder: Any, low: str, subjects_in: Callable[[int, int], list[str]]) -> None:
        """Add this lesson's obligations to a :class:`critic.planners.base.PlanBuilder`: one claim per subject, at
        the first match whose sentence names it (a prompt saying "domino" and "dominoes" gets one claim per
        domino subject, not two)."""
        done: set[str] = set()
        for m in re.finditer(self.trigger, low, flags=re.IGNORECASE):
            start = max(low.rfind(".", 0, m.start()) + 1, 0)
            end = low.find(".", m.end())
            end = len(low) if end < 0 else end
            subjects = subjects_in(start, end) or [n for n in builder.subjects]
            for s in subjects:
                if QUANTITY_SPECS[self.quantity].directional and self.expect.direction is None:
                    continue  # the validator would reject it: a direction measurement needs its direction
                if s in done:
                    continue
                done.add(s)
                check = builder.op(MeasureOp, subject=s, quantity=self.quantity, expect=self.expect)
                cid = builder.claim((m.start(), m.end()), kind="implicit", subjects=[s],
                                    text=f"{low[m.start():m.end()]}: {self.text} ({s})")
                builder.oblige(cid, check, f"lesson {self.id}")


class Memory:
    """A JSON file of lessons. ``path=None`` keeps them in memory only."""

    def __init__(self, path: str | os.PathLike | None = None, min_hits: int = 1, max_false_alarms: int = 0):
        self.path = Path(path) if path else None
        self.min_hits = min_hits
        self.max_false_alarms = max_false_alarms
        self.lessons: dict[str, Lesson] = {}
        if self.path is not None and self.path.is_file():
            data = read_json(self.path)
            try:
                for item in data.get("lessons", []) if isinstance(data, dict) else []:
                    lesson = Lesson.model_validate(item)
                    self.lessons[lesson.id] = lesson
            except (ValidationError, re.error) as exc:
                raise user_error_from_validation(exc, file=self.path) from None
            if not isinstance(data, dict):
                raise UserError("a memory file must be a JSON object with a 'lessons' list", file=self.path)

    def active(self) -> list[Lesson]:
        return [lesson for _, lesson in sorted(self.lessons.items()) if lesson.status == "accepted"]

    def propose(self, lesson: Lesson) -> Lesson:
        lesson = lesson.model_copy(update={"status": "candidate", "hits": 0, "false_alarms": 0, "reason": ""})
        self.lessons[lesson.id] = lesson
        return lesson

    def review(self, lesson_id: str, *, hits: int, false_alarms: int, where: str = "") -> Lesson:
        """The gate: accept a candidate that caught enough flaws without false alarms, prune the rest. The
        lesson's ``reason`` says which side of the gate it fell on (and ``where``: the clips it was tried on)."""
        lesson = self.lessons[lesson_id]
        hits, false_alarms = lesson.hits + hits, lesson.false_alarms + false_alarms
        short = hits < self.min_hits
        noisy = false_alarms > self.max_false_alarms
        ok = not short and not noisy
        if ok:
            reason = (f"accepted: {hits} hit(s) >= {self.min_hits} and {false_alarms} false alarm(s) "
                      f"<= {self.max_false_alarms}")
        else:
            reason = "pruned: " + " and ".join(
                ([f"{hits} hit(s) < {self.min_hits}"] if short else [])
                + ([f"{false_alarms} false alarm(s) > {self.max_false_alarms}"] if noisy else []))
        lesson = lesson.model_copy(update={"hits": hits, "false_alarms": false_alarms,
                                           "status": "accepted" if ok else "pruned",
                                           "reason": reason + (f" ({where})" if where else "")})
        self.lessons[lesson_id] = lesson
        return lesson

    def save(self) -> Path | None:
        if self.path is None:
            return None
        return write_json(self.path, {"lessons": [lesson.model_dump(mode="json") for _, lesson in
                                                  sorted(self.lessons.items())]})
