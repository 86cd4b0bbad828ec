"""Phase 4, count-up (birthday): every hand goes to the discards; the dealer turns thirteen cards
counting ace to king; a card whose rank is the count (J 11, Q 12, K 13) makes every other player
pay the dealer that many coins.

Variations: ``count_up_cards`` (10 instead of 13), ``no_hit_penalty`` (a dealer who hits nothing
pays each player that many), ``consecutive_hits_multiply`` (the 2nd hit in a row pays x2, the 3rd x3).
"""

from __future__ import annotations

from table.cards import Card
from table.garbage.core import AwaitCard, CountTurn, CountUpResult, PhaseGen, Round, seat_account


def play_count_up(r: Round) -> PhaseGen:
    rules = r.rules
    res = CountUpResult()
    r.results.count_up = res
    for hand in r.hands:
        r.discards.extend(hand)
        hand.clear()
    dealer = seat_account(r.dealer)
    others = r.others()
    streak = 0
    for number in range(1, rules.count_up_cards + 1):
        card = yield AwaitCard("count-up", "count", None, number)
        assert isinstance(card, Card)
        r.discards.append(card)
        if card.rank != number:
            streak = 0
            res.turns.append(CountTurn(number, card, False, 0))
            continue
        streak += 1
        each = number * (streak if rules.consecutive_hits_multiply else 1)
        res.turns.append(CountTurn(number, card, True, each))
        for seat in others:
            res.dealer_net += r.pay(seat_account(seat), dealer, each, f"count-up: {card} on {number}")
    if rules.no_hit_penalty and not any(t.hit for t in res.turns):
        res.penalty_each = rules.no_hit_penalty
        for seat in others:
            res.dealer_net -= r.pay(dealer, seat_account(seat), rules.no_hit_penalty, "count-up: no hit, penalty")
