"""Planners: prompt -> validated :class:`critic.types.Plan` (``rules``: offline, deterministic; ``llm``: any
OpenAI-compatible endpoint). Planners see the prompt only, never the clip."""

from critic.planners.base import PlanBuilder, Planner, PlanResult

__all__ = ["PlanBuilder", "Planner", "PlanResult"]
