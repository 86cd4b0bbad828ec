"""What the Garbage engine asks for, what it is given, and one hand's shared state.

The phases (``poker``, ``bingo``, ``put_and_take``, ``count_up``) are generators: each yields an
:class:`AwaitCard` (the table must supply the next card turned or dealt) or an :class:`AwaitMove`
(a player must decide) and receives the card or move back. :class:`~table.garbage.state.GarbageGame`
drives them, checks every card and move before sending it, and keeps the history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field

from table.cards import Card
from table.garbage.rules import GarbageRules
from table.ledger import Entry, Ledger

POT = "pot"  # the poker pot, then the put-and-take pot
BINGO = "bingo"  # coins placed on cards in bingo
KITTY = "kitty"  # a bingo kitty carried over, and odd coins when odd_coins="kitty"


def seat_account(seat: int) -> str:
    return f"seat:{seat}"


@dataclass(frozen=True, slots=True)
class AwaitCard:
    """The engine needs the next card from the stock.

    ``purpose``: ``deal`` (to ``seat``, its ``number``-th card), ``buy`` (an extra card for ``seat``),
    ``call`` (bingo), ``put`` / ``take`` (put and take, ``number`` = k), ``count`` (count-up).
    """

    phase: str
    purpose: str
    seat: int | None
    number: int

    def describe(self) -> str:
        if self.purpose == "deal":
            return f"deal card {self.number} face up to seat {self.seat}"
        if self.purpose == "buy":
            return f"deal the bought card to seat {self.seat}"
        if self.purpose == "call":
            return f"turn bingo call {self.number}"
        if self.purpose in ("put", "take"):
            return f"turn card {self.number} of the {self.purpose} half (each match {self.purpose}s {self.number})"
        return f"turn count-up card {self.number} while counting {_COUNT_WORDS[self.number - 1]}"


_COUNT_WORDS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king")


MOVE_KINDS = ("buy", "stand", "discard", "check", "bet", "call", "raise", "fold")


@dataclass(frozen=True, slots=True)
class Move:
    """A player's decision. ``card`` only for ``discard`` (the card given up after buying)."""

    seat: int
    kind: str
    card: Card | None = None

    def __str__(self) -> str:
        verbs = {
            "buy": "buys a card",
            "stand": "does not buy",
            "check": "checks",
            "bet": "bets",
            "call": "calls",
            "raise": "raises",
            "fold": "folds",
        }
        if self.kind == "discard":
            return f"seat {self.seat} discards {self.card}"
        return f"seat {self.seat} {verbs.get(self.kind, self.kind)}"


@dataclass(frozen=True, slots=True)
class AwaitMove:
    """A player must decide: ``kinds`` are the legal kinds, ``cards`` the cards a discard may name."""

    phase: str
    seat: int
    kinds: tuple[str, ...]
    prompt: str
    cards: tuple[Card, ...] = ()

    def legal_moves(self) -> list[Move]:
        moves: list[Move] = []
        for kind in self.kinds:
            if kind == "discard":
                moves.extend(Move(self.seat, kind, c) for c in dict.fromkeys(self.cards))
            else:
                moves.append(Move(self.seat, kind))
        return moves

    def describe(self) -> str:
        return f"seat {self.seat}: {self.prompt}"


Request = AwaitCard | AwaitMove
PhaseGen = Generator[Request, "Card | Move", None]


# -- per-phase results, filled in as the phase runs (display reads them at any time) --------------


@dataclass
class PokerResult:
    seats: list[int] = field(default_factory=list)  # who played the poker hand
    folded: list[int] = field(default_factory=list)
    bought: dict[int, tuple[Card, Card]] = field(default_factory=dict)  # seat -> (bought, discarded)
    values: dict[int, int] = field(default_factory=dict)  # seat -> hands.best_value
    described: dict[int, str] = field(default_factory=dict)
    best_five: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    winners: list[int] = field(default_factory=list)
    pot: int = 0
    shares: dict[int, int] = field(default_factory=dict)  # seat -> coins won


@dataclass
class BingoResult:
    seats: list[int] = field(default_factory=list)
    calls: list[Card] = field(default_factory=list)
    marks: dict[int, list[int]] = field(default_factory=dict)  # seat -> times each hand card was called
    coins_placed: dict[int, int] = field(default_factory=dict)
    winners: list[int] = field(default_factory=list)
    pot: int = 0  # coins on the cards when bingo was called (plus any kitty won)
    shares: dict[int, int] = field(default_factory=dict)
    to_kitty: int = 0  # coins sent to the kitty by tied bingos
    games: int = 0  # bingo games played (more than one with kitty_replay="now")
    abandoned: bool = False  # not played: some rank every player needs is all in hands


@dataclass(frozen=True, slots=True)
class Turn:
    """One turned card of put and take: what each seat put in or took (taken includes dealer cover)."""

    half: str
    number: int
    card: Card
    amounts: dict[int, int]
    from_dealer: int = 0


@dataclass
class PutAndTakeResult:
    seats: list[int] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    dealer_paid: int = 0  # covered for a dry pot
    dealer_collected: int = 0  # the pot left after the last card


