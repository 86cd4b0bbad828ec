"""The per-frame path from camera frame to table events: calibration, hand (occlusion) detection,
a cheap change gate, recognition, tracking.

Recognition is the expensive step, so it runs only when the tracker has something undecided or the
frame changed since the last recognised one (a low-resolution difference over the mat); frames with
a hand over the mat are not recognised at all (the tracker ignores them anyway).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from vision.calibration import Calibration, Calibrator, marker_areas
from vision.change_regions import GROW, PendingRegions, unexplained
from vision.detect import Region
from vision.events import TableEvent
from vision.tracker import Observation, Tracker, TrackerConfig
from vision.zones import Layout


class Recognises(Protocol):
    """``vision.recognizer.Recognizer``'s shape; ``classify_quads`` and ``recognize_regions`` are used when present."""

    def recognize(
        self, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Sequence[np.ndarray] = ()
    ) -> Sequence[Observation]: ...


class HandDetector:
    """Is a hand (or arm, or sleeve) over the mat? Two cues, on a quarter-size frame:

    * skin-coloured pixels (a YCrCb range) inside the mat: a blob that reaches the mat's edge (an
      arm comes from outside) or one bigger than any card (a whole hand) is a hand. A red-and-white
      card back blurs to pink at this scale, so smaller blobs inside the mat and the outlines of
      known cards do not count;
    * a large sudden change over the mat (a sleeve or glove moving in) starts an occlusion.
    """

    def __init__(
        self,
        *,
        scale: float = 0.25,
        edge_blob_frac: float = 0.004,
        big_blob_frac: float = 0.045,
        motion_frac: float = 0.04,
        motion_level: int = 30,
    ) -> None:
        self.scale = scale
        self.edge_blob_frac = edge_blob_frac
        self.big_blob_frac = big_blob_frac
        self.motion_frac = motion_frac
        self.motion_level = motion_level
        self._mask: np.ndarray | None = None
        self._band: np.ndarray | None = None
        self._mask_key: bytes | None = None
        self._prev: np.ndarray | None = None
        self._was_occluded = False
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))

    def _mat_mask(self, shape: tuple[int, int], layout: Layout, cal: Calibration) -> tuple[np.ndarray, np.ndarray]:
        key = cal.image_to_mat.tobytes() + bytes(str(shape), "ascii")
        if self._mask is None or self._band is None or self._mask_key != key:
            w, h = layout.width_mm, layout.height_mm
            corners = cal.to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]])) * self.scale
            mask = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
            frame_edge = np.zeros(shape, np.uint8)
            cv2.rectangle(frame_edge, (0, 0), (shape[1] - 1, shape[0] - 1), 255, 2)
            # the mat's rim (or the frame's edge where the mat runs out of view)
            band = cv2.subtract(mask, cv2.erode(mask, np.ones((5, 5), np.uint8)))
            band = cv2.bitwise_or(band, cv2.bitwise_and(frame_edge, mask))
            self._mask, self._band, self._mask_key = mask, band, key
        return self._mask, self._band

    def occluded(
        self,
        frame: np.ndarray,
        layout: Layout,
        cal: Calibration,
        cards: Sequence[np.ndarray] = (),
        *,
        small: np.ndarray | None = None,
    ) -> bool:
        """``cards``: outlines (image px) of cards known to lie there; their pinks and court
        figures are not skin. ``small``: ``frame`` already resized to ``scale`` (``INTER_AREA``), where the
        caller has it: the resize is most of this test's cost."""
        if small is None:
            small = cv2.resize(frame, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        mask, band = self._mat_mask(small.shape[:2], layout, cal)
        area = max(1, int(cv2.countNonZero(mask)))
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        moving = 0
        if self._prev is not None and self._prev.shape == gray.shape:
            diff = cv2.absdiff(gray, self._prev)
            moving = int(
                cv2.countNonZero(
                    cv2.bitwise_and(cv2.threshold(diff, self.motion_level, 255, cv2.THRESH_BINARY)[1], mask)
                )
            )
        self._prev = gray
        # A sudden large change starts an occlusion (a sleeve, a glove); the change a hand makes
        # by leaving does not extend one.
        if moving > self.motion_frac * area and not self._was_occluded:
            self._was_occluded = True
            return True
        ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        skin = cv2.bitwise_and(cv2.inRange(ycc, (40, 138, 77), (250, 178, 127)), mask)
        free = skin.copy()  # skin outside the known cards
        if len(cards):
            quads = [np.round(np.asarray(c, np.float32).reshape(4, 2) * self.scale).astype(np.int32) for c in cards]
            cv2.fillPoly(free, quads, 0)
        free = cv2.morphologyEx(free, cv2.MORPH_OPEN, self._kernel)
        self._was_occluded = False
        edge_min = self.edge_blob_frac * area
        if cv2.countNonZero(free) >= edge_min / 2:
            n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=8)
            areas = stats[1:, cv2.CC_STAT_AREA]
            if n > 1 and areas.max() >= self.big_blob_frac * area:
                self._was_occluded = True
            elif n > 1:
                # An arm reaches in from outside the mat. It is measured whole, cards it covers
                # included: a hand lying over the cards near the rim leaves little skin outside
                # them, and the cards under it would otherwise count as taken away.
                whole_labels: np.ndarray | None = None
                for lab in np.unique(labels[band > 0]):
                    if lab == 0 or areas[lab - 1] < edge_min / 2:
                        continue
                    if whole_labels is None:  # once, and only when a blob reaches the rim
                        whole = cv2.morphologyEx(skin, cv2.MORPH_OPEN, self._kernel)
                        _, whole_labels, whole_stats, _ = cv2.connectedComponentsWithStats(whole, connectivity=8)
                    joined = np.unique(whole_labels[labels == lab])
                    total = sum(int(whole_stats[j, cv2.CC_STAT_AREA]) for j in joined if j > 0)
                    if areas[lab - 1] >= edge_min or total >= edge_min:
                        self._was_occluded = True
                        break
        return self._was_occluded


