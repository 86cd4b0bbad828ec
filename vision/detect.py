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
   (a white card and a pale cloth can be one grey and one brightness but not one hue). Where paper greyer
   than the paper around it lies outside the cards found (``faint_chroma_pass``, ``faint_chroma_gate``), all
   of this again on the map with chroma edges at lower thresholds added (a grey card on a pale green felt of
   its brightness).
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
7. Size (before 5 and 6; on the table plane, calibrated or estimated from the cards, else on the image): where paper
   lies outside the cards found, a rectangle of the deck's own size whose sides lie on edges of their direction (one
   may miss a stretch, as under a glare spot) and that has a paper margin is a card
   (``vision/size_search.py``): a court figure reaching the card's edge on stripes or beside an arm cuts
   every closed outline of the card into pieces, but not its sides. An outline far off the deck's size is
   searched over as if no card were there, and the rectangle found there replaces it.
8. Replan (without a calibrated table, ``replan``): all of this again with the plane that the outlines found
   give (``vision.plane_from_cards``) as the table's, the second result kept unless it has fewer outlines; only
   where paper is left outside the outlines found (``replan_gate``: elsewhere there is no card left to find). The
   second detection reuses what does not depend on the plane (the edge map, the paper masks, the contours traced
   from them and their quad fits); only the shape tests and what follows from them run again.

