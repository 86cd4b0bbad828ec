"""Phase 1, poker: antes, cards dealt one at a time face up, the best hand takes the pot.

Variations (rules options): seven cards with the best five (``hand_size=7``), four-flush
(``four_flush``), buying one extra card and discarding one (``buy_price``), five-card stud with a
betting round after the 3rd and 4th cards (``stud``). A player who folds gives up the pot only:
the cards stay in front of them for bingo and put and take.
"""

from __future__ import annotations

from table.cards import Card
from table.garbage import hands
from table.garbage.core import POT, AwaitCard, AwaitMove, Move, PhaseGen, PokerResult, Round, seat_account


def play_poker(r: Round) -> PhaseGen:
    rules = r.rules
    res = PokerResult()
    r.results.poker = res
    res.seats = [s for s in r.order() if rules.dealer_plays or s != r.dealer]
    for seat in res.seats:
        r.pay(seat_account(seat), POT, rules.ante, "ante")
    for number in range(1, rules.hand_size + 1):
        for seat in res.seats:
            card = yield AwaitCard("poker", "deal", seat, number)
            assert isinstance(card, Card)
            r.hands[seat].append(card)
        if rules.stud and number in (3, 4) and len(_active(res)) > 1:
            yield from _betting_round(r, res, number)
    if rules.buy_price > 0:
        for seat in _active(res):
            move = yield AwaitMove(
                "poker", seat, ("buy", "stand"), f"buy an extra card for {rules.buy_price} coins and discard one?"
            )
            assert isinstance(move, Move)
            if move.kind == "stand":
                continue
            r.pay(seat_account(seat), POT, rules.buy_price, "buys a card")
            bought = yield AwaitCard("poker", "buy", seat, 1)
            assert isinstance(bought, Card)
            r.hands[seat].append(bought)
            move = yield AwaitMove("poker", seat, ("discard",), "discard one card", tuple(r.hands[seat]))
            assert isinstance(move, Move) and move.card is not None
            r.hands[seat].remove(move.card)
            r.discards.append(move.card)
            res.bought[seat] = (bought, move.card)
    _showdown(r, res)


def _active(res: PokerResult) -> list[int]:
    return [s for s in res.seats if s not in res.folded]


def _betting_round(r: Round, res: PokerResult, after: int) -> PhaseGen:
    """Fixed-limit betting, opened by the player on the dealer's left: check or bet; once a bet
    is made, call, raise (at most ``stud_raises`` times) or fold. Ends when every player still in
    has matched the bet or only one is left."""
    rules = r.rules
    put_in = dict.fromkeys(_active(res), 0)
    bet_to = 0
    raises = 0
    waiting = _active(res)
    while waiting and len(_active(res)) > 1:
        seat = waiting.pop(0)
        if seat in res.folded:
            continue
        owe = bet_to - put_in[seat]
        if owe == 0:
            kinds: tuple[str, ...] = ("check", "bet")
            prompt = f"after card {after}: check, or bet {rules.stud_bet}"
        else:
            kinds = ("call", "fold") + (("raise",) if raises < rules.stud_raises else ())
            prompt = f"after card {after}: call {owe}, fold" + (
                f", or raise to {bet_to + rules.stud_bet}" if raises < rules.stud_raises else ""
            )
        move = yield AwaitMove("poker", seat, kinds, prompt)
        assert isinstance(move, Move)
        if move.kind == "fold":
            res.folded.append(seat)
            continue
        if move.kind in ("bet", "raise"):
            raises += move.kind == "raise"
            bet_to += rules.stud_bet
            # everyone else still in must answer the new bet, in order round the table
            order = r.order()
            i = order.index(seat)
            waiting = [s for s in order[i + 1 :] + order[:i] if s in put_in and s not in res.folded]
        due = bet_to - put_in[seat]
        if due:
            r.pay(seat_account(seat), POT, due, f"{move.kind} after card {after}")
            put_in[seat] = bet_to


def _showdown(r: Round, res: PokerResult) -> None:
    four_flush = r.rules.four_flush
    res.pot = r.ledger.balance(POT)
    for seat in _active(res):
        value = hands.best_value(r.hands[seat], four_flush=four_flush)
        res.values[seat] = value
        res.described[seat] = hands.describe(value)
        res.best_five[seat] = hands.best_five(r.hands[seat], four_flush=four_flush)
    if res.values:
        top = max(res.values.values())
        res.winners = [s for s in _active(res) if res.values[s] == top]
    res.shares = r.share(POT, res.winners, "poker pot")
