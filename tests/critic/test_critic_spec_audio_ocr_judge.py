"""hear (energy onsets, one-to-one matching), read (Tesseract), judge (none / OpenAI-compatible endpoint)."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import cv2
import numpy as np
import pytest

from critic.specialists.audio import EnergyOnsetHearer, match_onsets, onsets
from critic.specialists.judge import NoJudge, OpenAIJudge
from critic.specialists.ocr import ReadLine, TesseractReader, similarity
from critic.types import HearOp, JudgeOp, OperationInputs, ReadOp
from critic.video import context_from_arrays

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic as S  # noqa: E402

#: hear, read (without ``where``) and judge read no other operation's result
NO_INPUTS = OperationInputs()


def test_onsets_within_4_ms():
    times = [0.137, 0.5021, 0.8333, 1.4]
    audio = S.clicks(times, 1.6)
    found, _ = onsets(audio, S.AUDIO_RATE)
    assert len(found) == len(times)
    assert np.abs(found - np.array(times)).max() <= 0.004


def test_one_to_one_matching():
    pairs = match_onsets(np.array([0.10, 0.52, 0.90]), np.array([0.5, 0.11]), tolerance_s=0.03)
    assert sorted((i, j) for i, j, _ in pairs) == [(0, 1), (1, 0)]
    assert match_onsets(np.array([0.2]), np.array([0.5]), tolerance_s=0.03) == []


def test_hear_states():
    op = HearOp(id="h", event="impact")
    clip = S.drop_clip(t_count=24)
    m = EnergyOnsetHearer().run(op, NO_INPUTS, clip.context())
    assert m.state == "supported" and abs(m.windows["onset"].start_s - clip.contacts_s[0]) < 0.004
    assert EnergyOnsetHearer().run(op, NO_INPUTS, S.silent(clip).context()).state == "contradicted"
    assert EnergyOnsetHearer().run(op, NO_INPUTS, S.drop_clip(t_count=24, audio=False).context()).state == "unknown"
    zeros = S.Synthetic(**{**clip.__dict__, "audio": np.zeros_like(clip.audio)})
    silence = EnergyOnsetHearer().run(op, NO_INPUTS, zeros.context())  # an audio track of digital silence
    assert silence.state == "contradicted" and "digital silence" in silence.measured, silence.reason


def test_similarity():
    assert similarity("SCORE", "the score is") == 1.0
    assert similarity("SCORE", "SC0RE") >= 0.8
    assert similarity("SCORE", "GOAL") < 0.5


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_read_banner():
    clip = S.drop_clip(t_count=12)
    reader = TesseractReader(frames=3)
    ok = reader.run(ReadOp(id="r", text="SCORE"), NO_INPUTS, S.banner(clip, "SCORE").context())
    assert ok.state == "supported" and "visible" in ok.windows
    bad = reader.run(ReadOp(id="r", text="SCORE"), NO_INPUTS, S.banner(clip, "GOAL").context())
    assert bad.state == "contradicted"
    assert reader.run(ReadOp(id="r", text="SCORE"), NO_INPUTS, clip.context()).state == "unknown"


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_thin_light_text_over_a_checkered_floor_is_read_once_the_floor_is_flattened():
    """A rendered frame (the benchmark's pb0001, frame 15): "LAB" in thin white letters over a grey checkered floor.
    Read as it is, Tesseract says 'BAS}' with confidence 68, stable over frames; the line binarised reads 'LAB'.
    The claim is supported, never contradicted by the misread."""
    frame = cv2.imread(str(Path(__file__).parents[1] / "data" / "ocr" / "lab_over_checker_floor.png"))[:, :, ::-1]
    video = context_from_arrays(np.repeat(frame[None], 4, axis=0).copy(), 10.0)
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="LAB"), NO_INPUTS, video)
    assert m.state == "supported", (m.measured, m.reason, m.values)


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_a_caption_whose_strokes_join_the_wall_edges_is_found_by_its_glyphs():
    """A rendered frame (the benchmark's an0025, frame 20): the caption "LAB" at the top-left corner, over a wall
    whose edges the stroke gradient joins to the letters in one frame-wide component, so ``text_lines`` finds no
    line there. Its letters, as stable regions in a row (``glyph_lines``), are found and read 'LAB': the claimed
    "WAIT" is contradicted. Without the rows of glyphs the read is unknown."""
    frame = cv2.imread(str(Path(__file__).parents[1] / "data" / "ocr" / "lab_caption_over_wall_edge.png"))[:, :, ::-1]
    video = context_from_arrays(np.repeat(frame[None], 4, axis=0).copy(), 10.0)
    gray = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
    assert not any(y0 < 30 and x0 < 60 for x0, y0, _, _ in TesseractReader.text_lines(gray))
    assert any(y0 < 30 and x0 < 60 for x0, y0, _, _ in TesseractReader.glyph_lines(gray))
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="WAIT"), NO_INPUTS, video)
    assert m.state == "contradicted" and "'lab'" in m.measured, (m.measured, m.reason, m.values)

    class WithoutGlyphRows(TesseractReader):
        glyph_lines = staticmethod(lambda gray, max_lines=3: [])

    assert WithoutGlyphRows(frames=4).run(ReadOp(id="r", text="WAIT"), NO_INPUTS, video).state == "unknown"


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_a_white_caption_over_a_pale_wall_is_read_at_its_lightest_level():
    """A frame of the benchmark's ex0017 (top 120 rows): "TEST" in white over a pale wall, next to the frame's black
    border and a sign's black squares. Binarised once, the glyphs and the wall fall in Otsu's light class together;
    the line's lightest grey level alone (``brightest``) reads 'TEST', so the claimed "DROP" is contradicted. The
    rows of glyphs that overlap one another are each read (the caption's row crosses the sign's). Without the
    lightest level the read is unknown."""
    frame = cv2.imread(str(Path(__file__).parents[1] / "data" / "ocr" / "test_caption_over_pale_wall.png"))[:, :, ::-1]
    video = context_from_arrays(np.repeat(frame[None], 4, axis=0).copy(), 10.0)
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="DROP"), NO_INPUTS, video)
    assert m.state == "contradicted" and "'test'" in m.measured, (m.measured, m.reason, m.values)

    class WithoutLightestLevel(TesseractReader):
        brightest = staticmethod(lambda crop, otsu, min_px=20: None)

    assert WithoutLightestLevel(frames=4).run(ReadOp(id="r", text="DROP"), NO_INPUTS, video).state == "unknown"


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_the_window_of_another_text_is_where_it_shows_not_where_it_was_sampled():
    """"GOAL" is shown over frames 3-17 of 24 where the prompt quotes "SCORE". Four sampled frames (0, 8, 15, 23)
    read it in frames 8 and 15; the frames between the samples are read by halving until the first and the last
    frame that show it are found: the window is frames 3-17."""
    clip = S.banner(S.drop_clip(t_count=24), "GOAL", start=3, end=17)
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="SCORE"), NO_INPUTS, clip.context())
    assert m.state == "contradicted", (m.measured, m.reason)
    assert (m.window.start_frame, m.window.end_frame) == (3, 17), m.window


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_a_text_shown_briefly_is_confirmed_in_the_frame_next_to_its_one_sampled_frame():
    """"GOAL" is shown over frames 7-9 of 24 where the prompt quotes "SCORE": of the four sampled frames (0, 8, 15,
    23) only frame 8 shows it. The frames next to it are read, frame 9 gives "GOAL" too, and the claim is
    contradicted over frames 7-9. Without reading the neighbours one frame is not evidence: unknown."""
    clip = S.banner(S.drop_clip(t_count=24), "GOAL", start=7, end=9)
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="SCORE"), NO_INPUTS, clip.context())
    assert m.state == "contradicted", (m.measured, m.reason)
    assert (m.window.start_frame, m.window.end_frame) == (7, 9), m.window
    lone = TesseractReader(frames=4, neighbours=0).run(ReadOp(id="r", text="SCORE"), NO_INPUTS, clip.context())
    assert lone.state == "unknown", (lone.measured, lone.reason)


def test_read_without_tesseract_is_unknown(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    m = TesseractReader().run(ReadOp(id="r", text="SCORE"), NO_INPUTS, S.drop_clip(t_count=4).context())
    assert m.state == "unknown" and "tesseract" in m.reason


class _Chat(BaseHTTPRequestHandler):
    answer = "yes"
    seen: list = []

    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Chat.seen.append(body)
        out = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
               "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": _Chat.answer}}],
               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_judge_none_and_local_endpoint():
    video = S.drop_clip(t_count=6).context()
    op = JudgeOp(id="j", claim="c1", question="Does the ball look like rubber?")
    assert NoJudge().run(op, NO_INPUTS, video).state == "unknown"
    assert OpenAIJudge().run(op, NO_INPUTS, video).state == "unknown"
    server = HTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        judge = OpenAIJudge(base_url=f"http://127.0.0.1:{server.server_port}/v1", model="tiny-vlm", frames=2)
        _Chat.answer = "Yes."
        m = judge.run(op, NO_INPUTS, video)
        assert m.state == "supported" and m.cost.model_calls == 1
        content = _Chat.seen[-1]["messages"][1]["content"]
        assert sum(part["type"] == "image_url" for part in content) == 2
        assert "occurs" not in m.windows  # a yes without images named says nothing of when
        _Chat.answer = "yes 2"
        m = judge.run(op, NO_INPUTS, video)
        assert m.state == "supported" and m.windows["occurs"].start_frame == m.windows["occurs"].end_frame == 5
        _Chat.answer = "yes 1, 2, 7"  # an image number that was not shown is ignored
        w = judge.run(op, NO_INPUTS, video).windows["occurs"]
        assert (w.start_frame, w.end_frame) == (0, 5)
        _Chat.answer = "no"
        assert judge.run(op, NO_INPUTS, video).state == "contradicted"
        _Chat.answer = "unsure"
        assert judge.run(op, NO_INPUTS, video).state == "unknown"
    finally:
        server.shutdown()


@pytest.mark.parametrize("reads, state", [
    (["OPEN", "OPEN", "OPEN"], "contradicted"),   # another text, read the same in several frames
    (["TESX+", "TESX+", "TESX+"], "contradicted"),  # one letter off, but both views read it the same each time
    (["TESX", "TESX", "TESX"], "unknown"),        # one letter off, read so in one view only: a misread
    (["vesr", "Zz 5", "TE5X"], "unknown"),        # misreads and glyph noise: no firm other text
    (["TEST", "vesr", "vesr"], "supported"),      # the claimed text read once outweighs a repeated misread
    (["vesr?", "vesr?", "vesr?"], "unknown"),     # the same wrong letters each time, but Tesseract doubts them
    (["TESX?", "TESX?", "TESX?"], "unknown"),     # one letter off and doubted: neither the claim nor firm
    (["OPEN?", "OPEN?", "OPEN?"], "unknown"),     # another text, but doubted
    (["TESX*", "TESX*", "TESX*"], "contradicted"),  # one letter off, the network reads it too with a glyph more
    (["TESX-", "TESX-", "TESX-"], "unknown"),     # ... but not where the network reads another letter there
])
def test_another_text_must_be_read_firmly_to_contradict(monkeypatch, reads, state):
    """A read ending in '?' is one Tesseract gives a confidence of 40 (under the reader's 80), others 95; one
    ending in '+' is read so both as it is and binarised (two views), the others in the raw view only. One ending in
    '*' is read so as it is, and by the network with a glyph more at its start ('TTESX'); one ending in '-', by the
    network with another last letter ('TESY')."""
    reader = TesseractReader(frames=3)

    def lines(r: str) -> list[ReadLine]:
        text, conf = r.rstrip("?+*-"), 40.0 if r.endswith("?") else 95.0
        if r.endswith("*") or r.endswith("-"):
            network = "T" + text if r.endswith("*") else text[:-1] + "Y"
            return [ReadLine(text, conf, "raw"), ReadLine(network, conf, "crnn")]
        views = ("raw", "flat") if r.endswith("+") else ("raw",)
        return [ReadLine(text, conf, view) for view in views]

    answers = iter([lines(r) for r in reads])
    monkeypatch.setattr(TesseractReader, "available", lambda self: True)
    # frames read beyond the sampled ones (next to a lone firm read) show glyph noise
    monkeypatch.setattr(TesseractReader, "_read", lambda self, image: next(answers, [ReadLine("~", 0.0)]))
    m = reader.run(ReadOp(id="r", text="TEST"), NO_INPUTS, S.drop_clip(t_count=6).context())
    assert m.state == state, (m.measured, m.reason)


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_an_outlined_caption_is_read_once_its_strokes_are_filled():
    """A frame of the benchmark's pb0039 (top 48 rows): "HELLO" drawn white with a dark outline over a pale wall,
    touching the frame's left edge. Binarised, each stroke is two thin dark lines ('ISLE'); with the gap between them
    closed (``filled``) it reads 'HELLO' firmly, so the claimed "EXIT" is contradicted. Without that view the read
    is unknown."""
    frame = cv2.imread(str(Path(__file__).parents[1] / "data" / "ocr" / "outlined_caption_over_pale_wall.png"))[:, :, ::-1]
    video = context_from_arrays(np.repeat(frame[None], 4, axis=0).copy(), 10.0)
    m = TesseractReader(frames=4).run(ReadOp(id="r", text="EXIT"), NO_INPUTS, video)
    assert m.state == "contradicted" and "'hello'" in m.measured, (m.measured, m.reason, m.values)

    class WithoutFilledStrokes(TesseractReader):
        filled = staticmethod(lambda flat: flat)

    assert WithoutFilledStrokes(frames=4).run(ReadOp(id="r", text="EXIT"), NO_INPUTS, video).state == "unknown"
