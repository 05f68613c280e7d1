"""Correct clips nobody here made are never called contradicted: Physion's simulated scenes and a real
slow-motion ball drop (whose time base would make gravity look 16x weak)."""

from __future__ import annotations

import pytest

from critic.run import critique

TILES = "physion_neurips2021/tiles"
REAL = "real_clips/oliverius_gravity_ball_drop.mp4"

TILE_PROMPTS = {
    "dominoes": "A row of dominoes topples over one after another.",
    "drop": "A block falls onto the floor and comes to rest.",
    "roll": "A ball rolls down a ramp and across the floor.",
    "contain": "An object drops into a container.",
    "collide": "A ball rolls and collides with a block.",
    "support": "A block rests on top of a stack of blocks.",
    "link": "A chain of rings falls onto the floor.",
    "drape": "A cloth falls and drapes over a box.",
}


@pytest.mark.parametrize("tile", sorted(TILE_PROMPTS))
def test_physion_tiles_are_never_contradicted(components, external_clip, tile, tmp_path):
    v = critique(external_clip(f"{TILES}/{tile}.mp4"), TILE_PROMPTS[tile], components, tmp_path)
    assert v.verdict != "contradicted", [(c.text, c.state, c.reason) for c in v.claims if c.state == "contradicted"]


def test_real_slow_motion_drop_is_never_contradicted(components, external_clip, tmp_path):
    v = critique(external_clip(REAL), "A red ball is dropped and falls to the floor.", components, tmp_path)
    assert v.verdict != "contradicted", [(c.text, c.state, c.reason) for c in v.claims if c.state == "contradicted"]
    assert v.sanity.likely_slow_motion
    assert v.sanity.rotation_deg != 0


def test_real_drop_with_a_plain_prompt_is_not_contradicted_on_size(components, external_clip, tmp_path):
    """No colour word: several blobs move (the hand, the ball, reflections), so the ball is not bound firmly and
    a size change measured on whichever blob was picked cannot contradict the prompt."""
    v = critique(external_clip(REAL), "A ball is dropped, falls to the floor and bounces.", components, tmp_path)
    assert v.verdict != "contradicted", [(c.text, c.state, c.reason) for c in v.claims if c.state == "contradicted"]
    size = [c for c in v.claims if "size" in c.text]
    assert size and all(c.state != "contradicted" for c in size)
