"""Prompts in varied language, with the exact character span of every claim and object mention.

A prompt is assembled clause by clause (:class:`PromptBuilder`). Each clause comes from one of several
phrasings of its event (4-8 per event, with random synonyms for nouns and verbs), clauses of independent events
are shuffled, and they are joined by varied connectors (of those that say when, only "then", and only before a
sequence's next step about the same body: every clause stays true of the clean clip). The builder records, for
every clause, the span of the whole clause (the claim) and of each object mention inside it, so a defect can point
at the exact words it violates. Everything is drawn from the clip's own ``numpy`` generator: the same seed gives
the same prompt.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

import numpy as np

from experiments.benchmark.types import Span, TruthClaim

NOUNS = {
    "sphere": ("ball", "ball", "sphere", "ball"),
    "box": ("cube", "box", "block", "cube"),
    "cylinder": ("cylinder", "can", "drum", "cylinder"),
}
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

#: Event phrasings; ``{S}`` is the subject (an object phrase), ``{O}`` a second object, ``{D}`` a direction
#: phrase, ``{T}`` quoted text. Each list has 4-8 phrasings.
EVENTS: dict[str, tuple[str, ...]] = {
    "fall": ("{S} falls onto the floor", "{S} drops to the ground", "{S} is dropped and lands on the floor",
             "{S} falls from above and hits the ground", "{S} tumbles down to the floor",
             "{S} drops straight down and lands"),
    "bounce": ("{S} falls and bounces on the floor", "{S} drops and bounces back up",
               "{S} hits the ground and rebounds", "{S} lands and bounces", "{S} is dropped and bounces off the floor",
               "{S} bounces after falling to the ground", "{S} falls, then bounces up again"),
    "rest": ("{S} sits still on the floor", "{S} rests on the ground", "{S} stays where it is on the floor",
             "{S} lies motionless on the floor", "{S} stands on the floor without moving"),
    "throw": ("{S} is thrown {D}", "{S} flies through the air {D}", "someone tosses {S} {D}",
              "{S} is launched {D} in an arc", "{S} is thrown {D} and lands on the floor",
              "{S} sails {D} through the air"),
    "roll": ("{S} rolls {D} across the floor", "{S} rolls along the ground {D}", "{S} glides {D} over the floor",
             "{S} slides {D} along the floor", "{S} moves {D} across the ground"),
    "roll_to_wall": ("{S} rolls {D} until it reaches the wall", "{S} rolls {D} and hits the wall",
                     "{S} slides {D} into the wall", "{S} moves {D} across the floor to the wall"),
    "hit_wall": ("{S} hits the wall", "{S} bounces off the wall", "{S} strikes the wall and comes back",
                 "{S} rebounds from the wall"),
    "collide": ("{S} rolls into {O}", "{S} collides with {O}", "{S} hits {O}", "{S} knocks into {O}",
                "{S} crashes into {O}"),
    "order": ("{S} lands before {O}", "{S} reaches the floor first, then {O}", "{S} hits the ground ahead of {O}",
              "first {S} lands, and only after that {O}", "{S} touches down earlier than {O}"),
    "count": ("{N} {P} fall to the floor", "there are {N} {P} dropping", "{N} {P} drop onto the ground",
              "we see {N} {P} falling", "{N} {P} tumble down"),
    "sound": ("{S} makes a sharp click as it hits the floor", "a loud clack is heard when {S} lands",
              "a knock is heard when {S} lands", "you can hear {S} tap the floor as it lands",
              "{S} lands with an audible thud", "{S} hits the floor with a clear knock"),
    "text": ('a sign reading "{T}" is shown', 'the caption "{T}" appears on screen', 'the words "{T}" are written '
             'in the corner', 'a label says "{T}"', 'the text "{T}" is displayed', 'a banner reads "{T}"'),
    "generic": ("{S} is in view", "{S} can be seen in the scene", "{S} is there too", "{S} sits in the scene",
                "{S} stands nearby", "there is also {S}"),
}
DIRECTIONS = {
    +1: ("to the right", "rightward", "toward the right", "from left to right"),
    -1: ("to the left", "leftward", "toward the left", "from right to left"),
}
SETTINGS = ("on a checkered floor", "in a plain room", "on a tiled floor", "indoors", "in front of a wall",
            "on a flat floor", "")
CONNECTORS = (". ", "; ", ", and ", ", while ", ". Meanwhile, ", ". Then ")
#: connectors that say when: "then" puts the clause after the one before, "while" and "meanwhile" at the same
#: time. Only "then" is said, and only before a sequence's next step about the same body (a throw, then the hit on
#: the wall); elsewhere (clauses of independent events, drawn in any order) each is said without the time: the
#: clause would claim an order or an overlap the clip need not show. They stay among the draws, so that a prompt
#: draws the numbers it drew before and its clip stays the same.
TIMED_CONNECTORS = {", while ": ", and ", ". Meanwhile, ": ". ", ". Then ": ". "}
TEXTS = ("STOP", "EXIT", "TEST", "DROP", "GO", "HELLO", "PHYSICS", "START", "LAB", "OPEN", "WAIT", "BALL")


@dataclass
class Piece:
    text: str
    key: str | None = None


@dataclass
class PromptBuilder:
    """Appends clauses and records ``[start, end)`` spans by key (``claim:<id>``, ``mention:<object>``)."""

    text: str = ""
    spans: dict[str, Span] = field(default_factory=dict)
    claim_objects: dict[str, list[str]] = field(default_factory=dict)
    claim_kind: dict[str, str] = field(default_factory=dict)

    def plain(self, text: str) -> None:
        self.text += text

    def clause(self, claim_id: str, template: str, objects: list[str], capitalise: bool = False,
               **pieces: Piece) -> Span:
        """Append ``template`` with its ``{X}`` fields filled by ``pieces``; a piece with a key gets a span
        (the first occurrence of a key wins, so an object's first mention is kept)."""
        start = len(self.text)
        out = ""
        for literal, name, _, _ in string.Formatter().parse(template):
            out_literal = literal
            if capitalise and not out and not self.text[start:] and literal:
                out_literal = literal[0].upper() + literal[1:]
            out += out_literal
            if name is None:
                continue
            piece = pieces[name]
            piece_text = piece.text
            if capitalise and not out:
                piece_text = piece_text[0].upper() + piece_text[1:]
            if piece.key and piece.key not in self.spans:
                a = start + len(out)
                self.spans[piece.key] = Span(start=a, end=a + len(piece_text), text=piece_text)
            out += piece_text
        self.text += out
        span = Span(start=start, end=start + len(out), text=out)
        self.spans[f"claim:{claim_id}"] = span
        self.claim_objects[claim_id] = list(objects)
        return span

    def claims(self, broken: dict[str, bool] | None = None, implicit: set[str] | None = None) -> list[TruthClaim]:
        """A TruthClaim per clause; ``broken[claim_id]`` = False marks a claim the clip does not bear out."""
        broken = broken or {}
        out = []
        for key, span in self.spans.items():
            if not key.startswith("claim:"):
                continue
            cid = key[len("claim:"):]
            out.append(TruthClaim(span=span, holds=broken.get(cid, True),
                                  kind="implicit" if implicit and cid in implicit else "explicit",
                                  objects=self.claim_objects.get(cid, [])))
        return sorted(out, key=lambda c: c.span.start)


def choose(rng: np.random.Generator, options) -> str:
    return options[int(rng.integers(len(options)))]


def object_phrase(rng: np.random.Generator, color: str | None, shape: str, *, definite: bool = False,
                  size_word: str | None = None) -> str:
    """"a red ball", "the small blue cube", "one grey sphere": article, optional size, colour, noun synonym."""
    noun = choose(rng, NOUNS.get(shape, ("object",)))
    words = [w for w in (size_word if rng.random() < 0.5 else None, color) if w]
    body = " ".join([*words, noun])
    if definite:
        return f"the {body}"
    article = choose(rng, ("a", "a", "one")) if rng.random() < 0.8 else "a"
    if article == "a" and body[0] in "aeiou":
        article = "an"
    return f"{article} {body}"


def direction_phrase(rng: np.random.Generator, sign: int) -> str:
    return choose(rng, DIRECTIONS[1 if sign > 0 else -1])


def plural(shape: str) -> str:
    return {"sphere": "balls", "box": "cubes", "cylinder": "cylinders"}.get(shape, "objects")


def number_word(n: int) -> str:
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


@dataclass
class ClauseSpec:
    """One clause to say: its claim id, event kind, subject object (and second object), extra fields."""

    claim_id: str
    event: str
    subject: str | None = None
    other: str | None = None
    direction: int = 0
    text: str = ""
    number: int = 0
    shape: str = ""
    ordered: bool = False      # keep this clause after the ones before it (a sequence the prompt narrates)
    objects: tuple[str, ...] = ()  # the objects a clause without a subject is about (a count)


def assemble(rng: np.random.Generator, clauses: list[ClauseSpec], objects: dict[str, tuple[str | None, str]],
             size_words: dict[str, str] | None = None, builder: PromptBuilder | None = None) -> PromptBuilder:
    """Say ``clauses`` (shuffled unless ``ordered``) about ``objects`` (name -> (colour, shape)), after what
    ``builder`` already holds (a sentence ending in a full stop).

    An object's first mention is indefinite ("a red ball"), later ones definite ("the red ball")."""
    size_words = size_words or {}
    free = [c for c in clauses if not c.ordered]
    order = [free[i] for i in rng.permutation(len(free))] + [c for c in clauses if c.ordered]
    pb = builder or PromptBuilder()
    if builder is not None and not order:
        return pb
    if builder is not None:
        pb.plain(" ")
    seen: set[str] = set()
    setting = choose(rng, SETTINGS) if builder is None else ""
    for i, c in enumerate(order):
        if i:
            connector = choose(rng, CONNECTORS)
            sequel = c.ordered and c.subject is not None and c.subject == order[i - 1].subject
            if not (sequel and connector == ". Then "):
                connector = TIMED_CONNECTORS.get(connector, connector)
            pb.plain(connector)
        pieces: dict[str, Piece] = {}
        for field_name, name in (("S", c.subject), ("O", c.other)):
            if name is None:
                continue
            color, shape = objects[name]
            phrase = object_phrase(rng, color, shape, definite=name in seen, size_word=size_words.get(name))
            pieces[field_name] = Piece(phrase, f"mention:{name}")
            seen.add(name)
        if c.direction:
            pieces["D"] = Piece(direction_phrase(rng, c.direction))
        if c.text:
            pieces["T"] = Piece(c.text, f"text:{c.claim_id}")
        if c.event == "count":
            pieces["N"] = Piece(number_word(c.number))
            pieces["P"] = Piece(plural(c.shape))
        template = choose(rng, EVENTS[c.event])
        capital = i == 0 or pb.text.endswith(". ")
        about = [n for n in (c.subject, c.other) if n] or list(c.objects)
        pb.clause(c.claim_id, template, about, capitalise=capital, **pieces)
        if i == 0 and setting and rng.random() < 0.5:
            pb.plain(" " + setting)
    pb.plain(".")
    return pb
