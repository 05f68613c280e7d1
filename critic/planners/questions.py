"""The question baseline (Davidsonian scene graph style): yes/no questions per prompt atom, answered by the judge.

The prompt is cut into atoms the way the rules planner reads it: one entity atom per named object ("Is there a red
ball?") and one atom per explicit claim ("Does the video show: the ball bounces twice?"). Each atom becomes a
``judge`` operation; the judge specialist (a VLM behind an endpoint, ``critic/specialists=vlm_judge``) answers it,
and with no judge configured (``NoJudge``) every answer is unknown. No instrument measures anything, and nothing
physics presumes (implicit obligations) is asked unless ``physics_questions`` adds one question per object
("Does the red ball move in a physically plausible way?").

Cost: one judge model call per question when a VLM is configured. With the offline ``NoJudge`` no model is called,
but the executor still counts each dispatched question as one tool call.
"""

from __future__ import annotations

from typing import Any

from critic.plan import PlanError
from critic.planners.base import PlanBuilder, PlanResult
from critic.planners.rules import RulesPlanner
from critic.types import JudgeOp


class QuestionPlanner:
    """Yes/no questions per prompt atom (``entities``: one per named object; ``physics_questions``: one plausibility
    question per object)."""

    name = "questions"

    def __init__(self, entities: bool = True, physics_questions: bool = False, max_prompt_chars: int = 2000):
        self.entities = entities
        self.physics_questions = physics_questions
        self._atoms = RulesPlanner(implicit=(), max_prompt_chars=max_prompt_chars)

    def plan(self, prompt: str, lessons: list[Any] | None = None) -> PlanResult:
        atoms = self._atoms.plan(prompt).plan
        b = PlanBuilder(prompt)
        if atoms is None:
            return PlanResult(plan=None, rejected=("the prompt could not be cut into atoms",))
        for spec in atoms.subjects:
            name = b.add_subject(spec)
            if spec.span is None:
                continue
            b.noun_phrases.append(tuple(spec.span))
            phrase = prompt[spec.span[0]:spec.span[1]]
            phrase = phrase[:1].lower() + phrase[1:]  # "A red ball" asked mid-sentence
            if self.entities:
                self._ask(b, spec.span, [name], f"Is there {phrase} in the video?")
            if self.physics_questions:
                self._ask(b, spec.span, [name], f"Does {phrase} move in a physically plausible way?")
        for claim in atoms.claims:
            if claim.kind == "explicit":
                self._ask(b, claim.span, claim.subjects, f"Does the video show this: {claim.text}?", text=claim.text)
        try:
            return PlanResult(plan=b.build(self.name))
        except PlanError as exc:
            return PlanResult(plan=None, rejected=tuple(exc.reasons))

    @staticmethod
    def _ask(b: PlanBuilder, span: tuple[int, int], subjects: list[str], question: str, text: str | None = None) -> None:
        cid = b.claim(span, kind="explicit", subjects=list(subjects), text=text or question)
        check = b.op(JudgeOp, claim=cid, question=question)
        b.oblige(cid, check, "question", kind="instrument")
