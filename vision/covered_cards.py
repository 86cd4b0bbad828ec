"""Cards partly covered by others (a fanned hand, a pile, a spread row), found and named by an index corner that shows.

A card under others has no whole outline for the detector, but where its index shows, so does the corner it is
printed in: two straight sides meeting at a rounded corner. Every straight edge in the part of the frame that the
cards already found do not explain (OpenCV's line segment detector) is taken, at each of its ends, for the long side
and for the short side of a card whose corner lies there. Of the two ways a corner can lie, only one has the index
the way a card prints it (top-left, or bottom-right turned half round), so each end and side gives one guess: the
corner, and the directions across and down the card. A guess whose sides show no edge in the frame, or whose index
would lie on no paper or on a whole card, is dropped. Beside them, the index-corner network
(``vision.index_corners``) finds index corners directly, in the paper's part of the frame: no side need show as an
edge (a card over another of the same paper shows almost none) and the corner need not be square (a tilted camera's
are not); where no whole card is found, its corners also say how wide the deck's cards are. With the network,
straight edges are looked for only about the corners it found that no whole card explains (on a frame of whole
cards, mostly nowhere). All are read by the index classifier through that one corner, the likely ones again through
the corner moved and scaled a little (the geometric mean of the readings) and with the crop's inner side painted
over, and named at ``NAMED_FROM``, or at ``NAMED_FROM_FOUND`` at a corner the network found (two judges agree an
index lies there). Readings at one place are one card; the two index corners of one card make one card. Each card
gets an outline estimated from its corner, its directions and the deck's card size (the median of the whole cards
read surely in the frame), which must lie on paper (less of it where the network found the corner). A whole outline
much larger than the deck's cards, on which a covered card's corner shows, was drawn round a row or a pile: it is
dropped.

    found = read_covered(image, read_corners, whole_outlines, whole_labels, MODEL_LABELS, whole_sure, finder.find)
    found.cards, found.false_outlines                                  # working-image pixels
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.detect import merged_regions
from vision.rectify import CARD_ASPECT, CORNER_H, CORNER_W, corner_crops

FindCorners = Callable[[np.ndarray], "Guesses"]
"""A finder of index corners in a BGR image (``vision.index_corners``): corner guesses in its pixels."""
ReadCorners = Callable[[np.ndarray], np.ndarray]
"""The index classifier on one corner a card: (N, 1, CORNER_H, CORNER_W, 3) uint8 crops -> (N, 54) probabilities of
the 52 faces, the back and "no card", in ``vision.recognizer.MODEL_LABELS``' order."""

