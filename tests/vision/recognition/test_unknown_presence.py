"""``benchmarks/unknown_presence.py``: the outlines read ``unknown`` under each presence bar, false cards and
cards apart (the basis of the model's ``unknown_not_a_card``, models/README.md)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from benchmarks.unknown_presence import BARS, Outline, every_unknown, main, outlines_of, summary
from vision.events import UNKNOWN
from vision.recognizer import Recognition, Recognizer

# 100 px wide: an outline matches it within 12 px
CARD = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)


def _seen(card: str, corners: np.ndarray, presence: float) -> Recognition:
    return Recognition(card, 0.5, corners, np.zeros(53, np.float32), presence)


def test_each_reported_outline_is_judged_against_the_true_cards() -> None:
    """An outline near a true card matched it, whatever it was read; one far from every card is a false card.
    A true card no outline matched adds nothing."""
    truth = [("QH", CARD), ("2C", CARD + 300), ("5D", CARD + (0, 600))]  # the 5D is missed
    seen = [
        _seen("QH", CARD + 4, 1.0),
        _seen(UNKNOWN, CARD + 300, 0.7),
        _seen(UNKNOWN, CARD + (600, 0), 0.5),
        _seen("back", CARD + (900, 0), 0.95),
    ]
    assert outlines_of(truth, seen) == [
        Outline(True, False, 1.0),
        Outline(True, True, 0.7),
        Outline(False, True, 0.5),
        Outline(False, False, 0.95),
    ]
    assert outlines_of([], seen[:1]) == [Outline(False, False, 1.0)]
    assert outlines_of(truth, []) == []


def test_the_summary_counts_the_unknowns_under_each_bar_false_cards_and_cards_apart() -> None:
    """Only outlines read unknown are under a bar, strictly below it; a false card read a name counts among
    the false cards only."""
    rows = [
        Outline(False, True, 0.55),  # false, unknown: under every bar
        Outline(False, True, 0.72),  # false, unknown: under 0.75 on
        Outline(False, False, 0.3),  # false, read a name: no bar drops it
        Outline(True, True, 0.8),  # a card read unknown: under 0.85 on (not 0.8 itself)
        Outline(True, False, 0.1),
    ]  # a card named: never counted
    got: dict[str, Any] = summary(rows)
    assert (got["false_cards"], got["false_read_unknown"], got["cards_read_unknown"]) == (3, 2, 1)
    assert got["under_bar"] == {
        "0.6": {"false_cards": 1, "cards": 0},
        "0.7": {"false_cards": 1, "cards": 0},
        "0.75": {"false_cards": 2, "cards": 0},
        "0.8": {"false_cards": 2, "cards": 0},
        "0.85": {"false_cards": 2, "cards": 1},
        "0.9": {"false_cards": 2, "cards": 1},
    }
    assert summary([], bars=(0.5,))["under_bar"] == {"0.5": {"false_cards": 0, "cards": 0}}


def test_every_unknown_keeps_the_outlines_the_shipped_bar_drops() -> None:
    """An outline read unknown with a "none" output between ``unknown_not_a_card`` and ``not_a_card`` is
    dropped by the shipped recogniser and reported by the benchmark's."""
    shipped = Recognizer(threads=1, pip_look=False)
    between = (shipped.meta.unknown_not_a_card + shipped.meta.not_a_card) / 2
    assert shipped._dropped(UNKNOWN, between)
    rec = every_unknown(Recognizer(threads=1, pip_look=False))
    assert rec.meta.unknown_not_a_card == rec.meta.not_a_card == shipped.meta.not_a_card
    assert not rec._dropped(UNKNOWN, between) and rec._dropped(UNKNOWN, shipped.meta.not_a_card)


def test_a_tiny_run_agrees_with_validate_fonts_on_the_same_frames(capsys: pytest.CaptureFixture[str]) -> None:
    """Two styles of the validation set (968 has false cards and cards read unknown at seed 5): the false cards
    and the cards read unknown are those ``validate_fonts --detect`` counts on the same frames with the same
    recogniser, and the counts under the bars grow with the bar and stay within those read unknown."""
    from models.training.validate_fonts import validate_detection

    result = main(["--styles", "968-969", "--seed", "5"])
    assert result["command"] == "benchmarks/unknown_presence.py --styles 968-969 --seed 5" and result["styles"] == 2
    tallies = validate_detection(every_unknown(Recognizer()), (968, 969), 1, 5)
    kinds: dict[str, Any] = {k: result[k] for k in ("realistic", "hard")}
    for kind, got in kinds.items():
        assert got["false_cards"] == tallies[kind].false_cards
        assert got["cards_read_unknown"] == tallies[kind].unknown
        under = [got["under_bar"][str(bar)] for bar in BARS]
        for lower, higher in pairwise(under):
            assert lower["false_cards"] <= higher["false_cards"] and lower["cards"] <= higher["cards"]
        assert under[-1]["false_cards"] <= got["false_read_unknown"] <= got["false_cards"]
        assert under[-1]["cards"] <= got["cards_read_unknown"]
    assert sum(got["false_cards"] + got["cards_read_unknown"] for got in kinds.values()) > 0
    assert '"false_read_unknown"' in capsys.readouterr().out
