"""generate stage: control-guided video generation with diffusers' WanVACEPipeline and the withdrawal probe.

Modules: ``models`` (generator builders: local Wan weights, tiny), ``tiny`` (tiny configs built in code),
``probe`` (transformer with a runtime control switch), ``pipeline`` (``generate_clip``), ``sweep``
(prefix-shared release sweep), ``schedulers``/``sigmas`` (UniPC flow sigmas and their table), ``io`` (clip files),
``data`` (the tiny model's training clips) and ``train`` (its training: ``python -m generate.train``).
"""
