"""What the page shows, read from a referee: :func:`state_of` (a :class:`~table.web.model.State`) and
:class:`Ledger` (the game's moves and flags, kept from the actions of each verdict).

Used alike by the live table (after each verdict, on the controller's loop thread) and by the replay viewer
(after each journalled input). Everything is read through the referee's public surface: ``view()``,
``leds()``, ``result()``, ``over``, ``prompt`` and ``pending_commands()``, and the actions it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table.controller.referee import Action
from table.controller.referee_base import prompt_question
from table.web.model import (
    DealerState,
    Event,
    EventKind,
    FlagState,
    LedgerLine,
    PromptState,
    SeatState,
    State,
    TableRow,
)

RULE_TEXT: dict[str, str] = {
    "out-of-turn": "played out of turn",
    "capture-compulsory": "capture is compulsory",
    "wrong-card": "took a card that is not the capture",
    "non-matching": "took a card the played card does not capture",
    "two-cards": "laid a second card",
    "deal-count": "the deal gave a seat the wrong number of cards",
    "revoke": "did not follow suit",
    "discard-count": "discarded the wrong number of cards",
    "trick-disturbed": "the trick was disturbed",
    "misplaced": "a card laid where it does not belong",
    "extra-card": "a card too many on the table",
    "hand-disturbed": "the hand on the table was disturbed",
}

EVENT_KINDS: tuple[EventKind, ...] = ("move", "unmove", "flag", "clear", "prompt", "override", "say", "over")
MESSAGES_SHOWN = 8


def rule_text(rule: str) -> str:
    return RULE_TEXT.get(rule, rule.replace("-", " "))


@dataclass
class Ledger:
    """The game's moves (the text of each ``move``, an ``unmove`` taking the last back) and every flag with its
    end, kept from the actions as they come; ``absorb`` returns each action as an :class:`Event`."""

    moves: list[str] = field(default_factory=list)
    flags: dict[int, FlagState] = field(default_factory=dict)
    last_command: str | None = None

    def absorb(self, actions: Iterable[Action]) -> list[Event]:
        events: list[Event] = []
        for action in actions:
            do = str(action.get("do", ""))
            if do in ("deal", "shuffle"):
                self.last_command = _command_text(action)
                continue
            if do not in EVENT_KINDS:
                continue
            if do == "move":
                self.moves.append(str(action.get("text", "")))
            elif do == "unmove" and self.moves:
                self.moves.pop()
            elif do == "flag":
                self.flags[int(action["id"])] = _flag_of(action)
            elif do == "clear" and int(action["id"]) in self.flags:
                self.flags[int(action["id"])] = FlagState(**{**self.flags[int(action["id"])], "state": action["how"]})
            seat = action.get("seat")
            events.append(Event(seq=0, kind=do, seat=seat if isinstance(seat, int) else None, text=_text(action)))
        return events


def _flag_of(action: Mapping[str, Any]) -> FlagState:
    return FlagState(
        id=int(action["id"]),
        seat=int(action["seat"]),
        rule=str(action["rule"]),
        rule_text=rule_text(str(action["rule"])),
        cards=[str(c) for c in action.get("cards", [])],
        message=str(action.get("message", "")),
        state="open",
    )


def _command_text(action: Mapping[str, Any]) -> str:
    if action["do"] == "shuffle":
        return "shuffle"
    return f"deal to {action.get('target')} face {action.get('face', 'down')}"


def _text(action: Mapping[str, Any]) -> str:
    do = action["do"]
    if do == "flag":
        return f"seat {action['seat']}: {rule_text(str(action['rule']))}: {action.get('message', '')}"
    if do == "clear":
        return f"seat {action['seat']}: {rule_text(str(action['rule']))}: {action.get('how', 'ended')}"
    if do == "override":
        return f"override by {action.get('who')}: {action.get('what')} ({action.get('why')})"
    if do == "unmove":
        return f"taken back: {action.get('text', '')}"
    if do == "over":
        return str(action.get("text") or "game over")
    return str(action.get("text", ""))


def state_of(
    referee: Any,
    ledger: Ledger,
    *,
    game_id: int | None,
    names: Callable[[int], str] = lambda s: f"seat {s}",
    dealer_machine: bool = True,
    dealer_errors: Sequence[str] = (),
    live: bool = True,
) -> State:
    """The referee's state now, for the page. ``referee``: a :class:`~table.controller.referee.Referee`."""
    view: dict[str, Any] = referee.view()
    leds: dict[int, str] = referee.leds()
    to_act = view.get("to_act")
    seats = [_seat(s, leds, to_act, names) for s in view.get("seats", [])]
    prompt = _prompt(view.get("prompt"))
    return State(
        live=live,
        seq=0,
        game_id=game_id,
        game=str(view.get("game", referee.game)),
        rules=str(view.get("rules", "")),
        players=int(referee.players),
        phase=str(view.get("phase") or view.get("stage") or ""),
        to_act=to_act if isinstance(to_act, int) else None,
        seats=seats,
        table=_table_rows(view),
        ledger=[LedgerLine(account=str(k), amount=int(v)) for k, v in (view.get("pots") or {}).items()],
        flags=list(ledger.flags.values()),
        prompt=prompt,
        asking=view.get("choice") or None,
        messages=[str(m) for m in view.get("messages", [])][-MESSAGES_SHOWN:],
        dealer=DealerState(
            machine=dealer_machine,
            in_flight=len(referee.pending_commands()),
            last=ledger.last_command,
            errors=list(dealer_errors)[-3:],
        ),
        move_count=len(ledger.moves),
        over=bool(referee.over),
        result=referee.result(),
    )


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _seat(s: Mapping[str, Any], leds: Mapping[int, str], to_act: Any, names: Callable[[int], str]) -> SeatState:
    seat = int(s["seat"])
    hand = s.get("hand")
    return SeatState(
        seat=seat,
        name=names(seat),
        led=str(leds.get(seat, "idle")),
        to_act=to_act == seat,
        active=bool(s.get("active", True)),
        points=_int_or_none(s.get("points")),
        chips=_int_or_none(s.get("chips")),
        coins=_int_or_none(s.get("coins")),
        tricks=_int_or_none(s.get("tricks")),
        hand=[str(c) for c in hand] if isinstance(hand, list) else _int_or_none(hand),
        cards=[str(c) for c in s.get("cards", [])],
        captured=[str(c) for c in s.get("captured", [])],
    )


