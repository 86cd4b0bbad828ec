"""Bots: a random legal player and a simple heuristic bidder and player, both seeded.

A bot answers whatever decision a :class:`FrogDeal` awaits from its seat; :func:`play_deal` drives a
whole deal with one bot per active seat.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Protocol

from table.cards import Card, Suit
from table.frog.play import POINTS, POWER, legal_plays
from table.frog.rules import Contract
from table.frog.state import CHICO_TRUMPS, FrogDeal, Phase


class Bot(Protocol):
    def choose_bid(self, deal: FrogDeal, seat: int) -> Contract | None: ...

    def choose_trump(self, deal: FrogDeal, seat: int) -> Suit: ...

    def choose_discard(self, deal: FrogDeal, seat: int) -> list[Card]: ...

    def choose_play(self, deal: FrogDeal, seat: int) -> Card: ...


def _hand(deal: FrogDeal, seat: int) -> Sequence[Card]:
    hand = deal._hands.get(seat)  # bots read the hand directly: no copy per decision
    if not deal.known or hand is None:
        raise ValueError(f"bots need known hands; seat {seat}'s hand is hidden")
    return hand


def _legal(deal: FrogDeal, seat: int) -> list[Card]:
    trick = deal._trick
    assert deal.trump is not None
    return legal_plays(_hand(deal, seat), trick[0][1].suit if trick else None, deal.trump)


class RandomBot:
    """Uniformly random among the legal choices."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_bid(self, deal: FrogDeal, seat: int) -> Contract | None:
        return self.rng.choice(deal.legal_bids(seat))

    def choose_trump(self, deal: FrogDeal, seat: int) -> Suit:
        return self.rng.choice(CHICO_TRUMPS)

    def choose_discard(self, deal: FrogDeal, seat: int) -> list[Card]:
        return self.rng.sample(list(_hand(deal, seat)), 3)

    def choose_play(self, deal: FrogDeal, seat: int) -> Card:
        return self.rng.choice(_legal(deal, seat))


_SUITS = list(Suit)  # card.index // 13 is the position of the card's suit here
_HEARTS = _SUITS.index(Suit.HEARTS)
_CHICO_NOS = tuple(_SUITS.index(s) for s in CHICO_TRUMPS)


def _profile(hand: Sequence[Card]) -> list[list[int]]:
    """Powers (A=8 ... 6=0) of the hand's cards, by suit number."""
    by_suit: list[list[int]] = [[], [], [], []]
    for card in hand:
        by_suit[card.index // 13].append(POWER[card.index])
    return by_suit


def _strength(by_suit: list[list[int]], trump_no: int) -> int:
    score = 0
    for no, powers in enumerate(by_suit):
        if no == trump_no:
            score += 4 * len(powers) + sum(powers) + 3 * max(0, len(powers) - 3)
        elif 8 in powers:
            score += 24 if 7 in powers else 14
    return score


def strength(hand: Sequence[Card], trump: Suit) -> int:
    """A rough count of the points a hand should take with ``trump``: trumps, side aces, guarded tens."""
    return _strength(_profile(hand), _SUITS.index(trump))


class HeuristicBot:
    """Bids on :func:`strength`; plays aces and trumps to win, smears points on a partner's trick."""

    GRAND_AT, CHICO_AT, FROG_AT = 80, 74, 56  # tuned so bidders win about half their games

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_bid(self, deal: FrogDeal, seat: int) -> Contract | None:
        legal = deal.legal_bids(seat)
        by_suit = _profile(_hand(deal, seat))
        hearts = _strength(by_suit, _HEARTS)
        side = max(_strength(by_suit, no) for no in _CHICO_NOS)
        wish: Contract | None = None
        if hearts >= self.GRAND_AT:
            wish = Contract.GRAND
        elif side >= self.CHICO_AT:
            wish = Contract.CHICO
        elif hearts >= self.FROG_AT:
            wish = Contract.FROG
        if deal.auction.raising:
            return Contract.GRAND if hearts >= self.GRAND_AT - 8 else None
        if wish is not None and wish in legal:
            return wish
        # a lower wish can still be met by a legal higher bid only if the hand is close
        return None

    def choose_trump(self, deal: FrogDeal, seat: int) -> Suit:
        by_suit = _profile(_hand(deal, seat))
        return max(CHICO_TRUMPS, key=lambda s: _strength(by_suit, _SUITS.index(s)))

    def choose_discard(self, deal: FrogDeal, seat: int) -> list[Card]:
        hand = _hand(deal, seat)

        # keep trumps and aces; throw the weakest side cards, but a lone ten banks its 10 points
        def keep(card: Card) -> int:
            if card.suit is Suit.HEARTS:
                return 100 + POWER[card.index]
            if POWER[card.index] == 8:
                return 90
            return POWER[card.index] - 2 * POINTS[card.index]

        return sorted(hand, key=keep)[:3]

    def choose_play(self, deal: FrogDeal, seat: int) -> Card:
        legal = _legal(deal, seat)
        if len(legal) == 1:
            return legal[0]
        trump = deal.trump
        trick = deal._trick
        if not trick:
            aces = [c for c in legal if POWER[c.index] == 8 and c.suit is not trump]
            if aces:
                return aces[0]
            if seat == deal.bidder:
                trumps = [c for c in legal if c.suit is trump]
                if trumps:
                    return max(trumps, key=lambda c: POWER[c.index])
            return min(legal, key=lambda c: (POINTS[c.index], POWER[c.index]))
        best_seat, best = trick[0]
        for s, c in trick[1:]:
            if (c.suit is best.suit and POWER[c.index] > POWER[best.index]) or (
                c.suit is trump and best.suit is not trump
            ):
                best_seat, best = s, c
        bidder = deal.bidder
        friend_winning = seat != bidder and best_seat != bidder
        last = len(trick) == 2
        if friend_winning and (last or POWER[best.index] >= 7):
            return max(legal, key=lambda c: (POINTS[c.index], -POWER[c.index]))
        winners = [
            c
            for c in legal
            if (c.suit is best.suit and POWER[c.index] > POWER[best.index])
            or (c.suit is trump and best.suit is not trump)
        ]
        if winners and not friend_winning:
            return min(winners, key=lambda c: (c.suit is trump, POWER[c.index]))
        return min(legal, key=lambda c: (POINTS[c.index], POWER[c.index]))


def play_deal(deal: FrogDeal, bots: Mapping[int, Bot]) -> FrogDeal:
    """Let ``bots`` (one per active seat) make every decision until the deal is over."""
    while True:
        phase = deal.phase
        seat = deal.to_act
        if seat is None:
            return deal
        bot = bots[seat]
        if phase is Phase.PLAY:
            deal.play(seat, bot.choose_play(deal, seat))
        elif phase is Phase.AUCTION:
            deal.bid(seat, bot.choose_bid(deal, seat))
        elif phase is Phase.TRUMP:
            deal.name_trump(seat, bot.choose_trump(deal, seat))
        elif phase is Phase.DISCARD:
            deal.discard(seat, bot.choose_discard(deal, seat))
