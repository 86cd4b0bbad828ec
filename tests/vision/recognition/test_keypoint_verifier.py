"""benchmarks/keypoint_verifier.py: the verifier's lessons say "on" only for outlines on their card and "off" for every
way the cascade spoils one, so what it learns is the difference."""

from __future__ import annotations

import numpy as np

from benchmarks.keypoint_spike import clockwise
from benchmarks.keypoint_verifier import BAD, GOOD, on_card, spoil

CARD = clockwise(np.float32([[100, 100], [160, 110], [150, 194], [90, 184]]))  # turned, 61 px wide


def test_every_spoiled_outline_is_a_lesson_in_off() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        assert on_card(spoil(CARD, rng), [CARD]) == 0.0


def test_an_outline_on_its_card_is_on_one_near_it_teaches_nothing_and_one_on_no_card_is_off() -> None:
    assert on_card(CARD, [CARD]) == 1.0
    assert on_card(np.roll(CARD, 1, axis=0), [CARD]) == 1.0  # any corner order
    width = 61.0
    nudged = CARD + np.float32([[GOOD * width * 0.8, 0], [0, 0], [0, 0], [0, 0]])
    between = CARD + np.float32([[(GOOD + BAD) / 2 * width, 0], [0, 0], [0, 0], [0, 0]])
    assert on_card(nudged, [CARD]) == 1.0
    assert on_card(between, [CARD]) is None
    assert on_card(between, [CARD], good=(GOOD + BAD) / 2 + 0.01) == 1.0  # a looser "on" takes it in
    assert on_card(CARD + 400, [CARD]) == 0.0  # on the table
    assert on_card(CARD, []) == 0.0  # a frame with no card
    other = CARD + np.float32([300, 0])
    assert on_card(other, [CARD, other]) == 1.0  # judged against the card under it
