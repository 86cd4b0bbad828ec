"""Card detection: every card-shaped quadrilateral in a frame, independent of light and table colour.

Candidates are found on a half-resolution frame (cards 80-300 px wide at 1280x720 are 40-150 px there)
from several cues, because no single one works on every table:

1. Edges: Canny on the grey frame and on a chroma channel (max - min of the channels; a white card on a
   pale cloth differs in colour more than in brightness). Every hole of the edge map is a candidate
   card interior (holes stay separate even when neighbouring cards' edges touch), on the thin map and on
   a slightly thickened one; the thickened map's outer outlines, filled and opened, are candidates too,
   and an outline with a gap (it encloses nothing) is one by its convex hull if every side of that lies
   on edges. Where no card was found: the holes of a map thickened 3x3 (Canny breaks a card's edge where
   another edge meets it, and the card's inside leaks out), and, where much of the frame is pale but no
   card (a pink cloth, the pale table edge), the holes of a map with magenta-green opponent edges added
   (a white card and a pale cloth can be one grey and one brightness but not one hue).
2. Paper: card stock is bright in all three channels, felt, wood and most cloth are not. The darkest
   channel thresholded globally (Otsu) and against its neighbourhood (adaptive) gives whole-card blobs
   where court art or a striped cloth breaks the edge map into pieces.
3. Shape tests: convex hull -> four corners -> a quad with a card's aspect ratio (allowing tilt), filling
   its hull (solidity), of card size, not cut by the frame border. Coins, chips and hands are not quads;
   phones are too long; table edges are too big.
4. Grouping: outlines of one card (inner contour, outer contour, paper blob, a printed inner frame) merge,
   the outermost preferred unless a side of it lies off the edge map (a touching chip taken in, a corner
   cut off) and a smaller one's sides do not; an outline holding several card-shaped outlines is a
   group, not a card; so is one far larger than two or more card outlines whose corners lie on it
   (cards a few pixels apart closed into one outline).
5. Snapping (full resolution): every side is moved onto the strongest colour edge within ~10% of the
   card's width, which fixes outlines a pixel or two off and outlines on a card's inner printed frame.
6. Repair: an outline whose opposite sides are further from parallel than perspective allows has one
   corner off (a side on a neighbour's or a shadow's edge); it is rebuilt from its other three corners
   where the rebuilt sides lie on edges at least as well.
7. Size (on a calibrated table, before 5 and 6): where paper lies outside the cards found, a rectangle of the deck's own
   size whose four sides lie on edges of their direction and that has a paper margin is a card
   (``vision/size_search.py``): a court figure reaching the card's edge on stripes or beside an arm cuts
   every closed outline of the card into pieces, but not its sides.

Corners are returned in full-resolution pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import overload

import cv2
import numpy as np

from vision.errors import CalibrationError, ImageError
from vision.plane_from_cards import mean_side_vectors, plane_from_cards
from vision.rectify import order_corners
from vision.size_search import edge_directions, rectangles_of_size


@dataclass(frozen=True)
class DetectorConfig:
    scale: float = 0.5  # detection resolution relative to the frame
    min_width: float = 60.0  # card short side in full-res pixels (after tilt)
    max_width: float = 420.0
    min_aspect: float = 1.12  # long / short side; a card is ~1.4, tilt of 30 degrees changes it ~15%
    max_aspect: float = 1.85
    min_solidity: float = 0.88  # contour area / quad area
    max_side_ratio: float = 1.35  # opposite sides of a tilted card stay within this ratio
    # Canny thresholds. Grey is lower than chroma: a white card without a printed border line on a pale
    # cloth (or touching the pale table edge) differs from it by ~10 grey levels; 30/90 lost such cards,
    # and 20/60 finds them without more false outlines (docs/performance.md, detector round 5).
    grey_low: int = 20
    grey_high: int = 60
    chroma_low: int = 30
    chroma_high: int = 90
    gap_close: int = 3  # holes of the edge map dilated this much, where no card was found (see _gap_pass)
    hue_pass: bool = True  # magenta-green edges where pale non-card regions are (see _hue_pass)
    hue_low: int = 8
    hue_high: int = 24
    hue_gate: float = 0.1  # share of the frame that is paper outside the cards found
    # A face-down card on a striped or checked cloth: the back's printed pattern is a block of dense edges
    # even where the cloth breaks the card's outline and white border (see _texture_pass).
    texture_pass: bool = True
    texture_box: int = 5  # edge density over this square, detection pixels
    texture_level: int = 90  # of 255: 35% edge pixels (a 1 px stripe line gives 20% over 5 px)
    texture_open: int = 5  # drops the stripes' edge lines from the dense mask
    texture_grow: float = 2.0  # the pattern lies inside a white border; snapping finds the card's edge
    # A card protruding from a pale region of its own colour (the table's edge): three sides are seen
    # (see _tab_pass); where its far end lies on the region too, that end is placed for the proportions
    # of the cards found in the frame, or this long to wide with fewer than three (poker 88/63 = 1.40).
    tab_pass: bool = True
    tab_eps: float = 2.0  # polygon fit of the paper regions' outlines, detection pixels
    tab_aspect: float = 1.4
    tab_colour: float = 30.0  # card and region are one colour across the unseen side (BGR distance)
    tab_region: float = 4.0  # the region is this many times the card (a table edge, a cloth; not a
    # phone's screen coming out from under a card, the two of them one blob of paper)
    tab_chroma: float = 40.0  # and the card is grey (white stock under a coloured light), not a screen
    # An open outline (see _consider_open) whose weakest side lies on edges for only this share of its
    # length is still a card when the other three are on edges for 0.9 and it is nearly a rectangle of a
    # card's proportions (``near_rectangle``): a white card with one side on a cloth of its colour.
    open_weak_side: float = 0.5
    # ... or when the colour steps across that side by ``open_step`` (BGR distance, 3 px either side) along
    # ``open_step_share`` of it (see _step_across): a grey card on a pale blue-grey table, too faint for Canny.
    open_step: float = 10.0
    open_step_share: float = 0.8
    # A paper blob covering this share of its hull (court art cutting into it) is a card when every side of
    # the hull lies on edges for ``thin_support`` (see _consider).
    thin_cover: float = 0.3
    thin_support: float = 0.95
    paper_pairs: bool = True  # two paper blobs, neither a card, whose hull is one (see _paper_pairs)
    open_pairs: bool = True  # two open outlines, neither a card, that are one (see _open_pairs)
    open_pair_cover: float = 0.8  # their hulls cover this share of the hull of both
    # Cards of the frame's own size whose sides are on edges but that no closed outline holds (a court figure
    # reaching the card's edge, on stripes or beside an arm): a matched filter for the deck's rectangle
    # (``vision/size_search.py``, ``_size_pass``), where no card was found and with two cards found to give
    # the size. On the table plane the size is the deck's within ``size_tolerance``; in a tilted image
    # perspective spreads it (``size_tolerance_image``), and the pass runs there only with ``size_pass_image``:
    # measured on the image it found fewer cards for more false ones and costs as much (docs/performance.md).
    size_pass: bool = True
    size_pass_image: bool = False
    size_level: float = 0.8  # each side's share on edges of its direction, in the search
    size_tolerance: float = 0.06
    size_tolerance_image: float = 0.15
    size_band: float = 0.75  # the band just inside each side is paper for this share of it (see _size_pass)
    # and its inside is not the cloth around it: no more than this share of its inside has a colour of the
    # ring outside it (see _inside_like_outside)
    size_cloth_share: float = 0.9
    size_cloth_tolerance: float = 15.0
    # The search's direction maps are dilated this square, so a side two pixels off its edge (a card 3 degrees
    # from the directions searched) still counts; 3 lost such cards (docs/performance.md, session 16).
    size_grow: int = 5
    # Snap the outlines (``snap``) before the plane estimate and the size pass take the deck's size from them:
    # rough outlines of a design with a printed frame line lie on that line, several percent inside the card.
    snap_early: bool = True
    faint_pass: bool = False  # low-threshold Canny where nothing was found: ~6 ms for +0.2% found; the paper cues cover it
    paper_pass: bool = True
    paper_nested: bool = True  # also paper blobs inside holes of others (a card's inside, within its frame line)
    local_paper_pass: bool = True
    local_block: int = 100  # neighbourhood of the local-paper threshold, full-res pixels
    local_offset: float = 16.0  # paper is this much brighter (least channel) than its neighbourhood
    snap: bool = True  # move each side onto the strongest edge at full resolution
    snap_radius: float = 0.1  # search across a side, as a fraction of the card's short side
    snap_outer: float = 0.5  # an edge's weight is 1 + this x its offset outward (-1 inner end .. 1 outer end)
    snap_max_skew: float = 1.0  # degrees: snapping may not make opposite sides less parallel than this
    repair_skew: bool = True  # rebuild the one corner of an outline that is off (see _repair_skewed)
    # On a calibrated table every card is one rectangle: an outline off that size, or with a side off edges,
    # is moved onto the deck's rectangle whose sides lie best on edges nearby (see _fit_deck).
    deck_fit: bool = True
    deck_fit_error: float = 0.06  # corner distance from the deck's rectangle, in card widths, that is off
    deck_fit_shift: float = 0.2  # how far the search moves the rectangle, in card widths
    deck_fit_turn: float = 6.0  # and turns it, degrees
    # Without a calibrated table, the plane on which the outlines found are one rectangle
    # (``vision.plane_from_cards``) stands in for it in the size pass and the deck fit.
    estimate_plane: bool = True
    size_pass_estimated: bool = True  # the size pass on that plane too (the deck fit always uses it)
    # How far perspective can turn a card's opposite sides apart: sine of the angle between them per pixel
    # of their distance. A camera 30 degrees off vertical with a ~65-degree lens gives about 0.0006; the
    # generated scenes' cards reach 0.0005, outlines with one corner off 0.0006-0.0026.
    max_perspective: float = 0.0007
    # Of one card's outlines, the largest whose weakest side lies on edges within this much of the best
    # one's wins. 0.15 let an outline with a corner off the card win on a patterned cloth once grey edges
    # were traced lower (round 5); 0.1 is as good or better on every measured frame set.
    pick_margin: float = 0.1
    faint_low: int = 12
    faint_high: int = 36
    max_corner_cos: float = 0.4  # corners within about 66..114 degrees
    # The table plane, when the table is calibrated: a homography (9 floats, row-major) from full-resolution
    # image pixels to any metric plane coordinates (the mat's millimetres). The shape tests (aspect,
    # opposite sides, corner angles) are then made on the table, where every card is a rectangle, instead
    # of in the image, where a far-side card of a tilted camera reads 0.9..2.1 (``detect_cards(plane=)``).
    plane: tuple[float, ...] | None = None
    plane_min_aspect: float = 1.25  # poker 88/63 = 1.40, bridge 89/57 = 1.56, mini 67/44 = 1.52
    plane_max_aspect: float = 1.75
    # Opposite sides and corners: a card on the table is a rectangle, but the rough corners (before the
    # sides are snapped) of true cards reach a side ratio of 1.25 and a corner cosine of 0.26 there.
    plane_side_ratio: float = 1.3
    plane_corner_cos: float = 0.3  # corners within about 73..107 degrees
    plane_max_skew: float = 0.07  # opposite sides within 4 degrees of parallel, else a corner is off

    @cached_property  # a frozen dataclass: computed once per config, not per pass or contour
    def loose(self) -> DetectorConfig:
        """Wider limits for the rough corners, before the sides are fitted."""
        return replace(self, min_aspect=self.min_aspect * 0.9, max_aspect=self.max_aspect * 1.1,
                       min_solidity=self.min_solidity * 0.95, max_corner_cos=self.max_corner_cos + 0.1,
                       max_side_ratio=self.max_side_ratio * 1.1, plane_min_aspect=self.plane_min_aspect * 0.9,
                       plane_max_aspect=self.plane_max_aspect * 1.1, plane_side_ratio=self.plane_side_ratio * 1.1,
                       plane_corner_cos=self.plane_corner_cos + 0.1)

    @cached_property
    def near_rectangle(self) -> DetectorConfig:
        """Tighter shape limits for an outline with a side not seen on edges: opposite sides within 12-15%,
        corners within ~7-12 degrees of square (rough corners, before snapping), proportions of real cards
        (poker 1.40, bridge 1.56) rather than of any oblong."""
        return replace(self, max_side_ratio=1.15, max_corner_cos=0.2, plane_side_ratio=1.12, plane_corner_cos=0.12,
                       min_aspect=1.2, max_aspect=1.7, plane_min_aspect=1.3, plane_max_aspect=1.65)


DEFAULT_CONFIG = DetectorConfig()


def _edges(small_bgr: np.ndarray, channels: tuple[np.ndarray, ...], least: np.ndarray,
           cfg: DetectorConfig) -> np.ndarray:
    grey = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    edges = cv2.Canny(grey, cfg.grey_low, cfg.grey_high)
    # Chroma: max - min of the channels, high on coloured felt, low on white card paper.
    b, g, r = channels
    chroma = cv2.subtract(cv2.max(cv2.max(b, g), r), least)
    chroma = cv2.GaussianBlur(chroma, (3, 3), 0)
    out: np.ndarray = cv2.bitwise_or(edges, cv2.Canny(chroma, cfg.chroma_low, cfg.chroma_high))
    return out


def _fit_quad(contour: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Four rough corners of a convex near-quadrilateral contour and its hull points, or None."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32), hull.reshape(-1, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None


def _refine_sides(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Fit a line to the hull points of each side and intersect neighbours (sub-pixel corners that
    ignore the rounded card corners)."""
    lines = []
    n = len(points)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ab = b - a
        length = float(np.linalg.norm(ab))
        if length < 1e-3:
            return quad
        # points near segment a-b, away from its ends (the rounded corners)
        t = ((points - a) @ ab) / (length**2)
        dist = np.abs((points - a) @ np.array([-ab[1], ab[0]]) / length)
        sel = points[(t > 0.15) & (t < 0.85) & (dist < max(2.0, 0.04 * length))]
        if len(sel) < 2 or n < 8:
            sel = np.stack([a, b])
        vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = np.empty((4, 2), np.float32)
    for k in range(4):  # corner k = intersection of side k-1 and side k (Cramer's rule)
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        det = float(d1[0] * -d2[1] + d2[0] * d1[1])
        if abs(det) < 1e-6:
            return quad
        rx, ry = float(p2[0] - p1[0]), float(p2[1] - p1[1])
        t = (rx * -d2[1] + d2[0] * ry) / det
        out[k] = (p1[0] + t * d1[0], p1[1] + t * d1[1])
    if np.abs(out - quad).max() > 0.25 * np.linalg.norm(quad[0] - quad[2]):
        return quad
    return out


