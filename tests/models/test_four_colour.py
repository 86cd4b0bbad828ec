"""Four-colour variants of a design for training (models/training/four_colour.py)."""

from __future__ import annotations

import cv2
import numpy as np

from models.training.four_colour import CLUB_HUES, DIAMOND_HUES, GREY_SATURATION, random_four_colour
from models.training.synth import faces_deck


def _ink_hues(face: np.ndarray) -> np.ndarray:
    """The hues (OpenCV, 0-180) of a face's coloured ink pixels."""
    hsv = cv2.cvtColor(np.ascontiguousarray(face[..., :3]), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hues: np.ndarray = hsv[(hsv[:, 1] >= 120) & (hsv[:, 2] < 230), 0].astype(int)
    return hues


def _within(hues: np.ndarray, ranges: tuple[tuple[int, int], ...]) -> float:
    inside = np.zeros(len(hues), bool)
    for low, high in ranges:
        inside |= (hues >= low - 3) & (hues <= high + 3)
    return float(inside.mean())


def test_a_random_four_colour_deck_paints_diamonds_and_clubs_in_their_ranges_and_leaves_the_rest() -> None:
    plain = faces_deck(0)
    for seed in range(6):
        deck = random_four_colour(np.random.default_rng(seed), plain)
        diamonds, clubs = _ink_hues(deck("7D")), _ink_hues(deck("7C"))
        assert len(diamonds) > 50 and _within(diamonds, DIAMOND_HUES) > 0.9
        assert len(clubs) > 50 and _within(clubs, CLUB_HUES) > 0.9
        assert np.array_equal(deck("7H"), plain("7H")) and np.array_equal(deck("7S"), plain("7S"))


def test_random_four_colour_decks_differ_from_one_another() -> None:
    inks = {
        int(np.median(_ink_hues(random_four_colour(np.random.default_rng(seed), faces_deck(0))("5D"))))
        for seed in range(8)
    }
    assert len(inks) >= 4


def test_the_plain_deck_s_clubs_are_black_ink() -> None:
    # what the painting starts from: a club's ink is grey (under GREY_SATURATION) before it is painted
    hsv = cv2.cvtColor(np.ascontiguousarray(faces_deck(0)("7C")[..., :3]), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    dark = hsv[hsv[:, 2] < 100]
    assert len(dark) > 50 and np.median(dark[:, 1]) < GREY_SATURATION
