"""vision.faces: the project's own procedurally drawn cards."""

from __future__ import annotations

import numpy as np
import pytest

from table.cards import CARD_CODES
from vision.faces import render_back, render_face


def test_every_card_renders_in_every_style() -> None:
    for style in (0, 1, 7):
        for card in CARD_CODES:
            img = render_face(card, style=style)
            assert img.shape == (350, 250, 3) and img.dtype == np.uint8


def test_index_corners_are_turned_180_degrees() -> None:
    img = render_face("7H", width=200, height=280)
    top_left = img[:70, :45].astype(int)
    bottom_right = img[-70:, -45:][::-1, ::-1].astype(int)
    assert np.abs(top_left - bottom_right).mean() < 8


def test_red_suits_are_red_and_black_suits_dark() -> None:
    for card, red in (("5H", True), ("5D", True), ("5S", False), ("5C", False)):
        ink = render_face(card).reshape(-1, 3).astype(int)
        ink = ink[ink.sum(axis=1) < 500]
        redness = (ink[:, 2] - ink[:, :2].mean(axis=1)).mean()
        assert (redness > 60) == red, card


def test_styles_differ_and_are_deterministic() -> None:
    assert not np.array_equal(render_face("QS", style=0), render_face("QS", style=2))
    assert np.array_equal(render_face("QS", style=5), render_face("QS", style=5))
    assert not np.array_equal(render_back(style=0), render_back(style=1))


def test_custom_size() -> None:
    assert render_face("AS", width=100, height=140).shape == (140, 100, 3)
    assert render_back(width=100, height=140).shape == (140, 100, 3)


@pytest.mark.parametrize("bad", ["", "1S", "QX", "10H", "qh"])
def test_bad_card_codes_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card code"):
        render_face(bad)


def test_tiny_images_are_refused() -> None:
    with pytest.raises(ValueError):
        render_face("AS", width=5, height=5)