FACES = 52
CORNER_RADIUS = 0.042
"""Where a card's straight side ends short of its corner (card widths): the rounded corner's radius (about 3 mm of a
63 mm card). A guess's corner is the straight sides' meeting point, as a whole card's outline has it."""
EDGE_INSET = 0.013
"""How far inside the card's outline the segment detector draws a side (card widths): the middle of the blurred step
from the table to the paper."""
SHORTEST_SIDE = 0.12
"""The shortest edge taken for a card's side (card widths): a fanned card shows its short side for about the width
of its index."""
EDGE_SUPPORT = 40.0
"""The least median step of brightness (3x3 Sobel of the grey frame, smoothed) along the sides of a guess next to its
corner: where a card's corner lies, its sides show..."""
FAINT_SIDE = 6.0
"""... on one of its sides at least; the other may be fainter, down to this: a card's side over another card of the
same white paper shows only as a faint line."""
MOST_GUESSES = 400
"""At most this many guesses a width are read (about 150 ms on one core); a frame of overlapping cards gives 100-300."""
READ_AGAIN = 0.3
"""A guess read as a face at this probability or more is read again through its corner moved and scaled."""
NAMED_FROM = 0.9
"""A covered card is named at this probability of its face (its readings' geometric mean, or the painted reading) or
more; a card not named is not reported (a referee asks about what it cannot see). Chosen on overlap scenes of six
training designs (``benchmarks/overlap_recognition.py --validation``, four scenes a design): from 0.85 to 0.9 the
cards named wrong fell from 5 to 3 (realistic) and 3 to 2 (hard), the cards named from 76 to 74 and 61 to 58."""
NAMED_FROM_FOUND = 0.7
"""A covered card read at a corner the index-corner network found is named from this probability: two judges agree
that an index lies there (the network's corners read as another card far less often than the edges' guesses do).
Chosen on the validation designs' overlap scenes (``overlap_recognition.py --validation --scenes 5``): at 0.9, 0.8,
0.7 and 0.6, 80.8%, 83.6%, 84.9% and 84.9% named realistic, 49.7%, 57.1%, 62.7% and 67.2% hard; named wrong 3, 4,
4 and 6 (none at 0.9 or more), a card reported twice 2, 2, 4 and 7."""
AGREE_NEAR, AGREE_TURN = 0.1, 20.0
"""A guess from straight edges within this share of the card's width of a corner the network found, turned within
these degrees of it, counts as found by the network for ``NAMED_FROM_FOUND`` (validation designs, as there: 84.9%
and 62.7% named without, 85.6% and 69.5% with; named wrong 4 and 5, one of them at
0.86 and at 0.90: the same card)."""
LOOK_FROM = 0.5
"""Straight edges are looked for only about a corner the network found at this probability or more, that no whole
card explains."""
SAME_PLACE = 0.12
"""Two readings whose corners lie within this share of a card's width are one card (the surer names it)."""
SAME_FACE = 0.4
"""Two readings of one face whose corners lie within this share of a card's width are one card (one index read
through two guesses a little off its corner; two cards of one face lie that near only in a pile of two decks)."""
SAME_CARD = 0.6
"""Two readings of one face whose estimated outlines share this much of the smaller's area are one card read through
two of its corners (one deck holds a face once; of two decks' same faces, piled so closely, one is not reported)."""
FAR_CORNER = 0.4
"""A reading of a card's face at its far corner, turned half round, is its other index when the card it spans is
within this share of the size the card was estimated at (the size is the least sure part of an estimated outline)."""
WHOLE_CORNER = 0.15
"""A guess this near (card widths) a corner of a whole card found is that card's corner, read whole already."""
ON_A_CARD = 0.1
"""A card named by an index corner that lies this far (card widths) inside a whole card's outline..."""
OVER_SIZE = 0.2
"""A whole outline this much wider or longer than the deck's median card is doubted (``doubted_outlines``). Cards near
a tilted camera are larger than the far ones: at 0.12 the outlines of a sixth of the whole cards in tilted frames of
twelve were doubted, and their paper looked at, at 0.2 a fortieth; on the held-out overlap scenes 0.12 and 0.2 named
the same but one card, 0.3 a tenth fewer."""
BESIDE = 0.5
"""A reading of a whole card's face this near it (card widths) is that card, read again through a corner its outline
misses by a little."""
OVERRULE = 0.9
"""... at this probability or more shows that outline is no card (a whole card has nothing on it: such outlines are
drawn round a spread row or a pile); read under it, the reading is dropped."""
PAPER_LIGHT = 0.55
"""Card paper is at least this share of the found cards' paper's brightness (a card under others lies in their
shadow)."""
ON_PAPER = 0.75
"""A card named by its corner lies where its estimated outline is mostly paper: its own, or that of the cards on it
(its printed ink and the estimate's error take the rest)."""
ON_PAPER_FOUND = 0.5
"""... or this, for a card named at a corner the index-corner network found (two readings agree a card lies there)."""
PAPER_SHARE = 0.15
"""A patch of paper that no card found explains, of this share of a card's area or more, is looked at."""
GUESSED_WIDTHS = (80.0, 105.0, 135.0, 175.0, 225.0)
"""The card widths (working px, spanning ``vision.working_scale.CARD_RANGE``) a frame without a whole card found is
tried at (up to ``WIDTH_PROBES`` guesses each): it is read at the width at which the most guesses read as a face at
``SURE_AT_FIRST`` or more (their probabilities summed)."""
PAINTED_FROM = 0.75
"""A covered card's index crop often holds the side of the card on it (in a fan, the next card crosses the crop's inner
side, where no index is printed); read again with that side painted the paper's colour (from this share of the crop's
width), the surer reading of the same face counts. On the validation designs' overlap scenes
(``overlap_recognition.py --validation``, three scenes a design) 0.66 and 0.75 named 94 and 93 of 121 cards whose
index shows (81 without), one wrong each: the larger share paints less of a wide index."""
WIDTH_PROBES = 64
SURE_AT_FIRST = 0.8
"""... the width whose first readings of a face at this probability or more add up to the most."""
PAIR_REACH = 0.08
"""Two straight edges whose ends lie within this share of a card's width meet at a corner (``paired_guesses``)."""
REFINE_SLIDES = (-0.04, -0.02, 0.0, 0.02, 0.04)
"""How far ``refined`` slides a guess's corner along each side (card widths) to fit the other side's edge. On the
validation designs' overlap scenes (``overlap_recognition.py --validation``, five scenes a design) sliding named 169
of 323 cards whose index shows against 163 (hard scenes gained, realistic lost two); turning the side found square to
the edge by up to 12 degrees (a tilted camera's corners are not square) named 156 or fewer."""
AGAIN_SCALES = (0.93, 1.07)
AGAIN_SHIFTS = ((0.03, 0.0), (-0.03, 0.0), (0.0, 0.03), (0.0, -0.03))
"""The second readings: the card's width scaled by these, its corner moved by these shares of it (across, down)."""


@dataclass(frozen=True, eq=False)
class CoveredCard:
    """A card named through one index corner: its face, the probability, the classifier's probabilities (54),
    the outline estimated from its corner (4, 2: the corner first, clockwise, working pixels), its corner, and
    whether the index-corner network found that corner (``Guesses.found_by_network``)."""

    card: str
    confidence: float
    probabilities: np.ndarray
    outline: np.ndarray
    corner: np.ndarray
    learned: bool = False


@dataclass(frozen=True)
class Guesses:
    """Corner guesses: (N, 2) corners, (N, 2) unit directions across and down the card, (N,) the card widths (px)
    they were made for, and (N,) ``heat``: the index-corner network's probability that the corner is an index corner
    where the network found it (``vision.index_corners``), 0 where it was guessed from straight edges (left out: all
    guessed from edges)."""

    corners: np.ndarray
    across: np.ndarray
    down: np.ndarray
    widths: np.ndarray
    heat: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def __post_init__(self) -> None:
        if len(self.heat) != len(self.corners):
            if len(self.heat):
                raise ValueError(f"{len(self.corners)} guesses but {len(self.heat)} heats")
            object.__setattr__(self, "heat", np.zeros(len(self.corners), np.float32))

    def __len__(self) -> int:
        return len(self.corners)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.corners, self.across, self.down

    def found_by_network(self) -> np.ndarray:
        """(N,) bool: the guesses the index-corner network found."""
        found: np.ndarray = self.heat > 0
        return found

    def take(self, which: np.ndarray) -> Guesses:
        return Guesses(self.corners[which], self.across[which], self.down[which], self.widths[which], self.heat[which])

    def joined(self, other: Guesses) -> Guesses:
        return Guesses(
            np.concatenate([self.corners, other.corners]),
            np.concatenate([self.across, other.across]),
            np.concatenate([self.down, other.down]),
            np.concatenate([self.widths, other.widths]),
            np.concatenate([self.heat, other.heat]),
        )


