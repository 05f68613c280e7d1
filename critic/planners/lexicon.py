"""The words the rules planner knows, by class, and the clause splitter both planners share.

Word classes, not phrases of particular prompts: numbers, colours, sizes and other adjectives; countable rigid
things, deformable stuff, animate bodies and vehicles; surfaces and scenery; the physical words no instrument
measures (``JUDGED_PROCESS_RE``: melting, pouring, spinning ...; ``DEFORMING_RE``: those that change a body's
shape, so it carries no rigid-body obligations) and every physical word the planner knows
(``PHYSICAL_WORD_RE``), which decides whether a clause left without a claim is a physical one
(:func:`critic.planners.base.unplanned_spans`).

Clauses (:func:`clauses`): a prompt is cut at sentence ends, commas, colons and temporal or coordinating
connectives ("then", "before", "while", "and" ...); each clause remembers the connective that opened it and its
sentence number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _words(*groups: str) -> tuple[str, ...]:
    return tuple(w for g in groups for w in g.split())


def _plurals(singulars: str) -> dict[str, str]:
    """``"ball box"`` -> ``{"ball": "ball", "balls": "ball", "box": "box", "boxes": "box"}`` (regular plurals)."""
    out: dict[str, str] = {}
    for w in singulars.split():
        out[w] = w
        if w.endswith(("s", "x", "z", "ch", "sh")):
            out[w + "es"] = w
        elif w.endswith("y") and w[-2] not in "aeiou":
            out[w[:-1] + "ies"] = w
        elif w.endswith("f"):
            out[w[:-1] + "ves"] = w
        else:
            out[w + "s"] = w
    return out


NUMBERS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a pair of": 2, "a couple of": 2, "both": 2}
#: determiners of a plural without a number: "several balls" asserts two or more
SEVERAL = ("several", "some", "many", "multiple", "numerous", "various", "a few", "a group of", "a row of",
           "a line of", "a stack of", "a pile of", "a set of", "a chain of", "a tower of", "a series of",
           "a bunch of", "a handful of", "a heap of", "rows of", "stacks of", "piles of", "lots of", "a lot of")
COLOURS = _words("red blue green yellow orange purple pink white black gray grey brown golden gold silver cyan "
                 "magenta teal maroon navy beige tan turquoise violet crimson scarlet indigo")
#: words that shade a colour ("dark green"): kept out of the colour itself
SHADES = _words("dark light pale bright deep")
SIZES = {"small": "small", "little": "small", "tiny": "small", "mini": "small", "large": "large", "big": "large",
         "huge": "large", "giant": "large", "enormous": "large", "massive": "large"}
OTHER_ADJECTIVES = _words(
    "wooden metal metallic rubber plastic heavy light shiny bouncy tennis soccer bowling billiard ping-pong glass",
    "steel stone toy round square solid hollow striped spotted dotted checkered tall short long thin thick flat",
    "empty full hard soft smooth rough iron copper paper cardboard foam ceramic porcelain clay concrete marble",
    "dark pale bright deep standing rolling falling spinning moving bouncing sliding stuffed plush inflatable")
#: countable rigid things (plural -> singular)
NOUNS: dict[str, str] = {
    **_plurals("ball cube box block domino marble sphere can bottle cup mug vase egg apple orange rock stone "
               "pebble brick book car puck coin cylinder pin bowl plate object spoon key phone blob disc disk "
               "wheel tire tyre bucket crate basketball football baseball volleyball snowball beachball jar pot "
               "toy balloon kite board plank ring cone pyramid prism bead die glass pen pencil bolt nut screw hammer "
               "tray pan lid ladder chair stool barrel drum log stick rod bar beam weight dumbbell kettlebell "
               "ornament figurine statue doll cart sled skateboard bat racket frisbee shuttlecock bell can "
               "pumpkin melon watermelon lemon lime peach pear tomato potato bean nut seed ice-cube"),
    "dominoes": "domino", "dominos": "domino", "dice": "die", "glasses": "glass", "knives": "knife",
    "knife": "knife", "boxes": "box", "water": "water", "liquid": "liquid", "cloth": "cloth", "towel": "towel",
    "rope": "rope", "paper": "paper", "feather": "feather", "feathers": "feather", "smoke": "smoke",
    "fabric": "fabric", "sheet": "sheet", "sheets": "sheet", "sand": "sand", "paint": "paint", "honey": "honey",
    "oil": "oil", "milk": "milk", "juice": "juice", "dough": "dough", "clay": "clay", "jelly": "jelly",
    "slime": "slime", "string": "string", "chain": "chain", "ice": "ice", "snow": "snow", "wax": "wax",
    "candle": "candle", "candles": "candle", "flame": "flame", "fire": "fire", "bubble": "bubble",
    "bubbles": "bubble", "leaf": "leaf", "leaves": "leaf", "flag": "flag", "curtain": "curtain",
    "spring": "spring", "pendulum": "pendulum"}
#: nouns that name the same kind of body (singular forms): "a blue ball ... the blue sphere" is one body when the
#: later phrase is definite and names the same colour
SAME_KIND: tuple[frozenset[str], ...] = (
    frozenset("ball sphere orb marble".split()),
    frozenset("cube block box brick crate".split()),
    frozenset("cylinder can drum tube barrel pipe".split()),
)


def kind_of(noun: str) -> frozenset[str]:
    """The nouns of ``noun``'s kind (:data:`SAME_KIND`), or the noun alone."""
    noun = noun.lower()
    return next((k for k in SAME_KIND if noun in k), frozenset({noun}))

