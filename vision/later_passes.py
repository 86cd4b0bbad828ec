"""The detector's later passes: each looks only where no card was found yet (``vision.detect``).

A gap in an outline where another edge meets it (``gap_pass``), a card on a pale region that is not card
stock (``hue_pass``), a card protruding from a pale region of its own colour (``tab_pass``), a face-down
card whose outline a striped cloth breaks (``texture_pass``). The cards found are filled into the masks
these passes trace, so they cannot disturb them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.outline_candidates import Candidate, cards_in_holes, consider, contours_of, new_cards
from vision.quads import card_like, filled_mask, fit_quad, pixels_at, refine_sides, side_hits


def gap_pass(
    edges: np.ndarray,
    quads: list[np.ndarray],
    config: DetectorConfig,
    min_points: int,
    min_area: float,
    near_edges: np.ndarray,
) -> list[np.ndarray]:
    """(a') Cards whose outline has a gap where another edge meets it.

    Canny's non-maximum suppression breaks an edge where another one meets it at a T: a card lying across
    the border of a cloth stripe or the table's edge has a gap of a pixel or two there, and its inside leaks
    into the table through it. The 2x2-thickened map of pass (a) does not always close it. Here the holes of
    the edge map thickened ``gap_close`` x ``gap_close`` are candidates (grown back by half that), where no
    card was found (``filled_mask``, ``cards_in_holes``)."""
    k = config.gap_close
    closed = cv2.bitwise_or(cv2.dilate(edges, np.ones((k, k), np.uint8)), filled_mask(edges.shape, quads))
    return cards_in_holes(closed, (k + 1) / 2, quads, config, min_points, min_area, near_edges)


def hue_pass(
    channels: tuple[np.ndarray, ...],
    edges: np.ndarray,
    paper: np.ndarray,
    quads: list[np.ndarray],
    config: DetectorConfig,
    min_points: int,
    min_area: float,
) -> list[np.ndarray]:
    """(c'') Cards on a pale region that is not card stock: a pink or cream cloth, the pale table edge.

    Card and region are both paper to the paper cues, and nearly one grey, so a card lying half on such
    a region has no outline on that side. Their colours differ in hue (pale pink against a white card
    with a green cast of the light), which chroma (max - min) hides. The edges of a magenta-green
    opponent channel, (R + B) / 4 - G / 2, are added to the edge map, and its holes are candidates where
    no card was found. Only when paper outside the cards found covers ``hue_gate`` of the frame: on felt
    or wood it costs nothing."""
    covered = filled_mask(paper.shape, quads)
    if cv2.countNonZero(cv2.subtract(paper, covered)) < config.hue_gate * paper.size:
        return []
    b, g, r = channels
    opponent = cv2.addWeighted(cv2.addWeighted(r, 0.25, b, 0.25, 128.0), 1.0, g, -0.5, 0.0)  # no saturation
    hue = cv2.bitwise_or(edges, cv2.Canny(cv2.GaussianBlur(opponent, (3, 3), 0), config.hue_low, config.hue_high))
    hue = cv2.bitwise_or(hue, covered)
    return cards_in_holes(hue, 1.0, quads, config, min_points, min_area, cv2.dilate(hue, np.ones((5, 5), np.uint8)))


def tab_pass(
    small: np.ndarray,
    contours: list[np.ndarray],
    quads: list[np.ndarray],
    config: DetectorConfig,
    min_area: float,
    near_edges: np.ndarray,
) -> list[np.ndarray]:
    """(c''') Cards that protrude from a pale region of their own colour: a white card lying half on the
    pale table edge or a white cloth.

    Card and region are one blob of paper, and one grey, so no pass sees the side between them. The blob's
    outline goes around the card's three other sides: walking it, a run of convex corners between two
    inward (reflex) corners. The run's points are fitted with a quad whose fourth side crosses the mouth;
    a run that is a card on its three seen sides (each on edges, the shape nearly a card's rectangle)
    is one. Where the run is shorter than a card, the card's far end lies on the pale region and the
    unseen side is placed for the frame's card proportions (``complete_tab``, ``deck_aspect``). Guards
    against other pale things: the colour is the same across the mouth, the card is grey inside and the
    region several times its size. Only where no card was found. ``contours``: the outer
    outlines of the paper mask."""
    extra: list[Candidate] = []
    aspect = None
    for c in contours:
        area = cv2.contourArea(c)
        # a card's own paper is convex; a tab makes the outline bend inwards beside it. (A card passing
        # the shape test is at least min_area, so a smaller region cannot hold one ``tab_region`` times.)
        if area < config.tab_region * min_area or area > 0.9 * cv2.contourArea(cv2.convexHull(c)):
            continue
        poly = cv2.approxPolyDP(c, config.tab_eps, True).reshape(-1, 2).astype(np.float64)
        n = len(poly)
        if n < 5:
            continue
        prev, nxt = np.roll(poly, 1, axis=0), np.roll(poly, -1, axis=0)
        u, v = poly - prev, nxt - poly
        turn = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
        sense = 1.0 if (poly[:, 0] * nxt[:, 1] - poly[:, 1] * nxt[:, 0]).sum() > 0 else -1.0  # the outline's own
        convex = turn * sense > 0
        if convex.all() or not convex.any():
            continue
        start = int(np.flatnonzero(~convex)[0])
        at: dict[tuple[int, int], int] | None = None  # the corners' places in the contour, looked up once if needed
        run: list[int] = []
        for k in [(start + i) % n for i in range(1, n + 1)]:
            if convex[k]:
                run.append(k)
                continue
            # two card corners, each rounded into up to three polygon corners, between reflex ones; the
            # part seen (at most the card) a ``tab_region``-th of the region at most
            if (
                2 <= len(run) <= 6
                and config.tab_region * cv2.contourArea(poly[[(run[0] - 1) % n, *run, k]].astype(np.float32)) <= area
            ):
                if aspect is None:
                    aspect = deck_aspect(quads, config.tab_aspect)
                if at is None:
                    at = _first_indices(c.reshape(-1, 2), poly)
                tab = _tab(small, c, at, poly[(run[0] - 1) % n], poly[k], area, aspect, config, near_edges)
                if tab is not None:
                    extra.append(Candidate(tab, tab, 0.0, float(cv2.contourArea(tab))))
            run = []
    return new_cards(extra, quads, config, near_edges)


def _first_indices(points: np.ndarray, wanted: np.ndarray) -> dict[tuple[int, int], int]:
    """For each of the (K, 2) ``wanted`` points (``approxPolyDP``'s corners of the (N, 2) contour ``points``), the
    index of its first occurrence in ``points``: one pass over the contour, not one per corner (a pale cloth's
    paper outline runs to thousands of points and a hundred runs)."""
    keys = points[:, 0].astype(np.int64) * 65536 + points[:, 1]
    wanted_keys = np.unique(wanted[:, 0].astype(np.int64) * 65536 + wanted[:, 1].astype(np.int64))
    first: dict[tuple[int, int], int] = {}
    for i in np.flatnonzero(np.isin(keys, wanted_keys)).tolist():
        first.setdefault((int(points[i, 0]), int(points[i, 1])), i)
    return first


def _tab(
    small: np.ndarray,
    contour: np.ndarray,
    first: dict[tuple[int, int], int],
    start: np.ndarray,
    end: np.ndarray,
    area: float,
    aspect: float,
    config: DetectorConfig,
    near_edges: np.ndarray,
) -> np.ndarray | None:
    """The card whose three seen sides are ``contour`` from its point ``start`` to ``end`` (``tab_pass``),
    or None; ``first``: each polygon corner's first index in the contour (``_first_indices``)."""
    flat = contour.reshape(-1, 2)
    ia = first[int(start[0]), int(start[1])]
    ib = first[int(end[0]), int(end[1])]
    pts = flat[ia : ib + 1] if ia <= ib else np.concatenate([flat[ia:], flat[: ib + 1]])
    fit = fit_quad(pts.reshape(-1, 1, 2))
    if fit is None:
        return None
    seen = refine_sides(pts.astype(np.float32), fit[0])  # the outline, not the hull: square corners
    tab = complete_tab(seen, (start + end) / 2, aspect)
    if tab is None:
        return None
    quad, mouth = tab
    hits = side_hits(seen[None], near_edges)[0]
    if np.delete(hits, mouth).min() < 0.85:  # the three seen sides on edges
        return None
    tab_area = float(cv2.contourArea(quad))
    loose = config.loose
    if area < config.tab_region * tab_area or not card_like(quad, tab_area, loose.near_rectangle, loose.scale):
        return None
    if not (same_across(small, seen, mouth, config.tab_colour) and grey_inside(small, seen, config.tab_chroma)):
        return None
    return quad


def same_across(image: np.ndarray, quad: np.ndarray, side: int, limit: float) -> bool:
    """Is ``image`` (BGR) the same colour, within ``limit`` (Euclidean, median over the side), 3 px
    either side of ``quad``'s side ``side``?"""
    a, b = quad[side], quad[(side + 1) % 4]
    d = b - a
    normal = np.array([d[1], -d[0]]) / max(1e-6, float(np.linalg.norm(d)))
    if float(normal @ (quad.mean(axis=0) - a)) > 0:
        normal = -normal  # outwards
    t = np.linspace(0.2, 0.8, 9)[:, None]
    inside, outside = (pixels_at(image, a + t * d + offset * normal).astype(np.float32) for offset in (-3.0, 3.0))
    return float(np.median(np.linalg.norm(inside - outside, axis=1))) <= limit


_GRID = np.array([(u, v) for u in np.linspace(0.2, 0.8, 5) for v in np.linspace(0.2, 0.8, 5)])


def grey_inside(image: np.ndarray, quad: np.ndarray, limit: float) -> bool:
    """Is the inside of ``quad`` mostly grey (white card stock, not a coloured screen)? The median
    chroma (max - min of BGR) over a 5 x 5 grid of points is at most ``limit``."""
    u, v = _GRID[:, :1], _GRID[:, 1:]
    bgr = pixels_at(image, (1 - u) * ((1 - v) * quad[0] + v * quad[3]) + u * ((1 - v) * quad[1] + v * quad[2]))
    bgr = bgr.astype(np.int16)
    return float(np.median(bgr.max(axis=1) - bgr.min(axis=1))) <= limit


def deck_aspect(quads: list[np.ndarray], default: float) -> float:
    """The cards' long-to-wide ratio in the image: the median over ``quads`` (the cards found: one deck,
    poker 1.40 to bridge 1.56, squeezed or stretched a little by tilt), or ``default`` with fewer than
    three."""
    if len(quads) < 3:
        return default
    q = np.stack(quads)
    sides = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)
    a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    return float(np.clip(np.median(np.maximum(a, b) / np.maximum(np.minimum(a, b), 1e-6)), 1.25, 1.75))


def complete_tab(quad: np.ndarray, mouth: np.ndarray, aspect: float) -> tuple[np.ndarray, int] | None:
    """The card of which ``quad`` is the part seen, and the index of its side nearest the point ``mouth``
    (the unseen side). ``quad`` itself when it is card-shaped already (a card lying across, or along and
    nearly whole); else that side moved out along its two neighbours until both are as long as the longer
    of them and at least ``aspect`` times the far side (the mouth follows the region's edge, which need
    not be square to the card). None when too little is seen to tell which way the card lies."""
    mids = (quad + np.roll(quad, -1, axis=0)) / 2
    k = int(np.argmin(np.linalg.norm(mids - mouth, axis=1)))
    a, b = quad[k], quad[(k + 1) % 4]
    p, q = quad[(k - 1) % 4], quad[(k + 2) % 4]  # p -> a and q -> b run along the sides to the mouth
    width = float(np.linalg.norm(q - p))  # the far side: seen whole, where the mouth's ends are blurred
    pa, qb = float(np.linalg.norm(a - p)), float(np.linalg.norm(b - q))
    seen = (pa + qb) / 2
    if width < 1 or seen < 0.75 * width or min(pa, qb) < 0.5 * width:
        return None  # too little seen to tell a card lying across from one lying along, truncated
    if seen <= 0.8 * width or seen >= 0.9 * aspect * width:
        return quad, k  # card-shaped already (across or along): the mouth is its end
    length = max(pa, qb, aspect * width)
    out = quad.copy()
    out[k] = p + (a - p) * (length / pa)
    out[(k + 1) % 4] = q + (b - q) * (length / qb)
    return out, k


def texture_pass(
    edges: np.ndarray,
    quads: list[np.ndarray],
    config: DetectorConfig,
    min_points: int,
    min_area: float,
    near_edges: np.ndarray,
) -> list[np.ndarray]:
    """(a'') Face-down cards whose outline a striped or checked cloth breaks.

    A back's printed pattern sits a few pixels inside the card's edge; blurred, its edges run into the
    card's outline, and the cloth's stripes meet that outline from outside, so neither the hole of the
    outline nor the paper of the white border is whole. The pattern itself is a solid block of dense
    edges (a box mean over ``texture_box`` pixels above ``texture_level``), while a cloth's stripes are
    thin lines of it that an opening removes. The block, grown onto the white border, is a candidate
    where no card was found (snapping then puts the sides on the card's edge)."""
    k, o = config.texture_box, config.texture_open
    dense = cv2.threshold(cv2.blur(edges, (k, k)), config.texture_level, 255, cv2.THRESH_BINARY)[1]
    dense = cv2.morphologyEx(dense, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (o, o)))
    dense = cv2.subtract(dense, filled_mask(edges.shape, quads))
    if cv2.countNonZero(dense) < min_area:
        return []  # no block of a card's area outside the cards found (most frames): no contours to trace
    extra: list[Candidate] = []
    loose = config.loose
    for c in contours_of(dense, min_points, holes=False):
        consider(c, config.texture_grow, min_area, loose, extra)
    return new_cards(extra, quads, config, near_edges)
