"""The outward channel (``experiment=refine``): the critic's verdict on a clip drives an edit, the clip is
regenerated with the same seed and critiqued again.

* ``types``: the edit a channel proposes (:class:`~experiments.refine.types.EditSetting`) and the per-clip
  record (:class:`~experiments.refine.types.RefineRecord`, one line of ``records.jsonl``);
* ``edits``: the channels, each a Hydra ``_target_`` (``conf/refine/``): a prompt rewrite (rules, or an LLM
  behind an OpenAI-compatible endpoint) and a control edit (a later release step, or a re-simulated scene when
  the contradiction is in the control itself);
* ``job``: the Hydra job (``job=refine``): one (scene, prompt) cell over seeds and release steps;
* ``report``: every count recomputed from the per-clip records, with 95 % intervals, as a table (markdown +
  CSV) and a dumbbell figure (``python -m experiments.refine.report SWEEP_DIR``).

See docs/refine.md for the definitions (fired, improved, flipped, collateral, retention).
"""
