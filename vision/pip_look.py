"""The pip look: a card's suit read from its whole face, for cards the index model is unsure of.

A number card's pips are several times the size of its index's suit, so where motion blur or a small card
leaves the index's club and spade alike, the pips in the middle still tell them apart. ``models/pipnet.onnx``
(trained by ``models.training.pip_look``) reads the whole card, rectified to grey ``PIP_H`` x ``PIP_W`` and
normalised to its paper white, and gives the probabilities of the four suits (``SUITS``) and of the rank
(``RANKS``: A-10, or a court card); the recogniser weighs an unsure card's faces by them
(``vision.recognizer.PIP_LOOK_BELOW``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from models import shipped
from vision.classify import cpu_session
from vision.errors import ModelError
from vision.rectify import card_homography

SUITS = ("C", "D", "H", "S")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "court")
"""The rank head's classes: a number card's rank (its pips), or a court card (J, Q, K: one class, the art
tells them apart only by design)."""
PIP_H, PIP_W = 68, 48  # the whole card, portrait
_WARP_H, _WARP_W = 2 * PIP_H, 2 * PIP_W  # warped at twice the size, then shrunk by area: no aliasing of the print
NORMALISATION = "paper-white-grey"  # what ``normalise`` does; the metadata must name it
DEFAULT_PIP_MODEL = shipped("pipnet.onnx")


def card_image(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(PIP_H, PIP_W) uint8: the card inside ``quad`` rectified, grey."""
    h = card_homography(quad, _WARP_W, _WARP_H)
    card = cv2.warpPerspective(
        frame, h, (_WARP_W, _WARP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    out: np.ndarray = cv2.resize(grey, (PIP_W, PIP_H), interpolation=cv2.INTER_AREA)
    return out


def normalise(images: np.ndarray) -> np.ndarray:
    """(N, H, W) uint8 -> float32: each image divided by its 98th percentile (the paper), capped at 1.25,
    minus 0.5, so exposure cancels as in the index model's ``white-point``."""
    x = images.astype(np.float32)
    white = np.maximum(np.percentile(x.reshape(len(x), -1), 98, axis=1), 1.0)[:, None, None]
    out: np.ndarray = np.minimum(x / white, 1.25) - 0.5
    return out


class PipLook:
    """The pip model under onnxruntime: ``read(frame, quads)`` -> suit and rank probabilities. Its metadata
    (``pipnet.json`` beside it: labels, input size, normalisation) and its output width are checked at load, so
    a model made for other cards or crops is refused with a ModelError saying which file and what differs."""

    def __init__(self, model_path: str | Path = DEFAULT_PIP_MODEL, *, threads: int = 1) -> None:
        path = Path(model_path)
        meta_path = path.with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as e:
            raise ModelError(f"{meta_path}: cannot read the pip model's metadata: {e}") from e
        if not isinstance(meta, dict):
            raise ModelError(f"{meta_path}: the pip model's metadata must be a JSON object")
        size = meta.get("input_size")
        if meta.get("labels") != [*SUITS, *RANKS] or size != {"height": PIP_H, "width": PIP_W}:
            raise ModelError(
                f"{meta_path}: expected labels {[*SUITS, *RANKS]} and input {PIP_H}x{PIP_W}, got "
                f"{meta.get('labels')} and {size}"
            )
        if not str(meta.get("normalisation", "")).startswith(NORMALISATION):
            raise ModelError(
                f"{meta_path}: expected normalisation {NORMALISATION!r}, got {meta.get('normalisation')!r}"
            )
        self.session = cpu_session(path, threads, "the pip model")
        self.input = self.session.get_inputs()[0].name
        width = self.session.get_outputs()[0].shape[-1]
        if width != len(SUITS) + len(RANKS):
            raise ModelError(f"{path}: the pip model gives {width} outputs, its labels are {len(SUITS) + len(RANKS)}")

    def read(self, frame: np.ndarray, quads: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(N, 4) suit probabilities over ``SUITS`` and (N, 11) rank probabilities over ``RANKS``."""
        if not len(quads):
            return np.zeros((0, len(SUITS)), np.float32), np.zeros((0, len(RANKS)), np.float32)
        images = np.stack([card_image(frame, q) for q in quads])
        logits = self.session.run(None, {self.input: normalise(images)[:, None]})[0]
        return _softmax(logits[:, : len(SUITS)]), _softmax(logits[:, len(SUITS) :])


def rank_of_face(faces: np.ndarray) -> np.ndarray:
    """Face indices (suit-major, 13 a suit: ``vision.recognizer.LABELS``) -> index in ``RANKS``."""
    out: np.ndarray = np.minimum(np.asarray(faces) % 13, len(RANKS) - 1)
    return out


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: np.ndarray = (z / z.sum(axis=1, keepdims=True)).astype(np.float32)
    return out
