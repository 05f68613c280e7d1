"""A planned defect: what to break, on which object, from which frame, with which numbers.

Both simulated pixel sources read the same :class:`DefectPlan`: PyBullet carries it out inside the simulation
(a held pose, a disabled collision pair, a flipped force, a reset position), the analytic source as an edit of
the simulated trajectory. The annotation is then computed from the clip's own recorded states.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Where an absent (vanished, not yet appeared) object is parked: far behind the back wall and under the floor.
HIDDEN_POSITION_M = (0.0, 40.0, -20.0)


@dataclass
class DefectPlan:
    category: str
    object: str
    start_frame: int = 0
    end_frame: int = -1                       # inclusive; -1: to the end of the clip
    other: str | None = None                  # the second body (static or object) where one is involved
    params: dict[str, float] = field(default_factory=dict)
    claim: str | None = None                  # prompt claim id this defect violates (None: the mention)
