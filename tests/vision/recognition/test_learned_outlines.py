"""vision/learned_outlines.py's geometry: the pyramid, the patch a card is rectified into at the level its size asks
for, a patch network's answer read back onto the frame, one outline a card, and one decoding of the first stage's
answer for every least peak."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from models.training.outline_checker import true_offsets
from models.training.outline_first import targets
from vision.learned_outlines import (
    HALF,
    INPUT,
    MARGIN,
    NEAR,
    PATCH,
    SQUARE,
    WIDEST_AT_HALF,
    check,
    clockwise,
    clockwise_all,
    level_patch,
    off_every,
    patch_of,
    peak_corners,
    pyramid,
    surest,
)
from vision.rectify import order_corners


def _perfect_answer(quads: list[np.ndarray]) -> np.ndarray:
    """The answer a perfect first stage gives for these cards (input-scale corners): heatmap logits and corners."""
    heat, corners, _ = targets(quads)
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    return np.concatenate([logits[None], corners]).astype(np.float32)


def _table(cards: list[np.ndarray]) -> np.ndarray:
    """A dark 1280x720 frame with each card (full-resolution corners) filled white."""
    frame = np.full((720, 1280, 3), 40, np.uint8)
    for quad in cards:
        cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (235, 235, 235))
    return frame


def test_the_pyramid_halves_twice_and_is_within_a_level_of_a_direct_quarter() -> None:
    frame = (np.random.default_rng(0).random((720, 1280, 3)) * 255).astype(np.uint8)
    half, quarter = pyramid(frame)
    assert half.shape == (HALF[1], HALF[0], 3) and quarter.shape == (INPUT[1], INPUT[0], 3)
    direct = cv2.resize(frame, INPUT, interpolation=cv2.INTER_AREA)
    assert np.abs(direct.astype(int) - quarter).max() <= 1


def test_a_small_card_is_drawn_from_the_half_frame_and_a_large_one_from_the_quarter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.learned_outlines as learned

    small = np.array([[100, 100], [140, 100], [140, 156], [100, 156]], np.float32)  # 40 px wide at half size
    large = np.array([[300, 60], [400, 60], [400, 200], [300, 200]], np.float32)  # 100 px: over WIDEST_AT_HALF
    assert 40 <= WIDEST_AT_HALF < 100
    half, quarter = pyramid(_table([q * 2 for q in (small, large)]))
    drawn_from: list[tuple[int, ...]] = []

    def spy(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        drawn_from.append(image.shape)
        return patch_of(image, quad)

    monkeypatch.setattr(learned, "patch_of", spy)
    for quad in (small, large):
        patch, to_patch = level_patch(half, quarter, quad)
        inside = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), to_patch).reshape(4, 2)
        assert np.abs(inside - SQUARE).max() < 1e-3  # the homography is from half-size pixels at either level
        assert patch[MARGIN + 4 : PATCH - MARGIN - 4, MARGIN + 4 : PATCH - MARGIN - 4].min() > 200  # the card inside
        assert patch[: MARGIN - 3].max() < 60  # the table around it
    assert drawn_from == [half.shape, quarter.shape]


class _Session:
    """What the spikes use of an onnxruntime session: ``get_inputs`` (one input, "x") and ``run``."""

    def get_inputs(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name="x")]


class _PerfectChecker(_Session):
    """A checker answering fixed rows (eight offsets, a card logit)."""

    def __init__(self, rows: list[np.ndarray]) -> None:
        self.rows = rows

    def run(self, _: None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        assert feed["x"].shape == (len(self.rows), 3, PATCH, PATCH)
        return [np.stack(self.rows).astype(np.float32)]


def test_the_checkers_answer_moves_each_outline_onto_its_card_at_either_level() -> None:
    truths = [
        clockwise(np.array([[100, 100], [140, 104], [136, 160], [96, 156]], np.float32)),  # from the half frame
        clockwise(np.array([[300, 60], [400, 70], [390, 210], [290, 200]], np.float32)),
    ]  # from the quarter
    half, quarter = pyramid(_table([t * 2 for t in truths]))
    guesses = [t + np.array([[3, -2], [5, 1], [-4, 2], [2, 6]], np.float32) for t in truths]
    rows = [
        np.append(true_offsets(t, level_patch(half, quarter, g)[1]), logit)
        for t, g, logit in zip(truths, guesses, (2.0, -3.0), strict=True)
    ]
    moved, probs = check(half, quarter, guesses, _PerfectChecker(rows))
    for truth, quad in zip(truths, moved, strict=True):
        shift = min(range(4), key=lambda k: float(np.abs(np.roll(quad, -k, axis=0) - truth).sum()))
        assert np.abs(np.roll(quad, -shift, axis=0) - truth).max() < 1e-3
    assert np.allclose(probs, [1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(3.0))])
    assert check(half, quarter, [], _PerfectChecker([]))[0] == []


def test_the_surer_of_two_outlines_on_one_card_is_kept_and_neighbours_are_not_merged() -> None:
    card = np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32)
    twin = card + 3  # a second peak on the same card
    neighbour = card + np.array([43, 0], np.float32)  # 3 px to its right
    kept = surest([card, twin, neighbour], np.array([0.8, 0.9, 0.6]), keep=0.5)
    assert [q.tolist() for q in kept] == [twin.tolist(), neighbour.tolist()]
    assert surest([card, neighbour], np.array([0.8, 0.4]), keep=0.5) == [card]


def test_off_every_asks_of_each_outline_whether_it_lies_off_every_kept_one() -> None:
    card = np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32)
    kept = [card, card + np.array([100, 0], np.float32)]
    quads = [
        card + 3,
        card + np.array([NEAR * 40 + 1, 0], np.float32),
        card + np.array([NEAR * 40 - 1, 0], np.float32),
        card + np.array([50, 0], np.float32),
        kept[1] + 2,
    ]
    assert off_every(quads, kept).tolist() == [False, True, False, True, False]
    assert off_every(quads, []).tolist() == [True] * 5  # nothing kept: every outline is off
    assert off_every([], kept).tolist() == []


def test_one_decoding_gives_each_outline_with_its_peak_and_clockwise_all_is_clockwise_for_each() -> None:
    cards = [
        np.array([[100, 80], [260, 96], [244, 320], [84, 304]], np.float32),
        np.array([[600, 300], [700, 300], [700, 440], [600, 440]], np.float32),
        np.array([[1000, 500], [1100, 420], [1180, 530], [1080, 610]], np.float32),
    ]
    answer = _perfect_answer([c / 4 for c in cards])
    heat = answer[0]
    ys, xs = np.nonzero(heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))  # each card's centre cell
    ys, xs = ys[heat[ys, xs] > 0], xs[heat[ys, xs] > 0]
    assert len(ys) == 3
    answer[0] = -10.0
    answer[0, ys, xs] = [2.0, 0.0, -1.0]  # peaks of 0.88, 0.5 and 0.27
    corners, peaks = peak_corners(answer, threshold=0.2)
    quads = [order_corners(q) for q in corners]
    assert np.allclose(sorted(peaks), sorted(1 / (1 + np.exp(-np.array([2.0, 0.0, -1.0])))))
    for least in (0.2, 0.4, 0.6, 0.95):  # one decoding at the lowest least peak serves every higher one
        assert [q.tolist() for q, p in zip(quads, peaks, strict=True) if p >= least] == [
            order_corners(q).tolist() for q in peak_corners(answer, threshold=least)[0]
        ]
    turned = np.roll(corners, 1, axis=1)[:, ::-1]  # another start, and the other way round
    assert np.array_equal(clockwise_all(turned), np.stack([clockwise(q) for q in turned]))
    assert np.array_equal(clockwise_all(turned), clockwise_all(corners))
