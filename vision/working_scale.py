"""The working frame: any camera frame, of any size and either orientation, as the recogniser's networks read it.

The outline networks and the index classifier learned on 1280x720 landscape frames with cards 75-230 px wide
(``CARD_RANGE``). A frame of another size or shape is looked at through a ``View``: turned a quarter turn if it is
portrait, scaled (``resized``: once per look, a 4K frame in about 5 ms) and laid on a 16:9 canvas, the rest of the
canvas a border that no card is taken from (``View.padding``). Outlines, table planes, ``ignore`` polygons and regions
move between frame and working pixels through the view's homography, so callers see full-resolution frame pixels.

    look = looked(frame, detect)               # detect(image, plane, ignore) -> outlines, working pixels
    look.view.quads_to_frame(look.quads)       # the outlines in frame pixels

``looked`` looks first at the scale that fits the frame to ``WORKING_FRAME``; when the cards found are far larger or
smaller than ``CARD_RANGE`` it looks once more at the scale that brings them into it, and when none or ``FEW`` are
found, at ``CLOSE_UP`` (a card held near the camera); ``kept_look`` says which look found the cards. A 1280x720
landscape frame's first view is the frame itself: nothing is copied or moved.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from vision.detect import Region
from vision.errors import ImageError
from vision.learned_outlines import FRAME
from vision.quads import centre_on_any

WORKING_FRAME = FRAME
"""The size (width, height) the outline networks learned at: a frame's first look fits it into this, 16:9."""
CARD_RANGE = (75.0, 230.0)
"""The cards' short sides (working pixels) the outline networks and the classifier learned on."""
CARD_TARGET = 150.0
"""A second look scales the frame so that the median card found at the first is this wide (working pixels)."""
CLOSE_UP = 0.33
"""A frame in which the first look found no card (or ``FEW``) is looked at again at this share of the first look's
scale: one card filling much of the frame (a phone photograph of a card), 230-700 px wide at the first look, is 75-230
at this."""
PAD = cv2.BORDER_REPLICATE
"""How the canvas round a frame is filled: its edge pixels drawn out, so that the frame's edge is no step of colour
that a detector takes for the side of a paper rectangle (a plain border of the table's colour is, against a
textured table)."""
FEW = 2
"""A first look that found this many cards or fewer inside ``CARD_RANGE`` looks again at ``CLOSE_UP``: a card close
to the camera shows printed rectangles of a card's size (a court card's picture) that the first look can take for
cards."""
PART = (1.3, 3.0)
"""An outline whose centre lies inside an outline from 1.3 to 3 times as wide, found at a second look, is part of that
card: a court card's picture is half to three quarters of the card's width, half a picture a third. A rectangle round
a card many times its size is a mat's zone or a sheet of paper, not a card."""
MAX_WORKING_SIDE = 2 * WORKING_FRAME[0]
"""The longest side of any working canvas (px): a look at small cards in a large frame is bounded to four times a
first look's pixels."""

Detect = Callable[[np.ndarray, "np.ndarray | None", list[np.ndarray]], list[np.ndarray]]
"""A detector on the working image: (image, plane (working px -> table) or None, ignore polygons (working px)) ->
card outlines ((4, 2) float32, working px)."""


