"""Camera-to-mat calibration from the mat's ArUco markers.

A :class:`Calibration` maps image pixels to mat millimetres (a plane homography). A
:class:`Calibrator` finds one from any frame with at least ``min_markers`` markers visible, refines
it as more frames come (each marker's corners averaged over the frames that agree), notices when the
camera was nudged (the markers no longer where the calibration puts them) and starts again from the
new view. Without a mat, :meth:`Calibration.fixed` gives a configured fixed geometry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import CalibrationError
from vision.zones import MARKER_QUIET_MM, Layout

MARKER_MARGIN_MM = 2.0
"""Table around each marker's printed white margin that the recogniser also ignores (``marker_areas``): the
calibration is a millimetre or so off at the mat's rim (docs/performance.md, Table vision), and the white blurs
outwards."""


@dataclass(frozen=True, eq=False)
class Calibration:
    image_to_mat: np.ndarray  # 3x3 homography, pixels -> mm
    rms_px: float = 0.0  # reprojection error of the marker corners it was fitted to
    markers: tuple[int, ...] = ()  # marker ids it rests on (empty: fixed geometry)
    frame_index: int = -1
    mat_to_image: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mat_to_image", np.linalg.inv(self.image_to_mat))

    def to_mat(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) image pixels -> (N, 2) mat millimetres."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.image_to_mat).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.mat_to_image).reshape(-1, 2)

    def px_per_mm(self, at_mm: tuple[float, float]) -> float:
        """Local image scale at a mat point (for pixel tolerances)."""
        x, y = at_mm
        p = self.to_image(np.array([[x, y], [x + 10, y], [x, y + 10]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20)

    @classmethod
    def fixed(cls, layout: Layout, mat_corners_px: Sequence[Sequence[float]] | np.ndarray) -> Calibration:
        """A fixed geometry for a table without markers: where the mat's four corners (top-left,
        top-right, bottom-right, bottom-left in mat coordinates) appear in the image."""
        try:
            return cls.rectangle(layout.width_mm, layout.height_mm, mat_corners_px)
        except CalibrationError as exc:
            raise CalibrationError(f"fixed geometry: {exc}") from None

    @classmethod
    def rectangle(cls, width: float, height: float, corners_px: Sequence[Sequence[float]] | np.ndarray) -> Calibration:
        """From any ``width`` x ``height`` rectangle lying on the table (the mat, a sheet of paper) and
        where its four corners (top-left, top-right, bottom-right, bottom-left) appear in the image: they
        go clockwise round a convex quadrilateral there, or the corners are misread or misordered."""
        src = np.asarray(corners_px, np.float64)
        if src.shape != (4, 2) or not np.all(np.isfinite(src)):
            raise CalibrationError("needs the image positions of the 4 corners")
        if not (width > 0 and height > 0):
            raise CalibrationError(f"the rectangle's size must be positive, got {width:g} x {height:g}")
        edges = np.roll(src, -1, axis=0) - src
        nxt = np.roll(edges, -1, axis=0)
        if not (edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0] > 1.0).all():
            raise CalibrationError("the 4 image corners must go clockwise around a convex quadrilateral")
        dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
        hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
        if abs(np.linalg.det(hom)) < 1e-12:
            raise CalibrationError("the 4 corners are degenerate")
        return cls(hom.astype(np.float64))


@dataclass(frozen=True)
class MarkerSighting:
    id: int
    corners: np.ndarray  # (4, 2) image px, clockwise from the marker's top-left


class MarkerDetector:
    """ArUco detection with sub-pixel corner refinement."""

    def __init__(self, dictionary: str = "DICT_4X4_50", *, min_perimeter_rate: float = 0.06) -> None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 4
        # relative to the image's larger side; skipping tiny contours (table texture, noise) is
        # most of the speed, and a mat marker is never that small
        params.minMarkerPerimeterRate = min_perimeter_rate
        self._detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params
        )

    def detect(self, frame_bgr: np.ndarray) -> list[MarkerSighting]:
        gray = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._detector.detectMarkers(gray)
        if ids is None:
            return []
        return [
            MarkerSighting(int(i), c.reshape(4, 2).astype(np.float64))
            for c, i in zip(corners, ids.ravel(), strict=True)
        ]


def fit(layout: Layout, sightings: Sequence[MarkerSighting], *, frame_index: int = -1) -> Calibration:
    """The homography from the sighted markers that belong to ``layout``."""
    known = [s for s in sightings if s.id in layout.marker_ids]
    if len(known) < 2:
        raise CalibrationError(f"need at least 2 of the mat's markers, saw {len(known)}")
    img = np.concatenate([s.corners for s in known])
    mat = np.concatenate([layout.marker_corners(s.id) for s in known]).astype(np.float64)
    hom, _ = cv2.findHomography(img, mat, 0)
    if hom is None or not np.all(np.isfinite(hom)) or abs(np.linalg.det(hom)) < 1e-12:
        raise CalibrationError("markers give a degenerate homography")
    back = cv2.perspectiveTransform(mat.reshape(-1, 1, 2), np.linalg.inv(hom)).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((back - img) ** 2, axis=1))))
    return Calibration(hom, rms, tuple(sorted(s.id for s in known)), frame_index)


class Calibrator:
    """Keeps the current calibration; call :meth:`update` with frames (every frame, or every few)."""

    def __init__(
        self,
        layout: Layout,
        *,
        fallback: Calibration | None = None,
        min_markers: int = 2,
        nudge_px: float = 4.0,
        history: int = 30,
    ) -> None:
        self.layout = layout
        self.fallback = fallback
        self.min_markers = min_markers
        self.nudge_px = nudge_px
        self.history = history
        self._detector = MarkerDetector(layout.dictionary)
        self._crop_detector = MarkerDetector(layout.dictionary, min_perimeter_rate=0.2)
        self._sums: dict[int, np.ndarray] = {}  # marker id -> summed corners (refinement)
        self._counts: dict[int, int] = {}
        self._current: Calibration | None = None
        self._disagreements = 0
        self.recalibrations = 0  # times a nudge was detected and the calibration restarted

    @property
    def current(self) -> Calibration | None:
        return self._current or self.fallback

    @property
    def doubting(self) -> bool:
        """The last check disagreed with the calibration: check the next frame too."""
        return self._disagreements > 0

    def update(self, frame_bgr: np.ndarray, *, frame_index: int = -1) -> Calibration | None:
        """Detect markers in the frame and refine (or restart) the calibration. Frames without
        enough markers (a hand over them, a blurred frame) leave it unchanged."""
        sightings: list[MarkerSighting] = []
        if self._current is not None:  # look where the markers should be first: a few small crops
            sightings = self._detect_near(frame_bgr, self._current)
        if len(sightings) < max(self.min_markers, len(self.layout.markers) // 2):
            sightings = [s for s in self._detector.detect(frame_bgr) if s.id in self.layout.marker_ids]
        if len(sightings) < self.min_markers:
            return self.current
        if self._current is not None:
            err = self._error_px(self._current, sightings)
            if err > self.nudge_px:
                self._disagreements += 1
                # One odd frame (motion blur) is not a nudge, unless the frame's own markers agree
                # on a new view: then the camera moved and waiting would misplace every card.
                try:
                    fresh = fit(self.layout, sightings) if len(sightings) >= 4 else None
                except CalibrationError:
                    fresh = None
                if self._disagreements < 2 and (fresh is None or fresh.rms_px > 1.5):
                    return self._current
                self._sums.clear()
                self._counts.clear()
                self.recalibrations += 1
            self._disagreements = 0
        for s in sightings:
            n = self._counts.get(s.id, 0)
            if n >= self.history:  # keep a sliding average: forget the oldest share
                self._sums[s.id] *= (n - 1) / n
                n -= 1
            self._sums[s.id] = self._sums.get(s.id, 0) + s.corners
            self._counts[s.id] = n + 1
        averaged = [MarkerSighting(i, self._sums[i] / self._counts[i]) for i in self._sums]
        try:
            self._current = fit(self.layout, averaged, frame_index=frame_index)
        except CalibrationError:
            pass
        return self.current

    def _detect_near(self, frame: np.ndarray, cal: Calibration) -> list[MarkerSighting]:
        h, w = frame.shape[:2]
        found: list[MarkerSighting] = []
        for m in self.layout.markers:
            quad = cal.to_image(self.layout.marker_corners(m.id))
            side = float(np.linalg.norm(quad[1] - quad[0]))
            pad = max(20.0, side)  # room for a nudge of about a marker's width
            x0, y0 = (max(0, int(v - pad)) for v in quad.min(0))
            x1, y1 = int(min(w, quad[:, 0].max() + pad)), int(min(h, quad[:, 1].max() + pad))
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            for s in self._crop_detector.detect(frame[y0:y1, x0:x1]):
                if s.id == m.id:
                    found.append(MarkerSighting(s.id, s.corners + np.array([x0, y0], np.float64)))
        return found

    def _error_px(self, cal: Calibration, sightings: Sequence[MarkerSighting]) -> float:
        errs = [
            np.linalg.norm(cal.to_image(self.layout.marker_corners(s.id)) - s.corners, axis=1).mean() for s in sightings
        ]
        return float(np.median(errs))


def marker_areas(layout: Layout, cal: Calibration) -> list[np.ndarray]:
    """The mat's markers with their white margins and ``MARKER_MARGIN_MM`` more, in image pixels: areas a recogniser
    should ignore (``detect_cards``' ``ignore``), as their white is no card's paper."""
    return [cal.to_image(a) for a in layout.marker_areas(MARKER_QUIET_MM + MARKER_MARGIN_MM)]


def calibrate_once(layout: Layout, frame_bgr: np.ndarray) -> Calibration:
    """One-frame calibration; raises :class:`CalibrationError` without enough markers."""
    sightings = MarkerDetector(layout.dictionary).detect(frame_bgr)
    return fit(layout, sightings)
