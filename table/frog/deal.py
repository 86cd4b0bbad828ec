"""Who plays, and the deal as data: the packet order the dealer machine executes.

A deal plan is a tuple of :class:`DealStep` ``(target, count)``: ``target`` is ``"seat:N"`` or
``"widow"`` (Solo/Slough's slough), ``count`` the cards given there in one go. The dealer machine
(or :func:`deal_cards` for a simulated pack) walks the steps in order, taking cards off the top.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from table.cards import Card
from table.errors import ConfigError
from table.frog.rules import DealStyle, RuleSet, Seating

WIDOW = "widow"
HAND_SIZE = 11
WIDOW_SIZE = 3


@dataclass(frozen=True, slots=True)
class DealStep:
    """Give ``count`` cards, face down, to ``target`` (``"seat:N"`` or ``"widow"``)."""

    target: str
    count: int

    @property
    def seat(self) -> int | None:
        """The seat number, or ``None`` for the widow."""
        return None if self.target == WIDOW else int(self.target[5:])

    def as_json(self) -> list[object]:
        return [self.target, self.count]


def check_players(rules: RuleSet, players: int) -> None:
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not (rules.min_players <= players <= rules.max_players)
    ):
        raise ConfigError(
            "players", f"{rules.name} is for {rules.min_players} to {rules.max_players} players, not {players!r}"
        )


def active_seats(rules: RuleSet, players: int, dealer: int) -> tuple[int, int, int]:
    """The three seats that play, eldest (dealer's left) first, then clockwise.

    Three players: all, the dealer last. Four: the dealer sits out. Five (Foster): the two on the
    dealer's left and the one on the right. Six or seven, or five with ``Seating.AFTER_DEALER``:
    the three after the dealer.
    """
    check_players(rules, players)
    if not 0 <= dealer < players:
        raise ConfigError("dealer", f"dealer must be a seat 0..{players - 1}, not {dealer}")
    if players == 5 and rules.seating is Seating.FOSTER:
        return ((dealer + 1) % 5, (dealer + 2) % 5, (dealer + 4) % 5)
    return ((dealer + 1) % players, (dealer + 2) % players, (dealer + 3) % players)


def sitting_out(rules: RuleSet, players: int, dealer: int) -> tuple[int, ...]:
    """Seats dealt no cards this deal, clockwise from the dealer's left."""
    playing = active_seats(rules, players, dealer)
    return tuple(s % players for s in range(dealer + 1, dealer + 1 + players) if s % players not in playing)


@functools.lru_cache(maxsize=256)
def deal_plan(rules: RuleSet, players: int, dealer: int) -> tuple[DealStep, ...]:
    """The packet order for this deal: 3-(3)-4-4, 4-(3)-3-4 or singly with cards 1, 4, 8 to the slough.

    Packets go to the active seats in clockwise order from eldest; the steps total 36 cards,
    11 per active seat and 3 to the widow.
    """
    seats = active_seats(rules, players, dealer)
    targets = [f"seat:{s}" for s in seats]
    steps: list[DealStep] = []
    if rules.deal_style is DealStyle.SINGLE_1_4_8:
        slough_at = {1, 4, 8}
        turn = 0
        for position in range(1, 37):
            if position in slough_at:
                steps.append(DealStep(WIDOW, 1))
            else:
                steps.append(DealStep(targets[turn % 3], 1))
                turn += 1
        return tuple(steps)
    first, later = (3, (4, 4)) if rules.deal_style is DealStyle.PACKETS_3_3_4_4 else (4, (3, 4))
    steps.extend(DealStep(t, first) for t in targets)
    steps.append(DealStep(WIDOW, WIDOW_SIZE))
    for size in later:
        steps.extend(DealStep(t, size) for t in targets)
    return tuple(steps)


def deal_cards(plan: Sequence[DealStep], pack: Sequence[Card]) -> tuple[dict[int, list[Card]], list[Card]]:
    """Execute a plan on a pack (top card first): the hands by seat and the widow."""
    total = sum(step.count for step in plan)
    if len(pack) != total:
        raise ConfigError("pack", f"the plan deals {total} cards, the pack has {len(pack)}")
    hands: dict[int, list[Card]] = {}
    widow: list[Card] = []
    at = 0
    for step in plan:
        seat = step.seat
        dest = widow if seat is None else hands.setdefault(seat, [])
        dest.extend(pack[at : at + step.count])
        at += step.count
    return hands, widow
