"""A deal settled in chips, and the game's end."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.cards import Card
from table.controller.referee import Action
from table.frog.play import POINTS
from table.frog.referee.base import (
    GAME,
    FrogTable,
    Stage,
)
from table.frog.state import FrogDeal


class Settling(FrogTable):
    def _settle(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        self.to_gather.extend(self.trick_now)
        self.trick_now = []
        self.gather_winner = None
        entries = self.match.finish(deal)
        for seat, pts in deal.points().items():
            self.points[seat] += pts
        summary = deal_summary(deal)
        self.deal_results.append(summary)
        settlement = deal.settlement
        if settlement is not None:
            out.append(
                self._say(
                    f"deal {self.deal_no}: seat {settlement.bidder} "
                    f"{self.rules.name_of(settlement.contract)} scores {settlement.scored} "
                    f"({settlement.result.value})"
                )
            )
        for e in entries:
            if e.amount:
                out.append(
                    {
                        "do": "pay",
                        "deal": self.deal_no,
                        "payer": e.payer,
                        "payee": e.payee,
                        "amount": e.amount,
                        "reason": e.reason,
                    }
                )
                out.append(
                    self._say(
                        f"{e.payer.replace(':', ' ')} pays {e.payee.replace(':', ' ')} {e.amount} "
                        f"chip{'s' if e.amount != 1 else ''} ({e.reason})"
                    )
                )
        out.append(
            {
                "do": "deal-over",
                "deal": self.deal_no,
                "summary": summary,
                "balances": [self.match.balance(s) for s in range(self.players)],
            }
        )
        for s in self.match.shortfalls[len(self.match.shortfalls) - (1 if self.match.over else 0) :]:
            out.append(self._say(f"seat {s[0]} cannot pay {s[2]} chips: seat {s[0]} loses the game"))
        if self.match.over or self.deal_no >= self.deals_to_play:
            self._finish(out)
            return
        self.stage = Stage.NEXT
        if self.dealer_machine:
            out.append(
                {
                    "do": "prompt",
                    "seat": self.match.dealer,
                    "text": f"gather the cards and load the dealer "
                    f"machine; seat {self.match.dealer} deals next: press to deal",
                }
            )
        else:
            self.deal_no += 1
            self._begin_deal(out)

    def _finish(self, out: list[Action]) -> None:
        self.stage = Stage.OVER
        self.choice = None
        self._result = {
            "game": GAME,
            "rules": self.rules.name,
            "players": self.players,
            "over": True,
            "seats": [{"seat": s, "points": self.points[s], "chips": self.match.net(s)} for s in range(self.players)],
            "deals": list(self.deal_results),
        }
        if self.rules.starting_chips:
            self._result["balances"] = [self.match.balance(s) for s in range(self.players)]
            self._result["loser"] = self.match.loser
        out.append({"do": "over", "result": self._result})
        out.append(
            self._say("game over: " + ", ".join(f"seat {s} {self.match.net(s):+d} chips" for s in range(self.players)))
        )


def deal_summary(deal: FrogDeal) -> dict[str, Any]:
    """One deal's outcome in the shape of ``cardtable replay``'s Frog ``deals`` entries."""
    out: dict[str, Any] = {"dealer": deal.dealer, "active": list(deal.active), "phase": deal.phase.value}
    if deal.contract is not None:
        out.update(contract=deal.contract.word, bidder=deal.bidder, trump=deal.trump.char if deal.trump else None)
    points = deal.points()
    out["points"] = [points[s] for s in range(deal.players)]
    settlement = deal.settlement
    if settlement is not None:
        out["result"] = settlement.result.value
        out["scored"] = settlement.scored
        out["chips"] = [settlement.net(s) for s in range(deal.players)]
    if deal.revokes:
        out["revokes"] = [r.as_json() for r in deal.revokes]
    return out


def trick_points(cards: Iterable[Card]) -> int:
    return sum(POINTS[c.index] for c in cards)
