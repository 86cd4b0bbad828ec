"""Cards, ranks, suits and packs.

``Card`` values are interned: ``Card(Rank.ACE, Suit.SPADES) is Card.parse("AS")``. That keeps
equality and hashing as cheap as for small ints, which the bot playouts and the referee rely on.

>>> Card.parse("10d") is Card(Rank.TEN, Suit.DIAMONDS)
True
>>> card = Card.parse("q♥")
>>> str(card), card.symbol_text, card.index, card.is_red
('QH', 'Q♥', 37, True)
>>> sorted(parse_cards(["KS", "2C", "AH"]))
[Card.parse('2C'), Card.parse('AH'), Card.parse('KS')]
>>> len(standard_pack()), len(frog_pack()), len(multi_pack(2))
(52, 36, 104)
>>> shuffled(standard_pack(), 7) == shuffled(standard_pack(), 7)
True
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from typing import ClassVar

from table.errors import CardParseError


class Colour(enum.Enum):
    RED = "red"
    BLACK = "black"


class Suit(enum.Enum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def char(self) -> str:
        return self.value

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.DIAMONDS, Suit.HEARTS) else Colour.BLACK


_SUIT_SYMBOL = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


class Rank(enum.IntEnum):
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def char(self) -> str:
        return "A23456789TJQK"[self - 1]

    @property
    def is_numeral(self) -> bool:
        """Ace to nine: the cards that pair up to ten in Chinese Ten."""
        return self <= 9


_RANK_TEXT: dict[str, Rank] = {r.char: r for r in Rank}
_RANK_TEXT["10"] = Rank.TEN
_RANK_TEXT["1"] = Rank.ACE
_SUIT_TEXT: dict[str, Suit] = {s.char: s for s in Suit}
_SUIT_TEXT.update({s.symbol: s for s in Suit})
_SUIT_TEXT.update({"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS})


class Card:
    """An immutable playing card. Construct with ``Card(rank, suit)`` or ``Card.parse(text)``."""

    __slots__ = ("rank", "suit", "index", "_text")
    _interned: ClassVar[dict[tuple[Rank, Suit], Card]] = {}
    _parsed: ClassVar[dict[str, Card]] = {}

    rank: Rank
    suit: Suit
    index: int  # 0..51, suit-major (clubs, diamonds, hearts, spades), ace low
    _text: str

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        try:
            return cls._interned[(rank, suit)]
        except KeyError:
            raise CardParseError(f"not a card: rank={rank!r} suit={suit!r}") from None

    @classmethod
    def _make(cls, rank: Rank, suit: Suit) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", list(Suit).index(suit) * 13 + rank - 1)
        object.__setattr__(card, "_text", rank.char + suit.char)
        cls._interned[(rank, suit)] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``AS``, ``TD``, ``10d``, ``7h``, ``A♠``, ``10♦`` (case and spaces ignored).

        >>> Card.parse(" 7h "), Card.parse("A♠")
        (Card.parse('7H'), Card.parse('AS'))
        >>> Card.parse("1X")
        Traceback (most recent call last):
        ...
        table.errors.CardParseError: not a card: '1X' (expected rank ... e.g. 'AS', '10d')
        """
        try:
            return cls._parsed[text]
        except (KeyError, TypeError):
            pass
        if not isinstance(text, str):
            raise CardParseError(f"not a card: {text!r} (expected text such as 'AS' or '10d')")
        cleaned = text.strip().upper()
        if len(cleaned) >= 2:
            rank = _RANK_TEXT.get(cleaned[:-1])
            suit = _SUIT_TEXT.get(cleaned[-1]) or _SUIT_TEXT.get(cleaned[-1].lower())
            if rank is not None and suit is not None:
                card = cls._interned[(rank, suit)]
                if len(cls._parsed) < 4096:
                    cls._parsed[text] = card
                return card
        raise CardParseError(
            f"not a card: {text!r} (expected rank A 2-9 T/10 J Q K and suit C D H S or ♣♦♥♠, e.g. 'AS', '10d')"
        )

    @property
    def colour(self) -> Colour:
        return self.suit.colour

    @property
    def is_red(self) -> bool:
        return self.suit.colour is Colour.RED

    @property
    def symbol_text(self) -> str:
        """``A♠``, ``10♦``: for people."""
        rank = "10" if self.rank is Rank.TEN else self.rank.char
        return rank + self.suit.symbol

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other


for _suit in Suit:
    for _rank in Rank:
        Card._make(_rank, _suit)

ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in Rank)

CARD_CODES: tuple[str, ...] = tuple(str(c) for c in ALL_CARDS)
"""The 52 card codes in ``Card.index`` order (suit-major: clubs, diamonds, hearts, spades; ace low): the
order of the card classifier's face labels, which the shipped model's metadata must list the same way.

>>> CARD_CODES[:3], CARD_CODES[12:14], CARD_CODES[-1]
(('AC', '2C', '3C'), ('KC', 'AD'), 'KS')
>>> all(CARD_CODES[card.index] == str(card) for card in ALL_CARDS)
True
"""


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [Card.parse(t) for t in texts]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def standard_pack() -> list[Card]:
    """The 52-card pack, clubs, diamonds, hearts, spades, ace to king."""
    return list(ALL_CARDS)


FROG_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if r == Rank.ACE or r >= Rank.SIX)


def frog_pack() -> list[Card]:
    """Frog's 36-card pack: twos to fives removed."""
    return [c for c in ALL_CARDS if c.rank in FROG_RANKS]


def multi_pack(packs: int) -> list[Card]:
    """Several 52-card packs together (Garbage): identical cards are legal here."""
    if packs < 1:
        raise ValueError(f"packs must be at least 1, not {packs}")
    return list(ALL_CARDS) * packs


def shuffled(cards: Sequence[Card], seed: int | None) -> list[Card]:
    """A shuffled copy; the same seed always gives the same order (``random.Random``)."""
    out = list(cards)
    random.Random(seed).shuffle(out)
    return out
