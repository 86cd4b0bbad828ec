"""Game records: load JSON, dispatch to the game's replayer, and small readers of fields.

Each game module named in ``GAMES`` provides:

* ``replay(record: dict) -> dict``: replays a record, returning the result JSON
  (``{"game": ..., "over": ..., "seats": [...]}``). Raises :class:`RecordError` for a malformed
  record (exit 2) and :class:`IllegalMoveError` with ``index`` for an illegal move (exit 1).
* ``random_record(*, players: int | None, seed: int, rules: str | None) -> dict``: a bot game.

Every game refuses keys it does not know (:func:`only_keys`; ``note`` is free text wherever an
object may carry one) and a seat out of range (:func:`seat_at`) as malformed.

A malformed record's error says where in the JSON it is:

>>> parse_record('{"game": "frog", "players": 3}')
{'game': 'frog', 'players': 3}
>>> parse_record('[1, 2]')
Traceback (most recent call last):
...
table.errors.RecordError: a record is a JSON object
>>> cards_at(["AS", "10d"], "deals[0].widow")
[Card.parse('AS'), Card.parse('TD')]
>>> card_at(7, "moves[3].card")
Traceback (most recent call last):
...
table.errors.RecordError: moves[3].card: expected a card such as 'AS', got 7
>>> seat_at({"seat": 5}, 3, "moves[2]")
Traceback (most recent call last):
...
table.errors.RecordError: moves[2].seat: no seat 5 at a table of 3
>>> only_keys({"seat": 1, "pley": "AS"}, ("seat", "play"), "moves[0]")
Traceback (most recent call last):
...
table.errors.RecordError: moves[0].pley: unknown key; expected one of play, seat
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Protocol, cast

from table.cards import Card
from table.errors import CardParseError, RecordError

GAMES: dict[str, str] = {
    "chinese-ten": "table.chinese_ten.record",
    "frog": "table.frog.record",
    "garbage": "table.garbage.record",
}


class GameRecordModule(Protocol):
    def replay(self, record: dict[str, Any]) -> dict[str, Any]: ...

    def random_record(self, *, players: int | None, seed: int, rules: str | None) -> dict[str, Any]: ...


def game_module(game: object) -> GameRecordModule:
    if not isinstance(game, str) or game not in GAMES:
        raise RecordError("game", f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    return cast(GameRecordModule, importlib.import_module(GAMES[game]))


# Limits on what a record file may hold, far above any real game's (a 12-player Garbage match's
# record is about 60 KB; nothing in a record nests deeper than 5), so hostile input is refused
# before it costs memory, recursion or quadratic integer parsing.
MAX_RECORD_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_INT_DIGITS = 30


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file; any problem is a :class:`RecordError` saying what and where (``where``
    is a place in the file, ``3:14`` or ``""``; the caller names the file)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_RECORD_BYTES + 1)
    except IsADirectoryError:
        raise RecordError("", "a folder, not a record file") from None
    except OSError as exc:
        raise RecordError("", f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError("", f"larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB: not a game record")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError("", f"not UTF-8 text (byte {exc.start})") from None
    return parse_record(text)


def parse_record(text: str) -> dict[str, Any]:
    """A record's JSON text as an object, within the limits above."""
    try:
        data = json.loads(text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{exc.lineno}:{exc.colno}", f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise RecordError("", f"nested deeper than {MAX_DEPTH} levels: not a game record") from None
    _check_depth(data)
    if not isinstance(data, dict):
        raise RecordError("", "a record is a JSON object")
    return data


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise RecordError("", f"a number of {digits} digits: numbers in a record have at most {MAX_INT_DIGITS}")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise RecordError("", f"the number {text[:40]} is out of range")
    return value


def _no_constant(text: str) -> Any:
    raise RecordError("", f"{text} is not a number a record may hold")


def _check_depth(data: object) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError("", f"nested deeper than {MAX_DEPTH} levels: not a game record")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def replay(record: dict[str, Any]) -> dict[str, Any]:
    return game_module(record.get("game")).replay(record)


# -- field readers shared by the game record modules -------------------------------------------


def need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise RecordError(f"{where}.{key}" if where else key, "missing")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RecordError(f"{where}.{key}" if where else key, f"expected {name}, got {json.dumps(value)}")
    return value


def card_at(value: object, where: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(where, f"expected a card such as 'AS', got {json.dumps(value)}")
    try:
        return Card.parse(value)
    except CardParseError as exc:
        raise RecordError(where, str(exc)) from None


def cards_at(value: object, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(where, f"expected a list of cards, got {json.dumps(value)}")
    return [card_at(v, f"{where}[{i}]") for i, v in enumerate(value)]


def only_keys(obj: dict[str, Any], allowed: Collection[str], where: str) -> None:
    """Refuse a key a record's object may not hold (a typo, or junk that would be ignored)."""
    unknown = sorted(k for k in obj if k not in allowed)
    if unknown:
        raise RecordError(
            f"{where}.{unknown[0]}" if where else unknown[0],
            f"unknown key; expected one of {', '.join(sorted(allowed))}",
        )


def seat_at(obj: dict[str, Any], players: int, where: str) -> int:
    """A move's ``seat``: a whole number from 0 to ``players - 1`` (anything else is malformed, in
    every game: a seat the table does not have is not a move that could be legal)."""
    seat: int = need(obj, "seat", int, where)
    if not 0 <= seat < players:
        raise RecordError(f"{where}.seat" if where else "seat", f"no seat {seat} at a table of {players}")
    return seat


Reader = Callable[[object, str], Any]
