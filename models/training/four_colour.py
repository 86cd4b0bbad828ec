"""Four-colour variants of a design: its diamonds' red ink painted blue and its clubs' black ink green.

Four-colour decks (poker rooms, bridge clubs) print diamonds blue and clubs green; some older ones print diamonds
yellow or orange. A held-out design's four-colour variant measures whether suits are read from their shape
(``evaluate --four-colour``; ``vision.ink_colour`` is how the recogniser reads them).

    deck = four_colour_deck(folder_deck(path))          # KD blue, 5C green, hearts and spades as printed
"""

from __future__ import annotations

import cv2
import numpy as np

from models.training.synth import Deck

BLUE = (190, 70, 20)
GREEN = (40, 130, 20)
"""BGR inks of a common four-colour deck."""
RED_HUES = (12, 168)
"""OpenCV hues (0-180) of red ink: under the first or over the second."""
GREY_SATURATION = 60
"""Pixels under this saturation (0-255) are black, grey or paper."""


def recolour_ink(card: np.ndarray, suit: str, ink: tuple[int, int, int]) -> np.ndarray:
    """A copy of a BGR or BGRA card image with its suit's ink painted ``ink`` (BGR): a diamond's or heart's red
    ink, a club's or spade's black ink (the court figures' ink of that colour too, as four-colour decks print
    them). The ink's strength is kept (its edges stay soft); paper, the other inks and the alpha are unchanged."""
    if suit not in "CDHS" or len(suit) != 1:
        raise ValueError(f"a suit is one of C, D, H, S, got {suit!r}")
    bgr = card[..., :3]
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    hue, sat = hsv[..., 0], hsv[..., 1]
    if suit in "DH":
        where = ((hue < RED_HUES[0]) | (hue > RED_HUES[1])) & (sat >= GREY_SATURATION)
        strength = 1.0 - bgr[..., 1].astype(np.float32) / 255.0  # red ink absorbs green
    else:
        where = sat < GREY_SATURATION
        strength = 1.0 - hsv[..., 2].astype(np.float32) / 255.0
    painted = 255.0 - strength[..., None] * (255.0 - np.array(ink, np.float32))
    out = card.copy()
    out[..., :3][where] = np.clip(painted[where], 0, 255).astype(np.uint8)
    return out


def four_colour_deck(deck: Deck, diamonds: tuple[int, int, int] = BLUE, clubs: tuple[int, int, int] = GREEN) -> Deck:
    """``deck`` with its diamonds' ink painted ``diamonds`` and its clubs' ``clubs``; hearts, spades and the back
    as printed. Each face is painted once and kept."""
    painted: dict[str, np.ndarray] = {}

    def four(label: str) -> np.ndarray:
        if label not in painted:
            face = deck(label)
            suit = label[1] if len(label) == 2 else ""
            ink = {"D": diamonds, "C": clubs}.get(suit)
            painted[label] = recolour_ink(face, suit, ink) if ink is not None else face
        return painted[label]

    return four


INK_HUES = (14, 166)
"""OpenCV hues (0-180) a painted suit's ink may take: any but red's. Four-colour decks print diamonds blue, orange or
yellow and clubs green, but a reader that learnt those pairs reads the colour, not the shape (a deck with violet
clubs would read as diamonds): each suit gets a hue of its own, drawn independently."""


def random_four_colour(rng: np.random.Generator, deck: Deck) -> Deck:
    """``deck`` painted as some four-colour deck: its diamonds' ink and its clubs' each of a hue from ``INK_HUES``
    drawn on its own, of a random saturation and darkness (training the readers to read a suit by its shape)."""
    return four_colour_deck(deck, _ink(rng), _ink(rng))


def _ink(rng: np.random.Generator) -> tuple[int, int, int]:
    hsv = np.array(
        [[[rng.integers(INK_HUES[0], INK_HUES[1] + 1), rng.integers(150, 256), rng.integers(90, 201)]]],
        np.uint8,
    )
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].tolist()
    return int(b), int(g), int(r)
