"""Each importer on its committed suite file: the manifest lines, their expectations, the clip paths; and malformed
or unknown rows reported with the line they start on while the rest is imported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from critic.suites.base import import_suite, read_manifest
from critic.suites.dsg import DSGTuples
from critic.suites.physics_iq import PhysicsIQDescriptions
from critic.suites.vbench2 import VBench2Prompts
from critic.suites.videophy2 import VideoPhy2Captions, VideoPhy2Rules
from veriphy.errors import UserError

from .conftest import run_module


def test_videophy2_rows_become_rule_prompts_with_labels_and_their_clips(fixture_path, tmp_path):
    out = tmp_path / "m" / "manifest.jsonl"
    result = import_suite(VideoPhy2Rules(), fixture_path("videophy2"), out)
    assert result.problems == []
    items = read_manifest(out)
    assert [it.expect["label"] for it in items] == [1, 1, 0, 2]
    assert [it.source.line for it in items] == [2, 3, 4, 5]
    assert items[0].prompt == "The knife slides across the surface of the blocks and table."
    assert items[0].expect["caption"].startswith("Two knives are thrown in a criss-cross pattern")
    assert items[2].expect["index"] == "3"
    # the clips sit beside the CSV; the manifest names them relative to its own folder
    for it in items:
        assert not Path(it.video).is_absolute() and (out.parent / it.video).is_file()
    assert len({it.id for it in items}) == 4


#: Items per dimension in VBench-2.0's meta files (tests/data/suites/vbench2/PROVENANCE.txt: 1,230 in all).
VBENCH2_ITEMS = {"Camera_Motion": 108, "Complex_Landscape": 30, "Complex_Plot": 60, "Composition": 53, "Diversity": 10,
                 "Dynamic_Attribute": 91, "Dynamic_Spatial_Relationship": 69, "Human_Anatomy": 120,
                 "Human_Clothes": 75, "Human_Identity": 46, "Human_Interaction": 100, "Instance_Preservation": 57,
                 "Material": 50, "Mechanics": 57, "Motion_Order_Understanding": 99, "Motion_Rationality": 58,
                 "Multi-View_Consistency": 97, "Thermotics": 50}


def test_vbench2_folder_gives_samples_named_as_vbench_names_them(fixture_path, tmp_path):
    result = import_suite(VBench2Prompts(samples=2, diversity_samples=5), fixture_path("vbench2"), tmp_path / "m.jsonl")
    assert result.problems == []
    by_dim: dict[str, list] = {}
    for it in result.items:
        by_dim.setdefault(it.expect["dimension"], []).append(it)
    assert sum(VBENCH2_ITEMS.values()) == 1230
    assert {d: len(v) for d, v in by_dim.items()} == {d: n * (5 if d == "Diversity" else 2)
                                                      for d, n in VBENCH2_ITEMS.items()}
    order = by_dim["Motion_Order_Understanding"][0]
    assert order.expect["actions"] == ["sitting", "get up and sweeping"]
    assert order.video == ("Motion_Order_Understanding/A person is sitting on the couch, then suddenly they get up "
                           "and start sweeping the floor.-0.mp4")
    assert [it.expect["sample"] for it in by_dim["Mechanics"][:2]] == [0, 1]
    counts = [it.expect["counts"] for it in by_dim["Instance_Preservation"][::2]]
    assert counts[:2] == [[{"n": 1, "object": "orange dog"}], [{"n": 2, "object": "orange dog"}]]
    assert counts[22] == [{"n": 1, "object": "red ball"}, {"n": 1, "object": "blue ball"}]
    assert by_dim["Camera_Motion"][0].expect["camera"] == "zoom_in"
    comp = by_dim["Composition"][0].expect
    assert comp["descriptions"] == ["The wings of an eagle", "A lion"] and comp["single_creature"] is True
    assert len(by_dim["Mechanics"][0].expect["questions"]) == 2
    assert {len(it.expect) for it in by_dim["Human_Anatomy"]} == {2}  # dimension and sample: no meta information


def test_dsg_items_group_their_tuples_with_parents(fixture_path, tmp_path):
    result = import_suite(DSGTuples(), fixture_path("dsg"), tmp_path / "m.jsonl")
    assert result.problems == []
    items = {it.expect["item_id"]: it for it in result.items}
    assert list(items) == ["whoops_5", "tifa160_135", "drawtext_26", "countbench_2"]
    soccer = items["tifa160_135"]
    assert soccer.prompt == "a basketball to the left of two soccer balls on a gravel driveway"
    assert soccer.video == "tifa160_135.mp4" and soccer.expect["split"] == "tifa160"
    count = next(t for t in soccer.expect["tuples"] if t["type"] == "count")
    assert count["args"] == ["soccer balls", "==2"] and count["parents"] == [2]
    assert next(t for t in soccer.expect["tuples"] if t["id"] == 5)["parents"] == [1, 2]
    text = next(t for t in items["drawtext_26"].expect["tuples"] if t["type"] == "text rendering")
    assert text["args"] == ["sign", "Please refrain from arguing with the chimpanzees"]
    assert sum(len(it.expect["tuples"]) for it in result.items) == 15


def test_physics_iq_keeps_one_take(fixture_path, tmp_path):
    take1 = import_suite(PhysicsIQDescriptions(), fixture_path("physics_iq"), tmp_path / "a.jsonl")
    both = import_suite(PhysicsIQDescriptions(take=None), fixture_path("physics_iq"), tmp_path / "b.jsonl")
    assert len(take1.items) == 198 and len(both.items) == 396 and take1.problems == []
    assert len({it.prompt for it in take1.items}) == 64 and len({it.prompt for it in both.items}) == 65
    first = take1.items[0]
    assert first.video == "0001_perspective-left_trimmed-ball-and-block-fall.mp4"
    assert first.expect == {"scenario": "0001_perspective-left_take-1_trimmed-ball-and-block-fall.mp4",
                            "category": "Solid Mechanics", "scene": "ball-and-block-fall", "perspective": "left",
                            "take": 1}
    assert {it.expect["take"] for it in take1.items} == {1} and both.items[-1].expect["take"] == 2


def test_videophy2_captions_become_prompts_with_their_scores(fixture_path, tmp_path):
    result = VideoPhy2Captions().read(fixture_path("videophy2_captions"))
    assert result.problems == [] and len(result.items) == 10
    first = result.items[0]
    assert first.prompt == "A jetski moves quickly through a narrow channel between two rocky outcrops."
    assert first.video == "A_jetski_moves_quickly_through_a_narrow_channel_between_two_rocky_outcrops_0.mp4"
    assert first.expect == {"caption": first.prompt, "videopath": "examples/" + first.video}
    # the clips are looked for beside the CSV, as VideoPhy-2's rule clips are
    placed = import_suite(VideoPhy2Captions(), fixture_path("videophy2_captions"), tmp_path / "m.jsonl").items[0]
    assert (tmp_path / placed.video).resolve() == fixture_path("videophy2_captions").parent / first.video
    # the AutoRater's output_sa.csv / output_pc.csv: an index column and a 1-5 score; VideoPhy-1: sa and pc
    scored = tmp_path / "output_pc.csv"
    scored.write_text(',caption,videopath,score\n0,A ball falls.,examples/A_ball_falls_0.mp4,4.0\n'
                      '1,A cup tips over.,examples/A_cup_0.mp4,high\n2,,examples/B_0.mp4,3.0\n')
    v1 = tmp_path / "train_example.csv"
    v1.write_text("videopath,caption,sa,pc\nexamples/Shoe_squishes_a_bug._0.mp4,Shoe squishes a bug.,0,1\n")
    result = VideoPhy2Captions().read(scored)
    assert [it.expect for it in result.items] == [{"caption": "A ball falls.", "videopath": "examples/A_ball_falls_0.mp4",
                                                   "score": 4.0, "index": "0"}]
    assert [(p.line, p.reason) for p in result.problems] == [(3, "score 'high' is not a number"), (4, "empty caption")]
    assert VideoPhy2Captions().read(v1).items[0].expect["pc"] == 1.0


def _copy_with(src: Path, dst: Path, extra: str) -> Path:
    dst.write_text(src.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return dst


def test_malformed_csv_rows_are_reported_by_the_line_they_start_on(fixture_path, tmp_path):
    # line 6: a rule whose quoted text runs over two lines (fine); line 8: a label VideoPhy-2 does not have;
    # line 9: no rule; line 10: the same clip and rule again
    src = fixture_path("videophy2")
    first_row = src.read_text().splitlines()[1]
    bad = _copy_with(src, tmp_path / "rules.csv",
                     '9,"examples/A_potter.mp4","The clay deforms\nunder the hands.",1.0\n'
                     '10,"examples/B.mp4",The pot slides.,3.0\n'
                     '11,"examples/C.mp4",,1.0\n'
                     f"{first_row}\n")
    result = VideoPhy2Rules().read(bad)
    assert [(p.line, p.reason) for p in result.problems] == [
        (8, "label '3.0' is not 0 (violated), 1 (followed) or 2 (cannot be grounded)"),
        (9, "empty rule"),
        (10, "the same clip and rule as line 2")]
    assert [it.source.line for it in result.items] == [2, 3, 4, 5, 6]
    assert result.items[-1].prompt == "The clay deforms\nunder the hands."


def test_dsg_bad_dependency_and_unknown_parent_are_reported(fixture_path, tmp_path):
    bad = _copy_with(fixture_path("dsg"), tmp_path / "dsg.csv",
                     'countbench_2,Set of four baseball stamps,"stamps, air",4,"3, air",relation,spatial,'
                     '"relation - spatial (stamps, air, in)",Are the stamps in the air?\n'
                     'countbench_2,Set of four baseball stamps,stamps,5,9,attribute,color,'
                     '"attribute - color (stamps, red)",Are the stamps red?\n'
                     'countbench_2,Set of four baseball stamps,stamps,6,1,colour,color,'
                     '"attribute - color (stamps, red)",Are the stamps red?\n'
                     'countbench_2,Set of four stamps,stamps,7,1,attribute,color,'
                     '"attribute - color (stamps, red)",Are the stamps red?\n')
    result = DSGTuples().read(bad)
    assert [(p.line, p.reason) for p in result.problems] == [
        (17, "dependency '3, air' is not 0 or a list of proposition ids"),
        (18, "depends on proposition 9, missing from item countbench_2"),
        (19, "unknown category_broad 'colour' (known: entity, attribute, relation, global, other)"),
        (20, "text differs from line 14 of the same item countbench_2")]
    stamps = next(it for it in result.items if it.expect["item_id"] == "countbench_2")
    assert [t["id"] for t in stamps.expect["tuples"]] == [1, 2, 3]


def test_vbench2_items_are_reported_by_the_line_they_start_on(tmp_path):
    meta = tmp_path / "Mixed.json"
    meta.write_text(json.dumps([
        {"prompt_en": "Two orange dogs are running.", "dimension": "Instance_Preservation",
         "auxiliary_info": "2.orange dog"},
        {"prompt_en": "A cat sleeps.", "dimension": "Sleepiness", "auxiliary_info": None},
        {"prompt_en": "A cat runs, then sits.", "dimension": "Motion_Order_Understanding",
         "auxiliary_info": ["running"]},
        "not an item"], indent=4))
    result = VBench2Prompts(samples=1).read(meta)
    assert [(p.line, p.reason.split(" (")[0]) for p in result.problems] == [
        (7, "unknown dimension 'Sleepiness'"), (12, "auxiliary_info must list at least two actions in order"),
        (19, "an item must be an object with prompt_en, dimension and auxiliary_info")]
    assert [it.expect["counts"] for it in result.items] == [[{"n": 2, "object": "orange dog"}]]


def test_physics_iq_bad_rows(fixture_path, tmp_path):
    bad = _copy_with(fixture_path("physics_iq"), tmp_path / "d.csv",
                     "0999_perspective-top_take-1_trimmed-x.mp4,A ball falls.,Solid Mechanics,0999_x.mp4\n"
                     "0998_perspective-left_take-1_trimmed-x.mp4,A ball falls.,Acoustics,0998_x.mp4\n"
                     "0997_perspective-left_take-1_trimmed-x.mp4,A ball falls.,Optics\n")
    problems = PhysicsIQDescriptions().read(bad).problems
    assert [p.line for p in problems] == [398, 399, 400]
    assert "unknown category 'Acoustics'" in problems[1].reason and "fewer than the header" in problems[2].reason


def test_a_file_that_is_not_the_suites_is_a_user_error(fixture_path, tmp_path):
    with pytest.raises(UserError, match="missing column"):
        DSGTuples().read(fixture_path("physics_iq"))
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"prompt_en": "x",, }\n]\n')
    with pytest.raises(UserError, match="line 2"):
        VBench2Prompts().read(broken)
    only_bad = tmp_path / "only_bad.csv"
    only_bad.write_text(",videopath,rule,score\n0,a.mp4,,1.0\n")
    with pytest.raises(UserError, match="no videophy2 rows could be imported"):
        import_suite(VideoPhy2Rules(), only_bad, tmp_path / "m.jsonl")


def test_import_command_reports_rows_and_writes_the_manifest(fixture_path, tmp_path):
    bad = _copy_with(fixture_path("dsg"), tmp_path / "dsg.csv",
                     'countbench_2,Set of four baseball stamps,stamps,x,0,entity,whole,"entity - whole (stamps)",?\n')
    out = run_module("critic.suites", ["import", "dsg", f"path={bad}", "out=m.jsonl", "hydra.run.dir=run"], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"error: {bad}: line 17: proposition_id 'x' is not a positive whole number" in out.stderr
    assert "4 dsg manifest lines, 1 rows left out" in out.stdout
    assert len((tmp_path / "m.jsonl").read_text().splitlines()) == 4
    assert (tmp_path / "run" / "manifest.json").is_file()


@pytest.mark.parametrize(("args", "message"), [
    (["import", "nosuch", "path=x.csv"], "error: suite: unknown suite 'nosuch'"),
    (["import", "dsg"], "error: path: give path=..."),
    (["fetch", "dsg", "path=x.csv"], "error: command: the command must be one of import, export, agree, coverage"),
    (["import", "dsg", "path=missing.csv"], "error: missing.csv: path: file not found"),
    (["export", "physics_iq", "verdicts=v.jsonl"], "error: command: physics_iq has no label format"),
    (["export", "videophy2_captions", "verdicts=v.jsonl"], "error: command: videophy2_captions has no label format"),
    (["coverage", "dsg"], "error: path: give path=..."),
    (["coverage", "dsg", "path=x.csv", "half=test"], "error: half: half must be one of dev, held_out, all, not 'test'"),
    (["import", "videophy2", "path=x.csv", "suite.claims=maybe"],
     "error: suite.claims: claims must be one of explicit, all, not 'maybe'"),
])
def test_command_line_mistakes_exit_2_without_a_traceback(args, message, tmp_path):
    out = run_module("critic.suites", [*args, "hydra.run.dir=run"], tmp_path)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]


def test_videos_folder_is_written_relative_to_the_manifest(fixture_path, tmp_path):
    clips = tmp_path / "clips"
    shutil.copytree(fixture_path("videophy2").parent, clips)
    result = import_suite(VideoPhy2Rules(), fixture_path("videophy2"), tmp_path / "a" / "m.jsonl", videos=clips)
    assert all(it.video.startswith("../clips/") for it in result.items)
