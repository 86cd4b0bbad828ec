"""vision.quads: the small geometry helpers the detector calls dozens of times a frame."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest

from vision.quads import grow_quad, map_points, map_quads, short_longs
from vision.rectify import order_corners
from vision.size_pass import _BAND_DEPTH, _BAND_T, _band_points, _quad_sides


def _card(rng: np.random.Generator) -> np.ndarray:
    w, h, t = rng.uniform(20, 150), rng.uniform(20, 200), rng.uniform(0, 2 * math.pi)
    turn = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    corners: np.ndarray = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ turn.T + rng.uniform(0, 600, 2)
    return (corners + rng.normal(0, 2, (4, 2))).astype(np.float32)


def test_short_longs_are_the_mean_opposite_sides_bit_for_bit_whatever_the_order_of_the_corners() -> None:
    """The reference: the corners in order (``order_corners``), each side's ``np.linalg.norm`` in float32."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        quads = [_card(rng) for _ in range(int(rng.integers(1, 8)))]
        expected = []
        for quad in quads:
            q = order_corners(quad)
            a = (float(np.linalg.norm(q[1] - q[0])) + float(np.linalg.norm(q[3] - q[2]))) / 2
            b = (float(np.linalg.norm(q[2] - q[1])) + float(np.linalg.norm(q[0] - q[3]))) / 2
            expected.append((min(a, b), max(a, b)))
        for shuffle in ([0, 1, 2, 3], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 0, 2]):
            assert np.array_equal(short_longs([quad[shuffle] for quad in quads]), np.array(expected))
    assert short_longs([np.array([[0, 0], [10, 0], [10, 15], [0, 15]], np.int64)]).tolist() == [[10.0, 15.0]]
    assert short_longs([]).shape == (0, 2)


def test_grow_quad_moves_each_corner_away_from_the_centre_as_the_per_corner_reference_does() -> None:
    rng = np.random.default_rng(4)
    for _ in range(2000):
        quad = _card(rng)
        centre = quad.mean(axis=0)
        expected = np.empty_like(quad)
        for k in range(4):  # the reference: one corner at a time, in the quad's own float32
            v = quad[k] - centre
            expected[k] = quad[k] + v / max(1e-6, float(np.linalg.norm(v))) * 2.0 * 1.41
        assert np.array_equal(grow_quad(quad, 2.0), expected)


def test_the_size_pass_band_points_of_many_quads_at_once_are_those_of_each_quad_alone() -> None:
    """``size_pass._band_points`` takes all rectangles of a frame in one array; per quad it must give the
    points the per-side reference (``_quad_sides``) gives, whatever the corner order: to 1e-9 px, as the
    reference's ``np.linalg.norm`` and the batch's ``einsum`` may round a length's last bit differently (numpy
    2.4: one point in 300 frames off by 7e-15 px)."""
    rng = np.random.default_rng(6)
    for _ in range(300):
        quads = [
            _card(rng)[rng.permutation(4) if rng.random() < 0.3 else np.arange(4)]
            for _ in range(int(rng.integers(1, 6)))
        ]
        expected = []
        for quad in quads:
            _, width, sides = _quad_sides(quad)
            base = np.stack([a + _BAND_T * d for a, d, _ in sides])[:, None]
            step = np.stack([(_BAND_DEPTH * width)[:, None] * inward for _, _, inward in sides])[:, :, None]
            expected.append(np.stack([(base + step).reshape(-1, 2), (base - step).reshape(-1, 2)]))
        np.testing.assert_allclose(_band_points(quads), np.stack(expected, axis=1), rtol=0, atol=1e-9)


def test_map_quads_gives_each_quad_what_map_points_gives_it_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        h = rng.normal(size=(3, 3))
        h[2] = (rng.normal() * 1e-3, rng.normal() * 1e-3, 1.0)
        quads = list((rng.random((int(rng.integers(1, 30)), 4, 2)) * 1280).astype(np.float32))
        assert np.array_equal(map_quads(h, quads), np.stack([map_points(h, q) for q in quads]))
    assert map_quads(np.eye(3), []).shape == (0, 4, 2)


