"""The offline default planner: deterministic rules over the prompt's words (no model).

What it recognises (every claim keeps the character span it came from):

* subjects: determiner/number + adjectives (colour, size, material) + a noun ("three small red balls");
  pronouns ("it", "they") and definite mentions ("the ball") refer back to a declared subject;
* physical events: fall/drop, throw/toss, bounce (with "twice", "off the wall"), roll, slide (with a direction), collide,
  hit, topple, land, come to rest, pass through, break;
* temporal connectives between events: then / before / after, while / when / as / as soon as;
* depth relations ("the red ball is in front of the blue cube", "rolls toward the camera"), counts
  ("three balls"), text ("a sign reading 'OPEN'"), sounds ("a thud as it lands");
* negation ("does not bounce").

Every rigid grounded subject also gets the implicit obligations of DESIGN §5. Lessons from memory M add
obligations where their trigger matches the prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from critic.plan import PlanError
from critic.planners.base import PlanBuilder, PlanResult, check_implicit
from critic.types import (IMPLICIT_QUANTITIES, QUANTITY_SPECS, BeforeOp, CountOp, DepthOp, DuringOp, EventRef, Expect,
                          GroundOp, HearOp, JudgeOp, MeasureOp, ReadOp, SubjectSpec)

NUMBERS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a pair of": 2, "a couple of": 2}
COLOURS = ("red", "blue", "green", "yellow", "orange", "purple", "pink", "white", "black", "gray", "grey", "brown",
           "golden", "silver", "cyan", "magenta")
SIZES = {"small": "small", "little": "small", "tiny": "small", "large": "large", "big": "large", "huge": "large",
         "giant": "large"}
OTHER_ADJECTIVES = ("wooden", "metal", "metallic", "rubber", "plastic", "heavy", "light", "shiny", "bouncy",
                    "tennis", "soccer", "bowling", "billiard", "ping-pong", "glass", "steel", "stone", "toy",
                    "round", "square", "solid")
#: countable rigid things (plural -> singular); anything else only becomes a subject before an event verb
NOUNS = {"balls": "ball", "ball": "ball", "cubes": "cube", "cube": "cube", "boxes": "box", "box": "box",
         "blocks": "block", "block": "block", "dominoes": "domino", "dominos": "domino", "domino": "domino",
         "marbles": "marble", "marble": "marble", "spheres": "sphere", "sphere": "sphere", "cans": "can",
         "can": "can", "bottles": "bottle", "bottle": "bottle", "cups": "cup", "cup": "cup", "mugs": "mug",
         "mug": "mug", "vases": "vase", "vase": "vase", "eggs": "egg", "egg": "egg", "apples": "apple",
         "apple": "apple", "oranges": "orange", "orange": "orange", "rocks": "rock", "rock": "rock",
         "stones": "stone", "stone": "stone", "pebbles": "pebble", "pebble": "pebble", "bricks": "brick",
         "brick": "brick", "books": "book", "book": "book", "cars": "car", "car": "car", "pucks": "puck",
         "puck": "puck", "coins": "coin", "coin": "coin", "dice": "die", "die": "die", "cylinders": "cylinder",
         "cylinder": "cylinder", "pins": "pin", "pin": "pin", "bowls": "bowl", "bowl": "bowl",
         "glasses": "glass", "plates": "plate", "plate": "plate", "objects": "object", "object": "object",
         "pendulum": "pendulum", "spoon": "spoon", "spoons": "spoon", "keys": "key", "phone": "phone",
         "blobs": "blob", "blob": "blob", "disc": "disc", "discs": "disc", "disk": "disk", "wheel": "wheel",
         "tire": "tire", "tyre": "tyre", "bucket": "bucket", "crate": "crate", "crates": "crate",
         "basketball": "basketball", "basketballs": "basketball", "football": "football", "footballs": "football",
         "baseball": "baseball", "baseballs": "baseball", "volleyball": "volleyball", "snowball": "snowball",
         "beachball": "beachball", "glass": "glass", "jar": "jar", "jars": "jar", "pot": "pot", "toy": "toy",
         "balloon": "balloon", "balloons": "balloon", "water": "water", "liquid": "liquid", "cloth": "cloth",
         "towel": "towel", "rope": "rope", "paper": "paper", "feather": "feather", "smoke": "smoke"}
NON_RIGID = {"water", "liquid", "cloth", "towel", "rope", "paper", "feather", "smoke", "balloon", "blob"}
#: static geometry: never a subject; floor-like and wall-like surfaces
SURFACES = {"floor": "floor", "ground": "floor", "table": "floor", "tabletop": "floor", "desk": "floor",
            "counter": "floor", "pavement": "floor", "court": "floor", "grass": "floor", "road": "floor",
            "wall": "wall", "walls": "wall", "door": "wall", "window": "wall", "fence": "wall"}
SCENERY = {"ramp", "slope", "incline", "shelf", "ledge", "edge", "hill", "stairs", "steps", "air", "room", "scene",
           "camera", "sign", "banner", "board", "poster", "label", "screen", "sky", "sound", "noise", "way", "time",
           "times", "side", "left", "right", "top", "bottom", "corner", "middle", "background", "foreground",
           "hand", "hands", "person", "man", "woman", "boy", "girl", "child", "kid", "player", "someone",
           "somebody", "he", "she", "dog", "cat", "thud", "bang", "clack", "stop", "rest", "halt"}
STOPWORDS = {"it", "they", "them", "then", "and", "the", "a", "an", "of", "to", "on", "in", "off", "onto", "into",
             "with", "from", "after", "before", "while", "when", "as", "soon", "that", "which", "this", "there",
             "is", "are", "was", "were", "be", "its", "their", "other", "another", "each", "both", "all", "not",
             "does", "do", "never", "slowly", "quickly", "finally", "eventually", "gently", "suddenly"}
PRONOUNS = ("it", "they", "them", "itself", "themselves", "both", "each")

DET = r"(?:(?P<det>an?|the|one|single|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+|" \
      r"some|several|a pair of|a couple of)\s+)"
ADJ = r"(?P<adj>(?:(?:" + "|".join(COLOURS + tuple(SIZES) + OTHER_ADJECTIVES) + r")(?:\s+|-))*)"
#: with a determiner, up to two unlisted modifier words may precede the noun ("two billiard balls")
EXTRA = r"(?(det)(?:(?!(?:and|or|then|with|of|on|in|to|is|are|was)\b)[a-z]+(?:\s+|-)){0,2}?|)"
MENTION_RE = re.compile(r"\b" + DET + "?" + ADJ + EXTRA + r"(?P<noun>" + "|".join(sorted(NOUNS, key=len, reverse=True))
                        + r")\b")
GENERIC_RE = re.compile(r"\b" + DET + ADJ + r"(?P<noun>[a-z][a-z\-]{2,})\b")
PRONOUN_RE = re.compile(r"\b(?:" + "|".join(PRONOUNS) + r")\b")

NEG = r"(?:\b(?:not|never|doesn't|don't|didn't|does not|do not|did not|without|no longer|fails? to|won't)\b[^,.;]*?)"
_OBJ = r"(?:\s+(?:the|a|an)\s+(?P<obj>(?:[a-z\-]+\s+){0,3}?[a-z\-]+))?"


@dataclass
class EventPattern:
    name: str
    regex: re.Pattern
    quantity: str | None  # None: judge (no instrument measures it)
    event: str | None
    partner: bool = False  # the words after the verb name the partner (subject or surface)
    direction: str | None = None
    surface: str | None = None


def _p(name, pattern, quantity, event, **kw) -> EventPattern:
    if quantity is not None and event not in QUANTITY_SPECS[quantity].events:
        # temporal relations refer to this event window: the quantity must produce it
        raise ValueError(f"event pattern {name!r}: {quantity} produces no {event!r} window")
    return EventPattern(name, re.compile(pattern), quantity, event, **kw)


#: order matters: multi-word verbs first, and a matched stretch is masked before later patterns run
EVENTS: list[EventPattern] = [
    _p("topple", r"\b(?:topples?|toppled|toppling|tips? over|tipped over|tipping over|falls? over|fell over|"
                 r"knocks? over|knocked over|keels? over)\b", "direction", "motion", direction="down"),
    _p("rest", r"\b(?:comes? to (?:a )?(?:rest|stop|halt|standstill)|came to (?:a )?(?:rest|stop|halt|standstill)|"
               r"coming to (?:a )?(?:rest|stop|halt)|rests?|rested|settles?|settled|stops?|stopped)\b",
       "rest", "rest"),
    _p("pass_through", r"\b(?:pass(?:es|ed|ing)?|goes|go|went|rolls?|rolled|flies|flew|slides?|slid|moves?)\s+"
                       r"(?:right\s+)?through\b" + _OBJ, "contact", "contact", partner=True),
    _p("collide", r"\b(?:collide[sd]?|colliding)\b(?:\s+(?:with|into))?" + _OBJ, "collision_response", "contact",
       partner=True),
    _p("hit", r"\b(?:hits?|hitting|strikes?|struck|striking|knocks? into|crash(?:es|ed)? into|smash(?:es|ed)? into|"
              r"bumps? into|bumped into|runs? into|ran into|slams? into|slammed into)\b" + _OBJ,
       "collision_response", "contact", partner=True),
    _p("land", r"\b(?:lands?|landed|landing)\b(?:\s+(?:on|onto|in))?" + _OBJ, "contact", "contact", partner=True,
       surface="floor"),
    _p("bounce", r"\b(?:bounces?|bounced|bouncing|rebounds?|rebounded)\b(?:\s+off)?" + _OBJ, "bounce", "contact",
       partner=True),
    _p("break", r"\b(?:breaks?|broke|broken|shatters?|shattered|smash(?:es|ed)?|cracks?|cracked)\b", None, None),
    _p("fall", r"\b(?:falls?|fell|falling|drops?|dropped|dropping|tumbles?|tumbled|plummets?|plunges?)\b",
       "free_fall", "airborne"),
    # thrown/tossed things fly on a ballistic arc: airborne, accelerating downward
    _p("throw", r"\b(?:throws?|threw|thrown|throwing|toss(?:es|ed|ing)?|lobs?|lobbed|launch(?:es|ed)?|flies|flew|"
                r"flying)\b", "free_fall", "airborne"),
    _p("roll", r"\b(?:rolls?|rolled|rolling)\b", "direction", "motion", direction="horizontal"),
    _p("slide", r"\b(?:slides?|slid|sliding|glides?|glided|skids?|skidded)\b", "direction", "motion",
       direction="horizontal"),
]
DIRECTIONS = [(re.compile(r"\b(?:to the left|leftwards?|left)\b"), "left"),
              (re.compile(r"\b(?:to the right|rightwards?|right)\b"), "right"),
              (re.compile(r"\btowards?\s+(?:the\s+)?(?:camera|viewer)\b"), "toward"),
              (re.compile(r"\baway from\s+(?:the\s+)?(?:camera|viewer)\b"), "away"),
              (re.compile(r"\b(?:down(?:ward|wards)?)\b"), "down"),
              (re.compile(r"\b(?:up(?:ward|wards)?)\b"), "up")]
#: depth relations (image-space depth: no calibration); "approaching"/"receding" are relative to the camera
DEPTH_RE = re.compile(r"\b(?P<nearer>in front of|nearer (?:to the camera )?than|closer (?:to the camera )?than)\b|"
                      r"\b(?P<farther>behind|farther (?:from the camera )?than|further (?:from the camera )?than)\b|"
                      r"\b(?P<approaching>(?:approach(?:es|ed|ing)?|comes? (?:closer )?towards?|moves? towards?)"
                      r"\s+(?:the\s+)?(?:camera|viewer))\b|"
                      r"\b(?P<receding>(?:recedes?|receded|moves? away from|goes away from)\s+(?:the\s+)?(?:camera|viewer))\b")
TIMES_RE = re.compile(r"\b(?:(?P<word>once|twice|thrice)|(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)"
                      r"\s+times)\b")
TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
TEXT_RE = re.compile(r"(?:\b(?:reading|reads|that says|saying|says|with the (?:words?|text)|labell?ed|"
                     r"written|that reads|which reads)\s*:?\s*)(?P<q>['\"“‘])(?P<text>[^'\"”’]{1,200})['\"”’]")
TEXT_HOLDER_RE = re.compile(r"\b(?:an?|the)\s+(?:[a-z]+\s+){0,2}?(?:sign|banner|board|poster|label|screen|note|"
                            r"placard|billboard|text|card)\b")
SOUND_RE = re.compile(r"\b(?:(?:an?|the|with an?|loud|soft|dull|sharp|audible)\s+)*(?:[a-z]+\s+)?"
                      r"(?P<sound>thuds?|thumps?|bangs?|clacks?|clanks?|clinks?|clicks?|crash(?:es)?|knocks?|smacks?|"
                      r"thwacks?|clatters?|pops?|sound|noise|impact sound)\b")
CONNECTIVES = [("as soon as", "during"), ("and then", "before"), ("then", "before"), ("before", "before"),
               ("after", "after"), ("afterwards", "before"), ("while", "during"), ("when", "during"),
               ("as", "during"), ("until", "before"), ("and", None), ("but", None)]
CONNECTIVE_RE = re.compile(r"(?P<stop>[.;!?]+|[,:])|(?<![\w'])(?P<c>" + "|".join(re.escape(c) for c, _ in CONNECTIVES)
                           + r")(?![\w'])")
#: connective words that are not connectives here ("one after another", "as well as")
NOT_CONNECTIVE_RE = re.compile(r"(?:one|each|the other)\s+after\s+(?:another|the other|one)|\bas\s+(?:soon|well|if|though)\b"
                               r"|\bsoon\s+as\b")
CONNECTIVE_KIND = dict(CONNECTIVES)


@dataclass
class Mention:
    subject: str
    span: tuple[int, int]


@dataclass
class Event:
    kind: str
    span: tuple[int, int]
    subjects: list[str]
    claim: str
    op: str | None = None
    event: str | None = None


@dataclass
class Clause:
    start: int
    end: int
    connective: str | None  # the connective word that opened this clause
    sentence: int
    events: list[Event] = field(default_factory=list)


@dataclass
class ParseState:
    """What one call of :meth:`RulesPlanner.plan` learns about its prompt. It lives for that call only: the
    planner keeps nothing between prompts, so each prompt of a batch is planned as a fresh planner would."""

    low: str  # the prompt lower-cased, cut to ``max_prompt_chars``
    builder: PlanBuilder
    #: (start, end) of each sound phrase ("with a thud"): the span of an event before it stops there
    sound_spans: list[tuple[int, int]]
    #: every reference to a declared subject (noun phrases and pronouns), in prompt order once all are found
    mentions: list[Mention] = field(default_factory=list)
    #: the first subject of the latest event ("X collides with Y and comes to rest": X comes to rest)
    last_actor: str | None = None

    def subjects_in(self, start: int, end: int) -> list[str]:
        return list(dict.fromkeys(x.subject for x in self.mentions if start <= x.span[0] < end))

    def subject_before(self, start: int, pos: int) -> list[str]:
        """The subject(s) acting at ``pos``: mentions in the clause before it, else the latest before it."""
        inside = [x for x in self.mentions if start <= x.span[0] < pos]
        if inside:
            # "the red ball and the blue ball collide": every mention in the clause before the verb
            return list(dict.fromkeys(x.subject for x in inside))
        if self.last_actor:
            return [self.last_actor]  # "X collides with Y and comes to rest": X comes to rest
        before = [x for x in self.mentions if x.span[1] <= pos]
        return [before[-1].subject] if before else []


class RulesPlanner:
    """Deterministic prompt -> plan rules. Options: ``implicit`` (which implicit obligations to add),
    ``dense`` (one judge sub-check per explicit claim for a dense first pass), ``max_prompt_chars``.

    The planner holds its options only: :meth:`plan` is a pure function of the prompt and the lessons, its
    per-prompt state lives in a :class:`ParseState`."""

    name = "rules"

    def __init__(self, implicit: list[str] | tuple[str, ...] = IMPLICIT_QUANTITIES, dense: bool = False,
                 max_prompt_chars: int = 2000):
        self.implicit = check_implicit(implicit)
        self.dense = dense
        self.max_prompt_chars = max_prompt_chars

    # ------------------------------------------------------------------------------------------------
    def plan(self, prompt: str, lessons: list[Any] | None = None) -> PlanResult:
        low = prompt.lower()[: self.max_prompt_chars]
        st = ParseState(low=low, builder=PlanBuilder(prompt),
                        sound_spans=[(m.start(), m.end()) for m in SOUND_RE.finditer(low)
                                     if not re.match(r"\s+(?:into|over)\b", low[m.end():])])
        b = st.builder
        clauses = self._clauses(low)
        self._find_subjects(st)
        masked = self._events(st, clauses)
        self._texts(st)
        self._sounds(st, masked, clauses)
        self._depths(st, clauses)
        self._counts(b)
        self._temporal(clauses, b)
        if lessons:
            for lesson in lessons:
                lesson.apply(b, low, st.subjects_in)
        for name in list(b.subjects):
            if any(isinstance(op, GroundOp) and op.subject == name for op in b.ops):
                b.add_implicit(name, self.implicit)
        if self.dense:
            b.add_dense()
        if not b.claims:
            b.notes.append("no physical claim found in the prompt")
        try:
            return PlanResult(plan=b.build(self.name))
        except PlanError as exc:  # a rule produced an invalid plan: reject it rather than run it
            return PlanResult(plan=None, rejected=tuple(exc.reasons))

    # ---- clauses -----------------------------------------------------------------------------------
    @staticmethod
    def _clauses(low: str) -> list[Clause]:
        clauses: list[Clause] = []
        start, conn, sentence = 0, None, 0
        skip = [(m.start(), m.end()) for m in NOT_CONNECTIVE_RE.finditer(low)]
        for m in CONNECTIVE_RE.finditer(low):
            if m.group("c") in ("as", "after") and any(a <= m.start() < b for a, b in skip):
                continue
            if m.group("c") and conn is not None and start == m.start():
                conn = f"{conn} {m.group('c')}" if f"{conn} {m.group('c')}" in CONNECTIVE_KIND else m.group("c")
                start = m.end()
                continue
            if low[start:m.start()].strip():
                clauses.append(Clause(start, m.start(), conn, sentence))
                conn = None
            if m.group("stop") is not None:
                if re.match(r"[.;!?]", m.group("stop")):
                    sentence += 1
                    conn = None
            else:
                conn = m.group("c")
            start = m.end()
        if start < len(low):
            clauses.append(Clause(start, len(low), conn, sentence))
        return [c for c in clauses if low[c.start:c.end].strip()]

    # ---- subjects ----------------------------------------------------------------------------------
    def _find_subjects(self, st: ParseState) -> None:
        low = st.low
        verbs = [p.regex for p in EVENTS]
        found: list[tuple[int, int, re.Match]] = []
        for m in MENTION_RE.finditer(low):
            found.append((m.start(), m.end(), m))
        # a determiner + unknown noun right before an event verb is a subject too ("a zorblax falls")
        for m in GENERIC_RE.finditer(low):
            noun = m.group("noun")
            if noun in NOUNS or noun in SURFACES or noun in SCENERY or noun in STOPWORDS or noun in NUMBERS:
                continue
            if any(s <= m.start("noun") < e for s, e, _ in found):
                continue
            rest = re.sub(r"^\s*(?:is|was|are|were|gets|got|being)\s+", "", low[m.end():m.end() + 40])
            if any(v.match(rest.lstrip()) for v in verbs) and not self._after_preposition(low, m.start()):
                found.append((m.start(), m.end(), m))
        for s, e, m in sorted(found, key=lambda t: t[0]):
            self._bind(st, m)
        for m in PRONOUN_RE.finditer(low):
            prev = [x for x in st.mentions if x.span[1] <= m.start()]
            if prev:
                word = m.group(0)
                last = prev[-1].subject
                subjects = [last]
                if word in ("they", "them", "themselves", "both", "each") and \
                        st.builder.subjects[last].count in (None, 1):
                    # "a red ball and a blue ball ... they" -> both
                    subjects = list(dict.fromkeys(x.subject for x in prev[-2:]))
                for s in subjects:
                    st.mentions.append(Mention(s, (m.start(), m.end())))
        st.mentions.sort(key=lambda x: x.span)

    @staticmethod
    def _after_preposition(low: str, pos: int) -> bool:
        return bool(re.search(r"\b(?:on|onto|off|into|in|from|through|over|under|against|with|at|near|beside|down|"
                              r"across|along|toward|towards|past|behind|by)\s+$", low[max(0, pos - 12):pos]))

    @staticmethod
    def _bind(st: ParseState, m: re.Match) -> None:
        b = st.builder
        det = (m.group("det") or "").strip()
        adjs = (m.group("adj") or "").replace("-", " ").split()
        word = m.group("noun")
        noun = NOUNS.get(word, word)
        colour = next((a for a in adjs if a in COLOURS), None)
        size = next((SIZES[a] for a in adjs if a in SIZES), None)
        plural = word != noun or word.endswith("s") and word not in NOUNS.values()
        count = NUMBERS.get(det) or (int(det) if det.isdigit() else None)
        existing = None
        if det in ("the", ""):  # "the ball" (or a bare "ball") refers back to a subject already declared
            for mention in reversed(st.mentions):
                spec = b.subjects[mention.subject]
                if spec.noun == noun and (colour is None or spec.color == colour) and (size is None or spec.size == size):
                    existing = mention.subject
                    break
        span = (m.start(), m.end())
        if existing is None:
            name = "_".join(x for x in (colour, noun) if x).replace("-", "_")
            spec = SubjectSpec(name=name, noun=noun, color=colour, size=size,
                               count=count if count and count > 1 else (None if not plural else count),
                               rigid=noun not in NON_RIGID, span=span)
            existing = b.add_subject(spec)
        st.mentions.append(Mention(existing, span))

    # ---- events ------------------------------------------------------------------------------------
    def _events(self, st: ParseState, clauses: list[Clause]) -> str:
        low, b = st.low, st.builder
        masked = low
        for clause in clauses:
            text = masked[clause.start:clause.end]
            hits: list[tuple[int, int, EventPattern, re.Match]] = []
            for pat in EVENTS:
                for m in pat.regex.finditer(text):
                    s, e = clause.start + m.start(), clause.start + m.end()
                    if any(hs < e and s < he for hs, he, _, _ in hits):
                        continue
                    if pat.name == "rest" and re.match(r"\s+(?:on|against|in)\b", low[e:]) and "rest" not in m.group(0):
                        continue
                    hits.append((s, e, pat, m))
            hits.sort(key=lambda h: h[0])
            for k, (s, e, pat, m) in enumerate(hits):
                actors = st.subject_before(clause.start, s)
                after = [x.subject for x in st.mentions if e <= x.span[0] < clause.end]
                if (pat.name == "throw" or re.match(r"drop", low[s:e])) and after and \
                        not re.search(r"\b(?:is|was|gets|got|being)\s+$", low[max(0, s - 8):s]):
                    actors = after[:1]  # "someone drops an apple": the apple falls
                elif not actors and after:
                    actors = after[:1]
                if actors:
                    st.last_actor = actors[0]
                if not actors:
                    b.notes.append(f"no subject for '{low[s:e]}' at {s}")
                    continue
                span_start = clause.start if k == 0 else s
                span_end = hits[k + 1][0] if k + 1 < len(hits) else clause.end
                # a sound or quoted text later in the clause is its own claim: stop the span before it
                span_end = min([span_end] + [a for a, _ in st.sound_spans if e <= a < span_end])
                clause.events.append(self._event(st, pat, m, s, e, span_start, span_end, actors))
                masked = masked[:s] + " " * (e - s) + masked[e:]
        return masked

    @staticmethod
    def _event(st: ParseState, pat: EventPattern, m: re.Match, s: int, e: int, span_start: int, span_end: int,
               actors: list[str]) -> Event:
        low, b = st.low, st.builder
        phrase = low[span_start:span_end]
        negated = bool(re.search(NEG + r"$", low[span_start:s]))
        subject = actors[0]
        other, surface = None, pat.surface
        if len(actors) > 1 and pat.partner:
            other = actors[1]
        obj = m.groupdict().get("obj") if pat.partner else None
        if obj:
            last = obj.split()[-1]
            if last in SURFACES:
                surface = SURFACES[last]
            else:
                partner = [x.subject for x in st.mentions if e - len(obj) - 6 <= x.span[0] < e + 2
                           and x.subject != subject]
                if partner:
                    other = partner[0]
        if pat.name == "break":
            b.update_subject(subject, rigid=False)
            cid = b.claim((span_start, span_end), subjects=[subject])
            check = b.op(JudgeOp, claim=cid, question=f"Does this happen in the video? {b.claims[-1].text}")
            b.oblige(cid, check, "breaks (no instrument measures it)")
            return Event(pat.name, (span_start, span_end), [subject], cid)
        quantity = pat.quantity
        expect: dict[str, Any] = {"holds": not negated}
        if QUANTITY_SPECS[quantity].directional:
            direction = pat.direction
            for rx, d in DIRECTIONS:
                if rx.search(phrase[s - span_start:]) and not (pat.name == "topple"):
                    direction = d
                    break
            expect["direction"] = direction
        if pat.name == "bounce":
            t = TIMES_RE.search(phrase[s - span_start:])
            if t:
                word = t.group("word") or t.group("n")
                expect["n"] = TIMES_WORDS.get(word) or NUMBERS.get(word) or int(word)
        if pat.name == "pass_through" and surface == "wall":
            quantity, expect = "penetration", {"holds": not negated}
        needs_partner = QUANTITY_SPECS[quantity].needs_partner
        if needs_partner and other is None and surface is None:
            spec = b.subjects[subject]
            if (spec.count or 1) >= 2:
                other = subject  # "two balls collide": its instances with each other
            elif pat.name == "hit":
                surface = "wall" if re.search(r"\bwall", phrase) else None
        if needs_partner and other is None and surface is None:
            # no partner we can measure: ask the judge rather than guess
            cid = b.claim((span_start, span_end), subjects=[subject])
            check = b.op(JudgeOp, claim=cid, question=f"Does this happen in the video? {b.prompt[span_start:span_end]}")
            b.oblige(cid, check, f"{pat.name} with an unrecognised partner")
            return Event(pat.name, (span_start, span_end), [subject], cid)
        if quantity == "bounce" and surface is None and re.search(r"\bwall", phrase):
            surface = "wall"
        op = b.op(MeasureOp, subject=subject, quantity=quantity, expect=Expect(**expect), other=other,
                  surface=surface)
        subjects = [subject] + ([other] if other and other != subject else [])
        cid = b.claim((span_start, span_end), subjects=subjects)
        b.oblige(cid, op, f"{pat.name}: {quantity}")
        return Event(pat.name, (span_start, span_end), subjects, cid, op, pat.event if not negated else None)

    # ---- text and sound ----------------------------------------------------------------------------
    @staticmethod
    def _texts(st: ParseState) -> None:
        low, b = st.low, st.builder
        for m in TEXT_RE.finditer(b.prompt[: len(low)]):
            holder = None
            for h in TEXT_HOLDER_RE.finditer(low[max(0, m.start() - 40):m.start()]):
                holder = h
            start = max(0, m.start() - 40) + holder.start() if holder else m.start()
            text = b.prompt[m.start("text"):m.end("text")]
            op = b.op(ReadOp, text=text)
            cid = b.claim((start, m.end()))
            b.oblige(cid, op, f"text '{text}' legible")
            # text visibility is a state, not an event: it takes part in no temporal relation

    def _sounds(self, st: ParseState, masked: str, clauses: list[Clause]) -> None:
        low, b = st.low, st.builder
        for m in SOUND_RE.finditer(masked):
            if (m.start(), m.end()) not in st.sound_spans:
                continue
            if re.search(r"\bwithout\s+(?:an?\s+)?$", low[max(0, m.start() - 12):m.start()]):
                continue
            s = m.start()
            if low.startswith("with ", s):  # the claim is "a thud", not "with a thud"
                s += len("with ")
            op = b.op(HearOp, event="impact", description=m.group("sound"))
            cid = b.claim((s, m.end()))
            b.oblige(cid, op, "sound heard")
            clause = self._clause_at(clauses, s)
            if clause is not None:
                clause.events.append(Event("hear", (s, m.end()), [], cid, op, "onset"))
                clause.events.sort(key=lambda ev: ev.span[0])

    @staticmethod
    def _clause_at(clauses: list[Clause], pos: int) -> Clause | None:
        for c in clauses:
            if c.start <= pos < c.end:
                return c
        return None

    # ---- depth -------------------------------------------------------------------------------------
    def _depths(self, st: ParseState, clauses: list[Clause]) -> None:
        low, b = st.low, st.builder
        for m in DEPTH_RE.finditer(low):
            relation = next(k for k in ("nearer", "farther", "approaching", "receding") if m.group(k))
            clause = self._clause_at(clauses, m.start())
            start, end = (clause.start, clause.end) if clause else (0, len(low))
            before = [x for x in st.mentions if start <= x.span[0] < m.start()]
            after = [x for x in st.mentions if m.end() <= x.span[0] < end]
            if not before:
                continue
            a = before[-1]
            other = None
            if relation in ("nearer", "farther"):
                if not after or after[0].subject == a.subject:
                    continue  # "in front of a wall": static scenery, nothing to compare with
                other = after[0]
            op = b.op(DepthOp, a=a.subject, relation=relation, b=other.subject if other else None)
            span = (a.span[0], other.span[1] if other else m.end())
            cid = b.claim(span, subjects=[a.subject] + ([other.subject] if other else []))
            b.oblige(cid, op, f"depth: {relation}")

    # ---- counts ------------------------------------------------------------------------------------
    def _counts(self, b: PlanBuilder) -> None:
        for name, spec in list(b.subjects.items()):
            if spec.count and spec.count >= 2 and spec.span is not None:
                op = b.op(CountOp, subject=name, n=spec.count)
                cid = b.claim(spec.span, subjects=[name])
                b.oblige(cid, op, f"count = {spec.count}")

    # ---- temporal ----------------------------------------------------------------------------------
    def _temporal(self, clauses: list[Clause], b: PlanBuilder) -> None:
        seq = [(c, ev) for c in clauses for ev in c.events]
        for k in range(1, len(seq)):
            (c_prev, prev), (c_next, nxt) = seq[k - 1], seq[k]
            if c_prev is c_next:
                continue  # two events of one clause ("bounces twice and rolls"): no order claimed
            kind = CONNECTIVE_KIND.get(c_next.connective or "")
            first_is_after = c_prev.connective == "after" and (c_next.sentence == c_prev.sentence)
            if first_is_after and kind is None:
                a, z, rel = prev, nxt, "before"        # "After it lands, it rolls": land before roll
            elif c_prev.connective in ("when", "as soon as", "while") and kind is None \
                    and c_prev.sentence == c_next.sentence and self._opens_sentence(clauses, c_prev):
                a, z, rel = nxt, prev, "during"        # "When it lands, a thud": thud during land
            elif kind == "before":
                a, z, rel = prev, nxt, "before"
            elif kind == "after":
                a, z, rel = nxt, prev, "before"        # "X after Y": Y before X
            elif kind == "during":
                a, z, rel = prev, nxt, "during"
            else:
                continue
            if not (a.op and a.event and z.op and z.event):
                b.notes.append(f"temporal relation '{rel}' between '{a.kind}' and '{z.kind}' not checkable: "
                               "an operand has no event window")
                continue
            if (a.op, a.event) == (z.op, z.event):
                continue  # one event mentioned twice ("bounces ... then bounces"): no order to check
            cls = BeforeOp if rel == "before" else DuringOp
            op = b.op(cls, a=EventRef(op=a.op, event=a.event), b=EventRef(op=z.op, event=z.event))
            span = (min(prev.span[0], nxt.span[0]), max(prev.span[1], nxt.span[1]))
            cid = b.claim(span, subjects=list(dict.fromkeys(prev.subjects + nxt.subjects)))
            b.oblige(cid, op, f"{a.kind} {rel} {z.kind}")

    @staticmethod
    def _opens_sentence(clauses: list[Clause], clause: Clause) -> bool:
        i = clauses.index(clause)
        return i == 0 or clauses[i - 1].sentence != clause.sentence
