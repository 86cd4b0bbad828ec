"""Table scenes where cards overlap, as at a real table: fanned hands, piles, spread rows and cards half covered.

Each card's truth says where its whole outline lies (hidden parts included), how much of it shows, and whether one of
its index corners shows: the cards a referee must be able to name. The cards are drawn in order, each on the ones
before, then lit and photographed as ``synth.make_scene``'s are.

    scene = make_overlap_scene(np.random.default_rng(7), faces_deck(0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from models.training.synth import (
    CLUTTER,
    HARD,
    LABELS,
    Blur,
    Deck,
    SceneSpec,
    composite,
    make_table,
    photograph,
    printed,
    settled,
    tilt_homography,
)
from vision.rectify import CORNER_FRACTION_H, CORNER_FRACTION_W

Arrangement = Literal["fan", "pile", "row", "cover"]
ARRANGEMENTS: tuple[Arrangement, ...] = ("fan", "pile", "row", "cover")

INDEX_SHOWS = 0.85
"""A card's index shows when this share of one index corner (the classifier's crop: ``CORNER_FRACTION_W`` x
``CORNER_FRACTION_H`` of the card from its corner) lies uncovered."""
WHOLE = 0.97
"""A card this much uncovered counts as whole."""


@dataclass(frozen=True)
class OverlapSpec:
    """What an overlap scene holds: ``groups`` arrangements of the kinds in ``kinds``, cards ``card_width`` px wide
    (short side, before tilt), lit and photographed as ``look`` says (``synth.SceneSpec``: realistic or hard)."""

    kinds: tuple[Arrangement, ...] = ARRANGEMENTS
    groups: tuple[int, int] = (1, 2)
    card_width: tuple[float, float] = (90.0, 150.0)
    look: SceneSpec = field(default_factory=lambda: SceneSpec(face_down=0.0))


HARD_OVERLAP = OverlapSpec(card_width=(75.0, 110.0), look=HARD)
"""Small cards under glare, shadow and blur."""


@dataclass(frozen=True)
class CoveredCard:
    """One card of an overlap scene: its face, its whole outline (image px, the card's TL, TR, BR, BL), the share of
    it uncovered, and whether an index corner shows."""

    label: str
    quad: np.ndarray
    shown: float
    index_shows: bool
    arrangement: Arrangement
    corners_shown: tuple[float, float] = (1.0, 1.0)
    """The share of each index corner's crop uncovered: corner 0 at the card's TL, 1 at its BR."""

    @property
    def whole(self) -> bool:
        return self.shown >= WHOLE


@dataclass
class OverlapScene:
    image: np.ndarray
    cards: list[CoveredCard]
    blur: Blur


def _boxes(rng: np.random.Generator, kind: Arrangement, cw: float, ch: float) -> list[tuple[float, float, float]]:
    """Card centres and turns (x, y, degrees) of one arrangement round the origin, bottom card first."""
    if kind == "fan":
        n = int(rng.integers(5, 14))
        step = float(rng.uniform(8.0, min(16.0, 150.0 / (n - 1))))  # a hand's fan spans at most 150 degrees
        pivot = ch * float(rng.uniform(0.4, 0.55))  # the cards turn round a point near their bottom edges
        start = -step * (n - 1) / 2
        out = []
        for k in range(n):
            a = math.radians(start + k * step)
            out.append((pivot * math.sin(a), -pivot * math.cos(a) + pivot, start + k * step))
        return out
    if kind == "pile":
        n = int(rng.integers(3, 9))
        out = [(0.0, 0.0, 0.0)]
        for _ in range(n - 1):
            x, y, t = out[-1]
            a = float(rng.uniform(0, 2 * math.pi))
            d = cw * float(rng.uniform(0.15, 0.45))
            out.append((x + d * math.cos(a), y + d * math.sin(a), t + float(rng.normal(0, 12))))
        return out
    if kind == "row":
        n = int(rng.integers(4, 10))
        step = cw * float(rng.uniform(0.3, 0.6))
        return [(k * step, float(rng.normal(0, 2)), float(rng.normal(0, 3))) for k in range(n)]
    # cover: a card with another on it, covering 30-80% of it
    a = float(rng.uniform(0, 2 * math.pi))
    d = float(rng.uniform(0.25, 0.7))
    return [(0.0, 0.0, 0.0), (d * cw * math.cos(a), d * ch * math.sin(a), float(rng.uniform(-40, 40)))]


def _arrangement(
    rng: np.random.Generator, kind: Arrangement, cw: float, ch: float, centre: tuple[float, float]
) -> list[np.ndarray]:
    """The card rectangles (table plane, TL TR BR BL) of one arrangement turned a random way round ``centre``."""
    turn = float(rng.uniform(0, 360))
    boxes = _boxes(rng, kind, cw, ch)
    mx = sum(b[0] for b in boxes) / len(boxes)
    my = sum(b[1] for b in boxes) / len(boxes)
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    out = []
    for x, y, t in boxes:
        x, y = x - mx, y - my
        at = (centre[0] + c * x - s * y, centre[1] + s * x + c * y)
        box = cv2.boxPoints((at, (cw, ch), t + turn)).astype(np.float32)[[1, 2, 3, 0]]
        out.append(box)
    return out


def _place_groups(rng: np.random.Generator, spec: OverlapSpec, w: int, h: int) -> list[tuple[Arrangement, np.ndarray]]:
    """Arrangements on the table plane, apart from each other and inside the frame."""
    groups = int(rng.integers(spec.groups[0], spec.groups[1] + 1))
    cw = float(rng.uniform(*spec.card_width))
    ch = cw * float(rng.uniform(1.38, 1.45))
    placed: list[tuple[Arrangement, np.ndarray]] = []
    hulls: list[np.ndarray] = []
    for _ in range(groups * 30):
        if len(hulls) == groups:
            break
        kind: Arrangement = spec.kinds[int(rng.integers(len(spec.kinds)))]
        centre = (float(rng.uniform(0.2 * w, 0.8 * w)), float(rng.uniform(0.25 * h, 0.75 * h)))
        boxes = _arrangement(rng, kind, cw, ch, centre)
        pts = np.concatenate(boxes)
        if pts.min() < 6 or pts[:, 0].max() > w - 6 or pts[:, 1].max() > h - 6:
            continue
        hull = cv2.convexHull(pts)
        if any(cv2.intersectConvexConvex(hull, other)[0] > 0 for other in hulls):
            continue
        hulls.append(hull)
        placed.extend((kind, box) for box in boxes)
    return placed


def _corner_region(quad: np.ndarray, corner: int) -> np.ndarray:
    """The classifier's crop of index corner 0 (at the card's TL) or 1 (at its BR) as an image polygon."""
    tl, tr, br, bl = quad.astype(np.float64)
    if corner == 1:
        tl, tr, br, bl = br, bl, tl, tr
    across, down = (tr - tl) * CORNER_FRACTION_W, (bl - tl) * CORNER_FRACTION_H
    return np.array([tl, tl + across, tl + across + down, tl + down], np.float32)


def uncovered(quads: list[np.ndarray], w: int, h: int) -> list[tuple[float, tuple[float, float]]]:
    """For each card (bottom first): the share of it that no later card covers, and of each of its index corners."""
    out: list[tuple[float, tuple[float, float]]] = []
    masks = []
    for q in quads:
        m = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(m, np.round(q).astype(np.int32), 1)
        masks.append(m)
    above = np.zeros((h, w), np.uint8)
    for i in range(len(quads) - 1, -1, -1):
        card = masks[i].astype(bool)
        shown = float((card & (above == 0)).sum()) / max(1, int(card.sum()))
        corners = []
        for corner in (0, 1):
            region = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(region, np.round(_corner_region(quads[i], corner)).astype(np.int32), 1)
            r = region.astype(bool)
            corners.append(float((r & (above == 0)).sum()) / float(r.sum()) if r.sum() else 0.0)
        out.append((shown, (corners[0], corners[1])))
        above |= masks[i]
    return out[::-1]


def visibility(quads: list[np.ndarray], w: int, h: int) -> list[tuple[float, bool]]:
    """For each card (bottom first): the share of it that no later card covers, and whether an index corner shows."""
    return [(shown, max(corners) >= INDEX_SHOWS) for shown, corners in uncovered(quads, w, h)]


def make_overlap_scene(rng: np.random.Generator, deck: Deck, spec: OverlapSpec = OverlapSpec()) -> OverlapScene:
    """A table with fans, piles, rows or covered cards of ``deck`` (each card of a scene a different face)."""
    look = settled(rng, spec.look)
    w, h = look.width, look.height
    img = make_table(rng, look)
    deck = printed(rng, deck, look) or deck
    others = [c for c in CLUTTER if c != "edge"]
    for _ in range(look.clutter):
        CLUTTER[str(rng.choice(others))](img, rng)
    tilt = tilt_homography(rng, w, h, look.max_tilt_deg)
    placed = _place_groups(rng, spec, w, h)
    labels = [str(x) for x in rng.permutation(np.array(LABELS[:52]))]
    quads = [cv2.perspectiveTransform(box[None], tilt)[0] for _, box in placed]
    inside = [bool(q.min() >= 2 and q[:, 0].max() <= w - 3 and q[:, 1].max() <= h - 3) for q in quads]
    kept = [(kind, q) for (kind, _), q, ok in zip(placed, quads, inside, strict=True) if ok]
    for (_, q), label in zip(kept, labels, strict=False):
        composite(img, deck(label), q)
    seen = uncovered([q for _, q in kept], w, h)
    cards = [
        CoveredCard(label, q, shown, max(corners) >= INDEX_SHOWS, kind, corners)
        for (kind, q), label, (shown, corners) in zip(kept, labels, seen, strict=False)
    ]
    image, blur = photograph(rng, img, look)
    return OverlapScene(image, cards, blur)
