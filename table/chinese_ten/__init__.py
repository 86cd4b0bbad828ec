"""Chinese Ten and its family (pagat, G4A, Red Frog Black Frog): rules, state, match, bots, records.

The table controller needs only what is exported here; see :mod:`table.chinese_ten.state` for the
verify / can / act protocol.
"""

from table.chinese_ten.match import Match
from table.chinese_ten.moves import LegalMoves, Move
from table.chinese_ten.rules import RULE_SETS, RuleSet, rules_by_name
from table.chinese_ten.scoring import card_points, pack_total, settle
from table.chinese_ten.state import ChineseTenState, Deal, Outcome, Phase, SeatResult

__all__ = [
    "RULE_SETS",
    "ChineseTenState",
    "Deal",
    "LegalMoves",
    "Match",
    "Move",
    "Outcome",
    "Phase",
    "RuleSet",
    "SeatResult",
    "card_points",
    "pack_total",
    "rules_by_name",
    "settle",
]
