"""Naming a whole deck at once: the assignment (least total cost, each face once), and decks refused with the cards
named: one missing, one doubled, two decks of other sizes mixed."""

from __future__ import annotations

import itertools

import numpy as np

from vision.enrol import FACES, SeenCard, assign, check, name_cards, unsure
from vision.recognizer import LABELS, Recognition


def _brute(cost: np.ndarray) -> float:
    n, m = cost.shape
    if n <= m:
        return float(min(sum(cost[i, c] for i, c in enumerate(cols)) for cols in itertools.permutations(range(m), n)))
    return float(min(sum(cost[r, j] for j, r in enumerate(rows)) for rows in itertools.permutations(range(n), m)))


def test_the_assignment_is_the_cheapest_on_random_costs() -> None:
    rng = np.random.default_rng(3)
    for n, m in [(1, 1), (3, 3), (4, 6), (6, 4), (5, 5), (2, 7)]:
        for _ in range(20):
            cost = rng.random((n, m))
            got = assign(cost)
            used = [c for c in got if c >= 0]
            assert len(used) == len(set(used)) == min(n, m)
            assert np.isclose(sum(cost[i, c] for i, c in enumerate(got) if c >= 0), _brute(cost))


POKER = np.array([[0, 0], [60, 0], [60, 84], [0, 84]], np.float32)
BRIDGE = np.array([[0, 0], [57, 0], [57, 89], [0, 89]], np.float32)


def _card(probs: dict[str, float], corners: np.ndarray = POKER) -> SeenCard:
    faces = np.full(52, 1e-7)
    for face, p in probs.items():
        faces[FACES.index(face)] = p
    outline = Recognition("unknown", 0.0, corners, np.zeros(len(LABELS), np.float32))
    return SeenCard("photo.jpg", outline, faces / faces.sum())


def _deck(rng: np.random.Generator) -> list[SeenCard]:
    return [_card({str(f): 0.97}) for f in rng.permutation(np.array(FACES))]


def test_a_card_read_as_a_face_another_card_surely_is_gets_the_face_left_over() -> None:
    """Card by card, QC would be read twice and QS never; the deck's rule gives the unsure one QS."""
    cards = [c for c in _deck(np.random.default_rng(1)) if c.guess != "QS"]
    cards.append(_card({"QC": 0.55, "QS": 0.35}))
    assert [c.guess for c in cards].count("QC") == 2  # what guessing card by card gives
    enrolment = name_cards(cards, ask=None)
    assert cards[-1].face == "QS"
    assert enrolment.complete
    sure_qc = next(c for c in cards if c.guess == "QC" and c is not cards[-1])
    assert set(unsure(cards)) == {cards[-1], sure_qc}  # the two a user is asked about: which is QC?


def test_a_four_colour_suit_read_as_another_is_not_taken_for_doubled_cards() -> None:
    """A blue 7D read 7S at 0.93 (7D at 0.01) beside the black 7S: the deck is whole, the 7D is the one asked about."""
    cards = [c for c in _deck(np.random.default_rng(6)) if c.guess != "7D"]
    cards.append(_card({"7S": 0.93, "7D": 0.01}))
    enrolment = name_cards(cards, ask=None)
    assert enrolment.complete and cards[-1].face == "7D"


def test_a_missing_card_is_named() -> None:
    cards = [c for c in _deck(np.random.default_rng(2)) if c.guess != "7D"]
    assert name_cards(cards, ask=None).problems == ["missing: 7D (51 cards seen, a deck holds 52)"]


def test_a_doubled_card_is_named_and_the_deck_refused() -> None:
    cards = _deck(np.random.default_rng(3))
    cards.append(_card({"9H": 0.98}))
    problems = name_cards(cards, ask=None).problems
    assert len(problems) == 1 and problems[0].startswith("doubled: 9H (photo.jpg at (30, 42) and photo.jpg")


def test_a_doubled_card_in_place_of_a_missing_one_is_named() -> None:
    cards = [c for c in _deck(np.random.default_rng(3)) if c.guess != "2C"]
    cards.append(_card({"9H": 0.98}))
    problems = name_cards(cards, ask=None).problems
    assert problems[0].startswith("doubled: 9H")


def test_the_users_answer_wins() -> None:
    cards = [c for c in _deck(np.random.default_rng(4)) if c.guess != "2C"]
    cards.append(_card({"2S": 0.5, "2C": 0.3}))  # the generic model's 2S, but the deck's 2S is surely another card
    real_2s = next(c for c in cards if c.guess == "2S" and c is not cards[-1])
    asked: list[SeenCard] = []

    def ask(card: SeenCard) -> str | None:
        asked.append(card)
        return "2S" if card is real_2s else "2C"

    enrolment = name_cards(cards, ask)
    assert set(asked) == {cards[-1], real_2s}  # both claim 2S: both are asked
    assert cards[-1].face == "2C" and real_2s.face == "2S" and enrolment.complete
    assert check(cards) == []


def test_two_decks_of_other_sizes_mixed_are_refused() -> None:
    """A whole deck by its faces, but half of it poker size and half bridge size: two decks mixed."""
    order = [str(f) for f in np.random.default_rng(5).permutation(np.array(FACES))]
    cards = [_card({f: 0.97}, POKER if i % 2 else BRIDGE) for i, f in enumerate(order)]
    problems = name_cards(cards, ask=None).problems
    assert len(problems) == 1 and problems[0].startswith("two decks mixed: cards 1.40 and 1.56")
    assert name_cards([_card({f: 0.97}) for f in order], ask=None).problems == []
