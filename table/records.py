"""Game records: load JSON, dispatch to the game's replayer, and small readers of fields.

Each game module named in ``GAMES`` provides:

* ``replay(record: dict) -> dict``: replays a record, returning the result JSON
  (``{"game": ..., "over": ..., "seats": [...]}``). Raises :class:`RecordError` for a malformed
  record (exit 2) and :class:`IllegalMoveError` with ``index`` for an illegal move (exit 1).
* ``random_record(*, players: int | None, seed: int, rules: str | None) -> dict``: a bot game.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
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


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file; any problem is a :class:`RecordError` naming the file and place."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(str(path), "not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}:{exc.lineno}:{exc.colno}", f"invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(str(path), "a record is a JSON object")
    return data


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


Reader = Callable[[object, str], Any]
