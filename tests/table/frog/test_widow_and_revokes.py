"""Frog's widow and discards; hidden hands: accept what could be legal, prove revokes later."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table.cards import Card, Suit, parse_cards
from table.errors import CardConflictError, IllegalMoveError
from table.frog.rules import Contract, rule_set
from table.frog.state import FrogDeal, Phase

MakeDeal = Callable[..., FrogDeal]
HANDS = {
    1: "AH TH KH QH JH 9H AS TS AC AD TD",
    2: "8H 7H KS QS JS KC QC JC KD QD JD",
    0: "6H 9S 8S 7S 6S TC 9C 8C 9D 8D 7D",
}
WIDOW = "7C 6C 6D"


def c(text: str) -> Card:
    return Card.parse(text)


def frog_by_seat_1(deal_from: MakeDeal, rules: str = "foster-1909") -> FrogDeal:
    deal = deal_from(HANDS, WIDOW, rules=rules)
    deal.bid(1, Contract.FROG)
    deal.bid(2, None)
    deal.bid(0, None)
    return deal


def test_frog_bidder_takes_widow_and_discards_three(deal_from: MakeDeal) -> None:
    """Frog: hearts trump; the bidder takes the widow (exposed in 1909) and discards 3."""
    deal = frog_by_seat_1(deal_from)
    assert (deal.phase, deal.trump, deal.to_act) == (Phase.DISCARD, Suit.HEARTS, 1)
    assert deal.widow_shown and len(deal.hand(1) or ()) == 14
    with pytest.raises(IllegalMoveError, match="seat 1 is the bidder"):
        deal.discard(2, parse_cards(["KS", "QS", "JS"]))
    with pytest.raises(CardConflictError, match="KS: belongs to seat 2's hand"):
        deal.discard(1, parse_cards(["KS", "7C", "6C"]))
    with pytest.raises(IllegalMoveError, match="3 different cards"):
        deal.discard(1, parse_cards(["7C", "7C", "6C"]))
    with pytest.raises(IllegalMoveError, match="must name the 3 discards"):
        deal.discard(1, None)
    deal.discard(1, parse_cards(["TD", "7C", "6C"]))
    assert deal.phase is Phase.PLAY and deal.to_act == 1 and len(deal.hand(1) or ()) == 11
    with pytest.raises(CardConflictError, match="TD: was discarded by the bidder"):
        deal.play(1, c("TD"))


def test_discards_count_for_the_bidder(deal_from: MakeDeal) -> None:
    from table.frog.bots import HeuristicBot, play_deal

    deal = frog_by_seat_1(deal_from)
    deal.discard(1, parse_cards(["TD", "7C", "6C"]))
    play_deal(deal, {s: HeuristicBot(s) for s in deal.active})
    pts = deal.points()
    assert pts[1] == deal.trick_points[1] + 10 and sum(pts.values()) == 120


def test_modern_does_not_expose_the_widow(deal_from: MakeDeal) -> None:
    deal = frog_by_seat_1(deal_from, "modern")
    assert not deal.widow_shown
    with pytest.raises(IllegalMoveError, match="hides it"):
        deal.show_widow(parse_cards(WIDOW.split()))


def hidden_grand(rules: str = "foster-1909") -> FrogDeal:
    deal = FrogDeal(rule_set(rules), players=3, dealer=0)
    deal.bid(1, Contract.GRAND)
    return deal


def test_hidden_hands_accept_any_possible_card() -> None:
    deal = hidden_grand()
    assert deal.legal_plays(1) is None and deal.hand(1) is None
    deal.play(1, c("AS"))
    deal.play(2, c("AD"))  # could be legal: seat 2 may be void in spades and hearts
    with pytest.raises(CardConflictError, match="AS: was already played by seat 1 in trick 1"):
        deal.play(0, c("AS"))
    with pytest.raises(CardConflictError, match="not in Frog's 36-card pack"):
        deal.play(0, c("5S"))
    deal.play(0, c("6S"))
    assert deal.tricks[0].winner == 1 and deal.revokes == []


def test_later_trump_proves_failure_to_trump() -> None:
    """Seat 2 showed AD on a spade lead (void in spades and hearts, it claimed); JH later proves a revoke."""
    deal = hidden_grand()
    for seat, card in [(1, "AS"), (2, "AD"), (0, "6S"), (1, "TS")]:
        deal.play(seat, c(card))
    deal.play(2, c("JH"))
    assert len(deal.revokes) == 1
    r = deal.revokes[0]
    assert (r.trick, r.seat, r.card, r.rule, r.proof, r.proof_trick) == (1, 2, c("AD"), "trump", c("JH"), 2)
    assert "seat 2 played AD in trick 1 but had to trump (hearts), as JH in trick 2 shows" in r.describe()


def test_later_card_of_led_suit_proves_failure_to_follow() -> None:
    deal = hidden_grand()
    for seat, card in [
        (1, "AS"),
        (2, "KS"),
        (0, "9H"),  # seat 0 trumps: claims no spades
        (0, "6S"),
    ]:  # seat 0 won and now leads a spade: revoke in trick 1
        deal.play(seat, c(card))
    assert [(r.trick, r.seat, r.card, r.rule) for r in deal.revokes] == [(1, 0, c("9H"), "follow")]


def test_one_failure_is_one_revoke_even_if_both_claims_are_proved() -> None:
    deal = hidden_grand()
    for seat, card in [
        (1, "AS"),
        (2, "AD"),
        (0, "6S"),  # seat 2 claims no spades, no hearts
        (1, "TS"),
        (2, "KS"),  # proves: a spade (follow)
        (0, "7S"),
        (1, "AH"),
        (2, "JH"),
        (0, "8H"),
    ]:  # the heart must not count again
        deal.play(seat, c(card))
    assert [(r.trick, r.seat, r.rule) for r in deal.revokes] == [(1, 2, "follow")]


def test_revoke_by_an_opponent_settles_as_if_bidder_took_120() -> None:
    from table.frog.play import FROG_PACK

    deal = hidden_grand()
    for seat, card in [(1, "AS"), (2, "AD"), (0, "6S"), (1, "TS"), (2, "JH"), (0, "7S")]:
        deal.play(seat, c(card))
    # finish with any remaining cards in turn (hidden: all accepted)
    rest = iter(
        k
        for k in FROG_PACK
        if k not in {c(t) for t in "AS AD 6S TS JH 7S".split()} and k not in {c("7C"), c("6C"), c("6D")}
    )
    while deal.phase is Phase.PLAY:
        turn = deal.to_act
        assert turn is not None
        deal.play(turn, next(rest))
    s = deal.settlement
    assert s is not None and s.revoker == 2 and s.scored == 120
    assert s.net(1) == 2 * 60 * 4


def test_exposed_widow_cards_belong_to_the_bidder_in_hidden_mode() -> None:
    deal = FrogDeal(rule_set("foster-1909"), players=3, dealer=0)
    deal.bid(1, Contract.FROG)
    deal.bid(2, None)
    deal.bid(0, None)
    deal.show_widow(parse_cards(["7C", "6C", "6D"]))
    with pytest.raises(IllegalMoveError):
        deal.show_widow(parse_cards(["7C", "6C", "6D"]))
    deal.discard(1, None)  # face down, unseen
    deal.play(1, c("AS"))
    with pytest.raises(CardConflictError, match="7C: belongs to seat 1's hand .*exposed widow"):
        deal.play(2, c("7C"))