def _short_sides_and_aspects(outlines: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(N,) each outline's short side (the mean of its two short sides, px) and (N,) its long side over that."""
    p = np.asarray(outlines, np.float64).reshape(-1, 4, 2)
    sides = np.linalg.norm(p - np.roll(p, -1, axis=1), axis=2)
    pairs = np.stack([sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]], axis=1)
    short, long = pairs.min(axis=1), pairs.max(axis=1)
    aspects: np.ndarray = long / np.maximum(short, 1e-6)
    halves: np.ndarray = short / 2
    return halves, aspects


def card_size(outlines: Sequence[np.ndarray]) -> tuple[float, float] | None:
    """The median short side (px, as ``working_scale.card_width`` measures it) and the median aspect of whole cards'
    outlines (held to 1.3-1.6), or None without any."""
    if not outlines:
        return None
    short, aspects = _short_sides_and_aspects(outlines)
    return float(np.median(short)), min(1.6, max(1.3, float(np.median(aspects))))


def outline_of(corner: np.ndarray, across: np.ndarray, down: np.ndarray, width: float, aspect: float) -> np.ndarray:
    """The outline of a card ``width`` px wide whose index corner is ``corner``: (4, 2) float32, the corner first,
    then across, then the far corner (``rectify.order_corners``' order: the first side is short)."""
    height = width * aspect
    return np.array(
        [corner, corner + width * across, corner + width * across + height * down, corner + height * down], np.float32
    )


class Paper(NamedTuple):
    """Where card paper lies in a frame: ``mask`` at a quarter of its size (light, grey pixels, and the whole cards
    found), and ``boxes`` (x0, y0, x1, y1, frame pixels) round the patches the whole cards do not explain."""

    mask: np.ndarray
    boxes: list[tuple[int, int, int, int]]

    def under(self, points: np.ndarray) -> np.ndarray:
        """(N,) whether each of (N, 2) points (frame pixels) lies on paper."""
        h, w = self.mask.shape
        x = np.clip((points[:, 0] / 4).astype(np.intp), 0, w - 1)
        y = np.clip((points[:, 1] / 4).astype(np.intp), 0, h - 1)
        out: np.ndarray = self.mask[y, x]
        return out

    def share_under(self, outline: np.ndarray) -> float:
        """The share of ``outline`` (frame pixels) that lies on paper: a card lies on the table where nothing but
        the cards on it covers it."""
        inside = np.zeros(self.mask.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(np.asarray(outline, np.float32).reshape(4, 2) / 4).astype(np.int32), 1)
        area = int(inside.sum())
        return float((self.mask & inside.astype(bool)).sum()) / area if area else 0.0


