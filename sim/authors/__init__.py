"""Authors revise a physics request's free parameters: ``numeric`` (SciPy, offline default) and ``llm``
(any OpenAI-compatible endpoint, with a fallback author). Chosen by the ``author`` config group."""

from sim.authors.base import Attempt, Author, Proposal, objective_vector
from sim.authors.llm import LLMAuthor
from sim.authors.numeric import NumericAuthor

__all__ = ["Attempt", "Author", "LLMAuthor", "NumericAuthor", "Proposal", "objective_vector"]
