"""Calibration round trips on simulated views: mat coordinates within 2 mm up to 30 degrees tilt."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import Calibration, Calibrator, calibrate_once, fit
from vision.errors import CalibrationError
from vision.simtable import SimCamera, SimTable
from vision.zones import Layout, layout_for


def _grid(layout: Layout) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(50, layout.width_mm - 50, 7), np.linspace(50, layout.height_mm - 50, 5))
    return np.stack([xs.ravel(), ys.ravel()], 1)


@pytest.mark.parametrize("tilt, yaw, roll", [(0, 0, 0), (15, 10, -4), (30, 0, 3), (30, 20, 0)])
def test_mat_coordinates_within_2mm_on_tilted_views(tilt: float, yaw: float, roll: float) -> None:
    layout = layout_for("chinese-ten", 3)
    sim = SimTable(layout, seed=1, camera=SimCamera(tilt_deg=tilt, yaw_deg=yaw, roll_deg=roll))
    for card, slot in (("QH", 0), ("7S", 5), ("TD", 7)):
        sim.place(card, "layout", slot=slot, animate=False)
    pts = _grid(layout)
    truth_px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), sim.mat_to_image).reshape(-1, 2)
    cal = calibrate_once(layout, sim.render())
    assert len(cal.markers) >= 4
    assert np.linalg.norm(cal.to_mat(truth_px) - pts, axis=1).max() < 2.0
    back = cal.to_image(cal.to_mat(truth_px))
    assert np.abs(back - truth_px).max() < 1e-6


def test_hand_over_markers_still_calibrates() -> None:
    layout = layout_for("chinese-ten", 2)
    sim = SimTable(layout, seed=3, camera=SimCamera(tilt_deg=20))
    frame = sim.render(hand=((40.0, 380.0), (40.0, 700.0)))  # an arm across the bottom-left markers
    cal = calibrate_once(layout, frame)
    pts = _grid(layout)
    truth_px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), sim.mat_to_image).reshape(-1, 2)
    assert np.linalg.norm(cal.to_mat(truth_px) - pts, axis=1).max() < 2.0


def test_nudged_camera_recalibrates_itself() -> None:
    layout = layout_for("chinese-ten", 3)
    before = SimTable(layout, seed=2, camera=SimCamera(tilt_deg=20))
    after = SimTable(layout, seed=2, camera=SimCamera(tilt_deg=24, yaw_deg=3, shift_px=(25.0, -10.0)))
    cal = Calibrator(layout)
    for _ in range(3):
        cal.update(before.render())
    assert cal.recalibrations == 0
    # a frame where only 3 markers show, all moved: too little to trust at once (a blur, a sleeve)
    partial = after.render()
    keep = [after.mat_to_image @ np.array([m.x + 16, m.y + 16, 1.0]) for m in layout.markers[:3]]
    mask = np.zeros(partial.shape[:2], np.uint8)
    for p in keep:
        cv2.circle(mask, (int(p[0] / p[2]), int(p[1] / p[2])), 45, 255, -1)
    partial[mask == 0] = (60, 110, 50)
    cal.update(partial)
    assert cal.doubting and cal.recalibrations == 0
    cal.update(after.render())  # a clear view agrees on the new position: restart from it
    assert cal.recalibrations == 1 and not cal.doubting
    pts = _grid(layout)
    truth_px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), after.mat_to_image).reshape(-1, 2)
    assert cal.current is not None
    assert np.linalg.norm(cal.current.to_mat(truth_px) - pts, axis=1).max() < 2.0
    # a clean view of a moved camera is believed at once
    again = SimTable(layout, seed=2, camera=SimCamera(tilt_deg=16, shift_px=(-20.0, 12.0)))
    cal.update(again.render())
    assert cal.recalibrations == 2 and not cal.doubting


def test_no_markers_keeps_the_fallback_fixed_geometry() -> None:
    layout = layout_for("chinese-ten", 3)
    sim = SimTable(layout, seed=1, camera=SimCamera(tilt_deg=10))
    corners = cv2.perspectiveTransform(
        np.array(
            [[[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm], [0, layout.height_mm]]], np.float64
        ),
        sim.mat_to_image,
    )[0]
    fixed = Calibration.fixed(layout, corners)
    cal = Calibrator(layout, fallback=fixed)
    blank = np.full((720, 1280, 3), 90, np.uint8)  # no mat at all
    assert cal.update(blank) is fixed
    pts = _grid(layout)
    truth_px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), sim.mat_to_image).reshape(-1, 2)
    assert np.linalg.norm(fixed.to_mat(truth_px) - pts, axis=1).max() < 0.01
    with pytest.raises(CalibrationError):
        Calibration.fixed(layout, [[0, 0], [1, 1]])
    # corners misordered (anticlockwise, or two swapped so the sides cross) are refused, not fitted
    good = np.asarray(corners, np.float64)
    for bad in (good[::-1], good[[0, 2, 1, 3]]):
        with pytest.raises(CalibrationError, match="fixed geometry: the 4 image corners must go clockwise"):
            Calibration.fixed(layout, bad)
    with pytest.raises(CalibrationError, match="at least 2"):
        calibrate_once(layout, blank)
    with pytest.raises(CalibrationError):
        fit(layout, [])
