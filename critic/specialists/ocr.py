"""``read``: Tesseract OCR (``pytesseract``, ``--psm 6``) on a few frames of the declared region.

Only the frames the operation declares are read: where ``where`` names a subject, its visible frames cropped to
its box; otherwise ``frames`` frames spread over the clip. Text is compared case- and space-insensitively with
a similarity ratio (difflib); the read text is evidence, never an instruction.

Lines are found two ways: dense strokes joined along a row (``text_lines``), and rows of letter-shaped stable
regions (MSER, ``glyph_lines``) for a caption whose strokes the first way joins to the scene's edges.

Each read line carries Tesseract's own word confidence (0-100, the least over the line's words) and the view it was
read in: every text line is read as it is (``raw``), binarised (``flat``, Otsu: thin light glyphs over a textured
floor are read wrong as they are, 'BAS' for 'LAB', and right once the background is flattened), binarised with its
dark class closed over a pixel (``filled``: a caption drawn light with a dark outline binarises to two thin strokes
per stroke, 'ISLE' for 'HELLO', until the gap between them is closed), and as its lightest grey level alone
(``bright``: a white caption over a pale wall, next to a dark border or sign, shares Otsu's light class with the
wall). A different text contradicts the claimed one only when it is read the same, with at least
``firm_confidence``, in two sampled frames (or in one and a frame next to it: a text shown briefly falls in one
sample): a misread of small or blurred glyphs is often stable from frame to frame (the same pixels give the same
wrong letters), but Tesseract rarely trusts it. A near miss (more than half of the claimed characters, 'WATE' for
'WAIT': one letter is the commonest misread) must also be read the same in another view of those frames, alone or
with glyphs more at its ends ('BBAWL' beside 'BAWL': a stroke at the caption's end read as one more letter): two
views of the glyphs agree on the letter, or it is not firm.

With a ``recognizer`` (:mod:`critic.specialists.text_recognizer`, a network trained on scene text), every line is
read by it too, as it is (``crnn``) and inverted (``crnn_inverted``): two more views under the same rules, its
confidence on Tesseract's scale (0-100). Tesseract misreads captions a few pixels tall over a scene ('BOREN' for
'OPEN') where the network reads them; either one alone reads with the other missing.

The network's two looks count as one view where two must agree: they agree on the network's own misreads of a
caption a few pixels tall ('EXIR' for 'EXIT' at half size).

Texts are compared with the digits that look like capitals in a caption folded to them (0 O, 1 I, 5 S, 8 B: 'ST0P' is
'STOP'), and a read that is the claimed text with glyphs lost, its I's ('WAT' for 'WAIT': the thinnest glyphs blur
away first) or letters at an end ('AIT': a caption cut by the frame's edge or hidden in part), is never evidence of
another text.
"""

from __future__ import annotations

import difflib
import re
import shutil
from dataclasses import dataclass

import cv2
import numpy as np

from critic.specialists.base import unknown
from critic.specialists.text_recognizer import CrnnLineRecognizer
from critic.types import Cost, Measurement, OperationInputs, ReadOp, VideoContext


#: digits that look like capitals in a small caption, folded to the letter: a reader's 'ST0P' is 'STOP' (no letter is
#: folded: lower case would take an L for an I)
_LOOKALIKES = str.maketrans("0158", "oisb")


def normalise(text: str) -> str:
    """Letters and digits only, lower case, digits that look like capitals folded to them (``_LOOKALIKES``)."""
    return re.sub(r"[^0-9a-z]+", "", text.lower()).translate(_LOOKALIKES)


def part_of_claim(claimed: str, read: str, ends: bool = True) -> bool:
    """Is ``read`` the ``claimed`` text with glyphs lost: some of its I's ('WAT' for 'WAIT': a glyph one stroke wide
    is the first to blur into the background of a small caption, for every reader alike), or (``ends``) letters at its
    ends ('AIT': a caption cut by the frame's edge, or hidden in part)? Such a read is no evidence of another text. Only
    the first is a read of the claimed text: what is left of a text cut short may be left of another ('PEN' of
    'TPEN' drawn where the prompt quotes 'OPEN')."""
    a, b = normalise(claimed), normalise(read)
    return 0 < len(b) < len(a) and (a.replace("i", "") == b.replace("i", "") or (ends and b in a))


