"""A matched filter for rectangles of a known size on an edge map: cards whose sides are on edges but that
no closed outline holds.

Every card on a table is one deck, so once some are found the size of the others is known (on the table
plane exactly; in a tilted image within perspective's spread). A court figure that reaches the card's edge,
a striped cloth or an arm joined to its outline cut every contour of such a card into pieces, yet its four
sides still lie on the edge map (``benchmarks/missed_cards.py``: 19 of 25 realistic cards missed over three
frame sets). Here each edge pixel is sorted by its gradient direction; for a card turned by ``theta`` the
pixels whose direction is ``theta`` form its two long (or short) sides and those at ``theta + 90`` the other
two. In a frame turned by ``-theta`` the sides are vertical and horizontal lines, so the share of each side
that lies on edges of its direction is a box filter along it, shifted by half the card's width or length
(within ``tolerance``); a rectangle is a peak where all four shares reach ``level``. Only the card
directions that the edge pixels favour are tried (``angles``), so the cost is a few filters per direction.

The caller verifies what comes back (``vision.detect``): a rectangle whose sides are on edges can also be
the space between stripes or squares of a cloth.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

_BIN = 3.0  # degrees: directions are binned this finely for choosing the card directions to try


def edge_directions(grey: np.ndarray, edges: np.ndarray | None = None) -> np.ndarray:
    """Per pixel, the direction of the grey gradient (the edge's normal) in degrees, modulo 180; given
    ``edges``, only at its nonzero pixels (0 elsewhere: ``rectangles_of_size`` reads no other)."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    if edges is None:
        whole: np.ndarray = cv2.phase(gx, gy, angleInDegrees=True) % 180.0
        return whole
    on = edges > 0
    out = np.zeros(grey.shape, np.float32)
    out[on] = cv2.phase(gx[on], gy[on], angleInDegrees=True).ravel() % 180.0
    return out


def favoured_directions(directions: np.ndarray, count: int, least: float = 1.0) -> list[float]:
    """The ``count`` card directions (degrees in [0, 90): a card's sides lie at ``d`` and ``d + 90``) that the
    given edge directions favour most, at least two bins apart, as bin centres, and only those whose bin and
    neighbours hold ``least`` directions. A card whose own bin is chosen lies at most half a bin off its
    centre; one whose bin loses to a neighbour's can lie a bin off (seed 99's bellot QH, 3 degrees from both
    bins tried), which is why ``rectangles_of_size`` lets a side lie two pixels off its edge (``grow``). Bins are ranked
    by their count with their
    two neighbours' (a side between two bins counts for both), and each ranked bin stands for the fullest of
    those three: ranked alone, the 3-bin sum peaked a bin beside a card's own between two cards' directions
    and the two-bins-apart rule then kept that card's bin out (+1 realistic, +4 hard cards over
    the calibrated frames of seeds 2024, 99, 7). Tried and dropped: the mean of the directions
    near each bin, and bins centred on multiples of ``_BIN``: each lost a card or two on the held-out frames."""
    bins = int(round(90 / _BIN))
    raw = np.bincount((directions % 90.0 / _BIN).astype(np.intp) % bins, minlength=bins).astype(np.float64)
    hist = raw + np.roll(raw, 1) + np.roll(raw, -1)  # a side between two bins counts for both
    chosen: list[int] = []
    for i in map(int, np.argsort(hist)[::-1]):
        if len(chosen) == count or hist[i] < least:
            break
        peak = (i - 1 + int(np.argmax(raw[[(i - 1) % bins, i, (i + 1) % bins]]))) % bins
        if all(min(abs(peak - j), bins - abs(peak - j)) > 1 for j in chosen):
            chosen.append(peak)
    return [(i + 0.5) * _BIN for i in chosen]


def rectangles_of_size(
    edges: np.ndarray,
    directions: np.ndarray,
    short: float,
    long_: float,
    *,
    tolerance: float,
    level: float,
    angle_tol: float = 12.0,
    angles: int = 6,
    peaks: int = 12,
    least_share: float = 1.0,
    grow: int = 3,
) -> list[tuple[float, np.ndarray]]:
    """Rectangles ``short`` x ``long_`` (either way round, each side within ``tolerance`` of its half-length
    from the centre) whose four sides lie on ``edges`` of their own direction for at least ``level`` of
    their length, as (score, (4, 2) float32 corners) with the best first. ``directions``: per pixel the
    edge's normal, degrees modulo 180 (``edge_directions``); ``edges``: the edge pixels to use (nonzero);
    ``grow``: the side maps are dilated this square (a side up to ``grow // 2`` pixels off its edge counts)."""
    on = edges > 0
    if not on.any():
        return []
    found: list[tuple[float, np.ndarray]] = []
    h, w = edges.shape
    kernel = np.ones((grow, grow), np.uint8)  # a side a pixel or two off its edge still counts
    degrees = np.where(on, np.minimum(directions, 179.0).astype(np.uint8), 255).astype(np.uint8)  # 255: no edge
    # a card's four sides lie in one bin (modulo 90) and its neighbours: a direction with fewer edge pixels
    # than ``least_share`` of a card's perimeter holds no card
    for theta in favoured_directions(directions[on], angles, max(1.0, least_share * 2 * (short + long_))):
        along_v = cv2.LUT(degrees, _direction_table(theta, angle_tol))  # normal at theta: sides along theta + 90
        along_h = cv2.LUT(degrees, _direction_table(theta + 90.0, angle_tol))
        turn = theta if theta < 45 else theta - 90.0  # turn by at most 45 degrees, swapping the roles
        if turn != theta:
            along_v, along_h = along_h, along_v
        c, s = abs(math.cos(math.radians(turn))), abs(math.sin(math.radians(turn)))
        tw, th = int(math.ceil(w * c + h * s)) + 2, int(math.ceil(w * s + h * c)) + 2
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
        rot[:, 2] += (tw / 2 - w / 2, th / 2 - h / 2)
        vert = cv2.dilate(cv2.warpAffine(along_v, rot, (tw, th), flags=cv2.INTER_NEAREST), kernel)
        horiz = cv2.dilate(cv2.warpAffine(along_h, rot, (tw, th), flags=cv2.INTER_NEAREST), kernel)
        back = cv2.invertAffineTransform(rot)
        for across, along in ((short, long_), (long_, short)):  # across: the width between the vertical sides
            found += [
                (score, (rect @ back[:, :2].T + back[:, 2]).astype(np.float32))
                for score, rect in _axis_rectangles(vert, horiz, across, along, tolerance, level, peaks)
            ]
    found.sort(key=lambda sr: -sr[0])
    return found


def _axis_rectangles(
    vert: np.ndarray, horiz: np.ndarray, across: float, along: float, tolerance: float, level: float, peaks: int
) -> list[tuple[float, np.ndarray]]:
    """Axis-aligned rectangles ``across`` wide and ``along`` tall: ``vert`` holds the edges of vertical sides,
    ``horiz`` those of horizontal ones (0/255 maps; shares are computed in 8 bits, 1/255 apart)."""
    th, tw = vert.shape
    # the share of a side on edges: a box along it, over the middle 80% (corners are rounded)
    col = cv2.boxFilter(vert, -1, (1, int(0.8 * along) | 1), borderType=cv2.BORDER_CONSTANT)
    row = cv2.boxFilter(horiz, -1, (int(0.8 * across) | 1, 1), borderType=cv2.BORDER_CONSTANT)
    a_lo, a_hi = int((1 - tolerance) * across / 2), int(math.ceil((1 + tolerance) * across / 2))
    b_lo, b_hi = int((1 - tolerance) * along / 2), int(math.ceil((1 + tolerance) * along / 2))
    if a_lo < 1 or b_lo < 1 or 2 * a_hi >= tw or 2 * b_hi >= th:
        return []
    least = math.ceil(255 * level)
    if cv2.minMaxLoc(col)[1] < least or cv2.minMaxLoc(row)[1] < least:
        return []  # no side of either direction reaches the level anywhere, so no rectangle can: the score
        # below is a minimum of running maxima of these maps (the same result, without the offset search)
    # each side's best share over its offsets from the centre: a running maximum over the offsets (a dilation
    # with a line kernel set only at those offsets)
    left = cv2.dilate(col, _offset_kernel(a_lo, a_hi, horizontal=True), anchor=(a_hi, 0))
    right = cv2.dilate(col, _offset_kernel(a_lo, a_hi, horizontal=True)[:, ::-1].copy(), anchor=(0, 0))
    top = cv2.dilate(row, _offset_kernel(b_lo, b_hi, horizontal=False), anchor=(0, b_hi))
    bottom = cv2.dilate(row, _offset_kernel(b_lo, b_hi, horizontal=False)[::-1].copy(), anchor=(0, 0))
    score = cv2.min(cv2.min(left, right), cv2.min(top, bottom))
    if cv2.minMaxLoc(score)[1] < least:
        return []  # most directions of most frames: no rectangle at all
    floor = np.full_like(score, least)
    best = cv2.bitwise_and(
        cv2.compare(score, floor, cv2.CMP_GE),
        cv2.compare(score, cv2.dilate(score, np.ones((5, 5), np.uint8)), cv2.CMP_EQ),
    )
    points = cv2.findNonZero(best)
    if points is None:
        return []
    points = points.reshape(-1, 2)
    xs, ys = points[:, 0], points[:, 1]
    order = np.argsort(-score[ys, xs])[:peaks]
    y, x = ys[order].astype(np.intp)[:, None], xs[order].astype(np.intp)[:, None]  # (P, 1) each
    a_offsets, b_offsets = np.arange(a_lo, a_hi + 1), np.arange(b_lo, b_hi + 1)
    # where each side is: its best offset (the outermost of equals: a printed frame lies inside the edge),
    # for all peaks at once
    lx, rx, ty, by = x - a_offsets, x + a_offsets, y - b_offsets, y + b_offsets
    x0 = x[:, 0] - _outermost(col[y, np.clip(lx, 0, tw - 1)] * (lx >= 0), a_offsets)
    x1 = x[:, 0] + _outermost(col[y, np.clip(rx, 0, tw - 1)] * (rx < tw), a_offsets)
    y0 = y[:, 0] - _outermost(row[np.clip(ty, 0, th - 1), x] * (ty >= 0), b_offsets)
    y1 = y[:, 0] + _outermost(row[np.clip(by, 0, th - 1), x] * (by < th), b_offsets)
    rects = np.stack([x0, y0, x1, y0, x1, y1, x0, y1], axis=1).reshape(-1, 4, 2).astype(np.float32)
    return [(float(v) / 255, rect) for v, rect in zip(score[y[:, 0], x[:, 0]].tolist(), rects, strict=True)]


def _direction_table(normal: float, tolerance: float) -> np.ndarray:
    """A 256-entry table: 255 for the whole degrees within ``tolerance`` of ``normal`` (modulo 180), else 0;
    255 (no edge) maps to 0."""
    degrees = np.arange(256, dtype=np.float64)
    near = np.abs((degrees - normal + 90.0) % 180.0 - 90.0) < tolerance
    near[255] = False
    out: np.ndarray = np.where(near, 255, 0).astype(np.uint8)
    return out


def _offset_kernel(lo: int, hi: int, *, horizontal: bool) -> np.ndarray:
    """A line kernel of ``hi + 1`` cells set at the first ``hi - lo + 1``: with its anchor at the far end, a
    dilation takes the maximum over the points ``lo..hi`` behind each pixel."""
    k = np.zeros(hi + 1, np.uint8)
    k[: hi - lo + 1] = 1
    return k[None, :] if horizontal else k[:, None]


def _outermost(shares: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(P,): per row of the (P, O) ``shares`` the largest offset at which the row's maximum is reached."""
    last = shares.shape[1] - 1 - np.argmax((shares >= shares.max(axis=1, keepdims=True))[:, ::-1], axis=1)
    out: np.ndarray = offsets[last]
    return out
