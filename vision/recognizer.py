"""Find every card in a camera frame and name it: detection + rectification + classification.

Public API (stable; bodies are filled in as the stages land):

    rec = Recognizer()                      # loads models/cardnet.onnx + cardnet.json
    for r in rec.recognize(frame_bgr):      # every card on the table
        print(r.card, r.confidence, r.corners)
    rec.classify_quads(frame_bgr, quads)    # when a tracker already knows where the cards are
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.faces import all_cards

LABELS: tuple[str, ...] = (*all_cards(), "back")
"""Classifier outputs: the 52 faces "AC".."KC", "AD".., "AH".., "AS".."KS" (suit-major, as
``table.cards.Card.index``), then "back" for a face-down card."""

UNKNOWN = "unknown"


@dataclass(frozen=True, eq=False)
class Recognition:
    """One card seen in a frame."""

    card: str  # "QH" | "back" | "unknown"
    confidence: float
    corners: np.ndarray  # (4, 2) float32 image pixels, card outline clockwise from the top-left corner
    probabilities: np.ndarray  # (53,) softmax over LABELS


class Recognizer:
    """Detect, rectify and classify cards with the project's ONNX model."""

    def __init__(self, model_path: str | Path | None = None, *, threads: int = 1,
                 min_confidence: float | None = None, min_margin: float | None = None) -> None:
        raise NotImplementedError("the recogniser lands with issue 5's model")

    def recognize(self, frame_bgr: np.ndarray) -> list[Recognition]:
        raise NotImplementedError

    def classify_quads(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        raise NotImplementedError
