"""Artifacts of the field's suites (``critic.suites``). Imports only the standard library and pydantic.

* :class:`SuiteItem` - one line of the critic's batch manifest made from a suite row, with what the suite
  expects of the clip (``expect``) and where the row came from (``source``: file and line).
* :class:`RowProblem` - a row that was not imported: its file, line and why.
* :class:`CoverageTarget` / :class:`TargetCoverage` / :class:`Shares` / :class:`HalfCoverage` /
  :class:`SuiteCoverage` / :class:`PromptCoverage` - how much of a suite's prompts the planner turns into claims
  (typed) and into claims an instrument measures (instrumented), per half, group and physics subset; how many of
  the suite's own typed expectations (DSG count and text tuples, VBench-2 ordered actions and counts) it recovers
  as operations; and which words it leaves unplanned.
* :class:`AgreementReport` - the critic's three states against a suite's labels, with the disagreements.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

State = Literal["supported", "contradicted", "unknown"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceRef(_Frozen):
    """The suite file a manifest line came from and the line its row starts on (1-based)."""

    file: str
    line: int


class SuiteItem(_Frozen):
    """One manifest line: ``{"id", "video", "prompt"}`` as ``python -m critic manifest=...`` reads it, plus the
    suite's name, its expectations and the row's source. ``video`` is relative to the manifest's folder unless
    absolute."""

    id: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.\-]+$")
    video: str
    prompt: str = Field(min_length=1)
    suite: str
    expect: dict[str, Any] = Field(default_factory=dict)
    source: SourceRef


class RowProblem(_Frozen):
    """A suite row left out of the manifest (malformed, or naming something the suite does not know)."""

    file: str
    line: int
    reason: str

    @property
    def message(self) -> str:
        return f"{self.file}: line {self.line}: {self.reason}"


class CoverageTarget(_Frozen):
    """One typed expectation of a suite (``kind``: ``count``, ``text``, ``order``, ...), whether the plan of its
    prompt recovered it, and the operation that did (or why not)."""

    kind: str
    item: str
    expected: str
    recovered: bool
    op: str | None = None
    note: str = ""


class TargetCoverage(_Frozen):
    """The suite's typed expectations of one kind and how many the plans recovered (``misses``: the first few
    that were not)."""

    kind: str
    total: int
    recovered: int
    share: float | None
    misses: list[CoverageTarget] = Field(default_factory=list)


class WordCount(_Frozen):
    """A word (or two-word construction) outside every claim span: in how many prompts, how many times."""

    text: str
    prompts: int
    occurrences: int


class Shares(_Frozen):
    """How many of a set of distinct prompts have at least one explicit claim (``typed``), at least one explicit
    claim an instrument measures (``instrumented``: an operation other than ``judge``), and a physical clause no
    claim covers (``unplanned_physical``); each also as a share of ``prompts`` (``None`` when there are none)."""

    prompts: int
    typed: int
    instrumented: int
    unplanned_physical: int
    share_typed: float | None
    share_instrumented: float | None
    share_unplanned_physical: float | None


class HalfCoverage(_Frozen):
    """Planner coverage on one half of a suite's prompts (``dev``, ``held_out``, or ``all`` of them).

    * ``all`` / ``physics``: every prompt, and those the suite counts as physics prompts;
    * ``groups``: per group of the suite (a VBench-2 dimension, a Physics-IQ category, a DSG source ...); a prompt in
      two groups counts in both;
    * ``rejected``: prompts whose plan was rejected (counted in ``prompts``, never typed);
    * ``targets``: the suite's typed expectations recovered as operations, per kind;
    * ``unplanned_words`` / ``unplanned_constructions``: words and adjacent word pairs outside every claim span,
      ranked by the number of prompts they are left unplanned in."""

    all: Shares
    physics: Shares
    groups: dict[str, Shares] = Field(default_factory=dict)
    rejected: int = 0
    targets: list[TargetCoverage] = Field(default_factory=list)
    unplanned_words: list[WordCount] = Field(default_factory=list)
    unplanned_constructions: list[WordCount] = Field(default_factory=list)


class SuiteCoverage(_Frozen):
    """Planner coverage on a suite's distinct prompts, per half (``halves``: ``dev``, ``held_out`` and ``all``
    when ``half`` is ``all``, else that half only). ``rows``: the manifest rows read (VBench-2 samples, Physics-IQ
    perspectives ...); ``prompts``: the distinct prompts planned."""

    suite: str
    source: str
    planner: str
    half: Literal["dev", "held_out", "all"]
    rows: int
    prompts: int
    halves: dict[str, HalfCoverage]


class PromptCoverage(_Frozen):
    """What the plan of one distinct prompt covers (a line of ``prompts.jsonl``): its half and groups, its explicit
    claims, whether one is typed / instrumented, the clauses no explicit claim covers (the plan's ``unplanned``),
    and the words and constructions outside every claim span."""

    text: str
    half: Literal["dev", "held_out"]
    groups: list[str]
    physics: bool
    rejected: bool
    claims: int
    typed: bool
    instrumented: bool
    unplanned: list[dict[str, Any]] = Field(default_factory=list)
    unplanned_words: list[str] = Field(default_factory=list)
    unplanned_constructions: list[str] = Field(default_factory=list)


class Disagreement(_Frozen):
    """A labelled item where the critic's state differs from the suite's label, with the critic's reasons: the
    verdict's reason, the claims that decided the state and, for a contradicted one, the contradiction packets."""

    id: str
    video: str
    prompt: str
    label: int
    state: State
    verdict: str
    reason: str = ""
    claims: list[dict[str, Any]] = Field(default_factory=list)
    packets: list[dict[str, Any]] = Field(default_factory=list)


class AgreementReport(_Frozen):
    """The critic's state per labelled item (rows) against the suite's label (columns).

    ``matrix[state][label]`` counts items; ``agree`` counts the diagonal of ``pairing`` (state -> label that
    means the same); items without a verdict (critic errors, missing lines) are listed in ``no_verdict``."""

    suite: str
    claims: Literal["explicit", "all"]
    labels: list[int]
    pairing: dict[str, int]
    matrix: dict[str, dict[str, int]]
    labelled: int
    agree: int
    accuracy: float | None
    no_verdict: list[str] = Field(default_factory=list)
    disagreements: list[Disagreement] = Field(default_factory=list)
