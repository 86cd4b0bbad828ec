"""The detector's size pass: cards of the deck's own size that no closed outline holds (``vision.detect``).

A court figure reaching the card's edge on stripes or beside an arm cuts every closed outline of the card
into pieces, but not its sides. On the table plane (calibrated, or estimated from the cards found) every
card is one rectangle, and the matched filter of ``vision.size_search`` finds rectangles of that size whose
sides lie on edges; a paper margin and an inside unlike the cloth around it make one a card.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.edge_map import edge_map
from vision.frame_cues import min_card_area, paper_left
from vision.quads import (
    card_like,
    filled_mask,
    grow_quad,
    map_points,
    map_quads,
    overlap_share,
    pixels_at,
    short_longs,
    side_samples,
)
from vision.rectify import order_corners
from vision.size_search import edge_directions, rectangles_of_size


def size_pass_cards(
    small: np.ndarray,
    edges: np.ndarray,
    quads: list[np.ndarray],
    config: DetectorConfig,
    near_edges: np.ndarray,
    otsu: np.ndarray,
    paper: np.ndarray,
    replaced: list[int] | None = None,
    deck: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """(e) Cards of the deck's size that no closed outline holds, where no card was found (detection scale).

    The search (``vision.size_search.rectangles_of_size``) runs on the table plane, calibrated or estimated from the
    cards found (the frame warped so that every card is the same rectangle; its size the median of the cards found
    there), and without a plane on the image with ``size_pass_image``. A rectangle it returns is a card when it
    overlaps no card found, lies inside the frame, is a card's shape, its sides lie on the edge map
    (``sides_on_edges``: each for ``size_side_support``, or one with a single stretch off them), and the band just
    inside each side (3-8% of the card's width) is paper for ``size_band`` of it: a card has a paper margin, while
    the same rectangle between a cloth's stripes or squares holds cloth. The paper is the global or the local paper
    mask (``paper``), so glare and a pale cast do not hide it; where a shadow does,
    the band is whiter than the table just outside it (``size_whiter``, ``card_margins``). A gingham's pale
    grid lines are such a margin too; there the inside of the rectangle is the cloth around it
    (``inside_like_outside``), which a card's is not.

    The search is costly (a few filters per card direction over the frame), so it runs only around the
    paper of the global mask (``otsu``) that no card found covers, and (``size_pass_gate``) only where a card's
    area of it is left: none on felt or wood once every card is found, and then the pass costs one subtraction.

    Then, given ``replaced``, the outlines found whose sides on the plane are more than ``size_rescue_off`` off
    the median outline's (one that took in the cloth beside its card) are searched over again as if they were
    not there: their edges stay in the search's map and their paper is searched around. A rectangle taken there
    that overlaps such an outline for 0.2 takes its place (the outline's index is added to ``replaced``); no other
    is taken (the first search saw the rest of that paper). ``deck``: outlines (detection scale) of cards known
    elsewhere, which size the deck with ``quads`` (``detect_cards``' ``deck``). Such an
    outline had hidden its card's own sides from the search (``benchmarks/size_pass_misses.py``)."""
    searched = not config.size_pass_gate or paper_left(otsu, quads, min_card_area(config))
    sizing = quads + (deck or [])  # the deck's size: the cards found and those known around the frame
    out = _cards_of_size(small, edges, quads, sizing, config, near_edges, otsu, paper) if searched else []
    if replaced is None or config.size_rescue_off <= 0 or len(quads) < 3:
        return out
    poor = off_deck_size(quads, config)
    if not poor:
        return out
    kept = [q for i, q in enumerate(quads) if i not in poor] + out
    around = filled_mask(edges.shape, [grow_quad(quads[i], 2.0) for i in poor])
    for rect in _cards_of_size(small, edges, kept, quads, config, near_edges, cv2.bitwise_and(otsu, around), paper):
        under = [i for i in poor if i not in replaced and overlap_share(rect, quads[i]) >= 0.2]
        if under:
            replaced += under
            out.append(rect)
    return out


def sides_on_edges(samples: np.ndarray, config: DetectorConfig) -> np.ndarray:
    """(R,) for each rectangle (its (R, 4, T) side samples, ``vision.quads.side_samples``), whether its sides lie on
    edges: every side for ``size_side_support``, or all but one, and that one for ``size_gap_support`` with its
    misses one stretch clear of its ``size_gap_end`` samples at either end. A glare spot or a pale thing on the
    table washes out one stretch of one side of a card; a rectangle beside its card, or one on a cloth's squares,
    runs off the edges at its corners, in several places, or on several sides."""
    share = samples.mean(axis=2)
    whole: np.ndarray = share.min(axis=1) >= config.size_side_support
    end = config.size_gap_end
    if config.size_gap_support >= config.size_side_support or end < 1:
        return whole
    weak = share < config.size_side_support
    off = ~samples
    first = off.argmax(axis=2)
    last = samples.shape[2] - 1 - off[:, :, ::-1].argmax(axis=2)
    # the misses: one stretch (as many as the samples from the first to the last), clear of the ends
    one_stretch = (off.sum(axis=2) == last - first + 1) & (first >= end) & (last < samples.shape[2] - end)
    gap = (weak.sum(axis=1) == 1) & (share.min(axis=1) >= config.size_gap_support) & (one_stretch | ~weak).all(axis=1)
    out: np.ndarray = whole | gap
    return out


def off_deck_size(quads: list[np.ndarray], config: DetectorConfig) -> list[int]:
    """The indices of the outlines (detection scale) whose short or long side on the table plane (the image
    without one) is more than ``size_rescue_off`` off the median outline's: as on the size search's plane,
    which is the table plane scaled."""
    sizes = short_longs(quads if config.plane is None else list(map_quads(_to_plane(config), quads)))
    off = np.abs(sizes / np.median(sizes, axis=0) - 1).max(axis=1)
    return [int(i) for i in np.flatnonzero(off > config.size_rescue_off)]


def _cards_of_size(
    small: np.ndarray,
    edges: np.ndarray,
    quads: list[np.ndarray],
    deck: list[np.ndarray],
    config: DetectorConfig,
    near_edges: np.ndarray,
    otsu: np.ndarray,
    paper: np.ndarray,
) -> list[np.ndarray]:
    """``size_pass_cards``' search where ``otsu`` has paper that the cards found (``quads``) do not cover; the
    search's plane and the deck's size from the outlines ``deck``."""
    covered = filled_mask(edges.shape, [grow_quad(q, 2.0) for q in quads])
    loose_paper = cv2.morphologyEx(cv2.subtract(otsu, covered), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    perimeter = 2 * float(np.mean(short_longs(deck).sum(axis=1)))
    if cv2.countNonZero(loose_paper) < perimeter:
        return []  # no paper outside the cards found, so no card margin: nothing to search (felt, wood)
    space = _search_space(small.shape, deck, config)
    if space is None:
        return []
    to_space, size = space
    dims = short_longs(list(map_quads(to_space, deck)))
    short, long_ = float(np.median(dims[:, 0])), float(np.median(dims[:, 1]))
    found = list(map_quads(to_space, quads))
    # where to look: around the loose paper, as far as a card reaches from it
    x, y, bw, bh = cv2.boundingRect(cv2.findNonZero(loose_paper))
    box = map_points(to_space, np.array([[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]], np.float32))
    x0, y0 = np.maximum(np.floor(box.min(axis=0) - long_), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0) + long_), (size[0], size[1])).astype(int)
    if x1 - x0 < 2 * long_ or y1 - y0 < 2 * long_:
        return []
    # only that region of the search space is warped and edge-mapped (the whole plane's view can be four
    # times the frame), with a margin so that the blur and Canny see the same neighbourhood at its border
    px0, py0 = max(int(x0) - _REGION_MARGIN, 0), max(int(y0) - _REGION_MARGIN, 0)
    px1, py1 = min(int(x1) + _REGION_MARGIN, size[0]), min(int(y1) + _REGION_MARGIN, size[1])
    if config.plane is None:  # the search space is the detection frame itself
        r_small, r_edges = small[py0:py1, px0:px1], edges[py0:py1, px0:px1]
    else:
        to_region = np.array([[1, 0, -px0], [0, 1, -py0], [0, 0, 1]], np.float64) @ to_space
        r_size = (px1 - px0, py1 - py0)
        r_small = cv2.warpPerspective(small, to_region, r_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        channels = tuple(cv2.split(r_small))
        r_edges = edge_map(r_small, channels, cv2.min(cv2.min(channels[0], channels[1]), channels[2]), config)
        inside = cv2.warpPerspective(
            np.full(small.shape[:2], 255, np.uint8), to_region, r_size, flags=cv2.INTER_NEAREST
        )
        r_edges = cv2.bitwise_and(r_edges, cv2.erode(inside, np.ones((5, 5), np.uint8)))  # not the frame's edge
    offset = np.array([px0, py0], np.float64)
    free = cv2.subtract(
        r_edges, filled_mask(r_edges.shape, [grow_quad(q, 1.0).astype(np.float64) - offset for q in found])
    )
    if cv2.countNonZero(free) < 2 * (short + long_):
        return []  # not edges enough outside the cards found for one more
    free = free[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0]
    grey = cv2.GaussianBlur(
        cv2.cvtColor(r_small[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0], cv2.COLOR_BGR2GRAY), (3, 3), 0
    )
    tolerance = config.size_tolerance if config.plane is not None else config.size_tolerance_image
    back = np.linalg.inv(to_space)
    h, w = edges.shape
    free = np.ascontiguousarray(free)
    rects = [
        crop_rect + np.array([x0, y0], np.float32)
        for _, crop_rect in rectangles_of_size(
            free,
            edge_directions(grey, free),
            short,
            long_,
            tolerance=tolerance,
            level=config.size_level,
            grow=config.size_grow,
            angles=config.size_angles,
        )
    ]
    outlines = list(map_quads(back, rects))  # in the frame (the cards found are ``quads``)
    # the tests that do not depend on the cards found so far, cheapest first, the margins for all rectangles
    # at once (a frame can give over a hundred rectangles, and the margins reject most)
    shaped = [
        i
        for i, quad in enumerate(outlines)
        if not (quad.min() < 1 or (quad[:, 0] > w - 2).any() or (quad[:, 1] > h - 2).any())
    ]
    if shaped:
        on_edges = sides_on_edges(side_samples(np.stack([outlines[i] for i in shaped]), near_edges), config)
        shaped = [
            i
            for i, hit in zip(shaped, on_edges, strict=True)
            if hit and card_like(outlines[i], cv2.contourArea(outlines[i]), config.loose, config.scale)
        ]
    margined = [
        i for i, ok in zip(shaped, card_margins(paper, small, [outlines[i] for i in shaped], config), strict=True) if ok
    ]
    out: list[np.ndarray] = []
    for i in margined:  # best first, as found; the cloth test last, only for a rectangle clear of the cards
        rect = rects[i]
        if (
            not any(overlap_share(rect, q) >= 0.2 for q in found)
            and inside_like_outside(small, outlines[i], config.size_cloth_tolerance) < config.size_cloth_share
        ):
            out.append(outlines[i])
            found.append(rect)
    return out


def _search_space(
    shape: tuple[int, ...], quads: list[np.ndarray], config: DetectorConfig
) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The homography from detection pixels to the size search's pixels and the search image's size: the
    identity without a table plane; with one, the plane scaled so that the cards found are as wide there as
    in the frame (None if the view would then be over four times the frame's area: a plane far off the view).
    (A search at half this scale, refined after, lost many of the cards it finds.)"""
    h, w = shape[:2]
    if config.plane is None:
        return np.eye(3), (w, h)
    to_plane = _to_plane(config)
    ratio = float(np.median(short_longs(quads)[:, 0]) / np.median(short_longs(map_quads(to_plane, quads))[:, 0]))
    corners = map_points(to_plane, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    lo, span = corners.min(axis=0), (corners.max(axis=0) - corners.min(axis=0)) * ratio
    if not np.isfinite(span).all() or span[0] * span[1] > 4 * w * h:
        return None
    scale_shift = np.array([[ratio, 0, -lo[0] * ratio], [0, ratio, -lo[1] * ratio], [0, 0, 1]])
    return scale_shift @ to_plane, (int(math.ceil(span[0])) + 1, int(math.ceil(span[1])) + 1)


def _to_plane(config: DetectorConfig) -> np.ndarray:
    """The homography from detection pixels to the table plane (``config.plane`` maps full-resolution ones)."""
    s = config.scale
    to_full = np.array([[1 / s, 0, 0.5 / s - 0.5], [0, 1 / s, 0.5 / s - 0.5], [0, 0, 1]])
    out: np.ndarray = np.asarray(config.plane, np.float64).reshape(3, 3) @ to_full
    return out


_REGION_MARGIN = 8  # pixels: the blur, Canny's Sobel and the 5x5 erosion reach 1 + 1 + 2; Canny's hysteresis
# can follow an edge further, so the margin makes the region's edges the whole view's in practice (docs)


_BAND_T = np.linspace(0.15, 0.85, 15)[:, None]


_BAND_DEPTH = np.linspace(0.03, 0.08, 4)  # of the card's width, inside each side


_INSIDE_UV = np.linspace(0.2, 0.8, 7)


_INSIDE_BILINEAR = np.array(
    [((1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v) for u in _INSIDE_UV for v in _INSIDE_UV]
)


_OUTSIDE_T = np.linspace(0.05, 0.95, 13)[:, None]


def inside_like_outside(small: np.ndarray, quad: np.ndarray, tolerance: float) -> float:
    """The share of a 7 x 7 grid over the quad's inside (20-80% each way) whose colour is within
    ``tolerance`` (BGR distance) of some point of the ring just outside it (10 and 20% of its width out).
    A rectangle of a checked or striped cloth holds the cloth that surrounds it (about 1.0); a card holds
    paper, print or a back that the table around it does not (a median of 0.1 on the held-out frames)."""
    q, width, sides = _quad_sides(quad)
    ring = [a + _OUTSIDE_T * d - depth * width * inward for a, d, inward in sides for depth in (0.1, 0.2)]
    inside = pixels_at(small, _INSIDE_BILINEAR @ q).astype(np.float32)
    outside = pixels_at(small, np.concatenate(ring)).astype(np.float32)
    nearest = np.linalg.norm(inside[:, None, :] - outside[None, :, :], axis=2).min(axis=1)
    return float((nearest < tolerance).mean())


def _quad_sides(quad: np.ndarray) -> tuple[np.ndarray, float, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """A quad's corners in order (float64), its short side, and per side its start, its vector and its unit
    normal pointing into the quad."""
    q = order_corners(quad.astype(np.float32)).astype(np.float64)
    width = min(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1])))
    centre = q.mean(axis=0)
    sides = []
    for k in range(4):
        a, d = q[k], q[(k + 1) % 4] - q[k]
        inward = np.array([d[1], -d[0]]) / max(1e-6, float(np.linalg.norm(d)))
        if inward @ (centre - a) < 0:
            inward = -inward
        sides.append((a, d, inward))
    return q, width, sides


def card_margins(paper: np.ndarray, small: np.ndarray, quads: list[np.ndarray], config: DetectorConfig) -> np.ndarray:
    """(R,) for each quad, whether it has a card's margin: on every side, along its middle 70%, points where
    the band just inside (at some depth of ``_BAND_DEPTH``) is paper (``paper``), or else whiter (darkest
    channel) than the same depth just outside by ``size_whiter`` (a margin against the table around it, where a
    shadow keeps it out of the paper masks), for at least ``size_band`` of the side. An index or pip interrupts
    a margin only in places. All quads, sides and depths are one array of points: one lookup per mask."""
    if not quads:
        return np.zeros(0, bool)
    inside, outside = _band_points(quads)  # (R, 4 * D * 15, 2) each
    shape = (len(quads), 4, len(_BAND_DEPTH), len(_BAND_T))
    ok = _weakest_side_share(pixels_at(paper, inside.reshape(-1, 2)) > 0, shape) >= config.size_band
    rest = np.flatnonzero(~ok)  # the whiter test only where the paper test fails
    if len(rest):
        ok[rest] = _whiter_share(small, inside[rest], outside[rest], config) >= config.size_band
    return ok


def whiter_inside(small: np.ndarray, quads: list[np.ndarray], config: DetectorConfig) -> np.ndarray:
    """(R,) for each quad, whether on every side the band just inside is whiter (darkest channel) than the same
    depth just outside by ``size_whiter`` for ``deck_fit_whiter`` of the side at some depth: a card's edge on the
    table, not a printed frame line inside the card, which has paper on both sides."""
    if not quads:
        return np.zeros(0, bool)
    inside, outside = _band_points(quads)
    out: np.ndarray = _whiter_share(small, inside, outside, config) >= config.deck_fit_whiter
    return out


def _whiter_share(small: np.ndarray, inside: np.ndarray, outside: np.ndarray, config: DetectorConfig) -> np.ndarray:
    """(R,): per quad (its band points inside and outside, ``_band_points``) the weakest side's share of points
    whose inside is whiter (darkest channel) than its outside by ``size_whiter`` at some depth."""
    least_in = pixels_at(small, inside.reshape(-1, 2)).min(axis=1).astype(np.float32)
    least_out = pixels_at(small, outside.reshape(-1, 2)).min(axis=1).astype(np.float32)
    return _weakest_side_share(
        least_in >= least_out + config.size_whiter, (len(inside), 4, len(_BAND_DEPTH), len(_BAND_T))
    )


def _band_points(quads: list[np.ndarray]) -> np.ndarray:
    """(2, R, 4 * D * 15, 2): for each quad the points just inside each side at each depth of ``_BAND_DEPTH``
    (of its short side), and the same points mirrored just outside it. All quads at once (a frame can give
    over a hundred); per quad the same arithmetic as ``_quad_sides`` (tested against it)."""
    q = np.stack([order_corners(quad.astype(np.float32)) for quad in quads]).astype(np.float64)  # (R, 4, 2)
    d = np.roll(q, -1, axis=1) - q  # side k from corner k to k + 1
    length = np.sqrt(np.einsum("rki,rki->rk", d, d))
    width = np.minimum(length[:, 0], length[:, 1])
    inward = np.stack([d[..., 1], -d[..., 0]], axis=2) / np.maximum(length, 1e-6)[..., None]
    outward = np.einsum("rki,rki->rk", inward, q.mean(axis=1, keepdims=True) - q) < 0
    inward[outward] = -inward[outward]
    base = (q[:, :, None, :] + _BAND_T * d[:, :, None, :])[:, :, None]  # (R, 4, 1, 15, 2)
    step = ((_BAND_DEPTH * width[:, None])[:, None, :, None] * inward[:, :, None, :])[:, :, :, None]  # (R, 4, D, 1, 2)
    r = len(quads)
    return np.stack([(base + step).reshape(r, -1, 2), (base - step).reshape(r, -1, 2)])


def _weakest_side_share(hit: np.ndarray, shape: tuple[int, int, int, int]) -> np.ndarray:
    """(R,): per quad the weakest side's share of points where ``hit`` holds at some depth."""
    out: np.ndarray = hit.reshape(shape).any(axis=2).mean(axis=2).min(axis=1)
    return out
