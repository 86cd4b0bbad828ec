"""benchmarks/keypoint_spike.py: the targets a card is trained on and the outline read back from them agree, so what
the spike measures is the network, not its drawing or reading of targets."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from benchmarks.keypoint_spike import (
    CORNER_SCALE,
    PATCH,
    clockwise,
    corner_error,
    final_error,
    on_edges,
    outlines,
    patch_of,
    refine,
    rough,
    targets,
    true_offsets,
)
from models.training.dataset import match_index


def _perfect_answer(quads: list[np.ndarray]) -> np.ndarray:
    """The answer a perfect network gives for these cards (input-scale corners): heatmap logits and corners."""
    heat, corners, _ = targets(quads)
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    return np.concatenate([logits[None], corners]).astype(np.float32)


def test_a_perfect_answer_gives_back_each_card_within_the_benchmarks_match() -> None:
    cards = [
        np.float32([[100, 80], [260, 96], [244, 320], [84, 304]]),  # turned a little
        np.float32([[600, 300], [700, 300], [700, 440], [600, 440]]),  # upright, 100 px wide
        np.float32([[706, 300], [806, 300], [806, 440], [706, 440]]),  # 6 px from the one before
        np.float32([[1000, 500], [1100, 420], [1180, 530], [1080, 610]]),
    ]  # turned near 40 degrees
    answer = _perfect_answer([c / 4 for c in cards])
    found = outlines(answer, threshold=0.5)
    assert len(found) == len(cards)  # one peak a card, the two cards 6 px apart included
    for quad in cards:
        i = match_index(quad, found)
        assert i is not None
        assert np.abs(np.sort(found[i], axis=0) - np.sort(quad, axis=0)).max() < 1e-3


def test_corners_are_learned_clockwise_from_any_start_and_only_near_a_centre() -> None:
    quad = np.float32([[40, 40], [40, 80], [70, 80], [70, 40]])  # counter-clockwise on the screen
    ordered = clockwise(quad)
    sides = [ordered[(k + 1) % 4] - ordered[k] for k in range(4)]
    turns = [sides[k][0] * sides[(k + 1) % 4][1] - sides[k][1] * sides[(k + 1) % 4][0] for k in range(4)]
    assert all(t > 0 for t in turns)  # y down: a clockwise turn has a positive cross product
    heat, corners, weight = targets([quad])
    cy, cx = np.unravel_index(np.argmax(heat), heat.shape)
    assert (cx, cy) == (13, 15)  # the centre (55, 60) in its cell of 4 input pixels
    assert heat[cy, cx] == 1.0
    offsets = corners[:, cy, cx].reshape(4, 2) * CORNER_SCALE + [(cx + 0.5) * 4, (cy + 0.5) * 4]
    assert np.allclose(offsets, ordered)
    assert weight[0, 0] == 0.0 and weight[cy, cx] == 1.0  # far cells learn no corners


class _PerfectRefiner:
    """An onnxruntime session's ``get_inputs``/``run`` answering, for each patch, the true corners' offsets."""

    def __init__(self, answers: list[np.ndarray]) -> None:
        self.answers = answers

    def get_inputs(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name="x")]

    def run(self, _: None, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        assert feed["x"].shape == (len(self.answers), 3, PATCH, PATCH)
        return [np.stack(self.answers)]


def test_a_perfect_refiner_moves_each_rough_outline_onto_its_card() -> None:
    image = np.zeros((180, 320, 3), np.uint8)
    truths = [
        clockwise(np.float32([[40, 40], [70, 42], [68, 84], [38, 82]])),
        clockwise(np.float32([[200, 100], [240, 80], [262, 118], [222, 140]])),
    ]
    rng = np.random.default_rng(3)
    guesses = [rough(t, rng) for t in truths]
    assert max(np.abs(g - t).max() for g, t in zip(guesses, truths, strict=True)) > 1.0  # they start off the cards
    answers = [true_offsets(t, patch_of(image, g)[1]) for t, g in zip(truths, guesses, strict=True)]
    moved = refine(image, guesses, _PerfectRefiner(answers))
    for truth, quad in zip(truths, moved, strict=True):
        shift = min(range(4), key=lambda k: float(np.abs(np.roll(quad, -k, axis=0) - truth).sum()))
        assert np.abs(np.roll(quad, -shift, axis=0) - truth).max() < 1e-3


def test_an_outline_is_kept_only_where_its_sides_lie_on_edges() -> None:
    frame = np.full((720, 1280, 3), 60, np.uint8)
    cv2.rectangle(frame, (200, 200), (300, 340), (230, 230, 230), -1)  # a card: four straight edges
    cv2.circle(frame, (800, 400), 60, (230, 230, 230), -1)  # a coin: an outline around it touches it at four points
    card = np.float32([[200, 200], [300, 200], [300, 340], [200, 340]])
    coin = np.float32([[740, 340], [860, 340], [860, 460], [740, 460]])
    assert [q.tolist() for q in on_edges(frame, [card, coin], 0.6)] == [card.tolist()]
    assert len(on_edges(frame, [card, coin], 0.0)) == 2


def test_a_corner_error_is_the_farthest_corner_of_the_nearest_outline_over_the_cards_width() -> None:
    truth = np.float32([[100, 100], [200, 100], [200, 240], [100, 240]])  # 100 px wide
    assert corner_error(truth, [np.roll(truth, 1, axis=0)]) == 0.0  # any corner order
    moved = truth + np.float32([[0, 0], [10, 0], [0, 0], [0, 0]])
    assert abs(corner_error(truth, [truth + 300, moved]) - 0.1) < 1e-6  # the outline nearest the card counts
    assert corner_error(truth, [truth + 40]) is None  # its centre 0.57 widths off: not located
    assert corner_error(truth, []) is None
    assert final_error(truth, [truth + 40]) == 1.0  # lost: a card's width off
    assert final_error(truth, [np.roll(truth, 1, axis=0)]) == 0.0  # found exactly: not taken for lost


def test_one_decoding_gives_each_outline_with_its_peak_and_clockwise_all_is_clockwise_for_each() -> None:
    from benchmarks.keypoint_spike import clockwise_all, peak_corners
    from vision.rectify import order_corners

    cards = [
        np.float32([[100, 80], [260, 96], [244, 320], [84, 304]]),
        np.float32([[600, 300], [700, 300], [700, 440], [600, 440]]),
        np.float32([[1000, 500], [1100, 420], [1180, 530], [1080, 610]]),
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
            q.tolist() for q in outlines(answer, threshold=least)
        ]
    turned = np.roll(corners, 1, axis=1)[:, ::-1]  # another start, and the other way round
    assert np.array_equal(clockwise_all(turned), np.stack([clockwise(q) for q in turned]))
    assert np.array_equal(clockwise_all(turned), clockwise_all(corners))


def test_a_patch_network_goes_on_from_a_saved_state(tmp_path) -> None:
    import pytest

    torch = pytest.importorskip("torch")
    from benchmarks.keypoint_spike import _nets, train_patch_net

    saved = _nets(torch)["RefineNet"](outputs=1)
    torch.save({"state": saved.state_dict()}, tmp_path / "saved.pt")

    def draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return rng.integers(0, 256, (4, PATCH, PATCH, 3), dtype=np.uint8), np.zeros(4, np.float32)

    def loss_of(y, wanted):  # type: ignore[no-untyped-def]
        return ((y[:, 0] - wanted) ** 2).mean()

    for init, same in ((tmp_path / "saved.pt", True), (None, False)):
        fresh = _nets(torch)["RefineNet"](outputs=1)  # other random weights
        trained = train_patch_net(torch, fresh, draw, loss_of, 0.005, tmp_path / "out.pt", seed=0, rate=0.0, init=init)
        assert trained["steps"] > 0
        weights = torch.load(tmp_path / "out.pt")["state"]
        # at a rate of nought (and the cosine's floor of 1e-5 a step) the weights stay near where they started:
        # the saved ones, or the fresh ones
        assert all(torch.allclose(weights[name], p, atol=1e-3) for name, p in saved.named_parameters()) is same
