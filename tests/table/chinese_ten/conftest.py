"""Helpers for the Chinese Ten tests: states from readable card strings."""

from __future__ import annotations

import pytest

from table.cards import Card, parse_cards, standard_pack
from table.chinese_ten import ChineseTenState, RuleSet, rules_by_name


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def referee(
    layout: str, *, players: int = 2, dealer: int = 0, rules: RuleSet | str = "pagat", **options: object
) -> ChineseTenState:
    """A state as a referee at a real table sees it: layout known, hands hidden, stock unseen."""
    rs = rules_by_name(rules, **options) if isinstance(rules, str) else rules
    return ChineseTenState(rs, players=players, dealer=dealer, layout=cards(layout))


def known(
    layout: str,
    hands: dict[int, str],
    *,
    stock: str = "",
    players: int = 2,
    dealer: int = 0,
    rules: RuleSet | str = "pagat",
    **options: object,
) -> ChineseTenState:
    """A fully known deal: the given hand cards first, the rest filled from the pack in order,
    then the given stock cards on top of the rest of the pack."""
    rs = rules_by_name(rules, **options) if isinstance(rules, str) else rules
    used = set(cards(layout)) | set(cards(stock)) | {c for h in hands.values() for c in cards(h)}
    spare = [c for c in standard_pack() if c not in used]
    size = 24 // players
    full_hands = []
    for seat in range(players):
        hand = cards(hands.get(seat, ""))
        while len(hand) < size:
            hand.append(spare.pop(0))
        full_hands.append(hand)
    full_stock = cards(stock) + spare
    return ChineseTenState(rs, players=players, dealer=dealer, layout=cards(layout), hands=full_hands, stock=full_stock)


class Helpers:
    """Passed to tests as the ``ct`` fixture (importlib mode cannot import conftest directly)."""

    cards = staticmethod(cards)
    referee = staticmethod(referee)
    known = staticmethod(known)


@pytest.fixture
def ct() -> type[Helpers]:
    return Helpers
