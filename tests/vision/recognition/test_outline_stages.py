"""``benchmarks/outline_stages.py``: the nearest outline's error after each step of the detector, for the cards
it nearly finds (docs/performance.md quotes its counts)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import vision.detect as detect
from benchmarks.missed_cards import nearest_error
from benchmarks.outline_stages import STEPS, stage_errors
from models.training.evaluate import NORMAL
from models.training.synth import faces_deck, make_scene
from vision.detect import DEFAULT_CONFIG


def test_each_step_is_recorded_in_call_order_and_the_final_row_is_the_detectors_result() -> None:
    """On an own-drawn table every card has an outline from the first look on; the last row is
    ``detect_cards``' own result, scored as ``missed_cards`` scores it; the steps are restored afterwards."""
    scene = make_scene(np.random.default_rng(5), faces_deck(1), replace(NORMAL, n_cards=6))
    truths = [q for _, q in scene.cards]
    originals = {name: getattr(detect, name) for name, _ in STEPS}
    rows, final = stage_errors(scene.image, truths, DEFAULT_CONFIG)
    names = [name for name, _ in rows]
    assert names[0] == "resolve" and names[-1] == "final" and "snap_to_edges" in names
    assert set(names) <= {name for name, _ in STEPS} | {"final"}
    assert all(error is not None for error in rows[0][1])  # the first look outlines every card
    expected = [None if (e := nearest_error(t, final)) is None else e[0] for t in truths]
    assert rows[-1][1] == expected
    assert max(e for e in expected if e is not None) < 0.12  # all found: a near miss would be over 0.12
    assert {name: getattr(detect, name) for name, _ in STEPS} == originals
    assert detect.detect_cards(scene.image)[0].shape == (4, 2)


def test_a_step_that_moves_an_outline_shows_in_its_row() -> None:
    """With snapping off, the rows hold no snapping step, and every error equals the unsnapped outline's."""
    scene = make_scene(np.random.default_rng(6), faces_deck(2), replace(NORMAL, n_cards=4))
    truths = [q for _, q in scene.cards]
    rows, final = stage_errors(scene.image, truths, replace(DEFAULT_CONFIG, snap=False))
    assert "snap_to_edges" not in [name for name, _ in rows]
    snapped, _ = stage_errors(scene.image, truths, DEFAULT_CONFIG)
    assert "snap_to_edges" in [name for name, _ in snapped]
    assert snapped[-1][1] != rows[-1][1]  # snapping moved at least one final outline
