"""The plain-text pictures of a deal (layout, hands, captures, scores) and the demo's option errors."""

from __future__ import annotations

import pytest

from table import cli
from table.cards import shuffled, standard_pack
from table.chinese_ten import ChineseTenState, rules_by_name
from table.chinese_ten.bots import make_bots, play_out
from table.chinese_ten.render import render_move, render_outcome, render_state


def test_render_state_shows_layout_stock_hands_and_captures() -> None:
    state = ChineseTenState.from_deck(rules_by_name("pagat"), shuffled(standard_pack(), 3), players=3)
    text = render_state(state)
    assert text.startswith("layout: " + " ".join(str(c) for c in state.layout))
    assert f"stock:  {state.stock_left} cards" in text
    for seat in range(3):
        assert " ".join(str(c) for c in state.hand(seat) or ()) in text
    hidden = render_state(state, show_hands=False)
    assert hidden.count("hand: 8 cards") == 3  # hands hidden: only their sizes


def test_render_move_and_outcome_agree_with_the_scores() -> None:
    state = ChineseTenState.from_deck(rules_by_name("pagat"), shuffled(standard_pack(), 11), players=3)
    outcome = play_out(state, make_bots(["greedy"] * 3, 11))
    assert outcome is not None
    text = render_outcome(outcome)
    for s in outcome.seats:
        assert f"{s.seat:>4}  {s.points:>6}" in text
    capture = next(m for m in state.history if m.take)
    assert "points)" in render_move(capture, state)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rules", "taiwan"], "unknown Chinese Ten rule set"),
        (["--players", "5"], "not 5"),
        (["--rules", "g4a", "--players", "2"], "g4a rules are for 3 players, not 2"),
    ],
)
def test_demo_bad_options_exit_2_without_traceback(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str, tmp_path: object
) -> None:
    assert cli.main(["demo", *args, "--journal", f"{tmp_path}/j.db", "--fast"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