#: things that bend, flow, tear or burn: no implicit rigid-body obligations
NON_RIGID = {"water", "liquid", "cloth", "towel", "rope", "paper", "feather", "smoke", "balloon", "blob", "fabric",
             "sheet", "sand", "paint", "honey", "oil", "milk", "juice", "dough", "clay", "jelly", "slime", "string",
             "chain", "ice", "snow", "wax", "candle", "flame", "fire", "bubble", "leaf", "flag", "curtain", "spring",
             "egg"}
#: bodies that move by themselves: subjects when they act ("a dog runs"), never given rigid-body obligations
ANIMATE: dict[str, str] = {
    **_plurals("person man woman boy girl child kid baby newborn infant toddler dog cat duck bird horse cow sheep "
               "goat pig fish frog rabbit mouse squirrel bear lion tiger elephant monkey swan goose chicken player "
               "dancer skater swimmer runner athlete surfer skier diver rider cyclist robot insect butterfly bee ant "
               "snake turtle dolphin whale shark penguin deer fox wolf puppy kitten hand"),
    "people": "person", "men": "man", "women": "woman", "children": "child", "geese": "goose", "mice": "mouse",
    "fish": "fish", "sheep": "sheep", "deer": "deer"}
#: vehicles: rigid bodies that move by themselves
VEHICLES: dict[str, str] = _plurals("truck bus train boat ship bicycle bike motorcycle airplane plane helicopter "
                                    "tractor van scooter kayak canoe")
#: nouns of a part or an amount: "a piece of paper" is the paper ("of" there is no preposition of place)
PARTITIVES = _words("piece pieces bit bits chunk chunks lump lumps slice slices sheet sheets drop drops dollop "
                    "scrap scraps strip strips block blocks bar bars stick sticks cup glass bowl bottle can jar "
                    "handful pile stack row line set chain tower series bunch heap amount amounts kind type")
#: static geometry: never a subject; floor-like and wall-like surfaces
SURFACES = {"floor": "floor", "ground": "floor", "table": "floor", "tabletop": "floor", "desk": "floor",
            "counter": "floor", "pavement": "floor", "court": "floor", "grass": "floor", "road": "floor",
            "mat": "floor", "carpet": "floor", "rug": "floor", "surface": "floor", "field": "floor",
            "wall": "wall", "walls": "wall", "door": "wall", "window": "wall", "fence": "wall"}
SCENERY = set(_words(
    "ramp slope incline shelf ledge edge hill stairs steps air room scene camera sign banner poster label screen sky",
    "sound noise way time times side left right top bottom corner middle center centre background foreground",
    "someone somebody he she stop rest halt thud bang clack shot view frame image video distance front back",
    "place position direction motion movement speed moment second seconds end start beginning other another",
    "kitchen street park forest beach sea ocean lake pond river pool bathtub sink tub container",
    # quantities and conditions, not bodies: "the temperature rises" moves nothing
    "temperature pressure level amount number heat light color colour sun moon wind rain weather mist fog steam",
    "vapor vapour moisture humidity environment atmosphere process transformation reaction timelapse footage"))