@dataclass(frozen=True)
class View:
    """Where a frame lies in its working image: turned a quarter turn clockwise (``turned``, a portrait frame) then
    scaled to ``scaled`` (width, height) pixels, its top-left at ``offset`` in a canvas of ``size`` pixels.

    ``to_working`` maps pixel centres: a frame pixel's centre lands on the centre of the working pixel it becomes,
    as ``cv2.resize`` samples them."""

    frame_size: tuple[int, int]
    scaled: tuple[int, int]
    offset: tuple[int, int] = (0, 0)
    size: tuple[int, int] = (0, 0)
    turned: bool = False
    to_working: np.ndarray = field(init=False, repr=False, compare=False)
    to_frame: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w, h = self.frame_size
        if self.size == (0, 0):
            object.__setattr__(self, "size", self.scaled)
        sw, sh = self.scaled  # the turned frame's size on the canvas
        if min(w, h, sw, sh) < 1 or self.offset[0] + sw > self.size[0] or self.offset[1] + sh > self.size[1]:
            raise ImageError(f"a view of {w}x{h} scaled to {sw}x{sh} at {self.offset} does not fit {self.size}")
        # the frame, turned, is (tw, th) before it is scaled to (sw, sh)
        tw, th = (h, w) if self.turned else (w, h)
        sx, sy = sw / tw, sh / th
        turn = np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], np.float64) if self.turned else np.eye(3)
        scale = np.array(
            [[sx, 0, 0.5 * sx - 0.5 + self.offset[0]], [0, sy, 0.5 * sy - 0.5 + self.offset[1]], [0, 0, 1]], np.float64
        )
        forward = scale @ turn
        object.__setattr__(self, "to_working", forward)
        object.__setattr__(self, "to_frame", np.linalg.inv(forward))

    @property
    def identity(self) -> bool:
        """Is the working image the frame itself (no turn, scale or border)?"""
        return not self.turned and self.scaled == self.frame_size == self.size and self.offset == (0, 0)

    @property
    def scale(self) -> float:
        """Working pixels per frame pixel (the mean of the two axes', which differ by rounding only)."""
        tw, th = (self.frame_size[1], self.frame_size[0]) if self.turned else self.frame_size
        return 0.5 * (self.scaled[0] / tw + self.scaled[1] / th)

    def image(self, frame: np.ndarray) -> np.ndarray:
        """The working image of ``frame`` (BGR uint8, ``frame_size``): ``resized``, turned, and bordered (``PAD``)."""
        if (frame.shape[1], frame.shape[0]) != self.frame_size:
            raise ImageError(
                f"a view of a {self.frame_size[0]}x{self.frame_size[1]} frame given {frame.shape[1]}x{frame.shape[0]}"
            )
        if self.identity:
            return frame
        sw, sh = self.scaled
        size = (sh, sw) if self.turned else (sw, sh)  # resized before it is turned: the smaller image is turned
        if size != self.frame_size:
            image = resized(frame, size)
        else:
            image = frame
        if self.turned:
            image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        if self.size == self.scaled:
            return np.ascontiguousarray(image)
        (ox, oy), (cw, ch) = self.offset, self.size
        return cv2.copyMakeBorder(image, oy, ch - sh - oy, ox, cw - sw - ox, PAD)

    def padding(self) -> list[np.ndarray]:
        """The canvas's border around the frame as polygons (working px, pixel centres), none where there is none:
        the detectors are told no card lies there."""
        (ox, oy), (sw, sh), (cw, ch) = self.offset, self.scaled, self.size
        boxes = [(0, 0, ox, ch), (ox + sw, 0, cw, ch), (ox, 0, ox + sw, oy), (ox, oy + sh, ox + sw, ch)]
        return [
            np.array(
                [[x0 - 0.5, y0 - 0.5], [x1 - 0.5, y0 - 0.5], [x1 - 0.5, y1 - 0.5], [x0 - 0.5, y1 - 0.5]], np.float32
            )
            for x0, y0, x1, y1 in boxes
            if x1 > x0 and y1 > y0
        ]

    def points_to_working(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) frame pixels -> working pixels (float32)."""
        return _moved(points, self.to_working)

    def points_to_frame(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) working pixels -> frame pixels (float32)."""
        return _moved(points, self.to_frame)

    def quads_to_working(self, quads: Sequence[np.ndarray]) -> list[np.ndarray]:
        return list(quads) if self.identity else [self.points_to_working(q) for q in quads]

    def quads_to_frame(self, quads: Sequence[np.ndarray]) -> list[np.ndarray]:
        return list(quads) if self.identity else [self.points_to_frame(q) for q in quads]

    def plane_to_working(self, plane: np.ndarray | None) -> np.ndarray | None:
        """A table plane (frame px -> table) as the working image's (working px -> table)."""
        if plane is None or self.identity:
            return plane
        out: np.ndarray = np.asarray(plane, np.float64) @ self.to_frame
        return out

    def ignore_to_working(self, ignore: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The caller's ``ignore`` polygons (frame px) in working px, and the canvas's border."""
        if self.identity:
            return list(ignore)
        return [self.points_to_working(np.asarray(p, np.float32).reshape(-1, 2)) for p in ignore] + self.padding()

    def region_to_working(self, region: Region) -> Region:
        """A region (x0, y0, x1, y1 frame px, ends exclusive) as the working image's box that holds it, clipped to the
        frame's part of the canvas."""
        if self.identity:
            return region
        x0, y0, x1, y1 = region
        # pixel edges: an edge at e is the centre coordinate e - 0.5, moved, plus 0.5
        edges = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64) - 0.5
        moved = self.points_to_working(edges).astype(np.float64) + 0.5
        (ox, oy), (sw, sh) = self.offset, self.scaled
        lo, hi = np.floor(moved.min(axis=0) + 1e-6), np.ceil(moved.max(axis=0) - 1e-6)
        return (
            int(max(ox, lo[0])),
            int(max(oy, lo[1])),
            int(min(ox + sw, hi[0])),
            int(min(oy + sh, hi[1])),
        )


