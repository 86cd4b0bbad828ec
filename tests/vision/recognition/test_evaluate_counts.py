"""The evaluation's tally of one frame (``models.training.evaluate.counted``): found, named, unknown, wrong, and of the
wrong names those given at 0.9 or more (``sure_wrong``) and those of another suit (``suit_wrong``)."""

from __future__ import annotations

import numpy as np

from models.training.evaluate import SURE, counted
from vision.recognizer import Recognition


def _quad(x: float) -> np.ndarray:
    return np.array([[x, 100], [x + 100, 100], [x + 100, 240], [x, 240]], np.float32)


def _seen(card: str, confidence: float, x: float) -> Recognition:
    return Recognition(card, confidence, _quad(x), np.zeros(53, np.float32))


def test_wrong_names_are_counted_by_confidence_and_by_suit() -> None:
    truth = [("7D", _quad(0)), ("7S", _quad(200)), ("QC", _quad(400)), ("AH", _quad(600)), ("back", _quad(800))]
    seen = [
        _seen("7S", SURE, 0),  # another suit, confident
        _seen("8S", 0.6, 200),  # another rank of the same suit, not confident
        _seen("unknown", 0.4, 400),
        _seen("AH", 0.99, 600),
        _seen("5C", 0.95, 800),  # a back named a face: wrong and confident, no suit to confuse
        _seen("KS", 0.99, 1000),  # no card there
    ]
    tally, outcome = counted(truth, seen)
    assert (tally.cards, tally.found, tally.named, tally.unknown, tally.wrong) == (5, 5, 1, 1, 3)
    assert tally.sure_wrong == 2 and tally.suit_wrong == 1
    assert tally.false_cards == 1 and len(outcome.false) == 1


def test_a_label_that_is_no_face_is_never_a_suit_confusion() -> None:
    """A placeholder label, or a deck reading's "foreign", is wrong but of no suit."""
    truth = [("7D", _quad(0)), ("KC", _quad(200))]
    tally, _ = counted(truth, [_seen("x", 1.0, 0), _seen("foreign", 0.2, 200)])
    assert tally.wrong == 2 and tally.sure_wrong == 1 and tally.suit_wrong == 0
