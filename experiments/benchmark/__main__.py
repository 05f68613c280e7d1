"""``python -m experiments.benchmark VERB [HYDRA OVERRIDES]``: the critic benchmark's commands.

Verbs (each a Hydra app with its own config, ``conf/benchmark_<verb>.yaml``):

* ``build``: render the annotated defect corpus (clips + ``annotations.jsonl``), resumable, in shards;
* ``critique``: run a critic configuration over the corpus, resumable, in shards;
* ``score``: score one or more critique runs against the annotations (tables, figures, per-clip pages).

Multirun shards spread over a cluster with ``hydra/launcher=submitit_slurm``, e.g.
``python -m experiments.benchmark build -m shard=0,1,2,3 num_shards=4``.
"""

from __future__ import annotations

import importlib
import sys

from veriphy.hydra_app import take_verb

VERBS = ("build", "critique", "score")


def main(argv: list[str] | None = None) -> None:
    verb, args = take_verb(VERBS, __doc__, argv)
    # Hydra reads sys.argv: hand it the overrides without the verb.
    sys.argv = [f"{sys.argv[0]} {verb}", *args]
    importlib.import_module(f"experiments.benchmark.{verb}").main()


if __name__ == "__main__":
    main()
