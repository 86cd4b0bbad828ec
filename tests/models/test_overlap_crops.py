"""The classifier's training crops cut as the covered-card pass cuts them (models/training/overlap_crops.py)."""

from __future__ import annotations

import math

import numpy as np

from models.training.dataset import NONE
from models.training.overlap_crops import Corner, card_corners, cut, label_guesses, scene_crops
from models.training.overlap_scenes import OverlapSpec, make_overlap_scene
from models.training.synth import LABELS, faces_deck
from vision.covered_cards import Guesses, outline_of
from vision.rectify import CORNER_H, CORNER_W

WIDTH = 100.0


def _corner(label: str = "7H", shown: float = 1.0) -> Corner:
    return Corner(
        np.array([200.0, 100.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), LABELS.index(label), WIDTH, shown
    )


def _guess(x: float, y: float, turn_degrees: float = 0.0) -> Guesses:
    c, s = math.cos(math.radians(turn_degrees)), math.sin(math.radians(turn_degrees))
    across, down = np.array([[c, s]]), np.array([[-s, c]])
    return Guesses(np.array([[x, y]]), across, down, np.array([WIDTH]))


def test_a_guess_on_a_shown_index_corner_turned_the_cards_way_is_that_card() -> None:
    assert label_guesses(_guess(203, 102, 5.0), [_corner()], []).tolist() == [LABELS.index("7H")]


def test_the_other_lie_of_a_cards_corner_is_no_card() -> None:
    # the side taken for the other side: the index would be read sideways and mirrored
    assert label_guesses(_guess(200, 100, 90.0), [_corner()], []).tolist() == [NONE]


def test_a_guess_a_little_off_a_corner_or_at_a_covered_index_trains_neither_way() -> None:
    assert label_guesses(_guess(215, 100), [_corner()], []).tolist() == [-1]
    assert label_guesses(_guess(200, 100), [_corner(shown=0.6)], []).tolist() == [-1]
    # at a covered index, turned the card's way: whatever covers it is read, left out too
    assert label_guesses(_guess(200, 100), [_corner(shown=0.1)], []).tolist() == [-1]
    assert label_guesses(_guess(200, 100, 90.0), [_corner(shown=0.1)], []).tolist() == [NONE]


def test_a_guess_at_a_cards_other_corners_trains_neither_way() -> None:
    # some designs print an index at all four corners
    far = np.array([600.0, 300.0])
    assert label_guesses(_guess(605, 298, 180.0), [_corner()], [far]).tolist() == [-1]
    assert label_guesses(_guess(400, 400), [_corner()], [far]).tolist() == [NONE]


def test_a_scene_gives_every_shown_index_corner_and_guesses_of_both_kinds() -> None:
    rng = np.random.default_rng(11)
    scene = make_overlap_scene(rng, faces_deck(2), OverlapSpec(kinds=("fan",)))
    pairs, labels = scene_crops(rng, scene)
    corners, _ = card_corners(scene)
    shown = [c for c in corners if c.shown >= 0.85]
    assert pairs[0].shape == (2, CORNER_H, CORNER_W, 3) and len(pairs) == len(labels)
    # the true corners come first, one pair each, then the guesses
    assert labels[: len(shown)] == [c.label for c in shown]
    assert NONE in labels[len(shown) :]
    assert any(label != NONE for label in labels[len(shown) :])


def test_a_true_corner_crop_holds_the_cards_index_ink() -> None:
    rng = np.random.default_rng(3)
    scene = make_overlap_scene(rng, faces_deck(2), OverlapSpec(kinds=("cover",)))
    corners, _ = card_corners(scene)
    top = next(c for c in corners[::-1] if c.shown >= 0.85)
    outline = outline_of(top.at, top.across, top.down, top.width, 1.4)
    crop = cut(scene.image, outline).astype(np.float32)
    # ink (the rank and the suit) near the corner: the crop is far from one flat colour
    assert crop.std() > 20
