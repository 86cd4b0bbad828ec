"""benchmarks/sim_scenes.py: the simulated table's frames the outline networks learn from, with the truth of every card
the camera sees."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.sim_scenes import (
    SOURCES,
    deal,
    drop_covered,
    scenes_from,
    sim_scenes,
)
from models.training.evaluate import matched_outlines
from vision.detect import detect_cards
from vision.learned_outlines import DEFAULT_META
from vision.simtable import SimCamera, SimTable
from vision.zones import layout_for


def test_the_truth_corners_lie_where_the_card_is_drawn() -> None:
    """The shipped detector, knowing nothing of the truth, finds each card at the corners ``SimTable.card_corners``
    gives (the
    recognition benchmark's match: corners within 12% of the card's width)."""
    sim = SimTable(layout_for("chinese-ten", 2), seed=3, camera=SimCamera(tilt_deg=20, roll_deg=5))
    for k, card in enumerate(("7D", "KS", "AH")):
        sim.place(card, "layout", slot=2 * k, animate=False)
    frame = sim.render()
    truth = [(c.label, sim.card_corners(c).astype(np.float32)) for c in sim.visible()]
    assert len(truth) == 3
    assert all(i is not None for i in matched_outlines(truth, detect_cards(frame)))
    moved = [(label, q + 25.0) for label, q in truth]  # a card's width is about 80 px here
    assert all(i is None for i in matched_outlines(moved, detect_cards(frame)))


def test_a_card_half_under_another_is_taken_off_and_a_pile_is_not() -> None:
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


def test_sim_scenes_are_repeatable_and_their_cards_lie_in_the_frame() -> None:
    first = list(sim_scenes(7, 2, salt=1))
    again = list(sim_scenes(7, 2, salt=1))
    assert len(first) == 2
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.image, b.image)
        assert [label for label, _ in a.cards] == [label for label, _ in b.cards]
    for scene in first:
        height, width = scene.image.shape[:2]
        assert width * 9 == height * 16  # the networks read 16:9 frames
        for _, q in scene.cards:
            assert (q >= 0).all() and (q[:, 0] < width).all() and (q[:, 1] < height).all()


def test_a_deal_leaves_no_card_partly_covered() -> None:
    rng = np.random.default_rng(5)
    sim = SimTable(layout_for("frog", 5), seed=2)
    for _ in range(3):
        deal(sim, rng)
        tops = sim.visible()
        polygons = [sim.card_corners_mm(c).astype(np.float32) for c in tops]
        for i in range(len(tops)):
            for j in range(i + 1, len(tops)):
                assert cv2.intersectConvexConvex(polygons[i], polygons[j])[0] <= 1.0


def test_an_unknown_source_is_refused() -> None:
    assert SOURCES == ("synth", "sim")
    with pytest.raises(ValueError, match="unknown scene source 'table'"):
        scenes_from("table", 0, 1, 0)


def test_the_evaluation_counts_the_networks_cards_apart_from_the_shipped_detectors() -> None:
    from benchmarks.sim_scenes import evaluate

    learned = evaluate(DEFAULT_META, scenes=4, seed=9000)
    shipped = evaluate(DEFAULT_META, scenes=4, seed=9000, shipped=True)
    assert learned["cards"] == shipped["cards"] > 0  # the same frames
    assert 0 < learned["found_learned"] <= learned["found"] <= learned["cards"]
    assert shipped["found_learned"] == 0 and shipped["handed_on"] == 0 and shipped["meta"] == "shipped detector"
    assert shipped["found"] >= 0.8 * shipped["cards"]
