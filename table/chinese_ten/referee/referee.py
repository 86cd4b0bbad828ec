"""The Chinese Ten referee at the table: its parts put together, the people's presses and words, the view,
the result and the game record."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.chinese_ten import rules_by_name
from table.chinese_ten.referee.base import GAME, TablePhase
from table.chinese_ten.referee.captures import Captures
from table.chinese_ten.referee.dealing import Dealing
from table.chinese_ten.referee.layout import Layout
from table.controller.referee import Action, Input
from table.controller.referee_base import winner_roles
from table.errors import RecordError
from table.journal import Entry, GameRow


class ChineseTenReferee(Dealing, Layout, Captures):
    @property
    def over(self) -> bool:
        return self.phase in (TablePhase.OVER, TablePhase.REDEAL)

    def start(self) -> list[Action]:
        out: list[Action] = []
        self._begin_deal(out)
        return out

    def leds(self) -> dict[int, str]:
        if self.phase is TablePhase.OVER and self._result:
            return winner_roles(self.players, self._result["seats"], "points")
        roles = dict.fromkeys(range(self.players), "idle")
        if self.state is not None and self.phase not in (TablePhase.DEAL, TablePhase.REDEAL):
            roles[self.state.to_act] = "turn"
        return self._attention(roles, self.prompt)

    def view(self) -> dict[str, Any]:
        st = self.state
        seats = []
        for i in range(self.players):
            seats.append(
                {
                    "seat": i,
                    "hand": st.hand_count(i) if st else len(self.dealt_hands[i]),
                    "captured": [str(c) for c in st.captured(i)] if st else [],
                    "points": st.scores[i] if st else 0,
                }
            )
        return {
            "game": GAME,
            "rules": self.rules.name,
            "phase": self.phase.value,
            "to_act": st.to_act if st and not self.over else None,
            "layout": sorted(str(c) for c in (st.layout if st else ())),
            "physical": sorted(str(c) for c in self.physical),
            "pending": None if self.pending is None else str(self.pending),
            "stock_left": st.stock_left if st else None,
            "seats": seats,
            "flags": [f.to_action() | {"state": f.state} for f in self.flags.values() if f.state == "open"],
            "prompt": None if self.prompt is None else self.prompt.to_json(),
            "messages": list(self.messages),
        }

    def _before_input(self, inp: Input, out: list[Action]) -> None:
        # one card taken that is no capture yet waits for its pair; any other input settles it
        if self.take_deferred and not (inp.src == "table" and inp.kind in ("removed", "moved")):
            self.take_deferred = False
            if self.pending is not None:
                self._judge_take(out, final=True)

    def _after_input(self, out: list[Action]) -> None:
        self._check_flags(out)

    # -- people: buttons and the terminal ---------------------------------------------------------

    def _person(self, inp: Input, out: list[Action]) -> None:
        who = "host" if inp.seat is None else f"seat {inp.seat}"
        why = inp.text or ("button" if inp.src == "button" else "terminal")
        kind = inp.kind
        if inp.src == "button":
            kind = "confirm" if inp.kind == "short" else "long"
        if self.prompt is not None and kind in ("confirm", "reject", "long", "correct"):
            self._answer_prompt(kind, inp, who, why, out)
            return
        if kind == "confirm":
            if self.phase is TablePhase.DEAL and not self.dealer_machine:
                self._record_override(out, who, "confirm the deal", why)
                self._maybe_start(out, confirmed=True)
            elif self.pending is not None and self.state is not None and inp.seat in (None, self.state.to_act):
                self._done_without_capture(out)
            return
        if kind == "long":
            # A long press disputes the seat's open flag, or else asks to undo its last move.
            open_flags = [f for f in self.flags.values() if f.state == "open" and f.seat == inp.seat]
            kind = "dispute" if open_flags else "undo"
        if kind == "dispute":
            targets = [
                f
                for f in self.flags.values()
                if f.state == "open" and (inp.seat is None or f.seat == inp.seat or inp.data.get("flag") == f.id)
            ]
            if not targets:
                out.append(self._say(f"{who}: no open flag to dispute"))
                return
            flag = targets[-1]
            self._record_override(out, who, f"dispute flag {flag.id} ({flag.rule})", why)
            self._clear(out, flag.id, "overridden")
            return
        if kind == "undo":
            self._undo(out, who, why)
            return
        if kind == "correct":
            out.append(self._say("nothing to correct: no card is waiting for confirmation"))


def make_referee(
    *,
    rules: str,
    players: int,
    dealer: int = 0,
    options: dict[str, Any] | None = None,
    card_reader: bool = False,
    dealer_machine: bool = True,
) -> ChineseTenReferee:
    return ChineseTenReferee(
        rules_by_name(rules, **(options or {})),
        players=players,
        dealer=dealer,
        card_reader=card_reader,
        dealer_machine=dealer_machine,
    )


def export_record(game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]:
    """The record of a journalled game: the layout seen at the deal, every accepted move (undone
    moves removed), the hands rebuilt from the cards each seat played, the stock from the flips."""
    layout: list[str] | None = None
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if entry.kind != "verdict":
            continue
        for action in entry.body.get("actions", []):
            do = action.get("do")
            if do == "deal-seen":
                layout = list(action["layout"])
            elif do == "move":
                moves.append(action["move"])
            elif do == "unmove" and moves:
                moves.pop()
    if layout is None:
        raise RecordError("deal", f"game {game.id} never got past the deal; nothing to export")
    hands: list[list[str]] = [[] for _ in range(game.players)]
    stock: list[str] = []
    for m in moves:
        if "play" in m:
            hands[m["seat"]].append(m["play"])
        else:
            stock.append(m["flip"])
    record: dict[str, Any] = {
        "game": GAME,
        "rules": game.rules,
        "options": game.options,
        "players": game.players,
        "dealer": game.dealer,
        "deal": {"hands": hands, "layout": layout, "stock": stock},
        "moves": moves,
    }
    if game.status != "finished":
        record["note"] = "unfinished: hands and stock hold only the cards seen so far"
    return record
