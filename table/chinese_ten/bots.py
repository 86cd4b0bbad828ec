"""Seeded bots for Chinese Ten: they drive simulations, tests, benchmarks and the demo.

A bot answers ``choose(state) -> Move`` for the seat ``state.to_act`` in either phase (play a card
from hand, or choose what the flipped top stock card takes). Bots need known hands and a known stock;
:func:`play_out` runs a deal to its end.

* :class:`RandomBot`: a random card from hand, then a random legal take.
* :class:`GreedyBot`: the play that captures the most points now; when nothing captures, it lays
  the card worth least (it gives the next player least); ties broken by its seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from table.cards import Card
from table.chinese_ten.moves import Move
from table.chinese_ten.state import ChineseTenState, Outcome, Phase, partner_rank
from table.errors import IllegalMoveError

_LAY: list[tuple[Card, ...]] = [()]


class Bot(Protocol):
    name: str

    def choose(self, state: ChineseTenState) -> Move: ...


def _flip_card(state: ChineseTenState) -> Card:
    top = state.stock_top
    if top is None:
        raise IllegalMoveError("a bot can flip only from a known stock")
    return top


def _hand(state: ChineseTenState, seat: int) -> tuple[Card, ...]:
    hand = state.hand(seat)
    if hand is None:
        raise IllegalMoveError("a bot needs to see its hand")
    return hand


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ChineseTenState) -> Move:
        seat = state.to_act
        if state.phase is Phase.PLAY:
            card = self.rng.choice(_hand(state, seat))
            kind = "play"
        else:
            card = _flip_card(state)
            kind = "flip"
        takes = state.takes(card)
        take = takes[0] if len(takes) == 1 else self.rng.choice(takes)
        return Move(kind, seat, card, take)  # type: ignore[arg-type]


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ChineseTenState) -> Move:
        seat = state.to_act
        if state.phase is Phase.PLAY:
            candidates: Sequence[Card] = _hand(state, seat)
            kind = "play"
        else:
            candidates = (_flip_card(state),)
            kind = "flip"
        points = state.point_table
        best: list[tuple[Card, tuple[Card, ...]]] = []
        best_key = -1_000_000
        on_layout = {c.rank for c in state.layout}
        for card in candidates:
            value = points[card.index]
            # state.takes only when the card could capture: otherwise joining the layout is the only take
            takes = state.takes(card) if partner_rank(card.rank) in on_layout else _LAY
            for take in takes:
                # Points captured now; when nothing captures, lay the card that gives away least.
                if take:
                    key = value * 1000
                    for target in take:
                        key += points[target.index] * 1000
                else:
                    key = -value
                if key > best_key:
                    best_key, best = key, [(card, take)]
                elif key == best_key:
                    best.append((card, take))
        card, take = best[0] if len(best) == 1 else self.rng.choice(best)
        return Move(kind, seat, card, take)  # type: ignore[arg-type]


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bots(kinds: Sequence[str], seed: int) -> list[Bot]:
    """One bot per seat, each with its own seed derived from ``seed``."""
    bots: list[Bot] = []
    for seat, kind in enumerate(kinds):
        if kind not in BOTS:
            raise ValueError(f"unknown bot {kind!r}; expected one of {', '.join(BOTS)}")
        bots.append(BOTS[kind](seed * 7919 + seat))
    return bots


def play_out(state: ChineseTenState, bots: Sequence[Bot]) -> Outcome | None:
    """Let the bots play the deal to its end; returns the outcome (``None`` for a redeal)."""
    while True:
        phase = state.phase
        if phase is Phase.PLAY:
            move = bots[state.to_act].choose(state)
            state.play(move.seat, move.card, move.take)
        elif phase is Phase.FLIP:
            move = bots[state.to_act].choose(state)
            state.flip(move.card, move.take)
        else:
            return state.outcome
