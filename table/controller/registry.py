"""Which referee module serves which game. The controller, ``cardtable export`` and the demo find a
game's referee here, so Frog and Garbage plug in by adding one line (and one module).

A referee module provides:

* ``make_referee(*, rules, players, dealer, options, card_reader, dealer_machine) -> Referee``
  (see :class:`table.controller.referee.Referee`);
* ``export_record(game: GameRow, entries: Iterable[Entry]) -> dict``: the game record
  (``docs/records.md``) of a journalled game, which ``cardtable replay`` accepts.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any, Protocol, cast

from table.errors import ConfigError
from table.journal import Entry, GameRow

REFEREES: dict[str, str] = {
    "chinese-ten": "table.chinese_ten.referee",
    "frog": "table.frog.referee",
    "garbage": "table.garbage.referee",
}


class RefereeModule(Protocol):
    def make_referee(
        self, *, rules: str, players: int, dealer: int, options: dict[str, Any], card_reader: bool, dealer_machine: bool
    ) -> Any: ...

    def export_record(self, game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]: ...


def referee_module(game: str) -> RefereeModule:
    if game not in REFEREES:
        raise ConfigError("game", f"no table referee for {game!r} yet; the table referees {', '.join(REFEREES)}")
    module: ModuleType = importlib.import_module(REFEREES[game])
    return cast(RefereeModule, module)
