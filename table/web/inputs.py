"""A host's tap as a controller input: exactly the :class:`~table.controller.referee.Input` the terminal gives
for the same command (``cardtable play``'s ``confirm [SEAT] [why]`` and the rest), so it is journalled before it
is judged, refereed like any other, and undoable.

The body of ``POST /api/input``: ``{"command": "confirm", "seat": 1, "card": "7H", "why": "..."}``; ``seat``,
``card`` and ``why`` may be left out (``correct`` needs ``card``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from table.cards import Card
from table.controller.referee import Input
from table.web.errors import BadInput

COMMANDS = ("confirm", "reject", "correct", "undo", "dispute")
MAX_WHY = 200
DEFAULT_WHY = "table page"


@dataclass(frozen=True, slots=True)
class HostCommand:
    command: str
    seat: int | None = None
    card: str | None = None
    why: str = DEFAULT_WHY

    def to_input(self) -> Input:
        return Input("terminal", self.command, card=self.card, seat=self.seat, text=self.why)


def parse_host_command(body: bytes, players: int) -> HostCommand:
    """The command in a request body; raises :class:`BadInput` saying what is wrong."""
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"the body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput("the body must be a JSON object")
    unknown = set(data) - {"command", "seat", "card", "why"}
    if unknown:
        raise BadInput(f"unknown field {sorted(unknown)[0]!r}; the fields are command, seat, card, why")
    command = data.get("command")
    if command not in COMMANDS:
        raise BadInput(f"command must be one of {', '.join(COMMANDS)}, not {command!r}")
    seat = data.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players):
        raise BadInput(f"seat must be a number from 0 to {players - 1}, not {seat!r}")
    card = data.get("card")
    if command == "correct":
        if not isinstance(card, str):
            raise BadInput('correct needs the card, e.g. {"command": "correct", "card": "7H"}')
        try:
            card = str(Card.parse(card))
        except ValueError as exc:
            raise BadInput(f"card: {exc}") from None
        seat = None  # the terminal's correct names no seat
    elif card is not None:
        raise BadInput(f"only correct takes a card, not {command}")
    why = data.get("why", DEFAULT_WHY)
    if not isinstance(why, str) or len(why) > MAX_WHY:
        raise BadInput(f"why must be text of at most {MAX_WHY} characters")
    why = " ".join(why.split()) or DEFAULT_WHY
    return HostCommand(command, seat, card, why)
