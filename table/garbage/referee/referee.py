"""The Garbage referee at the table: its parts put together, the view, the factory and the game record."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.controller.referee import Action
from table.controller.referee_base import winner_roles
from table.errors import ConfigError, RecordError
from table.garbage import AwaitCard, AwaitMove, GarbageRules
from table.garbage.referee.base import GAME, TURNUP
from table.garbage.referee.cards import TableCards
from table.garbage.referee.decisions import Decisions
from table.garbage.referee.instructions import ACCOUNTS
from table.garbage.referee.requests import Requests
from table.garbage.rules import rules_from_json
from table.journal import Entry, GameRow


class GarbageReferee(Requests, Decisions, TableCards):
    def _tag_flag(self, action: Action) -> Action:
        return {**action, "hand": self.engine.deal}

    @property
    def over(self) -> bool:
        return self.engine.over

    def start(self) -> list[Action]:
        out: list[Action] = []
        self.hopper_left = len(self.engine.pack)
        self._announce_hand(out)
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle", "deal": 0}))
        self._next_request(out)
        return out

    def leds(self) -> dict[int, str]:
        if self.over and self._result:
            return winner_roles(self.players, self._result["seats"], "coins")
        roles = dict.fromkeys(range(self.players), "idle")
        step = self.engine.step
        if isinstance(step, AwaitMove):
            roles[step.seat] = "turn"
        elif isinstance(step, AwaitCard) and not self.over:
            roles[self.engine.dealer] = "turn"
        return self._attention(roles, self.choice, self.prompt)

    def view(self) -> dict[str, Any]:
        game = self.engine
        hands = [[str(c) for c in game.hand(s)] for s in range(self.players)]
        return {
            "game": GAME,
            "rules": self.rules.name,
            "hand": game.deal + 1 if not self.over else game.deals,
            "hands": game.deals,
            "phase": game.phase,
            "dealer": game.dealer,
            "awaiting": game.step.describe(),
            "seats": [{"seat": s, "cards": hands[s], "coins": game.balance(s)} for s in range(self.players)],
            "pots": {k: game.ledger.balance(k) for k in ACCOUNTS},
            "turnup": [str(p.card) for p in self.placed.values() if p.zone == TURNUP],
            "choice": self._choice_text(),
            "flags": [f.to_action() | {"state": f.state} for f in self.flags.values() if f.state == "open"],
            "prompt": None if self.prompt is None else self.prompt.to_json(),
            "messages": list(self.messages),
        }


def rules_for(rules: str, options: dict[str, Any] | None) -> GarbageRules:
    return rules_from_json({"base": rules, **(options or {})})


def make_referee(
    *,
    rules: str,
    players: int,
    dealer: int = 0,
    options: dict[str, Any] | None = None,
    card_reader: bool = False,
    dealer_machine: bool = True,
) -> GarbageReferee:
    ruleset = rules_for(rules, options)
    try:
        ruleset.validate(players)
    except ConfigError:
        raise
    return GarbageReferee(
        ruleset, players=players, dealer=dealer, card_reader=card_reader, dealer_machine=dealer_machine
    )


def export_record(game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]:
    """The Garbage record of a journalled match: each hand's cards in the order the table saw them
    (``cards``) and every decision (``moves``); ``cardtable replay`` reproduces the coins."""
    hands: dict[int, list[str]] = {}
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if entry.kind != "verdict":
            continue
        for action in entry.body.get("actions", []):
            if action.get("do") == "supply":
                hands.setdefault(int(action["hand"]), []).append(str(action["card"]))
            elif action.get("do") == "move":
                moves.append(action["move"])
    if not hands:
        raise RecordError("deals", f"game {game.id} has no card dealt yet; nothing to export")
    record: dict[str, Any] = {
        "game": GAME,
        "players": game.players,
        "rules": {"base": game.rules, **game.options},
        "first_dealer": game.dealer,
        "deals": [{"cards": hands[k]} for k in sorted(hands)],
        "moves": moves,
    }
    if game.status != "finished":
        record["note"] = "unfinished: the last hand stops where the table stopped"
    return record