def test_new_cards_keeps_exactly_the_candidates_that_overlap_no_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """``new_cards`` intersects a candidate only with the cards whose bounding boxes meet its own: the
    candidates passed on are those of the plain test (``overlap_share`` under 0.2 with every card), over
    random rotated rectangles, some overlapping a little, some a lot, some touching none."""
    import cv2

    from vision import outline_candidates
    from vision.detector_config import DEFAULT_CONFIG, DetectorConfig
    from vision.outline_candidates import Candidate, new_cards
    from vision.quads import overlap_share

    rng = np.random.default_rng(7)

    def rect() -> np.ndarray:
        box = (
            (float(rng.uniform(0, 640)), float(rng.uniform(0, 360))),
            (float(rng.uniform(30, 70)), float(rng.uniform(45, 100))),
            float(rng.uniform(0, 180)),
        )
        return cv2.boxPoints(box).astype(np.float32)

    passed: list[list[Candidate]] = []

    def resolve(candidates: list[Candidate], config: DetectorConfig, edges: np.ndarray) -> list[np.ndarray]:
        passed.append(candidates)
        return []

    monkeypatch.setattr(outline_candidates, "resolve", resolve)
    kept_some = dropped_some = False
    for _ in range(30):
        cards = [rect() for _ in range(int(rng.integers(0, 12)))]
        extra = [Candidate(q, q, 0.0, float(cv2.contourArea(q))) for q in (rect() for _ in range(40))]
        new_cards(extra, cards, DEFAULT_CONFIG, np.zeros((360, 640), np.uint8))
        plain = [c for c in extra if all(overlap_share(c.rough, q) < 0.2 for q in cards)]
        assert [id(c) for c in passed.pop()] == [id(c) for c in plain]
        kept_some |= bool(plain)
        dropped_some |= len(plain) < len(extra)
    assert kept_some and dropped_some


def _samples(*sides: str) -> np.ndarray:
    """(1, 4, 17) side samples from four strings of 17 ``1`` (on an edge) and ``0``."""
    return np.array([[[c == "1" for c in side] for side in sides]])


def test_side_samples_are_the_points_side_hits_counts() -> None:
    """``side_samples``: per side of a quad its 17 samples on the edge map, first corner to second; ``side_hits``
    is their share. A square whose right side (corner 1 to 2) runs off the map's edge pixels after its middle."""
    from vision.quads import side_hits, side_samples

    near = np.zeros((60, 60), np.uint8)
    cv2.rectangle(near, (10, 10), (50, 50), 255, 1)
    near[31:, 48:] = 0  # the right side's lower half is gone
    square = np.array([[[10, 10], [50, 10], [50, 50], [10, 50]]], np.float32)
    samples = side_samples(square, near)
    assert samples.shape == (1, 4, 17)
    assert samples[0, 0].all() and samples[0, 2].all() and samples[0, 3].all()
    right = samples[0, 1]
    assert right[:9].all() and not right[9:].any()  # samples at 10, 15, ... 90% of the side: rows 14, 16, ... 46
    assert np.array_equal(side_hits(square, near), samples.mean(axis=2))


def test_one_side_of_a_size_pass_rectangle_may_miss_a_stretch_clear_of_its_ends() -> None:
    """``size_pass.sides_on_edges``: every side on edges for ``size_side_support`` (0.9: at most one of 17 samples
    off), or one side for ``size_gap_support`` (0.8: three off) if its misses are one stretch and its
    ``size_gap_end`` (2) samples at either end are on edges. Each refusal below is one change from an accepted
    case."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG
    from vision.size_pass import sides_on_edges

    full = "1" * 17

    def ok(*sides: str, **changes: Any) -> bool:
        return bool(sides_on_edges(_samples(*sides), replace(DEFAULT_CONFIG, **changes))[0])

    assert ok(full, full, full, "11111111011111111")  # one sample off: 0.94
    assert ok(full, full, full, "11111000111111111")  # a stretch of three in the middle: 0.82
    assert ok(full, full, full, "11000111111111111")  # ... starting at the third sample
    assert not ok(full, full, full, "10001111111111111")  # ... at the second: the side runs off at its corner
    assert ok(full, full, full, "11111111111100011")  # ... ending at the fifteenth
    assert not ok(full, full, full, "11111111111110001")  # ... at the sixteenth
    assert not ok(full, full, full, "11110000111111111")  # four off: 0.76
    assert not ok(full, full, full, "11101101111111111")  # three off in two places
    assert ok(full, full, "11111111011111111", "11111000111111111")  # the other side at 0.94 is not weak
    assert not ok(full, full, "11111110011111111", "11111000111111111")  # two weak sides
    assert not ok(full, full, full, "11111000111111111", size_gap_support=0.9)  # the rule off
    assert not ok(full, full, full, "11111000111111111", size_gap_end=0)
    assert ok(full, full, full, "11100011111111111", size_gap_end=3)
    assert not ok(full, full, full, "11000111111111111", size_gap_end=3)