@dataclass(frozen=True, slots=True)
class CountTurn:
    number: int
    card: Card
    hit: bool
    each: int  # coins each other player pays the dealer for this card


@dataclass
class CountUpResult:
    turns: list[CountTurn] = field(default_factory=list)
    penalty_each: int = 0
    dealer_net: int = 0


@dataclass
class HandResults:
    deal: int
    dealer: int
    poker: PokerResult | None = None
    bingo: BingoResult | None = None
    put_and_take: PutAndTakeResult | None = None
    count_up: CountUpResult | None = None


# -- one hand's state ---------------------------------------------------------------------------


class Round:
    """The cards and seats of one hand (four phases, one dealer). Phases read and change it."""

    def __init__(
        self, rules: GarbageRules, players: int, dealer: int, deal: int, ledger: Ledger, pack: Sequence[Card]
    ) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.deal = deal
        self.ledger = ledger
        self.phase = ""
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.stock: Counter[Card] = Counter(pack)  # cards that may still be turned
        self.stock_size = len(pack)
        self.discards: list[Card] = []
        self.reshuffles = 0
        self.results = HandResults(deal, dealer)

    def order(self) -> list[int]:
        """Seats from the dealer's left round to the dealer: the order of dealing and paying."""
        return [(self.dealer + i) % self.players for i in range(1, self.players + 1)]

    def others(self) -> list[int]:
        return [s for s in self.order() if s != self.dealer]

    def take(self, card: Card) -> None:
        self.stock[card] -= 1
        if not self.stock[card]:
            del self.stock[card]
        self.stock_size -= 1

    def reshuffle(self) -> None:
        """The stock is empty: the discards (never cards in hands) become the new stock (rules.md)."""
        self.stock = Counter(self.discards)
        self.stock_size = len(self.discards)
        self.discards = []
        self.reshuffles += 1

    def pay(self, payer: str, payee: str, amount: int, reason: str) -> int:
        """Move coins; without the debt rule a seat pays at most what it has. Returns coins moved."""
        if not self.rules.debt and payer.startswith("seat:"):
            amount = min(amount, max(0, self.ledger.balance(payer)))
        if amount <= 0:
            return 0
        self.ledger.transfer(payer, payee, amount, reason, phase=self.phase, deal=self.deal)
        return amount

    def share(
        self, source: str, winners: Sequence[int], reason: str, *, odd_to_kitty: bool | None = None
    ) -> dict[int, int]:
        """Split all of ``source`` among ``winners``. The indivisible remainder goes to the winner
        nearest the dealer's left, or to the kitty (``odd_coins``, or ``odd_to_kitty`` if given)."""
        total = self.ledger.balance(source)
        if not winners or total <= 0:
            return {}
        to_kitty = self.rules.odd_coins == "kitty" if odd_to_kitty is None else odd_to_kitty
        ordered = [s for s in self.order() if s in winners]
        each, odd = divmod(total, len(ordered))
        shares = {s: each for s in ordered}
        if odd:
            if to_kitty:
                self.ledger.transfer(source, KITTY, odd, f"{reason}: odd coins", phase=self.phase, deal=self.deal)
            else:
                shares[ordered[0]] += odd
        for seat, coins in shares.items():
            if coins:
                self.ledger.transfer(source, seat_account(seat), coins, reason, phase=self.phase, deal=self.deal)
        return shares

    def census(self) -> Counter[Card]:
        """Every card of the pack, wherever it lies now: stock, hands, discards."""
        total: Counter[Card] = Counter(self.stock)
        for hand in self.hands:
            total.update(hand)
        total.update(self.discards)
        return total


def announce(entries: Iterable[Entry], players: int) -> list[str]:
    """Table-facing text, grouping what everyone pays at once:
    ``each other player pays seat 2 7 coins (count-up: a 7 on seven)``."""
    lines: list[str] = []
    batch: list[Entry] = []

    def flush() -> None:
        if not batch:
            return
        first = batch[0]
        payers = {e.payer for e in batch}
        payees = {e.payee for e in batch}
        unit = "coin" if first.amount == 1 else "coins"
        why = f" ({first.reason})" if first.reason else ""
        name = first.payee.replace(":", " ")
        if len(batch) > 1 and len(payees) == 1 and len(payers) == len(batch):
            if len(batch) == players - 1 and first.payee.startswith("seat:"):
                lines.append(f"each other player pays {name} {first.amount} {unit}{why}")
            elif len(batch) == players:
                lines.append(f"every player pays {name} {first.amount} {unit}{why}")
            else:
                who = ", ".join(p.replace(":", " ") for p in sorted(payers))
                lines.append(f"{who} each pay {name} {first.amount} {unit}{why}")
        else:
            lines.extend(e.describe() for e in batch)
        batch.clear()

    for entry in entries:
        if batch and (entry.payee, entry.amount, entry.reason) != (batch[0].payee, batch[0].amount, batch[0].reason):
            flush()
        batch.append(entry)
    flush()
    return lines
