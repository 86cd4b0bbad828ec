"""Settlement of one deal in chips.

The bidder wins by (points - 60) x rate from each active opponent, or loses the same to every
other player at the table, sitting-out players included (seed 002). Exactly 60 pays nothing.
Coeur d'Alene pays a fixed amount per player instead; Solo/Slough's non-active systems decide
whether sitting-out players also pay a winning bidder; Penalty Frog makes a lost Frog pay the
Grand (Heart Solo) rate; a proven revoke scores the bidder 0 or 120 (``RevokePenalty.LOSE_GAME``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from table.frog.rules import Contract, NonActivePayment, RevokePenalty, RuleSet

GAME = 60


class Result(enum.Enum):
    WON = "won"
    LOST = "lost"
    TIE = "tie"  # exactly 60: no payment


@dataclass(frozen=True, slots=True)
class Payment:
    payer: int
    payee: int
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a finished deal pays. ``points`` as played; ``scored`` after any revoke penalty."""

    contract: Contract
    bidder: int
    points: int
    scored: int
    result: Result
    per_player: int
    payments: tuple[Payment, ...]
    revoker: int | None = None

    def net(self, seat: int) -> int:
        """Chips ``seat`` wins (positive) or loses (negative) in this deal."""
        return sum(p.amount for p in self.payments if p.payee == seat) - sum(
            p.amount for p in self.payments if p.payer == seat
        )


def amount_per_player(rules: RuleSet, contract: Contract, scored: int) -> int:
    """Chips each paying player pays (or each paid player receives) for ``scored`` bidder points."""
    lost = scored < GAME
    charged = Contract.GRAND if (lost and contract is Contract.FROG and rules.penalty_frog) else contract
    if scored == GAME:
        return 0
    if rules.fixed_payments is not None:
        return rules.fixed_payments[charged - 1]
    return abs(scored - GAME) * rules.rates[charged - 1]


def settle(
    rules: RuleSet,
    *,
    contract: Contract,
    bidder: int,
    points: int,
    active: Sequence[int],
    table: Sequence[int],
    revoker: int | None = None,
) -> Settlement:
    """Payments for one deal. ``active``: the three playing seats; ``table``: every seat.

    ``revoker``: the seat of the first proven revoke, if any; with ``RevokePenalty.LOSE_GAME`` the
    deal is scored as if the bidder took 0 (the bidder revoked) or 120 (an opponent revoked).
    """
    scored = points
    if revoker is not None and rules.revoke_penalty is RevokePenalty.LOSE_GAME:
        scored = 0 if revoker == bidder else 120
    each = amount_per_player(rules, contract, scored)
    name = rules.name_of(contract)
    if scored == GAME or each == 0:
        return Settlement(contract, bidder, points, scored, Result.TIE, 0, (), revoker)
    payments: list[Payment] = []
    ordered = [s for s in _clockwise_from(bidder, table) if s != bidder]
    if scored > GAME:
        why = f"{name} made with {scored}"
        for seat in ordered:
            if (
                seat in active
                or rules.non_active is NonActivePayment.PAY_AND_RECEIVE
                or (rules.non_active is NonActivePayment.SOLO_BOTH and contract is not Contract.FROG)
            ):
                payments.append(Payment(seat, bidder, each, why))
        return Settlement(contract, bidder, points, scored, Result.WON, each, tuple(payments), revoker)
    why = f"{name} lost with {scored}"
    payments = [Payment(bidder, seat, each, why) for seat in ordered]
    return Settlement(contract, bidder, points, scored, Result.LOST, each, tuple(payments), revoker)


def _clockwise_from(seat: int, table: Sequence[int]) -> list[int]:
    seats = sorted(table)
    i = seats.index(seat) if seat in seats else 0
    return seats[i + 1 :] + seats[: i + 1]
