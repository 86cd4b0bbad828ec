"""Poker ranking with several packs (rules.md, Garbage: five of a kind, flush with a duplicated
card, four-flush) checked by hand and against treys and phevaluator on single-pack hands."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import pytest
from phevaluator import evaluate_cards
from treys import Card as TreysCard
from treys import Evaluator

from table.cards import ALL_CARDS, Card, multi_pack, parse_cards
from table.garbage.hands import Category, best_five, best_value, category, describe, rank5, rank5_four_flush


def value(text: str, *, four_flush: bool = False) -> int:
    return best_value(parse_cards(text.split()), four_flush=four_flush)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2C 7D 9H JS KC", Category.HIGH_CARD),
        ("2C 2D 9H JS KC", Category.PAIR),
        ("2C 2D 9H 9S KC", Category.TWO_PAIR),
        ("2C 2D 2H 9S KC", Category.THREE_OF_A_KIND),
        ("AC 2D 3H 4S 5C", Category.STRAIGHT),
        ("TC JD QH KS AC", Category.STRAIGHT),
        ("2H 7H 9H JH KH", Category.FLUSH),
        ("2C 2D 2H 9S 9C", Category.FULL_HOUSE),
        ("2C 2D 2H 2S KC", Category.FOUR_OF_A_KIND),
        ("9H TH JH QH KH", Category.STRAIGHT_FLUSH),
        ("9C 9D 9H 9S 9C", Category.FIVE_OF_A_KIND),
    ],
)
def test_every_category_is_recognised(text: str, expected: Category) -> None:
    assert category(value(text)) is expected


def test_five_of_a_kind_beats_a_straight_flush_rules_md() -> None:
    """rules.md: with two or three decks five of a kind ranks above a straight flush."""
    assert value("2C 2D 2H 2S 2C") > value("TS JS QS KS AS")
    assert value("3C 3D 3H 3S 3C") > value("2C 2D 2H 2S 2D")


def test_a_flush_with_a_duplicated_card_is_still_a_flush_rules_md() -> None:
    """rules.md: a flush with a duplicated card is still a flush; it beats the pair inside it."""
    dup = value("AH AH 9H 5H 2H")
    assert category(dup) is Category.FLUSH
    assert dup > value("AH KH 9H 5H 2H")  # A A beats A K on the second card
    assert category(value("7H 7H 7H 2H 3H")) is Category.FLUSH  # beats its three of a kind
    assert category(value("7H 7H 7H 2H 2H")) is Category.FULL_HOUSE  # full house keeps its rank


def test_four_flush_ranks_between_a_pair_and_two_pairs_seed_variation() -> None:
    """Seed 004, poker variations: a four-flush beats a pair but loses to two pairs."""
    four = value("2H 7H 9H JH KC", four_flush=True)
    assert category(four) is Category.FOUR_FLUSH
    assert value("AC AD 9H JS KC", four_flush=True) < four < value("2C 2D 3H 3S 4C", four_flush=True)
    # without the variation the same cards are only king high
    assert category(value("2H 7H 9H JH KC")) is Category.HIGH_CARD
    # a four-flush holding a pair counts as the four-flush; higher four-flush cards win
    assert category(value("7H 7S 9H JH KH", four_flush=True)) is Category.FOUR_FLUSH
    assert value("3H 7H 9H AH 2C", four_flush=True) > value("3S 7S 9S KS 2C", four_flush=True)
    assert rank5_four_flush(parse_cards("2C 2D 3H 3S 4C".split())) == rank5(parse_cards("2C 2D 3H 3S 4C".split()))


def test_seven_cards_make_the_best_five_seed_variation() -> None:
    """Seed 004: seven cards each, the best five-card hand counts."""
    cards = parse_cards("2C 3C 4C 5C 9D 9S 6C".split())
    assert category(best_value(cards)) is Category.STRAIGHT_FLUSH
    assert set(best_five(cards)) == set(parse_cards("2C 3C 4C 5C 6C".split()))
    assert category(best_value(parse_cards("9C 9D 9H KS KD 2C 3D".split()))) is Category.FULL_HOUSE
    assert best_value(parse_cards("AC AD 2H 2S 7C 8D KH".split())) == value("AC AD 2H 2S KH")


def test_ties_are_equal_values_whatever_the_suits() -> None:
    assert value("AH KH QD JD 9C") == value("AS KS QC JC 9D")
    assert value("AC 2D 3H 4S 5C") < value("2C 3D 4H 5S 6C")  # the wheel is the lowest straight


def test_describe_names_the_hand() -> None:
    assert describe(value("KC KD 7H 7S 5C")) == "two pair, K and 7 (kicker 5)"
    assert describe(value("9C 9D 9H 9S 9C")) == "five of a kind, 9"
    assert describe(value("AC 2D 3H 4S 5C")) == "straight, 5 high"


def test_too_few_cards_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least five"):
        best_value(parse_cards("AC 2D".split()))


def _treys(card: Card) -> int:
    text = str(card)
    return int(TreysCard.new(text[0] + text[1].lower()))


@pytest.mark.parametrize("size", [5, 7])
def test_ordering_agrees_with_treys_on_random_single_pack_hands(size: int) -> None:
    """Oracle: the same strict order as treys over 4,000 random single-pack hands."""
    rng = random.Random(size)
    evaluator = Evaluator()
    ours, theirs = [], []
    for _ in range(4000):
        cards = rng.sample(ALL_CARDS, size)
        ours.append(best_value(cards))
        theirs.append(-evaluator.evaluate([_treys(c) for c in cards[:2]], [_treys(c) for c in cards[2:]]))
    order = sorted(range(len(ours)), key=lambda i: ours[i])
    for a, b in pairwise(order):
        assert (ours[a] < ours[b]) == (theirs[a] < theirs[b]), (ours[a], ours[b])
        assert (ours[a] == ours[b]) == (theirs[a] == theirs[b])


def test_ordering_agrees_with_phevaluator_on_random_single_pack_hands() -> None:
    rng = random.Random(11)
    hands = [rng.sample(ALL_CARDS, 5) for _ in range(4000)]
    ours = [rank5(h) for h in hands]
    theirs = [-evaluate_cards(*(str(c)[0] + str(c)[1].lower() for c in h)) for h in hands]
    for i, j in combinations(range(0, 4000, 40), 2):
        assert (ours[i] < ours[j]) == (theirs[i] < theirs[j])
        assert (ours[i] == ours[j]) == (theirs[i] == theirs[j])


def test_multi_pack_hands_rank_by_hand_rules() -> None:
    """Random three-pack hands: the value agrees with categories worked out from counts."""
    rng = random.Random(3)
    pack = multi_pack(3)
    for _ in range(3000):
        cards = rng.sample(pack, 5)
        counts = sorted((sum(c.rank == d.rank for d in cards) for c in cards), reverse=True)
        one_suit = len({c.suit for c in cards}) == 1
        cat = category(rank5(cards))
        if counts[0] == 5:
            assert cat is Category.FIVE_OF_A_KIND
        elif counts[0] == 4:
            assert cat is Category.FOUR_OF_A_KIND
        elif counts[:5] == [3, 3, 3, 2, 2]:
            assert cat is Category.FULL_HOUSE
        elif one_suit:
            assert cat in (Category.FLUSH, Category.STRAIGHT_FLUSH)
        elif counts[0] == 3:
            assert cat is Category.THREE_OF_A_KIND
        elif counts[0] == 2:
            assert cat in (Category.PAIR, Category.TWO_PAIR)


def test_four_flush_exactly_when_four_of_one_suit_and_less_than_two_pairs() -> None:
    """Seed variation: the four-flush is four cards of one suit; it only lifts hands below two pairs."""
    rng = random.Random(5)
    pack = multi_pack(2)
    for _ in range(3000):
        cards = rng.sample(pack, 5)
        plain = rank5(cards)
        most = max(sum(c.suit is d.suit for d in cards) for c in cards)
        lifted = category(rank5_four_flush(cards)) is Category.FOUR_FLUSH
        assert lifted == (most == 4 and category(plain) < Category.TWO_PAIR)
        if not lifted:
            assert rank5_four_flush(cards) == plain
