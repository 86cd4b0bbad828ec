"""benchmarks/keypoint_cascade.py: the checker's patches come from the level a card's size asks for, its lessons name
the
right card or none, and its answers are read back onto the frame, so what the spike measures is the network."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from benchmarks.keypoint_cascade import (
    FAR,
    HALF,
    NEAR,
    WIDEST_AT_HALF,
    _strays,
    check,
    label,
    level_patch,
    pyramid,
    surest,
)
from benchmarks.keypoint_spike import MARGIN, PATCH, SQUARE, clockwise, patch_of, true_offsets
from benchmarks.segmentation_spike import INPUT


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


def test_a_small_card_is_drawn_from_the_half_frame_and_a_large_one_from_the_quarter(monkeypatch) -> None:
    import vision.learned_outlines as learned

    small = np.float32([[100, 100], [140, 100], [140, 156], [100, 156]])  # 40 px wide at half size
    large = np.float32([[300, 60], [400, 60], [400, 200], [300, 200]])  # 100 px: over WIDEST_AT_HALF
    assert 40 <= WIDEST_AT_HALF < 100
    half, quarter = pyramid(_table([q * 2 for q in (small, large)]))
    drawn_from: list[tuple[int, ...]] = []
    monkeypatch.setattr(
        learned, "patch_of", lambda image, quad: (drawn_from.append(image.shape), patch_of(image, quad))[1]
    )
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
        clockwise(np.float32([[100, 100], [140, 104], [136, 160], [96, 156]])),  # from the half frame
        clockwise(np.float32([[300, 60], [400, 70], [390, 210], [290, 200]])),
    ]  # from the quarter
    half, quarter = pyramid(_table([t * 2 for t in truths]))
    guesses = [t + np.float32([[3, -2], [5, 1], [-4, 2], [2, 6]]) for t in truths]
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
    card = np.float32([[0, 0], [40, 0], [40, 56], [0, 56]])
    twin = card + 3  # a second peak on the same card
    neighbour = card + np.float32([43, 0])  # 3 px to its right
    kept = surest([card, twin, neighbour], np.array([0.8, 0.9, 0.6]), keep=0.5)
    assert [q.tolist() for q in kept] == [twin.tolist(), neighbour.tolist()]
    assert surest([card, neighbour], np.array([0.8, 0.4]), keep=0.5) == [card]


def test_off_every_asks_off_all_of_each_outline_at_once() -> None:
    from benchmarks.keypoint_cascade import off_all, off_every

    card = np.float32([[0, 0], [40, 0], [40, 56], [0, 56]])
    kept = [card, card + np.float32([100, 0])]
    quads = [
        card + 3,
        card + np.float32([NEAR * 40 + 1, 0]),
        card + np.float32([NEAR * 40 - 1, 0]),
        card + np.float32([50, 0]),
        kept[1] + 2,
    ]
    assert off_every(quads, kept).tolist() == [False, True, False, True, False]
    assert off_every(quads, kept).tolist() == [off_all(q, kept) for q in quads]
    assert off_every(quads, []).tolist() == [True] * 5  # nothing kept: every outline is off
    assert off_every([], kept).tolist() == []


def test_an_outline_learns_the_card_under_it_none_far_from_every_card_and_nothing_between() -> None:
    cards = [np.float32([[0, 0], [40, 0], [40, 56], [0, 56]]), np.float32([[100, 0], [140, 0], [140, 56], [100, 56]])]
    assert label(cards[1] + np.float32([NEAR * 40 - 1, 0]), cards) == 1
    assert label(cards[0] + np.float32([0, FAR * 40 + 1]), cards) == -1
    assert label(cards[0] + np.float32([0, (NEAR + FAR) / 2 * 40]), cards) is None
    assert label(cards[0], []) == -1  # a frame with no card


def test_strays_of_a_lone_card_are_lessons_in_no_card() -> None:
    card = clockwise(np.float32([[300, 150], [340, 150], [340, 206], [300, 206]]))
    rng = np.random.default_rng(5)
    for _ in range(20):
        strays = _strays([card], rng)
        assert len(strays) == 3
        moved = strays[0]
        assert label(moved, [card]) == -1  # moved 0.6-1.5 of its width: FAR or more from it
        assert np.allclose(
            sorted(np.linalg.norm(moved - moved.mean(axis=0), axis=1)),
            sorted(np.linalg.norm(card - card.mean(axis=0), axis=1)),
        )  # the card's own shape
    assert len(_strays([], rng)) == 2  # a frame with no card: two anywhere


class _FirstStage(_Session):
    """A first stage answering a fixed answer (9, H, W)."""

    def __init__(self, answer: np.ndarray) -> None:
        self.answer = answer

    def run(self, _: None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        assert feed["x"].shape == (1, 3, INPUT[1], INPUT[0])
        return [self.answer[None]]


class _PaperChecker(_Session):
    """A checker that leaves every outline where it is and says "card" where the patch's middle is paper."""

    def run(self, _: None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        middle = feed["x"][:, :, MARGIN + 4 : PATCH - MARGIN - 4, MARGIN + 4 : PATCH - MARGIN - 4].mean(axis=(1, 2, 3))
        rows = np.zeros((len(middle), 9), np.float32)
        rows[:, 8] = np.where(middle > 0.2, 4.0, -4.0)
        return [rows]


def test_a_weak_peak_off_the_cards_is_doubtful_unless_the_checker_sees_no_card_there() -> None:
    from benchmarks.keypoint_cascade import Cascade
    from benchmarks.keypoint_spike import targets

    card = np.float32([[400, 200], [500, 200], [500, 340], [400, 340]])  # full-resolution pixels
    stray = card + np.float32([500, 200])  # bare table
    heat, corners, _ = targets([card / 4])
    weak, weak_corners, _ = targets([stray / 4])
    heat = np.maximum(heat, 0.25 * weak)  # a peak of 0.25 there: under the threshold, over the doubt
    corners = np.where(weak[None] > 0.3, weak_corners, corners)
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    cascade = object.__new__(Cascade)
    cascade.first, cascade.checking = _FirstStage(np.concatenate([logits[None], corners])), _PaperChecker()
    cascade.threshold, cascade.keep, cascade.passes, cascade.doubt = 0.3, 0.5, 1, 0.2
    frame = _table([card])
    for check_doubts, doubtful in ((0.0, 1), (0.5, 0)):
        cascade.check_doubts = check_doubts
        found = cascade.detect(frame)
        assert len(found.kept) == 1 and np.abs(np.sort(found.kept[0], axis=0) - np.sort(card, axis=0)).max() < 3
        assert len(found.doubtful) == doubtful
    assert np.abs(found.half.astype(int) - pyramid(frame)[0]).max() == 0  # the pyramid comes with the detection
