"""A Garbage match: hands of four phases, the deal passing left, until every player has dealt
``deals_per_seat`` times. One coin ledger runs through the whole match.

Driving it (the table controller, the replayer and the bots all do the same)::

    game = GarbageGame(5, rules=RULE_SETS["standard"])
    while not game.over:
        step = game.step
        if isinstance(step, AwaitCard):      # the camera read a card, or a known deck order
            game.supply(card)                # CardConflictError if it cannot be there
        else:                                # AwaitMove: a player decides
            game.play(Move(step.seat, "call"))   # IllegalMoveError with a sentence if not allowed

``verify_card`` / ``can_supply`` and ``verify_move`` / ``can_play`` answer without changing
anything. ``supply_from(deck)`` feeds cards from a known order until a decision is needed.
``results`` holds each hand's :class:`~table.garbage.core.HandResults`; ``ledger`` every coin.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from table.cards import Card, multi_pack
from table.errors import CardConflictError, IllegalMoveError, TableError
from table.garbage.bingo import play_bingo
from table.garbage.core import (
    BINGO,
    KITTY,
    POT,
    AwaitCard,
    AwaitMove,
    HandResults,
    Move,
    PhaseGen,
    Request,
    Round,
    seat_account,
)
from table.garbage.count_up import play_count_up
from table.garbage.poker import play_poker
from table.garbage.put_and_take import play_put_and_take
from table.garbage.rules import GarbageRules
from table.ledger import Ledger

_PHASES: dict[str, Callable[[Round], PhaseGen]] = {
    "poker": play_poker,
    "bingo": play_bingo,
    "put-and-take": play_put_and_take,
    "count-up": play_count_up,
}


@dataclass(frozen=True, slots=True)
class GameOver:
    """The match is over: every player has dealt equally often."""

    phase: str = "over"

    def describe(self) -> str:
        return "the match is over"


@dataclass(frozen=True, slots=True)
class Supplied:
    """History item: a card given to the engine, and what it was for."""

    deal: int
    request: AwaitCard
    card: Card


@dataclass(frozen=True, slots=True)
class Played:
    """History item: a decision."""

    deal: int
    move: Move


class GarbageGame:
    """A whole match. ``players`` seats, 0..n-1 clockwise (seat i+1 is on seat i's left)."""

    def __init__(self, players: int, *, rules: GarbageRules | None = None, first_dealer: int = 0) -> None:
        self.rules = rules or GarbageRules()
        self.rules.validate(players)
        if not 0 <= first_dealer < players:
            raise TableError(f"first_dealer must be a seat 0..{players - 1}, not {first_dealer}")
        self.players = players
        self.first_dealer = first_dealer
        self.pack: tuple[Card, ...] = tuple(multi_pack(self.rules.packs_for(players)))
        self.deals = players * self.rules.deals_per_seat
        self.ledger = Ledger.with_accounts([seat_account(s) for s in range(players)], start=self.rules.start_coins)
        for account in (POT, BINGO, KITTY):
            self.ledger.open(account)
        self.coins_total = self.ledger.total
        self.results: list[HandResults] = []
        self.history: list[Supplied | Played] = []
        self.round: Round | None = None
        self._phase_index = 0
        self._gen: PhaseGen | None = None
        self._request: Request | None = None
        self._start_hand()

    # -- what the game awaits ------------------------------------------------------------------

    @property
    def step(self) -> AwaitCard | AwaitMove | GameOver:
        """What the game needs next: a card, a player's decision, or nothing (over)."""
        return self._request if self._request is not None else GameOver()

    @property
    def over(self) -> bool:
        return self._request is None

    @property
    def phase(self) -> str:
        """``poker``, ``bingo``, ``put-and-take``, ``count-up``, or ``over``."""
        return self._request.phase if self._request is not None else "over"

    @property
    def deal(self) -> int:
        """The number of the hand being played, from 0."""
        return len(self.results) - 1

    @property
    def dealer(self) -> int:
        return (self.first_dealer + max(self.deal, 0)) % self.players

    @property
    def current(self) -> HandResults:
        """The results of the hand being played (the last hand once the match is over)."""
        return self.results[-1]

    def balance(self, seat: int) -> int:
        return self.ledger.balance(seat_account(seat))

    def hand(self, seat: int) -> list[Card]:
        return list(self.round.hands[seat]) if self.round else []

    # -- cards ---------------------------------------------------------------------------------

    def verify_card(self, card: Card) -> None:
        """Raise unless ``card`` can be the next card: :class:`IllegalMoveError` when no card is
        awaited, :class:`CardConflictError` when every copy of it is already out of the stock."""
        if not isinstance(self._request, AwaitCard):
            raise IllegalMoveError(f"no card is expected now: {self.step.describe()}")
        assert self.round is not None
        if not isinstance(card, Card):
            raise CardConflictError(card, "not a card")
        if not self.round.stock[card]:
            copies = self.pack.count(card)
            raise CardConflictError(
                card,
                f"cannot come from the stock: all {copies} {card} of this "
                f"{self.rules.packs_for(self.players)}-pack deck are in hands or discards",
            )

    def can_supply(self, card: Card) -> bool:
        try:
            self.verify_card(card)
        except (IllegalMoveError, CardConflictError):
            return False
        return True

    def supply(self, card: Card) -> None:
        """Give the engine the card just dealt or turned (from the camera, or a known order)."""
        self.verify_card(card)
        request = self._request
        assert isinstance(request, AwaitCard) and self.round is not None
        self.round.take(card)
        self.history.append(Supplied(self.deal, request, card))
        self._send(card)

    def stock_cards(self) -> list[Card]:
        """The cards that may still be turned, in pack order (for a seeded reshuffle)."""
        if self.round is None:
            return []
        return sorted(self.round.stock.elements(), key=lambda c: c.index)

    def supply_from(self, deck: DeckFeeder) -> int:
        """Supply cards from a known order until a decision is awaited or the match ends.
        Stops at the end of the current hand (a new hand needs a new deck). Returns cards supplied."""
        supplied = 0
        deal = self.deal
        while isinstance(self._request, AwaitCard) and self.deal == deal:
            self.supply(deck.next_card(self))
            supplied += 1
        return supplied

    # -- decisions -----------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        return self._request.legal_moves() if isinstance(self._request, AwaitMove) else []

    def verify_move(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` with a sentence a player understands."""
        request = self._request
        if not isinstance(request, AwaitMove):
            raise IllegalMoveError(f"no decision is expected now: {self.step.describe()}")
        if not isinstance(move, Move):
            raise IllegalMoveError(f"not a move: {move!r}")
        if move.seat != request.seat:
            raise IllegalMoveError(
                f"it is seat {request.seat}'s turn to decide, not seat {move.seat}'s ({request.prompt})"
            )
        if move.kind not in request.kinds:
            raise IllegalMoveError(
                f"seat {move.seat} cannot {move.kind} now; allowed: {', '.join(request.kinds)} ({request.prompt})"
            )
        if move.kind == "discard":
            if move.card is None:
                raise IllegalMoveError(f"seat {move.seat} must name the card to discard")
            if move.card not in request.cards:
                raise IllegalMoveError(
                    f"seat {move.seat} has no {move.card} to discard; holds {' '.join(str(c) for c in request.cards)}"
                )
        elif move.card is not None:
            raise IllegalMoveError(f"{move.kind} names no card (got {move.card})")

    def can_play(self, move: Move) -> bool:
        try:
            self.verify_move(move)
        except IllegalMoveError:
            return False
        return True

    def play(self, move: Move) -> None:
        self.verify_move(move)
        self.history.append(Played(self.deal, move))
        self._send(move)

    # -- accounting ----------------------------------------------------------------------------

    def card_census(self) -> Counter[Card]:
        """Every card of the current hand's pack wherever it lies; equals ``Counter(self.pack)``."""
        return self.round.census() if self.round else Counter()

    def nets(self) -> list[int]:
        return [self.balance(s) - self.rules.start_coins for s in range(self.players)]

    # -- driving the phase generators ----------------------------------------------------------

    def _start_hand(self) -> None:
        deal = len(self.results)
        dealer = (self.first_dealer + deal) % self.players
        self.round = Round(self.rules, self.players, dealer, deal, self.ledger, self.pack)
        self.results.append(self.round.results)
        self._phase_index = 0
        self._start_phase()

    def _start_phase(self) -> None:
        assert self.round is not None
        name = self.rules.phase_order[self._phase_index]
        self.round.phase = name
        self._gen = _PHASES[name](self.round)
        self._advance(None)

    def _send(self, value: Card | Move) -> None:
        self._advance(value)

    def _advance(self, value: Card | Move | None) -> None:
        assert self._gen is not None and self.round is not None
        while True:
            try:
                request = self._gen.send(value) if value is not None else next(self._gen)
            except StopIteration:
                value = None
                self._phase_index += 1
                if self._phase_index < len(self.rules.phase_order):
                    name = self.rules.phase_order[self._phase_index]
                    self.round.phase = name
                    self._gen = _PHASES[name](self.round)
                    continue
                if len(self.results) < self.deals:
                    self._start_hand()
                    return
                self._finish_match()
                return
            if isinstance(request, AwaitCard) and self.round.stock_size == 0:
                self.round.reshuffle()
            self._request = request
            return

    def _finish_match(self) -> None:
        """A kitty left when the match ends is shared by all players (odd coins per the rules)."""
        assert self.round is not None
        self._request = None
        self.round.phase = "end"
        if self.ledger.balance(KITTY):
            # the remainder cannot go back into the kitty being emptied
            self.round.share(
                KITTY, list(range(self.players)), "kitty shared at the end of the match", odd_to_kitty=False
            )


class DeckFeeder:
    """Cards from a known order: ``order`` is the whole shuffled pack for one hand. When the stock
    runs out mid-hand the engine turns the discards into the stock, and the feeder shuffles them
    with ``random.Random(reshuffle_seed + n)`` (n counts reshuffles) in pack order first."""

    def __init__(self, order: Sequence[Card], *, reshuffle_seed: int = 0) -> None:
        self.order = list(order)
        self.position = 0
        self.reshuffle_seed = reshuffle_seed
        self.reshuffles = 0

    @classmethod
    def seeded(cls, pack: Sequence[Card], seed: int) -> DeckFeeder:
        order = list(pack)
        random.Random(seed).shuffle(order)
        return cls(order, reshuffle_seed=seed)

    def next_card(self, game: GarbageGame) -> Card:
        assert game.round is not None
        if game.round.reshuffles > self.reshuffles:  # the engine reshuffled: so do we
            self.reshuffles = game.round.reshuffles
            self.order = game.stock_cards()
            random.Random(self.reshuffle_seed + self.reshuffles).shuffle(self.order)
            self.position = 0
        if self.position >= len(self.order):
            raise TableError("the deck order ran out of cards")
        card = self.order[self.position]
        self.position += 1
        return card
