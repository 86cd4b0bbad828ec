"""vision.rectify: outline order and the two index-corner crops."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.faces import render_face
from vision.rectify import CORNER_H, CORNER_W, corner_crops, order_corners


def _box(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    return cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)


@pytest.mark.parametrize("angle", [0, 17, 45, 90, 133, 180, 271])
def test_order_is_clockwise_and_starts_on_a_short_side(angle: float) -> None:
    q = order_corners(_box(300, 200, 100, 140, angle))
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    assert sides[0] < sides[1] and sides[2] < sides[3]
    # clockwise on screen (y down): positive shoelace sum
    area2 = sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    assert area2 > 0


def test_order_ignores_the_input_order() -> None:
    q = _box(300, 200, 100, 140, 30)
    a = order_corners(q)
    for perm in ([1, 2, 3, 0], [3, 2, 1, 0], [2, 0, 3, 1]):
        assert np.allclose(order_corners(q[perm]), a)


def _place(card: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The card drawn on a grey table rotated by ``angle``; returns (frame, outline)."""
    frame = np.full((600, 600, 3), 90, np.uint8)
    h, w = card.shape[:2]
    quad = _box(300, 300, w, h, angle)[[1, 2, 3, 0]]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
    cv2.warpPerspective(card, m, (600, 600), frame, borderMode=cv2.BORDER_TRANSPARENT)
    return frame, quad


def test_crops_show_the_upright_index_at_any_rotation() -> None:
    card = render_face("9S", width=200, height=280)
    frame, quad = _place(card, 0)
    ref = corner_crops(frame, quad).astype(int)
    assert ref.shape == (2, CORNER_H, CORNER_W, 3)
    other = corner_crops(*_place(render_face("6H", width=200, height=280), 0)).astype(int)
    different = np.abs(other - ref).mean()
    assert np.abs(ref[0] - ref[1]).mean() < different / 2  # both corners read the same way up
    for angle in (90, 180, 270, 37):
        frame, quad = _place(card, angle)
        crops = corner_crops(frame, quad).astype(int)
        # same pair of crops, possibly swapped (upside down swaps the corners)
        d = min(np.abs(crops - ref).mean(), np.abs(crops[::-1] - ref).mean())
        assert d < different / 2, angle
