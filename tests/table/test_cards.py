import copy
import pickle

import pytest

from table.cards import (
    ALL_CARDS,
    Card,
    Colour,
    Rank,
    Suit,
    frog_pack,
    multi_pack,
    shuffled,
    standard_pack,
)
from table.errors import CardParseError


@pytest.mark.parametrize(
    "text, rank, suit",
    [
        ("AS", Rank.ACE, Suit.SPADES),
        ("TD", Rank.TEN, Suit.DIAMONDS),
        ("10d", Rank.TEN, Suit.DIAMONDS),
        ("7h", Rank.SEVEN, Suit.HEARTS),
        ("A♠", Rank.ACE, Suit.SPADES),
        ("10♦", Rank.TEN, Suit.DIAMONDS),
        (" qc ", Rank.QUEEN, Suit.CLUBS),
        ("K♥", Rank.KING, Suit.HEARTS),
    ],
)
def test_parse_accepts_every_documented_form(text: str, rank: Rank, suit: Suit) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card is Card(rank, suit)


@pytest.mark.parametrize("text", ["", "A", "1Z", "11S", "XS", "AS ", "ASD", "0H", None, 12])
def test_parse_rejects_anything_else_with_a_clear_error(text: object) -> None:
    if text == "AS ":
        assert Card.parse("AS ") is Card.parse("AS")  # surrounding spaces are tolerated
        return
    with pytest.raises(CardParseError, match="not a card"):
        Card.parse(text)  # type: ignore[arg-type]
    assert issubclass(CardParseError, ValueError)


def test_prints_the_two_character_form_and_reprs_read_back() -> None:
    card = Card.parse("10♦")
    assert str(card) == "TD"
    assert card.symbol_text == "10♦"
    assert eval(repr(card)) is card


def test_cards_are_immutable_hashable_and_survive_copy_and_pickle() -> None:
    card = Card.parse("QH")
    with pytest.raises(AttributeError):
        card.rank = Rank.KING
    assert {card, Card.parse("qh")} == {card}
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy([card])[0] is card


def test_colour_follows_suit() -> None:
    assert Card.parse("2H").colour is Colour.RED and Card.parse("2D").is_red
    assert Card.parse("2S").colour is Colour.BLACK and not Card.parse("2C").is_red


def test_packs() -> None:
    assert len(standard_pack()) == 52 and len(set(standard_pack())) == 52
    frog = frog_pack()
    assert len(frog) == 36 and all(c.rank == Rank.ACE or c.rank >= Rank.SIX for c in frog)
    three = multi_pack(3)
    assert len(three) == 156 and three.count(Card.parse("AS")) == 3
    with pytest.raises(ValueError):
        multi_pack(0)


def test_seeded_shuffles_repeat_and_differ_by_seed() -> None:
    a, b, c = shuffled(ALL_CARDS, 7), shuffled(ALL_CARDS, 7), shuffled(ALL_CARDS, 8)
    assert a == b and a != c and sorted(a) == sorted(ALL_CARDS)
