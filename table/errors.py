"""The one error root of the ``table`` package; every error is also a builtin."""

from __future__ import annotations


class TableError(Exception):
    """Root of every error raised by :mod:`table`."""


class CardParseError(TableError, ValueError):
    """Text that does not name a card, e.g. ``"1Z"``."""


class IllegalMoveError(TableError, ValueError):
    """A move the rules forbid. ``reason`` is a sentence a player understands."""

    def __init__(self, reason: str, *, index: int | None = None) -> None:
        super().__init__(reason if index is None else f"move {index}: {reason}")
        self.reason = reason
        self.index = index


class CardConflictError(TableError, ValueError):
    """A card that cannot be where it was seen (already seen, not in this pack)."""

    def __init__(self, card: object, reason: str) -> None:
        super().__init__(f"{card}: {reason}")
        self.card = card
        self.reason = reason


class RecordError(TableError, ValueError):
    """A malformed game record. ``where`` is a path into the JSON, e.g. ``moves[3].play``."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.where = where
        self.reason = reason


class ConfigError(TableError, ValueError):
    """Invalid table configuration; ``key`` names the offending key."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason
