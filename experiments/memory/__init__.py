"""Memory M from the critic benchmark: distil lessons from missed flaws, gate them, measure what they change."""
