"""Physically correct renders of every simulated scene (sim + control's RGB renderer) come back supported."""

from __future__ import annotations

import pytest

from critic.run import critique
from critic.video import context_from_arrays


SCENES = {
    "thrown_ball": "A red ball is thrown, bounces off the wall and lands on the floor.",
    "ramp": "An orange ball rolls down a ramp and falls onto the floor.",
    "dominoes": "A row of dominoes falls over one after another.",
    "collision": "A red ball rolls and hits a blue ball.",
}


def render(name: str, width: int = 212, height: int = 120):
    """Simulate the scene template's defaults and render RGB at a small size (the camera keeps its field of view)."""
    scenes = pytest.importorskip("sim.scenes")
    engine = pytest.importorskip("sim.engine")
    render_mod = pytest.importorskip("control.render")
    spec = getattr(scenes, name)()
    spec = spec.model_copy(update={"camera": spec.camera.model_copy(update={"width_px": width, "height_px": height})})
    traj = engine.simulate(spec)
    return render_mod.AnalyticRenderer(progress=False).render(spec, traj), spec


@pytest.mark.parametrize("scene", sorted(SCENES))
def test_correct_scene_render_is_supported(components, scene, tmp_path):
    out, spec = render(scene)
    video = context_from_arrays(out.rgb, spec.fps, name=scene)
    v = critique(scene, SCENES[scene], components, tmp_path, video=video)
    assert v.verdict == "supported", [(c.text, c.state, c.reason) for c in v.claims if c.state != "supported"]
    assert not v.packets
