"""The colour of a card's index ink, and the card's ink redrawn red or black: suits are read from their shape.

The classifier learnt from two-colour decks, where a suit's colour agrees with its shape, and at an index's size
(a suit a few pixels tall) colour is much of what it reads: a four-colour deck's blue diamond reads as a spade
with high confidence. A card whose index ink is neither red nor black nor grey (blue, green, yellow, violet) is
therefore read again with its coloured ink redrawn red and redrawn black, and the pip model's reading of the shapes
and the covered-card reader's reading of its index corners (that reader learnt decks painted in inks of every hue)
weigh the readings (``vision.recognizer``): the shape decides, as it does for a person reading an unfamiliar deck.
Red and black ink is left as it is, so a two-colour deck is read exactly as before.

    ink_colour(frame, quad)                             # InkColour.OTHER for a blue diamond
    redrawn = repaint(frame, coloured_ink(frame, [quad]), RED)  # its blue ink now red, the rest as it was
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.rectify import CORNER_H, CORNER_W, corner_crops

PAPER_PERCENTILE = 98.0
"""Each channel of a crop is measured against this percentile of itself (the card's paper), so a colour cast
of the light cancels, as the classifier's own input normalisation cancels it."""
INK_SPAN = 0.5
"""A pixel is ink where its darkest channel lies below the paper by more than this share of the way to the crop's
darkest ink (the crop's 2nd percentile): a blurred or hazy index, whose ink never gets dark, still has its ink."""
MIN_INK_DEPTH = 0.2
"""A crop whose darkest ink is under this share below the paper has no ink to judge (a blank corner)."""
MIN_INK_PIXELS = 12
"""An index corner with fewer ink pixels than this (a back's plain margin, an empty crop) has no ink colour."""
GREY_CHROMA = 0.21
"""Ink whose channels (as shares of the paper's) differ by less than this share of the ink's depth is black or
grey: black ink blurred, in haze or under a cast stays under it, a blue or green one (however light) over it."""
MIN_PAINT_DEPTH = 0.06
"""``coloured_ink`` takes pixels at least this share below the paper (lighter ones are paper and its noise)."""
RED_HUE = (20, 165)
"""OpenCV hue (0-180): ink under the first or over the second is red (orange and a faded, pinkish red included: a
two-colour deck's red under warm light lies near 13)."""
RED_INK = np.array([0.13, 0.13, 0.85], np.float32)
BLACK_INK = np.array([0.12, 0.12, 0.12], np.float32)
"""Ink colours (B, G, R as shares of the paper's) the redrawn ink takes: the printed red and black of a deck."""


def _inner_mask() -> np.ndarray:
    """(CORNER_H * CORNER_W,) float32: 1 on the crop's pixels that lie on the card's paper even when the outline is a
    pixel or two off, 0 on its outer two rows and columns and its rounded corner, where the table shows."""
    y, x = np.mgrid[:CORNER_H, :CORNER_W]
    mask: np.ndarray = ((x >= 2) & (y >= 2) & (x + y >= 10)).astype(np.float32).ravel()
    return mask


_INNER = _inner_mask()


class InkColour(enum.Enum):
    NONE = "none"  # too little ink to tell (a back, a blank crop)
    BLACK = "black"  # black or grey
    RED = "red"
    OTHER = "other"  # blue, green, yellow, violet: a four-colour deck's diamonds or clubs

    @property
    def target(self) -> np.ndarray:
        """The ink colour ``repaint`` paints for RED or BLACK."""
        if self is InkColour.RED:
            return RED_INK
        if self is InkColour.BLACK:
            return BLACK_INK
        raise ValueError(f"ink is redrawn red or black, not {self.value}")


RED, BLACK = InkColour.RED, InkColour.BLACK


def _paper(pixels: np.ndarray) -> np.ndarray:
    """(3,) float32: the paper's colour among (N, 3) pixels, each channel's ``PAPER_PERCENTILE`` (never under 8)."""
    k = int(PAPER_PERCENTILE / 100 * (len(pixels) - 1))
    paper: np.ndarray = np.maximum(np.partition(pixels, k, axis=0)[k].astype(np.float32), 8.0)
    return paper


def _is_red(shares: np.ndarray) -> np.ndarray:
    """Per (..., 3) share pixel: whether its hue is red."""
    hsv = cv2.cvtColor(np.clip(shares * 255, 0, 255).astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_BGR2HSV)
    hue = hsv[:, 0, 0].reshape(shares.shape[:-1])
    red: np.ndarray = (hue < RED_HUE[0]) | (hue > RED_HUE[1])
    return red


def ink_colour_of_crop(crop: np.ndarray) -> InkColour:
    """The colour of the ink in one index-corner crop (``CORNER_H``, ``CORNER_W``, 3) BGR, as ``rectify.corner_crops``
    cuts it: the mean colour of its ink pixels away from the crop's outer edges, as shares of the paper's."""
    if crop.shape != (CORNER_H, CORNER_W, 3):
        raise ValueError(f"an index-corner crop is {CORNER_H}x{CORNER_W}x3, got {crop.shape}")
    pixels = crop.reshape(-1, 3)
    shares = pixels * (1.0 / _paper(pixels))
    darkest = np.minimum(np.minimum(shares[:, 0], shares[:, 1]), shares[:, 2])  # faster than min(axis=1) on 3 columns
    k = int(0.02 * (len(darkest) - 1))
    deepest = float(np.partition(darkest, k)[k])
    if 1.0 - deepest < MIN_INK_DEPTH:
        return InkColour.NONE
    ink = (darkest < 1.0 - INK_SPAN * (1.0 - deepest)) * _INNER
    count = float(ink.sum())
    if count < MIN_INK_PIXELS:
        return InkColour.NONE
    colour = (ink @ shares / count).astype(np.float32)
    depth = max(1.0 - float(colour.min()), 1e-3)
    if float(colour.max() - colour.min()) < GREY_CHROMA * depth:
        return InkColour.BLACK
    return InkColour.RED if bool(_is_red(colour[None])[0]) else InkColour.OTHER


def ink_colour(frame: np.ndarray, quad: np.ndarray) -> InkColour:
    """The ink colour of the card at ``quad`` (image points, any order), read in its top-left index corner."""
    return ink_colour_of_crop(corner_crops(frame, quad, corners=(0,))[0])


@dataclass(frozen=True)
class CardInk:
    """One card's coloured ink: where it lies (frame rows and columns), how deep each pixel of it is (its darkest
    channel's share below the paper) and the card's paper colour (B, G, R)."""

    rows: np.ndarray
    cols: np.ndarray
    depth: np.ndarray
    paper: np.ndarray


def coloured_ink(frame: np.ndarray, quads: Sequence[np.ndarray]) -> list[CardInk]:
    """The coloured ink (neither red nor black nor grey) inside each card at ``quads`` (image points), lighter than
    ``MIN_PAINT_DEPTH`` left out; a card with none gives an empty ``CardInk``."""
    h, w = frame.shape[:2]
    out = []
    for quad in quads:
        pts = np.asarray(quad, np.float32).reshape(4, 2)
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(pts.max(axis=0)).astype(int) + 1, (w, h))
        none = CardInk(np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0, np.float32), np.ones(3, np.float32))
        if x1 - x0 < 4 or y1 - y0 < 4:
            out.append(none)
            continue
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, np.round(pts - (x0, y0)).astype(np.int32), 1)
        roi = frame[y0:y1, x0:x1]
        paper = _paper(roi[inside.astype(bool)][::3])  # every third pixel: the percentile of a card is stable
        shares = roi * (1.0 / paper)
        lo = np.minimum(np.minimum(shares[..., 0], shares[..., 1]), shares[..., 2])
        hi = np.maximum(np.maximum(shares[..., 0], shares[..., 1]), shares[..., 2])
        depth = np.clip(1.0 - lo, 0.0, 1.0)
        rows, cols = np.nonzero(inside.astype(bool) & (depth >= MIN_PAINT_DEPTH) & (hi - lo >= GREY_CHROMA * depth))
        keep = ~_is_red(shares[rows, cols])
        rows, cols = rows[keep], cols[keep]
        out.append(CardInk(rows + y0, cols + x0, depth[rows, cols].astype(np.float32), paper))
    return out


def repaint(frame: np.ndarray, inks: Sequence[CardInk], to: InkColour) -> np.ndarray:
    """A copy of ``frame`` with each card's coloured ink painted ``to`` (RED or BLACK), its depth kept so its edges
    stay as soft as printed; every other pixel as it was."""
    target = to.target
    out = frame.copy()
    for ink in inks:
        if len(ink.depth):
            painted = (1.0 - ink.depth[:, None] * (1.0 - target)) * ink.paper
            out[ink.rows, ink.cols] = np.clip(painted, 0, 255).astype(np.uint8)
    return out
