"""The state's protocol: verify / can / act, conflicts with what the camera saw, legal moves, undo, history."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from table.cards import Card, shuffled, standard_pack
from table.chinese_ten import ChineseTenState, Move, Phase, rules_by_name
from table.errors import CardConflictError, IllegalMoveError

if TYPE_CHECKING:
    from tests.table.chinese_ten.conftest import Helpers

C = Card.parse


def snapshot(state: ChineseTenState) -> tuple[object, ...]:
    return (
        state.phase,
        state.to_act,
        state.layout,
        state.scores,
        state.stock_left,
        state.history,
        tuple(state.hand(i) for i in range(state.players)),
        tuple(state.captured(i) for i in range(state.players)),
        tuple(state.hand_count(i) for i in range(state.players)),
        tuple(state.is_seen(c) for c in standard_pack()),
    )


def test_verify_returns_the_take_and_changes_nothing(ct: Helpers) -> None:
    state = ct.known("3C 4D QH 6S", {1: "7H KD"})
    before = snapshot(state)
    assert state.verify_play(1, "7H") == (C("3C"),)
    assert state.can_play(1, C("7H"))
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: s.play(0, "7H"), "seat 0 played 7H out of turn: it is seat 1's turn to play"),
        (lambda s: s.play(1, "2C"), "seat 1 played 2C but does not hold it (2C is in seat 0's hand)"),
        (lambda s: s.play(1, "QH"), "seat 1 played QH but does not hold it (QH is on the layout)"),
        (lambda s: s.flip(), "seat 1 flipped a card but seat 1 must play a card from hand first"),
        (lambda s: s.play(1, "7H", "4D"), "seat 1 played 7H to take 4D: a 7 takes a 3"),
    ],
)
def test_refusals_name_seat_cards_and_rule_and_leave_the_state_alone(
    ct: Helpers, call: Callable[[ChineseTenState], object], message: str
) -> None:
    state = ct.known("3C 4D QH 6S", {0: "2C", 1: "7H KD"})
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as info:
        call(state)
    assert info.value.reason.startswith(message)
    assert snapshot(state) == before


def test_known_stock_flip_must_be_the_top_card(ct: Helpers) -> None:
    state = ct.known("3C 4D QH 6S", {1: "KD"}, stock="9S 8S")
    state.play(1, "KD")
    assert state.stock_top == C("9S")
    before = snapshot(state)
    with pytest.raises(CardConflictError, match="seat 1 flipped 8S, but the top stock card is 9S"):
        state.flip("8S")
    assert snapshot(state) == before
    assert state.flip().card == C("9S")  # with a known stock the card may be left out


def test_unknown_stock_flip_takes_the_card_from_outside(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    state.play(1, "KD")
    with pytest.raises(IllegalMoveError, match="say which card"):
        state.flip()
    before = snapshot(state)
    with pytest.raises(CardConflictError) as info:
        state.flip("QH")
    assert info.value.card == C("QH")
    assert info.value.reason == "seat 1 flipped QH, but QH is already on the layout"
    with pytest.raises(CardConflictError, match="KD is already on the layout"):
        state.flip("KD")
    assert snapshot(state) == before
    state.flip("7C", "3C")
    assert state.captured(1) == (C("7C"), C("3C"))


def test_known_hands_unknown_stock_a_flip_from_someones_hand_conflicts() -> None:
    rs = rules_by_name("pagat")
    deck = standard_pack()
    state = ChineseTenState(rs, players=2, layout=deck[24:28], hands=[deck[0:12], deck[12:24]])
    state.play(1, state.hand(1)[0])  # type: ignore[index]
    with pytest.raises(CardConflictError, match="already in seat 0's hand"):
        state.flip(deck[0])


def test_hidden_hands_accept_any_unseen_card_and_reject_seen_ones(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S", players=3)
    assert state.hand(1) is None and state.hand_count(1) == 8
    state.play(1, "AS")
    assert state.hand_count(1) == 7
    state.flip("9C")
    with pytest.raises(CardConflictError, match="seat 2 played AS, but AS is already among seat 1's captures"):
        state.play(2, "AS")
    with pytest.raises(CardConflictError, match="QH is already on the layout"):
        state.play(2, "QH")
    state.play(2, "QS")
    assert state.captured(2) == (C("QS"), C("QH"))


def test_a_card_dealt_twice_is_a_conflict() -> None:
    rs = rules_by_name("pagat")
    deck = standard_pack()
    with pytest.raises(CardConflictError, match="is dealt twice: in the layout and in seat 0's hand"):
        ChineseTenState(rs, players=2, layout=deck[0:4], hands=[deck[0:12], deck[12:24]])


def test_wrong_sizes_are_config_errors() -> None:
    rs = rules_by_name("pagat")
    with pytest.raises(ValueError, match="the layout must hold 4 cards, not 3"):
        ChineseTenState(rs, players=2, layout=standard_pack()[:3])
    with pytest.raises(ValueError, match="seat 1's hand must hold 12 cards, not 11"):
        ChineseTenState(
            rs, players=2, layout=standard_pack()[:4], hands=[standard_pack()[4:16], standard_pack()[16:27]]
        )


def test_legal_moves_view_supports_in_len_bool_and_iteration(ct: Helpers) -> None:
    state = ct.known("3C 3H QH 6S", {1: "7H 7D KD 4C 5S AS 2S 8S 9S TS JS QS"})
    moves = state.legal_moves
    listed = list(moves)
    # 7H and 7D have two targets each, the other ten cards one way each (4C takes 6S, QS takes QH)
    assert len(moves) == 14 == len(listed)
    assert bool(moves)
    assert Move("play", 1, C("7H"), (C("3H"),)) in moves
    assert Move("play", 1, C("7H"), ()) not in moves  # capture is compulsory
    assert Move("play", 0, C("7H"), (C("3H"),)) not in moves
    assert "7H" not in moves
    state.play(1, "KD")
    assert state.stock_top is not None
    assert list(state.legal_moves) == [Move("flip", 1, state.stock_top, ())] or all(
        m.kind == "flip" for m in state.legal_moves
    )


def test_legal_moves_with_hidden_hands_list_every_unseen_card(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    cards = {m.card for m in state.legal_moves}
    assert len(cards) == 48


def test_undo_restores_the_state_exactly() -> None:
    rs = rules_by_name("pagat")
    state = ChineseTenState.from_deck(rs, shuffled(standard_pack(), 11), players=3)
    snapshots = [snapshot(state)]
    import random

    rng = random.Random(3)
    while not state.over:
        state.apply(rng.choice(list(state.legal_moves)))
        snapshots.append(snapshot(state))
    assert state.outcome is not None
    while state.history:
        snapshots.pop()
        state.undo()
        assert snapshot(state) == snapshots[-1]
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        state.undo()


def test_undo_in_referee_mode_forgets_the_seen_card(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    state.play(1, "7H", "3C")
    state.flip("2S")
    state.undo()
    state.undo()
    assert not state.is_seen("7H") and not state.is_seen("2S")
    assert state.layout == tuple(ct.cards("3C 4D QH 6S"))
    state.play(1, "7H", "3C")


def test_history_replays_the_game() -> None:
    rs = rules_by_name("g4a")
    deck = shuffled(standard_pack(), 4)
    state = ChineseTenState.from_deck(rs, deck, players=3, dealer=2)
    while not state.over:
        state.apply(list(state.legal_moves)[-1])
    again = ChineseTenState.from_deck(rs, deck, players=3, dealer=2)
    for move in state.history:
        again.apply(move)
    assert again.outcome == state.outcome
    with pytest.raises(AttributeError):
        state.history[0].seat = 2  # type: ignore[misc]


def test_outcome_only_when_over(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    assert state.outcome is None and not state.over
    assert "phase=play" in repr(state)


def test_move_record_json_form() -> None:
    assert Move("play", 1, C("7H"), (C("3C"),)).to_json() == {"seat": 1, "play": "7H", "take": "3C"}
    assert Move("flip", 1, C("5D")).to_json() == {"seat": 1, "flip": "5D"}
    special = Move("play", 0, C("JS"), (C("JC"), C("JD"), C("JH")))
    assert special.to_json()["take"] == ["JC", "JD", "JH"]
    assert Move("play", 1, C("7H")).to_json(explicit_empty_take=True)["take"] == []
    assert str(special) == "seat 0 plays JS and takes JC JD JH"


def test_special_capture_undo_restores_the_triple(ct: Helpers) -> None:
    state = ct.referee("KC 2D KH KD")
    before = snapshot(state)
    state.play(1, "KS")
    assert state.layout == (C("2D"),)
    state.undo()
    assert snapshot(state) == before
    assert state.phase is Phase.PLAY


def test_prompt_says_what_the_table_waits_for(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S", players=3, dealer=2)
    assert state.prompt == "seat 0: play a card from hand"
    state.play(0, "KD")
    assert state.prompt == "seat 0: flip the top stock card"
    assert "deals again" in ct.referee("KC KD KH 2S", initial_triple="redeal").prompt


def test_copy_is_independent(ct: Helpers) -> None:
    state = ct.known("3C 4D QH 6S", {1: "7H KD"})
    before = snapshot(state)
    trial = state.copy()
    trial.play(1, "7H")
    trial.flip()
    assert snapshot(state) == before
    assert trial.captured(1)[:2] == (C("7H"), C("3C"))
    trial.undo()
    trial.undo()
    assert snapshot(trial) == before
