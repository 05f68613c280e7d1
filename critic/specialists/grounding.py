"""Binding the plan's subjects to tracks, all at once and one to one.

Every singular subject of the plan ("the green ball", "a cylinder") is assigned to a different identity by
``scipy.optimize.linear_sum_assignment`` on a cost that adds, per (subject, identity):

* colour: ``colour.colour_cost`` of the identity's median colour to the subject's named colour (and shade:
  "dark green"), when the prompt names one; a colour the name does not fit (cost over ``max_colour_cost``)
  cannot be assigned at all;
* shape: a prior of the noun: round nouns (ball, sphere, ...) want a blob whose box is about square; elongated
  nouns (domino, plank, pole, ...) one at least 1.5 times longer than wide;
* size: "small" / "large" want the smallest / largest candidate (log radius relative to the extremes);
* motion and presence: objects the prompt talks about are mostly the ones that move and stay in view, so a
  still or briefly seen identity costs a little more; a subject the prompt holds at rest over the clip
  (``SubjectSpec.at_rest``: "a blue can stays where it is") is the other way round, and an identity that travels
  costs it more (a body that stays where it is does not cross the picture); one that travels without showing the
  named colour plainly (within ``sure_colour_cost``) cannot be it at all: a mover of a near colour, a teal ball on
  a blue floor or a dark red ball for a brown can, is another body, and the subject, left unbound, is looked for by
  its colour alone (a body held at rest that is lifted or knocked away still shows its own colour).

Each subject may also stay unbound (a dummy column at ``unbound_cost``). The binding of a subject is firm when the
best assignment beats the best one that gives that subject any other identity (or none) by ``min_margin``, or when
it beats every assignment that gives the subject another identity by that margin and its identity shows the named
colour plainly (so named, within ``sure_colour_cost``): being absent is then no rival; otherwise the subject is
bound to its best identity but marked not firm, with the margin and the number of identities within it, and the
measurements on it come back unknown with that reason.

Plural subjects ("dominoes", "three green balls") take every identity left after the singular subjects whose colour
is nearest to their colour among the plan's colours (or, with no colour, the identities that move: bound not
firmly when more of them are left than the prompt counts, since motion alone does not tell which). An uncoloured
plural with nothing but specks left ("two balls ... and one red ball" over a clip of one ball) takes the singular
subjects of its kind, when all of them are firmly bound and nothing else but specks is left: they are all the
bodies of that kind the clip shows (binding ``by="kin"``, which counting reads as an upper bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from critic.planners.lexicon import kind_of
from critic.specialists import colour as colours
from critic.types import SubjectSpec, Track

#: nouns whose instances look round in any view
ROUND_NOUNS = frozenset("ball sphere marble orange apple balloon bubble globe pea bead pearl planet moon sun "
                        "puck coin wheel tire tyre ring donut disc disk".split())
#: nouns whose instances are much longer than wide in most views
ELONGATED_NOUNS = frozenset("domino plank stick rod pole pencil bar board beam pipe tube bat cane straw needle "
                            "cylinder bottle candle pillar column post log ruler".split())
SHADES = ("dark", "light", "pale", "bright", "deep")
SMALL_WORDS = ("small", "little", "tiny", "smaller")
LARGE_WORDS = ("large", "big", "huge", "larger", "bigger", "giant")
#: an assignment entry that is not allowed
FORBIDDEN = 1e6


@dataclass(frozen=True)
class Candidate:
    """One identity as grounding sees it: its track, median colour (sRGB), median box aspect (long / short
    side), radius (px), travel (radii between the extremes of its path) and the share of frames it is seen."""

    track: Track
    rgb: np.ndarray
    aspect: float
    radius: float
    travel: float
    seen: float


def box_aspect(track: Track) -> float:
    """Median long / short side of ``track``'s box over the frames it is seen (not coasted); 1 when never seen."""
    vis = np.asarray(track.visible, bool) & ~np.asarray(track.coasted, bool)
    boxes = np.asarray(track.boxes_xyxy, float)[vis]
    if not len(boxes):
        return 1.0
    w, h = boxes[:, 2] - boxes[:, 0] + 1.0, boxes[:, 3] - boxes[:, 1] + 1.0
    return float(np.median(np.maximum(w, h) / np.maximum(np.minimum(w, h), 1.0)))