def _prompt(prompt: Mapping[str, Any] | None) -> PromptState | None:
    if not prompt:
        return None
    card = prompt.get("card")
    suit = prompt.get("suit")
    alternatives = [str(c) for c in prompt.get("alternatives", [])]
    choices = alternatives if card is None else [str(card), *alternatives]
    return PromptState(
        seat=int(prompt.get("seat", 0)),
        question=prompt_question(dict(prompt)),
        card=None if card is None else str(card),
        suit=None if suit is None else str(suit),
        choices=choices,
        text=prompt_question(dict(prompt)),
    )


def _cards(value: Any) -> list[str]:
    return [str(c) for c in value] if isinstance(value, list | tuple) else []


def _table_rows(view: Mapping[str, Any]) -> list[TableRow]:
    rows: list[TableRow] = []
    game = view.get("game")
    if game == "chinese-ten":
        rows.append(TableRow(label="layout", cards=_cards(view.get("layout")), text=""))
        if view.get("pending"):
            rows.append(TableRow(label="being played", cards=[str(view["pending"])], text=""))
        if view.get("stock_left") is not None:
            rows.append(TableRow(label="stock", cards=[], text=f"{view['stock_left']} cards left"))
    elif game == "frog":
        rows.append(TableRow(label="deal", cards=[], text=f"{view.get('deal')} of {view.get('deals')}"))
        if view.get("contract"):
            rows.append(
                TableRow(
                    label="contract",
                    cards=[],
                    text=f"{view['contract']} by seat {view.get('bidder')}, trumps {view.get('trump') or '-'}",
                )
            )
        rows.append(TableRow(label="trick", cards=_cards(view.get("trick")), text=""))
        if view.get("widow"):
            rows.append(TableRow(label="widow", cards=_cards(view.get("widow")), text=""))
    elif game == "garbage":
        rows.append(TableRow(label="hand", cards=[], text=f"{view.get('hand')} of {view.get('hands')}"))
        rows.append(TableRow(label="turn-up row", cards=_cards(view.get("turnup")), text=""))
        if view.get("awaiting"):
            rows.append(TableRow(label="awaiting", cards=[], text=str(view["awaiting"])))
    if view.get("dealer") is not None and game != "chinese-ten":
        rows.append(TableRow(label="dealer", cards=[], text=f"seat {view['dealer']}"))
    return rows
