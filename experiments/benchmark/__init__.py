"""The critic benchmark: an annotated defect corpus, the scorer, baselines and ablations over it."""