def _card_like(quad: np.ndarray, contour_area: float, cfg: DetectorConfig, scale: float) -> bool:
    # Plain floats, unrolled over the four corners: ~100 calls a frame, so per-call overhead counts.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    ex0, ey0, ex1, ey1 = x1 - x0, y1 - y0, x2 - x1, y2 - y1
    ex2, ey2, ex3, ey3 = x3 - x2, y3 - y2, x0 - x3, y0 - y3
    s0, s1, s2, s3 = math.hypot(ex0, ey0), math.hypot(ex1, ey1), math.hypot(ex2, ey2), math.hypot(ex3, ey3)
    if s0 < 1 or s1 < 1 or s2 < 1 or s3 < 1:
        return False
    a, b = (s0 + s2) / 2, (s1 + s3) / 2
    short, long_ = (a, b) if a <= b else (b, a)
    if cfg.plane is not None:
        if short > cfg.max_width * scale or \
                not _rectangle_on_plane(quad, short * long_ if short < cfg.min_width * scale else math.inf, cfg, scale):
            return False
    elif not cfg.min_width * scale <= short <= cfg.max_width * scale:
        return False
    elif not _quad_like_card(s0, s1, s2, s3, (ex0, ey0, ex1, ey1, ex2, ey2, ex3, ey3), short, long_,
                             cfg.min_aspect, cfg.max_aspect, cfg.max_side_ratio, cfg.max_corner_cos):
        return False
    turn = ex3 * ey0 - ey3 * ex0 > 0
    if turn != (ex0 * ey1 - ey0 * ex1 > 0) or turn != (ex1 * ey2 - ey1 * ex2 > 0) or \
            turn != (ex2 * ey3 - ey2 * ex3 > 0):
        return False
    area = 0.5 * abs(x0 * y1 - x1 * y0 + (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y0 - x0 * y3))
    return bool(area > 0 and contour_area / area >= cfg.min_solidity)


def _quad_like_card(s0: float, s1: float, s2: float, s3: float, e: tuple[float, ...], short: float, long_: float,
                    min_aspect: float, max_aspect: float, ratio: float, cos: float) -> bool:
    """Aspect, opposite sides and corner angles of a quad with sides ``s0..s3`` along edges ``e``."""
    if not min_aspect <= long_ / short <= max_aspect:
        return False
    if max(s0, s2) > ratio * min(s0, s2) or max(s1, s3) > ratio * min(s1, s3):
        return False
    # corners near square (a tilted camera bends them a little in the image)
    ex0, ey0, ex1, ey1, ex2, ey2, ex3, ey3 = e
    return not (abs(ex3 * ex0 + ey3 * ey0) > cos * s3 * s0 or abs(ex0 * ex1 + ey0 * ey1) > cos * s0 * s1
                or abs(ex1 * ex2 + ey1 * ey2) > cos * s1 * s2 or abs(ex2 * ex3 + ey2 * ey3) > cos * s2 * s3)


