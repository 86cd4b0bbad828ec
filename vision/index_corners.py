"""Index corners found by a network (``models/index_corners.onnx``): where a card's printed index corner lies, which
way the card lies and how wide it is, for whole cards and for cards partly under others alike.

The network reads the working image at ``INPUT_SCALE`` and answers on a grid of one cell per ``STRIDE`` of its input
pixels: how likely an index corner lies in each cell (a heatmap, logits), and for the cell the corner's offset from
its centre, the direction across the card times the card's width and the direction down the card (``ANSWERS``).
Each peak of the heatmap at ``FOUND_FROM`` or more is a corner guess for the covered-card pass
(``vision.covered_cards``), which reads it with the index classifier: the network says where to look, the classifier
what is there. Unlike guesses built from straight edges, these need no side to show as an edge (a card over another
of the same paper shows almost none) and need not be square (a tilted camera's corners are not).

``python -m models.training.build corners`` trains it (``models/training/index_corners.py``) and writes
``models/index_corners.json`` beside it (the file's SHA-256, checked at load).

    finder = IndexCornerFinder.load()
    guesses = finder.find(image)                       # covered_cards.Guesses, working-image pixels
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import shipped
from vision.covered_cards import Guesses
from vision.errors import ModelError

INPUT_SCALE = 0.5
"""The network reads the working image at this scale (cards about 40-110 of its pixels wide)."""
STRIDE = 4
"""Input pixels per cell of the network's answer grid."""
ANSWERS = 6
"""Per cell: the corner's offset from the cell's centre (2, ``OFFSET_SCALE`` units), the direction across the card
times its width (2, ``WIDTH_SCALE`` units) and the unit direction down the card (2)."""
OFFSET_SCALE = 4.0
WIDTH_SCALE = 64.0
MODEL_FILE = "index_corners.onnx"
META_FILE = "index_corners.json"
DEFAULT_META = shipped(META_FILE)
FOUND_FROM = 0.2
"""A heatmap peak at this probability or more is a corner guess (the index classifier then reads it)."""
MOST_FOUND = 200
"""At most this many guesses a frame, the likeliest first."""
MULTIPLE = 16
"""The network's input sides are a multiple of this (four halvings)."""


@dataclass(frozen=True)
class IndexCornerFinder:
    """The index-corner network, loaded (``load``)."""

    session: Any

    @staticmethod
    def load(meta_path: str | Path | None = None, threads: int = 1) -> IndexCornerFinder:
        """The network its metadata (default the shipped ``models/index_corners.json``) names, checked against the
        SHA-256 there; a ``ModelError`` that says what is wrong where a file is missing or does not match."""
        from vision.classify import cpu_session
        from vision.learned_outlines import sha256

        meta_file = Path(meta_path) if meta_path is not None else DEFAULT_META
        try:
            meta = json.loads(meta_file.read_text())
            model = meta_file.parent / str(meta["file"])
            want = str(meta["sha256"])
            scale, stride, answers = float(meta["input_scale"]), int(meta["stride"]), int(meta["answers"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ModelError(f"{meta_file}: not the index-corner network's metadata ({e})") from e
        if (scale, stride, answers) != (INPUT_SCALE, STRIDE, ANSWERS):
            raise ModelError(
                f"{meta_file}: the network reads at scale {scale}, stride {stride}, {answers} answers; this pipeline "
                f"decodes {INPUT_SCALE}, {STRIDE}, {ANSWERS}"
            )
        if not model.is_file():
            raise ModelError(f"{model}: the index-corner network is missing")
        if sha256(model) != want:
            raise ModelError(f"{model}: not the file {meta_file.name} describes (its SHA-256 differs)")
        return IndexCornerFinder(cpu_session(model, threads, "the index-corner network"))

    def heat_and_answers(self, image: np.ndarray) -> np.ndarray:
        """The network's raw answer (1 + ``ANSWERS``, H, W) for a BGR working image."""
        h, w = image.shape[:2]
        size = (max(1, round(w * INPUT_SCALE)), max(1, round(h * INPUT_SCALE)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        padded_h, padded_w = -(-size[1] // MULTIPLE) * MULTIPLE, -(-size[0] // MULTIPLE) * MULTIPLE
        x = np.zeros((1, 3, padded_h, padded_w), np.float32)
        x[0, :, : size[1], : size[0]] = small.transpose(2, 0, 1).astype(np.float32) / 255.0 - 0.5
        out: np.ndarray = self.session.run(None, {"x": x})[0][0]
        return out

    def find(self, image: np.ndarray) -> Guesses:
        """The index corners in a BGR working image as corner guesses (working-image pixels)."""
        return decode(self.heat_and_answers(image))


def decode(answer: np.ndarray, found_from: float = FOUND_FROM) -> Guesses:
    """The heatmap's peaks (a cell at least as likely as its eight neighbours, at ``found_from`` or more) as corner
    guesses in working-image pixels: the corner, the unit directions across and down, the card's width."""
    heat = 1.0 / (1.0 + np.exp(-answer[0]))
    peak = heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(peak & (heat >= found_from))
    order = np.argsort(-heat[ys, xs], kind="stable")[:MOST_FOUND]
    ys, xs = ys[order], xs[order]
    cells = np.stack([(xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE], axis=1)
    a = answer[1:, ys, xs].T.astype(np.float64)
    corners = cells + a[:, 0:2] * OFFSET_SCALE
    across = a[:, 2:4] * WIDTH_SCALE
    widths = np.linalg.norm(across, axis=1)
    down = a[:, 4:6]
    ok = (widths > 2.0) & (np.linalg.norm(down, axis=1) > 0.3)
    across = across[ok] / widths[ok, None]
    down = down[ok] / np.linalg.norm(down[ok], axis=1, keepdims=True)
    return Guesses(
        corners[ok] / INPUT_SCALE, across, down, widths[ok] / INPUT_SCALE, heat[ys, xs][ok].astype(np.float32)
    )