STOPWORDS = set(_words(
    "it they them then and the a an of to on in off onto into with from after before while when as soon that",
    "which this there is are was were be been being its their other another each both all not does do did never",
    "slowly quickly finally eventually gently suddenly its his her by at for or but so than very just also",
    "who whom whose what where how up down over under out about through across along around near beside behind",
    "one ones some any no nor yet still until again once twice thrice else there here"))
PRONOUNS = ("it", "they", "them", "itself", "themselves", "both", "each", "which", "that")

def verb_forms(spec: str) -> tuple[str, ...]:
    """Inflected forms of verbs: ``"melt freeze:froze,frozen"`` -> melt, melts, melted, melting, freeze, freezes,
    freezed, freezing, froze, frozen (regular forms from the stem; irregular ones after a colon)."""
    out: list[str] = []
    for token in spec.split():
        stem, _, irregular = token.partition(":")
        if stem.endswith("e"):
            forms = [stem, stem + "s", stem + "d", stem[:-1] + "ing"]
        elif stem.endswith(("s", "x", "z", "ch", "sh")):
            forms = [stem, stem + "es", stem + "ed", stem + "ing"]
        elif stem.endswith("y") and stem[-2] not in "aeiou":
            forms = [stem, stem[:-1] + "ies", stem[:-1] + "ied", stem + "ing"]
        else:
            forms = [stem, stem + "s", stem + "ed", stem + "ing"]
        out += forms + [f for f in irregular.split(",") if f]
    return tuple(dict.fromkeys(out))


def words_re(words: tuple[str, ...] | list[str]) -> str:
    """A regular expression matching any of ``words`` (longest first) as whole words."""
    return r"\b(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)) + r")\b"


#: physical processes no track-based instrument measures, by class: breaking and deforming; heat and chemistry;
#: fluids; rotation and oscillation; change of size; light and magnetism; handling (pressing, covering, holding)
DEFORMING = verb_forms(
    "break:broke,broken shatter smash crack crumble collapse crush squash squeeze compress crumple deform dent "
    "bend:bent stretch twist fold tear:tore,torn rip:ripped,ripping puncture pop:popped,popping burst explode "
    "cut:cutting slice chop:chopped,chopping split:splitting shred flatten squish scratch peel melt "
    "burn:burnt dissolve evaporate inflate deflate expand shrink:shrank,shrunk swell grow:grew,grown")
JUDGED_PROCESSES = DEFORMING + verb_forms(
    "freeze:froze,frozen boil ignite condense heat cool warm glow oxidize oxidise corrode rust react sublimate "
    "solidify liquefy char:charred scorch smoke steam "
    "pour spill splash flow drip:dripped,dripping leak spray squirt mix stir:stirred,stirring blend combine soak absorb "
    "fill empty drain spread scatter disperse ooze seep bubble foam fizz ripple erupt dispense "
    "spin:spun,spinning rotate twirl swing:swung sway oscillate vibrate wobble shake:shook,shaken "
    "reflect refract attract repel:repelled,repelling magnetize magnetise shine:shone "
    "press rub:rubbed,rubbing scrape scoop apply dip:dipped,dipping immerse submerge cover wrap drape "
    "hang:hung suspend hold:held catch:caught grab grasp place put:putting insert stick:stuck attach tilt "
    "float emit:emitted,emitting add:added extract propel:propelled,propelling knead mold mould sculpt "
    "stain paint wipe wash clean cook bake fry:fried toast erode decay ferment sprout bloom wilt accelerate "
    "decelerate") + (
    "transformation", "transformations", "reaction", "reactions", "oxidation", "corrosion", "combustion",
    "erosion", "condensation", "evaporation", "sublimation", "explosion", "deformation", "reflection",
    "refraction", "shadow", "shadows", "temperature", "pressure", "friction", "turns into", "turn into",
    "turned into", "changes shape", "change shape", "changes colour", "changes color", "change color",
    "change colour", "changes state", "slows down", "slow down", "speeds up", "speed up", "sets fire", "catches fire", "caught fire", "on fire", "goes out")
