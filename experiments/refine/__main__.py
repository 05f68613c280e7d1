"""``python -m experiments.refine SWEEP_DIR``: the refine report (``experiments.refine.report``)."""

import sys

from experiments.refine.report import main

sys.exit(main())
