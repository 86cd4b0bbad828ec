"""benchmarks/segmentation_spike.py: the geometry between a card's outline and its mask is exact, so what the spike
measures is the network, not its drawing or reading of masks."""

from __future__ import annotations

import numpy as np

from benchmarks.segmentation_spike import card_mask, outlines
from models.training.dataset import match_index


def test_a_perfect_mask_gives_back_each_card_within_the_benchmarks_match() -> None:
    cards = [
        ("AS", np.float32([[100, 80], [260, 96], [244, 320], [84, 304]])),  # turned a little
        ("KH", np.float32([[600, 300], [700, 300], [700, 440], [600, 440]])),  # upright, 100 px wide
        ("7C", np.float32([[706, 300], [806, 300], [806, 440], [706, 440]])),
    ]  # 6 px from KH
    mask = card_mask(cards)
    assert mask.shape == (180, 320)
    found = outlines(mask.astype(np.float32))
    assert len(found) == 3  # the two cards 6 px apart stay apart
    for _, quad in cards:
        i = match_index(quad, found)
        assert i is not None
        assert np.abs(np.sort(found[i], axis=0) - np.sort(quad, axis=0)).max() < 6  # within 1.5 px at a quarter