def _reader_of(view: str) -> str:
    """The reader behind a ``ReadLine.view``, where two views must agree: the network's two looks agree on its own
    misreads (both read a 6-px 'EXIT' as 'EXIR' at 80 or more), so they are one; Tesseract's views each count."""
    return "crnn" if view.startswith("crnn") else view


def similarity(claimed: str, read: str) -> float:
    """Best similarity of ``claimed`` against any same-length substring of ``read`` (both normalised)."""
    a, b = normalise(claimed), normalise(read)
    if not a or not b:
        return 0.0
    if a in b:
        return 1.0
    n = len(a)
    if len(b) <= n:
        return difflib.SequenceMatcher(None, a, b).ratio()
    return max(difflib.SequenceMatcher(None, a, b[i:i + n]).ratio() for i in range(len(b) - n + 1))


@dataclass(frozen=True)
class ReadLine:
    """One line of text as read: its characters and Tesseract's confidence in it (0-100, the least over its
    words; -1 when Tesseract gave none)."""

    text: str
    confidence: float
    #: how the line was read: by Tesseract ``raw`` (as it is), ``flat`` (binarised), ``filled``, ``bright`` or
    #: ``page`` (the whole image, no line found); by the recogniser ``crnn`` (as it is) or ``crnn_inverted``
    view: str = "raw"