def describe(track: Track, rgb: np.ndarray) -> Candidate:
    """The features of ``track`` (one identity) that grounding compares with a subject."""
    vis = np.asarray(track.visible, bool) & ~np.asarray(track.coasted, bool)
    aspect = box_aspect(track)
    cents = np.asarray(track.centroid_px)[vis]
    radius = float(track.radius_px) if np.isfinite(track.radius_px) else 0.0
    travel = float(np.linalg.norm(cents.max(0) - cents.min(0)) / radius) if len(cents) > 1 and radius > 0 else 0.0
    return Candidate(track=track, rgb=np.asarray(rgb, float), aspect=aspect, radius=radius, travel=travel,
                     seen=float(vis.mean()) if vis.size else 0.0)


def subject_shade(subject: SubjectSpec, prompt: str) -> str | None:
    """The shade word ("dark", "light", ...) in the subject's span of the prompt, if any."""
    if not subject.span or not prompt:
        return None
    words = prompt[subject.span[0]:subject.span[1]].lower().replace("-", " ").split()
    return next((w for w in words if w in SHADES), None)


@dataclass(frozen=True)
class Weights:
    """Weights of the cost terms and the decision thresholds (all in units of one colour-name step)."""

    colour: float = 2.0
    shape: float = 0.6
    size: float = 0.6
    still: float = 0.35
    #: what an identity that travels costs a subject the prompt holds at rest (``SubjectSpec.at_rest``)
    moving: float = 0.6
    unseen: float = 0.6
    tiny: float = 1.0
    max_colour_cost: float = 1.0
    unbound_cost: float = 1.5
    min_margin: float = 0.25
    min_travel_radii: float = 1.5
    #: a candidate within this colour cost of the named colour is that subject when no other candidate comes
    #: within ``min_margin`` of it (its only rival is the subject being absent)
    sure_colour_cost: float = 0.35


def shape_cost(noun: str, cand: Candidate) -> float:
    """0 when the identity's box fits the noun's shape prior, up to 1 when it clearly does not."""
    noun = noun.lower()
    if noun in ROUND_NOUNS:
        return float(np.clip((cand.aspect - 1.25) / 0.5, 0.0, 1.0))
    if noun in ELONGATED_NOUNS:
        return float(np.clip((1.5 - cand.aspect) / 0.4, 0.0, 1.0))
    return 0.0


def size_cost(size: str | None, cand: Candidate, radii: np.ndarray) -> float:
    """0 for the smallest (``size`` small) or largest (large) candidate, 1 for one at the other extreme."""
    if size not in SMALL_WORDS + LARGE_WORDS or len(radii) < 2 or cand.radius <= 0:
        return 0.0
    lo, hi = math.log(max(radii.min(), 1e-3)), math.log(max(radii.max(), 1e-3))
    if hi - lo < 1e-6:
        return 0.0
    pos = (math.log(cand.radius) - lo) / (hi - lo)
    return float(1.0 - pos if size in LARGE_WORDS else pos)


def specks(cands: list[Candidate], w: Weights = Weights()) -> np.ndarray:
    """(N,) bool: the candidates much smaller (under 0.35 of the radius) than the largest one that moves (or the
    largest, when none moves): texture flicker or parts of a body, not the objects a prompt names."""
    radii = np.array([c.radius for c in cands])
    if not radii.size:
        return np.zeros(0, bool)
    movers = radii[[c.travel >= w.min_travel_radii for c in cands]]
    return radii < 0.35 * (movers.max() if movers.size else radii.max())


