"""experiments: release-point sweeps, trajectory tracking and retention, figures, critic ablations, W&B.

Entry points: ``python -m experiments.run`` (Hydra app: sweeps and ablations), ``python -m experiments.figures
SWEEP_DIR``, ``python -m experiments.demo`` (``make demo``), ``python -m experiments.evaluate_tiny`` (the trained
tiny generator on held-out scenes). Only this package talks to W&B.
"""