def resized(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` at ``size`` (width, height): halved with ``INTER_AREA`` while it stays at least twice as large, then
    ``INTER_LINEAR`` the rest of the way (less than a halving; enlarging too). OpenCV halves through a fast path: a 4K
    frame to 1280x720 costs about 5 ms of CPU so, 14 ms through one ``INTER_AREA`` resize by three, and a frame of
    8000x4500 about 40 ms against 128. Each step maps pixel centres by its own scale, so the steps together map them
    by the whole one, as a single resize does."""
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if (image.shape[1], image.shape[0]) == size:
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)


def _moved(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    out: np.ndarray = (pts @ homography[:2, :2].T + homography[:2, 2]).astype(np.float32)  # the views' maps are affine
    return out


def _turned_size(frame_size: tuple[int, int]) -> tuple[tuple[int, int], bool]:
    w, h = frame_size
    return ((h, w), True) if h > w else ((w, h), False)


def view_at(frame_size: tuple[int, int], scale: float) -> View:
    """The view of a frame of ``frame_size`` (width, height) turned to landscape and scaled by ``scale``, centred on
    the smallest 16:9 canvas that holds both it and ``WORKING_FRAME``; the canvas's longer side is held to
    ``MAX_WORKING_SIDE`` (the scale lowered to fit)."""
    (tw, th), turned = _turned_size(frame_size)
    scale = min(scale, MAX_WORKING_SIDE / tw, MAX_WORKING_SIDE * WORKING_FRAME[1] / WORKING_FRAME[0] / th)
    sw, sh = max(1, round(tw * scale)), max(1, round(th * scale))
    cw = max(WORKING_FRAME[0], sw, math.ceil(sh * WORKING_FRAME[0] / WORKING_FRAME[1]))
    ch = max(WORKING_FRAME[1], sh, math.ceil(cw * WORKING_FRAME[1] / WORKING_FRAME[0]))
    cw = max(cw, math.ceil(ch * WORKING_FRAME[0] / WORKING_FRAME[1]))
    return View(frame_size, (sw, sh), ((cw - sw) // 2, (ch - sh) // 2), (cw, ch), turned)


def fitted_scale(frame_size: tuple[int, int]) -> float:
    """The scale that fits a frame of ``frame_size``, turned to landscape, into ``WORKING_FRAME``."""
    (tw, th), _ = _turned_size(frame_size)
    return min(WORKING_FRAME[0] / tw, WORKING_FRAME[1] / th)


def first_view(frame_size: tuple[int, int]) -> View:
    """The first look's view: the frame turned to landscape and fitted into ``WORKING_FRAME``."""
    return view_at(frame_size, fitted_scale(frame_size))


def card_width(quads: Sequence[np.ndarray]) -> float:
    """The median short side of ``quads`` (px, the mean of each one's two short sides)."""
    sides = []
    for q in quads:
        p = np.asarray(q, np.float64).reshape(4, 2)
        lengths = np.linalg.norm(p - np.roll(p, -1, axis=0), axis=1)
        sides.append(min(lengths[0] + lengths[2], lengths[1] + lengths[3]) / 2)
    return float(np.median(sides)) if sides else 0.0


def view_for_cards(frame_size: tuple[int, int], quads: Sequence[np.ndarray]) -> View:
    """The view for cards at ``quads`` (frame px): the first view, unless their median width there lies outside
    ``CARD_RANGE``; then the scale that makes it ``CARD_TARGET`` (never larger than the frame's own pixels, where
    cards are small)."""
    first = first_view(frame_size)
    if not quads:
        return first
    return sized_view(first, card_width(quads) * first.scale) or first


def sized_view(first: View, width: float) -> View | None:
    """The view for cards of median width ``width`` in ``first`` (working px): the scale that brings them to
    ``CARD_TARGET`` where they lie outside ``CARD_RANGE`` (for small cards at most the frame's own pixels, and only
    where that is a tenth larger than ``first``'s), otherwise None."""
    if width > CARD_RANGE[1]:
        return view_at(first.frame_size, first.scale * CARD_TARGET / width)
    if 0 < width < CARD_RANGE[0] and first.scale < 1.0:
        better = view_at(first.frame_size, min(1.0, first.scale * CARD_TARGET / width))
        return better if better.scale > first.scale * 1.1 else None
    return None


def second_view(first: View, quads: Sequence[np.ndarray], *, close_up: bool = True) -> View | None:
    """The view to look again through when the first found ``quads`` (working px): the scale bringing their median
    width to ``CARD_TARGET`` when it lies outside ``CARD_RANGE``; with ``close_up``, ``CLOSE_UP``'s for none or for
    ``FEW`` inside it (they may be parts of a close-up card: a court card's picture); otherwise None (and for small
    cards at the frame's own pixels already)."""
    width = card_width(quads)
    if quads and not CARD_RANGE[0] <= width <= CARD_RANGE[1]:
        return sized_view(first, width)
    if close_up and len(quads) <= FEW:
        return view_at(first.frame_size, first.scale * CLOSE_UP)
    return None


def part_of_a_card(quad: np.ndarray, cards: Sequence[np.ndarray]) -> bool:
    """Does ``quad``'s centre lie inside one of ``cards`` (the same pixels) ``PART`` times as wide: a printed rectangle
    on that card (one deck's cards are one size, so no card lies wholly inside another)?"""
    width = card_width([quad])
    return any(PART[0] * width <= card_width([c]) <= PART[1] * width and centre_on_any(quad, [c]) for c in cards)


class Look(NamedTuple):
    """One look at a frame: its view, the working image and the card outlines found there (working px)."""

    view: View
    image: np.ndarray
    quads: list[np.ndarray]
    instead_of: Look | None = None
    """For a close-up look (``CLOSE_UP``, where the first found no card or ``FEW``) kept in the first's place: the
    first. Large textured patches of a bare table (wood grain, checks, stripes) are card-shaped at a close-up's scale
    and read as a card's back: a caller that reads the cards goes back to the first look where the close-up names
    no card's face."""


def look_through(
    frame: np.ndarray,
    view: View,
    detect: Detect,
    plane: np.ndarray | None,
    ignore: Sequence[np.ndarray],
    fallback: Detect | None = None,
) -> Look:
    """``detect`` on ``frame``'s working image through ``view``, the plane and ``ignore`` moved there; where it finds
    nothing, ``fallback`` on the frame's part of the canvas alone (when given)."""
    image = view.image(frame)
    plane_w, ignore_w = view.plane_to_working(plane), view.ignore_to_working(ignore)
    quads = detect(image, plane_w, ignore_w)
    if quads or fallback is None:
        return Look(view, image, quads)
    (ox, oy), (sw, sh) = view.offset, view.scaled
    part = np.ascontiguousarray(image[oy : oy + sh, ox : ox + sw])
    offset = np.array([ox, oy], np.float32)
    moved = None if plane_w is None else plane_w @ np.array([[1.0, 0.0, ox], [0.0, 1.0, oy], [0.0, 0.0, 1.0]])
    found = fallback(part, moved, [np.asarray(p, np.float32).reshape(-1, 2) - offset for p in ignore_w])
    return Look(view, image, [q + offset for q in found])


def looked(
    frame: np.ndarray,
    detect: Detect,
    plane: np.ndarray | None = None,
    ignore: Sequence[np.ndarray] = (),
    *,
    fallback: Detect | None = None,
) -> Look:
    """The look that found the cards in ``frame`` (BGR uint8): the first view's, or a second's (``second_view``) kept
    by ``kept_look``. ``fallback``: a detector for the frame's part of a second look's canvas where ``detect`` finds
    nothing there (the shipped detector: the learned networks can miss one large card alone on a plain canvas). On a
    calibrated table (``plane`` given) the camera sees the whole table and takes no close-up look: at a third of the
    scale a mat's zones are a card's size."""
    first = look_through(frame, first_view((frame.shape[1], frame.shape[0])), detect, plane, ignore)
    view = second_view(first.view, first.quads, close_up=plane is None)
    if view is None:
        return first
    return kept_look(first, look_through(frame, view, detect, plane, ignore, fallback))


def in_range(quad: np.ndarray) -> bool:
    """Is ``quad``'s width (working px) inside ``CARD_RANGE``?"""
    return CARD_RANGE[0] <= card_width([quad]) <= CARD_RANGE[1]


def kept_look(first: Look, second: Look) -> Look:
    """Of a first look and a second (``second_view``'s), the one that found the cards: the second where it found
    any and the first none; where the first found cards larger than ``CARD_RANGE``, at least as many as the first
    found inside it; where smaller, at least as many as the first; where inside it (a close-up look), a card round
    one that the first found (``part_of_a_card``)."""
    if not second.quads:
        return first
    if not first.quads:
        return second._replace(instead_of=first)
    width = card_width(first.quads)
    if width > CARD_RANGE[1]:
        return second if len(second.quads) >= sum(map(in_range, first.quads)) else first
    if width < CARD_RANGE[0]:
        return second if len(second.quads) >= len(first.quads) else first
    cards = second.view.quads_to_frame(second.quads)
    parts = any(part_of_a_card(q, cards) for q in first.view.quads_to_frame(first.quads))
    return second._replace(instead_of=first) if parts else first