def cost_matrix(subjects: list[SubjectSpec], cands: list[Candidate], prompt: str,
                w: Weights = Weights()) -> np.ndarray:
    """(S, N) cost of binding each subject to each candidate; ``FORBIDDEN`` where the named colour does not
    fit at all."""
    cost = np.zeros((len(subjects), len(cands)))
    if not cands:
        return cost
    rgb = np.stack([c.rgb for c in cands])
    radii = np.array([c.radius for c in cands])
    tiny = specks(cands, w)
    for i, s in enumerate(subjects):
        shade = subject_shade(s, prompt)  # read from the prompt once per subject (every candidate uses it)
        if colours.known(s.color):
            cc = colours.colour_cost(rgb, s.color, shade)
            cost[i] += w.colour * cc
            cost[i, cc > w.max_colour_cost] = FORBIDDEN
        else:
            cost[i] += w.tiny * tiny
        # a size word ranks the candidates that can be this subject at all (of its colour), not every blob
        feasible = radii[(cost[i] < FORBIDDEN) & ~(tiny & (not colours.known(s.color)))]
        for j, c in enumerate(cands):
            cost[i, j] += w.shape * shape_cost(s.noun, c) + w.size * size_cost(s.size, c, feasible)
            travels = c.travel >= w.min_travel_radii
            cost[i, j] += (w.moving * travels if s.at_rest else w.still * (not travels)) + w.unseen * (1.0 - c.seen)
            if s.at_rest and travels and colours.known(s.color) and \
                    not _shows_colour(c.rgb, s.color, shade, w.sure_colour_cost):
                # a body the prompt holds at rest that crosses the picture (lifted, knocked away) still shows its
                # colour plainly; a mover of a near colour (a dark red ball for a brown can) is another body, and
                # would take the subject the median background holds (found by its colour alone instead)
                cost[i, j] = FORBIDDEN
    return cost


def assign(cost: np.ndarray, w: Weights = Weights()
           ) -> tuple[list[int | None], list[float], list[int], list[float]]:
    """One-to-one assignment of S subjects (rows) to N candidates (columns), each subject free to stay unbound
    at ``w.unbound_cost``. Returns per subject: the candidate index or None, the margin (how much more the best
    assignment costs when this subject may not take its candidate; inf when nothing else is possible), how
    many candidates cost within ``w.min_margin`` of its own (its rivals, itself included), and the margin over
    the other candidates alone (the subject may then neither take its candidate nor stay unbound; inf when no
    other candidate can be it)."""
    s_count, n_count = cost.shape
    if s_count == 0:
        return [], [], [], []
    full = np.full((s_count, n_count + s_count), FORBIDDEN)
    full[:, :n_count] = cost
    full[np.arange(s_count), n_count + np.arange(s_count)] = w.unbound_cost

    def solve(c: np.ndarray) -> tuple[np.ndarray, float]:
        rows, cols = linear_sum_assignment(c)
        return cols[np.argsort(rows)], float(c[rows, cols].sum())

    cols, total = solve(full)
    picks: list[int | None] = [int(c) if c < n_count and full[i, c] < FORBIDDEN else None
                               for i, c in enumerate(cols)]
    margins, rivals, rival_margins = [], [], []
    for i, pick in enumerate(picks):
        if pick is None:
            margins.append(0.0)
            rivals.append(0)
            rival_margins.append(0.0)
            continue
        alt = full.copy()
        alt[i, pick] = FORBIDDEN
        _, alt_total = solve(alt)
        margins.append(float("inf") if alt_total >= FORBIDDEN else alt_total - total)
        alt[i, n_count + i] = FORBIDDEN
        _, other_total = solve(alt)
        rival_margins.append(float("inf") if other_total >= FORBIDDEN else other_total - total)
        ok = cost[i] < FORBIDDEN
        rivals.append(int(np.sum(ok & (cost[i] <= cost[i, pick] + w.min_margin))))
    return picks, margins, rivals, rival_margins


