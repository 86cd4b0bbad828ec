"""benchmarks/found_diff.py: the cards one detector setting finds and another does not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.found_diff import differences, main
from models.training.dataset import match
from models.training.evaluate import NORMAL
from models.training.synth import faces_deck, make_scene
from vision.detect import DEFAULT_CONFIG, detect_cards


def _frames(count: int) -> list[tuple[int, int, str, object]]:
    rng = np.random.default_rng(3)
    return [(3, n, "own", make_scene(rng, faces_deck(n), replace(NORMAL, n_cards=6))) for n in range(count)]


def test_a_setting_that_finds_nothing_lists_every_card_the_shipped_one_finds() -> None:
    """Side B with a card size floor no card reaches finds nothing: every card side A (shipped) matches is
    listed as found by A only, in order, and the counts agree with matching the outlines directly."""
    frames = _frames(3)
    blind = replace(DEFAULT_CONFIG, min_width=2000.0)
    result = differences(frames, DEFAULT_CONFIG, blind)
    diff, cards, found_a, found_b = result.diff, result.cards, result.found_a, result.found_b
    expected = [
        (n, label)
        for _, n, _, scene in frames
        for found in [detect_cards(scene.image)]  # type: ignore[attr-defined]
        for label, quad in scene.cards
        if match(quad, found) is not None
    ]  # type: ignore[attr-defined]
    assert cards == sum(len(scene.cards) for *_, scene in frames)  # type: ignore[attr-defined]
    assert found_b == 0 and found_a == len(expected) > 0
    assert [(d.scene, d.card) for d in diff] == expected
    assert {d.found_by for d in diff} == {"A"}
    swapped = differences(frames, blind, DEFAULT_CONFIG).diff
    assert [(d.scene, d.card, d.found_by) for d in swapped] == [(n, c, "B") for n, c in expected]
    assert result.false_b == 0  # no outline at all


def test_one_setting_against_itself_differs_nowhere() -> None:
    result = differences(_frames(2), DEFAULT_CONFIG, DEFAULT_CONFIG)
    assert result.diff == [] and result.found_a == result.found_b and result.cards > 0
    assert result.false_a == result.false_b


def test_outlines_that_match_no_card_are_counted_once_each() -> None:
    """``unmatched``: an outline no card matches counts (a false card, or a card's outline more than 12% off);
    a card's own outline does not; a second outline of a card already matched does (each card matches one)."""
    from benchmarks.found_diff import unmatched

    card = np.float32([[100, 100], [200, 100], [200, 240], [100, 240]])
    far = card + 300
    shifted = card + np.float32([30, 0])  # 30% of the width off: no match
    assert unmatched([card], [card]) == 0
    assert unmatched([card], [card, far]) == 1
    assert unmatched([card], [shifted]) == 1
    assert unmatched([card], [card, card.copy()]) == 1  # the card matches its first outline only
    assert unmatched([], [card]) == 1 and unmatched([card], []) == 0


def test_an_unknown_setting_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--detector", "no_such_field=1", "--seeds", "2024"])
    assert "no_such_field" in capsys.readouterr().err


def test_each_kind_of_held_out_scene_has_its_spec_and_seed() -> None:
    """``evaluate.kind_spec``, shared by evaluate, found_diff, missed_cards and bench_plane_from_cards: realistic
    scenes at the seed, hard ones at seed + 1; another kind is an error naming it."""
    from models.training.evaluate import kind_spec
    from models.training.synth import HARD

    assert kind_spec("realistic", 7) == (NORMAL, 7)
    assert kind_spec("hard", 7) == (HARD, 8)
    with pytest.raises(ValueError, match="'easy'"):
        kind_spec("easy", 7)
