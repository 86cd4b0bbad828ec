"""A session: dealer passes left, chips in a conserved ledger, Solo/Slough's bust rule."""

from __future__ import annotations

import pytest

from table.cards import Card, shuffled
from table.errors import IllegalMoveError
from table.frog.bots import HeuristicBot, play_deal
from table.frog.deal import deal_cards
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK
from table.frog.rules import Contract, rule_set


def test_all_pass_no_game_and_the_deal_passes_left() -> None:
    match = FrogMatch(rule_set("modern"), 4, first_dealer=3)
    deal = match.new_deal()
    assert deal.dealer == 3 and deal.active == (0, 1, 2)
    with pytest.raises(IllegalMoveError, match="finish the deal in progress"):
        match.new_deal()
    for seat in (0, 1, 2):
        deal.bid(seat, None)
    assert match.finish(deal) == []
    assert match.dealer == 0 and match.new_deal().active == (1, 2, 3)


def test_unfinished_deal_cannot_be_settled() -> None:
    match = FrogMatch(rule_set(), 3)
    deal = match.new_deal()
    with pytest.raises(IllegalMoveError, match="not over yet"):
        match.finish(deal)


def test_ledger_sums_to_zero_across_deals_with_sitting_out_players() -> None:
    match = FrogMatch(rule_set("foster-1909"), 5)
    for k in range(30):
        hands, widow = deal_cards(match.plan(), shuffled(FROG_PACK, k))
        deal = match.new_deal(hands=hands, widow=widow)
        play_deal(deal, {s: HeuristicBot(k + s) for s in deal.active})
        entries = match.finish(deal)
        assert all(e.deal == k + 1 for e in entries)
        assert match.ledger.total == 0
    assert match.dealer == 0 and len(match.deals) == 30
    assert sum(match.net(s) for s in range(5)) == 0
    assert any(match.net(s) != 0 for s in range(5))


def test_solo_slough_first_player_unable_to_pay_loses() -> None:
    """120 chips each; a lost Heart Solo with 0 pays 180 per player: the bidder cannot, and loses."""
    rules = rule_set("solo-slough")
    match = FrogMatch(rules, 3)
    assert [match.balance(s) for s in range(3)] == [120, 120, 120]
    deal = match.new_deal()
    deal.bid(1, Contract.GRAND)
    # hidden hands: everyone follows suit, seat 2 always wins; the unseen widow is 6H 7H 8H (0 points)
    tricks = ["6S AS 7S"] + [f"{a} {b} {low}" for suit in "SCDH" for a, b, low in _ranks(suit)]
    for trick in tricks:
        leader = deal.to_act
        seats = [1, 2, 0] if leader == 1 else [2, 0, 1]
        for seat, text in zip(seats, trick.split(), strict=True):
            deal.play(seat, Card.parse(text))
    assert deal.over and deal.points()[1] == 0 and not deal.revokes
    s = deal.settlement
    assert s is not None
    entries = match.finish(deal)
    assert match.over and match.loser == 1
    assert match.ledger.total == 360 and match.balance(1) == 0
    assert sum(e.amount for e in entries) == 120
    assert match.shortfalls and match.shortfalls[0][0] == 1
    with pytest.raises(IllegalMoveError, match="match is over: seat 1 could not pay"):
        match.new_deal()


def _ranks(suit: str) -> list[tuple[str, str, str]]:
    """Seat 2's winner, seat 0's card and the bidder's low card for the tricks of one suit."""
    table = {
        "S": ["T K 8", "Q J 9"],
        "C": ["A T 6", "K Q 7", "J 9 8"],
        "D": ["A T 6", "K Q 7", "J 9 8"],
        "H": ["A T 9", "K Q J"],
    }[suit]
    return [tuple(r + suit for r in row.split()) for row in table]  # type: ignore[misc]
