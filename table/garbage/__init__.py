"""Garbage: poker, bingo, put and take and count-up with one set of cards, and a coin ledger.

The controller's entry points: :class:`GarbageGame` (drive with ``step`` / ``supply`` / ``play``),
:class:`GarbageRules` and ``RULE_SETS`` / :func:`rules_named`, :class:`Move`, the requests
:class:`AwaitCard` / :class:`AwaitMove`, and :mod:`table.garbage.hands` for poker values.
"""

from table.garbage.core import AwaitCard, AwaitMove, HandResults, Move, announce
from table.garbage.rules import RULE_SETS, GarbageRules, rules_named
from table.garbage.state import DeckFeeder, GameOver, GarbageGame

__all__ = [
    "AwaitCard",
    "AwaitMove",
    "DeckFeeder",
    "GameOver",
    "GarbageGame",
    "GarbageRules",
    "HandResults",
    "Move",
    "RULE_SETS",
    "announce",
    "rules_named",
]
