"""Where a watched table changed since the frame last detected: the parts of the frame a recogniser must detect
again, so that a card put down or taken up costs a detection of the table around it, not of the whole frame.

    boxes = changed_boxes(before_small, after_small, frame.shape)  # what changed, full-resolution px
    regions = regions_around(boxes, known_outlines, frame.shape)
    # [] nothing changed; None detect the whole frame; else (x0, y0, x1, y1) parts, disjoint

The frames are compared small (``vision.watcher.ChangeGate.small``: an eighth of the size, blurred, grey). Each
patch of change (or a known card gone missing) is grown by ``grow`` lengths of a known card's long side, and regions
that overlap are merged. A card that changed lies wholly inside its region; a known card across a region's edge did
not change, and the recogniser keeps its outline (``Recognizer.recognize_regions``, which also sizes the deck in each
region by the known cards). Where the regions cover more than ``max_share`` of the frame, or no card is known to size
them by, the answer is None: the whole frame then costs little more, and the detector sees the frame it was made
for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import cv2
import numpy as np

from vision.detect import Region

Reading = TypeVar("Reading")
"""A recogniser's reading of one card (``vision.recognizer.Recognition``, the simulator's likewise)."""

CHANGE_LEVEL = 14
"""Grey levels a small pixel must move by to count as changed: ``ChangeGate``'s own level."""
GROW = 0.5
"""Card lengths each patch of change is grown by. On the simulated mat (12 cards, one put down) the region then holds
9% of the frame and ``Recognizer.recognize_regions`` costs 7.6-8.8 ms against 14.1-17.6 at one card length and
20.2-22.9 ms for the whole frame (one core, ``bench_tracker.py --only detection``). The price, in
``benchmarks/region_detection.py --deck-hint`` (seed 2024, calibrated, the region sized by the frame's other cards as
the watcher sizes it by the known ones): a region of half a card length around a card lost 2 of 359 realistic and 9
of 356 hard cards that the whole frame found, one card length none. Such a card leaves a change no card explains
(``unexplained``), and the watcher detects the whole frame on the next frame (else on the refresh, at most
``refresh_every`` frames later); ``bench_tracker``'s events were exact (docs/performance.md, Table vision)."""
MAX_SHARE = 0.45
"""Above this share of the frame's area the regions are not worth it (None: detect the whole frame)."""


class PendingRegions:
    """What a watcher's detections must still cover since the view was last wholly known: the regions around each
    change (None: the whole frame), and whether a change reached the frame's edge since the last whole detection.

    A change at the edge is fingers or an arm that the hand detector let pass (too little skin on the mat). What they
    did may be hidden under them, and ``unexplained`` lets their own change pass, so a card the regions' detection
    missed there would wait for the refresh: the first detection whose changes no longer reach the edge (the hand
    held still, or gone) is of the whole frame."""

    def __init__(self, *, grow: float = GROW) -> None:
        self.grow = grow
        self._regions: list[Region] | None = None
        self._edge = False

    def settled(self) -> None:
        """Every change so far has been detected enough (and every card seen since)."""
        self._regions = []

    def whole_next(self) -> None:
        """The next detection is of the whole frame (a change no card explains was left)."""
        self._regions = None

    def note(
        self, reference: np.ndarray | None, small: np.ndarray, frame_shape: tuple[int, ...], known: Sequence[np.ndarray]
    ) -> list[Region]:
        """Add where the small frame differs from ``reference`` (the one last detected) to the regions; returns the
        boxes of change ([] where the whole frame is due anyway). ``known``: the outlines last detected."""
        if self._regions is None or reference is None:
            self._regions = None
            return []
        boxes = changed_boxes(reference, small, frame_shape)
        self._regions = regions_around(boxes, known, frame_shape, also=self._regions, grow=self.grow)
        return boxes

    def regions(
        self,
        changes: Sequence[Region],
        missing: Sequence[np.ndarray],
        known: Sequence[np.ndarray],
        frame_shape: tuple[int, ...],
    ) -> list[Region] | None:
        """The regions this frame's detection covers: those around what changed, and around each card ``missing``
        (outlines) that none holds (a card taken up is looked for again where it lay). None for the whole frame: no
        such regions (the change was large, no card is known, nothing changed and none is missing) or the edge rule
        (the class's docstring). ``changes``: this frame's boxes of change (``note``'s)."""
        at_edge = any(reaches_edge(box, frame_shape) for box in changes)
        edge_cleared = self._edge and not at_edge
        self._edge = self._edge or at_edge
        if self._regions is None or not known or edge_cleared:
            return None
        outside = [quad_box(q) for q in missing if not any(inside(quad_box(q), r) for r in self._regions)]
        return regions_around(outside, known, frame_shape, also=self._regions, grow=self.grow) or None

    @property
    def edge_due(self) -> bool:
        """A change reached the frame's edge since the last whole detection (the edge rule's next whole detection is
        due once the changes stop reaching it)."""
        return self._edge

    def whole_detected(self, changes: Sequence[Region], frame_shape: tuple[int, ...]) -> None:
        """The whole frame was detected; ``changes``: this frame's boxes of change (a hand still at the edge keeps
        the edge rule due)."""
        self._regions = []
        self._edge = any(reaches_edge(box, frame_shape) for box in changes)


