"""Candidate outlines and their grouping into one outline per card (``vision.detect``, cues 1-4).

Every contour a cue gives is fitted with four corners and kept when it is card-shaped (``consider``); an
open outline by its hull when its sides lie on edges (``consider_open``); two pieces of one card (court art
or a shadow cutting it) by the hull of both (``open_pairs``, ``paper_pairs``). ``resolve`` then merges
the candidates of one card, drops outlines that hold several cards, and picks each card's outline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.quads import (
    SUPPORT_T,
    card_like,
    fit_quad,
    grow_quad,
    overlap_share,
    pixels_at,
    refine_sides,
    side_hits,
    weakest_side_support,
)
from vision.rectify import order_corners


@dataclass
class Candidate:
    rough: np.ndarray  # approxPolyDP corners
    hull: np.ndarray  # convex hull points, for the line fit
    grow: float  # holes lie inside the edge line: grow them onto it
    area: float


@dataclass(frozen=True)
class Contour:
    points: np.ndarray
    hole: bool
    # an outer contour's first hole (the inside of a closed outline), 0 if none. Not the largest: with that,
    # fewer outlines went on to the hull test and 2-3 hard cards a frame set were lost.
    inner_area: float = 0.0


class Fits:
    """Quad fits (``fit_quad``) of contours, each computed once: both detections of a frame (``replan``) judge
    the same contours. Keyed by the contour object, which it holds, so a key is never reused; the fits are
    read-only, as the candidates that share them must be."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]] = {}

    def __call__(self, contour: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        hit = self._by_id.get(id(contour))
        if hit is not None and hit[0] is contour:
            return hit[1]
        fit = fit_quad(contour)
        if fit is not None:
            for part in fit:
                part.flags.writeable = False
        self._by_id[id(contour)] = (contour, fit)
        return fit


@overload
def contours_of(mask: np.ndarray, min_points: int, *, holes: bool, nested: bool = False) -> list[np.ndarray]: ...
@overload
def contours_of(mask: np.ndarray, min_points: int, *, holes: None) -> list[Contour]: ...
def contours_of(
    mask: np.ndarray, min_points: int, *, holes: bool | None, nested: bool = False
) -> list[np.ndarray] | list[Contour]:
    """Contours of ``mask`` with at least ``min_points`` outline pixels: holes only (True), outer ones
    only (False; the outermost only unless ``nested``, which adds the outer outlines of blobs inside
    holes, at the cost of tracing every hole), or both, tagged (None). The length filter is vectorised:
    a textured table gives thousands of tiny contours, and only a few dozen can be cards."""
    mode = cv2.RETR_EXTERNAL if holes is False and not nested else cv2.RETR_CCOMP
    contours, hierarchy = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    sizes = np.fromiter(map(len, contours), np.int64, len(contours))
    keep = sizes >= min_points
    if holes is False and not nested:
        return [contours[int(i)] for i in np.flatnonzero(keep)]
    is_hole = hierarchy[0][:, 3] != -1  # RETR_CCOMP: a blob inside a hole is outer again, at the top
    if holes is False:
        return [contours[int(i)] for i in np.flatnonzero(keep & ~is_hole)]
    if holes:
        return [contours[int(i)] for i in np.flatnonzero(keep & is_hole)]
    child = hierarchy[0][:, 2]
    return [
        Contour(
            contours[i],
            bool(is_hole[i]),
            0.0 if is_hole[i] or child[i] < 0 else float(cv2.contourArea(contours[child[i]])),
        )
        for i in map(int, np.flatnonzero(keep))
    ]


def consider(
    contour: np.ndarray,
    grow: float,
    min_area: float,
    loose: DetectorConfig,
    out: list[Candidate],
    near_edges: np.ndarray | None = None,
    *,
    split: bool = False,
    thin: bool = False,
    fits: Fits | None = None,
) -> bool:
    """Add the candidates ``contour`` gives to ``out``; whether it gave any. ``fits``: where its fit is kept."""
    area = cv2.contourArea(contour)
    if area < min_area:
        return False
    fit = fit_quad(contour) if fits is None else fits(contour)
    if fit is None:
        return False
    rough, hull = fit
    if card_like(rough, area, loose, loose.scale):
        out.append(Candidate(rough, hull, grow, area))
        return True
    if (
        near_edges is not None
        and area >= (loose.thin_cover if thin else 0.5) * (hull_area := cv2.contourArea(hull))
        and card_like(rough, hull_area, loose, loose.scale)
        and weakest_side_support([rough], near_edges)[0] >= (0.85 if area >= 0.5 * hull_area else loose.thin_support)
    ):
        # Court art that reaches the card's edge, or a pale stripe of cloth touching it, cuts into the
        # paper blob (or the white border's hole) and its outline dips in or out: not solid, but the
        # hull is card-shaped, at least half of it is covered, and every side lies on edges. A paper
        # blob (``thin``) may cover less: a court figure across the card from edge to edge splits its
        # paper into two triangles joined at the corners, which is still a card when every side of the
        # hull lies on edges for ``thin_support``. Only paper blobs: allowed for the edge map's outlines too,
        # it took a block of squares of a checked cloth for a card.
        out.append(Candidate(rough, hull, grow, hull_area))
        return True
    if split and near_edges is not None:
        halves = split_pair(rough, near_edges, loose)
        out += [Candidate(half, half, grow, area / 2) for half in halves]
        return bool(halves)
    return False


def consider_open(
    contour: np.ndarray,
    min_area: float,
    loose: DetectorConfig,
    out: list[Candidate],
    near_edges: np.ndarray,
    image: np.ndarray | None = None,
    fits: Fits | None = None,
) -> bool:
    """An outline with a gap or two (a white card on a pale table, a side in glare) encloses nothing,
    so it is neither a hole nor a filled shape; its convex hull is the card. Accepted when the hull is
    a card's shape and every side of it lies on edges; whether it was."""
    _, _, w, h = cv2.boundingRect(contour)
    if min(w, h) < loose.min_width * loose.scale or w * h < min_area:  # a box holds a card's short side
        return False  # at any angle: most texture and print lines stop here, before the hull
    fit = fit_quad(contour) if fits is None else fits(contour)
    if fit is None:
        return False
    rough, hull = fit
    area = cv2.contourArea(hull)
    if area >= min_area and card_like(rough, area, loose, loose.scale):
        by_side = side_hits(rough[None], near_edges)[0]
        hits = np.sort(by_side)
        if hits[0] >= 0.85 or (
            hits[1] >= 0.9
            and card_like(rough, area, loose.near_rectangle, loose.scale)
            and (
                hits[0] >= loose.open_weak_side
                or (
                    image is not None
                    and step_across(image, rough, int(np.argmin(by_side)), loose.open_step) >= loose.open_step_share
                )
            )
        ):
            out.append(Candidate(rough, hull, 0.0, area))
            return True
    return False


def open_pairs(
    pieces: list[np.ndarray],
    min_area: float,
    loose: DetectorConfig,
    out: list[Candidate],
    near_edges: np.ndarray,
    image: np.ndarray,
) -> None:
    """A shadow's edge across a card (an arm, a lamp), or two gaps in a faint outline, cut the card's
    outline into two open pieces, each about half of the card and neither a card by itself. Two such
    outlines (``pieces``: those no candidate came from) whose boxes touch and whose hulls cover
    ``open_pair_cover`` of the hull of both are judged as one open outline (:func:`consider_open`) that must
    be nearly a rectangle of a card's proportions (``near_rectangle``): with any card shape, the soft ring of
    a glare spot beside a card made one (hard scenes, seed 2025)."""
    # a piece of a card is about half of it: leave out the specks of texture (by their box, then hull)
    boxed = [(c, box) for c in pieces if (box := cv2.boundingRect(c))[2] * box[3] >= 0.25 * min_area]
    hulled = [(c, box, a) for c, box in boxed if (a := cv2.contourArea(cv2.convexHull(c))) >= 0.25 * min_area]
    if len(hulled) < 2:
        return
    halves, boxes, areas = [c for c, _, _ in hulled], [b for _, b, _ in hulled], [a for _, _, a in hulled]
    for i, j in touching(boxes):
        (xi, yi, wi, hi), (xj, yj, wj, hj) = boxes[i], boxes[j]
        w, h = max(xi + wi, xj + wj) - min(xi, xj), max(yi + hi, yj + hj) - min(yi, yj)
        # before any hull: the joint box holds a card's short side (as consider_open asks), and a card
        # (long side at most twice the short) fills at least 0.44 of its box at any angle
        if min(w, h) < loose.min_width * loose.scale or areas[i] + areas[j] < 0.4 * loose.open_pair_cover * w * h:
            continue
        both = np.vstack([halves[i], halves[j]])
        if areas[i] + areas[j] >= loose.open_pair_cover * cv2.contourArea(cv2.convexHull(both)):
            consider_open(both, min_area, loose.near_rectangle, out, near_edges, image)


def touching(rects: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Pairs (i < j) of bounding boxes (x, y, w, h) that lie within 3 px of each other, neither holding
    the other."""
    boxes = np.array(rects, np.float64)
    lo, hi = boxes[:, :2], boxes[:, :2] + boxes[:, 2:]
    near = np.all((lo[:, None] <= hi[None] + 3) & (lo[None] <= hi[:, None] + 3), axis=2)
    inside = np.all((lo[:, None] <= lo[None]) & (hi[None] <= hi[:, None]), axis=2)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(near & ~inside & ~inside.T, 1)), strict=True)]


def step_across(image: np.ndarray, quad: np.ndarray, side: int, step: float) -> float:
    """The share of 17 points along ``side`` of ``quad`` where ``image`` (BGR) differs by ``step`` or more
    (Euclidean) 3 px inside from 3 px outside: a card's edge too faint for Canny (a grey card on a
    pale blue-grey table differs by 13-18 along it) is still a step all along the side, where a side
    made up across a plain table is not."""
    a, b = quad[side], quad[(side + 1) % 4]
    d = b - a
    normal = np.array([d[1], -d[0]]) / max(1e-6, float(np.linalg.norm(d)))
    if float(normal @ (quad.mean(axis=0) - a)) > 0:
        normal = -normal  # outwards
    t = SUPPORT_T[:, None]
    inside, outside = (pixels_at(image, a + t * d + offset * normal).astype(np.float32) for offset in (-3.0, 3.0))
    return float((np.linalg.norm(inside - outside, axis=1) >= step).mean())


def paper_pairs(
    pieces: list[np.ndarray], min_area: float, loose: DetectorConfig, out: list[Candidate], near_edges: np.ndarray
) -> None:
    """(c'') A court figure that reaches two opposite sides of the card cuts its paper into two blobs, and on
    a striped cloth its edge outline runs into the stripes, so no single outline is the card. Two paper
    blobs (``pieces``: those no candidate came from) that touch are one card when the hull of both is a
    card's shape, they cover ``thin_cover`` of it and every side of it lies on edges for ``thin_support``."""
    if len(pieces) < 2:
        return
    areas = [cv2.contourArea(c) for c in pieces]
    for i, j in touching([cv2.boundingRect(c) for c in pieces]):
        covered = areas[i] + areas[j]
        if covered < min_area:
            continue
        fit = fit_quad(np.vstack([pieces[i], pieces[j]]))
        if fit is None:
            continue
        rough, hull = fit
        hull_area = cv2.contourArea(hull)
        if (
            covered >= loose.thin_cover * hull_area
            and card_like(rough, hull_area, loose, loose.scale)
            and weakest_side_support([rough], near_edges)[0] >= loose.thin_support
        ):
            out.append(Candidate(rough, hull, 0.0, hull_area))


def split_pair(quad: np.ndarray, near_edges: np.ndarray, loose: DetectorConfig) -> list[np.ndarray]:
    """Two cards laid end to end a few pixels apart often share one outline (their gap closes at
    detection scale): a quad about twice a card's length whose midline is an edge (the two cards'
    ends) is split there. The edge test keeps a phone or a long box whole (and rejected)."""
    q = order_corners(quad).astype(np.float32)
    sides = [float(np.linalg.norm(q[(k + 1) % 4] - q[k])) for k in range(4)]
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if not 2.3 <= max(a, b) / max(1e-6, min(a, b)) <= 3.6:
        return []
    if a > b:  # make sides 1 and 3 the long ones: q[1]->q[2] and q[3]->q[0]
        q = np.roll(q, -1, axis=0)
    m1, m2 = (q[1] + q[2]) / 2, (q[3] + q[0]) / 2  # midpoints of the long sides
    t = np.linspace(0.15, 0.85, 24, dtype=np.float32)[:, None]
    pts = np.rint(m2 + (m1 - m2) * t).astype(int)
    h, w = near_edges.shape
    if pts.min() < 2 or (pts[:, 0] >= w - 2).any() or (pts[:, 1] >= h - 2).any():
        return []
    if (near_edges[pts[:, 1], pts[:, 0]] > 0).mean() < 0.75:  # an edge within 2 px of most samples
        return []
    halves = [np.stack([q[0], q[1], m1, m2]), np.stack([m2, m1, q[2], q[3]])]
    full_area = [cv2.contourArea(hq) for hq in halves]
    return [hq for hq, ar in zip(halves, full_area, strict=True) if card_like(hq, ar, loose, loose.scale)]


def finish_candidate(c: Candidate, config: DetectorConfig) -> np.ndarray | None:
    quad = c.rough if config.snap else refine_sides(c.hull, c.rough)  # snapping refines at full res
    if c.grow:
        quad = grow_quad(quad, c.grow)
    return quad if card_like(quad, c.area, config, config.scale) else None


class Finisher:
    """``finish_candidate`` of each candidate, computed once (the merge and the choice both ask)."""

    def __init__(self, config: DetectorConfig) -> None:
        self.config = config
        self.done: dict[int, np.ndarray | None] = {}

    def __call__(self, c: Candidate) -> np.ndarray | None:
        key = id(c)
        if key not in self.done:
            self.done[key] = finish_candidate(c, self.config)
        return self.done[key]


def is_cluster(quad: np.ndarray, cards: list[np.ndarray]) -> bool:
    """Is the outline ``quad`` (detection scale) a cluster of the card outlines ``cards`` inside it?

    Cards a few pixels apart can close into one outline around several of them that passes as a large
    card. It is at least 2.2 times the area of each card outline inside it (a card's printed frame covers
    well over half the card), and two or more of them have a corner within 3 px of its rim. A card whose
    court picture is split into two card-shaped halves is not one: the halves lie inside its white
    margin, off its rim.
    """
    if len(cards) < 2 or max(cv2.contourArea(c) for c in cards) * 2.2 >= cv2.contourArea(quad):
        return False
    rim = quad.reshape(-1, 1, 2).astype(np.float32)
    on_rim = sum(
        1 for c in cards if min(abs(cv2.pointPolygonTest(rim, (float(x), float(y)), True)) for x, y in c) < 3.0
    )
    return on_rim >= 2


def merge_candidates(
    candidates: list[tuple[float, np.ndarray, Candidate]], finish: Finisher, near_edges: np.ndarray | None = None
) -> list[list[Candidate]]:
    """Candidates grouped per card; a candidate holding two or more cards is a group of cards and is
    dropped. With ``near_edges`` (the edge map within 2 px), two card-shaped outlines whose facing sides lie
    off edges are taken for pieces of one card instead (``_apart``)."""
    candidates.sort(key=lambda t: t[0])  # small first: inner contours and single cards
    kept: list[tuple[float, np.ndarray, list[Candidate]]] = []
    boxes: list[tuple[float, float, float, float]] = []  # kept quads' bounding boxes: most pairs are
    for area, quad, cand in candidates:  # far apart and need no polygon intersection
        (x0, y0), (x1, y1) = quad.min(axis=0).tolist(), quad.max(axis=0).tolist()
        inside = [
            i
            for i, (_, q, _) in enumerate(kept)
            if boxes[i][0] < x1
            and x0 < boxes[i][2]
            and boxes[i][1] < y1
            and y0 < boxes[i][3]
            and overlap_share(q, quad) > 0.6
        ]
        if not inside:
            kept.append((area, quad, [cand]))
            boxes.append((x0, y0, x1, y1))
            continue
        if len(inside) >= 2:
            # Only outlines that pass as cards count as cards inside it: the blocks of a court
            # picture (card-sized, not card-shaped) are one card's print, not a group.
            cards = [i for i in inside if any(finish(c) is not None for c in kept[i][2])]
            held = [kept[i][0] for i in cards]
            # two whose facing sides lie off edges are two pieces of one card's paper (see _apart)
            halves = (
                near_edges is not None
                and len(cards) == 2
                and not _apart(kept[cards[0]][1], kept[cards[1]][1], near_edges)
            )
            if len(held) >= 2 and sum(held) > 0.5 * area and (min(held) > 0.25 * area or len(held) >= 3) and not halves:
                continue  # a group of cards: several card-sized outlines filling it (two halves of a
                # court picture are one card; three or more separate outlines are cards)
            if not halves and is_cluster(quad, [kept[i][1] for i in cards]):
                continue
            if len(cards) >= 2 and finish(cand) is None:
                continue  # not a card itself, it would only merge the cards under it into one
        # One card seen twice: as an inner contour and an outer one, or as its inner frame (court
        # picture, ornament border) and its edge.
        first = inside[0]
        kept[first] = (area, quad, [cand, *(c for i in inside for c in kept[i][2])])
        boxes[first] = (x0, y0, x1, y1)
        for i in reversed(inside[1:]):
            del kept[i]
            del boxes[i]
    return [c for _, _, c in kept]


def resolve(candidates: list[Candidate], config: DetectorConfig, edges: np.ndarray) -> list[np.ndarray]:
    """One outline per card. ``edges``: the edge map dilated to a 5x5 neighbourhood."""
    finish = Finisher(config)
    firsts: list[np.ndarray] = []
    rests: list[list[Candidate]] = []
    for group in merge_candidates(
        [(cv2.contourArea(c.rough), c.rough, c) for c in candidates], finish, edges if config.halves_apart else None
    ):
        group.sort(key=lambda c: -c.area)
        for i, c in enumerate(group):
            if (q := finish(c)) is not None:
                firsts.append(q)
                rests.append(group[i + 1 :])
                break
    if not firsts:
        return []
    # The outermost outline is usually the card's edge (inner ones lie on its printed frame), but one
    # that took in a touching chip, or cut a card's corner off, has a side across the table where
    # there is no edge. Where the outermost one's weakest side is not on edges, the largest outline
    # whose sides are (nearly as well as the best one's) wins.
    support = weakest_side_support(firsts, edges)
    quads = []
    for first, s, group in zip(firsts, support, rests, strict=True):
        rest = [q for c in group if (q := finish(c)) is not None] if s < 0.9 else []
        if not rest:
            quads.append(first)
            continue
        options = [(float(s), first), *zip(weakest_side_support(rest, edges).tolist(), rest, strict=True)]
        best = max(v for v, _ in options)
        quads.append(max((q for v, q in options if v >= best - config.pick_margin), key=cv2.contourArea))
    return quads


def new_cards(
    extra: list[Candidate], quads: list[np.ndarray], config: DetectorConfig, near_edges: np.ndarray
) -> list[np.ndarray]:
    """The cards among a later pass's candidates ``extra`` that overlap no card of ``quads`` (found
    already), one outline each."""
    if not quads:
        return resolve(extra, config, near_edges)
    # a candidate whose bounding box meets none of a card's overlaps it by nothing: most of a pass's
    # candidates (texture, print) lie between the cards, so only the few whose boxes meet are intersected
    stacked = np.stack(quads)
    lo, hi = stacked.min(axis=1), stacked.max(axis=1)  # (Q, 2) each
    clear = []
    for c in extra:
        meets = np.flatnonzero(((lo < c.rough.max(axis=0)) & (c.rough.min(axis=0) < hi)).all(axis=1))
        if all(overlap_share(c.rough, quads[i]) < 0.2 for i in meets):
            clear.append(c)
    return resolve(clear, config, near_edges)


def cards_in_holes(
    mask: np.ndarray,
    grow: float,
    quads: list[np.ndarray],
    config: DetectorConfig,
    min_points: int,
    min_area: float,
    near_edges: np.ndarray,
) -> list[np.ndarray]:
    """The cards whose outlines are holes of ``mask`` (grown by ``grow``) and overlap no card of
    ``quads``: the later passes that look only where no card was found."""
    extra: list[Candidate] = []
    loose = config.loose
    for c in contours_of(mask, min_points, holes=True):
        consider(c, grow, min_area, loose, extra)
    return new_cards(extra, quads, config, near_edges)


def _apart(a: np.ndarray, b: np.ndarray, near_edges: np.ndarray) -> bool:
    """Do two card-shaped outlines that together fill a larger one lie apart: is either's side facing the
    other on edges for 0.75 of it? Two cards side by side, closed into one outline, have their own edges
    between them. The local paper mask of a large card can be two blobs cut across its middle (there the
    neighbourhood is all card, so the card is not brighter than it), and between those halves lies
    plain paper."""
    facing = []
    for quad, other in ((a, b), (b, a)):
        mids = (quad + np.roll(quad, -1, axis=0)) / 2
        facing.append(int(np.argmin(np.linalg.norm(mids - other.mean(axis=0), axis=1))))
    hits = side_hits(np.stack([a, b]).astype(np.float32), near_edges)
    return bool(max(hits[0, facing[0]], hits[1, facing[1]]) >= 0.75)
