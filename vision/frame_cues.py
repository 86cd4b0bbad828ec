"""What a detection of one frame takes from it before any shape test (``vision.detect``): the frame at detection
scale, its edge map and the contours traced from it with their quad fits, the paper masks and their outlines.

None of it depends on the table plane, so the two detections of an uncalibrated frame (``replan``: the second on
the plane the first one's outlines give) share one ``FrameCues``; only the shape tests and what follows from them
run twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.edge_map import chroma_of, edge_map
from vision.errors import SettingError
from vision.outline_candidates import Fits, contours_of
from vision.quads import filled_mask


def at_detection_scale(
    frame_bgr: np.ndarray, config: DetectorConfig
) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """The frame at ``config.scale``, its channels, and its darkest channel (high on paper)."""
    s = config.scale
    small = cv2.resize(frame_bgr, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s != 1 else frame_bgr
    channels = tuple(cv2.split(small))
    least: np.ndarray = cv2.min(cv2.min(channels[0], channels[1]), channels[2])
    return small, channels, least


def min_card_area(config: DetectorConfig) -> float:
    """The least area (detection-scale pixels) of a card outline: ``min_width`` wide at ``min_aspect``, less 20%."""
    return (config.min_width * config.scale) ** 2 * config.min_aspect * 0.8


def paper_left(paper: np.ndarray, quads: list[np.ndarray], min_area: float) -> bool:
    """Does a ``min_area`` of ``paper`` lie outside the detection-scale ``quads`` (``loose_paper``)? Where none does,
    the passes that look for cards no outline holds have none to find: a card is paper (``replan_gate``,
    ``size_pass_gate``, the faint-chroma gate)."""
    return cv2.countNonZero(loose_paper(paper, quads)) >= min_area


def loose_paper(paper: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """``paper`` outside the detection-scale ``quads``, opened 5x5 to take off the thin rims the outlines leave."""
    loose = cv2.subtract(paper, filled_mask(paper.shape, quads))
    out: np.ndarray = cv2.morphologyEx(loose, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    return out


class Traced:
    """An edge map and what the first look takes from it before any shape test: its thickened copy, the
    pixels near an edge, the contours it traces and their quad fits."""

    def __init__(self, edges: np.ndarray, config: DetectorConfig, min_area: float, min_points: int) -> None:
        self.edges = edges
        # Thin edges keep close cards apart; thickened ones close small gaps in an outline. Use both.
        self.thick = cv2.dilate(edges, np.ones((2, 2), np.uint8))
        self.near_edges = cv2.dilate(edges, np.ones((5, 5), np.uint8))  # edge pixels within 2 px
        self.holes = contours_of(edges, min_points, holes=True)
        self.tagged = contours_of(self.thick, min_points, holes=None)
        self.areas = [0.0 if t.hole else cv2.contourArea(t.points) for t in self.tagged]
        # filled outlines, opened: thin attachments (a table edge, stripes, a touching line) cut off
        solid = np.zeros(edges.shape, np.uint8)
        outer = [t.points for t, a in zip(self.tagged, self.areas, strict=True) if not t.hole and a >= min_area]
        cv2.drawContours(solid, outer, -1, 255, -1)
        k = max(3, round(config.min_width * config.scale * 0.15) | 1)
        filled = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        self.filled = contours_of(filled, min_points, holes=False)
        self.fits = Fits()


class PaperMasks(NamedTuple):
    """The paper masks (cue 2) and their outer outlines; ``local`` only with ``local_paper_pass``."""

    paper: np.ndarray
    contours: list[np.ndarray]
    local: np.ndarray | None
    local_contours: list[np.ndarray]


class FrameCues:
    """The parts of a detection of ``frame_bgr`` that do not depend on the table plane, done once and shared by
    its detections (``replan`` detects a frame twice, with configs that differ only in ``plane``): the frame at
    detection scale, the edge map and what is traced from it, the paper masks and their outlines. ``ignore``: polygons
    (full-resolution px) that hold no card, such as a calibration mat's markers; the paper masks leave them out."""

    def __init__(self, frame_bgr: np.ndarray, config: DetectorConfig, ignore: Sequence[np.ndarray] = ()) -> None:
        self.frame = frame_bgr
        self.ignore = [np.asarray(p, np.float32).reshape(-1, 2) for p in ignore]
        self.config = replace(config, plane=None)
        self.small, self.channels, self.least = at_detection_scale(frame_bgr, config)
        self.min_area = min_card_area(config)
        # an 8-connected outline of that area has at least this many pixels (a 45-degree square: side / sqrt 2
        # steps per side); counting them is one C-level pass, so the per-contour Python work is for big ones
        self.min_points = int(4 * math.sqrt(self.min_area / config.max_aspect) / math.sqrt(2) * 0.8)
        self.traced = Traced(
            edge_map(self.small, self.channels, self.least, config), config, self.min_area, self.min_points
        )
        self.paper = self._paper(config) if config.paper_pass else None
        self._chroma: np.ndarray | None = None
        self._faint_chroma: Traced | None = None

    def _paper(self, config: DetectorConfig) -> PaperMasks:
        # card stock is bright in all three channels, felt, wood and most cloth are not. No opening: the white
        # border outside a printed frame line can be a pixel wide at this scale.
        _, paper = cv2.threshold(self.least, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        self._leave_out_ignored(paper)
        # Every outer outline, also those inside a hole of another: the inside of a card's printed frame
        # line is a blob of paper inside the line's ring, and on a pale cloth that ring lies in a hole
        # of the cloth's own paper region, out of reach of the outermost outlines.
        contours = contours_of(paper, self.min_points, holes=False, nested=config.paper_nested)
        if not config.local_paper_pass:
            return PaperMasks(paper, contours, None, [])
        # paper brighter than the table around it: for small cards, glare and light gradients that defeat one
        # global threshold
        block = int(config.local_block * config.scale) | 1
        local = cv2.adaptiveThreshold(
            self.least, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -config.local_offset
        )
        self._leave_out_ignored(local)
        return PaperMasks(paper, contours, local, contours_of(local, self.min_points, holes=False))

    def _leave_out_ignored(self, mask: np.ndarray) -> None:
        """Clear ``mask`` (detection scale) inside the ``ignore`` polygons. A mat's markers are white squares with
        white patterns in them: paper outside every card, which sends the size pass searching the whole frame
        (a 12-card mat frame 52-75 ms instead of 18-27: ``benchmarks/bench_tracker.py --only detection``)."""
        if self.ignore:
            s = self.config.scale
            cv2.fillPoly(mask, [np.round((p + 0.5) * s - 0.5).astype(np.int32) for p in self.ignore], 0)

    def chroma(self) -> np.ndarray:
        if self._chroma is None:
            self._chroma = chroma_of(self.channels, self.least)
        return self._chroma

    def faint_chroma(self) -> Traced:
        """The edge map with chroma edges at the faint-chroma thresholds added, traced (``_faint_chroma_cards``)."""
        if self._faint_chroma is None:
            blurred = cv2.GaussianBlur(self.chroma(), (3, 3), 0)
            faint = cv2.bitwise_or(
                self.traced.edges, cv2.Canny(blurred, self.config.faint_chroma_low, self.config.faint_chroma_high)
            )
            self._faint_chroma = Traced(faint, self.config, self.min_area, self.min_points)
        return self._faint_chroma

    def check(self, config: DetectorConfig) -> None:
        """Raise ``SettingError`` unless ``config`` differs from the one these cues were made with only in its
        plane: cues of other settings (thresholds, scale) are not this detection's."""
        if replace(config, plane=None) != self.config:
            raise SettingError("the frame's cues were made with other detector settings than this detection's")
