"""Suits read from their shape: a card's index ink in a colour the classifier never learnt (a four-colour deck's blue
diamonds and green clubs) is redrawn red and black and the pip model's reading of the shapes decides
(``vision.ink_colour``, ``Recognizer._read_inked``). Uses the project's own drawn faces, so it runs everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from models.training.four_colour import BLUE, GREEN, four_colour_deck, recolour_ink
from models.training.synth import Deck, faces_deck, paste_flat
from vision.ink_colour import BLACK, RED, InkColour, coloured_ink, ink_colour, ink_colour_of_crop, repaint
from vision.recognizer import Recognizer
from vision.rectify import CORNER_H, CORNER_W

CARDS = ["AD", "7D", "KD", "5C", "QC", "9H", "2S", "TD", "8C", "JD", "3C", "QD"]
FELT = (40, 100, 35)


def _row(deck: Deck, labels: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Cards 100 x 140 px flat on felt in a row, and their outlines."""
    frame = np.full((400, 180 * len(labels) + 60, 3), FELT, np.uint8)
    quads = []
    for j, label in enumerate(labels):
        x, y = 30 + j * 180, 120
        paste_flat(frame, deck(label), x, y, 100, 140)
        quads.append(np.array([[x, y], [x + 100, y], [x + 100, y + 140], [x, y + 140]], np.float32))
    return frame, quads


def test_the_ink_colour_of_an_index_is_red_black_or_other() -> None:
    plain, four = faces_deck(0), four_colour_deck(faces_deck(0))
    frame, quads = _row(plain, ["9H", "2S", "7D", "5C"])
    assert [ink_colour(frame, q) for q in quads] == [RED, BLACK, RED, BLACK]
    frame, quads = _row(four, ["9H", "2S", "7D", "5C"])
    assert [ink_colour(frame, q) for q in quads] == [RED, BLACK, InkColour.OTHER, InkColour.OTHER]


def test_a_blank_corner_has_no_ink_colour_and_a_crop_of_another_size_is_refused() -> None:
    assert ink_colour_of_crop(np.full((CORNER_H, CORNER_W, 3), 235, np.uint8)) is InkColour.NONE
    with pytest.raises(ValueError, match="index-corner crop"):
        ink_colour_of_crop(np.full((CORNER_H + 1, CORNER_W, 3), 235, np.uint8))


def test_the_ink_colour_ignores_a_cast_of_the_light() -> None:
    """Each channel is measured against the paper's, as the classifier's input is: a blue cast makes red ink no
    less red, and black ink no bluer."""
    frame, quads = _row(faces_deck(0), ["9H", "2S"])
    cast = np.clip(frame * np.array([1.3, 0.95, 0.7], np.float32), 0, 255).astype(np.uint8)
    assert [ink_colour(cast, q) for q in quads] == [RED, BLACK]


def test_redrawing_paints_only_coloured_ink_inside_the_cards() -> None:
    frame, quads = _row(four_colour_deck(faces_deck(0)), ["7D", "9H", "2S", "5C"])
    for to in (RED, BLACK):
        redrawn = repaint(frame, coloured_ink(frame, [quads[0], quads[3]]), to)
        assert ink_colour(redrawn, quads[0]) is to and ink_colour(redrawn, quads[3]) is to
        changed = np.any(redrawn != frame, axis=2)
        inside = np.zeros(changed.shape, bool)
        for q in (quads[0], quads[3]):
            (x0, y0), (x1, y1) = q[0].astype(int), q[2].astype(int)
            inside[y0 : y1 + 1, x0 : x1 + 1] = True
        assert changed.any() and not (changed & ~inside).any()  # the felt, the red 9H and the black 2S as they were


def test_recolouring_a_deck_s_suits_does_not_change_what_its_cards_are_read_as(recognizer: Recognizer) -> None:
    """Blue diamonds and green clubs (the common four-colour deck), and yellow diamonds with violet clubs: every card
    is read as the same card as in the two-colour deck."""
    for style in (0, 3, 9, 12):
        deck = faces_deck(style)
        frame, quads = _row(deck, CARDS)
        assert [r.card for r in recognizer.classify_quads(frame, quads)] == CARDS
        for diamonds, clubs in ((BLUE, GREEN), ((0, 170, 230), (160, 40, 120))):
            recoloured, _ = _row(four_colour_deck(deck, diamonds, clubs), CARDS)
            assert [r.card for r in recognizer.classify_quads(recoloured, quads)] == CARDS, (style, diamonds)


COURTS = ["JD", "QD", "KD", "JC", "QC", "KC"]


@pytest.mark.parametrize("style", [2, 6, 13])
def test_a_four_colour_deck_s_court_cards_are_named_by_their_index(recognizer: Recognizer, style: int) -> None:
    """Court cards of styles whose figures the pip model cannot read pips on: the covered-card reader's reading of
    the index corners decides their suit (without it they were unknown), whatever the four-colour deck's inks."""
    for diamonds, clubs in ((BLUE, GREEN), (GREEN, BLUE), ((0, 170, 230), (160, 40, 120))):
        frame, quads = _row(four_colour_deck(faces_deck(style), diamonds, clubs), COURTS)
        assert [r.card for r in recognizer.classify_quads(frame, quads)] == COURTS, (diamonds, clubs)


def test_read_by_colour_a_blue_diamond_is_a_spade() -> None:
    """Why the redraw exists (and that the test above can fail): without it the classifier, which learnt suits from
    two-colour decks, names blue diamonds as spades."""
    frame, quads = _row(four_colour_deck(faces_deck(0)), CARDS)
    read = [r.card for r in Recognizer(threads=1, ink_shape=False).classify_quads(frame, quads)]
    spades = [(label, seen) for label, seen in zip(CARDS, read, strict=True) if label[1] == "D" and seen[1:] == "S"]
    assert len(spades) >= 2, read


def test_recolour_ink_paints_one_suit_s_ink_and_keeps_the_alpha() -> None:
    card = faces_deck(0)("7D")
    blue = recolour_ink(card, "D", BLUE)
    assert np.array_equal(blue[..., 3], card[..., 3])
    changed = np.any(blue[..., :3] != card[..., :3], axis=2)
    assert changed.mean() > 0.01  # the pips and the index
    red = changed  # a club's paint leaves a diamond's red ink as printed
    assert np.array_equal(recolour_ink(card, "C", GREEN)[..., :3][red], card[..., :3][red])
    with pytest.raises(ValueError, match="suit"):
        recolour_ink(card, "X", BLUE)