def card_length(quads: Sequence[np.ndarray]) -> float:
    """The median long side of ``quads`` (full-resolution px); 0 without any."""
    sides = [
        float(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).max())
        for q in (np.asarray(q, np.float64).reshape(4, 2) for q in quads)
    ]
    return float(np.median(sides)) if sides else 0.0


def changed_boxes(
    before: np.ndarray, after: np.ndarray, frame_shape: tuple[int, ...], *, level: int = CHANGE_LEVEL
) -> list[Region]:
    """The pixel boxes of a ``frame_shape`` frame that hold each patch where the small grey frames ``before`` and
    ``after`` differ by more than ``level``: [] where they do not, the whole frame where their sizes differ."""
    height, width = frame_shape[:2]
    if before.shape != after.shape or before.ndim != 2:
        return [(0, 0, width, height)]
    changed = (cv2.absdiff(before, after) > level).astype(np.uint8)
    if not changed.any():
        return []
    fx, fy = width / after.shape[1], height / after.shape[0]
    count, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    return [_clip((x * fx, y * fy, (x + w) * fx, (y + h) * fy), width, height) for x, y, w, h, _ in stats[1:count]]


def regions_around(
    boxes: Sequence[Region],
    known: Sequence[np.ndarray],
    frame_shape: tuple[int, ...],
    *,
    also: Sequence[Region] = (),
    grow: float = GROW,
    max_share: float = MAX_SHARE,
) -> list[Region] | None:
    """The regions to detect again around ``boxes`` (what changed, or where a card went missing) in a
    ``frame_shape`` frame: each grown by ``grow`` lengths of a card of ``known`` (outlines, full-resolution px),
    merged with ``also`` (regions still to detect from before) where they overlap. None where that covers more than
    ``max_share`` of the frame or no card is known (see the module's docstring)."""
    if not boxes:
        return list(also)
    pad = grow * card_length(known)
    if pad <= 0:
        return None
    height, width = frame_shape[:2]
    grown = [_clip((x0 - pad, y0 - pad, x1 + pad, y1 + pad), width, height) for x0, y0, x1, y1 in boxes]
    regions = _merged([*also, *grown])
    if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in regions) > max_share * width * height:
        return None
    return regions


def unexplained(
    changes: Sequence[Region],
    regions: Sequence[Region],
    before: Sequence[tuple[str, np.ndarray]],
    after: Sequence[tuple[str, np.ndarray]],
    frame_shape: tuple[int, ...],
) -> list[Region]:
    """The boxes of ``changes`` that may be a card the detection of ``regions`` missed: those that no card explains.
    ``before`` and ``after``: (name, outline) of the cards known before and recognised now (full-resolution px).

    A card explains a change that overlaps its box if it is new in a region (no card of ``before`` within a quarter
    of a card length of its centre), named otherwise than before (turned over), or gone from a region (a card of
    ``before`` wholly inside one with none of ``after`` that near). A change needs no card to explain it where it
    lies on cards for half its box (a pile grew, a glare moved on a card), is smaller than a quarter of a card, or
    touches the frame's edge (a hand or arm reaching in; a card there is cut by the edge, and no detection finds
    it)."""
    cards = [q for _, q in before] + [q for _, q in after]
    if not cards:
        return list(changes)
    quarter = card_length(cards) / 4
    least = float(np.median([cv2.contourArea(np.asarray(q, np.float32).reshape(4, 2)) for q in cards])) / 4

    def near(outline: np.ndarray, others: Sequence[tuple[str, np.ndarray]]) -> list[str]:
        centre = np.asarray(outline, np.float64).reshape(4, 2).mean(axis=0)
        return [
            name
            for name, q in others
            if np.linalg.norm(np.asarray(q, np.float64).reshape(4, 2).mean(axis=0) - centre) <= quarter
        ]

    def in_region(outline: np.ndarray) -> bool:
        return any(inside(quad_box(outline), r) for r in regions)

    def on_cards(box: Region) -> float:
        x0, y0, x1, y1 = box
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for _, q in after:
            cv2.fillConvexPoly(mask, np.round(np.asarray(q, np.float64).reshape(4, 2) - (x0, y0)).astype(np.int32), 255)
        return cv2.countNonZero(mask) / mask.size

    changed = [quad_box(q) for name, q in after if in_region(q) and name not in near(q, before)]
    changed += [quad_box(q) for _, q in before if in_region(q) and not near(q, after)]
    return [
        box
        for box in changes
        if (box[2] - box[0]) * (box[3] - box[1]) >= least
        and not reaches_edge(box, frame_shape)
        and not any(overlaps(box, card) for card in changed)
        and on_cards(box) < 0.5
    ]


