"""The field's suites (VideoPhy-2, VBench-2.0, DSG-1k, Physics-IQ) in and out of the critic: their rows as the
critic's batch manifest with the suite's expectations, the critic's verdicts as their labels, the agreement with
labels that exist, and the planner's coverage of their prompts. ``python -m critic.suites`` is the command line;
each suite is a ``_target_`` in ``conf/suite/``."""
