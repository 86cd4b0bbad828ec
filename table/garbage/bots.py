"""Simple Garbage players for bot games and random playouts. Garbage is mostly luck; the only
decisions are buying a card (and which to discard) and stud betting."""

from __future__ import annotations

import random
from collections import Counter

from table.cards import Card
from table.garbage import hands
from table.garbage.core import AwaitMove, Move
from table.garbage.state import GarbageGame


def choose_move(game: GarbageGame, rng: random.Random) -> Move:
    """A reasonable decision for the seat the game is waiting on."""
    step = game.step
    if not isinstance(step, AwaitMove):
        raise ValueError(f"no decision is awaited: {step.describe()}")
    held = game.hand(step.seat)
    four_flush = game.rules.four_flush
    if step.kinds == ("discard",):
        # give up the card whose loss leaves the best hand
        best = max(dict.fromkeys(step.cards), key=lambda c: hands.best_value(_without(held, c), four_flush=four_flush))
        return Move(step.seat, "discard", best)
    if "buy" in step.kinds:
        weak = hands.category(hands.best_value(held, four_flush=four_flush)) <= hands.Category.PAIR
        return Move(step.seat, "buy" if weak else "stand")
    # stud betting on the cards showing: a pair or better bets and raises, nothing checks or folds
    most = max(Counter(c.rank for c in held).values())
    if most >= 2:
        for kind in ("raise", "bet", "call", "check"):
            if kind in step.kinds and (kind != "raise" or most >= 3 or rng.random() < 0.3):
                return Move(step.seat, kind)
    if "check" in step.kinds:
        return Move(step.seat, "check")
    return Move(step.seat, "call" if rng.random() < 0.6 else "fold")


def _without(cards: list[Card], card: Card) -> list[Card]:
    out = list(cards)
    out.remove(card)
    return out
