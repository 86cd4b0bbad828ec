"""Rectification: a detected card quadrilateral to a fixed-size, portrait, upright view.

Portrait is resolved from the quad (the short side is the top edge); upside-down is not resolved here
because it does not need to be: a card's two index corners (top-left, and bottom-right turned 180
degrees) look the same either way up, so the classifier reads both and combines them.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CARD_ASPECT = 1.4  # height / width of a standard playing card (88 x 63 mm)
CARD_W, CARD_H = 128, 180  # full rectified card, pixels
CORNER_W, CORNER_H = 32, 48  # one index-corner crop, pixels
# The crop covers x < 0.25 W, y < 0.267 H of the card. A jumbo index (rank over suit, as on many poker decks)
# reaches about 0.38 H, so its suit is cut off; a crop of 0.32 x 0.40 was tried and read worse (see
# models/README.md), so the metadata records the fractions and a model for other crops is refused.
CORNER_FRACTION_W, CORNER_FRACTION_H = 0.25, 0.267


def order_corners(quad: np.ndarray) -> np.ndarray:
    """The four points clockwise (image y down), starting at the first corner of a short side.

    The result's edge 0->1 is a short side, so warping it to the top of a portrait card never mirrors
    the card and never lays it sideways.
    """
    pts = np.asarray(quad, np.float32).reshape(4, 2)
    # Plain floats: for four points this is several times faster than numpy (it runs ~36 times a
    # frame). Near-ties, where float64 could decide differently from the float32 reference below,
    # go to the reference, so the result is the same bit for bit.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts.tolist()
    cx, cy = (x0 + x1 + x2 + x3) / 4, (y0 + y1 + y2 + y3) / 4
    ang = [
        math.atan2(y0 - cy, x0 - cx),
        math.atan2(y1 - cy, x1 - cx),
        math.atan2(y2 - cy, x2 - cx),
        math.atan2(y3 - cy, x3 - cx),
    ]
    order = sorted(range(4), key=ang.__getitem__)  # increasing angle with y down = clockwise on screen
    xs, ys = (x0, x1, x2, x3), (y0, y1, y2, y3)
    px, py = [xs[i] for i in order], [ys[i] for i in order]
    side = [math.hypot(px[k] - px[k - 3], py[k] - py[k - 3]) for k in range(4)]  # edge k -> k+1
    gaps = [ang[order[k + 1]] - ang[order[k]] for k in range(3)]
    gaps.append(math.pi - max(map(abs, ang)))  # an angle near +-pi can wrap round in float32
    along, across = side[0] + side[2], side[1] + side[3]
    if not (min(gaps) >= 1e-4 and abs(along - across) >= 1e-5 * (along + across)):  # NaN too
        return _order_corners_np(pts)
    if along > across:  # edge 0->1 is long: start one corner later
        order = order[1:] + order[:1]
    # Of the two short sides, start with the one nearer the image top-left (stable across frames).
    s0, s2 = xs[order[0]] + ys[order[0]], xs[order[2]] + ys[order[2]]
    if not abs(s2 - s0) >= 1e-5 * (abs(s0) + abs(s2) + 1):
        return _order_corners_np(pts)
    if s2 < s0:
        order = order[2:] + order[:2]
    out: np.ndarray = pts[order]
    return out


def _order_corners_np(pts: np.ndarray) -> np.ndarray:
    """The reference ``order_corners`` in float32 numpy, for near-ties."""
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    order = np.argsort(angles)
    p = pts[order]
    d = p - p[[1, 2, 3, 0]]
    side = np.sqrt((d * d).sum(axis=1))
    if side[0] + side[2] > side[1] + side[3]:
        order = order[[1, 2, 3, 0]]
    if pts[order[2]].sum() < pts[order[0]].sum():
        order = order[[2, 3, 0, 1]]
    out: np.ndarray = pts[order]
    return out


_CARD_SRC = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)


def card_homography(
    quad: np.ndarray, width: float = CARD_W, height: float = CARD_H, *, ordered: bool = False
) -> np.ndarray:
    """Homography from a portrait card of ``width`` x ``height`` to the quad in the image (put in ``order_corners``'
    order, unless ``ordered`` says it is in it already)."""
    src = (
        _CARD_SRC
        if (width, height) == (CARD_W, CARD_H)
        else np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    )
    return cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32) if ordered else order_corners(quad))


def warp_card(frame: np.ndarray, quad: np.ndarray, width: int = CARD_W, height: int = CARD_H) -> np.ndarray:
    """The whole card, rectified to ``height`` x ``width`` (for display and debugging)."""
    h = card_homography(quad, width, height)
    return cv2.warpPerspective(
        frame, h, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )


# Crop placement: corner crop pixel (u, v) -> card pixel. The second crop is the bottom-right corner
# turned 180 degrees, so both show an upright index.
_CROP_SCALE_X = CARD_W * CORNER_FRACTION_W / CORNER_W
_CROP_SCALE_Y = CARD_H * CORNER_FRACTION_H / CORNER_H


def _crop_to_card(which: int, shift: float = 0.0, zoom: float = 1.0) -> np.ndarray:
    # crop pixel centres (u + 0.5, v + 0.5) sample the card, so both corners are cut alike; ``shift``
    # (a fraction of the card's height) moves both crops towards the middle of the card; ``zoom`` widens
    # both crops that many times from the card's corner (a zoomed-out view of the same corner)
    sx, sy, dy = _CROP_SCALE_X * zoom, _CROP_SCALE_Y * zoom, shift * CARD_H
    if which == 0:
        return np.array([[sx, 0, 0.5 * sx], [0, sy, 0.5 * sy + dy], [0, 0, 1]], np.float64)
    return np.array([[-sx, 0, CARD_W - 0.5 * sx], [0, -sy, CARD_H - 0.5 * sy - dy], [0, 0, 1]], np.float64)


_CROP_TO_CARD = (_crop_to_card(0), _crop_to_card(1))


def corner_crops(
    frame: np.ndarray,
    quad: np.ndarray,
    out: np.ndarray | None = None,
    *,
    shift: float = 0.0,
    zoom: float = 1.0,
    ordered: bool = False,
    corners: tuple[int, ...] = (0, 1),
) -> np.ndarray:
    """The two index corners of the card at ``quad``: (2, CORNER_H, CORNER_W, channels), upright (``corners``: which
    of them, 0 the top-left and 1 the bottom-right: (len(corners), ...)).

    Each crop is warped straight from the full-resolution frame (no intermediate card image), which is
    both sharper and cheaper than warping the whole card first. ``out``: a C-contiguous array of that
    shape and the frame's dtype to write into (a frame's crops go into one batch without a copy).
    ``shift``: both crops moved that fraction of the card's height towards its middle. ``zoom``: both crops
    cover that many times the usual part of the card from its corner, shrunk to the same pixels. ``ordered``: ``quad``
    is in ``order_corners``' order already (a recogniser's are: it skips ordering them twice).
    """
    if out is None:
        out = np.empty((len(corners), CORNER_H, CORNER_W, *frame.shape[2:]), frame.dtype)
    h = card_homography(quad, ordered=ordered).astype(np.float64)
    to_card = (
        _CROP_TO_CARD
        if shift == 0.0 and zoom == 1.0
        else (_crop_to_card(0, shift, zoom), _crop_to_card(1, shift, zoom))
    )
    for dst, k in zip(out, corners, strict=True):
        got = cv2.warpPerspective(
            frame,
            h @ to_card[k],
            (CORNER_W, CORNER_H),
            dst=dst,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        if got is not dst:  # OpenCV allocated its own (``out`` not contiguous): copy it in
            dst[...] = got
    return out
