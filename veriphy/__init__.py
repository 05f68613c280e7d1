"""veriphy: the neutral base every stage stands on, and that imports no stage.

* :mod:`veriphy.errors` - :class:`UserError` (``error: FILE: FIELD: REASON``, exit code 2).
* :mod:`veriphy.files` - deterministic JSON and NPZ files, atomic writes.
* :mod:`veriphy.hashing` - sha256 of bytes, files and JSON values.
* :mod:`veriphy.manifest` - a run directory's ``manifest.json`` (git sha, versions, artifact hashes).
* :mod:`veriphy.hydra_app` - what every Hydra entry point shares: the user-error guard, the run directory,
  the thread set-up.
* :mod:`veriphy.video` - the one PyAV codec: video and audio, both directions.

The dependency rule (``docs/architecture.md``): ``veriphy <- sim <- control <- generate <- critic <- experiments``;
the critic stands on this package alone.
"""
