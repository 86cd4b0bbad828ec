"""Phase 3, put and take (up and down the river): the dealer's hand is set aside; on the k-th of
ten turned cards every other player puts k coins into the pot per matching card, on the k-th of
ten more takes k per match; the dealer collects what is left, and covers a pot that runs dry.

Variations: ``put_and_take_cards`` (5 instead of 10 in each half), ``rank_and_suit_double``
(a card matching rank and suit counts twice), ``sets_multiply`` (a pair of the turned rank pays
x2, three x3, n x n: three of a kind on the 7th card pays 3 x 7 x 3 = 63).
"""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import Card
from table.garbage.core import POT, AwaitCard, PhaseGen, PutAndTakeResult, Round, Turn, seat_account
from table.garbage.rules import GarbageRules


def units(hand: Sequence[Card], turned: Card, rules: GarbageRules) -> int:
    """How many times k a hand puts or takes for a turned card."""
    matches = [c for c in hand if c.rank is turned.rank]
    if not matches:
        return 0
    count = len(matches)
    weight = count + (sum(c is turned for c in matches) if rules.rank_and_suit_double else 0)
    return weight * (count if rules.sets_multiply and count > 1 else 1)


def play_put_and_take(r: Round) -> PhaseGen:
    rules = r.rules
    res = PutAndTakeResult()
    r.results.put_and_take = res
    r.discards.extend(r.hands[r.dealer])  # the dealer's hand is set aside for the rest of the hand
    r.hands[r.dealer] = []
    res.seats = [s for s in r.order() if r.hands[s]]
    dealer = seat_account(r.dealer)
    for number in range(1, rules.put_and_take_cards + 1):
        card = yield AwaitCard("put-and-take", "put", None, number)
        assert isinstance(card, Card)
        r.discards.append(card)
        amounts = {}
        for seat in res.seats:
            due = number * units(r.hands[seat], card, rules)
            if due:
                amounts[seat] = r.pay(seat_account(seat), POT, due, f"put: {card} is card {number}")
        res.turns.append(Turn("put", number, card, amounts))
    for number in range(1, rules.put_and_take_cards + 1):
        card = yield AwaitCard("put-and-take", "take", None, number)
        assert isinstance(card, Card)
        r.discards.append(card)
        amounts = {}
        covered = 0
        for seat in res.seats:
            due = number * units(r.hands[seat], card, rules)
            if not due:
                continue
            from_pot = min(due, r.ledger.balance(POT))
            got = r.pay(POT, seat_account(seat), from_pot, f"take: {card} is card {number}")
            if due > from_pot:  # the pot ran dry: the dealer pays the rest
                paid = r.pay(dealer, seat_account(seat), due - from_pot, f"take: {card} is card {number}, pot dry")
                covered += paid
                got += paid
            amounts[seat] = got
        res.dealer_paid += covered
        res.turns.append(Turn("take", number, card, amounts, covered))
    res.dealer_collected = r.pay(POT, dealer, r.ledger.balance(POT), "put and take: the pot left")
