"""Evaluate the trained tiny generator on held-out simulated scenes (``python -m experiments.evaluate_tiny``).

Held-out scenes come from the same sampler as the training clips (:class:`generate.data.ClipDataset`) with a
different data seed, so no scene is shared. For every clip the ball is tracked with the critic's offline
tracker and scored with the release sweep's retention (Pearson correlation of tracked vs projected path per
axis, over the airborne window and after the first ground contact):

* **autoencoder ceiling**: the ground-truth clip encoded and decoded by the model's VAE (what the generator
  could at best reproduce);
* **release sweep**: one clip per release step i* (prefix-shared, :func:`generate.sweep.generate_release_sweep`),
  from i* = 0 (no control) to i* = N (control throughout), against sigma_rel;
* **without control** (i* = 0): whether the ball's mean sideways motion follows the prompt's direction.

Writes ``report.json`` (every clip's scores), ``report.md`` (the figures) and ``release_sweep.png`` into the
run directory; with ``card=PATH/MODEL_CARD.md`` also the card's measured section and ``PATH/evaluation/``. A
clip "passes" when r >= ``pass_threshold`` on both axes in the airborne window; an unmeasurable window counts as
a failure (and as r = 0 in means).

With ``vae_dir=DIR`` only the autoencoder ceiling of that ``AutoencoderKLWan`` directory is measured (a training
work folder's ``vae_final``), so a weak autoencoder is caught before the transformer stage is spent on it.

Thirty clips leave each figure uncertain by several points, so every mean comes with a 95 % percentile-bootstrap
interval over clips (``scipy.stats.bootstrap``, seeded by the evaluation's seed, so a report is the same on every
run) and every pass rate with a 95 % Wilson interval (``scipy.stats.binomtest``). Control throughout is also
broken down by scene kind (:func:`~experiments.evaluate_tiny.report.scene_kind`), which shows where the
control is lost.

Modules: :mod:`~experiments.evaluate_tiny.settings` (what to evaluate), :mod:`~experiments.evaluate_tiny.evaluate`
(the clips, tracked and scored), :mod:`~experiments.evaluate_tiny.scores` (figures over clips and their
intervals), :mod:`~experiments.evaluate_tiny.report` (the JSON report), :mod:`~experiments.evaluate_tiny.markdown`
(its tables), :mod:`~experiments.evaluate_tiny.plot` (the sweep figure), :mod:`~experiments.evaluate_tiny.card`
(the model card's measured section) and :mod:`~experiments.evaluate_tiny.__main__` (the command line, both
tasks).
"""
