"""The benchmark corpus builder on its tiny slice (``size=tiny``: 7 clips from all four pixel sources).

Built in-process through Hydra's compose API (the generator's torch import is paid once): a two-shard build and a
one-shard build must give the same bytes; deleting one clip and building again rebuilds only that clip, with the
same result; every annotation validates, its spans match its prompt and its windows lie inside its clip.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from experiments.benchmark import build, severity
from experiments.benchmark.prompts import ClauseSpec, assemble
from experiments.benchmark.types import DEFECT_CATEGORIES, ClipAnnotation
from veriphy.errors import UserError
from veriphy.video import decode_video

REPO = Path(__file__).resolve().parents[3]


def _cfg(out_dir: Path, *overrides: str):
    with initialize_config_dir(config_dir=build.CONF_DIR, version_base="1.3"):
        return compose("benchmark_build", overrides=["size=tiny", f"out_dir={out_dir}",
                                                     f"sources.external.external_dir={REPO / 'tests/data/external'}",
                                                     *overrides])


def _hashes(out_dir: Path) -> dict[str, str]:
    return {p.parent.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((out_dir / "clips").glob("*/clip.mp4"))}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The tiny corpus built as two shards (the second one merges)."""
    out = tmp_path_factory.mktemp("corpus_sharded")
    assert build.run(_cfg(out, "shard=0", "num_shards=2")) is None  # half the clips: no merge yet
    assert not (out / "annotations.jsonl").exists()
    summary = build.run(_cfg(out, "shard=1", "num_shards=2"))
    assert summary is not None
    return out, summary


def _annotations(out: Path) -> list[ClipAnnotation]:
    return [ClipAnnotation.model_validate_json(line) for line in (out / "annotations.jsonl").read_text().splitlines()]


def test_tiny_build_is_deterministic_across_shardings(corpus, tmp_path):
    sharded, _ = corpus
    single = tmp_path / "single"
    build.run(_cfg(single))
    assert (single / "annotations.jsonl").read_bytes() == (sharded / "annotations.jsonl").read_bytes()
    assert _hashes(single) == _hashes(sharded)
    assert (single / "corpus.json").read_bytes() == (sharded / "corpus.json").read_bytes()


