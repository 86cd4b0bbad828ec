"""Card points and settlement for Chinese Ten.

:func:`card_points` gives a tuple indexed by ``Card.index`` (computed once per rule set and player
count, so scoring a capture is one tuple lookup). :func:`settle` turns points into margins.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from table.cards import ALL_CARDS, Card, Rank, Suit
from table.chinese_ten.rules import RuleSet

ACE_OF_SPADES = Card(Rank.ACE, Suit.SPADES)
ACE_OF_CLUBS = Card(Rank.ACE, Suit.CLUBS)


def _red_value(card: Card) -> int:
    """Red cards in pagat and G4A: 2-8 face value, 9 to King 10, Ace 20."""
    if card.rank is Rank.ACE:
        return 20
    return int(card.rank) if card.rank <= 8 else 10


def _point_of(table: str, players: int, card: Card) -> int:
    if table == "red-frog-black-frog":
        if card.is_red or card is ACE_OF_CLUBS:
            return 0
        if card is ACE_OF_SPADES:
            return 50
        return int(card.rank) if card.rank <= 9 else 10
    if card.is_red:
        return _red_value(card)
    if card is ACE_OF_SPADES:
        # pagat: 30 with three or four players, nothing with two; G4A: always 30.
        return 30 if table == "g4a" or players >= 3 else 0
    if card is ACE_OF_CLUBS and table == "pagat" and players == 4:
        return 40
    return 0


@lru_cache(maxsize=64)
def card_points(rules: RuleSet, players: int) -> tuple[int, ...]:
    """Points of every card, indexed by ``Card.index``, for this rule set and player count."""
    table = [_point_of(rules.point_table, players, card) for card in ALL_CARDS]
    for text, value in rules.card_points:
        table[Card.parse(text).index] = value
    return tuple(table)


def pack_total(rules: RuleSet, players: int) -> int:
    """All the points in the pack: 210/240/280 for pagat with 2/3/4 players, 218 for Red Frog."""
    return sum(card_points(rules, players))


def settle(rules: RuleSet, points: list[int] | tuple[int, ...]) -> tuple[int | Fraction, ...]:
    """Each seat's margin: won (+) or lost (-), against the tie score or the table's mean.

    Margins under ``"mean"`` may be fractions (218 points among 3); they always sum to zero.
    """
    players = len(points)
    if rules.settlement == "tie":
        tie = rules.tie_score(players)
        if tie is None:
            raise ValueError(f"the {rules.name} rules have no tie score for {players} players")
        return tuple(p - tie for p in points)
    mean = Fraction(sum(points), players)
    return tuple(_simplify(p - mean) for p in points)


def _simplify(value: Fraction) -> int | Fraction:
    return int(value) if value.denominator == 1 else value


def margin_json(value: int | Fraction) -> int | float:
    """A margin for JSON: whole numbers stay ints, fractions become floats rounded to 2 places."""
    if isinstance(value, int):
        return value
    return round(float(value), 2)
