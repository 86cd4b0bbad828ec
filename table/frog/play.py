"""Trick play: card order and points, the follow/trump obligation, the trick winner.

Pure functions over :class:`~table.cards.Card`; tables are indexed by ``card.index`` so the bot
playouts stay fast (``Card.__hash__`` is a Python method).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from table.cards import ALL_CARDS, Card, Rank, Suit, frog_pack

# Rank order A 10 K Q J 9 8 7 6 (high to low), and the ace-ten card points.
_ORDER = {
    Rank.ACE: 8,
    Rank.TEN: 7,
    Rank.KING: 6,
    Rank.QUEEN: 5,
    Rank.JACK: 4,
    Rank.NINE: 3,
    Rank.EIGHT: 2,
    Rank.SEVEN: 1,
    Rank.SIX: 0,
}
_VALUE = {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2}

POWER: tuple[int, ...] = tuple(_ORDER.get(c.rank, -1) for c in ALL_CARDS)
POINTS: tuple[int, ...] = tuple(_VALUE.get(c.rank, 0) if c.rank in _ORDER else 0 for c in ALL_CARDS)
IN_PACK: tuple[bool, ...] = tuple(c.rank in _ORDER for c in ALL_CARDS)
FROG_PACK: tuple[Card, ...] = tuple(frog_pack())
TOTAL_POINTS = 120


def card_points(card: Card) -> int:
    """A 11, 10 10, K 4, Q 3, J 2, others 0."""
    return POINTS[card.index]


def points_of(cards: Iterable[Card]) -> int:
    return sum(POINTS[c.index] for c in cards)


def beats(card: Card, best: Card, trump: Suit) -> bool:
    """Whether ``card`` beats the trick's current best card."""
    if card.suit is best.suit:
        return POWER[card.index] > POWER[best.index]
    return card.suit is trump


def trick_winner(cards: Sequence[Card], trump: Suit) -> int:
    """Position (0 = leader) of the winning card: the highest trump, else the highest of the led suit."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    return best


def legal_plays(hand: Sequence[Card], led: Suit | None, trump: Suit) -> list[Card]:
    """Cards of ``hand`` that may be played: follow suit; if void, trump; if void in both, any.

    No duty to head the trick. ``led`` is ``None`` when leading (any card).
    """
    if led is None:
        return list(hand)
    follow = []
    trumps = []
    for c in hand:
        suit = c.suit
        if suit is led:
            follow.append(c)
        elif suit is trump:
            trumps.append(c)
    return follow or trumps or list(hand)


def breach(hand: Iterable[Card], card: Card, led: Suit | None, trump: Suit) -> str | None:
    """Why playing ``card`` from ``hand`` breaks the follow/trump rule, or ``None`` if it does not."""
    if led is None or card.suit is led:
        return None
    has_trump = False
    for c in hand:
        if c.suit is led:
            return f"must follow suit ({led.name.lower()}) and holds {c}"
        if c.suit is trump:
            has_trump = True
            held = c
    if has_trump and card.suit is not trump:
        return f"cannot follow {led.name.lower()} so must trump ({trump.name.lower()}) and holds {held}"
    return None