def find_paper(image: np.ndarray, outlines: Sequence[np.ndarray], smallest: float, largest: float) -> Paper:
    """Card paper in ``image`` for cards from ``smallest`` to ``largest`` px wide: light, grey pixels as light as the
    found cards' paper (``outlines``), or without any found, as the frame's lightest pixels (card paper is the
    lightest thing on most tables)."""
    small = cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    inside = np.zeros(small.shape[:2], np.uint8)
    for q in outlines:
        cv2.fillConvexPoly(inside, np.round(np.asarray(q, np.float32).reshape(4, 2) / 4).astype(np.int32), 1)
    paper = hsv[inside.astype(bool)]
    if len(paper):
        value = float(np.percentile(paper[:, 2], 75))
        saturation = float(np.percentile(paper[:, 1], 75))
    else:
        value, saturation = float(np.percentile(hsv[:, :, 2], 99)), 60.0
    light = (hsv[:, :, 2] >= PAPER_LIGHT * value) & (hsv[:, :, 1] <= max(60.0, 1.5 * saturation))
    # a card's printed ink (pips, a court's picture) lies on its paper: closed over
    closed = cv2.morphologyEx(light.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)).astype(bool)
    unexplained = light & (cv2.dilate(inside, np.ones((5, 5), np.uint8)) == 0)
    mask = cv2.morphologyEx(unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    least = PAPER_SHARE * smallest * smallest * CARD_ASPECT / 16
    margin = 0.6 * largest
    h, w = image.shape[:2]
    boxes = []
    for x, y, bw, bh, area in stats[1:count]:
        if area >= least:
            x0, y0 = max(0, int(4 * x - margin)), max(0, int(4 * y - margin))
            boxes.append((x0, y0, min(w, int(4 * (x + bw) + margin)), min(h, int(4 * (y + bh) + margin))))
    return Paper(closed | inside.astype(bool), boxes)


_LSD = None


def segments_of(grey: np.ndarray, width: float) -> np.ndarray:
    """(N, 4) straight edges x0, y0, x1, y1 of ``grey`` (its pixels), found at a scale where a card is about 70 px
    wide (the segment detector's cost falls with the pixels; a card's sides stay many pixels long)."""
    global _LSD
    if _LSD is None:
        _LSD = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    scale = min(1.0, 70.0 / width)
    small = grey if scale == 1.0 else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    found = _LSD.detect(small)[0]
    if found is None:
        return np.zeros((0, 4), np.float32)
    return (found.reshape(-1, 4) / scale).astype(np.float32)


def corner_guesses(segments: np.ndarray, width: float) -> Guesses:
    """Each end of each segment at least ``SHORTEST_SIDE`` long as the corner of a card whose long side, or short
    side, the segment is; the corner moved out to where the sides meet (``CORNER_RADIUS``, ``EDGE_INSET``)."""
    length = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    keep = length >= SHORTEST_SIDE * width
    segments, length = segments[keep].astype(np.float64), length[keep]
    start, end = segments[:, :2], segments[:, 2:]
    along = (end - start) / np.maximum(length[:, None], 1e-9)
    corners, acrosses, downs = [], [], []
    for at, inward in ((start, along), (end, -along)):
        # the card's index is read with ``across`` then ``down`` turning clockwise on screen (image y down)
        right = np.stack([inward[:, 1], -inward[:, 0]], axis=1)  # ``inward`` turned a quarter anticlockwise
        left = -right
        base = at - CORNER_RADIUS * width * inward
        corners += [base - EDGE_INSET * width * right, base - EDGE_INSET * width * left]
        acrosses += [right, inward]  # the segment as the long side (down), then as the short side (across)
        downs += [inward, left]
    points = np.concatenate(corners)
    return Guesses(points, np.concatenate(acrosses), np.concatenate(downs), np.full(len(points), width))


def paired_guesses(segments: np.ndarray, width: float) -> Guesses:
    """Corners where two straight edges meet (their ends within ``PAIR_REACH`` of a card's width, 60-120 degrees
    apart): the corner where their lines cross, across and down along them in the order an upright index reads
    (clockwise on screen). Unlike ``corner_guesses``' corners these need not be square: a tilted camera shows a card's
    corners up to 15 degrees from square."""
    length = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    keep = length >= SHORTEST_SIDE * width
    seg, length = segments[keep].astype(np.float64), length[keep]
    if len(seg) < 2:
        return Guesses(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
    along = (seg[:, 2:] - seg[:, :2]) / length[:, None]
    ends = np.concatenate([seg[:, :2], seg[:, 2:]])
    inward = np.concatenate([along, -along])
    owner = np.concatenate([np.arange(len(seg)), np.arange(len(seg))])
    reach = PAIR_REACH * width
    corners, acrosses, downs = [], [], []
    for lo in range(0, len(ends), 512):
        d = np.linalg.norm(ends[lo : lo + 512, None, :] - ends[None, :, :], axis=2)
        i, j = np.nonzero(d < reach)
        i = i + lo
        ok = (i < j) & (owner[i] != owner[j])
        i, j = i[ok], j[ok]
        u, v = inward[i], inward[j]
        cos = np.abs((u * v).sum(axis=1))
        ok = cos < 0.5
        i, j, u, v = i[ok], j[ok], u[ok], v[ok]
        # the lines p_i + s u and p_j + t v cross where s u - t v = p_j - p_i
        det = -u[:, 0] * v[:, 1] + u[:, 1] * v[:, 0]
        rhs = ends[j] - ends[i]
        s = (-rhs[:, 0] * v[:, 1] + rhs[:, 1] * v[:, 0]) / det
        at = ends[i] + s[:, None] * u
        near = (np.linalg.norm(at - ends[i], axis=1) < reach) & (np.linalg.norm(at - ends[j], axis=1) < reach)
        at, u, v = at[near], u[near], v[near]
        clockwise = (u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]) > 0
        corners.append(at)
        acrosses.append(np.where(clockwise[:, None], u, v))
        downs.append(np.where(clockwise[:, None], v, u))
    points = np.concatenate(corners)
    return Guesses(points, np.concatenate(acrosses), np.concatenate(downs), np.full(len(points), width))


def _edge_support(
    gx: np.ndarray, gy: np.ndarray, start: np.ndarray, direction: np.ndarray, span: tuple[float, float]
) -> np.ndarray:
    """(N,) the median over 8 points from ``span[0]`` to ``span[1]`` px along each ``direction`` from ``start`` of the
    brightness step across that direction (the strongest within 1.5 px of the line)."""
    steps = np.linspace(span[0], span[1], 8)[None, :, None]
    points = start[:, None, :] + steps * direction[:, None, :]
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)[:, None, :]
    h, w = gx.shape
    best = np.zeros(points.shape[:2], np.float32)
    for off in (-1.5, 0.0, 1.5):
        at = points + off * normal
        x = np.clip(np.round(at[..., 0]).astype(np.intp), 0, w - 1)
        y = np.clip(np.round(at[..., 1]).astype(np.intp), 0, h - 1)
        best = np.maximum(best, np.abs(gx[y, x] * normal[..., 0] + gy[y, x] * normal[..., 1]))
    out: np.ndarray = np.median(best, axis=1)
    return out


class Gradients(NamedTuple):
    """The brightness steps (3x3 Sobel of the grey frame, smoothed) over the part of a frame from ``origin`` (x, y)."""

    gx: np.ndarray
    gy: np.ndarray
    origin: np.ndarray

    @staticmethod
    def over(grey: np.ndarray, boxes: Sequence[tuple[int, int, int, int]]) -> Gradients:
        """The steps over the rectangle round ``boxes``, a margin of 2 px round it (the smoothing's reach)."""
        h, w = grey.shape
        x0, y0 = max(0, min(b[0] for b in boxes) - 2), max(0, min(b[1] for b in boxes) - 2)
        x1, y1 = min(w, max(b[2] for b in boxes) + 2), min(h, max(b[3] for b in boxes) + 2)
        smooth = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), 1.0).astype(np.float32)
        gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
        return Gradients(gx, gy, np.array([x0, y0], np.float64))


