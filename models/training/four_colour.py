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


DIAMOND_HUES = ((100, 125), (8, 28))
CLUB_HUES = ((45, 95),)
"""OpenCV hue ranges (0-180) of the inks four-colour decks print: diamonds blue or orange to yellow, clubs green to
teal."""


def random_four_colour(rng: np.random.Generator, deck: Deck) -> Deck:
    """``deck`` painted as some four-colour deck: its diamonds' ink of a hue from ``DIAMOND_HUES``, its clubs' from
    ``CLUB_HUES``, each of a random saturation and darkness (training the readers to read a suit by its shape)."""
    return four_colour_deck(deck, _ink(rng, DIAMOND_HUES), _ink(rng, CLUB_HUES))


def _ink(rng: np.random.Generator, hues: tuple[tuple[int, int], ...]) -> tuple[int, int, int]:
    low, high = hues[int(rng.integers(len(hues)))]
    hsv = np.array(
        [[[rng.integers(low, high + 1), rng.integers(150, 256), rng.integers(90, 201)]]],
        np.uint8,
    )
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].tolist()
    return int(b), int(g), int(r)