def test_resume_rebuilds_only_the_missing_clip(corpus, tmp_path, capsys):
    sharded, _ = corpus
    out = tmp_path / "resume"
    shutil.copytree(sharded, out)
    before_jsonl, before = (out / "annotations.jsonl").read_bytes(), _hashes(out)
    victim = sorted(before)[len(before) // 2]
    shutil.rmtree(out / "clips" / victim)
    capsys.readouterr()
    build.run(_cfg(out))
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    rebuilt = [line.split()[2] for line in lines if "up to date" not in line]
    assert rebuilt == [victim]
    assert len(lines) == len(before)
    assert _hashes(out) == before
    assert (out / "annotations.jsonl").read_bytes() == before_jsonl


def test_a_changed_config_rebuilds_the_clips_it_touches(corpus, tmp_path, capsys):
    sharded, _ = corpus
    out = tmp_path / "changed"
    shutil.copytree(sharded, out)
    capsys.readouterr()
    build.run(_cfg(out, "sources.analytic.max_objects=2"))
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    rebuilt = {line.split()[2] for line in lines if "up to date" not in line}
    assert rebuilt == {line.split()[2] for line in lines if line.split()[3] == "analytic"}


def test_every_annotation_validates_and_fits_its_clip(corpus):
    out, summary = corpus
    anns = _annotations(out)
    assert [a.id for a in anns] == sorted(a.id for a in anns)
    assert {a.renderer for a in anns} == {"pybullet", "analytic", "generator", "external"}
    assert summary["clips"] == len(anns) == 7
    assert summary["defects"] == sum(len(a.defects) for a in anns) > 0
    assert summary["clean_clips"] >= 1
    for a in anns:
        video = decode_video(out / a.video)
        assert video.frames.shape[0] == a.num_frames
        assert video.frames.shape[1:3] == (a.height, a.width)
        assert abs(video.fps - a.fps) < 0.01 * a.fps
        assert (video.audio is not None) == a.has_audio
        names = {o.name for o in a.objects}
        for o in a.objects:
            if o.mention is not None:
                assert a.prompt[o.mention.start:o.mention.end] == o.mention.text
        for c in a.claims:
            assert a.prompt[c.span.start:c.span.end] == c.span.text
            assert set(c.objects) <= names
        for d in a.defects:
            assert d.category in DEFECT_CATEGORIES and 1 <= d.severity <= 5
            assert a.prompt[d.violates.start:d.violates.end] == d.violates.text
            assert 0 <= d.window.start_frame <= d.window.end_frame < a.num_frames
            assert d.window.start_s == pytest.approx(d.window.start_frame / a.fps, abs=1e-5)
            assert d.window.end_s == pytest.approx((d.window.end_frame + 1) / a.fps, abs=1e-5)
            assert d.window.end_s <= a.num_frames / a.fps + 1e-6
            assert d.object in names
        # A claim marked false is one a defect violates.
        false_spans = {(c.span.start, c.span.end) for c in a.claims if not c.holds}
        violated = {(d.violates.start, d.violates.end) for d in a.defects}
        mentions = {(o.mention.start, o.mention.end) for o in a.objects if o.mention}
        for span in false_spans:
            assert span in violated or any(m[0] >= span[0] and m[1] <= span[1] for m in mentions & violated)
        json.loads((out / "clips" / a.id / "build.json").read_text())


def test_a_shard_outside_the_range_is_a_user_error(tmp_path):
    with pytest.raises(UserError):
        build.run(_cfg(tmp_path, "shard=2", "num_shards=2"))


def test_prompt_spans_are_exact_for_every_phrasing():
    objects = {"red_ball": ("red", "sphere"), "blue_cube": ("blue", "box")}
    texts = set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        pb = assemble(rng, [ClauseSpec("red_ball", "bounce", subject="red_ball"),
                            ClauseSpec("blue_cube", "throw", subject="blue_cube", direction=1),
                            ClauseSpec("order", "order", subject="red_ball", other="blue_cube", ordered=True),
                            ClauseSpec("text", "text", text="STOP")], objects)
        texts.add(pb.text)
        for span in pb.spans.values():
            assert pb.text[span.start:span.end] == span.text
        assert pb.spans["mention:red_ball"].text.endswith(("ball", "sphere"))
        assert pb.spans["text:text"].text == "STOP"
    assert len(texts) >= 30  # varied phrasings, not one template


def test_a_connector_says_when_only_before_the_next_step_of_one_bodys_sequence():
    """Clauses of independent events are drawn in any order, so no connector between them says when ("then",
    "while", "meanwhile": the prompt would claim an order or an overlap the clean clip need not show); a throw's hit
    on the wall, kept after it, may follow it with "then"."""
    objects = {"red_ball": ("red", "sphere"), "blue_cube": ("blue", "box"), "green_ball": ("green", "sphere")}
    thens = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        free = [ClauseSpec("red_ball", "bounce", subject="red_ball"),
                ClauseSpec("blue_cube", "fall", subject="blue_cube"), ClauseSpec("text", "text", text="STOP")]
        pb = assemble(rng, free, objects)
        assert not any(word in pb.text for word in (". Then ", ", while ", "Meanwhile")), pb.text
        pb = assemble(rng, [ClauseSpec("green_ball", "throw", subject="green_ball", direction=1, ordered=True),
                            ClauseSpec("green_wall", "hit_wall", subject="green_ball", ordered=True)], objects)
        thens += ". Then " in pb.text
        assert not any(word in pb.text for word in (", while ", "Meanwhile")), pb.text
    assert thens >= 3  # a sequence may still say its order


@pytest.mark.parametrize("value,expected", [(0.5, 1), (1.5, 2), (2.9, 2), (3.0, 3), (11.9, 4), (12.0, 5)])
def test_distance_severity_buckets(value, expected):
    assert severity.teleport(value) == expected


def test_severity_rules_cover_their_ranges():
    assert severity.duration(0.1) == 1 and severity.duration(2.0) == 5
    assert severity.morph(0.5) == severity.morph(2.0) == 4
    assert severity.text("STOQ", "STOP", 20) == 2 and severity.text("XYZW", "STOP", 20) == 5
    assert severity.text("STOQ", "STOP", 6) == 1
    assert severity.count(1) == 3 and severity.count(5) == 5
    assert severity.low_contrast_penalty(3, 0.05) == 2 and severity.low_contrast_penalty(1, 0.05) == 1


def test_a_body_placed_at_rest_is_said_to_stay_still_only_when_the_clean_run_keeps_it_there():
    """A truthful prompt never says a body stays still while the clean simulation moves it (knocked by another):
    such a body is only said to be in view."""
    from experiments.benchmark.simulated import Reference, _resting_clause

    t = np.linspace(0.0, 1.0, 20)[:, None]
    ref = Reference({"kept": np.hstack([0.002 * t, 0 * t, 0.1 + 0 * t]),   # creeps 2 mm: a radius is 0.1 m
                     "knocked": np.hstack([0.3 * t, 0 * t, 0.1 + 0 * t])}, [])  # rolls 0.3 m
    assert _resting_clause(ref, "kept", 0.1) == "rest"
    assert _resting_clause(ref, "knocked", 0.1) == "generic"


def test_an_edit_the_render_does_not_show_is_taken_out_of_the_clip():
    """A planned edit that cannot be annotated (here a push up too weak to lift the body half a radius) must not
    stay in the picture, or a clip counted clean would carry a defect nobody annotated: the world is rendered
    again without it, and a note says so. An edit the render shows is kept."""
    from experiments.benchmark import scenes_analytic
    from experiments.benchmark.plans import DefectPlan
    from experiments.benchmark.simulated import _reference, _render_shown
    from experiments.benchmark.world import sample_world

    world = sample_world(np.random.default_rng(3), kind="drop", min_objects=1, max_objects=2, max_width=160,
                         max_pixel_frames=20_000)
    name = next(n for n, role in world.roles.items() if role.role == "drop")
    ref = _reference(world, "analytic")
    g = -world.spec.gravity_mps2[2]
    weak = DefectPlan("anti_gravity", name, 1, 4, params={"az": g + 0.001 * g, "az_net": 0.001 * g})
    notes: list[str] = []
    clip, kept = _render_shown(world, [weak], "analytic", ref, name, notes)
    assert kept == [] and any("rendered again without it" in n for n in notes), notes
    assert np.array_equal(clip.frames, scenes_analytic.render(world, []).frames)
    shown = DefectPlan("morph", name, 3, 3, params={"scale": 2.0})
    clip, kept = _render_shown(world, [shown], "analytic", ref, name, [])
    assert [plan for plan, _, _ in kept] == [shown]


def test_a_direction_is_flipped_only_in_a_clause_that_names_one():
    """A wrong_direction defect flips the direction word of a body's clause. A striker that reaches the body it is
    sent at is said to hit it ("rolls into", "knocks into"): no direction word to flip, so it can carry no such
    defect (it was annotated once, on a true prompt over a correct clip). The same striker missing its target rolls
    "to the left" and can; a body with no direction never can."""
    from experiments.benchmark.clipdata import Impact
    from experiments.benchmark.simulated import Reference, _prompt_defect_objects, _reference, _says_direction
    from experiments.benchmark.world import sample_world

    world = sample_world(np.random.default_rng(5), kind="collide", min_objects=2, max_objects=3, max_width=160,
                         max_pixel_frames=20_000)
    striker = next(n for n, role in world.roles.items() if role.role == "strike")
    struck = next(n for n, role in world.roles.items() if role.role == "struck")
    positions = _reference(world, "analytic").positions
    hits = Reference(positions, [Impact(0.5, 5, striker, struck, 1.0)])
    misses = Reference(positions, [Impact(0.5, 5, striker, "wall", 1.0)])
    assert not _says_direction(world, hits, striker) and _says_direction(world, misses, striker)
    assert not _says_direction(world, misses, struck)
    assert _prompt_defect_objects("wrong_direction", world, hits, [striker, struck], set()) is None
    assert _prompt_defect_objects("wrong_direction", world, misses, [striker, struck], set()) == [striker]
