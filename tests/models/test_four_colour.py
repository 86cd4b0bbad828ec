"""Four-colour variants of a design for training (models/training/four_colour.py)."""

from __future__ import annotations

import cv2
import numpy as np

from models.training.four_colour import GREY_SATURATION, INK_HUES, random_four_colour
from models.training.synth import Deck, faces_deck


def _ink_hues(face: np.ndarray) -> np.ndarray:
    """The hues (OpenCV, 0-180) of a face's coloured ink pixels."""
    hsv = cv2.cvtColor(np.ascontiguousarray(face[..., :3]), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hues: np.ndarray = hsv[(hsv[:, 1] >= 120) & (hsv[:, 2] < 230), 0].astype(int)
    return hues


def _hue(deck: Deck, label: str) -> int:
    hues = _ink_hues(deck(label))
    assert len(hues) > 50, label
    return int(np.median(hues))


def test_a_random_four_colour_deck_paints_diamonds_and_clubs_but_not_red_and_leaves_the_rest() -> None:
    plain = faces_deck(0)
    for seed in range(8):
        deck = random_four_colour(np.random.default_rng(seed), plain)
        for label in ("7D", "7C"):
            assert INK_HUES[0] - 3 <= _hue(deck, label) <= INK_HUES[1] + 3
        assert np.array_equal(deck("7H"), plain("7H")) and np.array_equal(deck("7S"), plain("7S"))


def test_a_suit_s_ink_colour_says_nothing_of_which_suit_it_is() -> None:
    """Diamonds and clubs take their hues independently: over many decks each suit's hues spread over the same
    range (a reader trained on them cannot tell a diamond from a club by its colour)."""
    decks = [random_four_colour(np.random.default_rng(seed), faces_deck(0)) for seed in range(24)]
    diamonds = np.array([_hue(d, "5D") for d in decks])
    clubs = np.array([_hue(d, "5C") for d in decks])
    for hues in (diamonds, clubs):
        assert hues.min() < 50 and hues.max() > 120
    assert (diamonds > clubs).mean() > 0.2 and (clubs > diamonds).mean() > 0.2


def test_the_plain_deck_s_clubs_are_black_ink() -> None:
    # what the painting starts from: a club's ink is grey (under GREY_SATURATION) before it is painted
    hsv = cv2.cvtColor(np.ascontiguousarray(faces_deck(0)("7C")[..., :3]), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    dark = hsv[hsv[:, 2] < 100]
    assert len(dark) > 50 and np.median(dark[:, 1]) < GREY_SATURATION