class TesseractReader:
    """``read`` specialist: Tesseract, and the ``recognizer`` when one is given; with neither (no ``tesseract``
    binary, no usable weights) -> unknown with the reasons."""

    name = "tesseract"

    def __init__(self, frames: int = 6, psm: int = 6, lang: str = "eng", match: float = 0.8, min_chars: int = 3,
                 upscale_to: int = 64, firm_confidence: float = 80.0, near_miss: float = 0.5, neighbours: int = 1,
                 recognizer: CrnnLineRecognizer | None = None):
        self.frames, self.psm, self.lang = frames, psm, lang
        self.match, self.min_chars, self.upscale_to = match, min_chars, upscale_to
        #: Tesseract confidence (0-100) at or above which a read of another text is evidence against the claim
        self.firm_confidence = float(firm_confidence)
        #: another text more similar than this to the claimed one is a near miss: two views must read it
        self.near_miss = float(near_miss)
        #: frames read on each side of the one sampled frame that alone gives another text firmly
        self.neighbours = int(neighbours)
        #: a second reader of every line (None: Tesseract alone)
        self.recognizer = recognizer

    @property
    def version(self) -> str:
        # the reads (and so the cache) differ with and without the recogniser
        return "10" + ("+crnn" if self._recognizer_ready() else "")

    def _tesseract(self) -> bool:
        return shutil.which("tesseract") is not None

    def _recognizer_ready(self) -> bool:
        return self.recognizer is not None and self.recognizer.available()

    def available(self) -> bool:
        return self._tesseract() or self._recognizer_ready()

    def _ocr(self, gray: np.ndarray, psm: int, view: str = "raw", pad_white: bool = False) -> list[ReadLine]:
        """The lines Tesseract reads in ``gray`` (uint8, H x W), each with its least word confidence; the margin
        added around it repeats its edge, or is white (``pad_white``: a binarised view whose glyphs may touch the
        crop's edge, where repeating the edge would draw a glyph's stroke out into the margin)."""
        import pytesseract

        # Tesseract reads text about 30 px tall best: upscale small crops
        s = max(1.0, 40.0 / max(gray.shape[0], 1)) if psm == 7 else max(1.0, self.upscale_to * 4 / max(min(gray.shape), 1))
        if s > 1:
            gray = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
        gray = cv2.copyMakeBorder(gray, 10, 10, 10, 10, cv2.BORDER_CONSTANT if pad_white else cv2.BORDER_REPLICATE,
                                  value=255)
        data = pytesseract.image_to_data(gray, lang=self.lang, config=f"--psm {psm}",
                                         output_type=pytesseract.Output.DICT)
        words: dict[tuple[int, int, int], list[tuple[str, float]]] = {}
        for i, word in enumerate(data["text"]):
            if str(word).strip():
                key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
                words.setdefault(key, []).append((str(word).strip(), float(data["conf"][i])))
        return [ReadLine(" ".join(w for w, _ in line), min(c for _, c in line), view)
                for _, line in sorted(words.items())]

    @staticmethod
    def text_lines(gray: np.ndarray, max_lines: int = 3) -> list[tuple[int, int, int, int]]:
        """Boxes (x0, y0, x1, y1) of text-like lines: dense strokes (morphological gradient) joined
        horizontally, wider than tall, largest first."""
        h, w = gray.shape
        grad = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        _, bw = cv2.threshold(grad, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        bw = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, w // 40), 1)))
        n, _, stats, _ = cv2.connectedComponentsWithStats(bw, connectivity=8)
        boxes = []
        for x, y, bw_, bh, area in stats[1:]:
            if bh < 6 or bh > h / 3 or bw_ < 1.5 * bh or area < 0.3 * bw_ * bh:
                continue
            pad = max(2, bh // 4)
            boxes.append((max(x - pad, 0), max(y - pad, 0), min(x + bw_ + pad, w), min(y + bh + pad, h), bw_ * bh))
        boxes.sort(key=lambda b: -b[4])
        return [b[:4] for b in boxes[:max_lines]]

    @staticmethod
    def glyph_lines(gray: np.ndarray, max_lines: int = 3) -> list[tuple[int, int, int, int]]:
        """Boxes (x0, y0, x1, y1) of rows of glyphs: stable regions (MSER) shaped like letters (6 px tall or more,
        under a quarter of the image, no wider than 1.6 heights), joined where they share a row (centres within
        0.35 of the taller one's height), a size (x1.6) and a gap under 1.2 heights; rows of two letters or more,
        wider than 1.5 heights, most letters first. Finds a caption whose strokes' gradient joins the scene's edges
        (a title over a wall, text at the frame's edge), which ``text_lines`` loses in one large component."""
        h, w = gray.shape
        _, regions = cv2.MSER_create(5, 12, int(0.05 * h * w)).detectRegions(gray)
        glyphs = sorted({(int(x), int(y), int(bw), int(bh)) for x, y, bw, bh in regions
                         if 6 <= bh <= h / 4 and 0.08 * bh <= bw <= 1.6 * bh})

        def joins(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
            tall = max(a[3], b[3])
            return (abs((a[1] + a[3] / 2) - (b[1] + b[3] / 2)) <= 0.35 * tall and tall <= 1.6 * min(a[3], b[3])
                    and max(b[0] - (a[0] + a[2]), a[0] - (b[0] + b[2])) <= 1.2 * tall)

        used = [False] * len(glyphs)
        rows = []
        for i in range(len(glyphs)):
            if used[i]:
                continue
            row, used[i] = [glyphs[i]], True
            grown = True
            while grown:  # the row's connected set under ``joins``
                grown = False
                for j, g in enumerate(glyphs):
                    if not used[j] and any(joins(r, g) for r in row):
                        row.append(g)
                        used[j] = grown = True
            letters = len({r[0] for r in row})
            x0, y0 = min(r[0] for r in row), min(r[1] for r in row)
            x1, y1 = max(r[0] + r[2] for r in row), max(r[1] + r[3] for r in row)
            if letters < 2 or x1 - x0 < 1.5 * (y1 - y0):
                continue
            # pad by half a height on the sides: a letter MSER missed at an end would turn the word into another
            pad, padx = max(2, (y1 - y0) // 4), max(2, (y1 - y0) // 2)
            rows.append((max(x0 - padx, 0), max(y0 - pad, 0), min(x1 + padx, w), min(y1 + pad, h), letters))
        rows.sort(key=lambda b: -b[4])
        return [b[:4] for b in rows[:max_lines]]

    def _read(self, image: np.ndarray) -> list[ReadLine]:
        """Text lines found in the image (``text_lines``, then the rows of glyphs that overlap none of them,
        ``glyph_lines``; the first five) read one by one (``--psm 7``), each as it is (``raw``), binarised
        (``flat``), binarised with outlined strokes made solid (``filled``) and at its lightest grey level
        (``bright``); else the whole image (``--psm``, ``page``). With the recogniser, every line found (the first six
        distinct ones, rows of glyphs inside blocks of strokes too) read by it as well, as it is (``crnn``) and
        inverted (``crnn_inverted``)."""
        gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        strokes = self.text_lines(gray)
        rows = self.glyph_lines(gray)
        # rows of glyphs may overlap one another (a row of a sign's squares across the caption's row): each is read
        boxes = strokes + [b for b in rows if all(
            min(b[2], o[2]) <= max(b[0], o[0]) or min(b[3], o[3]) <= max(b[1], o[1]) for o in strokes)]
        tesseract, recognizer = self._tesseract(), self._recognizer_ready()
        lines = []
        if tesseract:
            for x0, y0, x1, y1 in boxes[:5]:
                crop = gray[y0:y1, x0:x1]
                otsu, flat = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
                lines += self._ocr(crop, 7, "raw") + self._ocr(flat, 7, "flat")
                lines += self._ocr(self.filled(flat), 7, "filled", pad_white=True)
                bright = self.brightest(crop, otsu)
                if bright is not None:
                    lines += self._ocr(bright, 7, "bright")
        if recognizer:
            # the network reads every line found, a row of glyphs inside a larger block of strokes too (a caption over
            # a logo: the block is no line of text), each with a margin around it, as it was trained (half a height
            # on the sides)
            for x0, y0, x1, y1 in self._distinct(strokes + rows)[:6]:
                mx, my = (y1 - y0) // 2, (y1 - y0) // 4
                wide = gray[max(y0 - my, 0):y1 + my, max(x0 - mx, 0):x1 + mx]
                # and inverted: light glyphs on dark and dark on light are two looks of one line to the network (a
                # binarised line, which Tesseract needs, loses the strokes' grey edges it reads by)
                for view, line in (("crnn", wide), ("crnn_inverted", 255 - wide)):
                    text, confidence = self.recognizer.read(line)
                    if text:
                        lines.append(ReadLine(text, confidence, view))
        return lines or (self._ocr(gray, self.psm, "page") if tesseract else [])

    @staticmethod
    def _distinct(boxes: list[tuple[int, int, int, int]], max_iou: float = 0.6) -> list[tuple[int, int, int, int]]:
        """``boxes`` (x0, y0, x1, y1) in order, less each that overlaps an earlier one by more than ``max_iou``
        (intersection over union): a caption's row of glyphs and its block of strokes are one line, read once."""
        out: list[tuple[int, int, int, int]] = []
        for b in boxes:
            def iou(o: tuple[int, int, int, int]) -> float:
                w = max(0, min(b[2], o[2]) - max(b[0], o[0]))
                h = max(0, min(b[3], o[3]) - max(b[1], o[1]))
                union = (b[2] - b[0]) * (b[3] - b[1]) + (o[2] - o[0]) * (o[3] - o[1]) - w * h
                return w * h / union if union > 0 else 1.0
            if all(iou(o) <= max_iou for o in out):
                out.append(b)
        return out

    @staticmethod
    def filled(flat: np.ndarray) -> np.ndarray:
        """An outlined caption's glyphs made solid: the dark class of the binarised crop ``flat`` (uint8, 0 dark /
        255 light) closed over one pixel. A caption drawn light with a dark outline (the usual subtitle style)
        binarises to two thin strokes per stroke, with the fill between them, which Tesseract reads as other
        letters ('ISLE' for 'HELLO'); closing the gap joins each pair into the stroke a reader sees."""
        dark = (flat == 0).astype(np.uint8)
        closed = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((2, 2), np.uint8))
        return np.where(closed > 0, 0, 255).astype(np.uint8)

    @staticmethod
    def brightest(crop: np.ndarray, otsu: float, min_px: int = 20) -> np.ndarray | None:
        """The brightest of three grey levels in ``crop`` (uint8, H x W) drawn dark on white, or None when the
        light half has under ``min_px`` pixels: Otsu's threshold again over the pixels above ``otsu``. A light
        caption over a light wall with dark things beside it (a frame's black border, a sign) falls in one class
        with the wall at one threshold; the glyphs are the lightest pixels of the line."""
        light = crop[crop > otsu]
        if light.size < min_px or int(light.max()) - int(light.min()) < 16:
            return None
        top, _ = cv2.threshold(light.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        return np.where(crop > top, 0, 255).astype(np.uint8)

    def run(self, op: ReadOp, inputs: OperationInputs, video: VideoContext) -> Measurement:
        required = f"text '{op.text}' legible"
        if not self.available():
            why = f"; the recogniser: {self.recognizer.unavailable_reason}" if self.recognizer is not None else ""
            return unknown(f"the tesseract binary is not installed{why}", required=required)
        t_count = video.num_frames
        boxes = None
        if op.where:
            tracks = inputs.tracks.get(op.where, ())
            if not tracks:
                return unknown(f"'{op.where}' was not found, so there is nowhere to read", required=required)
            tr = max(tracks, key=lambda t: int(np.asarray(t.visible).sum()))
            cand = np.flatnonzero(tr.visible)
            boxes = tr.boxes_xyxy
        else:
            cand = np.arange(t_count)
        if cand.size == 0:
            return unknown("no frame to read", required=required)
        idx = cand[np.unique(np.linspace(0, cand.size - 1, min(self.frames, cand.size)).round().astype(int))]
        h, w = video.frames.shape[1:3]
        reads: dict[int, str] = {}
        read_lines: dict[int, list[ReadLine]] = {}
        scores: dict[int, float] = {}

        def image(k: int) -> np.ndarray:
            img = video.frames[k]
            if boxes is not None:
                x0, y0, x1, y1 = boxes[k]
                pad = 0.15 * max(x1 - x0, y1 - y0)
                x0, y0 = int(max(x0 - pad, 0)), int(max(y0 - pad, 0))
                x1, y1 = int(min(x1 + pad, w - 1)), int(min(y1 + pad, h - 1))
                img = img[y0:y1 + 1, x0:x1 + 1]
            return img

        extra_reads: dict[int, list[ReadLine]] = {}  # frames read besides the sampled ones, each read once

        def read_at(k: int) -> list[ReadLine]:
            if k not in read_lines and k not in extra_reads:
                extra_reads[k] = self._read(image(k))
            return read_lines[k] if k in read_lines else extra_reads[k]

        for k in idx:
            read_lines[int(k)] = self._read(image(int(k)))
            text = "\n".join(line.text for line in read_lines[int(k)])
            reads[int(k)] = text.strip()
            scores[int(k)] = similarity(op.text, text)
        values = {"reads": {str(k): v[:120] for k, v in reads.items()},
                  "confidences": {str(k): [round(line.confidence) for line in v] for k, v in read_lines.items()},
                  "scores": {str(k): round(v, 3) for k, v in scores.items()}}
        # near reads of the claimed text: like it (all its lines together, or one of them that is the claimed text
        # with I's lost)
        hits = sorted(k for k, s in scores.items() if s >= self.match or any(
            part_of_claim(op.text, x.text, ends=False) and similarity(op.text, x.text) >= self.match
            for x in read_lines[k]))
        exact = sorted(k for k, s in scores.items() if s >= 1.0)
        legible = sorted(k for k, v in reads.items() if len(normalise(v)) >= self.min_chars)
        cost = Cost(tool_calls=len(idx))
        if exact:
            # frames where the text is legible: from the first to the last sampled hit
            w = video.window(exact[0], exact[-1])
            return Measurement(state="supported", required=required, measured=f"read '{reads[exact[0]][:60]}'", window=w,
                               windows={"visible": w}, values=values, cost=cost)
        # another text is evidence when one line of it is read the same, and trusted by Tesseract, in two sampled
        # frames and the claimed text is read in none: a stable confident read is what the clip shows ('HPLLO' five
        # times is not 'HELLO'); a stable read Tesseract does not trust is a misread of the same glyphs
        claimed = normalise(op.text)

        def firm(read: list[ReadLine]) -> set[str]:
            """The lines of another text that one frame's ``read`` gives firmly."""
            views: dict[str, set[str]] = {}
            for x in read:
                views.setdefault(normalise(x.text), set()).add(x.view)
            out = set()
            for line in {normalise(x.text) for x in read if x.confidence >= self.firm_confidence}:
                if len(line) < self.min_chars or line == claimed or part_of_claim(claimed, line):
                    continue
                # a near miss of the claimed text is firm only where another view of the line's glyphs (any but the
                # whole page's, and not the network's other look) reads it too, or reads it within a longer line (a
                # stroke at the caption's end read as one more glyph: 'BBAWL' beside 'BAWL' for 'BALL')
                looks = {_reader_of(v) for text, vs in views.items() if line in text for v in vs} - {"page"}
                if similarity(op.text, line) > self.near_miss and len(looks) < 2:
                    continue
                out.add(line)
            return out

        lines: dict[str, list[int]] = {}
        for k in legible:
            for line in firm(read_lines[k]):
                lines.setdefault(line, []).append(k)
        usable = set(int(k) for k in cand)
        if not any(len(ks) >= 2 for ks in lines.values()):
            # a text shown briefly may fall in one sampled frame alone: the frames next to it (``neighbours`` on
            # each side, nearest first) are read for a second frame that gives it firmly
            for line, ks in sorted(lines.items()):
                near = [k for d in range(1, self.neighbours + 1) for k in (ks[0] + d, ks[0] - d)]
                for j in near:
                    if j not in usable or j in read_lines:
                        continue
                    if line in firm(read_at(j)):
                        ks.append(j)
                        break
        cost = Cost(tool_calls=len(idx) + len(extra_reads))
        stable = max(((line, ks) for line, ks in lines.items() if len(ks) >= 2), key=lambda t: (len(t[1]), t[0]),
                     default=None)
        if stable is not None:
            line, ks = stable
            # the window is where the other text shows: between the sampled frames, the first and last frames that
            # read it are found by halving the interval to the sampled frame on each side that does not
            def shows(k: int) -> bool:
                return any(normalise(x.text) == line for x in read_at(k))

            first, last = min(ks), max(ks)
            for step in (-1, 1):
                edge = first if step < 0 else last
                beyond = [int(k) for k in idx if (k - edge) * step > 0 and int(k) not in ks]
                out = (max(beyond) if step < 0 else min(beyond)) if beyond else (
                    int(cand[0]) - 1 if step < 0 else int(cand[-1]) + 1)
                while abs(out - edge) > 1:
                    mid = (out + edge) // 2
                    if mid not in usable:
                        break
                    if shows(mid):
                        edge = mid
                    else:
                        out = mid
                first, last = (edge, last) if step < 0 else (first, edge)
            cost = Cost(tool_calls=len(idx) + len(extra_reads))
            sampled = sum(1 for k in ks if k in read_lines)
            beside = f" and {len(ks) - sampled} next to one" if len(ks) > sampled else ""
            w = video.window(first, last)
            return Measurement(state="contradicted", required=required,
                               measured=f"read '{line[:60]}' in {sampled} of {len(idx)} sampled frames{beside} "
                                        f"instead (similarity {similarity(op.text, line):.2f})", window=w,
                               values=values, cost=cost)
        # a near read of the claimed text that a view gives with confidence is no misread of it: neither the claimed
        # text nor, with one view alone, firmly another ('STPRT' for 'START', read at 95 by one view)
        doubted = sorted({normalise(x.text) for k in hits for x in read_lines[k] if x.confidence >= self.firm_confidence
                          and self.near_miss < similarity(op.text, x.text) < 1.0 and normalise(x.text) != claimed
                          and len(normalise(x.text)) >= self.min_chars and not part_of_claim(op.text, x.text)})
        if hits and doubted:
            return Measurement(state="unknown", required=required, reason=f"read '{doubted[0][:40]}' with confidence, "
                               "in one view only: not the claimed text, and not firmly another", values=values,
                               cost=cost)
        if hits:
            # no firm other text: a near read of the claimed one is the claimed one, misread
            w = video.window(hits[0], hits[-1])
            return Measurement(state="supported", required=required, measured=f"read '{reads[hits[0]][:60]}'", window=w,
                               windows={"visible": w}, values=values, cost=cost)
        reason = "text was found but not read the same, with confidence, in two frames, nor as the claimed text" if legible \
            else "no legible text in the sampled frames"
        return Measurement(state="unknown", required=required, reason=reason, values=values, cost=cost)
