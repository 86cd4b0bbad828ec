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
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
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


def test_fast_order_matches_the_float32_reference_including_near_ties() -> None:
    """The plain-float order_corners must give the numpy reference's result bit for bit: random quads,
    card-like boxes, and squares / symmetric rectangles whose ties only the reference may decide."""
    from vision.rectify import _order_corners_np

    rng = np.random.default_rng(7)
    quads = [rng.uniform(0, 1280, (4, 2)) for _ in range(300)]
    for _ in range(300):
        cx, cy = rng.uniform(50, 900, 2).tolist()
        w, h = rng.uniform(40, 300, 2).tolist()
        quads.append(_box(cx, cy, w, h, rng.uniform(0, 360)))
    for side in (1, 7, 60):
        for angle in (0, 45, 90, 30.5):
            cx, cy = rng.integers(0, 500, 2).tolist()
            quads.append(_box(cx, cy, side, side, angle))
    quads += [
        np.array([[0, 0], [w, 0], [w, h], [0, h]], float)[rng.permutation(4)] for w, h in rng.integers(1, 40, (100, 2))
    ]
    for q in quads:
        q32 = np.asarray(q, np.float32)
        got, ref = order_corners(q32[rng.permutation(4)]), _order_corners_np(q32)
        assert got.dtype == np.float32 and {tuple(p) for p in got} == {tuple(p) for p in q32}
        assert np.array_equal(order_corners(q32), ref)
        assert np.array_equal(order_corners(ref), ref)  # ordering twice changes nothing (``ordered=True`` skips it)


def test_corner_crops_into_a_batch_equal_fresh_crops() -> None:
    frame = np.random.default_rng(3).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    quad = _box(150, 100, 60, 84, 20)
    batch = np.zeros((2, 2, CORNER_H, CORNER_W, 3), np.uint8)
    corner_crops(frame, quad, batch[1])
    assert np.array_equal(batch[1], corner_crops(frame, quad)) and not batch[0].any()


def test_crops_of_an_ordered_quad_skip_the_order_and_equal_the_crops_of_any_order() -> None:
    frame = np.random.default_rng(4).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    quad = _box(150, 100, 60, 84, 20)[[2, 0, 3, 1]]  # not even clockwise
    fresh = corner_crops(frame, quad)
    assert np.array_equal(corner_crops(frame, order_corners(quad), ordered=True), fresh)
    assert not np.array_equal(corner_crops(frame, quad, ordered=True), fresh)  # the flag is trusted, not checked


def test_one_corner_alone_is_that_corner_of_the_pair() -> None:
    frame = np.random.default_rng(8).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    quad = _box(150, 100, 60, 84, 20)
    both = corner_crops(frame, quad)
    assert np.array_equal(corner_crops(frame, quad, corners=(0,)), both[:1])
    assert np.array_equal(corner_crops(frame, quad, corners=(1,)), both[1:])
    assert not np.array_equal(both[0], both[1])


def test_shifted_crops_move_towards_the_middle_of_the_card() -> None:
    """``shift``: both crops move that fraction of the card's height towards its middle (the suit look).
    A card 128 x 180 px, upright and axis-aligned, with a different grey in each 9-px band of rows: the
    crops moved by 0.1 are the unmoved crops through an outline 18 rows lower (the bottom one: higher)."""
    frame = np.zeros((300, 300, 3), np.uint8)
    rows = (np.arange(180) // 9 * 12).astype(np.uint8)
    frame[60:240, 80:208] = rows[:, None, None]
    quad = np.array([[80, 60], [208, 60], [208, 240], [80, 240]], np.float32)
    moved = corner_crops(frame, quad, shift=0.1).astype(int)
    lower = corner_crops(frame, quad + np.array([0, 18], np.float32))[0].astype(int)
    higher = corner_crops(frame, quad + np.array([0, -18], np.float32))[1].astype(int)
    assert np.abs(moved[0] - lower).max() <= 1 and np.abs(moved[1] - higher).max() <= 1
    assert np.abs(moved[0] - corner_crops(frame, quad)[0].astype(int)).max() >= 12  # and they did move


def test_zoomed_crops_widen_from_the_card_corner() -> None:
    """``zoom``: each crop covers that many times the usual part of the card, from the card's own corner:
    the top crop zoomed by 1.3 is the plain top crop of an outline 1.3 times as large about the top-left
    corner (the bottom crop: about the bottom-right corner), on a smooth random texture."""
    rng = np.random.default_rng(8)
    frame = cv2.GaussianBlur(rng.integers(0, 256, (400, 400, 3), dtype=np.uint8), (0, 0), 3)
    quad = _box(200, 200, 110, 154, 17)
    q = order_corners(quad)
    zoomed = corner_crops(frame, q, zoom=1.3).astype(int)
    top = corner_crops(frame, q[0] + 1.3 * (q - q[0]))[0].astype(int)
    bottom = corner_crops(frame, q[2] + 1.3 * (q - q[2]))[1].astype(int)
    assert np.abs(zoomed[0] - top).max() <= 1 and np.abs(zoomed[1] - bottom).max() <= 1
    assert np.abs(zoomed[0] - corner_crops(frame, q)[0].astype(int)).mean() >= 5  # and it is another view