class ChangeGate:
    """Did the frame change since the last recognised one? Compared at 1/8 size, blurred, so
    sensor noise does not count but a card arriving, leaving or turning does."""

    def __init__(self, *, level: int = 14) -> None:
        self.level = level
        self._ref: np.ndarray | None = None

    def small(self, frame: np.ndarray, *, quarter: np.ndarray | None = None) -> np.ndarray:
        """``frame`` at an eighth of its size, grey, blurred. ``quarter``: the frame already at a quarter of its size
        (``INTER_AREA``); the eighth is made from it (within a grey level of the same) for a sixtieth of the cost."""
        if quarter is None:
            eighth = cv2.resize(frame, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA)
        else:
            eighth = cv2.resize(quarter, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(cv2.cvtColor(eighth, cv2.COLOR_BGR2GRAY), (3, 3), 0)

    def changed(self, small: np.ndarray) -> bool:
        if self._ref is None or self._ref.shape != small.shape:
            return True
        return bool(cv2.absdiff(small, self._ref).max() > self.level)

    def remember(self, small: np.ndarray) -> None:
        self._ref = small

    @property
    def reference(self) -> np.ndarray | None:
        """The small frame last remembered (the one last detected)."""
        return self._ref


@dataclass
class WatchStats:
    frames: int = 0
    recognised: int = 0  # frames with full detection and classification
    regional: int = 0  # frames detected only around what changed (known cards across a region re-classified)
    unexplained: int = 0  # regional detections after which a change was left that no card explains
    reclassified: int = 0  # unchanged frames whose known card outlines were only re-classified
    skipped_static: int = 0
    occluded: int = 0
    uncalibrated: int = 0
    seconds: dict[str, float] = field(
        default_factory=lambda: {"calibrate": 0.0, "hands": 0.0, "recognise": 0.0, "track": 0.0}
    )


class TableWatcher:
    """Frames in, table events out. ``recognizer`` is a ``vision.recognizer.Recognizer`` (or
    anything with its ``recognize(frame, plane=)``). Give a fixed ``calibration`` for a table without a
    mat, otherwise the mat's markers are found and re-checked every ``calibrate_every`` frames. The
    calibration goes to the recogniser as ``plane``: card shapes are judged on the mat, where every card
    is a rectangle, not in the tilted image. ``regional``: detect a change only around it (``recognize_regions``,
    the shipped detector in the regions) instead of the whole frame; by default only for a recogniser without the
    learned outline networks, since with them a whole frame costs less than the regions (
    docs/performance.md "The learned path is the default recogniser")."""

    def __init__(
        self,
        layout: Layout,
        recognizer: Recognises,
        *,
        calibration: Calibration | None = None,
        tracker_config: TrackerConfig | None = None,
        calibrate_every: int = 30,
        gate: bool = True,
        refresh_every: int = 30,
        regional: bool | None = None,
        region_grow: float = GROW,
    ) -> None:
        self.layout = layout
        self.recognizer = recognizer
        self.calibrator = Calibrator(layout, fallback=calibration)
        self.tracker = Tracker(layout, config=tracker_config)
        self.hands = HandDetector()
        self.change = ChangeGate()
        self.calibrate_every = calibrate_every
        self.gate = gate
        self.refresh_every = refresh_every
        self.regional = getattr(recognizer, "outline_nets", None) is None if regional is None else regional
        self.region_grow = region_grow
        self.stats = WatchStats()
        self._since_full = 0
        self._pending = PendingRegions(grow=region_grow)
        self._markers_key: bytes | None = None
        self._marker_areas: list[np.ndarray] = []
        self.last_observations: Sequence[Observation] = ()
        self._last_quads: list[np.ndarray] = []
        # full detections after a change before re-classifying known outlines is trusted (one
        # detection can miss a card; two in a row practically never both miss it)
        self.detect_after_change = 2
        self._detections_due = 0
        self.last_occluded = False
        self._last_calibration = -(10**9)

    def _look(self, image: np.ndarray, cal: Calibration, quarter: np.ndarray) -> Sequence[Observation] | None:
        """Recognise as little as will do. Detection on the two frames after the view changed (since the last
        detection), while a card is missing, and on the periodic refresh: of the whole frame on the refresh, where
        the change is large or no card is known yet, after a change no card explains, and once a change at the frame's
        edge has cleared (``PendingRegions``), else only of the regions around what changed
        (``vision.change_regions``: a card put down or taken up is detected with the cards around it, a known card
        across a region's edge is only re-classified, and one no region touches keeps its reading); when only votes are
        still needed on an unchanged frame,
        re-classify the outlines the last detection found; nothing at all when the tracker is settled and the frame
        unchanged."""
        st = self.stats
        small = self.change.small(image, quarter=quarter)
        self._since_full += 1
        missing = [t.corners for t in self.tracker.tracks.values() if t.misses > 0]
        if self._detections_due <= 0 and not missing:
            self._pending.settled()  # every change so far has been detected twice and every card seen since
        changes: list[Region] = []  # what changed since the last detection (full-resolution boxes)
        if self.change.changed(small):
            self._detections_due = self.detect_after_change
            changes = self._pending.note(self.change.reference, small, image.shape, self._last_quads)
        refresh = self._since_full >= self.refresh_every
        if (
            not self.gate
            or self._detections_due > 0
            or missing
            or refresh
            or not self._last_quads
            and not self.tracker.settled
        ):
            self._detections_due -= 1
            regions = None
            if self.gate and not refresh and self.regional and hasattr(self.recognizer, "recognize_regions"):
                regions = self._pending.regions(changes, missing, self._last_quads, image.shape)
            if regions is None:
                observations = self.recognizer.recognize(image, plane=cal.image_to_mat, ignore=self._markers(cal))
                self._pending.whole_detected(changes, image.shape)
                self._since_full = 0
                st.recognised += 1
            else:
                # (last_observations are the readings of _last_quads, in order: a card no region touches keeps its own)
                observations = self.recognizer.recognize_regions(  # type: ignore[attr-defined]
                    image,
                    regions,
                    self._last_quads,
                    plane=cal.image_to_mat,
                    ignore=self._markers(cal),
                    readings=self.last_observations,
                )
                st.regional += 1
                before = [(o.card, np.asarray(o.corners)) for o in self.last_observations]
                after = [(o.card, np.asarray(o.corners)) for o in observations]
                if unexplained(changes, regions, before, after, image.shape):
                    # a change no card explains may be a card the regions' detection missed: the next detection,
                    # due at once, is of the whole frame
                    self._pending.whole_next()
                    self._detections_due = max(self._detections_due, 1)
                    st.unexplained += 1
            self.last_observations = observations
            self._last_quads = [np.asarray(o.corners, np.float32) for o in observations]
            self.change.remember(small)
            return observations
        if not self.tracker.settled:
            classify = getattr(self.recognizer, "classify_quads", None)
            if classify is None:
                observations = self.recognizer.recognize(image, plane=cal.image_to_mat, ignore=self._markers(cal))
                st.recognised += 1
            else:
                observations = read_again(classify, image, self._last_quads, self.last_observations)
                st.reclassified += 1
            self.last_observations = observations
            return observations
        st.skipped_static += 1
        return None

    def _markers(self, cal: Calibration) -> list[np.ndarray]:
        """``calibration.marker_areas`` for ``cal``, kept while the calibration is the same."""
        key = cal.image_to_mat.tobytes()
        if key != self._markers_key:
            self._markers_key = key
            self._marker_areas = marker_areas(self.layout, cal)
        return self._marker_areas

    @property
    def calibration(self) -> Calibration | None:
        return self.calibrator.current

    def process(self, image: np.ndarray, *, frame_index: int, timestamp: float = 0.0) -> list[TableEvent]:
        st = self.stats
        st.frames += 1
        t0 = time.perf_counter()
        cal = self.calibrator.current
        if cal is None or self.calibrator.doubting or frame_index - self._last_calibration >= self.calibrate_every:
            self.calibrator.update(image, frame_index=frame_index)
            self._last_calibration = frame_index
            cal = self.calibrator.current
        t1 = time.perf_counter()
        st.seconds["calibrate"] += t1 - t0
        if cal is None:
            st.uncalibrated += 1
            return []
        known = [t.corners for t in self.tracker.tracks.values()]
        # the frame at a quarter of its size, made once: the hand detector's (at its default scale) and the change
        # gate's eighth come from it; the two resizes of the whole frame were over half the cost of a quiet frame
        quarter = cv2.resize(image, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        occluded = self.hands.occluded(
            image, self.layout, cal, known, small=quarter if self.hands.scale == 0.25 else None
        )
        if self.last_occluded and not occluded and self.calibrator.fallback is None:
            # the view just cleared: a hand or a jolt may have moved the camera; check before
            # anything is located with the old calibration
            self.calibrator.update(image, frame_index=frame_index)
            self._last_calibration = frame_index
            cal = self.calibrator.current or cal
        if self.calibrator.doubting:  # the markers moved: hold everything until that is settled
            occluded = True
        self.last_occluded = occluded
        t2 = time.perf_counter()
        st.seconds["hands"] += t2 - t1
        observations: Sequence[Observation] | None = None
        if occluded:
            st.occluded += 1
        else:
            observations = self._look(image, cal, quarter)
        t3 = time.perf_counter()
        st.seconds["recognise"] += t3 - t2
        events = self.tracker.update(
            observations, calibration=cal, frame_index=frame_index, timestamp=timestamp, occluded=occluded
        )
        st.seconds["track"] += time.perf_counter() - t3
        return events


def read_again(
    classify: Callable[[np.ndarray, list[np.ndarray]], Sequence[Observation]],
    image: np.ndarray,
    quads: list[np.ndarray],
    readings: Sequence[Observation],
) -> list[Observation]:
    """The cards at ``quads`` (their last ``readings``, in order) read again through their outlines, but for the ones
    seen by an index corner only (``visible == "index"``): their outlines are estimated and their far corner hidden,
    so they keep their reading until the next detection."""
    whole = [getattr(r, "visible", "whole") != "index" for r in readings]
    again = iter(classify(image, [q for q, w in zip(quads, whole, strict=True) if w]))
    return [next(again) if w else r for r, w in zip(readings, whole, strict=True)]
