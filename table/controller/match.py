"""A match: deals one after another, the deal passing left, totals kept in the journal.

G4A plays to 1000 points (the rule set's ``match_target``: the match ends once a total reaches it
with a single leader); pagat and Red Frog Black Frog add up each deal's margin over a fixed number
of deals. A redeal (the redeal rule) counts nothing and the same dealer deals again.

:class:`MatchPlan` is pure bookkeeping over the journal, so a killed match resumes with the deal it
was in: ``next_deal()`` says which deal (number, dealer) to play; ``record(result)`` after each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from table.journal import Journal


@dataclass
class MatchPlan:
    journal: Journal
    key: str
    game: str
    rules: str
    players: int
    first_dealer: int = 0
    deals: int = 1  # deals to play when there is no target
    target: int | None = None  # points to reach (G4A: 1000)
    totals_of: str = "margin"  # "points" (G4A) or "margin"
    match_id: int = 0
    results: list[dict[str, Any]] = field(default_factory=list)
    redeals: int = 0

    def __post_init__(self) -> None:
        row = self.journal.open_match(self.key)
        if row is None:
            self.match_id = self.journal.new_match(
                key=self.key,
                game=self.game,
                rules=self.rules,
                players=self.players,
                meta={"deals": self.deals, "target": self.target, "totals": self.totals_of},
            )
            return
        self.match_id = row.id
        for game in self.journal.games(match_id=row.id):
            if game.status == "finished" and game.result:
                self.results.append(game.result)
            elif game.status == "redeal":
                self.redeals += 1

    @property
    def totals(self) -> list[float]:
        totals = [0.0] * self.players
        for result in self.results:
            for seat in result["seats"]:
                totals[seat["seat"]] += seat["points" if self.totals_of == "points" else "margin"]
        return [int(t) if float(t).is_integer() else round(t, 2) for t in totals]

    @property
    def over(self) -> bool:
        if self.target is not None:
            totals = self.totals
            best = max(totals)
            return bool(self.results) and best >= self.target and totals.count(best) == 1
        return len(self.results) >= self.deals

    def next_deal(self) -> tuple[int, int]:
        """(deal number from 1, dealer seat): the deal passes left after each counted deal."""
        number = len(self.results) + self.redeals + 1
        return number, (self.first_dealer + len(self.results)) % self.players

    def record(self, result: dict[str, Any] | None) -> None:
        if result is None:
            self.redeals += 1
        else:
            self.results.append(result)
        if self.over:
            self.journal.finish_match(self.match_id, self.summary())

    def summary(self) -> dict[str, Any]:
        totals = self.totals
        best = max(totals)
        return {
            "deals": len(self.results),
            "redeals": self.redeals,
            "totals_of": self.totals_of,
            "totals": {str(i): t for i, t in enumerate(totals)},
            "leaders": [i for i, t in enumerate(totals) if t == best],
            "target": self.target,
        }
