"""The coin movements as the table says them, and what each finished phase decided."""

from __future__ import annotations

from collections.abc import Sequence

from table.garbage.core import HandResults
from table.garbage.hands import describe
from table.ledger import Entry as LedgerEntry

ACCOUNTS = {"pot": "the pot", "bingo": "the bingo coins", "kitty": "the kitty"}  # the shared accounts, said


def _who(account: str, dealer: int) -> str:
    if account in ACCOUNTS:
        return ACCOUNTS[account]
    seat = account.replace(":", " ")
    return f"the dealer, {seat}," if account == f"seat:{dealer}" else seat


def _coins(n: int) -> str:
    return f"{n} coin{'s' if n != 1 else ''}"


def instructions(entries: Sequence[LedgerEntry], players: int, dealer: int) -> list[str]:
    """The coin movements as the table says them: ``seat 4 pays the pot 6 coins``; payments of one
    amount for one reason to one payee grouped: ``the dealer, seat 2, collects 7 coins from each
    player``; ``seat 1 and seat 3 each pay the pot 2 coins``."""
    lines: list[str] = []
    i = 0
    while i < len(entries):
        e = entries[i]
        j = i + 1
        while (
            j < len(entries)
            and (entries[j].payee, entries[j].amount, entries[j].reason) == (e.payee, e.amount, e.reason)
            and entries[j].payer.startswith("seat:")
        ):
            j += 1
        batch = entries[i:j]
        why = f" ({e.reason})" if e.reason else ""
        if len(batch) > 1 and e.payer.startswith("seat:"):
            payers = [b.payer for b in batch]
            if e.payee == f"seat:{dealer}" and len(batch) == players - 1:
                lines.append(f"the dealer, seat {dealer}, collects {_coins(e.amount)} from each player{why}")
            elif len(batch) == players and e.payee in ACCOUNTS:
                lines.append(f"every player pays {ACCOUNTS[e.payee]} {_coins(e.amount)}{why}")
            else:
                who = ", ".join(p.replace(":", " ") for p in payers[:-1]) + " and " + payers[-1].replace(":", " ")
                lines.append(f"{who} each pay {_who(e.payee, dealer).rstrip(',')} {_coins(e.amount)}{why}")
        else:
            payee = _who(e.payee, dealer).rstrip(",")
            if e.payer in ACCOUNTS:
                lines.append(f"{payee} takes {_coins(e.amount)} from {ACCOUNTS[e.payer]}{why}")
            else:
                lines.append(f"{_who(e.payer, dealer)} pays {payee} {_coins(e.amount)}{why}".replace(",, ", ", "))
        i = j
    return lines


def phase_note(phase: str, dealer: int) -> str:
    return {
        "poker": "antes in, five cards face up to each player",
        "bingo": f"seat {dealer} turns cards; a coin on each card of the rank called",
        "put-and-take": f"seat {dealer}'s hand is set aside; on the k-th card each match puts k, then takes k",
        "count-up": f"hands to the discards; seat {dealer} counts ace to king; a hit pays the dealer its rank",
    }.get(phase, phase)


def phase_lines(results: HandResults, phase: str) -> list[str]:
    """What a finished phase decided, for the table."""
    lines: list[str] = []
    if phase == "poker" and results.poker is not None:
        p = results.poker
        for seat in p.seats:
            if seat in p.values:
                lines.append(f"poker: seat {seat} shows {describe(p.values[seat])}")
        if len(p.winners) == 1:
            lines.append(f"poker: seat {p.winners[0]} wins the pot of {_coins(p.pot)}")
        elif p.winners:
            shares = ", ".join(f"seat {s} {p.shares.get(s, 0)}" for s in p.winners)
            lines.append(
                f"poker: tie between seats {', '.join(map(str, p.winners))}: they share the pot of "
                f"{_coins(p.pot)} ({shares})"
            )
    elif phase == "bingo" and results.bingo is not None:
        b = results.bingo
        if b.abandoned:
            lines.append("bingo: nobody can cover every card (all copies of a rank are in hands): not played")
        elif b.winners:
            who = " and ".join(f"seat {s}" for s in b.winners)
            lines.append(
                f"bingo after {len(b.calls)} calls: {who} {'wins' if len(b.winners) == 1 else 'share'} {_coins(b.pot)}"
            )
        elif b.to_kitty:
            lines.append(f"bingo tied: {_coins(b.to_kitty)} go to the kitty")
    elif phase == "put-and-take" and results.put_and_take is not None:
        pt = results.put_and_take
        lines.append(
            f"put and take over: the dealer collected {_coins(pt.dealer_collected)} and paid "
            f"{_coins(pt.dealer_paid)} for a dry pot"
        )
    elif phase == "count-up" and results.count_up is not None:
        cu = results.count_up
        hits = [t.number for t in cu.turns if t.hit]
        lines.append(
            f"count-up: hits on {', '.join(map(str, hits)) if hits else 'nothing'}; the dealer "
            f"{'wins' if cu.dealer_net >= 0 else 'loses'} {_coins(abs(cu.dealer_net))}"
        )
    return lines
