"""benchmarks/keypoint_judge_cues.py: outlines are sorted on and off their card as the verifier learned them, and each
cue's flags are counted for each sort."""

from __future__ import annotations

import math

import numpy as np

from benchmarks.keypoint_judge_cues import error_of, flagged


def test_an_outline_on_no_card_is_infinitely_off_and_one_on_a_card_is_as_far_off_as_its_farthest_corner() -> None:
    card = np.float32([[100, 100], [200, 100], [200, 240], [100, 240]])
    cards = [("AS", card), ("KH", card + np.float32([300, 0]))]
    assert error_of(card, cards) == 0.0
    assert math.isclose(error_of(card + np.float32([[0, 0], [0, 0], [8, 0], [0, 0]]), cards), 0.08, rel_tol=1e-5)
    assert error_of(card + np.float32([0, 400]), cards) == math.inf
    assert error_of(card, []) == math.inf


def test_flags_are_counted_for_outlines_on_their_card_and_off_it_alone() -> None:
    errors = np.array([0.01, 0.05, 0.09, 0.12, math.inf])  # on, on, between, off, off
    supports = {"cue": np.array([0.5, 1.0, 0.0, 0.92, 1.0])}
    assert flagged(errors, supports) == {"cue": {"under 0.9": [1, 0], "under 0.95": [1, 1]}}
