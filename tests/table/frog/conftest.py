"""Helpers for the Frog tests: deals from readable hand strings."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table.cards import parse_cards
from table.frog.rules import RuleSet, rule_set
from table.frog.state import FrogDeal

MakeDeal = Callable[..., FrogDeal]


def make_deal(
    hands: dict[int, str] | None = None,
    widow: str | None = None,
    *,
    rules: RuleSet | str = "foster-1909",
    players: int = 3,
    dealer: int = 0,
) -> FrogDeal:
    rs = rule_set(rules) if isinstance(rules, str) else rules
    parsed = None if hands is None else {s: parse_cards(h.split()) for s, h in hands.items()}
    return FrogDeal(
        rs, players=players, dealer=dealer, hands=parsed, widow=None if widow is None else parse_cards(widow.split())
    )


@pytest.fixture
def deal_from() -> MakeDeal:
    return make_deal
