"""The overlap scenes' truth: which cards show an index corner (models/training/overlap_scenes.py)."""

from __future__ import annotations

import numpy as np

from models.training.overlap_scenes import ARRANGEMENTS, OverlapSpec, make_overlap_scene, visibility
from models.training.synth import faces_deck


def _rect(x: float, y: float, w: float = 100, h: float = 140) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_a_card_under_another_in_the_same_place_shows_nothing() -> None:
    (under, under_index), (over, over_index) = visibility([_rect(50, 50), _rect(50, 50)], 400, 300)
    assert under < 0.02 and not under_index
    assert over == 1.0 and over_index


def test_a_card_covered_but_for_its_top_left_corner_shows_its_index() -> None:
    (shown, index), _ = visibility([_rect(50, 50), _rect(80, 90)], 400, 300)
    assert 0.1 < shown < 0.5 and index


def test_a_card_covered_at_both_index_corners_shows_no_index_though_its_middle_shows() -> None:
    card = _rect(50, 50)
    strips = [_rect(40, 40, 120, 40), _rect(40, 160, 120, 40)]  # over its top and its bottom
    (shown, index), *_ = visibility([card, *strips], 400, 300)
    assert shown > 0.3 and not index


def test_scenes_hold_each_face_once_inside_the_frame_in_every_arrangement() -> None:
    rng = np.random.default_rng(5)
    kinds = set()
    for _ in range(12):
        scene = make_overlap_scene(rng, faces_deck(1), OverlapSpec())
        labels = [c.label for c in scene.cards]
        assert len(labels) == len(set(labels)) and labels
        for c in scene.cards:
            assert c.quad.min() >= 0 and c.quad[:, 0].max() < 1280 and c.quad[:, 1].max() < 720
            assert c.whole == (c.shown >= 0.97)
        kinds |= {c.arrangement for c in scene.cards}
        assert scene.image.shape == (720, 1280, 3)
    assert kinds == set(ARRANGEMENTS)