def plural_members(subject: SubjectSpec, cands: list[Candidate], free: list[int], plan_colours: list[str],
                   prompt: str, w: Weights = Weights()) -> list[int]:
    """Indices (of ``free``) of the candidates a plural subject takes: with a colour, those whose colour is
    nearest to it among the plan's colours and fits it; without, those that move (or every one when none
    moves)."""
    if not free:
        return []
    if colours.known(subject.color):
        rgb = np.stack([cands[j].rgb for j in free])
        mine = colours.colour_cost(rgb, subject.color, subject_shade(subject, prompt))
        others = [colours.colour_cost(rgb, c) for c in plan_colours if c.lower() != subject.color.lower()]
        best_other = np.min(np.stack(others), axis=0) if others else np.full(len(free), np.inf)
        return [j for j, m, o in zip(free, mine, best_other) if m <= w.max_colour_cost and m <= o]
    moving = [j for j in free if cands[j].travel >= w.min_travel_radii]
    pool = moving or list(free)
    biggest = max(cands[j].radius for j in pool)
    return [j for j in pool if cands[j].radius >= 0.35 * biggest]


def moves_with(part: Candidate, body: Candidate, w: Weights = Weights(), min_common: int = 4) -> bool:
    """Is ``part`` a piece of ``body``'s object: over the frames both are seen (``min_common`` or more, most of
    ``part``'s), its box touches or overlaps ``body``'s (within 2 px) and it keeps its place relative to it (within
    half ``body``'s radius and a pixel), in four of five of those frames, while both travel ``w.min_travel_radii``
    or more? Two bodies at rest side by side also keep their places; only moving together shows one object."""
    a, b = part.track, body.track
    seen_a = np.asarray(a.visible, bool) & ~np.asarray(a.coasted, bool)
    both = seen_a & np.asarray(b.visible, bool) & ~np.asarray(b.coasted, bool)
    if both.sum() < max(min_common, 0.6 * seen_a.sum()) or min(part.travel, body.travel) < w.min_travel_radii:
        return False
    ba, bb = np.asarray(a.boxes_xyxy)[both], np.asarray(b.boxes_xyxy)[both]
    gap = np.maximum(np.maximum(ba[:, 0] - bb[:, 2], bb[:, 0] - ba[:, 2]),
                     np.maximum(ba[:, 1] - bb[:, 3], bb[:, 1] - ba[:, 3]))
    offset = np.asarray(a.centroid_px)[both] - np.asarray(b.centroid_px)[both]
    drift = np.linalg.norm(offset - np.median(offset, axis=0), axis=1)
    # in four of five common frames (the frames where either blob is being re-segmented are off)
    return bool(np.mean(gap <= 2.0) >= 0.8 and np.mean(drift <= 0.5 * body.radius + 1.0) >= 0.8)


def handed_over(cands: list[Candidate], pick: int, others: list[int], *, end_margin: int = 3) -> str:
    """Why the identity ``pick`` may hand its object over to another ("" when it does not): it stops being seen
    away from the image border before the clip ends while another candidate that fits the subject as well is
    seen after it, first seen after the end where the object was heading (an object that merged with another
    blob or was split by the tracker); a candidate elsewhere in the picture is another body, not this one."""
    vis = np.flatnonzero(np.asarray(cands[pick].track.visible))
    if not vis.size:
        return ""
    t_count, last = len(cands[pick].track.visible), int(vis[-1])
    if last >= t_count - end_margin or bool(cands[pick].track.touches_border[last]):
        return ""
    later = [j for j in others if np.flatnonzero(np.asarray(cands[j].track.visible))[-1] > last + end_margin
             and _could_carry_on(cands[pick], last, cands[j])]
    if not later:
        return ""
    return (f"its track ends at frame {last} inside the image while {len(later)} other candidate track(s) that "
            "fit it as well go on (the object may continue as another track)")


