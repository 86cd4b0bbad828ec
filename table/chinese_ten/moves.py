"""Move records and the lazy legal-move view of a Chinese Ten state.

A :class:`Move` is frozen: ``Move("play", 1, Card.parse("7H"), (Card.parse("3C"),))``. The state's
``history`` is a list of them that replays the game; ``take`` is always resolved there (the cards
actually captured, empty when the card joined the layout).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal, NamedTuple

from table.cards import Card

MoveKind = Literal["play", "flip"]


class Move(NamedTuple):
    """One half-turn: a card played from ``seat``'s hand (``kind="play"``) or flipped from the stock.

    ``take`` holds the layout cards it captured: one card, three for a special capture, none when
    the card joined the layout. A named tuple: immutable, hashable and cheap to make (the bots make
    millions).
    """

    kind: MoveKind
    seat: int
    card: Card
    take: tuple[Card, ...] = ()

    def to_json(self, *, explicit_empty_take: bool = False) -> dict[str, Any]:
        """The record form: ``{"seat": 1, "play": "7H", "take": "3C"}``; a special capture's take is a list."""
        out: dict[str, Any] = {"seat": self.seat, self.kind: str(self.card)}
        if len(self.take) == 1:
            out["take"] = str(self.take[0])
        elif self.take or explicit_empty_take:
            out["take"] = [str(c) for c in self.take]
        return out

    def __str__(self) -> str:
        verb = "plays" if self.kind == "play" else "flips"
        if not self.take:
            return f"seat {self.seat} {verb} {self.card} onto the layout"
        return f"seat {self.seat} {verb} {self.card} and takes {' '.join(str(c) for c in self.take)}"


class LegalMoves:
    """A lazy view of the legal moves: supports ``in``, ``bool``, ``len`` and iteration.

    Nothing is computed until asked; ``move in state.legal_moves`` costs one verification.
    """

    __slots__ = ("_iterate", "_check")

    def __init__(self, iterate: Callable[[], Iterator[Move]], check: Callable[[Move], bool]) -> None:
        self._iterate = iterate
        self._check = check

    def __iter__(self) -> Iterator[Move]:
        return self._iterate()

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._check(move)

    def __len__(self) -> int:
        return sum(1 for _ in self._iterate())

    def __bool__(self) -> bool:
        return next(self._iterate(), None) is not None

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"
