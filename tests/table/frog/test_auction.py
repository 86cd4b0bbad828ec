"""Auction: one round from eldest, Frog < Chico < Grand, Frog's raise to Grand, all pass (seed 002)."""

from __future__ import annotations

import pytest

from table.errors import IllegalMoveError
from table.frog.rules import Contract, rule_set
from table.frog.state import FrogDeal, Phase

F, C, G = Contract.FROG, Contract.CHICO, Contract.GRAND


def hidden(rules: str = "foster-1909", players: int = 3, dealer: int = 0) -> FrogDeal:
    return FrogDeal(rule_set(rules), players=players, dealer=dealer)


def test_eldest_speaks_first_and_all_pass_is_no_game() -> None:
    deal = hidden(dealer=1)
    assert deal.to_act == 2
    for seat in (2, 0, 1):
        deal.bid(seat, None)
    assert deal.phase is Phase.PASSED and deal.over and deal.settlement is None and deal.contract is None


def test_out_of_turn_bid_names_the_seat_to_speak() -> None:
    deal = hidden()
    with pytest.raises(IllegalMoveError, match="seat 2 cannot bid now: it is seat 1's turn"):
        deal.bid(2, F)


def test_bid_must_be_higher() -> None:
    deal = hidden()
    deal.bid(1, C)
    with pytest.raises(IllegalMoveError, match="seat 2 cannot bid Frog: a bid must be higher than the standing Chico"):
        deal.bid(2, F)
    assert not deal.can_bid(2, C) and deal.can_bid(2, G) and deal.can_bid(2, None)
    assert deal.legal_bids(2) == [None, G]


def test_frog_overcalled_by_chico_may_raise_to_grand_at_once() -> None:
    deal = hidden()
    deal.bid(1, F)
    deal.bid(2, C)
    assert deal.to_act == 1 and deal.auction.raising and deal.legal_bids(1) == [None, G]
    assert not deal.can_bid(1, C)
    deal.raise_to_grand(1)
    # Grand cannot be overcalled: the auction closes without asking seat 0
    assert deal.phase is Phase.PLAY and deal.contract is G and deal.bidder == 1


def test_frog_bidder_who_declines_is_out_and_the_next_may_bid_grand() -> None:
    deal = hidden()
    deal.bid(1, F)
    deal.bid(2, C)
    deal.bid(1, None)
    assert deal.to_act == 0
    deal.bid(0, G)
    assert (deal.contract, deal.bidder) == (G, 0)


def test_chico_stands_when_everyone_else_passes() -> None:
    deal = hidden()
    deal.bid(1, F)
    deal.bid(2, C)
    deal.bid(1, None)
    deal.bid(0, None)
    assert (deal.contract, deal.bidder, deal.phase) == (C, 2, Phase.TRUMP)


def test_only_the_overcalled_frog_bidder_may_raise() -> None:
    deal = hidden()
    deal.bid(1, None)
    deal.bid(2, C)
    with pytest.raises(IllegalMoveError, match="only a Frog bidder just overcalled"):
        deal.raise_to_grand(0)
    deal.bid(0, None)
    assert deal.contract is C


def test_raise_window_allows_only_grand_or_pass() -> None:
    deal = hidden()
    deal.bid(1, F)
    deal.bid(2, C)
    with pytest.raises(IllegalMoveError, match="may only raise to Grand or pass"):
        deal.bid(1, F)


def test_grand_bid_first_closes_the_auction() -> None:
    deal = hidden()
    deal.bid(1, G)
    assert deal.phase is Phase.PLAY and deal.trump is not None and deal.trump.name == "HEARTS"
    with pytest.raises(IllegalMoveError, match="auction is over"):
        deal.bid(2, None)


def test_straight_solo_has_no_frog_bid_and_no_raise() -> None:
    deal = hidden("straight-solo")
    with pytest.raises(IllegalMoveError, match="has no such contract"):
        deal.bid(1, F)
    deal.bid(1, C)
    deal.bid(2, None)
    assert deal.to_act == 0 and not deal.auction.raising


def test_solo_slough_names_in_messages() -> None:
    deal = hidden("solo-slough", players=6)
    deal.bid(1, G)
    assert deal.contract is G and deal.rules.name_of(G) == "Heart Solo"


def test_chico_bidder_names_trump_not_hearts() -> None:
    """The bidder may not play a higher contract than the one that won: no hearts in a Chico."""
    deal = hidden()
    deal.bid(1, C)
    deal.bid(2, None)
    deal.bid(0, None)
    from table.cards import Suit

    with pytest.raises(IllegalMoveError, match="hearts would be a Grand"):
        deal.name_trump(1, Suit.HEARTS)
    with pytest.raises(IllegalMoveError, match="seat 1 is the bidder"):
        deal.name_trump(2, Suit.SPADES)
    assert deal.can_trump(1, Suit.DIAMONDS)
    deal.name_trump(1, Suit.SPADES)
    assert deal.trump is Suit.SPADES and deal.phase is Phase.PLAY and deal.to_act == 1
