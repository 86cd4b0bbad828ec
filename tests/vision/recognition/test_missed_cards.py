"""``benchmarks/missed_cards.py``'s outline diagnosis: how far the nearest outline of a missed card is off, and
in how many corners (docs/performance.md quotes its counts)."""

import numpy as np

from benchmarks.missed_cards import nearest_error

TRUTH = np.float32([[100, 100], [200, 100], [200, 240], [100, 240]])  # 100 px wide: 12% is 12 px


def test_an_outline_with_one_corner_20_percent_off_has_one_corner_off() -> None:
    quad = TRUTH.copy()
    quad[2] += (20, 0)
    assert nearest_error(TRUTH, [quad]) == (0.2, 1)
    assert nearest_error(TRUTH, [np.roll(quad, 2, axis=0)]) == (0.2, 1)  # read from the other short side


def test_a_side_moved_out_15_percent_has_two_corners_off_and_small_errors_none() -> None:
    quad = TRUTH.copy()
    quad[1:3] += (15, 0)
    quad[0] += (5, 5)  # within 12%: not counted
    assert nearest_error(TRUTH, [quad]) == (0.15, 2)


def test_the_best_outline_near_the_centre_is_taken_and_far_ones_are_none() -> None:
    worse, better = TRUTH + (30, 0), TRUTH + (13, 0)
    assert nearest_error(TRUTH, [worse, better]) == (0.13, 4)
    assert nearest_error(TRUTH, [TRUTH + (60, 0)]) is None  # centre more than a third of a width away
