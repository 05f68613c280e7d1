"""The exporters: verdicts back to each suite's own labels. VideoPhy-2 round trip (import -> verdicts that agree
with the labels -> export gives the suite's file back byte for byte), VBench-2's results JSON, DSG's per-tuple
answers with the parent rule, the agreement report and its packets, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

from critic.suites.agreement import agreement
from critic.suites.base import export_entries, import_suite, read_manifest
from critic.suites.dsg import DSGTuples
from critic.suites.run import export_verdicts
from critic.suites.vbench2 import VBench2Prompts
from critic.suites.videophy2 import VideoPhy2Rules
from critic.types import Claim, CountOp, GroundOp, Obligation, Plan, ReadOp, SubjectSpec
from veriphy.files import write_json

from .conftest import run_module

STATE_OF_LABEL = {0: "contradicted", 1: "supported", 2: "unknown"}


def verdict_line(item_id: str, explicit: list[str], implicit: list[str] = ()) -> dict:
    claims = [{"text": f"claim {k}", "span": [0, 4], "state": s, "kind": "explicit", "window_s": None}
              for k, s in enumerate(explicit)]
    claims += [{"text": f"implicit {k}", "span": [0, 4], "state": s, "kind": "implicit", "window_s": None}
               for k, s in enumerate(implicit)]
    states = [c["state"] for c in claims]
    verdict = "contradicted" if "contradicted" in states else "supported" if states and all(
        s == "supported" for s in states) else "unknown"
    return {"id": item_id, "verdict": verdict, "claims": claims, "calls": 1, "p_plausible": 0.5}


def write_lines(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_videophy2_round_trip_gives_the_labels_back_byte_for_byte(fixture_path, tmp_path):
    src = fixture_path("videophy2")
    manifest = tmp_path / "manifest.jsonl"
    items = import_suite(VideoPhy2Rules(), src, manifest).items
    # each verdict agrees with its label on the explicit claims; an implicit obligation is contradicted everywhere
    verdicts = write_lines(tmp_path / "run" / "verdicts.jsonl",
                           [verdict_line(it.id, [STATE_OF_LABEL[it.expect["label"]]], ["contradicted"])
                            for it in items])
    out = tmp_path / "output_rule.csv"
    counts = export_verdicts(VideoPhy2Rules(), manifest, verdicts, out)
    assert counts == {"items": 4, "critiqued": 4, "not_critiqued": 0}
    assert out.read_bytes() == src.read_bytes()
    # the exported file imports again with the same labels
    again = VideoPhy2Rules().read(out)
    assert [it.expect["label"] for it in again.items] == [it.expect["label"] for it in items]
    # with every claim deciding, the contradicted implicit obligation makes every rule violated
    export_verdicts(VideoPhy2Rules(claims="all"), manifest, verdicts, out)
    assert [it.expect["label"] for it in VideoPhy2Rules().read(out).items] == [0, 0, 0, 0]


def test_an_item_without_a_verdict_gets_no_label(fixture_path, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    items = import_suite(VideoPhy2Rules(), fixture_path("videophy2"), manifest).items
    verdicts = write_lines(tmp_path / "run" / "verdicts.jsonl",
                           [verdict_line(items[0].id, ["supported"]),
                            {"id": items[1].id, "verdict": "error", "error": "video file not found", "claims": []}])
    out = tmp_path / "out.csv"
    assert export_verdicts(VideoPhy2Rules(), manifest, verdicts, out)["not_critiqued"] == 3
    assert [it.expect["label"] for it in VideoPhy2Rules().read(out).items] == [1, None, None, None]


def test_vbench2_results_json_scores_each_dimension(vbench2_pick, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    items = import_suite(VBench2Prompts(samples=1), vbench2_pick, manifest).items
    mechanics = [it for it in items if it.expect["dimension"] == "Mechanics"]
    order = [it for it in items if it.expect["dimension"] == "Motion_Order_Understanding"]
    verdicts = write_lines(tmp_path / "run" / "verdicts.jsonl", [
        verdict_line(mechanics[0].id, ["supported"]), verdict_line(mechanics[1].id, ["contradicted", "supported"]),
        verdict_line(order[0].id, ["unknown"])])
    out = tmp_path / "veriphy_eval_results.json"
    export_verdicts(VBench2Prompts(samples=1), manifest, verdicts, out)
    results = json.loads(out.read_text())
    assert results["Mechanics"] == [0.5, [{"video_path": mechanics[0].video, "video_results": 1},
                                          {"video_path": mechanics[1].video, "video_results": 0}]]
    assert results["Motion_Order_Understanding"][0] is None
    assert [v["video_results"] for v in results["Motion_Order_Understanding"][1]] == [-1, -1]
    assert set(results) == {it.expect["dimension"] for it in items}


def _clip(dir_: Path, plan: Plan, states: dict[str, str]) -> None:
    write_json(dir_ / "plan.json", plan.model_dump(mode="json"))
    claims = [{"id": k, "state": s, "kind": "explicit"} for k, s in states.items()]
    write_json(dir_ / "verdict.json", {"verdict": "unknown", "reason": "", "packets": [], "claims": claims})


def _count_plan(prompt: str, noun: str, n: int, span: tuple[int, int]) -> Plan:
    return Plan(prompt=prompt, subjects=[SubjectSpec(name=noun, noun=noun, count=n, span=span)],
                claims=[Claim(id="c1", text=prompt[span[0]:span[1]], span=span, subjects=[noun])],
                obligations=[Obligation(id="c1.1", claim="c1", check="o2")],
                operations=[GroundOp(id="o1", subject=noun), CountOp(id="o2", subject=noun, n=n)])


def test_dsg_answers_come_from_the_claims_of_the_mapped_operations(fixture_path, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    items = {it.expect["item_id"]: it for it in import_suite(DSGTuples(), fixture_path("dsg"), manifest).items}
    run = tmp_path / "run"
    soccer, sign = items["tifa160_135"], items["drawtext_26"]
    _clip(run / soccer.id, _count_plan(soccer.prompt, "ball", 2, (28, 44)), {"c1": "supported"})
    text = "Please refrain from arguing with the chimpanzees"
    _clip(run / sign.id, Plan(prompt=sign.prompt, claims=[Claim(id="c1", text=sign.prompt, span=(0, 67))],
                              obligations=[Obligation(id="c1.1", claim="c1", check="o1")],
                              operations=[ReadOp(id="o1", text=text)]), {"c1": "contradicted"})
    verdicts = write_lines(run / "verdicts.jsonl", [verdict_line(it.id, ["unknown"]) for it in items.values()])
    out = tmp_path / "answers.csv"
    export_verdicts(DSGTuples(t2i_model="tiny"), manifest, verdicts, out)
    rows = out.read_text().splitlines()
    assert rows[0] == ("dsg_prompt_split,qg_model,t2i_model,item_id,question,question_id,dependency_id,answer,"
                       "tuple,claim")
    answers = {(r.split(",")[3], r.split(",")[5]): r.split(",")[7] for r in rows[1:]}
    assert answers[("tifa160_135", "3")] == "yes"            # "two soccer balls": the count claim was supported
    assert answers[("drawtext_26", "2")] == "no"             # the sign's text: the read claim was contradicted
    assert answers[("tifa160_135", "1")] == "unknown"        # an entity tuple: no operation answers it
    assert answers[("whoops_5", "1")] == "unknown"           # no clip folder at all
    assert len(rows) == 16 and all(r.split(",")[2] == "tiny" for r in rows[1:])


def test_dsg_no_to_a_parent_is_no_to_its_children(tmp_path):
    csv_path = tmp_path / "dsg.csv"
    csv_path.write_text(
        "item_id,text,keywords,proposition_id,dependency,category_broad,category_detailed,tuple,"
        "question_natural_language\n"
        'x_1,Two red balls,"balls, ==2",1,0,other,count,"other - count (balls, ==2)",Are there two balls?\n'
        'x_1,Two red balls,"balls, red",2,1,attribute,color,"attribute - color (balls, red)",Are the balls red?\n')
    manifest = tmp_path / "manifest.jsonl"
    item = import_suite(DSGTuples(), csv_path, manifest).items[0]
    _clip(tmp_path / "run" / item.id, _count_plan(item.prompt, "ball", 2, (0, 13)), {"c1": "contradicted"})
    verdicts = write_lines(tmp_path / "run" / "verdicts.jsonl", [verdict_line(item.id, ["contradicted"])])
    answers = DSGTuples().answers(export_entries(read_manifest(manifest), verdicts)[0])
    assert answers == {1: ("no", "c1"), 2: ("no", "parent 1")}


def test_agreement_matrix_and_disagreements_with_their_packets(fixture_path, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    items = import_suite(VideoPhy2Rules(), fixture_path("videophy2"), manifest).items  # labels 1, 1, 0, 2
    run = tmp_path / "run"
    verdicts = write_lines(run / "verdicts.jsonl", [
        verdict_line(items[0].id, ["supported"]), verdict_line(items[1].id, ["contradicted"]),
        verdict_line(items[2].id, ["unknown"])])
    window = {"start_s": 1.0, "end_s": 1.5, "start_frame": 15, "end_frame": 22}
    write_json(run / items[1].id / "verdict.json", {
        "verdict": "contradicted", "reason": "1 of 1 claims contradicted",
        "claims": [{"id": "c1", "text": "The pot's shadow", "span": [0, 16], "state": "contradicted",
                    "kind": "explicit", "reason": "no shadow"}],
        "packets": [{"claim": "c1", "span_text": "The pot's shadow", "window": window,
                     "required": ["a shadow"], "measured": ["none"]}]})
    report = agreement(VideoPhy2Rules(), export_entries(read_manifest(manifest), verdicts))
    assert report.matrix == {"contradicted": {"0": 0, "1": 1, "2": 0}, "supported": {"0": 0, "1": 1, "2": 0},
                             "unknown": {"0": 1, "1": 0, "2": 0}}
    assert (report.labelled, report.agree, report.accuracy) == (4, 1, 1 / 3)
    assert report.no_verdict == [items[3].id]
    first, second = report.disagreements
    assert (first.id, first.label, first.state, first.reason) == (items[1].id, 1, "contradicted",
                                                                   "1 of 1 claims contradicted")
    assert first.packets == [{"claim": "c1", "span_text": "The pot's shadow", "window_s": [1.0, 1.5],
                              "frames": [15, 22], "required": ["a shadow"], "measured": ["none"]}]
    assert first.claims[0]["reason"] == "no shadow"
    assert (second.label, second.state) == (0, "unknown")


def test_export_and_agree_commands_find_the_manifest_the_critic_read(fixture_path, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    items = import_suite(VideoPhy2Rules(), fixture_path("videophy2"), manifest).items
    run = tmp_path / "run"
    write_lines(run / "verdicts.jsonl", [verdict_line(it.id, [STATE_OF_LABEL[it.expect["label"]]]) for it in items])
    (run / ".hydra").mkdir()
    (run / ".hydra" / "config.yaml").write_text(f"manifest: {manifest}\nvideo: null\n")
    out = run_module("critic.suites", ["export", "videophy2", "verdicts=run/verdicts.jsonl", "out=labels.csv",
                                       "hydra.run.dir=r1"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "labels.csv").read_bytes() == fixture_path("videophy2").read_bytes()
    out = run_module("critic.suites", ["agree", "videophy2", "verdicts=run/verdicts.jsonl", "hydra.run.dir=r2"],
                     tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "4 of 4 labelled items agree (100 %)" in out.stdout
    assert json.loads((tmp_path / "r2" / "agreement.json").read_text())["agree"] == 4
    # verdicts without a critic run's config: the manifest must be named
    (run / ".hydra" / "config.yaml").unlink()
    out = run_module("critic.suites", ["export", "videophy2", "verdicts=run/verdicts.jsonl", "hydra.run.dir=r3"],
                     tmp_path)
    assert out.returncode == 2 and "error: manifest: give manifest=" in out.stderr
