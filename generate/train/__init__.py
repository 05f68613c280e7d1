"""Train the tiny Wan VACE generator on the project's own simulated clips (``python -m generate.train``).

Stages, each resumable from the checkpoint in ``workdir`` (re-run with ``workdir=<that folder>`` to resume):

1. **data**: render the training clips (:class:`generate.data.ClipDataset`; cached, written once).
2. **vae** (:mod:`generate.train.vae`): train ``AutoencoderKLWan`` as an autoencoder on full-length clips (all
   T frames, so every latent frame position is seen, including the late ones), squared error with the ball's
   pixels weighted up (the ball is a few dozen pixels of a 64x64 frame: with L1, or unweighted, the decoder
   settles on the background, the per-pixel median, for hundreds of steps and the ball vanishes), plus a small
   KL term. The decoder sees the posterior mean (sampling it at the initial unit variance drowned the signal
   and stalled training on a CPU budget); the pipeline encodes with the mode too. Then the latent normalisation
   (``latents_mean`` / ``latents_std`` in the VAE config, as Wan keeps them) is measured on the data set.
3. **encode** (:mod:`generate.train.encode`): every clip once through the frozen VAE and text encoder: clean
   video latents (T' = (T-1)/t+1 latent frames, t the VAE's temporal factor), the control latents prepared
   exactly as ``WanVACEPipeline`` prepares them (the control replicated to RGB, an all-white mask, inactive +
   reactive latents and the folded mask), and the prompt tokens (the configured tokenizer, padded to
   ``max_sequence_length`` like the pipeline; with a frozen text encoder also their embeddings through the tiny
   UMT5 at its seeded initialisation).
4. **transformer** (:mod:`generate.train.transformer`): ``WanVACETransformer3DModel`` with the rectified-flow
   objective of Wan: x_t = (1 - s) x_0 + s e, target e - x_0, timestep 1000 s, s drawn from the shifted
   distribution the sampler uses. Per-sample control dropout (the VACE hints of a sample are scaled by 0: the
   same arithmetic as the probe's skip path), so the same weights generate with and without control, and prompt
   dropout (empty prompt) for guidance. Optionally (``train_text_encoder``) the tiny text encoder learns with
   it. An exponential moving average of the weights is what ships.
5. **export** (:mod:`generate.train.export`, :mod:`generate.train.card`): a diffusers ``WanVACEPipeline``
   directory (safetensors; tokenizer saved) plus ``MODEL_CARD.md``; copied to ``export_dir`` when set
   (``generate/pretrained`` for the shipped model).

:func:`generate.train.run.run_training` runs the stages in order; the stage settings are
:mod:`generate.train.config` (``conf/train/*``); the command line is :mod:`generate.train.__main__`.

Everything runs on the CPU with one thread and is deterministic for a seed: every random draw of step k comes
from a generator seeded with (seed, stage, k) (:mod:`generate.train.steps`), so a resumed run takes the same
path as an uninterrupted one.
"""
