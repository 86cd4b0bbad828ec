"""The seat's decisions (buying a card, stud betting): chosen at its button or the terminal, then played on
the engine; a flag disputed."""

from __future__ import annotations

from typing import Any

from table.cards import Card
from table.controller.referee import Action, Flag, Input
from table.errors import IllegalMoveError
from table.garbage import AwaitMove, Move
from table.garbage.core import MOVE_KINDS
from table.garbage.referee.base import GarbageTable


class Decisions(GarbageTable):
    def _choice_text(self) -> str | None:
        c = self.choice
        if c is None:
            return None
        step = self.engine.step
        prompt = step.prompt if isinstance(step, AwaitMove) else ""
        return f"seat {c.seat}: {c.shown}? ({prompt})"

    def _choice_prompt(self) -> Action:
        c = self.choice
        assert c is not None
        return {
            "do": "prompt",
            "seat": c.seat,
            "choice": c.kind,
            "shown": c.shown,
            "text": f"{self._choice_text()} press to change among {', '.join(c.options)}; hold or confirm to accept",
        }

    def _play(self, move: Move, out: list[Action], who: str, why: str) -> bool:
        try:
            self.engine.play(move)
        except IllegalMoveError as exc:
            out.append(self._say(str(exc)))
            return False
        self.choice = None
        out.append(
            {
                "do": "move",
                "hand": self.engine.deal if not self.over else self.hand_no,
                "move": _move_json(move),
                "text": str(move),
                "by": who,
                "why": why,
            }
        )
        self.messages.append(str(move))
        self._next_request(out)
        return True

    def _disputed(self, flag: Flag, out: list[Action]) -> None:
        self.missing.pop(flag.id, None)

    def _decide(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        if self.waiting_load and kind in ("short", "confirm"):
            self.waiting_load = False
            # a new hand's pack or the reshuffled discards: the loop's lost-answer check counts from here
            self.hopper_left = len(self.engine.stock_cards())
            self._record_override(out, who, "the dealer machine is loaded", why)
            out.append(self._command({"do": "shuffle", "deal": self.engine.deal}))
            self._ask(out)
            return
        step = self.engine.step
        if kind == "discard" and isinstance(step, AwaitMove) and "discard" in step.kinds:
            try:
                card = Card.parse(str(inp.card or inp.text))
            except ValueError:
                out.append(self._say(f"{inp.card or inp.text!r} is not a card"))
                return
            self._play(Move(step.seat if inp.seat is None else inp.seat, "discard", card), out, who, why)
            return
        c = self.choice
        if c is None:
            if kind in MOVE_KINDS or kind == "move":
                out.append(self._say(f"no decision is expected now: {step.describe()}"))
            elif kind == "undo":
                out.append(self._say(f"{who}: Garbage moves cannot be undone at the table; dispute a flag instead"))
            return
        if inp.seat is not None and inp.seat != c.seat:
            out.append(self._say(f"seat {inp.seat}: it is seat {c.seat}'s decision"))
            return
        if kind in MOVE_KINDS or kind == "move":
            word = (inp.text if kind == "move" else kind).strip().lower()
            if word not in c.options:
                out.append(self._say(f"seat {c.seat} cannot {word} now; the choices are {', '.join(c.options)}"))
                return
            self.choice = c.showing(word)
            out.append(self._choice_prompt())
        elif kind == "short":
            self.choice = c.stepped()
            out.append(self._choice_prompt())
        elif kind in ("long", "confirm"):
            self._play(Move(c.seat, c.shown), out, who, why)
        elif kind == "reject":
            self.choice = c.reset()
            out.append(self._choice_prompt())


def _move_json(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": move.seat, "move": move.kind}
    if move.card is not None:
        out["card"] = str(move.card)
    return out