def _rectangle_on_plane(quad: np.ndarray, image_area: float, cfg: DetectorConfig, scale: float) -> bool:
    """The shape and size tests on the table plane (``cfg.plane``) for a quad at ``scale`` of the frame.

    Size: a far-side card of a tilted camera is squeezed along the tilt (to ~0.65 at 30 degrees), so its
    short side in the image can be well under ``min_width`` though the card is as readable as one a
    little smaller seen square on. Such a card (``image_area``: the product of its mean opposite sides;
    infinite when its short side is wide enough) passes if a card of its shape on the table with the same
    image area would be ``min_width`` wide: the squeeze changes the area only by its square root."""
    assert cfg.plane is not None
    h0, h1, h2, h3, h4, h5, h6, h7, h8 = cfg.plane
    pts = []
    for x, y in quad.tolist():
        x, y = (x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5  # full-resolution pixels
        w = h6 * x + h7 * y + h8
        if w <= 1e-9:  # beyond the horizon of the plane: not on the table
            return False
        pts.append(((h0 * x + h1 * y + h2) / w, (h3 * x + h4 * y + h5) / w))
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
    e = (x1 - x0, y1 - y0, x2 - x1, y2 - y1, x3 - x2, y3 - y2, x0 - x3, y0 - y3)
    s0, s1, s2, s3 = math.hypot(e[0], e[1]), math.hypot(e[2], e[3]), math.hypot(e[4], e[5]), math.hypot(e[6], e[7])
    a, b = (s0 + s2) / 2, (s1 + s3) / 2
    if min(a, b) <= 1e-9:
        return False
    short, long_ = (a, b) if a <= b else (b, a)
    if image_area < (cfg.min_width * scale) ** 2 * (long_ / short):
        return False
    return _quad_like_card(s0, s1, s2, s3, e, short, long_, cfg.plane_min_aspect, cfg.plane_max_aspect,
                           cfg.plane_side_ratio, cfg.plane_corner_cos)


def _grow(quad: np.ndarray, pixels: float) -> np.ndarray:
    """Move every side of a convex quad outwards by ``pixels``."""
    centre = quad.mean(axis=0)
    out = np.empty_like(quad)
    for k in range(4):
        v = quad[k] - centre
        out[k] = quad[k] + v / max(1e-6, float(np.linalg.norm(v))) * pixels * 1.41
    return out


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area over the smaller quad's area."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(1e-6, min(cv2.contourArea(a), cv2.contourArea(b)))


def detect_cards(frame_bgr: np.ndarray, config: DetectorConfig = DEFAULT_CONFIG,
                 plane: np.ndarray | None = None) -> list[np.ndarray]:
    """Card outlines in ``frame_bgr``: a list of (4, 2) float32 quads, clockwise, full-res pixels.

    ``plane``: the calibrated table, a 3x3 homography from image pixels to table coordinates (such as
    ``Calibration.image_to_mat``); the card shape is then tested on the table (see ``DetectorConfig.plane``).
    """
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ImageError(f"expected a BGR uint8 frame, got shape {frame_bgr.shape} {frame_bgr.dtype}")
    if plane is not None:
        config = replace(config, plane=plane_tuple(plane, frame_bgr.shape[:2]))
    s = config.scale
    small = cv2.resize(frame_bgr, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s != 1 else frame_bgr
    channels = tuple(cv2.split(small))
    least = cv2.min(cv2.min(channels[0], channels[1]), channels[2])  # darkest channel: high on paper
    edges = _edges(small, channels, least, config)
    min_area = (config.min_width * s) ** 2 * config.min_aspect * 0.8
    # an 8-connected outline of that area has at least this many pixels (a 45-degree square: side / sqrt 2
    # steps per side); counting them is one C-level pass, so the per-contour Python work is for big ones
    min_points = int(4 * math.sqrt(min_area / config.max_aspect) / math.sqrt(2) * 0.8)
    candidates: list[_Candidate] = []
    loose = config.loose
    # (a) holes of the edge map: card interiors, separate even when neighbouring cards' edges touch.
    # Thin edges keep close cards apart; thickened ones close small gaps in an outline. Use both.
    thick = cv2.dilate(edges, np.ones((2, 2), np.uint8))
    near_edges = cv2.dilate(edges, np.ones((5, 5), np.uint8))  # edge pixels within 2 px
    for c in _contours(edges, min_points, holes=True):
        _consider(c, 1.0, min_area, loose, candidates, near_edges, split=True)
    outer = []
    open_pieces: list[np.ndarray] = []
    for tagged in _contours(thick, min_points, holes=None):
        if tagged.hole:
            _consider(tagged.points, 1.0, min_area, loose, candidates, near_edges, split=True)
        else:
            area = cv2.contourArea(tagged.points)
            if area >= min_area:
                outer.append(tagged.points)
                if tagged.inner_area >= 0.5 * area:
                    continue  # a closed outline: its hole is a candidate already
            # an outline with a gap can still enclose a card's area (court art touching the edge line
            # closes part of it), and then fills to a shape that is not the card: try its hull too
            if not _consider_open(tagged.points, min_area, loose, candidates, near_edges, small):
                open_pieces.append(tagged.points)
    if config.open_pairs:
        _open_pairs(open_pieces, min_area, loose, candidates, near_edges, small)
    # (b) filled outlines, opened: thin attachments (a table edge, stripes, a touching line) cut off
    solid = np.zeros(edges.shape, np.uint8)
    cv2.drawContours(solid, outer, -1, 255, -1)
    k = max(3, round(config.min_width * s * 0.15) | 1)
    filled = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    for c in _contours(filled, min_points, holes=False):
        _consider(c, 0.0, min_area, loose, candidates)
    paper, paper_contours, local = None, [], None
    if config.paper_pass:
        # (c) paper: card stock is bright in all three channels, felt, wood and most cloth are not. The
        # outer outline of the white border holds the whole card even where busy court art or a striped
        # cloth breaks the edge map into pieces.
        _, paper = cv2.threshold(least, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)  # no opening: the
        # white border outside a printed frame line can be a pixel wide at this scale
        height, width = paper.shape
        # Every outer outline, also those inside a hole of another: the inside of a card's printed frame
        # line is a blob of paper inside the line's ring, and on a pale cloth that ring lies in a hole
        # of the cloth's own paper region, out of reach of the outermost outlines.
        paper_contours = _contours(paper, min_points, holes=False, nested=config.paper_nested)
        pieces: list[np.ndarray] = []
        for c in paper_contours:
            x, y, w, h = cv2.boundingRect(c)
            if x > 0 and y > 0 and x + w < width and y + h < height and \
                    not _consider(c, 0.0, min_area, loose, candidates, near_edges=near_edges, thin=True):
                pieces.append(c)  # (a patch cut by the frame's edge: light there, not a card's edge)
        if config.paper_pairs:
            _paper_pairs(pieces, min_area, loose, candidates, near_edges)
        if config.local_paper_pass:
            # (c') paper brighter than the table around it: for small cards, glare and light gradients
            # that defeat one global threshold
            block = int(config.local_block * s) | 1
            local = cv2.adaptiveThreshold(least, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block,
                                          -config.local_offset)
            pieces = []  # pairs within one mask: a blob and its near twin in the other are not two pieces
            for c in _contours(local, min_points, holes=False):
                x, y, w, h = cv2.boundingRect(c)
                if x > 0 and y > 0 and x + w < width and y + h < height and \
                        not _consider(c, 0.0, min_area, loose, candidates, near_edges=near_edges, thin=True):
                    pieces.append(c)
            if config.paper_pairs:
                _paper_pairs(pieces, min_area, loose, candidates, near_edges)
    quads = _resolve(candidates, config, near_edges)
    if config.gap_close:
        quads += _gap_pass(edges, quads, config, min_points, min_area, near_edges)
    if config.hue_pass and paper is not None:
        quads += _hue_pass(channels, edges, paper, quads, config, min_points, min_area)
    if config.tab_pass and paper is not None:
        quads += _tab_pass(small, paper_contours, quads, config, min_area, near_edges)
    if config.texture_pass:
        quads += _texture_pass(edges, quads, config, min_points, min_area, near_edges)
    if config.faint_pass:
        # (d) faint outlines (white cards on a pale cloth): lower thresholds, grey only, only where no
        # card was found, so the extra texture it picks up cannot disturb the cards already found.
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        faint = cv2.Canny(grey, config.faint_low, config.faint_high)
        quads += _cards_in_holes(faint, 1.0, quads, config, min_points, min_area, near_edges)
    snapped = 0  # the outlines (the first ones) already snapped
    if config.snap and config.snap_early and quads:
        quads = [(f + 0.5) * s - 0.5 for f in snap_to_edges(frame_bgr, [(q + 0.5) / s - 0.5 for q in quads], config)]
        snapped = len(quads)
    table = config  # the config with a table plane: the calibrated one, or one estimated from the cards
    if config.plane is None and config.estimate_plane and (config.size_pass or config.deck_fit):
        estimate = plane_from_cards([(q + 0.5) / s - 0.5 for q in quads], frame_bgr.shape)
        if estimate is not None:
            try:
                table = replace(config, plane=plane_tuple(estimate, frame_bgr.shape))
            except CalibrationError:
                pass  # a degenerate estimate: the frame is judged in the image, as without one
    searched = table if config.size_pass_estimated else config  # (with a calibrated plane, table is config)
    if config.size_pass and (searched.plane is not None or config.size_pass_image) and paper is not None \
            and len(quads) >= 2:
        quads += _size_pass(small, edges, quads, searched, near_edges, paper,
                            paper if local is None else cv2.bitwise_or(paper, local))
    full = [(q + 0.5) / s - 0.5 for q in quads]
    if config.snap and len(full) > snapped:
        full = full[:snapped] + snap_to_edges(frame_bgr, full[snapped:], config)
    if config.repair_skew and full:
        full = _repair_skewed(frame_bgr, full, near_edges, config)
    if config.deck_fit and table.plane is not None and len(full) >= 3:
        full = _fit_deck(frame_bgr, full, edges, near_edges, table)
    return [order_corners(q) for q in full]


def outline_support(frame_bgr: np.ndarray, quads: Sequence[np.ndarray],
                    config: DetectorConfig = DEFAULT_CONFIG) -> np.ndarray:
    """(Q,) for each full-resolution quad, the share of its weakest side that lies on the detector's edge
    map (an edge pixel within 2 px at detection scale, as the detector judges its own outlines). A card
    the detector missed although its true outline scores ~1.0 here had its sides on edges: what it lacked
    was an outline to try (``benchmarks/missed_cards.py``)."""
    if not len(quads):
        return np.zeros(0)
    s = config.scale
    small = cv2.resize(frame_bgr, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s != 1 else frame_bgr
    channels = tuple(cv2.split(small))
    least = cv2.min(cv2.min(channels[0], channels[1]), channels[2])
    near_edges = cv2.dilate(_edges(small, channels, least, config), np.ones((5, 5), np.uint8))
    return _support([(np.asarray(q, np.float32).reshape(4, 2) + 0.5) * s - 0.5 for q in quads], near_edges)


def _size_pass(small: np.ndarray, edges: np.ndarray, quads: list[np.ndarray], config: DetectorConfig,
               near_edges: np.ndarray, otsu: np.ndarray, paper: np.ndarray) -> list[np.ndarray]:
    """(e) Cards of the deck's size that no closed outline holds, where no card was found (detection scale).

    The search (``vision.size_search.rectangles_of_size``) runs on the table plane when the table is
    calibrated (the frame warped so that every card is the same rectangle; its size the median of the cards
    found there), and on the image only with ``size_pass_image``. A rectangle it returns is a card when it
    overlaps no card found, lies inside the frame, is a card's shape, every side lies on the edge map for
    0.9, and the band just inside each side (3-8% of the card's width) is paper for ``size_band`` of it: a card has a paper
    margin, while the same rectangle between a cloth's stripes or squares holds cloth. The paper is the
    global or the local paper mask (``paper``), so glare and a pale cast do not hide it. A gingham's pale
    grid lines are such a margin too; there the inside of the rectangle is the cloth around it
    (``_inside_like_outside``), which a card's is not.

    The search is costly (a few filters per card direction over the frame), so it runs only around the
    paper of the global mask (``otsu``) that no card found covers: none on felt or wood once every card is
    found, and then the pass costs one subtraction."""
    covered = _filled(edges.shape, [_grow(q, 2.0) for q in quads])
    loose_paper = cv2.morphologyEx(cv2.subtract(otsu, covered), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    perimeter = 2 * float(np.mean([sum(_sides(q)) for q in quads]))
    if cv2.countNonZero(loose_paper) < perimeter:
        return []  # no paper outside the cards found, so no card margin: nothing to search (felt, wood)
    space = _search_space(small.shape, quads, config)
    if space is None:
        return []
    to_space, size = space
    if config.plane is None:  # the search space is the detection frame itself
        s_small, s_edges = small, edges
    else:
        s_small = cv2.warpPerspective(small, to_space, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        channels = tuple(cv2.split(s_small))
        s_edges = _edges(s_small, channels, cv2.min(cv2.min(channels[0], channels[1]), channels[2]), config)
        inside = cv2.warpPerspective(np.full(small.shape[:2], 255, np.uint8), to_space, size, flags=cv2.INTER_NEAREST)
        s_edges = cv2.bitwise_and(s_edges, cv2.erode(inside, np.ones((5, 5), np.uint8)))  # not the frame's edge
    found = [_map(to_space, q) for q in quads]
    free = cv2.subtract(s_edges, _filled(s_edges.shape, [_grow(q, 1.0) for q in found]))
    dims = np.array([_sides(q) for q in found])
    short, long_ = float(np.median(dims[:, 0])), float(np.median(dims[:, 1]))
    if cv2.countNonZero(free) < 2 * (short + long_):
        return []  # not edges enough outside the cards found for one more
    # where to look: around the loose paper, as far as a card reaches from it
    x, y, bw, bh = cv2.boundingRect(cv2.findNonZero(loose_paper))
    box = _map(to_space, np.array([[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]], np.float32))
    x0, y0 = np.maximum(np.floor(box.min(axis=0) - long_), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0) + long_), (size[0], size[1])).astype(int)
    if x1 - x0 < 2 * long_ or y1 - y0 < 2 * long_:
        return []
    grey = cv2.GaussianBlur(cv2.cvtColor(s_small[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (3, 3), 0)
    tolerance = config.size_tolerance if config.plane is not None else config.size_tolerance_image
    back = np.linalg.inv(to_space)
    h, w = edges.shape
    out: list[np.ndarray] = []
    for _, crop_rect in rectangles_of_size(np.ascontiguousarray(free[y0:y1, x0:x1]), edge_directions(grey), short,
                                           long_, tolerance=tolerance, level=config.size_level,
                                           grow=config.size_grow):
        rect = crop_rect + np.array([x0, y0], np.float32)
        if any(_overlap(rect, q) >= 0.2 for q in found):
            continue
        quad = _map(back, rect)
        if quad.min() < 1 or (quad[:, 0] > w - 2).any() or (quad[:, 1] > h - 2).any():
            continue
        if _side_hits(quad[None], near_edges)[0].min() < 0.9 or \
                not _card_like(quad, cv2.contourArea(quad), config.loose, config.scale) or \
                _margin_paper(paper, quad) < config.size_band or \
                _inside_like_outside(small, quad, config.size_cloth_tolerance) >= config.size_cloth_share:
            continue
        out.append(quad)
        found.append(rect)
    return out


def _search_space(shape: tuple[int, ...], quads: list[np.ndarray], config: DetectorConfig
                  ) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The homography from detection pixels to the size search's pixels and the search image's size: the
    identity without a table plane; with one, the plane scaled so that the cards found are as wide there as
    in the frame (None if the view would then be over four times the frame's area: a plane far off the view).
    (A search at half this scale, refined after, lost many of the cards it finds: session 13, scratch.)"""
    h, w = shape[:2]
    if config.plane is None:
        return np.eye(3), (w, h)
    s = config.scale
    to_full = np.array([[1 / s, 0, 0.5 / s - 0.5], [0, 1 / s, 0.5 / s - 0.5], [0, 0, 1]])
    to_plane = np.asarray(config.plane, np.float64).reshape(3, 3) @ to_full
    ratio = float(np.median([_sides(q)[0] for q in quads]) / np.median([_sides(_map(to_plane, q))[0] for q in quads]))
    corners = _map(to_plane, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    lo, span = corners.min(axis=0), (corners.max(axis=0) - corners.min(axis=0)) * ratio
    if not np.isfinite(span).all() or span[0] * span[1] > 4 * w * h:
        return None
    scale_shift = np.array([[ratio, 0, -lo[0] * ratio], [0, ratio, -lo[1] * ratio], [0, 0, 1]])
    return scale_shift @ to_plane, (int(math.ceil(span[0])) + 1, int(math.ceil(span[1])) + 1)


def _map(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N, 2) points through a 3x3 homography, as float32."""
    out: np.ndarray = _plane_points(points[None], tuple(homography.ravel()))[0].astype(np.float32)
    return out


def _sides(quad: np.ndarray) -> tuple[float, float]:
    """A quad's mean short and long side."""
    q = order_corners(quad.astype(np.float32))
    a = (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[3] - q[2]))) / 2
    b = (float(np.linalg.norm(q[2] - q[1])) + float(np.linalg.norm(q[0] - q[3]))) / 2
    return min(a, b), max(a, b)


_BAND_T = np.linspace(0.15, 0.85, 15)[:, None]
_BAND_DEPTH = np.linspace(0.03, 0.08, 4)  # of the card's width, inside each side


_INSIDE_UV = np.linspace(0.2, 0.8, 7)
_INSIDE_BILINEAR = np.array([((1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v) for u in _INSIDE_UV for v in _INSIDE_UV])
_OUTSIDE_T = np.linspace(0.05, 0.95, 13)[:, None]


def _inside_like_outside(small: np.ndarray, quad: np.ndarray, tolerance: float) -> float:
    """The share of a 7 x 7 grid over the quad's inside (20-80% each way) whose colour is within
    ``tolerance`` (BGR distance) of some point of the ring just outside it (10 and 20% of its width out).
    A rectangle of a checked or striped cloth holds the cloth that surrounds it (about 1.0); a card holds
    paper, print or a back that the table around it does not (a median of 0.1 on the held-out frames)."""
    q, width, sides = _quad_sides(quad)
    ring = [a + _OUTSIDE_T * d - depth * width * inward for a, d, inward in sides for depth in (0.1, 0.2)]
    inside = _pixels(small, _INSIDE_BILINEAR @ q).astype(np.float32)
    outside = _pixels(small, np.concatenate(ring)).astype(np.float32)
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


def _margin_paper(paper: np.ndarray, quad: np.ndarray) -> float:
    """The weakest side's share of points (along its middle 70%) where the band just inside it is paper
    at some depth of ``_BAND_DEPTH`` (a card's margin; an index or pip interrupts it only in places)."""
    _, width, sides = _quad_sides(quad)
    worst = 1.0
    for a, d, inward in sides:
        hit = np.zeros(len(_BAND_T), bool)
        for depth in _BAND_DEPTH:
            hit |= _pixels(paper, a + _BAND_T * d + depth * width * inward) > 0
        worst = min(worst, float(hit.mean()))
    return worst


def _gap_pass(edges: np.ndarray, quads: list[np.ndarray], config: DetectorConfig, min_points: int,
              min_area: float, near_edges: np.ndarray) -> list[np.ndarray]:
    """(a') Cards whose outline has a gap where another edge meets it.

    Canny's non-maximum suppression breaks an edge where another one meets it at a T: a card lying across
    the border of a cloth stripe or the table's edge has a gap of a pixel or two there, and its inside leaks
    into the table through it. The 2x2-thickened map of pass (a) does not always close it. Here the holes of
    the edge map thickened ``gap_close`` x ``gap_close`` are candidates (grown back by half that), where no
    card was found (``_filled``, ``_cards_in_holes``)."""
    k = config.gap_close
    closed = cv2.bitwise_or(cv2.dilate(edges, np.ones((k, k), np.uint8)), _filled(edges.shape, quads))
    return _cards_in_holes(closed, (k + 1) / 2, quads, config, min_points, min_area, near_edges)


def _hue_pass(channels: tuple[np.ndarray, ...], edges: np.ndarray, paper: np.ndarray, quads: list[np.ndarray],
              config: DetectorConfig, min_points: int, min_area: float) -> list[np.ndarray]:
    """(c'') Cards on a pale region that is not card stock: a pink or cream cloth, the pale table edge.

    Card and region are both paper to the paper cues, and nearly one grey, so a card lying half on such
    a region has no outline on that side. Their colours differ in hue (pale pink against a white card
    with a green cast of the light), which chroma (max - min) hides. The edges of a magenta-green
    opponent channel, (R + B) / 4 - G / 2, are added to the edge map, and its holes are candidates where
    no card was found. Only when paper outside the cards found covers ``hue_gate`` of the frame: on felt
    or wood it costs nothing."""
    covered = _filled(paper.shape, quads)
    if cv2.countNonZero(cv2.subtract(paper, covered)) < config.hue_gate * paper.size:
        return []
    b, g, r = channels
    opponent = cv2.addWeighted(cv2.addWeighted(r, 0.25, b, 0.25, 128.0), 1.0, g, -0.5, 0.0)  # no saturation
    hue = cv2.bitwise_or(edges, cv2.Canny(cv2.GaussianBlur(opponent, (3, 3), 0), config.hue_low, config.hue_high))
    hue = cv2.bitwise_or(hue, covered)
    return _cards_in_holes(hue, 1.0, quads, config, min_points, min_area, cv2.dilate(hue, np.ones((5, 5), np.uint8)))


def _tab_pass(small: np.ndarray, contours: list[np.ndarray], quads: list[np.ndarray], config: DetectorConfig,
              min_area: float, near_edges: np.ndarray) -> list[np.ndarray]:
    """(c''') Cards that protrude from a pale region of their own colour: a white card lying half on the
    pale table edge or a white cloth.

    Card and region are one blob of paper, and one grey, so no pass sees the side between them. The blob's
    outline goes around the card's three other sides: walking it, a run of convex corners between two
    inward (reflex) corners. The run's points are fitted with a quad whose fourth side crosses the mouth;
    a run that is a card on its three seen sides (each on edges, the shape nearly a card's rectangle)
    is one. Where the run is shorter than a card, the card's far end lies on the pale region and the
    unseen side is placed for the frame's card proportions (``_complete_tab``, ``_deck_aspect``). Guards
    against other pale things: the colour is the same across the mouth, the card is grey inside and the
    region several times its size. Only where no card was found. ``contours``: the outer
    outlines of the paper mask."""
    extra: list[_Candidate] = []
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
        run: list[int] = []
        for k in [(start + i) % n for i in range(1, n + 1)]:
            if convex[k]:
                run.append(k)
                continue
            # two card corners, each rounded into up to three polygon corners, between reflex ones; the
            # part seen (at most the card) a ``tab_region``-th of the region at most
            if 2 <= len(run) <= 6 and config.tab_region * cv2.contourArea(
                    poly[[(run[0] - 1) % n, *run, k]].astype(np.float32)) <= area:
                if aspect is None:
                    aspect = _deck_aspect(quads, config.tab_aspect)
                tab = _tab(small, c, poly[(run[0] - 1) % n], poly[k], area, aspect, config, near_edges)
                if tab is not None:
                    extra.append(_Candidate(tab, tab, 0.0, float(cv2.contourArea(tab))))
            run = []
    return _new_cards(extra, quads, config, near_edges)


def _tab(small: np.ndarray, contour: np.ndarray, start: np.ndarray, end: np.ndarray, area: float, aspect: float,
         config: DetectorConfig, near_edges: np.ndarray) -> np.ndarray | None:
    """The card whose three seen sides are ``contour`` from its point ``start`` to ``end`` (``_tab_pass``),
    or None."""
    flat = contour.reshape(-1, 2)
    ia = int(np.flatnonzero((flat == start).all(axis=1))[0])
    ib = int(np.flatnonzero((flat == end).all(axis=1))[0])
    pts = flat[ia:ib + 1] if ia <= ib else np.concatenate([flat[ia:], flat[:ib + 1]])
    fit = _fit_quad(pts.reshape(-1, 1, 2))
    if fit is None:
        return None
    seen = _refine_sides(pts.astype(np.float32), fit[0])  # the outline, not the hull: square corners
    tab = _complete_tab(seen, (start + end) / 2, aspect)
    if tab is None:
        return None
    quad, mouth = tab
    hits = _side_hits(seen[None], near_edges)[0]
    if np.delete(hits, mouth).min() < 0.85:  # the three seen sides on edges
        return None
    tab_area = float(cv2.contourArea(quad))
    loose = config.loose
    if area < config.tab_region * tab_area or not _card_like(quad, tab_area, loose.near_rectangle, loose.scale):
        return None
    if not (_same_across(small, seen, mouth, config.tab_colour) and _grey_inside(small, seen, config.tab_chroma)):
        return None
    return quad


def _same_across(image: np.ndarray, quad: np.ndarray, side: int, limit: float) -> bool:
    """Is ``image`` (BGR) the same colour, within ``limit`` (Euclidean, median over the side), 3 px
    either side of ``quad``'s side ``side``?"""
    a, b = quad[side], quad[(side + 1) % 4]
    d = b - a
    normal = np.array([d[1], -d[0]]) / max(1e-6, float(np.linalg.norm(d)))
    if float(normal @ (quad.mean(axis=0) - a)) > 0:
        normal = -normal  # outwards
    t = np.linspace(0.2, 0.8, 9)[:, None]
    inside, outside = (_pixels(image, a + t * d + offset * normal).astype(np.float32) for offset in (-3.0, 3.0))
    return float(np.median(np.linalg.norm(inside - outside, axis=1))) <= limit


def _pixels(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``image`` at the (N, 2) x, y ``points``, rounded to the nearest pixel and clamped to the image."""
    h, w = image.shape[:2]
    pts = np.clip(np.rint(points).astype(np.intp), 0, (w - 1, h - 1))
    out: np.ndarray = image[pts[:, 1], pts[:, 0]]
    return out


_GRID = np.array([(u, v) for u in np.linspace(0.2, 0.8, 5) for v in np.linspace(0.2, 0.8, 5)])


def _grey_inside(image: np.ndarray, quad: np.ndarray, limit: float) -> bool:
    """Is the inside of ``quad`` mostly grey (white card stock, not a coloured screen)? The median
    chroma (max - min of BGR) over a 5 x 5 grid of points is at most ``limit``."""
    u, v = _GRID[:, :1], _GRID[:, 1:]
    bgr = _pixels(image, (1 - u) * ((1 - v) * quad[0] + v * quad[3]) + u * ((1 - v) * quad[1] + v * quad[2]))
    bgr = bgr.astype(np.int16)
    return float(np.median(bgr.max(axis=1) - bgr.min(axis=1))) <= limit


def _deck_aspect(quads: list[np.ndarray], default: float) -> float:
    """The cards' long-to-wide ratio in the image: the median over ``quads`` (the cards found: one deck,
    poker 1.40 to bridge 1.56, squeezed or stretched a little by tilt), or ``default`` with fewer than
    three."""
    if len(quads) < 3:
        return default
    q = np.stack(quads)
    sides = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)
    a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    return float(np.clip(np.median(np.maximum(a, b) / np.maximum(np.minimum(a, b), 1e-6)), 1.25, 1.75))


def _complete_tab(quad: np.ndarray, mouth: np.ndarray, aspect: float) -> tuple[np.ndarray, int] | None:
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


def _texture_pass(edges: np.ndarray, quads: list[np.ndarray], config: DetectorConfig, min_points: int,
                  min_area: float, near_edges: np.ndarray) -> list[np.ndarray]:
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
    dense = cv2.subtract(dense, _filled(edges.shape, quads))
    if cv2.countNonZero(dense) < min_area:
        return []  # no block of a card's area outside the cards found (most frames): no contours to trace
    extra: list[_Candidate] = []
    loose = config.loose
    for c in _contours(dense, min_points, holes=False):
        _consider(c, config.texture_grow, min_area, loose, extra)
    return _new_cards(extra, quads, config, near_edges)


def _new_cards(extra: list[_Candidate], quads: list[np.ndarray], config: DetectorConfig,
               near_edges: np.ndarray) -> list[np.ndarray]:
    """The cards among a later pass's candidates ``extra`` that overlap no card of ``quads`` (found
    already), one outline each."""
    return _resolve([c for c in extra if all(_overlap(c.rough, q) < 0.2 for q in quads)], config, near_edges)


def _filled(shape: tuple[int, ...], quads: list[np.ndarray]) -> np.ndarray:
    """A mask with the cards found filled in: added to an edge map, their print gives no holes to look
    at again, so a pass over that map cannot disturb them."""
    mask = np.zeros(shape[:2], np.uint8)
    for q in quads:
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 255)
    return mask


def _cards_in_holes(mask: np.ndarray, grow: float, quads: list[np.ndarray], config: DetectorConfig,
                    min_points: int, min_area: float, near_edges: np.ndarray) -> list[np.ndarray]:
    """The cards whose outlines are holes of ``mask`` (grown by ``grow``) and overlap no card of
    ``quads``: the later passes that look only where no card was found."""
    extra: list[_Candidate] = []
    loose = config.loose
    for c in _contours(mask, min_points, holes=True):
        _consider(c, grow, min_area, loose, extra)
    return _new_cards(extra, quads, config, near_edges)


def plane_tuple(plane: np.ndarray, frame_shape: tuple[int, ...]) -> tuple[float, ...]:
    """A table homography as ``DetectorConfig.plane``: checked, signed so that points in the frame map
    with a positive third coordinate (a homography and its negative are the same map)."""
    h = np.asarray(plane, np.float64)
    if h.shape != (3, 3) or not np.isfinite(h).all() or not np.abs(h).max() > 0 or \
            abs(np.linalg.det(h / np.abs(h).max())) < 1e-12:  # scaled first: any multiple is the same map
        raise CalibrationError(f"the table plane must be an invertible 3x3 homography, got shape {h.shape}")
    rows, cols = frame_shape[:2]
    if h[2] @ (cols / 2, rows / 2, 1.0) < 0:
        h = -h
    return tuple(float(v) for v in h.ravel())


def _plane_points(quads: np.ndarray, plane: tuple[float, ...]) -> np.ndarray:
    """(Q, 4, 2) full-resolution quads mapped onto the table plane."""
    h = np.asarray(plane, np.float64).reshape(3, 3)
    pts = np.concatenate([quads.astype(np.float64), np.ones((*quads.shape[:2], 1))], axis=2) @ h.T
    out: np.ndarray = pts[..., :2] / np.where(np.abs(pts[..., 2:]) > 1e-12, pts[..., 2:], 1e-12)
    return out


_SNAP_T = np.linspace(0.12, 0.88, 12, dtype=np.float32)  # where along each side the edge is sampled
_SNAP_O = np.linspace(-1.0, 1.0, 21, dtype=np.float32)  # offsets across it, in units of the search radius


def snap_to_edges(frame_bgr: np.ndarray, quads: list[np.ndarray], config: DetectorConfig = DEFAULT_CONFIG
                  ) -> list[np.ndarray]:
    """Each side of each (full-resolution) quad moved onto the strongest colour edge near it.

    The outline found at detection scale can sit a pixel or two off (blur, a half-res staircase) or on a
    card's printed frame just inside its edge. Every side is sampled across at full resolution (all
    quads in one remap), the strongest step per sample is taken, and a line fitted through them
    (outliers dropped). A result that no longer looks like a card keeps the old outline.
    """
    q = np.stack(quads).astype(np.float32)  # (Q, 4, 2)
    a, b = q, np.roll(q, -1, axis=1)
    d = b - a
    length = np.linalg.norm(d, axis=2, keepdims=True)
    normal = np.stack([d[..., 1], -d[..., 0]], axis=2) / np.maximum(length, 1e-6)
    centre = q.mean(axis=1, keepdims=True)
    outward = np.sign(((a + b) / 2 - centre) * normal).sum(axis=2, keepdims=True)
    normal *= np.where(outward < 0, -1.0, 1.0)
    short = np.minimum(length[:, 0::2].mean(axis=1), length[:, 1::2].mean(axis=1))  # (Q, 1)
    radius = np.clip(config.snap_radius * short, 2.0, 12.0)[:, :, None]  # (Q, 1, 1)
    # sample points (Q, 4, T, O, 2)
    base = a[:, :, None, :] + _SNAP_T[None, None, :, None] * d[:, :, None, :]
    offsets = _SNAP_O[None, None, :] * radius  # (Q, 1, O)
    pts = base[:, :, :, None, :] + offsets[:, :, None, :, None] * normal[:, :, None, None, :]
    shape = pts.shape[:4]
    flat = pts.reshape(-1, len(_SNAP_O), 2)
    samples = cv2.remap(frame_bgr, np.ascontiguousarray(flat[..., 0]), np.ascontiguousarray(flat[..., 1]),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.int16)
    # integer steps (at most 3 * 255), then float32: the same values as differencing in float32
    step = np.abs(samples[:, 2:] - samples[:, :-2]).sum(axis=2, dtype=np.int16).astype(np.float32)
    step = step.reshape(*shape[:3], -1)  # (Q, 4, T, O-2)
    # the strongest step, outer ones favoured: a card's printed frame line is often a stronger edge than
    # the card's own edge against the table, and lies just inside it
    best = (step * (1 + config.snap_outer * _SNAP_O[1:-1])).argmax(axis=3)
    strength = np.take_along_axis(step, best[..., None], axis=3)[..., 0]
    where = _SNAP_O[1:-1][best] * radius  # (Q, 4, T) offset of the edge, px
    # keep the samples on the side's main edge: strong enough, and near the median offset
    good = strength >= 0.5 * _median_rows(strength)
    centre_o = _median_rows(where, good)
    good &= np.abs(where - centre_o) <= 0.35 * radius + 0.75
    g = good.astype(np.float32)
    # offset along each side as a straight line o(t) = c0 + c1 t, least squares over the kept samples
    n_, st = g.sum(axis=2), (g * _SNAP_T).sum(axis=2)
    stt, so, sto = (g * _SNAP_T**2).sum(axis=2), (g * where).sum(axis=2), (g * _SNAP_T * where).sum(axis=2)
    det = n_ * stt - st**2
    ok = (n_ >= 5) & (det > 1e-6)
    c1 = np.where(ok, (n_ * sto - st * so) / np.where(ok, det, 1), 0)
    c0 = np.where(ok, (so - c1 * st) / np.maximum(n_, 1), 0)
    p0 = a + c0[..., None] * normal
    direction = d + c1[..., None] * normal
    # corner k = intersection of side k-1 and side k (Cramer's rule, all quads at once)
    p1, d1 = np.roll(p0, 1, axis=1), np.roll(direction, 1, axis=1)
    det2 = d1[..., 0] * -direction[..., 1] + direction[..., 0] * d1[..., 1]
    rx, ry = p0[..., 0] - p1[..., 0], p0[..., 1] - p1[..., 1]
    t = (rx * -direction[..., 1] + direction[..., 0] * ry) / np.where(np.abs(det2) > 1e-6, det2, 1)
    snapped = (p1 + t[..., None] * d1).astype(np.float32)
    skew_limit = np.sin(np.radians(config.snap_max_skew))
    new_skew, old_skew = _skew(snapped), _skew(q)  # (Q, 2)
    out = []
    for i in range(len(quads)):
        quad = snapped[i]
        for pair in np.nonzero(new_skew[i] > old_skew[i] + skew_limit)[0]:
            # One side of this pair was fitted onto another edge (a neighbour's, a shadow's) and tilted:
            # the side that turned most keeps its rough direction, at the fitted offset mid-side.
            sides = (int(pair), int(pair) + 2)
            turn = [abs(_cross(direction[i, k], d[i, k])) for k in sides]
            k = sides[int(np.argmax(turn))]
            direction[i, k] = d[i, k]
            p0[i, k] = a[i, k] + (c0[i, k] + 0.5 * c1[i, k]) * normal[i, k]
            repaired = _corners(p0[i], direction[i])
            quad = quads[i] if repaired is None else repaired
        if (np.abs(det2[i]) > 1e-6).all() and _card_like(quad, float(cv2.contourArea(quad)), config, 1.0):
            out.append(quad)
        else:
            out.append(quads[i])
    return out


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    """Sine of the angle between two directions."""
    return float((u[0] * v[1] - u[1] * v[0]) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-9))


def skew_per_px(quads: np.ndarray) -> np.ndarray:
    """(Q,): how far from parallel each (Q, 4, 2) quad's opposite sides are, for the pair furthest from it:
    the sine of the angle between them per pixel of their distance (what ``max_perspective`` bounds)."""
    length = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    apart = np.stack([length[:, 1] + length[:, 3], length[:, 0] + length[:, 2]], axis=1) / 2  # sides 0-2, 1-3
    out: np.ndarray = (_skew(quads) / np.maximum(apart, 1e-9)).max(axis=1)
    return out


def _skew(quads: np.ndarray) -> np.ndarray:
    """(Q, 2): sine of the angle between sides 0 and 2, and between sides 1 and 3, of each quad."""
    d = np.roll(quads, -1, axis=1) - quads
    d = d / np.maximum(np.linalg.norm(d, axis=2, keepdims=True), 1e-9)
    cross: np.ndarray = np.abs(d[:, :2, 0] * d[:, 2:, 1] - d[:, :2, 1] * d[:, 2:, 0])
    return cross


def _corners(p0: np.ndarray, direction: np.ndarray) -> np.ndarray | None:
    """Corner k of one quad: where side k-1 (through p0[k-1] along direction[k-1]) meets side k; None
    when two adjacent sides are parallel."""
    out = np.empty((4, 2), np.float32)
    for k in range(4):
        (x1, y1), (u1, v1) = p0[k - 1], direction[k - 1]
        (x2, y2), (u2, v2) = p0[k], direction[k]
        det = u1 * -v2 + u2 * v1
        if abs(det) < 1e-6:
            return None
        t = ((x2 - x1) * -v2 + u2 * (y2 - y1)) / det
        out[k] = (x1 + t * u1, y1 + t * v1)
    return out


def _median_rows(values: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Median along the last axis of the ``keep`` entries (all when None), keepdims: np.median /
    np.nanmedian's result (the middle value, or the mean of the middle two in the array's dtype)
    without nanmedian's per-row Python loop."""
    n = values.shape[-1]
    if keep is None:
        s = np.sort(values, axis=-1)
        mid: np.ndarray = (s[..., (n - 1) // 2:(n - 1) // 2 + 1] + s[..., n // 2:n // 2 + 1]) / 2
        return mid
    s = np.sort(np.where(keep, values, np.inf), axis=-1)  # the kept values first, in order
    count = keep.sum(axis=-1, keepdims=True)
    lo = np.take_along_axis(s, np.maximum(count - 1, 0) // 2, axis=-1)
    hi = np.take_along_axis(s, np.minimum(count // 2, n - 1), axis=-1)
    out: np.ndarray = np.where(count > 0, (lo + hi) / 2, np.nan)
    return out


@dataclass(frozen=True)
class _Contour:
    points: np.ndarray
    hole: bool
    # an outer contour's first hole (the inside of a closed outline), 0 if none. Not the largest: with that,
    # fewer outlines went on to the hull test and 2-3 hard cards a frame set were lost (session 10, scratch).
    inner_area: float = 0.0


@overload
def _contours(mask: np.ndarray, min_points: int, *, holes: bool, nested: bool = False) -> list[np.ndarray]: ...
@overload
def _contours(mask: np.ndarray, min_points: int, *, holes: None) -> list[_Contour]: ...
def _contours(mask: np.ndarray, min_points: int, *, holes: bool | None,
              nested: bool = False) -> list[np.ndarray] | list[_Contour]:
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
    return [_Contour(contours[i], bool(is_hole[i]),
                     0.0 if is_hole[i] or child[i] < 0 else float(cv2.contourArea(contours[child[i]])))
            for i in map(int, np.flatnonzero(keep))]


def _resolve(candidates: list[_Candidate], config: DetectorConfig, edges: np.ndarray) -> list[np.ndarray]:
    """One outline per card. ``edges``: the edge map dilated to a 5x5 neighbourhood."""
    finish = _Finisher(config)
    firsts: list[np.ndarray] = []
    rests: list[list[_Candidate]] = []
    for group in _merge([(cv2.contourArea(c.rough), c.rough, c) for c in candidates], finish):
        group.sort(key=lambda c: -c.area)
        for i, c in enumerate(group):
            if (q := finish(c)) is not None:
                firsts.append(q)
                rests.append(group[i + 1:])
                break
    if not firsts:
        return []
    # The outermost outline is usually the card's edge (inner ones lie on its printed frame), but one
    # that took in a touching chip, or cut a card's corner off, has a side across the table where
    # there is no edge. Where the outermost one's weakest side is not on edges, the largest outline
    # whose sides are (nearly as well as the best one's) wins.
    support = _support(firsts, edges)
    quads = []
    for first, s, group in zip(firsts, support, rests, strict=True):
        rest = [q for c in group if (q := finish(c)) is not None] if s < 0.9 else []
        if not rest:
            quads.append(first)
            continue
        options = [(float(s), first), *zip(_support(rest, edges).tolist(), rest, strict=True)]
        best = max(v for v, _ in options)
        quads.append(max((q for v, q in options if v >= best - config.pick_margin), key=cv2.contourArea))
    return quads


class _Finisher:
    """``_finish`` of each candidate, computed once (the merge and the choice both ask)."""

    def __init__(self, config: DetectorConfig) -> None:
        self.config = config
        self.done: dict[int, np.ndarray | None] = {}

    def __call__(self, c: _Candidate) -> np.ndarray | None:
        key = id(c)
        if key not in self.done:
            self.done[key] = _finish(c, self.config)
        return self.done[key]


# Samples along each side (from 10% to 90% of it) as weights of the four corners: side k runs from
# corner k to corner k+1, so the sample points of a quad are one matrix product.
_SUPPORT_T = np.linspace(0.1, 0.9, 17)
_SUPPORT_W = np.zeros((4 * len(_SUPPORT_T), 4))
for _k in range(4):
    _SUPPORT_W[_k * len(_SUPPORT_T):(_k + 1) * len(_SUPPORT_T), _k] = 1 - _SUPPORT_T
    _SUPPORT_W[_k * len(_SUPPORT_T):(_k + 1) * len(_SUPPORT_T), (_k + 1) % 4] = _SUPPORT_T


def _support(quads: list[np.ndarray], near_edges: np.ndarray) -> np.ndarray:
    """For each quad, the fraction of samples on its weakest side that have an edge pixel within 2 px."""
    out: np.ndarray = _side_hits(np.stack(quads), near_edges).min(axis=1)
    return out


def _side_hits(quads: np.ndarray, near_edges: np.ndarray) -> np.ndarray:
    """(Q, 4): for each side of each (Q, 4, 2) quad at detection scale, the fraction of its samples that
    have an edge pixel within 2 px."""
    h, w = near_edges.shape
    q = np.clip(quads, 0, (w - 1, h - 1)).astype(np.float64)  # corners inside the map keep every sample inside
    n = len(q)
    if not n:
        return np.zeros((0, 4))
    # one (4 T, 4) @ (4, 2 Q) product: numpy's batched product of small matrices is many times slower
    pts = (_SUPPORT_W @ q.transpose(1, 0, 2).reshape(4, 2 * n) + 0.5).astype(np.intp).reshape(-1, n, 2)
    hit = near_edges.ravel()[pts[..., 1] * w + pts[..., 0]].T.reshape(n, 4, -1) > 0  # (Q, 4, T)
    out: np.ndarray = hit.mean(axis=2)
    return out


@dataclass
class _Candidate:
    rough: np.ndarray  # approxPolyDP corners
    hull: np.ndarray  # convex hull points, for the line fit
    grow: float  # holes lie inside the edge line: grow them onto it
    area: float


def _consider(contour: np.ndarray, grow: float, min_area: float, loose: DetectorConfig,
              out: list[_Candidate], near_edges: np.ndarray | None = None, *, split: bool = False,
              thin: bool = False) -> bool:
    """Add the candidates ``contour`` gives to ``out``; whether it gave any."""
    area = cv2.contourArea(contour)
    if area < min_area:
        return False
    fit = _fit_quad(contour)
    if fit is None:
        return False
    rough, hull = fit
    if _card_like(rough, area, loose, loose.scale):
        out.append(_Candidate(rough, hull, grow, area))
        return True
    if near_edges is not None and area >= (loose.thin_cover if thin else 0.5) * (hull_area := cv2.contourArea(hull)) \
            and _card_like(rough, hull_area, loose, loose.scale) and \
            _support([rough], near_edges)[0] >= (0.85 if area >= 0.5 * hull_area else loose.thin_support):
        # Court art that reaches the card's edge, or a pale stripe of cloth touching it, cuts into the
        # paper blob (or the white border's hole) and its outline dips in or out: not solid, but the
        # hull is card-shaped, at least half of it is covered, and every side lies on edges. A paper
        # blob (``thin``) may cover less: a court figure across the card from edge to edge splits its
        # paper into two triangles joined at the corners, which is still a card when every side of the
        # hull lies on edges for ``thin_support``. Only paper blobs: allowed for the edge map's outlines too,
        # it took a block of squares of a checked cloth for a card.
        out.append(_Candidate(rough, hull, grow, hull_area))
        return True
    if split and near_edges is not None:
        halves = _split_pair(rough, near_edges, loose)
        out += [_Candidate(half, half, grow, area / 2) for half in halves]
        return bool(halves)
    return False


def _consider_open(contour: np.ndarray, min_area: float, loose: DetectorConfig, out: list[_Candidate],
                   near_edges: np.ndarray, image: np.ndarray | None = None) -> bool:
    """An outline with a gap or two (a white card on a pale table, a side in glare) encloses nothing,
    so it is neither a hole nor a filled shape; its convex hull is the card. Accepted when the hull is
    a card's shape and every side of it lies on edges; whether it was."""
    _, _, w, h = cv2.boundingRect(contour)
    if min(w, h) < loose.min_width * loose.scale or w * h < min_area:  # a box holds a card's short side
        return False  # at any angle: most texture and print lines stop here, before the hull
    fit = _fit_quad(contour)
    if fit is None:
        return False
    rough, hull = fit
    area = cv2.contourArea(hull)
    if area >= min_area and _card_like(rough, area, loose, loose.scale):
        by_side = _side_hits(rough[None], near_edges)[0]
        hits = np.sort(by_side)
        if hits[0] >= 0.85 or (hits[1] >= 0.9 and _card_like(rough, area, loose.near_rectangle, loose.scale) and (
                hits[0] >= loose.open_weak_side or (image is not None and _step_across(
                    image, rough, int(np.argmin(by_side)), loose.open_step) >= loose.open_step_share))):
            out.append(_Candidate(rough, hull, 0.0, area))
            return True
    return False


def _open_pairs(pieces: list[np.ndarray], min_area: float, loose: DetectorConfig, out: list[_Candidate],
                near_edges: np.ndarray, image: np.ndarray) -> None:
    """A shadow's edge across a card (an arm, a lamp), or two gaps in a faint outline, cut the card's
    outline into two open pieces, each about half of the card and neither a card by itself. Two such
    outlines (``pieces``: those no candidate came from) whose boxes touch and whose hulls cover
    ``open_pair_cover`` of the hull of both are judged as one open outline (:func:`_consider_open`) that must
    be nearly a rectangle of a card's proportions (``near_rectangle``): with any card shape, the soft ring of
    a glare spot beside a card made one (hard scenes, seed 2025)."""
    # a piece of a card is about half of it: leave out the specks of texture (by their box, then hull)
    boxed = [(c, box) for c in pieces if (box := cv2.boundingRect(c))[2] * box[3] >= 0.25 * min_area]
    hulled = [(c, box, a) for c, box in boxed if (a := cv2.contourArea(cv2.convexHull(c))) >= 0.25 * min_area]
    if len(hulled) < 2:
        return
    halves, boxes, areas = [c for c, _, _ in hulled], [b for _, b, _ in hulled], [a for _, _, a in hulled]
    for i, j in _touching(boxes):
        (xi, yi, wi, hi), (xj, yj, wj, hj) = boxes[i], boxes[j]
        w, h = max(xi + wi, xj + wj) - min(xi, xj), max(yi + hi, yj + hj) - min(yi, yj)
        # before any hull: the joint box holds a card's short side (as _consider_open asks), and a card
        # (long side at most twice the short) fills at least 0.44 of its box at any angle
        if min(w, h) < loose.min_width * loose.scale or areas[i] + areas[j] < 0.4 * loose.open_pair_cover * w * h:
            continue
        both = np.vstack([halves[i], halves[j]])
        if areas[i] + areas[j] >= loose.open_pair_cover * cv2.contourArea(cv2.convexHull(both)):
            _consider_open(both, min_area, loose.near_rectangle, out, near_edges, image)


def _touching(rects: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Pairs (i < j) of bounding boxes (x, y, w, h) that lie within 3 px of each other, neither holding
    the other."""
    boxes = np.array(rects, np.float64)
    lo, hi = boxes[:, :2], boxes[:, :2] + boxes[:, 2:]
    near = np.all((lo[:, None] <= hi[None] + 3) & (lo[None] <= hi[:, None] + 3), axis=2)
    inside = np.all((lo[:, None] <= lo[None]) & (hi[None] <= hi[:, None]), axis=2)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(near & ~inside & ~inside.T, 1)), strict=True)]


def _step_across(image: np.ndarray, quad: np.ndarray, side: int, step: float) -> float:
    """The share of 17 points along ``side`` of ``quad`` where ``image`` (BGR) differs by ``step`` or more
    (Euclidean) 3 px inside from 3 px outside: a card's edge too faint for Canny (a grey card on a
    pale blue-grey table differs by 13-18 along it) is still a step all along the side, where a side
    made up across a plain table is not."""
    a, b = quad[side], quad[(side + 1) % 4]
    d = b - a
    normal = np.array([d[1], -d[0]]) / max(1e-6, float(np.linalg.norm(d)))
    if float(normal @ (quad.mean(axis=0) - a)) > 0:
        normal = -normal  # outwards
    t = _SUPPORT_T[:, None]
    inside, outside = (_pixels(image, a + t * d + offset * normal).astype(np.float32) for offset in (-3.0, 3.0))
    return float((np.linalg.norm(inside - outside, axis=1) >= step).mean())


def _paper_pairs(pieces: list[np.ndarray], min_area: float, loose: DetectorConfig, out: list[_Candidate],
                 near_edges: np.ndarray) -> None:
    """(c'') A court figure that reaches two opposite sides of the card cuts its paper into two blobs, and on
    a striped cloth its edge outline runs into the stripes, so no single outline is the card. Two paper
    blobs (``pieces``: those no candidate came from) that touch are one card when the hull of both is a
    card's shape, they cover ``thin_cover`` of it and every side of it lies on edges for ``thin_support``."""
    if len(pieces) < 2:
        return
    areas = [cv2.contourArea(c) for c in pieces]
    for i, j in _touching([cv2.boundingRect(c) for c in pieces]):
        covered = areas[i] + areas[j]
        if covered < min_area:
            continue
        fit = _fit_quad(np.vstack([pieces[i], pieces[j]]))
        if fit is None:
            continue
        rough, hull = fit
        hull_area = cv2.contourArea(hull)
        if covered >= loose.thin_cover * hull_area and _card_like(rough, hull_area, loose, loose.scale) and \
                _support([rough], near_edges)[0] >= loose.thin_support:
            out.append(_Candidate(rough, hull, 0.0, hull_area))


def _split_pair(quad: np.ndarray, near_edges: np.ndarray, loose: DetectorConfig) -> list[np.ndarray]:
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
    return [hq for hq, ar in zip(halves, full_area, strict=True) if _card_like(hq, ar, loose, loose.scale)]


def _finish(c: _Candidate, config: DetectorConfig) -> np.ndarray | None:
    quad = c.rough if config.snap else _refine_sides(c.hull, c.rough)  # snapping refines at full res
    if c.grow:
        quad = _grow(quad, c.grow)
    return quad if _card_like(quad, c.area, config, config.scale) else None


def _cluster(quad: np.ndarray, cards: list[np.ndarray]) -> bool:
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
    on_rim = sum(1 for c in cards
                 if min(abs(cv2.pointPolygonTest(rim, (float(x), float(y)), True)) for x, y in c) < 3.0)
    return on_rim >= 2


def _merge(candidates: list[tuple[float, np.ndarray, _Candidate]],
           finish: _Finisher) -> list[list[_Candidate]]:
    """Candidates grouped per card; a candidate holding two or more cards is a group of cards and is
    dropped."""
    candidates.sort(key=lambda t: t[0])  # small first: inner contours and single cards
    kept: list[tuple[float, np.ndarray, list[_Candidate]]] = []
    boxes: list[tuple[float, float, float, float]] = []  # kept quads' bounding boxes: most pairs are
    for area, quad, cand in candidates:                # far apart and need no polygon intersection
        (x0, y0), (x1, y1) = quad.min(axis=0).tolist(), quad.max(axis=0).tolist()
        inside = [i for i, (_, q, _) in enumerate(kept)
                  if boxes[i][0] < x1 and x0 < boxes[i][2] and boxes[i][1] < y1 and y0 < boxes[i][3]
                  and _overlap(q, quad) > 0.6]
        if not inside:
            kept.append((area, quad, [cand]))
            boxes.append((x0, y0, x1, y1))
            continue
        if len(inside) >= 2:
            # Only outlines that pass as cards count as cards inside it: the blocks of a court
            # picture (card-sized, not card-shaped) are one card's print, not a group.
            cards = [i for i in inside if any(finish(c) is not None for c in kept[i][2])]
            held = [kept[i][0] for i in cards]
            if len(held) >= 2 and sum(held) > 0.5 * area and (min(held) > 0.25 * area or len(held) >= 3):
                continue  # a group of cards: several card-sized outlines filling it (two halves of a
                # court picture are one card; three or more separate outlines are cards)
            if _cluster(quad, [kept[i][1] for i in cards]):
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


def _repair_skewed(frame_bgr: np.ndarray, quads: list[np.ndarray], near_edges: np.ndarray,
                   config: DetectorConfig) -> list[np.ndarray]:
    """Outlines with one corner off, rebuilt from their other three corners.

    A side fitted onto a neighbour's, a shadow's or the cloth's edge leaves three corners right and one
    off, and its opposite sides further from parallel than perspective can turn a card's (on a calibrated
    table: further from parallel on the table than outline error explains). Each corner of
    such an outline in turn is rebuilt as the parallelogram of the other three, the result snapped onto
    the edges, and the rebuilt outline whose weakest side lies best on edges replaces the old one if
    that side lies on edges at least as well as the old outline's weakest. ``quads``: full resolution;
    ``near_edges``: the edge map within 2 px at detection scale.
    """
    q = np.stack(quads).astype(np.float32)
    if config.plane is not None:  # on the table a card's opposite sides are parallel, wherever it lies
        skewed = np.flatnonzero(_skew(_plane_points(q, config.plane)).max(axis=1) > config.plane_max_skew)
    else:
        skewed = np.flatnonzero(skew_per_px(q) > config.max_perspective)
    if not len(skewed):
        return quads
    s = config.scale
    out = list(quads)
    for i in skewed:
        tries = []
        for k in range(4):
            t = q[i].copy()
            t[k] = t[k - 1] + t[(k + 1) % 4] - t[(k + 2) % 4]
            tries.append(t)
        rebuilt = [t for t in snap_to_edges(frame_bgr, tries, config)
                   if _card_like(t, float(cv2.contourArea(t)), config, 1.0)]
        if not rebuilt:
            continue
        support = _side_hits((np.stack(rebuilt) + 0.5) * s - 0.5, near_edges).min(axis=1)
        best = int(np.argmax(support))
        if support[best] >= _side_hits((q[i:i + 1] + 0.5) * s - 0.5, near_edges).min():
            out[i] = rebuilt[best]
    return out


def _score_poses(poses: np.ndarray, pose: tuple[np.ndarray, float], card: tuple[float, float],
                 back: tuple[float, ...], frame: tuple[int, int], scale: float, near_edges: np.ndarray,
                 thin: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For (N, 3) ``poses`` (turn, shift across, shift along) of the deck's rectangle ``card`` about ``pose``
    (its centre and the angle of its long side on the plane): the rectangles in the image (full resolution)
    that lie inside the ``frame`` (width, height) with every side on edges within 2 px for 0.9, their (K, 4)
    side hits within 1 px (``thin``) and their poses."""
    centre, angle = pose
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    rects = _deck_rectangles(centre + poses[:, 1:2] * across + poses[:, 2:3] * along, angle + poses[:, 0], *card)
    image = _plane_points(rects, back)
    w, h = frame
    ok = (image.min(axis=(1, 2)) >= 1) & (image[..., 0].max(axis=1) <= w - 2) & (image[..., 1].max(axis=1) <= h - 2)
    ok[ok] = _side_hits((image[ok] + 0.5) * scale - 0.5, near_edges).min(axis=1) >= 0.9
    return image[ok], _side_hits((image[ok] + 0.5) * scale - 0.5, thin), poses[ok]


def _pose_grid(turns: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """(N, 3) poses (turn in radians, shift across, shift along) of every turn (degrees) and pair of shifts."""
    t, a, b = np.meshgrid(np.radians(turns), shifts, shifts, indexing="ij")
    return np.stack([t.ravel(), a.ravel(), b.ravel()], axis=1)


def _deck_rectangles(centre: np.ndarray, angle: np.ndarray, short: float, long_: float) -> np.ndarray:
    """(N, 4, 2) rectangles of the deck's size on the plane, centred at (N, 2) ``centre``, the long side
    along (N,) ``angle`` radians."""
    v = np.stack([np.cos(angle), np.sin(angle)], axis=1)  # long axis
    u = np.stack([-v[:, 1], v[:, 0]], axis=1)
    hs, hl = short / 2, long_ / 2
    c = centre[:, None, :]
    return np.stack([c[:, 0] - hs * u - hl * v, c[:, 0] + hs * u - hl * v,
                     c[:, 0] + hs * u + hl * v, c[:, 0] - hs * u + hl * v], axis=1)


def _fit_deck(frame_bgr: np.ndarray, quads: list[np.ndarray], edges: np.ndarray, near_edges: np.ndarray,
              config: DetectorConfig) -> list[np.ndarray]:
    """On a calibrated table, outlines that are not the deck's rectangle moved onto it.

    Every card on the table is one rectangle (the median size of the outlines found, on the plane). An
    outline whose corners lie ``deck_fit_error`` off that rectangle at its own pose (one that took in an
    arm beside the card), whose weakest side is off the edge map within 2 px for a tenth of it, or within
    1 px for 0.15 (one that lies across a checked cloth's squares, a few degrees off the card's own sides),
    is searched for: the rectangle moved by up to ``deck_fit_shift`` and turned by up to ``deck_fit_turn``.
    Of the rectangles inside the frame whose every side lies on edges within 2 px for 0.9, the one whose
    weakest side lies best on edges within 1 px (then all four) replaces the outline, snapped, if that
    side does so for 0.9 and for 0.05 more than the outline's, and it overlaps no other card.
    ``quads``: full resolution."""
    assert config.plane is not None
    q = np.stack(quads).astype(np.float32)
    p = _plane_points(q, config.plane)  # corners in the same cyclic order (a mirror view reverses it)
    pair_a, pair_b = mean_side_vectors(p)
    len_a, len_b = np.linalg.norm(pair_a, axis=1), np.linalg.norm(pair_b, axis=1)
    short, long_ = float(np.median(np.minimum(len_a, len_b))), float(np.median(np.maximum(len_a, len_b)))
    long_dir = np.where((len_a >= len_b)[:, None], pair_a, pair_b)
    angle = np.arctan2(long_dir[:, 1], long_dir[:, 0])
    centre = p.mean(axis=1)
    here = _deck_rectangles(centre, angle, short, long_)
    # each corner against the nearest corner of the deck's rectangle at the outline's pose
    error = np.linalg.norm(p[:, :, None] - here[:, None], axis=3).min(axis=2).max(axis=1) / short
    s = config.scale
    det = (q + 0.5) * s - 0.5
    support = _side_hits(det, near_edges).min(axis=1)
    thin = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    tight = _side_hits(det, thin).min(axis=1)
    off = np.flatnonzero((error >= config.deck_fit_error) | (support < 0.9) | (tight < 0.85))
    if not len(off):
        return quads
    back = tuple(float(x) for x in np.linalg.inv(np.asarray(config.plane, np.float64).reshape(3, 3)).ravel())
    h, w = frame_bgr.shape[:2]
    turns, shifts = config.deck_fit_turn, config.deck_fit_shift * short
    coarse = _pose_grid(np.linspace(-turns, turns, 9), np.linspace(-shifts, shifts, 11))
    fine = _pose_grid(np.zeros(1), np.array([-shifts, 0.0, shifts]) / 10)
    out = list(quads)
    frame, card = (w, h), (short, long_)
    for i in map(int, off):
        pose = (centre[i], float(angle[i]))
        # coarse (1.5 degrees, 0.04 widths), then around its best few at half the shift
        _, hits, poses = _score_poses(coarse, pose, card, back, frame, s, near_edges, thin)
        if not len(poses):
            continue
        top = poses[np.argsort(-(hits.min(axis=1) * 10 + hits.mean(axis=1)))[:16]]
        image, hits, _ = _score_poses((top[:, None, :] + fine[None]).reshape(-1, 3), pose, card, back, frame, s,
                                      near_edges, thin)
        if not len(image):
            continue
        best = int(np.argmax(hits.min(axis=1) * 10 + hits.mean(axis=1)))
        if hits[best].min() < 0.9 or hits[best].min() < tight[i] + 0.05:
            continue
        rect = image[best].astype(np.float32)
        if any(j != i and _overlap(rect, out[j]) >= 0.2 for j in range(len(out))):
            continue
        out[i] = snap_to_edges(frame_bgr, [rect], config)[0]
    return out
