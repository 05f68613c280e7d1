"""Finding a suite's typed expectation in a plan: a count of a noun, a string to read, one action before another.

The coverage report asks whether the planner recovered an expectation from the prompt; the DSG exporter asks
which claim answers a tuple. Both read the plan through these functions, so a tuple counts as recovered exactly
when the exporter can answer it from a claim.
"""

from __future__ import annotations

import re

from critic.types import BeforeOp, CountOp, Plan, ReadOp

WORD_RE = re.compile(r"[a-z][a-z'\-]*")
#: words that carry no content of their own (kept small: the ranking of unplanned words filters with it too)
STOPWORDS = frozenset("""a an the of to in on at by for with from into onto off over under up down out as is are was
were be been being it its it's they them their this that these those there here and or but then than so very
some any each every all both one two three four five six seven eight nine ten not no nor do does did has have
had while when where which who whom whose what how after before until during s i we you he she his her him our
your my me us can will would should could may might just also too only own same other such more most less""".split())


def singular(word: str) -> str:
    """A crude singular for matching nouns ("balls" -> "ball", "boxes" -> "box", "puppies" -> "puppy")."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def head_noun(phrase: str) -> str:
    """The last word of a noun phrase, singular ("croquet game's balls" -> "ball")."""
    words = WORD_RE.findall(phrase.lower().replace("'s ", " "))
    return singular(words[-1]) if words else ""


def normalise_text(text: str) -> str:
    """Case, spacing and surrounding quotes/punctuation do not matter when comparing a string to read."""
    return re.sub(r"\s+", " ", text.lower()).strip(" \t'\"“”‘’.,!?;:")


def claims_checking(plan: Plan, op_id: str) -> list[str]:
    """Ids of the claims with an obligation decided by operation ``op_id``."""
    return list(dict.fromkeys(ob.claim for ob in plan.obligations if ob.check == op_id))


def claim_spans(plan: Plan, op_id: str) -> list[tuple[int, int]]:
    """Prompt spans of the explicit claims an operation decides."""
    ids = set(claims_checking(plan, op_id))
    return [c.span for c in plan.claims if c.id in ids and c.kind == "explicit"]


def find_count(plan: Plan, noun_phrase: str, n: int) -> str | None:
    """The id of a ``count`` operation for ``n`` of the phrase's head noun: the counted subject's noun is that
    noun, or the count's claim span names it ("two soccer balls" for "soccer balls")."""
    head = head_noun(noun_phrase)
    for op in plan.operations:
        if isinstance(op, CountOp) and op.n == n:
            nouns = {singular(s.noun) for s in plan.subjects if s.name == op.subject}
            for a, b in claim_spans(plan, op.id):
                nouns |= {singular(w) for w in WORD_RE.findall(plan.prompt[a:b].lower())}
            if head in nouns:
                return op.id
    return None


def count_kind(n: int) -> str:
    """Coverage keeps counts of one apart: a prompt naming "an orange dog" states a count the planner may fairly
    leave implicit, "two orange dogs" one it must check."""
    return "count=1" if n == 1 else "count"


def find_read(plan: Plan, text: str) -> str | None:
    """The id of a ``read`` operation for the same string (case, spacing and quotes aside)."""
    want = normalise_text(text)
    for op in plan.operations:
        if isinstance(op, ReadOp) and normalise_text(op.text) == want:
            return op.id
    return None


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def locate_phrase(prompt: str, phrase: str, start: int = 0) -> tuple[int, int] | None:
    """Where a short action phrase ("get up and sweeping") is in the prompt, from ``start``: the first prompt
    word that shares a stem with the phrase's first content word (one stem a prefix of the other, >= 3 letters)."""
    words = [w for w in WORD_RE.findall(phrase.lower()) if w not in STOPWORDS]
    if not words:
        return None
    want = _stem(words[0])
    for m in WORD_RE.finditer(prompt.lower(), start):
        got = _stem(m.group(0))
        if min(len(got), len(want)) >= 3 and (got.startswith(want) or want.startswith(got)):
            return m.start(), m.end()
    return None


def find_before(plan: Plan, first: tuple[int, int], then: tuple[int, int]) -> str | None:
    """The id of a ``before`` operation whose first operand is decided for a claim spanning ``first`` and whose
    second operand for one spanning ``then`` (character ranges of the prompt)."""

    def covers(spans: list[tuple[int, int]], where: tuple[int, int]) -> bool:
        return any(a <= where[0] and where[1] <= b for a, b in spans)

    for op in plan.operations:
        if isinstance(op, BeforeOp) and covers(claim_spans(plan, op.a.op), first) \
                and covers(claim_spans(plan, op.b.op), then):
            return op.id
    return None
