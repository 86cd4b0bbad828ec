"""vision.quads: the small geometry helpers the detector calls dozens of times a frame."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.quads import grow_quad, short_long


def _card(rng: np.random.Generator) -> np.ndarray:
    w, h, t = rng.uniform(20, 150), rng.uniform(20, 200), rng.uniform(0, 2 * math.pi)
    turn = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ turn.T + rng.uniform(0, 600, 2)
    return (corners + rng.normal(0, 2, (4, 2))).astype(np.float32)


def test_short_long_is_the_mean_of_opposite_sides_whatever_the_order_of_the_corners() -> None:
    rng = np.random.default_rng(3)
    for _ in range(500):
        quad = _card(rng)
        sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).astype(np.float64)
        a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        for shuffled in (quad, quad[::-1], quad[[0, 2, 1, 3]], quad[[3, 1, 0, 2]]):
            assert short_long(shuffled) == pytest.approx((min(a, b), max(a, b)), rel=1e-6)
    assert short_long(np.array([[0, 0], [10, 0], [10, 15], [0, 15]], np.int64)) == (10.0, 15.0)


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