def with_sides(steps: Gradients, guesses: Guesses, width: float, aspect: float) -> Guesses:
    """The guesses whose sides show an edge next to the corner (``EDGE_SUPPORT``, ``FAINT_SIDE``), the clearest
    first, at most ``MOST_GUESSES`` (a frame of noise or a busy cloth shows edges everywhere; reading them all would
    take seconds)."""
    if not len(guesses):
        return guesses
    at = guesses.corners - steps.origin
    across = _edge_support(steps.gx, steps.gy, at, guesses.across, (0.05 * width, 0.15 * width))
    down = _edge_support(steps.gx, steps.gy, at, guesses.down, (0.05 * width, 0.25 * width * aspect))
    strong, weak = np.maximum(across, down), np.minimum(across, down)
    kept = np.flatnonzero((strong >= EDGE_SUPPORT) & (weak >= FAINT_SIDE))
    kept = kept[np.argsort(-(strong[kept] + weak[kept]), kind="stable")[:MOST_GUESSES]]
    return guesses.take(np.sort(kept))


def refined(steps: Gradients, guesses: Guesses, width: float, aspect: float) -> Guesses:
    """The guesses with the corner slid along each side in turn (``REFINE_SLIDES``, card widths) to where the other
    side's edge is strongest: a straight edge found ends a little before or after the card's corner (the rounded
    corner, another card's edge beside it), and a crop a few pixels off reads unsurely."""
    if not len(guesses):
        return guesses
    spans = ((0.05 * width, 0.15 * width), (0.05 * width, 0.25 * width * aspect))
    shifts = np.asarray(REFINE_SLIDES) * width
    corners = guesses.corners.copy()
    for side, along, span in ((guesses.across, guesses.down, spans[0]), (guesses.down, guesses.across, spans[1])):
        start = corners - steps.origin
        scores = np.stack([_edge_support(steps.gx, steps.gy, start + d * along, side, span) for d in shifts])
        corners = corners + shifts[np.argmax(scores, axis=0)][:, None] * along
    return Guesses(corners, guesses.across, guesses.down, guesses.widths, guesses.heat)


def index_middles(guesses: Guesses, width: float, aspect: float) -> np.ndarray:
    """(N, 2) the middle of each guess's index crop (frame pixels): card paper where a card's index shows."""
    out: np.ndarray = guesses.corners + (0.125 * width) * guesses.across + (0.133 * width * aspect) * guesses.down
    return out


def off_whole_cards(
    guesses: Guesses,
    outlines: Sequence[np.ndarray],
    width: float,
    aspect: float,
    corners_of: Sequence[np.ndarray] | None = None,
) -> Guesses:
    """The guesses at no corner of a whole card found (``corners_of``, by default ``outlines``: a whole card is read
    through both its index corners) and whose corner and index lie on none of ``outlines`` (nothing lies on a whole
    card: a corner on one is its print's)."""
    corners_of = outlines if corners_of is None else corners_of
    if len(guesses) and corners_of:
        corners = np.concatenate([np.asarray(q, np.float64).reshape(4, 2) for q in corners_of])
        nearest = np.linalg.norm(guesses.corners[:, None, :] - corners[None, :, :], axis=2).min(axis=1)
        guesses = guesses.take(nearest >= WHOLE_CORNER * width)
    if not len(guesses) or not outlines:
        return guesses
    middle = index_middles(guesses, width, aspect)
    on = (lying_on(guesses.corners, outlines, ON_A_CARD * width) >= 0) | (
        lying_on(middle, outlines, ON_A_CARD * width) >= 0
    )
    return guesses.take(~on)


def lying_on(points: np.ndarray, outlines: Sequence[np.ndarray], margin: float) -> np.ndarray:
    """(N,) the index of the outline each point lies inside by ``margin`` px or more, -1 for none."""
    out = np.full(len(points), -1)
    for j, q in enumerate(outlines):
        contour = _contour(q)
        for i in np.flatnonzero(out < 0).tolist():
            if cv2.pointPolygonTest(contour, _point(points[i]), True) >= margin:
                out[i] = j
    return out


