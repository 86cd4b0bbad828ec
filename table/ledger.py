"""A conserved ledger of chips or coins: every movement is an entry, nothing is created or lost.

Frog keeps chips across deals with it, Garbage keeps coins (with pots and kitties as accounts).
Accounts are strings: ``"seat:3"``, ``"pot"``, ``"kitty"``. The sum over all accounts never changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from table.errors import TableError


class LedgerError(TableError, ValueError):
    """A movement the ledger refuses (negative amount, unknown account)."""


@dataclass(frozen=True, slots=True)
class Entry:
    payer: str
    payee: str
    amount: int
    reason: str
    phase: str = ""
    deal: int = 0

    def describe(self) -> str:
        """A plain instruction for the table: ``seat 3 pays seat 1 2 coins (bingo)``."""

        def name(account: str) -> str:
            return account.replace(":", " ")

        unit = "coin" if self.amount == 1 else "coins"
        why = f" ({self.reason})" if self.reason else ""
        return f"{name(self.payer)} pays {name(self.payee)} {self.amount} {unit}{why}"


@dataclass
class Ledger:
    """Balances per account plus the list of entries that produced them."""

    balances: dict[str, int] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def with_accounts(cls, accounts: Iterable[str], *, start: int = 0) -> Ledger:
        return cls(balances={a: start for a in accounts})

    @property
    def total(self) -> int:
        return sum(self.balances.values())

    def balance(self, account: str) -> int:
        try:
            return self.balances[account]
        except KeyError:
            raise LedgerError(f"unknown account {account!r}") from None

    def open(self, account: str) -> None:
        self.balances.setdefault(account, 0)

    def transfer(
        self, payer: str, payee: str, amount: int, reason: str = "", *, phase: str = "", deal: int = 0
    ) -> Entry:
        if amount < 0:
            raise LedgerError(f"negative transfer {amount} from {payer} to {payee}")
        for account in (payer, payee):
            if account not in self.balances:
                raise LedgerError(f"unknown account {account!r}")
        entry = Entry(payer, payee, amount, reason, phase, deal)
        self.balances[payer] -= amount
        self.balances[payee] += amount
        self.entries.append(entry)
        return entry

    def snapshot(self) -> Mapping[str, int]:
        return dict(self.balances)
