"""The control video must have exactly the requested size (diffusers would pad it silently)."""

from __future__ import annotations

import pytest

from generate.pipeline import check_control, control_images
from veriphy.errors import UserError


def test_wrong_size_is_refused_with_both_sizes(pipe1, make_control_video, run_clip):
    control = make_control_video(9, 32, 32)
    with pytest.raises(UserError) as err:
        run_clip(pipe1, control, height=48, width=32, num_frames=9)
    msg = str(err.value)
    assert "32x32 px x 9 frames" in msg and "32x48 px x 9 frames" in msg
    with pytest.raises(UserError, match="17 frames"):
        check_control(pipe1, control, num_frames=17)


def test_sizes_the_model_cannot_make_are_refused(pipe1, make_control_video):
    with pytest.raises(UserError, match="multiples of 16"):
        check_control(pipe1, make_control_video(9, 40, 32))
    with pytest.raises(UserError, match="1 \\+ a multiple of 4"):
        check_control(pipe1, make_control_video(10, 32, 32))
    assert check_control(pipe1, make_control_video(5, 16, 48)) == (5, 16, 48)


def test_control_becomes_rgb_video_and_white_mask(make_control_video):
    import numpy as np

    control = make_control_video(5, 16, 32, kind="silhouette")
    video, mask = control_images(control)
    assert len(video) == len(mask) == 5
    arr = np.asarray(video[2])
    assert arr.shape == (16, 32, 3) and (arr == control.frames[2][..., None]).all()
    assert all(np.asarray(m).min() == 255 for m in mask)


def test_a_size_beyond_the_rotary_embedding_is_refused_before_encoding(pipe1, make_control_video):
    # Refused up front, naming the latent grid, instead of failing deep inside the transformer.
    limit = int(pipe1.transformer.config.rope_max_seq_len)
    too_wide = (limit + 1) * pipe1.vae_scale_factor_spatial * int(pipe1.transformer.config.patch_size[2])
    with pytest.raises(UserError, match="rotary embedding covers at most"):
        check_control(pipe1, make_control_video(5, 16, too_wide))
