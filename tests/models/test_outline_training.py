"""The outline networks' training (models/training/outline_*.py): the targets a card is trained on read back as the
card, the lessons name the right card or none, and the whole chain, at a tiny scale, gives files the finder loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models.training.dataset import match_index
from models.training.outline_checker import FAR, label, rough, strays, true_offsets
from models.training.outline_first import targets
from models.training.outline_scenes import SOURCES, deal, drop_covered, scenes_from, seeds, sim_scenes
from models.training.outline_verifier import BAD, GOOD, corner_error, on_card, spoil
from vision.learned_outlines import CORNER_SCALE, NEAR, clockwise, patch_of, peak_corners
from vision.rectify import order_corners


def perfect_answer(quads: list[np.ndarray]) -> np.ndarray:
    """The answer a perfect first stage gives for these cards (input-scale corners): heatmap logits and corners."""
    heat, corners, _ = targets(quads)
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    return np.concatenate([logits[None], corners]).astype(np.float32)


def test_a_perfect_answer_to_the_targets_gives_back_each_card() -> None:
    cards = [
        np.array([[100, 80], [260, 96], [244, 320], [84, 304]], np.float32),  # turned a little
        np.array([[600, 300], [700, 300], [700, 440], [600, 440]], np.float32),  # upright, 100 px wide
        np.array([[706, 300], [806, 300], [806, 440], [706, 440]], np.float32),  # 6 px from the one before
        np.array([[1000, 500], [1100, 420], [1180, 530], [1080, 610]], np.float32),  # turned near 40 degrees
    ]
    found = [order_corners(q) for q in peak_corners(perfect_answer([c / 4 for c in cards]), 0.5)[0]]
    assert len(found) == len(cards)  # one peak a card, the two cards 6 px apart included
    for quad in cards:
        i = match_index(quad, found)
        assert i is not None
        assert np.abs(np.sort(found[i], axis=0) - np.sort(quad, axis=0)).max() < 1e-3


def test_corners_are_learned_clockwise_from_any_start_and_only_near_a_centre() -> None:
    quad = np.array([[40, 40], [40, 80], [70, 80], [70, 40]], np.float32)  # counter-clockwise on the screen
    ordered = clockwise(quad)
    heat, corners, weight = targets([quad])
    cy, cx = np.unravel_index(np.argmax(heat), heat.shape)
    assert (int(cx), int(cy)) == (13, 15)  # the centre (55, 60) in its cell of 4 input pixels
    assert heat[cy, cx] == 1.0
    offsets = corners[:, cy, cx].reshape(4, 2) * CORNER_SCALE + [(cx + 0.5) * 4, (cy + 0.5) * 4]
    assert np.allclose(offsets, ordered)
    assert weight[0, 0] == 0.0 and weight[cy, cx] == 1.0  # far cells learn no corners


def test_the_checkers_wanted_offsets_move_a_rough_outline_onto_its_card() -> None:
    from vision.learned_outlines import from_patch

    image = np.zeros((180, 320, 3), np.uint8)
    rng = np.random.default_rng(3)
    for truth in (
        clockwise(np.array([[40, 40], [70, 42], [68, 84], [38, 82]], np.float32)),
        clockwise(np.array([[200, 100], [240, 80], [262, 118], [222, 140]], np.float32)),
    ):
        guess = rough(truth, rng)
        assert np.abs(guess - truth).max() > 1.0  # it starts off the card
        to_patch = patch_of(image, guess)[1]
        moved = from_patch(to_patch, true_offsets(truth, to_patch))
        shift = min(range(4), key=lambda k: float(np.abs(np.roll(moved, -k, axis=0) - truth).sum()))
        assert np.abs(np.roll(moved, -shift, axis=0) - truth).max() < 1e-3


def test_an_outline_learns_the_card_under_it_none_far_from_every_card_and_nothing_between() -> None:
    cards = [
        np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32),
        np.array([[100, 0], [140, 0], [140, 56], [100, 56]], np.float32),
    ]
    assert label(cards[1] + np.array([NEAR * 40 - 1, 0], np.float32), cards) == 1
    assert label(cards[0] + np.array([0, FAR * 40 + 1], np.float32), cards) == -1
    assert label(cards[0] + np.array([0, (NEAR + FAR) / 2 * 40], np.float32), cards) is None
    assert label(cards[0], []) == -1  # a frame with no card


def test_strays_of_a_lone_card_are_lessons_in_no_card() -> None:
    card = clockwise(np.array([[300, 150], [340, 150], [340, 206], [300, 206]], np.float32))
    rng = np.random.default_rng(5)
    for _ in range(20):
        moved, *anywhere = strays([card], rng)
        assert len(anywhere) == 2
        assert label(moved, [card]) == -1  # moved 0.6-1.5 of its width: FAR or more from it
        assert np.allclose(
            sorted(np.linalg.norm(moved - moved.mean(axis=0), axis=1)),
            sorted(np.linalg.norm(card - card.mean(axis=0), axis=1)),
        )  # the card's own shape
    assert len(strays([], rng)) == 2  # a frame with no card: two anywhere


CARD = clockwise(np.array([[100, 100], [160, 110], [150, 194], [90, 184]], np.float32))  # turned, 61 px wide


def test_every_spoiled_outline_is_a_lesson_in_off() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        assert on_card(spoil(CARD, rng), [CARD]) == 0.0


def test_an_outline_on_its_card_is_on_one_near_it_teaches_nothing_and_one_on_no_card_is_off() -> None:
    assert on_card(CARD, [CARD]) == 1.0
    assert on_card(np.roll(CARD, 1, axis=0), [CARD]) == 1.0  # any corner order
    width = 61.0
    nudged = CARD + np.array([[GOOD * width * 0.8, 0], [0, 0], [0, 0], [0, 0]], np.float32)
    between = CARD + np.array([[(GOOD + BAD) / 2 * width, 0], [0, 0], [0, 0], [0, 0]], np.float32)
    assert on_card(nudged, [CARD]) == 1.0
    assert on_card(between, [CARD]) is None
    assert on_card(between, [CARD], good=(GOOD + BAD) / 2 + 0.01) == 1.0  # a looser "on" takes it in
    assert on_card(CARD + 400, [CARD]) == 0.0  # on the table
    assert on_card(CARD, []) == 0.0  # a frame with no card
    other = CARD + np.array([300, 0], np.float32)
    assert on_card(other, [CARD, other]) == 1.0  # judged against the card under it


def test_a_corner_error_is_the_farthest_corner_of_the_nearest_outline_over_the_cards_width() -> None:
    truth = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)  # 100 px wide
    assert corner_error(truth, [np.roll(truth, 1, axis=0)]) == 0.0  # any corner order
    moved = truth + np.array([[0, 0], [10, 0], [0, 0], [0, 0]], np.float32)
    assert abs((corner_error(truth, [truth + 300, moved]) or 0.0) - 0.1) < 1e-6  # the outline nearest the card
    assert corner_error(truth, [truth + 40]) is None  # its centre 0.57 widths off: not on the card
    assert corner_error(truth, []) is None


def test_the_simulated_tables_truth_corners_lie_where_the_card_is_drawn() -> None:
    """The shipped detector, knowing nothing of the truth, finds each card at the corners the simulator gives (the
    recognition benchmark's match: corners within 12% of the card's width)."""
    from models.training.evaluate import matched_outlines
    from vision.detect import detect_cards
    from vision.simtable import SimCamera, SimTable
    from vision.zones import layout_for

    sim = SimTable(layout_for("chinese-ten", 2), seed=3, camera=SimCamera(tilt_deg=20, roll_deg=5))
    for k, card in enumerate(("7D", "KS", "AH")):
        sim.place(card, "layout", slot=2 * k, animate=False)
    frame = sim.render()
    truth = [(c.label, sim.card_corners(c).astype(np.float32)) for c in sim.visible()]
    assert len(truth) == 3
    assert all(i is not None for i in matched_outlines(truth, detect_cards(frame)))
    moved = [(name, q + 25.0) for name, q in truth]  # a card's width is about 80 px here
    assert all(i is None for i in matched_outlines(moved, detect_cards(frame)))


def test_a_card_half_under_another_is_taken_off_and_a_pile_is_not() -> None:
    from vision.simtable import SimTable
    from vision.zones import layout_for

    sim = SimTable(layout_for("chinese-ten", 2), seed=1)
    low = sim.place("2C", "layout", slot=0, animate=False)
    high = sim.place("3C", "layout", slot=1, animate=False)
    sim.cards[high].x = sim.cards[low].x + 0.5 * sim.layout.card_mm[0]  # half over the 2C
    sim.cards[high].y = sim.cards[low].y
    under = sim.place("4C", "capture:1", animate=False)
    top = sim.place("5C", "capture:1", animate=False)  # a pile: one spot
    drop_covered(sim)
    assert set(sim.cards) == {high, under, top}
    assert {c.id for c in sim.visible()} == {high, top}


def test_a_deal_leaves_no_card_partly_covered() -> None:
    from vision.simtable import SimTable
    from vision.zones import layout_for

    rng = np.random.default_rng(5)
    sim = SimTable(layout_for("frog", 5), seed=2)
    for _ in range(3):
        deal(sim, rng)
        tops = sim.visible()
        polygons = [sim.card_corners_mm(c).astype(np.float32) for c in tops]
        for i in range(len(tops)):
            for j in range(i + 1, len(tops)):
                assert cv2.intersectConvexConvex(polygons[i], polygons[j])[0] <= 1.0


def test_sim_scenes_are_repeatable_and_their_cards_lie_in_the_frame() -> None:
    first = list(sim_scenes(7, 1, salt=1))
    again = list(sim_scenes(7, 1, salt=1))
    assert len(first) == 1 and first[0].cards
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.image, b.image)
        assert [name for name, _ in a.cards] == [name for name, _ in b.cards]
    for scene in first:
        height, width = scene.image.shape[:2]
        assert width * 9 == height * 16  # the networks read 16:9 frames
        for _, q in scene.cards:
            assert (q >= 0).all() and (q[:, 0] < width).all() and (q[:, 1] < height).all()


def test_scenes_come_25_a_seed_and_an_unknown_source_is_refused() -> None:
    assert seeds(400, 3000) == [(seed, 25) for seed in range(400, 520)]
    assert seeds(7, 3) == [(7, 3)]  # a tiny run: the first scenes of one seed
    assert SOURCES == ("synth", "sim")
    with pytest.raises(ValueError, match="unknown scene source 'table'"):
        scenes_from("table", 0, 1, 0)


def test_the_whole_chain_at_a_tiny_scale_gives_networks_the_finder_loads(tmp_path: Path) -> None:
    """Scenes of the simulated table, the first stage, the checker's and the verifier's lessons and training, and
    the export, a few steps each: the files load in ``vision.learned_outlines`` and answer."""
    pytest.importorskip("torch", reason="the training needs torch: the train extra")
    pytest.importorskip("onnx", reason="the export needs onnx: the train extra")
    from models.training import outline_checker, outline_first, outline_nets, outline_verifier
    from models.training.outline_networks import Budget
    from models.training.outline_scenes import draw_scenes
    from vision.learned_outlines import OutlineNets

    drawn = draw_scenes(3, tmp_path / "scenes.npz", first=11, source="sim", workers=1)
    assert drawn["scenes"] == 3 and drawn["cards"] > 0
    few = Budget(minutes=5.0, steps=2)
    first = outline_first.train([tmp_path / "scenes.npz"], few, tmp_path / "first.pt")
    assert first.steps == 2 and first.examples == 3 and np.isfinite(first.loss_last_100)
    lessons = outline_checker.mine(first.model, 3, tmp_path / "kc.npz", 11, source="sim", workers=1)
    assert lessons["cards"] >= drawn["cards"]  # each card's rough outline at least
    assert lessons["no_card"] > 0  # the strays
    checker = outline_checker.train([tmp_path / "kc.npz"], few, tmp_path / "checker.pt")
    assert checker.steps == 2
    judged = outline_verifier.mine(first.model, checker.model, 3, tmp_path / "kv.npz", 11, source="sim", workers=1)
    assert judged["on"] > 0 and judged["off"] > 0  # nudged truths on, spoiled ones off
    verifier = outline_verifier.train([tmp_path / "kv.npz"], few, tmp_path / "verifier.pt", init=None)
    meta = outline_nets.export(first.model, checker.model, verifier.model, tmp_path / "models")
    assert meta["trained_from"] == {"first_stage": "first.pt", "checker": "checker.pt", "verifier": "verifier.pt"}
    nets = OutlineNets(tmp_path / "models" / "outline_nets.json")
    frame = np.full((720, 1280, 3), 60, np.uint8)
    assert nets.find(frame).snapped == []  # barely trained: its heatmap starts near 0 everywhere
    assert nets.trust(frame, [np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)]).shape == (1,)


def test_a_saved_network_goes_on_training_from_where_it_was(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the training needs torch: the train extra")
    from models.training.outline_networks import Budget, refine_net, train_patch_net
    from vision.learned_outlines import PATCH

    saved = refine_net(torch, 1)
    torch.save({"state": saved.state_dict()}, tmp_path / "saved.pt")

    def draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return rng.integers(0, 256, (4, PATCH, PATCH, 3), dtype=np.uint8), np.zeros(4, np.float32)

    def loss_of(y: Any, wanted: Any) -> Any:  # torch tensors (torch is untyped)
        return ((y[:, 0] - wanted) ** 2).mean()

    for init, same in ((tmp_path / "saved.pt", True), (None, False)):
        fresh = refine_net(torch, 1)  # other random weights
        trained = train_patch_net(
            torch, fresh, draw, loss_of, Budget(1.0, steps=3), tmp_path / "out.pt", seed=0, rate=0.0, init=init
        )
        assert trained.steps == 3
        weights = torch.load(tmp_path / "out.pt")["state"]
        # at a rate of nought (and the cosine's floor of 1e-5 a step) the weights stay near where they started
        assert all(torch.allclose(weights[name], p, atol=1e-3) for name, p in saved.named_parameters()) is same


def test_a_file_that_is_not_a_saved_network_is_refused_with_its_name(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the training needs torch: the train extra")
    from models.training.outline_networks import TrainingError, load_first_stage

    (tmp_path / "junk.pt").write_bytes(b"not a network")
    with pytest.raises(TrainingError, match="junk.pt: cannot read a saved network"):
        load_first_stage(torch, tmp_path / "junk.pt")
    torch.save({"state": {}}, tmp_path / "patch.pt")  # a patch network's file: no widths
    with pytest.raises(TrainingError, match="patch.pt: not a saved outline network"):
        load_first_stage(torch, tmp_path / "patch.pt")
