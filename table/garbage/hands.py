"""Poker hand ranking for Garbage, where two or three packs make identical cards possible.

A hand's value is one int; a higher int is a better hand, equal ints tie. The category sits in
the top bits, the tie-breaking ranks (ace high, 4 bits each, most important first) below it.

Several packs add hands a single pack cannot make, and the engine ranks them itself (the common
evaluators either raise on duplicates, treys and pokerkit, or silently mis-rank them, phevaluator):

* five of a kind ranks above a straight flush;
* five cards of one suit with a duplicated card are still a flush (and a flush beats the pair
  or three of a kind inside it; a full house or four of a kind in one suit keeps its own rank);
* with the four-flush variation, four cards of one suit rank between a pair and two pairs.

Speed: five-card values come from two precomputed tables keyed by the product of the ranks'
primes (Cactus Kev's trick), one for hands of one suit and one for the rest. The same tables
cover single-pack and multi-pack hands, so there is no separate path that could disagree.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

from table.cards import ALL_CARDS, Card


class Category(enum.IntEnum):
    """Hand categories, weakest first. FOUR_FLUSH only occurs with the four-flush variation."""

    HIGH_CARD = 0
    PAIR = 1
    FOUR_FLUSH = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    FIVE_OF_A_KIND = 10

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


_CATEGORY_SHIFT = 20
_RANK_NAMES = "23456789TJQKA"
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def _poker_rank(card: Card) -> int:
    """0 for a two ... 12 for an ace (aces rank high; the wheel A-2-3-4-5 is handled as a straight)."""
    return (int(card.rank) - 2) % 13


# Indexed by Card.index: the card's rank prime, its poker rank, its suit number.
_PRIME_OF: tuple[int, ...] = tuple(_PRIMES[_poker_rank(c)] for c in ALL_CARDS)
_RANK_OF: tuple[int, ...] = tuple(_poker_rank(c) for c in ALL_CARDS)
_SUIT_OF: tuple[int, ...] = tuple(c.index // 13 for c in ALL_CARDS)


def _pack(category: Category, ranks: Sequence[int]) -> int:
    value = int(category) << _CATEGORY_SHIFT
    shift = _CATEGORY_SHIFT
    for r in ranks:
        shift -= 4
        value |= r << shift
    return value


def _straight_high(distinct_desc: Sequence[int]) -> int | None:
    if len(distinct_desc) != 5:
        return None
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if list(distinct_desc) == [12, 3, 2, 1, 0]:  # A-2-3-4-5, five high
        return 3
    return None


def _off_suit_value(ranks: Sequence[int]) -> int:
    """Value of five ranks (a multiset, any suits but not all one suit)."""
    counts = Counter(ranks)
    # Most copies first, then the higher rank: the order the tie-break reads them.
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    lead = [r for r, _ in groups]
    if shape == [5]:
        return _pack(Category.FIVE_OF_A_KIND, lead)
    if shape == [4, 1]:
        return _pack(Category.FOUR_OF_A_KIND, lead)
    if shape == [3, 2]:
        return _pack(Category.FULL_HOUSE, lead)
    if shape == [3, 1, 1]:
        return _pack(Category.THREE_OF_A_KIND, lead)
    if shape == [2, 2, 1]:
        return _pack(Category.TWO_PAIR, lead)
    if shape == [2, 1, 1, 1]:
        return _pack(Category.PAIR, lead)
    high = _straight_high(lead)
    if high is not None:
        return _pack(Category.STRAIGHT, [high])
    return _pack(Category.HIGH_CARD, lead)


def _one_suit_value(ranks: Sequence[int]) -> int:
    """Value of five ranks all of one suit; duplicates (several packs) are allowed."""
    desc = sorted(ranks, reverse=True)
    if len(set(desc)) == 5:
        high = _straight_high(desc)
        if high is not None:
            return _pack(Category.STRAIGHT_FLUSH, [high])
        return _pack(Category.FLUSH, desc)
    # A duplicated card in a flush: the flush stands unless the ranks alone make more.
    return max(_off_suit_value(ranks), _pack(Category.FLUSH, desc))


def _key(ranks: Sequence[int]) -> int:
    key = 1
    for r in ranks:
        key *= _PRIMES[r]
    return key


_OFF_SUIT: dict[int, int] = {}
_ONE_SUIT: dict[int, int] = {}
for _ranks in combinations_with_replacement(range(13), 5):
    _OFF_SUIT[_key(_ranks)] = _off_suit_value(_ranks)
    _ONE_SUIT[_key(_ranks)] = _one_suit_value(_ranks)


def rank5(cards: Sequence[Card]) -> int:
    """Value of exactly five cards (duplicates allowed). Higher is better."""
    a, b, c, d, e = cards
    ia, ib, ic, id_, ie = a.index, b.index, c.index, d.index, e.index
    p = _PRIME_OF
    key = p[ia] * p[ib] * p[ic] * p[id_] * p[ie]
    s = _SUIT_OF
    sa = s[ia]
    if sa == s[ib] and sa == s[ic] and sa == s[id_] and sa == s[ie]:
        return _ONE_SUIT[key]
    return _OFF_SUIT[key]


# Each card adds 1 to its suit's 4-bit counter; a five-card sum maps to the suit held four times.
_SUIT_UNIT: tuple[int, ...] = tuple(1 << (4 * _SUIT_OF[c.index]) for c in ALL_CARDS)
_FOUR_OF_SUIT: dict[int, int] = {}
for _combo in combinations_with_replacement(range(4), 5):
    _sum = sum(1 << (4 * suit) for suit in _combo)
    _FOUR_OF_SUIT[_sum] = next((suit for suit in range(4) if _combo.count(suit) == 4), -1)


def rank5_four_flush(cards: Sequence[Card]) -> int:
    """Value of five cards with the four-flush variation (four of one suit: above a pair)."""
    value = rank5(cards)
    if value >= _TWO_PAIR_FLOOR:
        return value
    u = _SUIT_UNIT
    suit = _FOUR_OF_SUIT[
        u[cards[0].index] + u[cards[1].index] + u[cards[2].index] + u[cards[3].index] + u[cards[4].index]
    ]
    if suit < 0:
        return value
    four = sorted((_RANK_OF[c.index] for c in cards if _SUIT_OF[c.index] == suit), reverse=True)
    odd = [_RANK_OF[c.index] for c in cards if _SUIT_OF[c.index] != suit]
    return _pack(Category.FOUR_FLUSH, four + odd)


_TWO_PAIR_FLOOR = int(Category.TWO_PAIR) << _CATEGORY_SHIFT
_FIVE_OF_SEVEN = tuple(combinations(range(7), 5))
_FIVE_OF_SIX = tuple(combinations(range(6), 5))


def best_value(cards: Sequence[Card], *, four_flush: bool = False) -> int:
    """Value of the best five-card hand within five to seven cards."""
    rank = rank5_four_flush if four_flush else rank5
    n = len(cards)
    if n == 5:
        return rank(cards)
    if n < 5:
        raise ValueError(f"a poker hand needs at least five cards, got {n}")
    combos = _FIVE_OF_SEVEN if n == 7 else _FIVE_OF_SIX if n == 6 else tuple(combinations(range(n), 5))
    best = 0
    for i, j, k, m, q in combos:
        v = rank((cards[i], cards[j], cards[k], cards[m], cards[q]))
        if v > best:
            best = v
    return best


def best_five(cards: Sequence[Card], *, four_flush: bool = False) -> tuple[Card, ...]:
    """The five cards that make :func:`best_value` (first such choice in card order)."""
    rank = rank5_four_flush if four_flush else rank5
    if len(cards) < 5:
        raise ValueError(f"a poker hand needs at least five cards, got {len(cards)}")
    return max(combinations(cards, 5), key=rank)


def category(value: int) -> Category:
    return Category(value >> _CATEGORY_SHIFT)


def describe(value: int) -> str:
    """Plain words for a value: ``two pair, K and 7 (kicker 5)``, ``five of a kind, 9``."""
    cat = category(value)
    digits = [(value >> s) & 0xF for s in (16, 12, 8, 4, 0)]
    names = [_RANK_NAMES[d] for d in digits]
    if cat in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        return f"{cat.label}, {names[0]} high"
    if cat is Category.FIVE_OF_A_KIND:
        return f"{cat.label}, {names[0]}"
    if cat is Category.FULL_HOUSE:
        return f"{cat.label}, {names[0]} over {names[1]}"
    if cat is Category.FOUR_OF_A_KIND:
        return f"{cat.label}, {names[0]} (kicker {names[1]})"
    if cat is Category.THREE_OF_A_KIND:
        return f"{cat.label}, {names[0]} (kickers {' '.join(names[1:3])})"
    if cat is Category.TWO_PAIR:
        return f"{cat.label}, {names[0]} and {names[1]} (kicker {names[2]})"
    if cat is Category.PAIR:
        return f"{cat.label} of {names[0]} (kickers {' '.join(names[1:4])})"
    return f"{cat.label}, {' '.join(names)}"
