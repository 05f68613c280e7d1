"""The offline default planner: deterministic rules over the prompt's words (no model).

What it recognises, by class of words (``critic.planners.lexicon``), every claim keeping the character span it
came from:

* subjects: determiner/number + adjectives (colour, size, material) + a noun ("three small red balls", "a row of
  dominoes", bare plurals "dominoes fall"); animate bodies and vehicles when they act ("a dog runs"); any noun
  right before an event verb ("a zorblax falls"); pronouns ("it", "they", "which") and definite mentions ("the
  ball", "the blue one") refer back to a declared subject;
* physical events a track-based instrument measures: falling and being released or dropped; throwing (with a
  direction: "thrown to the right"); rolling, sliding and locomotion ("swims", "skates", "walks") with a direction
  phrase ("to the left", "from left to right" takes the goal, "from the left" the way away from it, "up the
  screen"); being lowered or raised; bouncing ("twice", "off the wall"); hitting, colliding, touching; landing;
  toppling; coming to rest and staying still; hovering in mid-air; standing or lying on a support; passing
  through;
* physical processes no instrument measures (melting, pouring, spinning, breaking ...): a ``judge`` claim over the
  clause, unknown when no semantic verifier is configured;
* temporal connectives between events: then / before / after / after that, while / when / as / as soon as, and
  the comparatives ahead of / earlier than / sooner than / later than; an elided verb ("the red ball lands before
  the blue one", "... touches down earlier than the pink cylinder") repeats the previous event for the new
  subject. Each event takes part in an order relation through the window that stands for it there
  (``ORDER_WINDOWS``): a fall after another event through its landing, a rest through its onset; a relation
  without such a window is not checked (a note says so);
* depth relations ("in front of", "rolls toward the camera"); counts ("three balls": exactly three, and a number
  before any noun, "three security guards", "nine breeds of dogs"; "dominoes", "several balls": two or more);
  on-screen text (a quoted string anywhere, text after "says"/"reads", after "word"/"logo", set off by double
  spaces, or in capitals); sounds ("a thud as it lands");
* negation ("does not bounce", "never stops", "rolls without bouncing").

Every rigid grounded subject also gets the implicit obligations of docs/architecture.md §5. Lessons from memory M add
obligations where their trigger matches the prompt. Clauses no claim covers are recorded in the plan
(``Plan.unplanned``, by :class:`critic.planners.base.PlanBuilder`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from critic.plan import PlanError
from critic.planners.base import PlanBuilder, PlanResult, check_implicit
from critic.planners.lexicon import (ANIMATE, COLOURS, CONNECTIVE_KIND, DEFORMING_RE, JUDGED_PROCESS_RE, NON_RIGID,
                                     NOUNS, NUMBERS, OTHER_ADJECTIVES, PARTITIVES, PRONOUNS, SCENERY, SEVERAL,
                                     SHADES, SIZES,
                                     STOPWORDS, SURFACES, VEHICLES, clauses, kind_of, lower, verb_forms, words_re)
from critic.types import (IMPLICIT_QUANTITIES, QUANTITY_SPECS, BeforeOp, CountOp, DepthOp, DuringOp, EventRef, Expect,
                          GroundOp, HearOp, JudgeOp, MeasureOp, ReadOp, SubjectSpec, op_events)

#: measured quantities that say the subject moves: it falls, bounces, goes some way
MOTION_QUANTITIES = frozenset({"free_fall", "bounce", "direction"})
#: every noun that names a body: countable things, animate bodies, vehicles (plural -> singular)
BODIES = {**NOUNS, **ANIMATE, **VEHICLES}
SELF_PROPELLED = set(ANIMATE.values()) | set(VEHICLES.values())

#: words that make an animal noun an object ("a toy dog", "a rubber duck", "a wooden horse")
_OBJECT_MODIFIERS = {"toy", "rubber", "plastic", "wooden", "metal", "metallic", "stuffed", "plush", "ceramic",
                     "porcelain", "glass", "stone", "paper", "cardboard", "clay", "inflatable"}
_DETS = sorted([k for k in NUMBERS if k != "both"] + list(SEVERAL) + ["an?", "the", "another", "this", "these",
                                                                       "those", r"\d+"], key=len, reverse=True)
DET = r"(?:(?P<det>" + "|".join(d if d in ("an?", r"\d+") else re.escape(d) for d in _DETS) + r")\s+)"
ADJ = r"(?P<adj>(?:(?:" + "|".join(map(re.escape, COLOURS + tuple(SIZES) + OTHER_ADJECTIVES + SHADES)) \
      + r"|[a-z]+-(?:colou?red|coloured|legged|shaped|sized))(?:\s+|-))*)"
#: with a determiner, up to two unlisted modifier words may precede the noun ("two billiard balls")
EXTRA = r"(?(det)(?:(?!(?:" + "|".join(sorted(STOPWORDS | set(SCENERY))) + r")\b)[a-z]+(?:\s+|-)){0,2}?|)"
MENTION_RE = re.compile(r"\b" + DET + "?" + ADJ + EXTRA + r"(?P<noun>" + "|".join(
    map(re.escape, sorted(BODIES, key=len, reverse=True))) + r")\b")
GENERIC_RE = re.compile(r"\b" + DET + "?" + ADJ + r"(?P<noun>[a-z][a-z\-]{2,})\b")
#: "the blue one", "a red one": the noun of the latest mention, with these adjectives
ONE_RE = re.compile(r"\b(?P<det>the|a|an)\s+(?P<adj>(?:(?:" + "|".join(map(re.escape, COLOURS + tuple(SIZES) + SHADES))
                    + r")\s+)+)one\b")
#: a number word or numeral standing before a noun phrase ("three security guards", "both knees", "9 labels")
NUMBERED_RE = re.compile(r"(?<![\w:.,'\-])(?P<num>" + "|".join(sorted(map(re.escape, NUMBERS), key=len, reverse=True))
                         + r"|\d{1,2})(?=\s|$|[,.;:])")
WORD_RE = re.compile(r"[a-z][a-z'\-]*")
#: nouns of measure, not things: "90 degrees", "two seconds", "three times"
UNITS = set("degree second minute hour day week month year time meter metre kilometer kilometre mile "
            "inch centimeter centimetre millimeter millimetre kilogram gram pound ounce percent dollar cent euro point "
            "step lap round inning set way side direction moment kind type sort color colour size shape part".split())
#: plurals not made with -s
_IRREGULAR_PLURALS = {"men": "man", "women": "woman", "people": "person", "children": "child", "feet": "foot",
                      "teeth": "tooth", "mice": "mouse", "geese": "goose", "dice": "die", "knives": "knife",
                      "leaves": "leaf", "wolves": "wolf", "shelves": "shelf", "halves": "half", "loaves": "loaf"}


#: nouns of kind: "nine breeds of dogs" counts dogs
KIND_NOUNS = {"breed", "style", "kind", "type", "sort", "variety", "species", "model", "flavor", "flavour", "make"}


#: what a counted plural and a body named on its own may be said to do alike, by the quantities that say it: a
#: fall ("falls", "is dropped", "bounces", "lands on the floor"), or a way to go ("rolls to the left")
MOTION_FAMILIES = (frozenset({"free_fall", "bounce", "contact"}), frozenset({"direction"}))


def _counted_kin(st: "ParseState", name: str) -> tuple[str, ...]:
    """The bodies named on their own that the counted plural ``name`` ("three balls fall") counts: singular
    subjects of its kind ("a grey ball drops", "the yellow ball bounces") that the prompt says move as the plural
    does (:data:`MOTION_FAMILIES`; a landing only on the floor). A number said of a kind counts every body of that
    kind doing what it says, those the prompt also names one by one among them; "a red ball rests on the floor"
    is no falling ball. Only for a plural without a colour (a coloured one takes the bodies of its colour)."""
    b = st.builder
    spec = b.subjects[name]
    if spec.color:
        return ()

    def families(subject: str) -> set[int]:
        return {i for op in b.ops if isinstance(op, MeasureOp) and op.subject == subject and op.other is None
                and op.expect.holds is not False and (op.quantity != "contact" or op.surface == "floor")
                for i, family in enumerate(MOTION_FAMILIES) if op.quantity in family}

    said = families(name)
    kind = kind_of(spec.noun)
    return tuple(other for other, o in b.subjects.items()
                 if other != name and (o.count or 1) == 1 and other not in st.plural and o.noun.lower() in kind
                 and families(other) & said)


def _counted_noun(low: str, start: int) -> re.Match | None:
    """The noun a number at ``start`` counts: the first plural within six words ("three walking manikins", "five
    black and white photos"), the noun after "of" for a kind ("nine breeds of dogs"), or, when the phrase ends
    before any plural, its last word ("nine leftmost moai at", "eight colourful starfish on"). A function word or
    a preposition ends the phrase."""
    prev_end, taken, last = start, 0, None
    for w in WORD_RE.finditer(low, start):
        word, gap = w.group(0), low[prev_end:w.start()]
        after = low[w.end():].split(None, 1)[:1]
        colour_pair = word == "and" and last is not None and last.group(0) in COLOURS and after and after[0] in COLOURS
        if gap.strip() or taken == 6:
            return last if gap.strip() and last is not None and last.group(0) not in NUMBERS \
                and last.group(0) not in COLOURS and not _plural(last.group(0)) and _is_bare_noun(last.group(0)) else None
        if (word in STOPWORDS or word in _PREPOSITIONS) and not colour_pair:
            return last if last is not None and _is_bare_noun(last.group(0)) and last.group(0) not in COLOURS else None
        if _plural(word):
            if _singular(word) in KIND_NOUNS and low.startswith(" of ", w.end()):
                return _counted_noun(low, w.end() + len(" of")) or w
            return w
        prev_end, taken, last = w.end(), taken + 1, w
    return None


def _is_bare_noun(word: str) -> bool:
    """A word that may be an uninflected plural noun (not an adjective, adverb or verb form the lexicon knows)."""
    return not (word in OTHER_ADJECTIVES or word in SIZES or word in SHADES or word.endswith(("ing", "ed", "ly", "ful",
                                                                                             "ous", "ive", "ic", "al")))


def _plural(word: str) -> bool:
    return word in _IRREGULAR_PLURALS or word.endswith("men") and len(word) > 4 or word in BODIES and BODIES[word] != word \
        or (len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s")))


def _singular(word: str) -> str:
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if word.endswith("men") and len(word) > 4:
        return word[:-3] + "man"  # "groomsmen", "firemen"
    if word in BODIES:
        return BODIES[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


PRONOUN_RE = re.compile(r"\b(?:" + "|".join(PRONOUNS) + r")\b")
PLURAL_PRONOUNS = ("they", "them", "themselves", "both", "each")

NEG_RE = re.compile(r"\b(?:not|never|no longer|cannot|fails? to|failed to|neither|nor)\b|n't\b")
_OBJ = r"(?:\s+(?:(?:the|a|an|another|its|their|one|this|that)\s+(?P<obj>(?:[a-z\-]+\s+){0,3}?[a-z\-]+)|" \
       r"(?P<pron>it|them|each other|one another)\b))?"


@dataclass(frozen=True)
class EventPattern:
    """One class of event verbs.

    * ``quantity``/``event``: the measurement that checks it and its default event window (``None``: a ``judge``
      claim, no instrument measures it).
    * ``partner``: the words after the verb name a partner (a subject or a surface).
    * ``direction``: the default direction of a directional quantity (a direction phrase overrides it).
    * ``transitive``: the object after the verb is what moves ("someone drops an apple": the apple falls), unless
      the verb is passive ("the ball is released": the ball falls).
    * ``holds``: what the verb asserts of the quantity ("hovers": support does *not* hold).
    * ``self_propelled``: the pattern a self-propelled body (an animal, a vehicle) takes instead ("a bird flies"
      is locomotion, not a ballistic fall).
    * ``inanimate_only``: only for bodies that do not move by themselves ("stands on the mat").
    * ``with_direction``: a direction phrase after the verb adds a ``direction`` sub-check ("thrown to the right").
    * ``with_goal``: a goal phrase after the verb adds a sub-check of reaching it (``GOAL_RE``): a collision with
      the body or wall it moves into or against ("slides to the left into the wall"), contact with the wall it
      moves to ("moves rightward across the floor to the wall").
    """

    name: str
    regex: re.Pattern
    quantity: str | None
    event: str | None
    partner: bool = False
    direction: str | None = None
    surface: str | None = None
    transitive: bool = False
    holds: bool = True
    self_propelled: str | None = None
    inanimate_only: bool = False
    with_direction: bool = False
    with_goal: bool = False


def _p(name, pattern, quantity, event, **kw) -> EventPattern:
    if quantity is not None and event is not None and event not in QUANTITY_SPECS[quantity].events:
        # temporal relations refer to this event window: the quantity must produce it
        raise ValueError(f"event pattern {name!r}: {quantity} produces no {event!r} window")
    return EventPattern(name, re.compile(pattern), quantity, event, **kw)


def _v(spec: str) -> str:
    return words_re(verb_forms(spec))


#: a clause whose subject is a quantifier over bodies ("everything else", "nothing", "the rest"), not one named body
QUANTIFIER_SUBJECT_RE = re.compile(r"\b(?:everything|everyone|everybody|nothing|nobody|anything|all else|the rest|"
                                   r"all (?:the )?other|every other|each other one|all of (?:the )?others)\b")
_PASSIVE_RE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got|getting)\s+(?:\w+ly\s+)?(?:then\s+)?$")

#: order matters: multi-word verbs first, and a matched stretch is masked before later patterns run
EVENTS: list[EventPattern] = [
    _p("topple", r"\b(?:topples?|toppled|toppling|tips? over|tipped over|tipping over|falls? over|fell over|"
                 r"keels? over|(?:is|are|was|were|gets?|got|being)\s+knocked\s+(?:over|down))\b",
       "direction", "motion", direction="down"),
    # a state over the clip, not the end of a motion ("comes to rest"): "sits still", "lies motionless", "stays
    # where it is", "stands on the floor without moving" ("is still rolling" is not one)
    _p("still", r"\b(?:(?:stays?|stayed|staying|remains?|remained|remaining|keeps?|kept|sits?|sitting|sat|stands?|"
                r"standing|stood|lies|lying|lay|rests?|resting|is|are|was|were)\s+(?:perfectly\s+|completely\s+|"
                r"totally\s+|entirely\s+|quite\s+)?(?:still(?!\s+\w+ing\b)|motionless|stationary|unmoving|immobile|"
                r"in place|put|where (?:it|they) (?:is|are|was|were|stands?|lies|lie|sits?))|"
                r"(?:stays?|stayed|remains?|remained|sits?|sat|stands?|stood|lies|lay|rests?)\s+(?:[\w-]+\s+){0,4}?"
                r"without (?:moving|any motion|motion)|(?:does not|doesn't|do not|don't|never)\s+(?:move|moves|budge))\b",
       "still", "still"),
    # a thing resting on a surface is a state too, not an arrival ("comes to rest on the floor" is one); a body that
    # moves by itself lying on a blanket is a posture, not stillness
    _p("rest_on", r"\b(?<!to\s)(?:rests?|rested|resting|lies|lay|lying)\s+(?:\w+ly\s+)?(?:on|upon)\s+"
                  r"(?=(?:the|a|an|its|their)\s)", "still", "still", inanimate_only=True),
    _p("rest", r"\b(?:comes? to (?:a )?(?:rest|stop|halt|standstill)|came to (?:a )?(?:rest|stop|halt|standstill)|"
               r"coming to (?:a )?(?:rest|stop|halt)|rests?|rested|settles?|settled|stops?|stopped|"
               r"(?:stays?|stayed|remains?|remained|remaining|staying)\s+(?:still|motionless|stationary|in place|"
               r"at rest|put|standing|upright|in position)|(?:sits?|sitting|stands?|standing|lies|lying)\s+still)\b",
       "rest", "rest"),
    _p("hover", r"\b(?:(?:floats?|floated|floating|hovers?|hovered|hovering|levitates?|levitated|levitating|"
                r"suspended|hangs?|hung|hanging|stays?|remains?)\s+(?:\w+\s+)?(?:in|into|through)\s+(?:the\s+)?"
                r"(?:mid-?\s?)?air|hovers?|hovered|hovering|levitates?|levitated|levitating)\b",
       "support", None, holds=False),
    _p("pass_through", r"\b(?:(?:pass(?:es|ed|ing)?|goes|go|went|rolls?|rolled|flies|flew|slides?|slid|moves?)\s+"
                       r"(?:right\s+|straight\s+)?through(?!\s+(?:the\s+)?(?:air|sky|space|mid-?air)\b)|"
                       r"penetrat(?:es|ed|ing)|pierc(?:es|ed|ing))\b" + _OBJ,
       "contact", "contact", partner=True),
    _p("collide", r"\b(?:collide[sd]?|colliding)\b(?:\s+(?:with|into))?" + _OBJ, "collision_response", "contact",
       partner=True),
    _p("hit", r"\b(?:hits?|hitting|strikes?|struck|striking|knocks?|knocked|knocking|crash(?:es|ed)?(?: into)?|"
              r"smash(?:es|ed)? into|bumps? into|bumped into|runs? into|ran into|slams? into|slammed into|"
              # rolling into a body or a wall is hitting it; rolling into view or into a place is a roll
              r"(?:rolls?|rolled|rolling) into(?!\s+(?:view|sight|place|position|frame|(?:the|a)\s+(?:frame|"
              r"picture|scene|distance|corner|room|middle|cent(?:er|re)|shadows?|light|hole|gap|cup|bowl|"
              r"container|pocket|basket)\b))|"
              r"rams? into|rammed into)\b(?:\s+(?:over|down|into|against|onto))?" + _OBJ,
       "collision_response", "contact", partner=True),
    _p("touch", r"\b(?:touch(?:es|ed|ing)?(?!\s+down\b)|makes? contact with|made contact with|making contact with|"
                r"comes? into contact with|came into contact with)\b" + _OBJ, "contact", "contact", partner=True),
    _p("land", r"\b(?:lands?|landed|landing|touch(?:es|ed|ing)? down|reach(?:es|ed)?|hits? the (?:ground|floor))\b"
               r"(?:\s+(?:on|onto|in|at))?"
               + _OBJ, "contact", "contact", partner=True, surface="floor"),
    _p("bounce", r"\b(?:bounces?|bounced|bouncing|rebounds?|rebounded)\b(?:\s+(?:off|on|along|across|down))?" + _OBJ,
       "bounce", "contact", partner=True),
    _p("release", r"\b(?:releases?|released|releasing|lets? go of|let go of|drops?|dropped|dropping)\b",
       "free_fall", "airborne", transitive=True),
    _p("fall", r"\b(?:falls?|fell|falling|fallen|tumbles?|tumbled|tumbling|plummets?|plummeted|plunges?|plunged|"
               r"descends? freely)\b", "free_fall", "airborne"),
    # thrown things fly on a ballistic arc: airborne, accelerating downward; a bird or a plane flies by itself
    _p("throw", _v("throw:threw,thrown toss lob:lobbed,lobbing launch hurl fling:flung"),
       "free_fall", "airborne", transitive=True, with_direction=True),
    _p("fly", _v("fly:flies,flew,flown,flying soar"), "free_fall", "airborne", self_propelled="locomotion",
       with_direction=True),
    _p("lower", _v("lower descend"), "direction", "motion", direction="down", transitive=True),
    _p("sink", _v("sink:sank,sunk"), "direction", "motion", direction="down"),
    _p("raise", _v("raise lift rise:rose,risen ascend"), "direction", "motion", direction="up", transitive=True),
    _p("push", _v("push pull shove nudge flick kick drag:dragged,dragging"), "direction", "motion",
       direction="horizontal", transitive=True),
    _p("roll", _v("roll"), "direction", "motion", direction="horizontal", transitive=True, with_goal=True),
    _p("slide", _v("slide:slid glide skid:skidded,skidding"), "direction", "motion", direction="horizontal",
       with_goal=True),
    _p("locomotion", _v("swim:swam,swimming skate walk run:ran,running drive:drove,driven ride:rode,ridden crawl "
                        "sail paddle march jog:jogged,jogging trot gallop travel:travelled,travelling move drift "
                        "race dash sprint wander jump leap:leapt hop:hopped,hopping climb speed:sped chase"),
       "direction", "motion", direction="horizontal", with_goal=True),
    _p("static", r"\b(?:stands?|standing|stood|sits?|sitting|sat|lies|lying|leans?|leaning|leaned|balances|"
                 r"balanced|balancing|(?:is|are)\s+stacked|stacked|propped(?:\s+up)?)\b", "support", None,
       inanimate_only=True),
]
PATTERNS = {p.name: p for p in EVENTS}
#: the patterns of stillness over the clip
STILL_KINDS = ("still", "rest_on")

#: what a body moves into without colliding with it
CONTAINER_WORDS = frozenset({"hole", "gap", "cup", "bowl", "container", "pocket", "basket", "bin", "bucket", "net",
                             "goal", "water", "pool", "sand", "snow", "mud"})
#: the goal of a motion, after its verb and any direction or path words ("slides to the left into the wall", "moves
#: rightward across the floor to the wall", "rolls slowly against the red cube"): ``prep`` into or against (a
#: collision with what it reaches) or to (reaching a wall), ``obj`` its words (a wall, or a body the prompt names)
GOAL_RE = re.compile(r"^(?:\s+(?:[a-z]+ly|(?:to|towards?|across|along|over|on|from)\s+(?:the\s+)?[a-z]+(?:\s+side)?|"
                     r"(?:left|right)(?:wards?)?))*?\s+(?P<prep>into|against|(?:all the way |right )?(?:up )?to|"
                     r"as far as)\s+(?:the|a|an|another|one)\s+(?!(?:left|right|top|bottom|camera|viewer)\b)"
                     r"(?P<obj>[a-z\-]+(?:\s+[a-z\-]+){0,3})")

#: which event window of a quantity stands for the event in an order relation, in order of preference (the first
#: one the registry's quantity produces is taken): ``first`` when the event is the earlier operand of ``before``,
#: ``then`` when it is the later one. A quantity without an entry uses its pattern's window in both roles; an empty
#: preference (or none the registry has) leaves the relation unchecked. Why: a state that lasts (the whole airborne
#: run, the whole motion, rest up to the end) does not mark when it follows something: a fall after a wall hit is
#: the landing after it, a rest begins at its onset, and motion in a direction has no onset window.
ORDER_WINDOWS: dict[str, dict[str, tuple[str, ...]]] = {
    "free_fall": {"first": ("airborne",), "then": ("fall_after_contact", "landing")},
    "rest": {"first": ("rest_onset",), "then": ("rest_onset", "rest")},
    "still": {"first": (), "then": ()},
    "direction": {"first": ("motion",), "then": ()},
}
#: a lasting window that may be the earlier operand only of the events that end it (motion ends when rest begins)
ENDED_BY = {"motion": ("rest", "rest_onset")}

DIRECTION_WORDS = {"left": "left", "right": "right", "top": "up", "up": "up", "upward": "up", "bottom": "down",
                   "down": "down", "downward": "down"}
OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up"}
_SIDE = r"(?:the\s+)?(?P<{g}>left|right|top|bottom)(?:\s+(?:side|edge|end))?(?:\s+of\s+(?:the\s+)?" \
        r"(?:screen|frame|image|view|scene|picture|table))?"
#: direction phrases after a motion verb, in order of precedence; each gives the direction of the motion
DIRECTION_PHRASES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\bfrom\s+" + _SIDE.format(g="a") + r"\s+(?:to|towards?|toward)\s+" + _SIDE.format(g="b")), "b"),
    (re.compile(r"\b(?:towards?|toward)\s+(?:the\s+)?(?:camera|viewer)\b"), "toward"),
    (re.compile(r"\baway\s+from\s+(?:the\s+)?(?:camera|viewer)\b"), "away"),
    (re.compile(r"\b(?:to|towards?|toward)\s+the\s+(?P<b>left|right)\b(?!\s+(?:of|side of|hand)\b)"), "b"),
    (re.compile(r"\b(?P<b>left|right|up|down)wards?\b"), "b"),
    (re.compile(r"\b(?P<b>up|down)\s+(?:the\s+|a\s+)?(?:screen|image|frame|ramp|slope|hill|incline|stairs|steps|"
                r"pole|post|chute|slide|wall|track)\b"), "b"),
    (re.compile(r"^\s*(?:[a-z]+ly\s+)?(?P<b>left|right|up|down|upward|downward)\b(?!\s+(?:of|to)\b)"), "b"),
    (re.compile(r"\bfrom\s+" + _SIDE.format(g="a") + r"\b(?!\s+(?:of|hand)\b)"), "away_from_a"),
]

#: depth relations (image-space depth: no calibration); "approaching"/"receding" are relative to the camera
DEPTH_RE = re.compile(r"\b(?P<nearer>in front of|nearer (?:to the camera )?than|closer (?:to the camera )?than)\b|"
                      r"\b(?P<farther>behind|farther (?:from the camera )?than|further (?:from the camera )?than)\b|"
                      r"\b(?P<approaching>(?:approach(?:es|ed|ing)?|comes? (?:closer )?towards?|moves? towards?)"
                      r"\s+(?:the\s+)?(?:camera|viewer))\b|"
                      r"\b(?P<receding>(?:recedes?|receded|moves? away from|goes away from)\s+(?:the\s+)?(?:camera|viewer))\b")
TIMES_RE = re.compile(r"\b(?:(?P<word>once|twice|thrice)|(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)"
                      r"\s+times)\b")
TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
#: on-screen text: a quoted string (opening quote after a space or punctuation, closing quote before one; an
#: apostrophe between letters stays inside: 'don't touch')
QUOTED_TEXT_RE = re.compile(r"(?:(?<=^)|(?<=[\s(\[{,:;]))(?P<q>['\"\u201c\u2018])(?P<text>(?:[^'\"\u201c\u201d\u2018\u2019\n]|"
                            r"(?<=[A-Za-z])['\u2019](?=[A-Za-z])){1,200}?)['\"\u201d\u2019](?=$|[\s.,;:!?)\]}])")
#: an opening quote whose closing quote was lost: the text runs to the next comma or full stop
UNCLOSED_TEXT_RE = re.compile(r"(?:(?<=^)|(?<=[\s(\[{,:;]))(?P<q>['\"\u201c\u2018])(?P<text>[^'\"\u201c\u201d\u2018\u2019,.;\n]"
                              r"{1,80}?)\s*(?=[,.;]|$)")
#: text after a verb of showing, unquoted: a clock time or a run of capitals ("the phone says 12:42")
SHOWN_TEXT_RE = re.compile(r"\b(?:says|reads|reading|saying|shows|showing|displays|displaying|that says|which reads)"
                           r"\s+(?P<text>\d{1,2}[:.]\d{2}\b|[A-Z0-9][A-Z0-9!?&'\-]*(?:\s+[A-Z0-9][A-Z0-9!?&'\-]*)*)")
#: quotes lost to double spaces: "the text  open your mind  sprouting"
SPACED_TEXT_RE = re.compile(r"\b(?:text|words?|caption|message|letters|slogan)\s{2,}(?P<text>\S.{0,200}?)"
                            r"(?=\s{2,}|\s+[.,;]|\s*$)")
#: unquoted capitalised words after a word for lettering ("with word AXX", "letters Contour", "logo Ritual
#: Disembowlment"), or a phrase set off by double spaces between two words ("with  knowledge is power  painted")
NAMED_TEXT_RE = re.compile(r"\b(?:word|words|letters|lettering|logo|text|caption|title)\s+(?P<text>[A-Z][A-Za-z0-9'!?&\-]*"
                           r"(?:\s+[A-Z][A-Za-z0-9'!?&\-]*)*)")
DOUBLE_SPACED_TEXT_RE = re.compile(r"(?<=[A-Za-z])\s{2,}(?P<text>[A-Za-z][A-Za-z'!?&\-]*(?:\s[A-Za-z][A-Za-z'!?&\-]*){0,7})"
                                   r"\s{2,}(?=[A-Za-z])")
#: a run of two or more words in capitals is lettering ("from new West End Show: MAY THE LORD OPEN")
CAPITALS_TEXT_RE = re.compile(r"(?<![A-Za-z'])(?P<text>[A-Z][A-Z'!?&]+(?:\s+(?:[A-Z][A-Z'!?&]*|A|I)){1,8})(?![A-Za-z])")
TEXT_HOLDER_RE = re.compile(r"\b(?:an?|the)\s+(?:[a-z]+\s+){0,2}?(?:sign|banner|board|poster|label|screen|note|"
                            r"placard|billboard|text|card)\b")
SOUND_RE = re.compile(r"\b(?:(?:an?|the|with an?|loud|soft|dull|sharp|audible)\s+)*(?:[a-z]+\s+)?"
                      r"(?P<sound>thuds?|thumps?|bangs?|clacks?|clanks?|clinks?|clicks?|crash(?:es)?|knocks?|smacks?|"
                      r"thwacks?|clatters?|pops?|sound|noise|impact sound)\b"
                      # the sound's own predicate of hearing belongs to its claim ("a knock is heard")
                      r"(?:\s+(?:(?:is|was|are|were|can\s+be|could\s+be|will\s+be)\s+(?:(?:clearly|distinctly|"
                      r"faintly|also|then)\s+)?(?:heard|audible)|sounds|rings\s+out|echoes|resounds)\b)?")
#: hearing a body do something ("you can hear the grey ball tap the floor"): the verb heard is a sound
HEAR_RE = re.compile(r"\bhear[sd]?\s+(?:(?:the|an?|one)\s+)?(?:[a-z]+\s+){0,2}?"
                     r"(?P<sound>taps?|hits?|lands?|strikes?|knocks?|bounces?|thuds?|thumps?|clacks?|clicks?|bangs?)\b")
#: words that end a clause's event list without being events ("the blue one does")
ELLIPSIS_RE = re.compile(r"^\s*(?:(?:the|a|an)\s+)?(?:[a-z\-]+\s+){0,3}?(?:[a-z\-]+)(?:\s+(?:does|did|do|too|first|"
                         r"second|next|later|as well))?\s*$")


@dataclass
class Mention:
    subject: str
    span: tuple[int, int]


@dataclass
class Event:
    """One event claim: its pattern's name, span, subjects, claim id and the operation whose windows stand for it
    in temporal relations (``op``; None when it has none)."""

    kind: str
    span: tuple[int, int]
    subjects: list[str]
    claim: str
    op: str | None = None
    quantity: str | None = None
    negated: bool = False
    #: a sound that comes with the event before it in its clause ("hits the floor with a thud"): heard during
    #: that event, and no event of its own for the clauses around
    with_previous: bool = False


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
    #: subjects named as a plural without a number ("dominoes", "several balls")
    plural: set[str] = field(default_factory=set)
    #: animal nouns made objects by a material or "toy" ("a toy dog", "a rubber duck"): they do not move by themselves
    objects: set[str] = field(default_factory=set)
    #: the first subject of the latest event ("X collides with Y and comes to rest": X comes to rest)
    last_actor: str | None = None
    #: subjects grounded only to be counted ("three guitars"): no implicit rigid-body obligations
    counted_only: set[str] = field(default_factory=set)

    def subjects_in(self, start: int, end: int) -> list[str]:
        return list(dict.fromkeys(x.subject for x in self.mentions if start <= x.span[0] < end))

    def subject_before(self, start: int, pos: int) -> list[str]:
        """The subject(s) acting at ``pos``: mentions in the clause before it, else the latest actor, else the
        latest mention before it."""
        named = [x for x in self.mentions if start <= x.span[0] < pos]
        inside = [x for x in named if not _after_preposition(self.low, x.span[0])]
        if inside:
            # "the red ball and the blue ball collide": every mention in the clause before the verb
            return list(dict.fromkeys(x.subject for x in inside))
        if named or re.search(r"\b(?:the|a|an|its|their|his|her)\s+[a-z\-]+", self.low[start:pos]):
            # "ramps for a game of marble run", "with the point sinking": the clause's subject is a noun the
            # planner does not know
            return []
        if self.last_actor:
            return [self.last_actor]  # "X collides with Y and comes to rest": X comes to rest
        # "a wolf with the body of a horse, galloping": the sentence's subject, not the latest noun
        sentence = max(self.low.rfind(c, 0, start) for c in ".;!?") + 1
        main = [x for x in self.mentions if sentence <= x.span[0] < pos and not _after_preposition(self.low, x.span[0])]
        before = main or [x for x in self.mentions if x.span[1] <= pos]
        return [(main[0] if main else before[-1]).subject] if before else []


_PREPOSITIONS = set("on onto off into in from through over under against with without at near beside down across "
                    "along toward towards past behind by of above below inside beneath around after before while "
                    "when upon for like than about as starts start started begins began keeps kept".split())
_PARTITIVE_OF_RE = re.compile(r"\b(?:" + "|".join(PARTITIVES) + r")\s+of\s+(?:(?:the|a|an|its|their)\s+)?$")


def _after_preposition(low: str, pos: int) -> bool:
    """The noun phrase at ``pos`` follows a preposition ("onto the table"), not a partitive ("a piece of paper")."""
    before = low[max(0, pos - 40):pos]
    if _PARTITIVE_OF_RE.search(before):
        return False
    return bool(re.search(r"\b(?:on|onto|off|into|in|from|through|over|under|against|with|at|near|beside|down|"
                          r"across|along|toward|towards|past|behind|by|of|above|below|inside|beneath|around)\s+"
                          r"(?:(?:the|a|an|its|their)\s+)?$", before))


def motion_direction(tail: str) -> str | None:
    """The direction a direction phrase right after a motion verb gives, or None ("to the left of the bowl" is a
    place, not a direction; "from left to right" takes the goal; "from the left" the way away from it)."""
    for rx, how in DIRECTION_PHRASES:
        m = rx.search(tail)
        if m is None:
            continue
        if how in ("toward", "away"):
            return how
        if how == "away_from_a":
            return OPPOSITE[DIRECTION_WORDS[m.group("a")]]
        return DIRECTION_WORDS[m.group("b")]
    return None


def _negated(low: str, clause_start: int, s: int) -> bool:
    """The verb at ``s`` is negated: a negation earlier in its clause ("does not bounce", "never stops rolling"),
    or "without" right before it ("rolls without bouncing")."""
    before = low[clause_start:s]
    if re.search(r"\bwithout\s+(?:[a-z]+\s+)?$", before):
        return True
    neg = list(NEG_RE.finditer(before))
    return bool(neg) and not re.search(r"\bbut\b", before[neg[-1].end():])


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
        low = lower(prompt)[: self.max_prompt_chars]
        st = ParseState(low=low, builder=PlanBuilder(prompt),
                        sound_spans=[(m.start(), m.end()) for m in SOUND_RE.finditer(low)
                                     if not re.match(r"\s+(?:into|over)\b", low[m.end():])]
                        + [(m.start(), m.end()) for m in HEAR_RE.finditer(low)])
        b = st.builder
        self._find_subjects(st)
        self._numbered(st)
        cls = self._clauses(st)
        masked = self._events(st, cls)
        self._still_around_motion(st, cls)
        self._judged(st, cls)
        self._texts(st)
        self._sounds(st, masked, cls)
        self._depths(st, cls)
        self._counts(st)
        self._present(st, cls)
        self._temporal(st, cls)
        if lessons:
            for lesson in lessons:
                lesson.apply(b, low, st.subjects_in)
        for name in list(b.subjects):
            if name not in st.counted_only and any(isinstance(op, GroundOp) and op.subject == name for op in b.ops):
                b.add_implicit(name, self.implicit)
        b.add_scene(self.implicit)
        if self.dense:
            b.add_dense()
        if not b.claims:
            b.notes.append("no physical claim found in the prompt")
        try:
            return PlanResult(plan=b.build(self.name))
        except PlanError as exc:  # a rule produced an invalid plan: reject it rather than run it
            return PlanResult(plan=None, rejected=tuple(exc.reasons))

    @staticmethod
    def _present(st: ParseState, cls: list[Clause]) -> None:
        """A rigid body the prompt names by its colour and says nothing more of ("one yellow block is there too",
        "a white ball can be seen in the scene", "there is also a red ball") is still presumed to be in the clip:
        it is grounded, so its implicit obligations (permanence: it is there, and stays) are checked; a clause that
        says nothing else becomes the claim that it is there. Not when the clause denies it ("there is no red
        ball") or the subject is only counted or named several times."""
        b = st.builder
        grounded = {op.subject for op in b.ops if isinstance(op, GroundOp)}
        for name, spec in list(b.subjects.items()):
            if name in grounded or name in st.counted_only or name in st.plural or not spec.rigid or not spec.color \
                    or (spec.count or 1) > 1:
                continue
            mention = next((m for m in st.mentions if m.subject == name), None)
            if mention is None:
                continue
            clause = next((c for c in cls if c.start <= mention.span[0] < c.end), None)
            start = clause.start if clause is not None else 0
            if _negated(st.low, start, mention.span[0]) or re.search(r"\bno\s+(?:[a-z]+\s+){0,2}$",
                                                                     st.low[start:mention.span[0]]):
                continue
            b.ground(name)
            end = clause.end if clause is not None else len(st.low)
            if not any(c.span[0] < end and start < c.span[1] for c in b.claims):
                check = b.op(MeasureOp, subject=name, quantity="permanence", expect=Expect())
                b.oblige(b.claim((start, end), subjects=[name]), check, "there (permanence)")

    # ---- clauses -----------------------------------------------------------------------------------
    @staticmethod
    def _clauses(st: ParseState) -> list[Clause]:
        """The prompt's clauses; a clause that only names subjects joins the next one when "and" follows ("a red
        ball and a blue ball collide" is one clause with two actors)."""
        out: list[Clause] = []
        for c in clauses(st.low):
            prev = out[-1] if out else None
            if prev is not None and c.connective == "and" and prev.sentence == c.sentence \
                    and st.subjects_in(prev.start, prev.end) and not _has_event(st.low[prev.start:prev.end]):
                prev.end = c.end
                continue
            out.append(Clause(c.start, c.end, c.connective, c.sentence))
        return out

    # ---- subjects ----------------------------------------------------------------------------------
    def _find_subjects(self, st: ParseState) -> None:
        low = st.low
        found: list[tuple[int, int, re.Match]] = []
        for m in MENTION_RE.finditer(low):
            if m.group("noun") in ("can", "cans") and (not (m.group("det") or m.group("adj")) or re.match(
                    r"\s+(?:be|not|also|still|only|clearly|easily)\b", low[m.end():])):
                continue  # "a ball can roll", "a knock can be heard": the modal, not a tin
            found.append((m.start(), m.end(), m))
        # any other noun right before an event verb is a subject too ("a zorblax falls", "a wooden plank slides")
        for m in GENERIC_RE.finditer(low):
            noun = m.group("noun")
            if noun in BODIES or noun in SURFACES or noun in SCENERY or noun in STOPWORDS or noun in NUMBERS \
                    or noun in PRONOUNS or noun.endswith(("ed", "ing", "ly")) or low[m.start("noun") - 1:m.start("noun")] == "-":
                continue
            if any(s <= m.start("noun") < e for s, e, _ in found):
                continue
            rest = re.sub(r"^\s*(?:(?:is|was|are|were|gets|got|being|then|also|slowly|quickly|suddenly|gently)\s+)*",
                          "", low[m.end():m.end() + 40])
            if _has_event(rest, at_start=True) and not _after_preposition(low, m.start()) \
                    and (m.group("det") or _clause_start(low, m.start())):
                found.append((m.start(), m.end(), m))
        for m in ONE_RE.finditer(low):
            found.append((m.start(), m.end(), m))
        found.sort(key=lambda t: t[0])
        for i, (s, e, m) in enumerate(found):
            nxt = found[i + 1] if i + 1 < len(found) else None
            if nxt is not None and _compound(low, (s, e, m), nxt):
                continue  # "a rubber dog ball": the first noun names the kind of the second, one subject
            prev = found[i - 1] if i > 0 else None
            self._bind(st, m, prev[2] if prev is not None and _compound(low, prev, (s, e, m)) else None)
        for m in PRONOUN_RE.finditer(low):
            word = m.group(0)
            prev = [x for x in st.mentions if x.span[1] <= m.start()]
            if not prev or (word in ("which", "that") and not _has_event(
                    re.sub(r"^\s*(?:(?:is|was|are|were|then|also|slowly|quickly|suddenly|gently)\s+)*", "",
                           low[m.end():m.end() + 40]), at_start=True)):
                continue  # a relative pronoun refers back only when a verb of an event follows it ("which tips over")
            last = prev[-1].subject
            subjects = [last]
            if word in PLURAL_PRONOUNS and st.builder.subjects[last].count in (None, 1) and last not in st.plural:
                # "a red ball and a blue ball ... they" -> both
                subjects = list(dict.fromkeys(x.subject for x in prev[-2:]))
            for s in subjects:
                st.mentions.append(Mention(s, (m.start(), m.end())))
        st.mentions.sort(key=lambda x: x.span)

    @staticmethod
    def _bind(st: ParseState, m: re.Match, modifier: re.Match | None = None) -> None:
        """Declare the subject a noun phrase names or bind it to one declared before. ``modifier``: a noun phrase
        right before it that names its kind ("a rubber dog" in "a rubber dog ball"): its determiner and adjectives
        are the phrase's."""
        b = st.builder
        first = modifier or m
        det = (first.group("det") or "").strip()
        adjs = ((first.group("adj") or "") + " " + (m.group("adj") or "" if modifier else "")).replace("-", " ").split()
        if m.re is ONE_RE:
            before = [x for x in st.mentions if x.span[1] <= m.start()]
            if not before:
                return
            word = noun = b.subjects[before[-1].subject].noun
        else:
            word = m.group("noun")
            noun = BODIES.get(word, word)
        colour = next((a for a in adjs if a in COLOURS), None)
        size = next((SIZES[a] for a in adjs if a in SIZES), None)
        plural = word != noun or (word.endswith("s") and word not in BODIES.values() and word not in BODIES)
        count = NUMBERS.get(det) or (int(det) if det.isdigit() else None)
        several = det in SEVERAL or det in ("these", "those") or (plural and count is None)
        existing = None
        if det in ("the", "", "this", "these", "those"):  # "the ball" (or a bare "ball") refers back
            for mention in reversed(st.mentions):
                spec = b.subjects[mention.subject]
                # "the blue sphere" after "a blue ball": another word for the same kind, in the same colour
                alike = spec.noun == noun or (colour is not None and spec.color == colour and det == "the"
                                              and spec.noun in kind_of(noun))
                if alike and (colour is None or spec.color == colour) and (size is None or spec.size == size):
                    existing = mention.subject
                    break
        span = (first.start(), m.end())
        if existing is None:
            name = "_".join(x for x in (colour, noun) if x).replace("-", "_")
            made = noun in ANIMATE.values() and any(a in _OBJECT_MODIFIERS for a in adjs)
            spec = SubjectSpec(name=name, noun=noun, color=colour, size=size,
                               count=count if count and count > 1 else (1 if count == 1 else None),
                               rigid=noun not in NON_RIGID and (noun not in ANIMATE.values() or made), span=span)
            existing = b.add_subject(spec)
            if made:
                st.objects.add(existing)
            if several and not (count and count > 1):
                st.plural.add(existing)
        st.mentions.append(Mention(existing, span))
        b.noun_phrases.append(span)

    # ---- events ------------------------------------------------------------------------------------
    def _events(self, st: ParseState, cls: list[Clause]) -> str:
        low, b = st.low, st.builder
        masked = low
        nouns = _sound_nouns(st)
        for ci, clause in enumerate(cls):
            hits = [h for h in _hits(masked, clause.start, clause.end, low, st.mentions)
                    if not any(a <= h[0] and h[1] <= z for a, z in nouns)]
            if not hits and ci > 0:
                self._ellipsis(st, cls[ci - 1], clause)
                continue
            for k, (s, e, pat, m) in enumerate(hits):
                described = _participle_subject(low, s, e, st.mentions)
                if described is None and QUANTIFIER_SUBJECT_RE.search(low, clause.start, s):
                    # "everything else is motionless": the subject is no body the prompt named, not the last one
                    b.notes.append(f"a quantifier, not a named body, is the subject of '{low[s:e]}' at {s}")
                    continue
                actors = st.subject_before(clause.start, s) if described is None else described
                after = [x.subject for x in st.mentions if e <= x.span[0] < clause.end]
                passive = bool(_PASSIVE_RE.search(low[max(0, s - 24):s]))
                if pat.transitive and after and not passive and _object_follows(low, e, st.mentions):
                    actors = after[:1]  # "someone drops an apple": the apple falls
                if not actors:
                    b.notes.append(f"no subject for '{low[s:e]}' at {s}")
                    continue
                st.last_actor = actors[0]
                span_start = clause.start if k == 0 else s
                span_end = hits[k + 1][0] if k + 1 < len(hits) else clause.end
                # a sound or quoted text later in the clause is its own claim: stop the span before it
                span_end = min([span_end] + [a for a, _ in st.sound_spans if e <= a < span_end])
                # "rolls without bouncing": the negation belongs to the next event's claim
                cut = re.search(r"\s+(?:without|not|never|does not|doesn't|do not|don't)\s*$", low[e:span_end])
                span_end = e + cut.start() if cut else span_end
                event = self._event(st, pat, m, s, e, span_start, span_end, actors, _negated(low, clause.start, s))
                if event is not None:
                    clause.events.append(event)
                masked = masked[:s] + " " * (e - s) + masked[e:]
        return masked

    @staticmethod
    def _still_around_motion(st: ParseState, cls: list[Clause]) -> None:
        """"Sits still" of a body the prompt also moves is not stillness over the whole clip. After its motion
        ("rolls to the right, then stays still") it is the rest that ends it: its check becomes ``rest``. Before
        a motion ("stays still, then rolls away") no instrument window says until when: the judge answers it.
        A body that the prompt only holds still is marked ``at_rest`` (grounding's prior: it is no mover)."""
        b = st.builder
        events = [ev for clause in cls for ev in clause.events]
        for ev in events:
            if ev.kind not in STILL_KINDS or ev.op is None:
                continue
            subject = ev.subjects[0]
            moves = [o for o in events if o is not ev and o.quantity is not None
                     and o.kind not in (*STILL_KINDS, "static")
                     and subject in o.subjects]
            if not moves:
                continue
            if any(o.span[0] > ev.span[0] for o in moves):
                b.swap_op(ev.op, JudgeOp, "still before its motion: judged", claim=ev.claim,
                          question=f"Does this happen in the video? {b.prompt[ev.span[0]:ev.span[1]]}")
                ev.quantity, ev.op = None, None  # no window of its own: an order relation with it is not claimed
                continue
            old = next(o for o in b.ops if o.id == ev.op)
            ev.op = b.swap_op(ev.op, MeasureOp, "still: rest (the body also moves)",
                              **{**old.model_dump(exclude={"id", "op"}), "quantity": "rest"})
            ev.quantity = "rest"
        for ev in events:
            if ev.kind in STILL_KINDS and ev.quantity == "still" and ev.op is not None and not ev.negated:
                for subject in ev.subjects:
                    b.update_subject(subject, at_rest=True)

    def _ellipsis(self, st: ParseState, prev: Clause, clause: Clause) -> None:
        """"The red ball lands before the blue one (does)": a clause after an order connective that names a new
        subject and no verb repeats the previous clause's event for it."""
        if CONNECTIVE_KIND.get(clause.connective or "") not in ("before", "after") or len(prev.events) != 1:
            return
        subjects = [s for s in st.subjects_in(clause.start, clause.end) if s not in prev.events[0].subjects]
        if not subjects or not ELLIPSIS_RE.match(st.low[clause.start:clause.end]):
            return
        first = prev.events[0]
        if first.op is None:
            return
        op = self._repeat(st, first, subjects[0])
        if op is None:
            return
        cid = st.builder.claim((clause.start, clause.end), subjects=[subjects[0]])
        st.builder.oblige(cid, op, f"{first.kind} (repeated for {subjects[0]})")
        clause.events.append(Event(first.kind, (clause.start, clause.end), [subjects[0]], cid, op, first.quantity))

    @staticmethod
    def _repeat(st: ParseState, event: Event, subject: str) -> str | None:
        """The operation of ``event`` measured on another subject (None when it is not a measurement)."""
        op = next((o for o in st.builder.ops if o.id == event.op), None)
        if not isinstance(op, MeasureOp) or op.other is not None:
            return None
        return st.builder.op(MeasureOp, subject=subject, quantity=op.quantity, expect=op.expect, surface=op.surface)

    @staticmethod
    def _event(st: ParseState, pat: EventPattern, m: re.Match, s: int, e: int, span_start: int, span_end: int,
               actors: list[str], negated: bool) -> Event | None:
        low, b = st.low, st.builder
        subject = actors[0]
        self_propelled = b.subjects[subject].noun in SELF_PROPELLED and subject not in st.objects
        if pat.self_propelled and self_propelled:
            pat = PATTERNS[pat.self_propelled]
        if pat.inanimate_only and self_propelled:
            return None
        tail = low[e:span_end]
        other, surface = None, pat.surface
        if len(actors) > 1 and pat.partner:
            other = actors[1]
        obj = m.groupdict().get("obj") if pat.partner else None
        pron = m.groupdict().get("pron") if pat.partner else None
        if pron in ("each other", "one another") and other is None:
            other = subject  # "the balls hit each other": its instances with each other
        elif pron:
            # ``m`` matched within its clause: its positions are offset from the prompt's by the clause's start
            at = (s - m.start() + m.start("pron"), s - m.start() + m.end("pron"))
            other = next((x.subject for x in st.mentions if x.span == at and x.subject != subject), None)
            if other is None:
                # the object of a verb is not its own subject ("the cylinder topples after the ball hits it": "it"
                # is the cylinder, the body named before the ball): the nearest body named before it but the actor
                other = next((x.subject for x in reversed(st.mentions) if x.span[1] <= at[0]
                              and x.subject != subject), None)
        if obj:
            last = obj.split()[-1]
            if last in SURFACES:
                surface = SURFACES[last]
            else:
                partner = [x.subject for x in st.mentions if e - len(obj) - 8 <= x.span[0] < e + 2
                           and x.subject != subject]
                if partner:
                    other = partner[0]
        quantity = pat.quantity
        expect: dict[str, Any] = {"holds": pat.holds != negated}
        if QUANTITY_SPECS[quantity].directional:
            expect["direction"] = (motion_direction(tail) if pat.name != "topple" else None) or pat.direction
        if pat.name == "bounce":
            t = TIMES_RE.search(tail)
            if t:
                word = t.group("word") or t.group("n")
                expect["n"] = TIMES_WORDS.get(word) or NUMBERS.get(word) or int(word)
        if pat.name == "pass_through" and surface == "wall":
            quantity, expect = "penetration", {"holds": not negated}
        if QUANTITY_SPECS[quantity].needs_partner and other is None and surface is None:
            if (b.subjects[subject].count or 1) >= 2 or subject in st.plural:
                other = subject  # "two balls collide": its instances with each other
                if b.subjects[subject].count is None:
                    b.update_subject(subject, count=2)
            elif re.search(r"\bwall", low[e:span_end]):
                surface = "wall"
            elif pat.name in ("hit", "touch") and re.search(r"\b(?:ground|floor)\b", low[e:span_end]):
                surface = "floor"
        if QUANTITY_SPECS[quantity].needs_partner and other is None and surface is None:
            # no partner we can measure: ask the judge rather than guess
            cid = b.claim((span_start, span_end), subjects=[subject])
            check = b.op(JudgeOp, claim=cid, question=f"Does this happen in the video? {b.prompt[span_start:span_end]}")
            b.oblige(cid, check, f"{pat.name} with an unrecognised partner")
            return Event(pat.name, (span_start, span_end), [subject], cid)
        if quantity == "bounce" and surface is None and re.search(r"\bwall", low[e:span_end]):
            surface = "wall"
        if not QUANTITY_SPECS[quantity].surface:
            surface = None
        movers = [subject] if pat.partner else list(dict.fromkeys(actors))
        cid = b.claim((span_start, span_end), subjects=movers + ([other] if other and other not in movers else []))
        ops = [b.op(MeasureOp, subject=x, quantity=quantity, expect=Expect(**expect), other=other if x == subject
                    else None, surface=surface) for x in movers]
        for x, op in zip(movers, ops):
            b.oblige(cid, op, f"{pat.name}: {quantity}" + (f" ({x})" if len(movers) > 1 else ""))
        if pat.with_direction and not negated:
            direction = motion_direction(tail)
            if direction is not None:
                b.oblige(cid, b.op(MeasureOp, subject=subject, quantity="direction",
                                   expect=Expect(direction=direction)), f"{pat.name}: direction {direction}")
        if pat.with_goal and not negated:
            RulesPlanner._goal(st, cid, pat.name, subject, e, tail)
        return Event(pat.name, (span_start, span_end), movers + ([other] if other and other not in movers else []),
                     cid, ops[0] if pat.event is not None else None, quantity, negated)

    @staticmethod
    def _goal(st: ParseState, cid: str, verb: str, subject: str, at: int, tail: str) -> None:
        """The goal phrase of a motion (``GOAL_RE``, in ``tail``, the words after the verb, which ends at ``at``) as
        a sub-check of claim ``cid``: moving into or against a wall or a named body is colliding with it, moving to
        a wall is reaching it. Other goals ("to the corner", "into view") add nothing."""
        m = GOAL_RE.match(tail)
        if m is None:
            return
        prep, obj = m.group("prep"), m.group("obj")
        # its noun is among its first words ("the wooden wall and stops": the wall)
        surface = next((SURFACES[w] for w in obj.split() if w in SURFACES), None)
        if prep == "into" and CONTAINER_WORDS & set(obj.split()):
            return  # into a cup or a hole is a landing place, not a collision
        other = None
        if surface != "wall":
            if prep not in ("into", "against"):
                return
            span = (at + m.start("obj"), at + m.end("obj"))
            other = next((x.subject for x in st.mentions if x.span[0] < span[1] and span[0] < x.span[1]
                          and x.subject != subject), None)
            if other is None:
                return
        quantity = "collision_response" if prep in ("into", "against") else "contact"
        b = st.builder
        op = b.op(MeasureOp, subject=subject, quantity=quantity, expect=Expect(), other=other,
                  surface=surface if other is None else None)
        b.oblige(cid, op, f"{verb}: {quantity} with the {other or surface}")

    # ---- processes no instrument measures -----------------------------------------------------------
    @staticmethod
    def _judged(st: ParseState, cls: list[Clause]) -> None:
        """A clause without an event claim that names a physical process no instrument measures (melting,
        pouring, spinning ...), or an event whose subject was not found, becomes a claim a semantic verifier
        checks (``judge``): unknown without one, never silently dropped."""
        low, b = st.low, st.builder
        # a sound named as a noun is heard ("a knock is heard"): its words are the sound's claim, not a process
        unsounded = low
        for a, z in _sound_nouns(st):
            unsounded = unsounded[:a] + " " * (z - a) + unsounded[z:]
        for clause in cls:
            if clause.events:
                continue
            text = unsounded[clause.start:clause.end]
            inside = [(x.span[0] - clause.start, x.span[1] - clause.start) for x in st.mentions]
            # a process word inside a noun phrase is an adjective ("an empty rubber balloon")
            if not (any(not any(a <= m.start() < b for a, b in inside) for m in JUDGED_PROCESS_RE.finditer(text))
                    or _has_event(text)
                    or (_in_sequence(cls, clause) and _has_action(unsounded, clause.start, clause.end))):
                continue
            subjects = st.subjects_in(clause.start, clause.end)
            if DEFORMING_RE.search(text):
                for x in subjects:  # it breaks, bends or melts: no rigid-body obligations
                    b.update_subject(x, rigid=False)
            cid = b.claim((clause.start, clause.end), subjects=subjects)
            check = b.op(JudgeOp, claim=cid, question=f"Does this happen in the video? {b.claims[-1].text}")
            b.oblige(cid, check, "no instrument measures it")
            # the verifier's window ("occurs") stands for it in an order: "reads a book, then folds laundry"
            clause.events.append(Event("judged", (clause.start, clause.end), subjects, cid, check))

    # ---- text and sound ----------------------------------------------------------------------------
    @staticmethod
    def _texts(st: ParseState) -> None:
        """On-screen text: quoted strings, unquoted text after a verb of showing, quotes lost to double spaces, runs
        of capitals. A quote around the whole prompt is not text in the scene."""
        low, b = st.low, st.builder
        prompt = b.prompt[: len(low)]
        found: list[tuple[int, int, int, int]] = []  # match start, match end, text start, text end

        def take(m: re.Match) -> None:
            s, e = m.start("text"), m.end("text")
            while e > s and prompt[e - 1].isspace():
                e -= 1
            if e <= s or any(a < e and s < z for _, _, a, z in found):
                return
            found.append((m.start(), m.end(), s, e))

        for m in QUOTED_TEXT_RE.finditer(prompt):
            if not (m.start() == 0 and m.end() >= len(prompt.rstrip(" .!?"))):
                take(m)
        for m in UNCLOSED_TEXT_RE.finditer(prompt):
            if not any(a <= m.start() < z for a, z, _, _ in found) \
                    and not re.search(r"['\"\u201d\u2019](?=$|[\s.,;:!?])", prompt[m.end("text"):]):
                take(m)
        for rx in (SHOWN_TEXT_RE, SPACED_TEXT_RE, NAMED_TEXT_RE, DOUBLE_SPACED_TEXT_RE):
            for m in rx.finditer(prompt):
                take(m)
        letters = sum(c.isalpha() for c in prompt)
        for m in CAPITALS_TEXT_RE.finditer(prompt):
            if sum(c.isalpha() for c in m.group("text")) <= 0.5 * letters:  # not a prompt written in capitals
                take(m)
        for start, end, s, e in sorted(found):
            holder = None
            for h in TEXT_HOLDER_RE.finditer(low[max(0, start - 40):start]):
                holder = h
            span_start = max(0, start - 40) + holder.start() if holder else start
            text = prompt[s:e]
            op = b.op(ReadOp, text=text)
            cid = b.claim((span_start, max(end, e)))
            b.oblige(cid, op, f"text '{text}' legible")
            # text visibility is a state, not an event: it takes part in no temporal relation

    def _sounds(self, st: ParseState, masked: str, cls: list[Clause]) -> None:
        low, b = st.low, st.builder
        # "hear the ball tap the floor": the heard verb may also have been read as the body's own event
        found = sorted([*SOUND_RE.finditer(masked), *HEAR_RE.finditer(low)], key=lambda m: m.start())
        for m in found:
            if (m.start(), m.end()) not in st.sound_spans:
                continue
            if re.search(r"\bwithout\s+(?:an?\s+)?$", low[max(0, m.start() - 12):m.start()]):
                continue
            s = m.start()
            if low.startswith("with ", s):  # the claim is "a thud", not "with a thud"
                s += len("with ")
            op = b.op(HearOp, event="impact", description=m.group("sound"))
            clause = self._clause_at(cls, s)
            # the bodies its clause names make the sound ("a red ball makes a sharp click", "hear the blue ball tap"),
            # else those of the event that times it ("a knock is heard when the brown ball lands"): the claim is
            # theirs, though hearing it needs no track
            timing = _timing_clause_after(cls, clause) if clause is not None else None
            makers = ((st.subjects_in(clause.start, clause.end) if clause is not None else [])
                      or (st.subjects_in(timing.start, timing.end) if timing is not None else []))
            cid = b.claim((s, m.end()), subjects=makers)
            b.oblige(cid, op, "sound heard")
            if clause is not None:
                # "falls with a thud as it lands": the sound is the landing's (the next clause's), not the fall's
                attached = low.startswith("with ", m.start()) and timing is None \
                    and any(ev.span[1] <= s for ev in clause.events)
                clause.events.append(Event("hear", (s, m.end()), [], cid, op, with_previous=attached))
                clause.events.sort(key=lambda ev: ev.span[0])

    @staticmethod
    def _clause_at(cls: list[Clause], pos: int) -> Clause | None:
        for c in cls:
            if c.start <= pos < c.end:
                return c
        return None

    # ---- depth -------------------------------------------------------------------------------------
    def _depths(self, st: ParseState, cls: list[Clause]) -> None:
        low, b = st.low, st.builder
        for m in DEPTH_RE.finditer(low):
            relation = next(k for k in ("nearer", "farther", "approaching", "receding") if m.group(k))
            clause = self._clause_at(cls, m.start())
            start, end = (clause.start, clause.end) if clause else (0, len(low))
            before = [x for x in st.mentions if start <= x.span[0] < m.start()]
            # the thing compared with follows the relation at once ("in front of the blue cube"), not later on
            after = [x for x in st.mentions if m.end() <= x.span[0] < end
                     and re.fullmatch(r"\s*(?:(?:the|a|an|another)\s+)?", low[m.end():x.span[0]])]
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
    @staticmethod
    def _numbered(st: ParseState) -> None:
        """A number before a plural names how many there are, whatever the noun ("three security guards", "both
        knees", "9 labels"). A known noun (a mention) takes the number; any other noun becomes a subject of its own,
        declared for the count only: not rigid, so it gets no implicit rigid-body obligations."""
        low, b = st.low, st.builder
        for m in NUMBERED_RE.finditer(low):
            n = NUMBERS.get(m.group("num")) or (int(m.group("num")) if m.group("num").isdigit() else 0)
            if not 2 <= n <= 99:
                continue
            # the noun phrase after the number: up to four words, ending at its first plural ("three walking
            # manikins", "five black and white photos"); a function word or a preposition ends it first
            head = _counted_noun(low, m.end())
            if head is None and re.search(r"\b(?:set|pack|pair|group|box|bundle|lot|collection)\s+of\s+$",
                                          low[max(0, m.start() - 20):m.start()]):
                # "cocktail napkins, white, set of four": the things counted come before
                sentence = max(low.rfind(c, 0, m.start()) for c in ".;!?") + 1
                before = [w for w in WORD_RE.finditer(low, sentence, m.start()) if _plural(w.group(0))]
                head = before[-1] if before else None
            if head is None:
                continue
            noun = _singular(head.group(0))
            if noun in UNITS or noun in SURFACES or noun in COLOURS:
                continue
            span = (min(m.start(), head.start()), max(m.end(), head.end()))
            # "both knees": "both" is the noun's number here, not a pronoun referring back
            st.mentions = [x for x in st.mentions if x.span != (m.start(), m.end())]
            known = [x for x in st.mentions if x.span[0] <= head.start() < x.span[1]]
            if known:
                spec = b.subjects[known[-1].subject]
                if spec.count is None:
                    b.update_subject(known[-1].subject, count=n,
                                     span=(min(m.start(), (spec.span or span)[0]), (spec.span or span)[1]))
                    st.plural.discard(known[-1].subject)
                continue
            colours = [w for w in WORD_RE.findall(low, m.end(), head.start()) if w in COLOURS]
            colour = colours[0] if len(colours) == 1 else None  # "black and white photos": no one colour
            name = b.add_subject(SubjectSpec(name="_".join(x for x in (colour, noun) if x).replace("-", "_"),
                                             noun=noun, color=colour, count=n, rigid=False, span=span))
            st.mentions.append(Mention(name, span))
            st.mentions.sort(key=lambda x: x.span)
            b.noun_phrases.append(span)
            st.counted_only.add(name)

    @staticmethod
    def _counts(st: ParseState) -> None:
        """"Three balls": exactly three, always checked. "Dominoes", "several balls": two or more, only for
        subjects the plan grounds for another reason (a bare plural of scenery, "leaves", "clouds", is no claim)."""
        b = st.builder
        grounded = {op.subject for op in b.ops if isinstance(op, GroundOp)}
        # subjects the prompt says move (a fall, a bounce, a way to go: "three balls fall") and no other subject
        # shares the kind of ("three balls fall and a red ball bounces": the red ball may be one of the three)
        moving = {op.subject for op in b.ops if isinstance(op, MeasureOp) and op.quantity in MOTION_QUANTITIES
                  and op.expect.holds is not False}
        moving = {name for name in moving if not any(other != name and spec.noun in kind_of(b.subjects[name].noun)
                                                     for other, spec in b.subjects.items())}
        for name, spec in list(b.subjects.items()):
            if spec.span is None:
                continue
            if spec.count and spec.count >= 2:
                if name not in grounded:
                    st.counted_only.add(name)  # grounded for the count alone: no implicit obligations
                op = b.op(CountOp, subject=name, n=spec.count, moving=name in moving, kin=_counted_kin(st, name))
                text = f"count = {spec.count}"
            elif name in st.plural and spec.count is None and name in grounded:
                op = b.op(CountOp, subject=name, n=2, at_least=True)
                text = "count >= 2"
            else:
                continue
            cid = b.claim(spec.span, subjects=[name])
            b.oblige(cid, op, text)

    # ---- temporal ----------------------------------------------------------------------------------
    def _temporal(self, st: ParseState, cls: list[Clause]) -> None:
        seq = [(c, ev) for c in cls for ev in c.events]
        for k in range(1, len(seq)):
            (c_prev, prev), (c_next, nxt) = seq[k - 1], seq[k]
            if nxt.with_previous:
                self._relate(st, nxt, prev, "during")  # "hits the floor with a thud": thud during the hit
                continue
            if c_prev is c_next:
                continue  # two events of one clause ("bounces twice and rolls"): no order claimed
            if prev.with_previous:
                # the clause's own event, not the sound that comes with it, meets the next clause's
                prev = next(ev for ev in reversed(c_prev.events) if not ev.with_previous)
            if cls.index(c_next) != cls.index(c_prev) + 1:
                continue  # the connective joins its clause to the one before it, which names no event
            if nxt.kind == "hear" and nxt is c_next.events[-1] and _timing_clause_after(cls, c_next) is not None:
                continue  # "..., while you hear it tap the floor as it lands": the sound is the landing's
            kind = CONNECTIVE_KIND.get(c_next.connective or "")
            first_is_after = c_prev.connective == "after" and (c_next.sentence == c_prev.sentence)
            if first_is_after and kind is None:
                a, z, rel = prev, nxt, "before"        # "After it lands, it rolls": land before roll
            elif c_prev.connective in ("when", "as soon as", "while") and kind is None \
                    and c_prev.sentence == c_next.sentence and self._opens_sentence(cls, c_prev):
                a, z, rel = nxt, prev, "during"        # "When it lands, a thud": thud during land
            elif kind == "before":
                a, z, rel = prev, nxt, "before"
            elif kind == "after":
                a, z, rel = nxt, prev, "before"        # "X after Y": Y before X
            elif kind == "during":
                a, z, rel = prev, nxt, "during"
            else:
                continue
            self._relate(st, a, z, rel)

    def _relate(self, st: ParseState, a: Event, z: Event, rel: str) -> None:
        """Claim ``a`` ``rel`` ("before" or "during") ``z``, over the span from the first to the last of them,
        when both have event windows."""
        b = st.builder
        if a.op is None or z.op is None or a.negated or z.negated:
            b.notes.append(f"temporal relation '{rel}' between '{a.kind}' and '{z.kind}' not checkable: "
                           "an operand has no event window")
            return
        refs = self._operands(st, a, z, rel)
        if refs is None:
            b.notes.append(f"temporal relation '{rel}' between '{a.kind}' and '{z.kind}' not checkable: no "
                           "event window marks when one of them happens")
            return
        if refs[0] == refs[1]:
            return  # one event mentioned twice ("bounces ... then bounces"): no order to check
        if rel == "during" and len(set(a.subjects)) == 1 and set(a.subjects) == set(z.subjects) \
                and {refs[0].event, refs[1].event} == {"contact", "airborne"}:
            # one body's landing "while" it flies: the landing ends the flight (phases of one motion, the
            # airborne window stops where the contact begins), not two things at once
            b.notes.append(f"'{a.kind}' and '{z.kind}' of one subject joined by 'while': the contact ends the "
                           "flight, no simultaneity checked")
            return
        op = b.op(BeforeOp if rel == "before" else DuringOp, a=refs[0], b=refs[1])
        span = (min(a.span[0], z.span[0]), max(a.span[1], z.span[1]))
        cid = b.claim(span, subjects=list(dict.fromkeys(a.subjects + z.subjects)))
        b.oblige(cid, op, f"{a.kind} {rel} {z.kind}")

    @staticmethod
    def _operands(st: ParseState, a: Event, z: Event, rel: str) -> tuple[EventRef, EventRef] | None:
        """The event windows that stand for ``a`` and ``z`` in ``rel`` (``ORDER_WINDOWS``), or None."""
        b = st.builder

        def produced(ev: Event) -> tuple[str, ...]:
            return op_events(next(o for o in b.ops if o.id == ev.op))

        def pick(ev: Event, role: str) -> str | None:
            default = PATTERNS[ev.kind].event if ev.kind in PATTERNS else produced(ev)[0]
            if rel != "before" or ev.quantity not in ORDER_WINDOWS:
                return default
            return next((w for w in ORDER_WINDOWS[ev.quantity][role] if w in produced(ev)), None)

        wa, wz = pick(a, "first"), pick(z, "then")
        if rel == "before" and wa in ENDED_BY and wz not in ENDED_BY[wa]:
            return None
        if wa is None:
            return None
        za = EventRef(op=a.op, event=wa)
        zz = EventRef(op=z.op, event=wz) if wz else None
        if zz is None and z.quantity == "free_fall":
            # no window marks the end of a fall here: its landing is the first touch of the floor after it
            land = b.op(MeasureOp, subject=z.subjects[0], quantity="contact", surface="floor")
            zz = EventRef(op=land, event="contact")
        return (za, zz) if zz else None

    @staticmethod
    def _opens_sentence(cls: list[Clause], clause: Clause) -> bool:
        i = cls.index(clause)
        return i == 0 or cls[i - 1].sentence != clause.sentence


# ---- word-level helpers ---------------------------------------------------------------------------------


def _timing_clause_after(cls: list[Clause], clause: Clause) -> Clause | None:
    """The clause right after ``clause`` when it says when what comes before it happens ("... as it lands",
    "... when it hits the wall") and names an event: a sound at the end of ``clause`` is timed by it."""
    k = cls.index(clause)
    later = cls[k + 1] if k + 1 < len(cls) else None
    return later if later is not None and later.events and later.connective in ("as", "when", "as soon as") else None


def _hits(masked: str, start: int, end: int, low: str, mentions: list[Mention]) -> list[tuple[int, int, EventPattern,
                                                                                             re.Match]]:
    """Event verbs of the clause ``[start, end)``, in prompt order (earlier patterns win overlaps); a participle
    inside a noun phrase ("a rolling ball") is an adjective, not an event."""
    text = masked[start:end]
    hits: list[tuple[int, int, EventPattern, re.Match]] = []
    for pat in EVENTS:
        for m in pat.regex.finditer(text):
            s, e = start + m.start(), start + m.end()
            if any(hs < e and s < he for hs, he, _, _ in hits):
                continue
            if any(x.span[0] <= s and e < x.span[1] for x in mentions) or _used_as_noun(low, s, e):
                continue
            if pat.name == "static" and re.match(r"\s+(?:up|by|still)\b", low[e:]) and "propped" not in m.group(0):
                continue  # "stands up", "stands by": not resting on a support
            hits.append((s, e, pat, m))
    return sorted(hits, key=lambda h: h[0])


#: words after which a verb form is a noun ("a paddle", "their run", "a single-bladed paddle")
_NOUN_CONTEXT_RE = re.compile(r"(?:\b(?:a|an|the|their|its|his|her|my|your|our|this|that|these|those)|[a-z]+-[a-z]+|"
                              + "|".join(COLOURS + tuple(SIZES)) + r")\s+$")
#: auxiliaries and adverbs before a participle that is the clause's verb ("is sitting", "was then released")
_FINITE_BEFORE_RE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got|has|have|had|then|also|and|not|"
                               r"never|[a-z]+ly)\s+$")


def _used_as_noun(low: str, s: int, e: int) -> bool:
    """The verb form at ``[s, e)`` is a noun here: after a determiner, an adjective or a possessive ("the pillow's
    jumps"), a bare form after a preposition ("across land", "at rest"), or before a possessive."""
    before = low[max(0, s - 24):s]
    bare_after_preposition = re.search(r"\b(?:across|on|onto|in|into|of|from|over|under|with|through|at|by|for|"
                                       r"about|upon|along)\s+$", before) and not low[s:e].split()[0].endswith("ing")
    return bool(_NOUN_CONTEXT_RE.search(before) or re.search(r"[a-z]'s?\s+$", before) or bare_after_preposition) \
        or low.startswith("'s", e)


def _participle_subject(low: str, s: int, e: int, mentions: list[Mention]) -> list[str] | None:
    """For a participle right after a noun phrase ("a cardstock propped up on", "a pipe sitting on"), the noun it
    describes: that subject, or no subject when the noun is not one the planner declared; None when the verb is
    not such a participle (it takes the clause's subject)."""
    word = low[s:e].split()[0]
    if not re.search(r"(?:ing|ed|en)$", word) or _FINITE_BEFORE_RE.search(low[max(0, s - 16):s]):
        return None
    before = re.search(r"([a-z\-]+)\s+$", low[max(0, s - 30):s])
    if before is None or before.group(1) in STOPWORDS or before.group(1) in PRONOUNS \
            or before.group(1) in _PREPOSITIONS or before.group(1).endswith("ly"):
        return None  # "rolls without bouncing", "starts rolling": the clause's own verb, not a description
    end = len(low[:s].rstrip())
    last = [x for x in mentions if x.span[1] == end]
    return [last[-1].subject] if last else []


#: nouns that are also verbs or modals right after a noun ("a ball can roll", "the boat rocks")
_VERB_LIKE_NOUNS = {"can", "cans", "rocks", "bowls", "pins", "drums", "logs", "weights", "stones", "bars", "sticks"}


def _compound(low: str, first: tuple[int, int, re.Match], second: tuple[int, int, re.Match]) -> bool:
    """Two noun phrases that are one: the second a bare noun right after the first ("rubber dog" + "ball")."""
    m = second[2]
    return first[2].re is MENTION_RE and m.re is MENTION_RE and not m.group("det") and not m.group("adj") \
        and low[first[1]:second[0]].isspace() and m.group("noun") not in _VERB_LIKE_NOUNS


#: a verb of an action in progress or begun: "is cooking dinner", "start sweeping", "they get up", "it flies down"
_ACTION_RE = re.compile(r"\b(?:is|are|was|were|starts?|started|begins?|began|keeps?|kept|continues?|stops?|then)\s+"
                        r"(?:[a-z]+ly\s+)?[a-z]{3,}\b|\b(?:he|she|it|they|someone|somebody)\s+(?:[a-z]+ly\s+)?"
                        r"(?!is\b|are\b|was\b|were\b|has\b|have\b|had\b)[a-z]{3,}\b|\b[a-z]{3,}ing\b")


def _sound_nouns(st: ParseState) -> list[tuple[int, int]]:
    """The spans of sounds named as nouns ("with a clear knock", "a loud bang is heard"): heard, not done, so their
    words are neither an event nor a process (a span that overlaps a body's mention is not one)."""
    return [(a, z) for a, z in st.sound_spans if re.match(r"(?:with\s+)?(?:an?|the)\s", st.low[a:z])
            and not any(x.span[0] < z and a < x.span[1] for x in st.mentions)]


def _in_sequence(cls: list[Clause], clause: Clause) -> bool:
    """The clause is one step of a sequence: an order connective ("then", "before", "after") opens it or the next
    clause of its sentence."""
    i = cls.index(clause)
    nxt = cls[i + 1] if i + 1 < len(cls) and cls[i + 1].sentence == clause.sentence else None
    return CONNECTIVE_KIND.get(clause.connective or "") in ("before", "after") \
        or (nxt is not None and CONNECTIVE_KIND.get(nxt.connective or "") in ("before", "after"))


def _has_action(low: str, start: int, end: int) -> bool:
    """A verb of action in ``low[start:end]`` that is not a noun there ("the running water" is a noun phrase)."""
    for m in _ACTION_RE.finditer(low, start, end):
        s = m.end() - len(m.group(0).split()[-1])
        if not _used_as_noun(low, s, m.end()):
            return True
    return False


def _has_event(text: str, at_start: bool = False) -> bool:
    for pat in EVENTS:
        m = pat.regex.search(text)
        if m and (not at_start or m.start() == 0):
            return True
    return False


def _clause_start(low: str, pos: int) -> bool:
    """``pos`` opens a sentence or follows a comma or "and"/"then" (a bare plural subject: "ducks swim")."""
    return bool(re.search(r"(?:^|[.;!?,:]\s*|\b(?:and|then|while|when|as)\s+)$", low[max(0, pos - 12):pos]))


def _object_follows(low: str, e: int, mentions: list[Mention]) -> bool:
    """A mention follows the verb at ``e`` as its object ("drops an apple", "gently releases the two balls",
    "lets go of the ball"), not after a preposition ("rolls into a cylinder")."""
    return any(x.span[0] >= e and re.fullmatch(r"\s*(?:[a-z]+ly\s+)?(?:(?:up|down|out|off|over|away|back)\s+)?",
                                               low[e:x.span[0]]) for x in mentions)
