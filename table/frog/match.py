"""A session at one table: deals in turn, the dealer passing left, chips in a conserved ledger.

Accounts are ``"seat:N"``. Frog and Modern start every balance at 0 (the sum stays 0); Solo/Slough
sets start with 120 each (11 ten-chips and 10 one-chips), and the first player unable to pay
loses the game: that player pays what is left, the shortfall is noted, and the match is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from table.cards import Card
from table.errors import IllegalMoveError
from table.frog.deal import DealStep, check_players, deal_plan
from table.frog.rules import RuleSet
from table.frog.state import FrogDeal
from table.ledger import Entry, Ledger


def account(seat: int) -> str:
    return f"seat:{seat}"


class FrogMatch:
    """Deals at a table of ``players`` seats; ``first_dealer`` deals first (seed 002 leaves the choice
    to the table). Use ``plan()``, ``new_deal()``, drive the deal, then ``finish(deal)``."""

    def __init__(self, rules: RuleSet, players: int, *, first_dealer: int = 0) -> None:
        check_players(rules, players)
        self.rules = rules
        self.players = players
        self.dealer = first_dealer % players
        self.ledger = Ledger.with_accounts((account(s) for s in range(players)), start=rules.starting_chips)
        self.deals: list[FrogDeal] = []
        self.loser: int | None = None
        self.shortfalls: list[tuple[int, int, int]] = []  # (payer, payee, chips unpaid)
        self._open: FrogDeal | None = None

    @property
    def over(self) -> bool:
        """True once a player could not pay (Solo/Slough sets); other sets end when the table stops."""
        return self.loser is not None

    def plan(self) -> tuple[DealStep, ...]:
        """The packet order for the next deal, for the dealer machine."""
        return deal_plan(self.rules, self.players, self.dealer)

    def new_deal(
        self, *, hands: Mapping[int, Iterable[Card]] | None = None, widow: Iterable[Card] | None = None
    ) -> FrogDeal:
        """Start the next deal with the current dealer (hands known or hidden, as for FrogDeal)."""
        if self.over:
            raise IllegalMoveError(f"the match is over: seat {self.loser} could not pay")
        if self._open is not None:
            raise IllegalMoveError("finish the deal in progress before dealing again")
        deal = FrogDeal(self.rules, players=self.players, dealer=self.dealer, hands=hands, widow=widow)
        self._open = deal
        return deal

    def finish(self, deal: FrogDeal) -> list[Entry]:
        """Pay the deal's settlement into the ledger and pass the deal to the left."""
        if deal is not self._open:
            raise IllegalMoveError("that deal is not the one in progress")
        if not deal.over:
            raise IllegalMoveError(f"the deal is not over yet (phase {deal.phase.value})")
        entries: list[Entry] = []
        number = len(self.deals) + 1
        settlement = deal.settlement
        for pay in settlement.payments if settlement else ():
            amount = pay.amount
            if self.rules.bust_ends_match:
                have = self.ledger.balance(account(pay.payer))
                if have < amount:
                    self.shortfalls.append((pay.payer, pay.payee, amount - have))
                    if self.loser is None:
                        self.loser = pay.payer
                    amount = max(have, 0)
            entries.append(
                self.ledger.transfer(
                    account(pay.payer),
                    account(pay.payee),
                    amount,
                    pay.reason,
                    phase=deal.contract.word if deal.contract else "",
                    deal=number,
                )
            )
        self.deals.append(deal)
        self._open = None
        self.dealer = (self.dealer + 1) % self.players
        return entries

    def balance(self, seat: int) -> int:
        return self.ledger.balance(account(seat))

    def net(self, seat: int) -> int:
        """Chips won (positive) or lost since the start."""
        return self.balance(seat) - self.rules.starting_chips
