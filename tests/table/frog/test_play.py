"""Trick play with known hands: follow suit; if unable, trump; else any card; no duty to head."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table.cards import Card, parse_cards
from table.errors import CardConflictError, IllegalMoveError
from table.frog.play import legal_plays, trick_winner
from table.frog.rules import Contract
from table.frog.state import FrogDeal, Phase

MakeDeal = Callable[..., FrogDeal]

# Seat 1 (eldest) no diamonds; seat 2 void in spades and clubs; seat 0 no diamonds.
VOIDS = {
    1: "AH TH KH QH AS TS KS QS AC TC KC",
    2: "JH 9H AD TD KD QD JD 9D 8D 7D 6D",
    0: "8H JS 9S 8S 7S 6S QC JC 9C 8C 7C",
}
VOID_WIDOW = "7H 6H 6C"


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def grand_by_seat_1(deal_from: MakeDeal) -> FrogDeal:
    deal = deal_from(VOIDS, VOID_WIDOW)
    deal.bid(1, Contract.GRAND)
    return deal


def test_eldest_leads_any_card(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    assert deal.to_act == 1 and sorted(deal.legal_plays(1) or []) == sorted(cards(VOIDS[1]))


def test_void_in_led_suit_must_trump(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    deal.play(1, Card.parse("AS"))
    assert sorted(deal.legal_plays(2) or []) == sorted(cards("JH 9H"))
    with pytest.raises(IllegalMoveError, match=r"seat 2 cannot play AD: cannot follow spades so must trump \(hearts\)"):
        deal.play(2, Card.parse("AD"))
    assert not deal.can_play(2, Card.parse("AD"))


def test_must_follow_suit_even_when_holding_trumps(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    deal.play(1, Card.parse("AS"))
    deal.play(2, Card.parse("9H"))
    with pytest.raises(IllegalMoveError, match=r"seat 0 cannot play 8H: must follow suit \(spades\) and holds JS"):
        deal.play(0, Card.parse("8H"))


def test_no_duty_to_head_and_trump_wins(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    deal.play(1, Card.parse("AS"))
    assert deal.winning == (1, Card.parse("AS"))
    deal.play(2, Card.parse("9H"))
    assert deal.winning == (2, Card.parse("9H"))
    trick = deal.play(0, Card.parse("6S"))  # a low spade, though JS could not win anyway
    assert trick is not None and trick.winner == 2 and trick.points == 11 and trick.number == 1
    assert deal.to_act == 2 and deal.trick_points[2] == 11


def test_trumping_need_not_overtrump_and_void_in_both_plays_anything(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    for seat, card in [
        (1, "AS"),
        (2, "9H"),
        (0, "6S"),  # seat 2 wins, leads
        (2, "AD"),
        (0, "8H"),
        (1, "QH"),  # seat 0 must trump with its only heart
        (1, "TS"),
        (2, "JH"),
        (0, "7S"),
    ]:  # seat 2 trumps again and wins
        deal.play(seat, Card.parse(card))
    assert [t.winner for t in deal.tricks] == [2, 1, 2]
    deal.play(2, Card.parse("KD"))
    # seat 0: no diamonds, no hearts left: any card
    assert sorted(deal.legal_plays(0) or []) == sorted(cards("JS 9S 8S QC JC 9C 8C 7C"))
    deal.play(0, Card.parse("QC"))
    # seat 1: no diamonds, hearts left: must trump, but not necessarily high
    assert sorted(deal.legal_plays(1) or []) == sorted(cards("AH TH KH"))


def test_not_your_turn_and_conflicting_cards_leave_state_unchanged(deal_from: MakeDeal) -> None:
    deal = grand_by_seat_1(deal_from)
    before = len(deal.history)
    with pytest.raises(IllegalMoveError, match="seat 2 cannot play AD: it is seat 1's turn"):
        deal.play(2, Card.parse("AD"))
    with pytest.raises(CardConflictError, match="2C: is not in Frog's 36-card pack"):
        deal.play(1, Card.parse("2C"))
    with pytest.raises(CardConflictError, match="JS: belongs to seat 0's hand"):
        deal.play(1, Card.parse("JS"))
    with pytest.raises(CardConflictError, match="6C: lies in the widow"):
        deal.play(1, Card.parse("6C"))
    deal.play(1, Card.parse("AS"))
    deal.play(2, Card.parse("9H"))
    deal.play(0, Card.parse("6S"))
    with pytest.raises(CardConflictError, match="AS: was already played by seat 1 in trick 1"):
        deal.play(2, Card.parse("AS"))
    assert len(deal.history) == before + 3 and deal.hand(2) is not None and len(deal.hand(2) or ()) == 10


def test_pure_functions() -> None:
    from table.cards import Suit

    hand = cards("AD 6C 7H")
    assert legal_plays(hand, Suit.SPADES, Suit.HEARTS) == cards("7H")
    assert legal_plays(hand, Suit.CLUBS, Suit.HEARTS) == cards("6C")
    assert legal_plays(cards("AD 6C"), Suit.SPADES, Suit.HEARTS) == cards("AD 6C")
    assert trick_winner(cards("KS AS TS"), Suit.HEARTS) == 1
    assert trick_winner(cards("KS AD 6H"), Suit.HEARTS) == 2  # off-suit ace never wins
    assert trick_winner(cards("KS AD 6C"), Suit.CLUBS) == 2


def test_full_known_deal_plays_eleven_tricks(deal_from: MakeDeal) -> None:
    from table.frog.bots import RandomBot, play_deal

    deal = grand_by_seat_1(deal_from)
    play_deal(deal, {s: RandomBot(s) for s in deal.active})
    assert deal.phase is Phase.OVER and len(deal.tricks) == 11 and deal.to_act is None
    pts = deal.points()
    assert sum(pts.values()) == 120
    # the untouched widow (7H 6H 6C, 0 points) counts for the bidder
    assert pts[1] == deal.trick_points[1]