def _crops(image: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    crops = np.empty((len(outlines), 1, CORNER_H, CORNER_W, 3), np.uint8)
    for outline, out in zip(outlines, crops, strict=True):
        corner_crops(image, outline, out, ordered=True, corners=(0,))
    return crops


def _read(image: np.ndarray, outlines: list[np.ndarray], read_corners: ReadCorners) -> np.ndarray:
    probs: np.ndarray = read_corners(_crops(image, outlines))
    return probs


def with_side_painted(crops: np.ndarray) -> np.ndarray:
    """(N, 1, H, W, 3) index crops with their inner side (from ``PAINTED_FROM`` of their width) painted the colour
    of their paper (each crop's 90th percentile)."""
    out = crops.copy()
    paper = np.percentile(crops.reshape(len(crops), -1, 3), 90, axis=1).astype(np.uint8)
    out[:, :, :, round(PAINTED_FROM * CORNER_W) :, :] = paper[:, None, None, None, :]
    return out


def first_reading(
    image: np.ndarray, guesses: Guesses, read_corners: ReadCorners, width: float, aspect: float
) -> np.ndarray:
    """(N, 54) probabilities of each guess read through its corner as a card ``width`` px wide."""
    if not len(guesses):
        return np.zeros((0, FACES + 2), np.float32)
    outlines = [outline_of(p, a, d, width, aspect) for p, a, d in zip(*guesses.arrays(), strict=True)]
    return _read(image, outlines, read_corners)


def read_guesses(
    image: np.ndarray, guesses: Guesses, read_corners: ReadCorners, width: float, aspect: float, first: np.ndarray
) -> np.ndarray:
    """(N, 54) probabilities of each guess: its ``first_reading``, and for a likely face (``READ_AGAIN``) the geometric
    mean of that and the readings through the corner scaled and moved (``AGAIN_SCALES``, ``AGAIN_SHIFTS``), or where
    it reads a face more surely, the reading with the crop's inner side painted over (``with_side_painted``)."""
    if not len(guesses):
        return first
    again = np.flatnonzero(first[:, :FACES].max(axis=1) >= READ_AGAIN)
    if not len(again):
        return first
    variants = []
    for i in again.tolist():
        p, a, d = guesses.corners[i], guesses.across[i], guesses.down[i]
        variants += [outline_of(p, a, d, width * f, aspect) for f in AGAIN_SCALES]
        variants += [outline_of(p + width * (s * a + t * d), a, d, width, aspect) for s, t in AGAIN_SHIFTS]
    more = _read(image, variants, read_corners).reshape(len(again), -1, first.shape[1])
    logs = np.log(np.maximum(np.concatenate([first[again, None], more], axis=1), 1e-9)).mean(axis=1)
    mean = np.exp(logs - logs.max(axis=1, keepdims=True))
    mean /= mean.sum(axis=1, keepdims=True)
    outlines = [
        outline_of(guesses.corners[i], guesses.across[i], guesses.down[i], width, aspect) for i in again.tolist()
    ]
    painted = read_corners(with_side_painted(_crops(image, outlines)))
    # the painted reading counts where it reads the same face more surely: it does not turn one face into another
    same = painted[:, :FACES].argmax(axis=1) == mean[:, :FACES].argmax(axis=1)
    surer = same & (painted[:, :FACES].max(axis=1) > mean[:, :FACES].max(axis=1))
    out = first.copy()
    out[again] = np.where(surer[:, None], painted, mean)
    return out


def naming_thresholds(guesses: Guesses, width: float) -> np.ndarray:
    """(N,) the probability each guess is named from: ``NAMED_FROM_FOUND`` at a corner the network found (or beside
    one: ``AGREE_NEAR``), ``NAMED_FROM`` elsewhere."""
    network = guesses.found_by_network()
    if network.any() and (~network).any():
        net = np.flatnonzero(network)
        d = np.linalg.norm(guesses.corners[:, None] - guesses.corners[None, net], axis=2) / width
        turned = (guesses.across @ guesses.across[net].T) < np.cos(np.radians(AGREE_TURN))
        network = network | ((d < AGREE_NEAR) & ~turned).any(axis=1)
    return np.where(network, NAMED_FROM_FOUND, NAMED_FROM)


def named_cards(
    guesses: Guesses, probs: np.ndarray, labels: Sequence[str], aspect: float, named_from: np.ndarray | None = None
) -> list[CoveredCard]:
    """The guesses named a face at ``named_from`` or more (per guess; default ``NAMED_FROM``), surest first: a guess
    at the corner of a card already named (whatever it was read as; of its face, ``SAME_FACE`` from it) is that card
    again, and so is a reading of its face at its other index corner, which also measures the card: its outline then
    runs from one index corner to the other."""
    found: list[CoveredCard] = []
    from_network = guesses.found_by_network()
    least = np.full(len(guesses), NAMED_FROM) if named_from is None else named_from
    for i in np.argsort(-probs[:, :FACES].max(axis=1)).tolist():
        k = int(np.argmax(probs[i]))
        if k >= FACES or probs[i, k] < least[i]:
            continue
        width = float(guesses.widths[i])
        outline = outline_of(guesses.corners[i], guesses.across[i], guesses.down[i], width, aspect)
        same = next(
            (
                j
                for j, c in enumerate(found)
                if np.linalg.norm(c.outline[0] - outline[0])
                < (SAME_FACE if c.card == labels[k] else SAME_PLACE) * width
            ),
            None,
        )
        if same is not None:
            if from_network[i]:  # the network found the corner the surer reading named
                found[same] = replace(found[same], learned=True)
            continue
        twin = next((j for j, c in enumerate(found) if c.card == labels[k] and _far_corner(c.outline, outline)), None)
        if twin is None and any(c.card == labels[k] and _overlap(c.outline, outline) > SAME_CARD for c in found):
            continue  # its face read through another of its corners, the outlines' estimates not at its aspect
        if twin is None:
            learned = bool(from_network[i])
            found.append(CoveredCard(labels[k], float(probs[i, k]), probs[i], outline, outline[0].copy(), learned))
            continue
        both = _spanned(found[twin].outline, outline[0])
        found[twin] = replace(found[twin], outline=both, corner=both[0].copy())
    return found


def _spanned(known: np.ndarray, far: np.ndarray) -> np.ndarray:
    """The outline of the card ``known`` starts at whose other index corner is at ``far``."""
    across = (known[1] - known[0]) / max(float(np.linalg.norm(known[1] - known[0])), 1e-9)
    down = (known[3] - known[0]) / max(float(np.linalg.norm(known[3] - known[0])), 1e-9)
    v = far - known[0]
    return np.array(
        [known[0], known[0] + float(np.dot(v, across)) * across, far, known[0] + float(np.dot(v, down)) * down],
        np.float32,
    )


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """The area two convex outlines share over the smaller's."""
    shared, _ = cv2.intersectConvexConvex(_contour(a), _contour(b))
    smaller = min(abs(cv2.contourArea(_contour(a))), abs(cv2.contourArea(_contour(b))))
    return float(shared) / smaller if smaller > 0 else 0.0


def _far_corner(known: np.ndarray, outline: np.ndarray) -> bool:
    """Whether the corner ``outline`` starts at can be the other index corner of the card ``known`` starts at: the
    card turned half round, and the corner across and down ``known`` at about the card's aspect, the card's width
    within ``FAR_CORNER`` of the width ``known`` was estimated at."""
    across, down = known[1] - known[0], known[3] - known[0]
    width, height = float(np.linalg.norm(across)), float(np.linalg.norm(down))
    if float(np.dot(across, outline[1] - outline[0])) >= 0:
        return False
    v = outline[0] - known[0]
    x, y = float(np.dot(v, across)) / width, float(np.dot(v, down)) / height
    lo, hi = 1 - FAR_CORNER, 1 + FAR_CORNER
    return (
        lo * width <= x <= hi * width
        and lo * height <= y <= hi * height
        and abs(y / max(x, 1e-6) - height / width) < 0.2 * height / width
    )


class Covered(NamedTuple):
    """The cards found by an index corner, and which of the whole outlines given are no card: another card's corner
    shows on them, and nothing shows on a whole card."""

    cards: list[CoveredCard]
    false_outlines: list[int]


def _likeliest_width(
    image: np.ndarray, steps: Gradients, segments: np.ndarray, widths: Sequence[float], read_corners: ReadCorners
) -> float:
    """Of ``widths``, the one at which the most guesses read as a face surely (``SURE_AT_FIRST``; their
    probabilities summed), each width tried on at most ``WIDTH_PROBES`` of its guesses, spread over them."""
    scores = []
    for width in widths:
        guesses = with_sides(steps, corner_guesses(segments, width), width, CARD_ASPECT)
        if len(guesses) > WIDTH_PROBES:
            guesses = guesses.take(np.linspace(0, len(guesses) - 1, WIDTH_PROBES).round().astype(np.intp))
        first = first_reading(image, guesses, read_corners, width, CARD_ASPECT)
        sure = first[:, :FACES].max(axis=1) if len(first) else np.zeros(0)
        scores.append(float(sure[sure >= SURE_AT_FIRST].sum()))
    return float(widths[int(np.argmax(scores))])


def read_covered(
    image: np.ndarray,
    read_corners: ReadCorners,
    whole: Sequence[np.ndarray],
    whole_labels: Sequence[str],
    labels: Sequence[str],
    whole_sure: Sequence[bool] | None = None,
    find_corners: FindCorners | None = None,
) -> Covered:
    """The cards in ``image`` (BGR uint8, working pixels) that show an index corner but lie partly under others, named.
    ``whole``: the outlines of the cards found whole (``whole_labels``: what they were read as, ``whole_sure``:
    whether surely, at 0.9 or more; such a card is never overruled, and the inside of another is looked at for
    covered cards' corners as a ``doubted_outlines`` one is); they set the deck's
    card size and the paper's look. Where none is found, the guesses are read at each width of ``GUESSED_WIDTHS`` and
    the width at which most read surely is the deck's. ``find_corners``: corners found by a network besides those
    guessed from straight edges (``found_corners``)."""
    whole_sure = [False] * len(whole) if whole_sure is None else whole_sure
    # the deck's size from the cards read surely where there are any: an outline read unsurely is often not a card's
    # (drawn round part of a pile), and a wrong size misreads every covered card in the frame
    size = card_size([q for q, sure in zip(whole, whole_sure, strict=True) if sure] or whole)
    widths, aspect = ((size[0],), size[1]) if size is not None else (GUESSED_WIDTHS, CARD_ASPECT)
    oversized = doubted_outlines(whole, widths[0], aspect) if size is not None else set()
    # an outline read unsurely is looked into as an oversized one is (the paper inside it, guesses on it): across a
    # spread row or a pile the outline finder draws card-sized outlines over the neighbours, hiding their corners;
    # its own corners are left to it (it may be a card of a deck the classifier does not know)
    doubted = oversized | {j for j, sure in enumerate(whole_sure) if not sure}
    trusted = [q for j, q in enumerate(whole) if j not in doubted]
    card_shaped = [q for j, q in enumerate(whole) if j not in oversized]
    paper = find_paper(image, trusted, min(widths), max(widths))
    if not paper.boxes:
        return Covered([], [])
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    boxes = merged_regions(paper.boxes)
    found = found_corners(find_corners, image, boxes) if find_corners is not None else None
    if size is None and found is not None and len(found):
        # no whole card to size the deck by: the network's corners each say how wide their card is
        widths = (float(np.clip(np.median(found.widths), min(GUESSED_WIDTHS), max(GUESSED_WIDTHS))),)
    middle = float(np.median(widths))
    if found is not None:
        # straight edges are looked for only about the corners the network found that no whole card explains: on a
        # frame of whole cards the paper left over (glare, a pale cloth) mostly has none, and is not looked at
        found = replace(found, widths=np.full(len(found), middle))
        # (a card read surely explains its own corners, however large its outline: cards nearer the camera are)
        named_surely = [q for q, sure in zip(whole, whole_sure, strict=True) if sure]
        loose = off_whole_cards(found, trusted, middle, aspect, [*card_shaped, *named_surely])
        loose = loose.take(paper.under(index_middles(loose, middle, aspect)))
        boxes = boxes_about(boxes, loose.corners[loose.heat >= LOOK_FROM], middle)
        if not boxes:
            return Covered([], [])
    segments = np.concatenate(
        [segments_of(grey[y0:y1, x0:x1], middle) + np.array([x0, y0, x0, y0], np.float32) for x0, y0, x1, y1 in boxes]
    )
    steps = Gradients.over(grey, boxes)
    width = widths[0] if len(widths) == 1 else _likeliest_width(image, steps, segments, widths, read_corners)
    guessed = corner_guesses(segments, width).joined(paired_guesses(segments, width))
    sided = refined(steps, with_sides(steps, guessed, width, aspect), width, aspect)
    if found is not None:
        # each read as a card of the deck's width (surer than one corner's own estimate)
        sided = sided.joined(replace(found, widths=np.full(len(found), width)))
    guesses = off_whole_cards(sided, trusted, width, aspect, card_shaped)
    guesses = guesses.take(paper.under(index_middles(guesses, width, aspect)))
    first = first_reading(image, guesses, read_corners, width, aspect)
    probs = read_guesses(image, guesses, read_corners, width, aspect, first)
    # in a frame with no whole card too (its paper and card size guessed) a reading at NAMED_FROM names a card: the
    # covered-card reader, trained on the pass's guesses that are no card, reads none at 0.9 in frames of noise
    named_from = naming_thresholds(guesses, width)
    named = [c for c in named_cards(guesses, probs, labels, aspect, named_from) if lies_on_paper(c, paper)]
    return against_whole(named, whole, whole_labels, width, doubted, whole_sure)


def boxes_about(
    boxes: Sequence[tuple[int, int, int, int]], points: np.ndarray, width: float
) -> list[tuple[int, int, int, int]]:
    """The ``boxes`` (x0, y0, x1, y1) with one of ``points`` (N, 2) in them or within ``width`` of their sides."""
    return [
        b
        for b in boxes
        if bool(
            (
                (points[:, 0] >= b[0] - width)
                & (points[:, 0] <= b[2] + width)
                & (points[:, 1] >= b[1] - width)
                & (points[:, 1] <= b[3] + width)
            ).any()
        )
    ]


def found_corners(find_corners: FindCorners, image: np.ndarray, boxes: Sequence[tuple[int, int, int, int]]) -> Guesses:
    """The corners ``find_corners`` finds in the part of ``image`` round ``boxes`` (the paper no whole card explains),
    in ``image``'s pixels."""
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    found = find_corners(image[y0:y1, x0:x1])
    return replace(found, corners=found.corners + np.array([x0, y0]))


def lies_on_paper(card: CoveredCard, paper: Paper) -> bool:
    """Whether ``card``'s estimated outline lies on paper enough (``ON_PAPER``, or ``ON_PAPER_FOUND`` where the
    index-corner network found its corner)."""
    return paper.share_under(card.outline) >= (ON_PAPER_FOUND if card.learned else ON_PAPER)


def doubted_outlines(whole: Sequence[np.ndarray], width: float, aspect: float) -> set[int]:
    """The whole outlines larger than the deck's cards (``card_size``'s) by more than ``OVER_SIZE``, or of another
    shape: such an outline is drawn round a spread row or a pile as often as round one card, and the paper inside it
    is looked at for covered cards' corners."""
    if not whole:
        return set()
    short, aspects = _short_sides_and_aspects(whole)
    large = (short > (1 + OVER_SIZE) * width) | (short * np.clip(aspects, 1.3, 1.6) > (1 + OVER_SIZE) * width * aspect)
    return {int(j) for j in np.flatnonzero(large)}


def against_whole(
    cards: list[CoveredCard],
    whole: Sequence[np.ndarray],
    whole_labels: Sequence[str],
    width: float,
    doubted: set[int],
    whole_sure: Sequence[bool],
) -> Covered:
    """``cards`` beside the whole cards found: a reading of a whole card's face on or beside it (within
    ``BESIDE`` card widths) is that card again, and dropped; a reading of another face whose corner lies on a whole
    outline (``ON_A_CARD``) at ``OVERRULE`` or more, or on a ``doubted`` one, shows that outline is no card, unless
    the whole card was read surely (``whole_sure``); a reading on a whole card it does not overrule is dropped."""
    kept: list[CoveredCard] = []
    on = lying_on(np.array([c.corner for c in cards]).reshape(-1, 2), whole, ON_A_CARD * width)
    for card, j in zip(cards, on.tolist(), strict=True):
        again = any(
            label == card.card and cv2.pointPolygonTest(_contour(q), _point(card.corner), True) >= -BESIDE * width
            for q, label in zip(whole, whole_labels, strict=True)
        )
        if not again and (j < 0 or (not whole_sure[j] and (j in doubted or card.confidence >= OVERRULE))):
            kept.append(card)
    false = sorted({j for card, j in zip(cards, on.tolist(), strict=True) if j >= 0 and card in kept})
    return Covered(kept, false)


def _contour(outline: np.ndarray) -> np.ndarray:
    return np.asarray(outline, np.float32).reshape(4, 1, 2)


def _point(p: np.ndarray) -> tuple[float, float]:
    return float(p[0]), float(p[1])