def _could_carry_on(body: Candidate, last: int, other: Candidate, reach_radii: float = 3.0) -> bool:
    """Could ``other`` be ``body`` going on after ``body``'s track ends at frame ``last``: where ``other`` is first
    seen after it, is it within ``reach_radii`` of ``body``'s radii of where ``body`` was heading (its last place
    carried on at its last velocity, half of that distance again as slack)? A blob the body merged into, or the
    tracker's new track of the same body, begins next to it; another body elsewhere in the picture does not."""
    a, b = body.track, other.track
    seen_a = np.asarray(a.visible, bool)
    after = np.flatnonzero(np.asarray(b.visible, bool) & (np.arange(len(seen_a)) > last))
    if not after.size:
        return False
    k = int(after[0])
    vel = (a.centroid_px[last] - a.centroid_px[last - 1]) if last > 0 and seen_a[last - 1] else np.zeros(2)
    heading = a.centroid_px[last] + vel * (k - last)
    gap = float(np.linalg.norm(b.centroid_px[k] - heading))
    return gap <= reach_radii * body.radius + 0.5 * float(np.linalg.norm(vel)) * (k - last)


def _shows_colour(rgb: np.ndarray, name: str, shade: str | None, max_cost: float) -> bool:
    """Is the sRGB colour ``rgb`` (3,) plainly ``name``: a person would name it so (by the name or by one of its
    finer shades, ``colours.shades_of``: a magenta ball is a purple one to many), and its cost is under
    ``max_cost``? (Names next to each other in hue, purple and blue, cost little against each other.)"""
    return colours.name_colour(rgb[None])[0] in colours.shades_of(name) \
        and float(colours.colour_cost(rgb[None], name, shade)[0]) <= max_cost


def identifying(subject: SubjectSpec) -> bool:
    """Whether the subject carries evidence that tells objects apart: a known colour, a noun with a shape prior
    or a size word (motion and presence alone do not: any moving blob could be it)."""
    noun = subject.noun.lower()
    return colours.known(subject.color) or noun in ROUND_NOUNS or noun in ELONGATED_NOUNS or \
        subject.size in SMALL_WORDS + LARGE_WORDS