JUDGED_PROCESS_RE = re.compile(words_re(JUDGED_PROCESSES))
DEFORMING_RE = re.compile(words_re(DEFORMING))
#: verbs and words of motion, contact, rest and force (the rules planner's instrumented events among them)
MOTION_AND_FORCE = verb_forms(
    "fall:fell,fallen drop:dropped,dropping tumble plummet plunge throw:threw,thrown toss lob:lobbed launch "
    "fly:flew,flown kick hit:hitting strike:struck knock bump crash collide slam:slammed,slamming bounce rebound "
    "roll slide:slid glide skid:skidded,skidding land topple tip:tipped,tipping rest settle stop:stopped,stopping "
    "halt hover levitate move travel:travelled,travelling swim:swam,swimming skate walk run:ran,running "
    "drive:drove,driven ride:rode,ridden crawl sail paddle jump leap:leapt hop:hopped,hopping climb descend "
    "ascend accelerate decelerate pass penetrate balance stack stand:stood sit:sat,sitting lie:lay,lying lean "
    "support remain stay release lower raise lift rise:rose,risen sink:sank,sunk push pull shove nudge flick "
    "touch reach hurl fling:flung drift race speed:sped dash sprint march jog:jogged,jogging trot gallop "
    "wander approach recede chase") + (
    "collision", "impact", "gravity", "momentum", "force", "weight", "motionless", "still", "stationary",
    "upright", "mid-air", "midair")
PHYSICAL_WORD_RE = re.compile(words_re(JUDGED_PROCESSES + MOTION_AND_FORCE))


def lower(text: str) -> str:
    """``text`` lower-cased character for character (a character whose lower case is longer, like "İ", is kept) and
    with typographic apostrophes made plain, so offsets into the result are offsets into ``text``."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text).replace("\u2019", "'")


@dataclass(frozen=True)
class ClauseSpan:
    """One clause of a prompt: ``[start, end)`` character offsets, the connective that opened it (None after
    a comma or sentence start) and the index of its sentence."""

    start: int
    end: int
    connective: str | None
    sentence: int


CONNECTIVES = [("only after that", "before"), ("after that", "before"), ("ahead of", "before"),
               ("earlier than", "before"), ("sooner than", "before"), ("later than", "after"),
               ("as soon as", "during"), ("and then", "before"), ("then", "before"), ("before", "before"),
               ("after", "after"), ("afterwards", "before"), ("while", "during"), ("when", "during"),
               ("as", "during"), ("until", "before"), ("and", None), ("but", None)]
CONNECTIVE_KIND = dict(CONNECTIVES)
CONNECTIVE_RE = re.compile(r"(?P<stop>[.;!?]+(?=\s|$)|[,:])|(?<![\w'])(?P<c>"
                           + "|".join(re.escape(c) for c, _ in CONNECTIVES) + r")(?![\w'])")
#: connective words that are not connectives here ("one after another", "as well as", "the ball and the cube")
NOT_CONNECTIVE_RE = re.compile(r"(?:one|each|the other)\s+after\s+(?:another|the other|one)|\bas\s+(?:soon|well|if|"
                               r"though)\b|\bsoon\s+as\b|\bday\s+after\b|\bafter\s+day\b")


def clauses(low: str) -> list[ClauseSpan]:
    """Cut a lower-cased prompt into clauses (see the module docstring); empty clauses are dropped."""
    out: list[ClauseSpan] = []
    start, conn, sentence = 0, None, 0
    skip = [(m.start(), m.end()) for m in NOT_CONNECTIVE_RE.finditer(low)]
    for m in CONNECTIVE_RE.finditer(low):
        if m.group("c") in ("as", "after") and any(a <= m.start() < b for a, b in skip):
            continue
        if m.group("c") and conn is not None and start == m.start():
            both = f"{conn} {m.group('c')}"
            conn = both if both in CONNECTIVE_KIND else m.group("c")
            start = m.end()
            continue
        if low[start:m.start()].strip():
            out.append(ClauseSpan(start, m.start(), conn, sentence))
            conn = None
        if m.group("stop") is not None:
            if re.match(r"[.;!?]", m.group("stop")):
                sentence += 1
                conn = None
        else:
            conn = m.group("c")
        start = m.end()
    if start < len(low) and low[start:].strip():
        out.append(ClauseSpan(start, len(low), conn, sentence))
    return out
