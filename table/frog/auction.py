"""The auction: one round from eldest, Frog < Chico < Grand, and the Frog bidder's raise to Grand.

Each active player speaks once, eldest first: pass or a contract higher than the standing bid.
When a Chico overcalls a standing Frog (and Grand is in the rule set), the Frog bidder speaks again at
once: raise to Grand or pass. The auction closes as soon as nobody left could bid higher (after a
Grand, the rest cannot overcall, so they are not asked). All pass: no game.
"""

from __future__ import annotations

from collections.abc import Sequence

from table.errors import IllegalMoveError
from table.frog.rules import Contract, RuleSet


class Auction:
    """State of one auction. ``bid(seat, None)`` is a pass."""

    __slots__ = ("rules", "seats", "_next", "_raiser", "high", "bidder", "done", "calls")

    def __init__(self, rules: RuleSet, seats: Sequence[int]) -> None:
        self.rules = rules
        self.seats = tuple(seats)
        self._next = 0  # index into seats of the next first-round speaker
        self._raiser: int | None = None  # a Frog bidder just overcalled by Chico
        self.high: Contract | None = None
        self.bidder: int | None = None
        self.done = False
        self.calls: list[tuple[int, Contract | None]] = []

    @property
    def to_speak(self) -> int | None:
        if self.done:
            return None
        return self._raiser if self._raiser is not None else self.seats[self._next]

    @property
    def raising(self) -> bool:
        """Whether the seat to speak is a Frog bidder who may raise to Grand."""
        return self._raiser is not None

    def legal_calls(self) -> list[Contract | None]:
        """``None`` (pass) and the contracts the seat to speak may bid."""
        if self.done:
            return []
        if self._raiser is not None:
            return [None, Contract.GRAND]
        return [None, *(c for c in self.rules.contracts if self.high is None or c > self.high)]

    def verify(self, seat: int, call: Contract | None) -> None:
        turn = self.to_speak
        if turn is None:
            raise IllegalMoveError(f"seat {seat} cannot bid: the auction is over")
        if seat != turn:
            raise IllegalMoveError(f"seat {seat} cannot bid now: it is seat {turn}'s turn to speak")
        if call is None:
            return
        name = self.rules.name_of(call)
        if call not in self.rules.contracts:
            raise IllegalMoveError(f"seat {seat} cannot bid {name}: {self.rules.name} has no such contract")
        if self._raiser is not None:
            if call is not Contract.GRAND:
                raise IllegalMoveError(
                    f"seat {seat}, overcalled by {self.rules.name_of(Contract.CHICO)}, may only raise to "
                    f"{self.rules.name_of(Contract.GRAND)} or pass, not bid {name}"
                )
            return
        if self.high is not None and call <= self.high:
            raise IllegalMoveError(
                f"seat {seat} cannot bid {name}: a bid must be higher than the standing "
                f"{self.rules.name_of(self.high)} of seat {self.bidder}"
            )

    def apply(self, seat: int, call: Contract | None) -> None:
        self.verify(seat, call)
        self.calls.append((seat, call))
        if self._raiser is not None:
            self._raiser = None
            if call is not None:
                self.high, self.bidder = call, seat
        else:
            self._next += 1
            if call is not None:
                if call is Contract.CHICO and self.high is Contract.FROG and Contract.GRAND in self.rules.contracts:
                    self._raiser = self.bidder
                self.high, self.bidder = call, seat
        if self._raiser is None and (self._next >= len(self.seats) or self.high is self.rules.contracts[-1]):
            self.done = True