def ground_subjects(subjects: list[SubjectSpec], cands: list[Candidate], prompt: str, plural: dict[str, bool],
                    w: Weights = Weights()) -> dict[str, tuple[list[int], dict[str, Any]]]:
    """Bind every subject: name -> (indices of its candidates, binding evidence for ``Track.meta["binding"]``).

    Singular subjects are assigned one to one (module doc); plural subjects then take the identities left."""
    singular = [s for s in subjects if not plural.get(s.name)]
    cost = cost_matrix(singular, cands, prompt, w)
    picks, margins, rivals, rival_margins = assign(cost, w)
    # a candidate that moves with the one a subject took is a part of the same body (a cube's faces shaded apart
    # by the segmentation): no rival for that subject
    parts = False
    for i, pick in enumerate(picks):
        if pick is None or margins[i] >= w.min_margin:
            continue
        for j in range(len(cands)):
            if j != pick and cost[i, j] < FORBIDDEN and moves_with(cands[j], cands[pick], w):
                cost[i, j] = FORBIDDEN
                parts = True
    if parts:
        picks, margins, rivals, rival_margins = assign(cost, w)
    out: dict[str, tuple[list[int], dict[str, Any]]] = {}
    taken = set()
    rgb = np.stack([c.rgb for c in cands]) if cands else np.zeros((0, 3))
    for i, (s, pick, margin, rival, rival_margin) in enumerate(zip(singular, picks, margins, rivals, rival_margins)):
        if pick is None:
            out[s.name] = ([], {"by": "assignment", "candidates": 0, "confident": True, "doubt": ""})
            continue
        taken.add(pick)
        by = "color" if colours.known(s.color) else "shape/size"
        firm = margin >= w.min_margin
        if not firm and colours.known(s.color) and rival_margin >= w.min_margin:
            # the only close alternative is that the subject is not in the clip at all; a candidate of just the
            # named colour settles that, however briefly seen, still or oddly shaped it is (those costs rank
            # candidates against each other, not against absence)
            firm = _shows_colour(rgb[pick], s.color, subject_shade(s, prompt), w.sure_colour_cost)
        near = [j for j in range(len(cands)) if j != pick and j not in picks
                and cost[i, j] <= cost[i, pick] + 2 * w.min_margin]
        handed = handed_over(cands, pick, near)
        if not identifying(s):
            # nothing but motion and presence tells the candidates apart: a still blob is no evidence of a
            # subject that has no colour, shape or size to find it by (it may be any part of the scenery)
            firm = firm and cands[pick].travel >= w.min_travel_radii
            by = "motion"
        why = f"(colour {s.color or 'not named'}, noun '{s.noun}', size and motion)"
        # with no other track as close, the runner-up is the subject being absent, or another subject taking its track
        doubt = "" if firm else (f"{rival} candidate tracks fit within a cost margin of {margin:.2f} {why}" if rival > 1
                                 else f"its one fitting track wins by only {margin:.2f} over the next best binding "
                                 f"(the subject absent, or another subject on that track) {why}")
        if handed:
            firm, doubt = False, "; ".join(d for d in (doubt, handed) if d)
        evidence = {"by": by, "candidates": int(rival), "confident": bool(firm), "doubt": doubt,
                    "margin": round(min(margin, 99.0), 3), "cost": round(float(cost[i, pick]), 3)}
        if not firm:
            # what else the subject may be: every other candidate that fits it within the margin (another
            # subject's pick included: a swap is as open as any other choice), or nothing in the clip at all
            evidence["rivals"] = [j for j in range(len(cands)) if j != pick
                                  and cost[i, j] <= cost[i, pick] + 2 * w.min_margin]
            evidence["absent_fits"] = bool(w.unbound_cost <= cost[i, pick] + 2 * w.min_margin)
        out[s.name] = ([pick], evidence)
    plan_colours = [s.color for s in subjects if colours.known(s.color)]
    free = [j for j in range(len(cands)) if j not in taken]
    for s in subjects:
        if not plural.get(s.name):
            continue
        members = plural_members(s, cands, free, plan_colours, prompt, w)
        by = "color" if colours.known(s.color) else "motion"
        evidence: dict[str, Any] = {"by": by, "candidates": len(members), "confident": True, "doubt": ""}
        if by == "motion" and s.count and len(members) > s.count:
            # more movers left than the prompt counts, and nothing but motion to choose by: some of them are other
            # bodies (a named one's second tracklet, a piece, a shadow), and which is not known
            evidence.update(confident=False, doubt=f"{len(members)} moving identities left for {s.count} "
                            f"'{s.noun}', found by motion alone: which of them are the {s.noun}s is not known")
        kin = _named_kin(s, singular, picks, out, cands, free, w)
        if kin is not None:  # what was left is specks at most
            members, evidence = kin
        out[s.name] = (members, evidence)
    return out


def _named_kin(plural: SubjectSpec, singular: list[SubjectSpec], picks: list[int | None],
               bound: dict[str, tuple[list[int], dict[str, Any]]], cands: list[Candidate], free: list[int],
               w: Weights) -> tuple[list[int], dict[str, Any]] | None:
    """An uncoloured plural ("two balls") with nothing left to take: the bodies of its kind are then the singular
    subjects of that kind the prompt names ("... and one red ball"), when each of them is firmly bound and no other
    identity in the clip could be one (none left over but :func:`specks`). -> (their candidates, binding evidence
    ``by="kin"``: all the bodies of that kind that the clip shows), or None."""
    if colours.known(plural.color):
        return None
    kind = kind_of(plural.noun)
    kin = [(s, p) for s, p in zip(singular, picks) if s.noun.lower() in kind]
    if not kin or any(p is None or not bound[s.name][1].get("confident") for s, p in kin):
        return None
    speck = specks(cands, w)
    if any(not speck[j] for j in free):
        return None  # another body the clip shows could be one of them
    members = [int(p) for _, p in kin]
    return members, {"by": "kin", "candidates": len(members), "confident": True, "doubt": "",
                     "kin": [s.name for s, _ in kin]}
