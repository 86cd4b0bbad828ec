"""Rule tests, each named after the clause of the seeds / rules.md it checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from table.cards import Card, shuffled, standard_pack
from table.chinese_ten import ChineseTenState, Deal, Phase, rules_by_name
from table.errors import IllegalMoveError

if TYPE_CHECKING:
    from tests.table.chinese_ten.conftest import Helpers

C = Card.parse


# -- players, cards and deal (seed 000 "Players, Cards and Deal") ---------------------------------


@pytest.mark.parametrize("players, size", [(2, 12), (3, 8), (4, 6)])
def test_deal_24_over_n_cards_each_four_layout_rest_stock(players: int, size: int) -> None:
    deal = Deal.from_deck(shuffled(standard_pack(), 1), players=players, dealer=0)
    assert deal.hands is not None and deal.stock is not None
    assert [len(h) for h in deal.hands] == [size] * players
    assert len(deal.layout) == 4
    assert len(deal.stock) == 52 - 24 - 4
    assert sorted(c for h in deal.hands for c in h) == sorted(set(standard_pack()) - set(deal.layout) - set(deal.stock))


def test_deck_dealing_order_one_at_a_time_from_dealers_left() -> None:
    deck = standard_pack()
    deal = Deal.from_deck(deck, players=3, dealer=1)
    assert deal.hands is not None
    assert deal.hands[2][:2] == (deck[0], deck[3])  # seat 2 sits on the dealer's left
    assert deal.hands[0][0] == deck[1] and deal.hands[1][0] == deck[2]
    assert deal.layout == tuple(deck[24:28])
    assert deal.stock == tuple(deck[28:])


@pytest.mark.parametrize("players", [1, 5])
def test_chinese_ten_is_for_two_to_four_players(players: int) -> None:
    with pytest.raises(ValueError, match="2, 3 or 4"):
        Deal.from_deck(standard_pack(), players=players)


def test_option_players_allowed_g4a_is_for_three(ct: Helpers) -> None:
    with pytest.raises(ValueError, match="g4a rules are for 3 players, not 4"):
        ct.referee("2C 3D 4H 6S", players=4, rules="g4a")
    rs = rules_by_name("g4a", players=[3, 4])
    assert ChineseTenState(rs, players=4, layout=ct.cards("2C 3D 4H 6S")).players == 4


# -- seats and turn order (rules.md defaults) -------------------------------------------------


@pytest.mark.parametrize("players, dealer, first", [(2, 0, 1), (3, 2, 0), (4, 1, 2)])
def test_seat_left_of_dealer_plays_first(ct: Helpers, players: int, dealer: int, first: int) -> None:
    state = ct.referee("2C 3D 4H 6S", players=players, dealer=dealer)
    assert state.to_act == first and state.phase is Phase.PLAY


def test_option_dealer_plays_first(ct: Helpers) -> None:
    state = ct.referee("2C 3D 4H 6S", players=3, dealer=2, dealer_plays_first=True)
    assert state.to_act == 2


def test_turn_is_play_then_flip_then_passes_left(ct: Helpers) -> None:
    state = ct.referee("2C 3D 4H 6S", players=3, dealer=0)
    state.play(1, "KH")
    assert state.phase is Phase.FLIP and state.to_act == 1
    state.flip("QS")
    assert (state.phase, state.to_act) == (Phase.PLAY, 2)
    state.play(2, "JD")
    state.flip("9C")
    assert state.to_act == 0
    state.play(0, "5D")
    state.flip("5H", "5D")
    assert state.to_act == 1  # 0 -> 1: seat i+1 sits on seat i's left


# -- capturing (seed 000 "Playing") -----------------------------------------------------------


@pytest.mark.parametrize(
    "played, taken",
    [
        ("AH", "9C"),
        ("9H", "AC"),
        ("3H", "7C"),
        ("7D", "3S"),
        ("5H", "5C"),
        ("2D", "8S"),
        ("8D", "2C"),
        ("4S", "6D"),
        ("6S", "4D"),
    ],
)
def test_numerals_capture_when_they_add_up_to_ten(ct: Helpers, played: str, taken: str) -> None:
    state = ct.referee(f"{taken} KC QC JC")
    move = state.play(1, played)
    assert move.take == (C(taken),)
    assert set(state.captured(1)) == {C(played), C(taken)}
    assert C(taken) not in state.layout


@pytest.mark.parametrize("rank", ["T", "J", "Q", "K"])
def test_tens_and_pictures_capture_only_the_same_rank(ct: Helpers, rank: str) -> None:
    state = ct.referee(f"{rank}C 2C 3C 4C")
    assert state.capture_options(f"{rank}H") == [C(f"{rank}C")]
    others = [r for r in "TJQK" if r != rank]
    assert all(state.capture_options(f"{r}H") == [] for r in others)
    state.play(1, f"{rank}H")
    assert state.captured(1) == (C(f"{rank}H"), C(f"{rank}C"))


def test_suits_do_not_matter_for_capture(ct: Helpers) -> None:
    state = ct.referee("3S TC QC JC")
    assert state.capture_options("7H") == [C("3S")]
    assert state.capture_options("7C") == [C("3S")]


def test_each_card_captures_only_one_card_seed_example_3_3_6_q(ct: Helpers) -> None:
    """Seed 000: layout 3-3-6-Q, a Seven takes only one Three; an Ace takes nothing (no 1+3+6)."""
    state = ct.referee("3C 3H 6D QS")
    assert state.capture_options("7S") == [C("3C"), C("3H")]
    assert state.takes("AS") == [()]
    with pytest.raises(IllegalMoveError, match="one card captures exactly one card"):
        state.play(1, "7S", ["3C", "3H"])
    state.play(1, "AS")
    assert state.layout == tuple(ct.cards("3C 3H 6D QS AS"))


def test_seed_example_layout_jh_ah_6c_2h(ct: Helpers) -> None:
    """Seed 000: a J, 9, 4 or 8 captures; J takes J, then a flipped 6S stays; a flipped 4 would take the 6."""
    state = ct.referee("JH AH 6C 2H")
    capturing = {r for r in "A23456789TJQK" if state.capture_options(f"{r}S")}
    assert capturing == {"J", "9", "4", "8"}
    state.play(1, "JS")
    assert state.captured(1) == (C("JS"), C("JH"))
    state.flip("6S")
    assert state.layout == tuple(ct.cards("AH 6C 2H 6S"))
    state.undo()
    state.flip("4D", "6C")
    assert state.layout == tuple(ct.cards("AH 2H"))


def test_the_player_chooses_which_candidate_is_taken(ct: Helpers) -> None:
    state = ct.referee("3C 3H 6D QS")
    state.play(1, "7S", "3H")  # the red three scores, the black one does not
    assert state.captured(1) == (C("7S"), C("3H"))
    assert state.layout == tuple(ct.cards("3C 6D QS"))


def test_the_flipper_chooses_which_candidate_is_taken(ct: Helpers) -> None:
    state = ct.referee("3C 3H 6D QS")
    state.play(1, "KD")
    state.flip("7S", "3H")
    assert state.captured(1) == (C("7S"), C("3H"))


def test_several_candidates_the_choice_must_be_named(ct: Helpers) -> None:
    state = ct.referee("3C 3H 6D QS")
    with pytest.raises(IllegalMoveError, match="seat 1 played 7S with 3C and 3H on the layout: say which one"):
        state.play(1, "7S")


def test_a_card_that_captures_nothing_joins_the_layout(ct: Helpers) -> None:
    state = ct.referee("2C 3D 4H 6S")
    move = state.play(1, "KH")
    assert move.take == () and state.layout[-1] == C("KH")


def test_capture_is_compulsory_by_default(ct: Helpers) -> None:
    state = ct.referee("2C 3C 4H 6S", players=3, dealer=1)
    with pytest.raises(IllegalMoveError) as info:
        state.play(2, "7H", [])
    assert info.value.reason == "seat 2 played 7H while 3C lay on the layout: capture is compulsory"
    assert not state.can_play(2, "7H", [])


def test_option_capture_not_compulsory_lets_a_played_card_join_the_layout(ct: Helpers) -> None:
    state = ct.referee("2C 3C 4H 6S", capture_compulsory=False)
    assert state.takes("7H") == [(C("3C"),), ()]
    state.play(1, "7H", [])
    assert C("7H") in state.layout and C("3C") in state.layout
    # an omitted take still captures when exactly one capture is possible
    state.flip("8D")
    state.play(0, "4S")
    assert state.captured(0) == (C("4S"), C("6S"))


def test_option_capture_not_compulsory_still_forces_flipped_cards(ct: Helpers) -> None:
    state = ct.referee("2C 3C 4H 6S", capture_compulsory=False)
    state.play(1, "KH")
    with pytest.raises(IllegalMoveError, match="capture is compulsory"):
        state.flip("7H", [])


def test_option_capture_not_compulsory_leftover_goes_to_last_capturer() -> None:
    rs = rules_by_name("pagat", capture_compulsory=False)
    # Seat 1 lays everything it can: leftovers are bound to appear in some seeds.
    found = False
    for seed in range(60):
        state = ChineseTenState.from_deck(rs, shuffled(standard_pack(), seed), players=2)
        while not state.over:
            if state.phase is Phase.PLAY:
                hand = state.hand(state.to_act)
                assert hand is not None
                state.play(state.to_act, hand[0], [] if state.to_act == 1 else state.takes(hand[0])[0])
            else:
                top = state.stock_top
                assert top is not None
                state.flip(top, state.takes(top)[0])
        outcome = state.outcome
        assert outcome is not None
        assert sum(len(s.captured) for s in outcome.seats) == 52
        if outcome.leftover:
            found = True
            last = max(i for i, m in enumerate(state.history) if m.take)
            taker = state.history[last].seat
            assert set(outcome.leftover) <= set(outcome.seats[taker].captured)
    assert found


def test_a_take_that_does_not_add_up_to_ten_is_refused(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    with pytest.raises(
        IllegalMoveError, match=r"seat 1 played 7H to take 4D: a 7 takes a 3 \(numerals add up to ten\)"
    ):
        state.play(1, "7H", "4D")
    with pytest.raises(IllegalMoveError, match="a king takes only a king"):
        state.play(1, "KH", "QH")
    with pytest.raises(IllegalMoveError, match="5D is not on the layout"):
        state.play(1, "5H", "5D")


# -- three or four of a kind in the first layout (seed 000 redeal; seeds 001/003 special captures) --


@pytest.mark.parametrize("rank", ["K", "Q", "J", "T", "5"])
def test_special_capture_fourth_card_from_hand_takes_all_three(ct: Helpers, rank: str) -> None:
    state = ct.referee(f"{rank}C {rank}D {rank}H 2S")
    assert state.is_special_capture(f"{rank}S")
    assert state.takes(f"{rank}S") == [tuple(ct.cards(f"{rank}C {rank}D {rank}H"))]
    move = state.play(1, f"{rank}S")  # take left out: the only possible take
    assert set(move.take) == set(ct.cards(f"{rank}C {rank}D {rank}H"))
    assert state.layout == (C("2S"),)
    assert len(state.captured(1)) == 4


def test_special_capture_fourth_card_from_the_stock_takes_all_three(ct: Helpers) -> None:
    state = ct.referee("JC JD JH 2S")
    state.play(1, "4C")
    move = state.flip("JS", ["JH", "JC", "JD"])
    assert set(move.take) == set(ct.cards("JC JD JH"))
    assert state.layout == tuple(ct.cards("2S 4C"))


def test_special_capture_takes_all_three_not_one(ct: Helpers) -> None:
    state = ct.referee("QC QD QH 2S")
    with pytest.raises(IllegalMoveError, match="the fourth queen: it takes all three queens QC QD QH"):
        state.play(1, "QS", "QC")


def test_special_capture_does_not_apply_to_other_numerals(ct: Helpers) -> None:
    state = ct.referee("3C 3D 3H 2S")
    assert not state.is_special_capture("7S")
    assert len(state.takes("7S")) == 3
    state.play(1, "7S", "3D")
    assert state.layout == tuple(ct.cards("3C 3H 2S"))


@pytest.mark.parametrize("rank", ["K", "Q", "J", "T", "5"])
def test_four_of_a_kind_in_the_first_layout_go_to_the_dealer(ct: Helpers, rank: str) -> None:
    layout = f"{rank}C {rank}D {rank}H {rank}S"
    state = ct.referee(layout, players=3, dealer=2)
    assert state.layout == ()
    assert set(state.captured(2)) == set(ct.cards(layout))
    assert state.opening_capture == tuple(ct.cards(layout))
    assert state.phase is Phase.PLAY and state.to_act == 0


@pytest.mark.parametrize("layout", ["KC KD KH 2S", "TC TD TH TS", "5C 5D 5H 9S"])
def test_option_redeal_three_or_four_of_a_kind_deal_again(ct: Helpers, layout: str) -> None:
    state = ct.referee(layout, initial_triple="redeal")
    assert state.phase is Phase.REDEAL and state.redeal_needed
    assert "the same dealer gathers the cards and deals again" in state.redeal_reason
    assert not state.legal_moves
    with pytest.raises(IllegalMoveError, match="under the redeal rule"):
        state.play(1, "2C")


def test_redeal_rule_ignores_two_of_a_kind(ct: Helpers) -> None:
    state = ct.referee("KC KD 2H 2S", initial_triple="redeal")
    assert state.phase is Phase.PLAY


# -- the end (seed 000: "you should finish with no cards ... in the layout") ------------------


def test_game_over_when_hands_and_stock_are_empty_and_layout_is_empty_too() -> None:
    rs = rules_by_name("pagat")
    state = ChineseTenState.from_deck(rs, shuffled(standard_pack(), 5), players=4)
    while not state.over:
        move = next(iter(state.legal_moves))
        state.apply(move)
    assert state.layout == () and state.stock_left == 0
    assert all(state.hand(i) == () for i in range(4))
    outcome = state.outcome
    assert outcome is not None and outcome.leftover == ()
    with pytest.raises(IllegalMoveError, match="the deal is over"):
        state.play(0, "AS")


def test_option_capture_not_compulsory_applies_to_a_special_capture_too(ct: Helpers) -> None:
    state = ct.referee("KC KD KH 2S", capture_compulsory=False)
    assert state.takes("KS") == [tuple(ct.cards("KC KD KH")), ()]
    state.play(1, "KS", [])
    assert len(state.layout) == 5


def test_refusal_names_the_pairing_rule_with_articles(ct: Helpers) -> None:
    state = ct.referee("3C 4D QH 6S")
    with pytest.raises(IllegalMoveError, match=r"an ace takes a 9 \(numerals add up to ten\)"):
        state.play(1, "AH", "3C")
    with pytest.raises(IllegalMoveError, match=r"a 2 takes an 8"):
        state.play(1, "2H", "4D")
