"""Phase 2, bingo: the dealer turns cards and calls ranks; each matching card in a hand gets a
coin, again on every repeated call; the first player whose every card has a coin wins all the
coins placed on everyone's cards.

Ties (``bingo_tie``): ``share`` (the seed's rule, odd coins per ``odd_coins``), ``most-coins``
(most coins on one's own cards wins, still tied: share), ``kitty`` (no one wins; the coins go to a
kitty won by the next bingo, of the next hand or, with ``kitty_replay="now"``, played at once with
the dealer calling on). The next bingo winner also takes whatever else waits in the kitty. Every
called card goes to the discards at once.
"""

from __future__ import annotations

from collections import Counter

from table.cards import Card
from table.garbage.core import BINGO, KITTY, AwaitCard, BingoResult, PhaseGen, Round, seat_account


def play_bingo(r: Round) -> PhaseGen:
    rules = r.rules
    res = BingoResult()
    r.results.bingo = res
    res.seats = [s for s in r.order() if r.hands[s]]
    res.coins_placed = dict.fromkeys(res.seats, 0)
    if not res.seats:
        return
    if _nobody_can_finish(r, res):
        res.abandoned = True
        return
    while True:
        res.games += 1
        res.marks = {s: [0] * len(r.hands[s]) for s in res.seats}
        winners: list[int] = []
        while not winners:
            card = yield AwaitCard("bingo", "call", None, len(res.calls) + 1)
            assert isinstance(card, Card)
            res.calls.append(card)
            r.discards.append(card)
            for seat in res.seats:
                for i, held in enumerate(r.hands[seat]):
                    if held.rank is card.rank:
                        res.marks[seat][i] += 1
                        res.coins_placed[seat] += r.pay(seat_account(seat), BINGO, 1, f"bingo: {card.rank.char} called")
            winners = [s for s in res.seats if all(res.marks[s])]
        if len(winners) > 1 and rules.bingo_tie == "most-coins":
            most = max(sum(res.marks[s]) for s in winners)
            winners = [s for s in winners if sum(res.marks[s]) == most]
        if len(winners) > 1 and rules.bingo_tie == "kitty":
            moved = r.ledger.balance(BINGO)
            if moved:
                r.ledger.transfer(BINGO, KITTY, moved, "tied bingo: to the kitty", phase=r.phase, deal=r.deal)
            res.to_kitty += moved
            if rules.kitty_replay == "now":
                continue
            return
        kitty = r.ledger.balance(KITTY)  # tied bingos and odd coins wait here for a winner
        if kitty:
            r.ledger.transfer(KITTY, BINGO, kitty, "bingo kitty won", phase=r.phase, deal=r.deal)
        res.winners = winners
        res.pot = r.ledger.balance(BINGO)
        res.shares = r.share(BINGO, winners, "bingo")
        return


def _nobody_can_finish(r: Round, res: BingoResult) -> bool:
    """True when every player holds a card whose rank can never be called because every copy of
    it is in hands (possible with one pack). The bingo is then not played: no coin moves."""
    held = Counter(c.rank for hand in r.hands for c in hand)
    copies = sum(r.census().values()) // 13
    dead = {rank for rank, n in held.items() if n >= copies}
    return bool(dead) and all(any(c.rank in dead for c in r.hands[s]) for s in res.seats)