Corners are returned in full-resolution pixels. Where each step lives: the settings in
``vision.detector_config``, the edge map in ``vision.edge_map``, what 1-2 trace from the frame (once per frame,
shared by both detections of 8) in ``vision.frame_cues``, 1-4 in ``vision.outline_candidates``
(shape tests and quad geometry in ``vision.quads``), the passes that look only where no card was found in
``vision.later_passes``, 5 and 6 in ``vision.snapping``, 7 in ``vision.size_pass``, and the deck fit (on a
table plane, an outline off the deck's rectangle moved onto it) in ``vision.deck_fit``. This module runs
them in order (``detect_cards``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.deck_fit import fit_deck
from vision.detector_config import DEFAULT_CONFIG, DetectorConfig
from vision.edge_map import edge_map
from vision.errors import CalibrationError, ImageError
from vision.frame_cues import FrameCues, PaperMasks, Traced, at_detection_scale, loose_paper, paper_left
from vision.later_passes import gap_pass, hue_pass, tab_pass, texture_pass
from vision.outline_candidates import (
    Candidate,
    cards_in_holes,
    consider,
    consider_open,
    new_cards,
    open_pairs,
    paper_pairs,
    resolve,
)
from vision.plane_from_cards import plane_from_cards
from vision.quads import plane_tuple, skew_per_px, weakest_side_support
from vision.rectify import order_corners
from vision.size_pass import size_pass_cards
from vision.snapping import repair_skewed, snap_to_edges

__all__ = [
    "DEFAULT_CONFIG",
    "DetectorConfig",
    "Region",
    "detect_cards",
    "detect_in_region",
    "outline_support",
    "plane_tuple",
    "skew_per_px",
    "snap_to_edges",
]

Region = tuple[int, int, int, int]
"""A part of a frame: (x0, y0, x1, y1) in its pixels, the ends exclusive."""


def merged_regions(regions: Sequence[Region]) -> list[Region]:
    """``regions`` with those that overlap joined into the box round them, again until none overlap (no part of a
    frame looked at twice)."""
    boxes = [tuple(r) for r in regions]
    joined = True
    while joined:
        joined = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    joined = True
                    break
            if joined:
                break
    return [(int(b[0]), int(b[1]), int(b[2]), int(b[3])) for b in boxes]


def detect_cards(
    frame_bgr: np.ndarray,
    config: DetectorConfig = DEFAULT_CONFIG,
    plane: np.ndarray | None = None,
    ignore: Sequence[np.ndarray] = (),
    deck: Sequence[np.ndarray] = (),
) -> list[np.ndarray]:
    """Card outlines in ``frame_bgr``: a list of (4, 2) float32 quads, clockwise, full-res pixels.

    ``plane``: the calibrated table, a 3x3 homography from image pixels to table coordinates (such as
    ``Calibration.image_to_mat``); the card shape is then tested on the table (see ``DetectorConfig.plane``).
    Without one, with ``config.replan``, the frame is detected again on the plane the first detection's outlines
    give (``vision.plane_from_cards``), as if that were the calibrated table, and the second result is returned
    unless it has fewer outlines than the first. With ``config.replan_gate`` that second detection is made only where
    a card's area of paper lies outside the first one's outlines. It reuses the first one's work that does not
    depend on the plane (``FrameCues``).

    ``ignore``: polygons (full-resolution px) that hold no card, such as a calibration mat's markers
    (``vision.zones.Layout.marker_areas``): their white is not taken for a card's paper.

    ``deck``: outlines (full-resolution px, inside the frame or not) of cards of the same deck found before, such as
    the cards around a region of a frame (``detect_in_region``): the size pass and the deck fit take the deck's size
    from them with the cards found, so that a frame holding one or two cards is judged as one holding many.
    """
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ImageError(f"expected a BGR uint8 frame, got shape {frame_bgr.shape} {frame_bgr.dtype}")
    if plane is not None:
        config = replace(config, plane=plane_tuple(plane, frame_bgr.shape[:2]))
    if min(frame_bgr.shape[:2]) * config.scale < 2:  # (OpenCV cannot resize it to detection scale)
        raise ImageError(f"frame too small to detect cards in: {frame_bgr.shape[1]}x{frame_bgr.shape[0]}")
    cues = FrameCues(frame_bgr, config, ignore)
    quads = _detect(cues, config, deck)
    if (
        config.replan
        and config.estimate_plane
        and config.plane is None
        and not (config.replan_gate and _no_paper_left(cues, quads))
    ):
        table = _on_estimated_plane(config, quads, frame_bgr.shape)
        if table is not None:
            again = _detect(cues, table, deck)
            if len(again) >= len(quads):
                return again
    return quads


def detect_in_region(
    frame_bgr: np.ndarray,
    region: Region,
    config: DetectorConfig = DEFAULT_CONFIG,
    plane: np.ndarray | None = None,
    ignore: Sequence[np.ndarray] = (),
    deck: Sequence[np.ndarray] = (),
) -> list[np.ndarray]:
    """``detect_cards`` on the part ``region`` of ``frame_bgr`` alone, the outlines in the frame's pixels: only the
    cards wholly inside it (an outline cut by the region's edge is refused as one cut by a frame's). ``plane``
    (frame pixels -> table), the ``ignore`` polygons and the ``deck`` outlines (frame pixels) are moved to the region's
    pixels: region pixel (u, v) is frame pixel (u + x0, v + y0).
    The detector judges a frame as a whole in places (the deck's size from the cards found, the plane they give,
    the paper mask's threshold), so a region is not a small frame of the same kind: ``benchmarks/region_detection.py``
    measures what that costs."""
    x0, y0, x1, y1 = region
    height, width = frame_bgr.shape[:2]
    if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
        raise ImageError(f"region {region} is not inside the {width}x{height} frame")
    part = np.ascontiguousarray(frame_bgr[y0:y1, x0:x1])
    moved = (
        None
        if plane is None
        else np.asarray(plane, np.float64) @ np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    )
    offset = np.array([x0, y0], np.float32)
    shifted = [np.asarray(p, np.float32).reshape(-1, 2) - offset for p in ignore]
    known = [np.asarray(q, np.float32).reshape(4, 2) - offset for q in deck]
    return [q + offset for q in detect_cards(part, config, plane=moved, ignore=shifted, deck=known)]


def _no_paper_left(cues: FrameCues, quads: list[np.ndarray]) -> bool:
    """Does no card's area of paper (the Otsu mask, opened 5x5 to take off the thin rims outlines leave) lie
    outside the full-resolution ``quads``? Without a paper mask, say no: paper may be anywhere."""
    if cues.paper is None:
        return False
    scale = cues.config.scale
    return not paper_left(cues.paper.paper, [(q + 0.5) * scale - 0.5 for q in quads], cues.min_area)


def _on_estimated_plane(
    config: DetectorConfig, quads: list[np.ndarray], shape: tuple[int, ...]
) -> DetectorConfig | None:
    """``config`` with the table plane on which the full-resolution ``quads`` are one deck's rectangles
    (``plane_from_cards``, with the config's ``plane_spread`` and ``plane_drop``); None where there is no such
    plane or a degenerate one."""
    estimate = plane_from_cards(quads, shape, spread=config.plane_spread, drop=config.plane_drop)
    if estimate is None:
        return None
    try:
        return replace(config, plane=plane_tuple(estimate, shape))
    except CalibrationError:
        return None


def _detect(cues: FrameCues, config: DetectorConfig, deck: Sequence[np.ndarray] = ()) -> list[np.ndarray]:
    """``detect_cards`` once, on the table plane ``config.plane`` if it has one; ``config`` differs from the one
    ``cues`` were made with only in its plane. ``deck``: full-resolution outlines that size the deck with the cards
    found (``detect_cards``)."""
    cues.check(config)
    frame_bgr, small, channels = cues.frame, cues.small, cues.channels
    s, min_area, min_points = config.scale, cues.min_area, cues.min_points
    edges = cues.traced.edges
    candidates = _first_look(small, cues.traced, cues.paper, config, min_area)
    near_edges = cues.traced.near_edges
    paper = None if cues.paper is None else cues.paper.paper
    local = None if cues.paper is None else cues.paper.local
    paper_contours = [] if cues.paper is None else cues.paper.contours
    any_paper = paper if paper is None or local is None else cv2.bitwise_or(paper, local)
    quads = resolve(candidates, config, near_edges)
    if config.gap_close:
        quads += gap_pass(edges, quads, config, min_points, min_area, near_edges)
    if config.hue_pass and paper is not None:
        quads += hue_pass(channels, edges, paper, quads, config, min_points, min_area)
    if config.tab_pass and paper is not None:
        quads += tab_pass(small, paper_contours, quads, config, min_area, near_edges)
    if config.texture_pass:
        quads += texture_pass(edges, quads, config, min_points, min_area, near_edges)
    if config.faint_chroma_pass and _faint_chroma_worth_it(
        cues.chroma(), any_paper, quads, min_area, config.faint_chroma_gate
    ):
        quads += _faint_chroma_cards(small, cues.faint_chroma(), quads, config, min_area)
    if config.faint_pass:
        # (d) faint outlines (white cards on a pale cloth): lower thresholds, grey only, only where no
        # card was found, so the extra texture it picks up cannot disturb the cards already found.
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        faint = cv2.Canny(grey, config.faint_low, config.faint_high)
        quads += cards_in_holes(faint, 1.0, quads, config, min_points, min_area, near_edges)
    snapped = 0  # the outlines (the first ones) already snapped
    if config.snap and config.snap_early and quads:
        quads = [(f + 0.5) * s - 0.5 for f in snap_to_edges(frame_bgr, [(q + 0.5) / s - 0.5 for q in quads], config)]
        snapped = len(quads)
    table = config  # the config with a table plane: the calibrated one, or one estimated from the cards
    if config.plane is None and config.estimate_plane and (config.size_pass or config.deck_fit):
        # (none, or a degenerate one: the frame is judged in the image, as without one)
        table = _on_estimated_plane(config, [(q + 0.5) / s - 0.5 for q in quads], frame_bgr.shape) or config
    if config.plane_rescue and config.plane is None and table.plane is not None:
        # outlines refused only for their shape in the image (a card squeezed by a strong tilt: long over short
        # beyond max_aspect) are judged again on the plane, where no card was found
        quads += new_cards(candidates, quads, table, near_edges)
    searched = table if config.size_pass_estimated else config  # (with a calibrated plane, table is config)
    if (
        config.size_pass
        and (searched.plane is not None or config.size_pass_image)
        and paper is not None
        and any_paper is not None
        and len(quads) + len(deck) >= 2
    ):
        replaced: list[int] = []
        known = [np.asarray(q, np.float32).reshape(4, 2) * s + (0.5 * s - 0.5) for q in deck]
        added = size_pass_cards(small, edges, quads, searched, near_edges, paper, any_paper, replaced, known)
        if replaced:  # outlines off the deck's size that a rectangle of its size took the place of
            snapped -= sum(i < snapped for i in replaced)
            quads = [q for i, q in enumerate(quads) if i not in replaced]
        quads += added
    full = [(q + 0.5) / s - 0.5 for q in quads]
    if config.snap and len(full) > snapped:
        full = full[:snapped] + snap_to_edges(frame_bgr, full[snapped:], config)
    if config.repair_skew and full:
        full = repair_skewed(frame_bgr, full, near_edges, config)
    if config.deck_fit and table.plane is not None and full and len(full) + len(deck) >= 3:
        full = fit_deck(
            frame_bgr,
            full,
            edges,
            near_edges,
            table,
            None if paper is None or any_paper is None else (small, any_paper),
            deck,
        )
    return [order_corners(q) for q in full]


def _first_look(
    small: np.ndarray, traced: Traced, paper: PaperMasks | None, config: DetectorConfig, min_area: float
) -> list[Candidate]:
    """Candidates from the holes and outer outlines of the traced edge map and from the paper masks (1-3 above)."""
    candidates: list[Candidate] = []
    loose = config.loose
    near_edges, fits = traced.near_edges, traced.fits
    # (a) holes of the edge map: card interiors, separate even when neighbouring cards' edges touch; on the thin
    # map and on the thickened one
    for c in traced.holes:
        consider(c, 1.0, min_area, loose, candidates, near_edges, split=True, fits=fits)
    open_pieces: list[np.ndarray] = []
    for tagged, area in zip(traced.tagged, traced.areas, strict=True):
        if tagged.hole:
            consider(tagged.points, 1.0, min_area, loose, candidates, near_edges, split=True, fits=fits)
        else:
            if area >= min_area and tagged.inner_area >= 0.5 * area:
                continue  # a closed outline: its hole is a candidate already
            # an outline with a gap can still enclose a card's area (court art touching the edge line
            # closes part of it), and then fills to a shape that is not the card: try its hull too
            if not consider_open(tagged.points, min_area, loose, candidates, near_edges, small, fits=fits):
                open_pieces.append(tagged.points)
    if config.open_pairs:
        open_pairs(open_pieces, min_area, loose, candidates, near_edges, small)
    # (b) filled outlines, opened
    for c in traced.filled:
        consider(c, 0.0, min_area, loose, candidates, fits=fits)
    if paper is not None:
        # (c) paper: the outer outline of the white border holds the whole card even where busy court art or a
        # striped cloth breaks the edge map into pieces; (c') the local paper mask, its blobs likewise.
        height, width = paper.paper.shape
        for contours in (paper.contours, paper.local_contours):
            pieces: list[np.ndarray] = []  # pairs within one mask: a blob and its near twin in the other are not two
            for c in contours:
                x, y, w, h = cv2.boundingRect(c)
                if (
                    x > 0
                    and y > 0
                    and x + w < width
                    and y + h < height
                    and not consider(c, 0.0, min_area, loose, candidates, near_edges=near_edges, thin=True, fits=fits)
                ):
                    pieces.append(c)  # (a patch cut by the frame's edge: light there, not a card's edge)
            if config.paper_pairs:
                paper_pairs(pieces, min_area, loose, candidates, near_edges)
    return candidates


def _faint_chroma_worth_it(
    chroma: np.ndarray, paper: np.ndarray | None, quads: list[np.ndarray], min_area: float, gate: float
) -> bool:
    """Should the faint-chroma pass run? Only where a card's area of paper lies outside the cards found (after
    an opening takes off the thin rims the outlines leave), and (``gate`` over 0) a card's area of it is greyer
    by ``gate`` levels of chroma (max - min of the channels) than its median: a grey card merged with the pale
    coloured felt around it is; a pale cloth alone, or a white table edge alone, is one chroma. Without a paper
    mask, run."""
    if paper is None:
        return True
    loose = loose_paper(paper, quads)
    if cv2.countNonZero(loose) < min_area:
        return False
    if gate <= 0:
        return True
    values = chroma[loose > 0]
    return int((values < float(np.median(values)) - gate).sum()) >= min_area


def _faint_chroma_cards(
    small: np.ndarray, traced: Traced, quads: list[np.ndarray], config: DetectorConfig, min_area: float
) -> list[np.ndarray]:
    """Grey cards on a pale coloured cloth: one brightness, and a chroma step (~25 levels) that the
    edge map's chroma thresholds break into dashes, so no outline of the card is whole and its paper
    blob's sides are not on edges. The first stage again, on the edge map with chroma edges at lower
    thresholds added (``traced``, ``FrameCues.faint_chroma``); its cards where no card was found. (Lowering the
    edge map's own chroma thresholds instead gained as many cards on one validation set as it lost on the
    other.) The paper cues do not depend on the edge map (their blobs are judged again against it, but that
    found no card more on the validation sets): only the edge-map candidates, at ~2/3 of the cost."""
    candidates = _first_look(small, traced, None, config, min_area)
    return new_cards(candidates, quads, config, traced.near_edges)


def outline_support(
    frame_bgr: np.ndarray, quads: Sequence[np.ndarray], config: DetectorConfig = DEFAULT_CONFIG
) -> np.ndarray:
    """(Q,) for each full-resolution quad, the share of its weakest side that lies on the detector's edge
    map (an edge pixel within 2 px at detection scale, as the detector judges its own outlines). A card
    the detector missed although its true outline scores ~1.0 here had its sides on edges: what it lacked
    was an outline to try (``benchmarks/missed_cards.py``)."""
    if not len(quads):
        return np.zeros(0)
    s = config.scale
    small, channels, least = at_detection_scale(frame_bgr, config)
    near_edges = cv2.dilate(edge_map(small, channels, least, config), np.ones((5, 5), np.uint8))
    return weakest_side_support([(np.asarray(q, np.float32).reshape(4, 2) + 0.5) * s - 0.5 for q in quads], near_edges)