def reaches_edge(box: Region, frame_shape: tuple[int, ...]) -> bool:
    """Does the box touch the edge of a ``frame_shape`` frame (as a hand or an arm reaching in does)?"""
    height, width = frame_shape[:2]
    return box[0] == 0 or box[1] == 0 or box[2] == width or box[3] == height


def overlaps(a: Region, b: Region) -> bool:
    """Do the two boxes (ends exclusive) share a pixel?"""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(a: Region, b: Region) -> bool:
    """Does box ``b`` hold all of box ``a`` (ends exclusive)?"""
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def kept_outside(known: Sequence[np.ndarray], regions: Sequence[Region]) -> list[np.ndarray]:
    """The outlines of ``known`` that no region holds wholly: a detection of the regions does not look for them
    (``Recognizer.recognize_regions`` keeps them as they were)."""
    return [
        np.asarray(q, np.float32).reshape(4, 2)
        for q in known
        if not any(inside(quad_box(q), region) for region in regions)
    ]


def untouched_by(known: Sequence[np.ndarray], regions: Sequence[Region]) -> list[bool]:
    """Per outline of ``known``: does no region share a pixel with its box? Such a card did not change at all (each
    region holds what changed, grown), so its last reading still holds."""
    return [not any(overlaps(quad_box(q), region) for region in regions) for q in known]


def kept_and_reused(
    known: Sequence[np.ndarray], regions: Sequence[Region], readings: Sequence[Reading]
) -> tuple[list[np.ndarray], list[Reading]]:
    """What a detection of ``regions`` does with the cards ``known`` before (outlines) and their last ``readings``
    (in the same order, or none): the outlines to classify again (``kept_outside``, less those reused) and the
    readings kept as they were (``untouched_by``; only where there is a reading for every known card)."""
    untouched = untouched_by(known, regions) if readings and len(readings) == len(known) else [False] * len(known)
    kept = kept_outside([q for q, same in zip(known, untouched, strict=True) if not same], regions)
    return kept, [r for r, same in zip(readings, untouched, strict=False) if same]


def quad_box(quad: np.ndarray) -> Region:
    """The pixel box (ends exclusive) that holds a full-resolution outline."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    x0, y0 = np.floor(q.min(axis=0)).astype(int)
    x1, y1 = np.floor(q.max(axis=0)).astype(int) + 1
    return int(x0), int(y0), int(x1), int(y1)


def _clip(box: tuple[float, float, float, float], width: int, height: int) -> Region:
    x0, y0, x1, y1 = box
    return (
        max(0, int(np.floor(x0))),
        max(0, int(np.floor(y0))),
        min(width, int(np.ceil(x1))),
        min(height, int(np.ceil(y1))),
    )


def _union(a: Region, b: Region) -> Region:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _merged(boxes: list[Region]) -> list[Region]:
    """``boxes`` with every two that overlap replaced by the box that holds both, until none overlap."""
    while True:
        merged: list[Region] = []
        for box in boxes:
            for i, other in enumerate(merged):
                if overlaps(box, other):
                    merged[i] = _union(box, other)
                    break
            else:
                merged.append(box)
        if len(merged) == len(boxes):
            return merged
        boxes = merged
