"""What the referees (Chinese Ten, Frog, Garbage) keep alike: inputs routed by source, numbered flags, dealer
commands, messages, overrides, and card readings held while a prompt awaits an answer.

A referee subclasses :class:`RefereeBookkeeping`, calls :meth:`_init_bookkeeping` in ``__init__`` and
implements the four input handlers and ``over``.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from table.cards import Card
from table.controller.questions import (
    NAMES_BEFORE_SUIT,
    SUIT_NAMES,
    Choice,
    Prompt,
    next_question,
    prompt_question,
    prompt_yes_cards,
)
from table.controller.referee import Action, Flag, Input, Override

__all__ = [
    "NAMES_BEFORE_SUIT",
    "SUIT_NAMES",
    "Choice",
    "Prompt",
    "RefereeBookkeeping",
    "next_question",
    "prompt_question",
    "prompt_yes_cards",
    "seat_of_zone",
    "winner_roles",
]


class RefereeBookkeeping:
    flags: dict[int, Flag]
    commands: dict[int, Action]
    messages: deque[str]
    overrides: list[Override]
    prompt: Prompt | None
    held: list[Input]
    _result: dict[str, Any] | None

    def _init_bookkeeping(self, *, messages: int = 10) -> None:
        self._result = None  # the game's result once it is over
        self.flags = {}
        self._next_flag = 1
        self._next_cmd = 1
        self.commands = {}
        self.messages = deque(maxlen=messages)
        self.overrides = []
        self.prompt = None  # a card reading awaiting confirmation
        self.held = []  # table inputs that arrived while it waits

    @property
    def over(self) -> bool:
        raise NotImplementedError

    def result(self) -> dict[str, Any] | None:
        """The game's result (its record's JSON) once it is over, else None."""
        return self._result

    def pending_commands(self) -> list[Action]:
        return list(self.commands.values())

    def _attention(self, roles: dict[int, str], *asking: Choice | Prompt | None) -> dict[int, str]:
        """``roles`` with the seat each open question (``asking``: a choice, the prompt) waits on as ``confirm``,
        then every seat with an open flag as ``error`` (a flag outranks a question)."""
        for question in asking:
            if question is not None:
                roles[question.seat] = "confirm"
        for flag in self.flags.values():
            if flag.state == "open":
                roles[flag.seat] = "error"
        return roles

    def handle(self, inp: Input) -> list[Action]:
        """Judge one input; after the game only the terminal (overrides, corrections) is heard."""
        if self.over and inp.src != "terminal":
            return []
        out: list[Action] = []
        if self.prompt is not None and inp.src == "table":
            self.held.append(inp)
            return out
        self._before_input(inp, out)
        self._dispatch(inp, out)
        self._after_input(out)
        return out

    def _before_input(self, inp: Input, out: list[Action]) -> None:
        """A game's work owed before the next input is judged (none by default)."""

    def _after_input(self, out: list[Action]) -> None:
        """A game's checks after each input (none by default)."""

    def _dispatch(self, inp: Input, out: list[Action]) -> None:
        if inp.src == "table":
            self._table(inp, out)
        elif inp.src == "device":
            self._device(inp, out)
        elif inp.src in ("button", "terminal"):
            self._person(inp, out)
        elif inp.src == "control":
            self._control(inp, out)

    def _table(self, inp: Input, out: list[Action]) -> None:
        raise NotImplementedError

    def _device(self, inp: Input, out: list[Action]) -> None:
        raise NotImplementedError

    def _person(self, inp: Input, out: list[Action]) -> None:
        """A seat's button or the terminal (Frog and Garbage; Chinese Ten reads presses its own way): the
        open prompt's answer, a flag disputed, or else the game's own decision (:meth:`_decide`). A short
        press is ``short``, any other press ``long``; a long press while the seat has an open flag disputes
        it."""
        who = "host" if inp.seat is None else f"seat {inp.seat}"
        why = inp.text or ("button" if inp.src == "button" else "terminal")
        kind = inp.kind
        if inp.src == "button":
            kind = "short" if inp.kind == "short" else "long"
        if self.prompt is not None and kind in ("short", "confirm", "reject", "long", "correct"):
            self._answer_prompt(kind, inp, who, why, out)
            return
        open_flags = [f for f in self.flags.values() if f.state == "open" and (inp.seat is None or f.seat == inp.seat)]
        if kind == "long" and open_flags and inp.src == "button":
            kind = "dispute"
        if kind == "dispute":
            targets = [f for f in open_flags if inp.data.get("flag") in (None, f.id)]
            if not targets:
                out.append(self._say(f"{who}: no open flag to dispute"))
                return
            flag = targets[-1]
            self._record_override(out, who, f"dispute flag {flag.id} ({flag.rule})", why)
            self._clear(out, flag.id, "overridden")
            self._disputed(flag, out)
            return
        self._decide(kind, inp, who, why, out)

    def _disputed(self, flag: Flag, out: list[Action]) -> None:
        """A game's work after ``flag`` was disputed and overridden (none by default)."""

    def _decide(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        """A person's input that answers no prompt and disputes no flag: ``kind`` is the button press
        (``short``/``long``) or the terminal's word; ``who`` and ``why`` go into overrides."""
        raise NotImplementedError

    def _control(self, inp: Input, out: list[Action]) -> None:
        raise NotImplementedError

    def _tag_flag(self, action: Action) -> Action:
        """A flag action with the game's extra fields (the deal or hand it belongs to)."""
        return action

    def _command(self, action: Action) -> Action:
        action = {**action, "id": self._next_cmd}
        self._next_cmd += 1
        if action["do"] in ("deal", "shuffle"):
            self.commands[action["id"]] = action
        return action

    def _retry(self, cmd: Action) -> Action:
        """A failed dealer command sent again under a new number (``retry_of`` names the failed one)."""
        again: Action = {**cmd, "retry_of": cmd["id"]}
        del again["id"]
        return self._command(again)

    def _say(self, text: str) -> Action:
        self.messages.append(text)
        return {"do": "say", "text": text}

    def _flag(self, out: list[Action], seat: int, rule: str, cards: Iterable[Card], message: str) -> int:
        flag = Flag(self._next_flag, seat, rule, tuple(str(c) for c in cards), message)
        self._next_flag += 1
        self.flags[flag.id] = flag
        self.messages.append(f"FLAG {rule}: {message}")
        out.append(self._tag_flag(flag.to_action()))
        return flag.id

    def _clear(self, out: list[Action], flag_id: int | None, how: str = "put right") -> None:
        flag = self.flags.get(flag_id) if flag_id is not None else None
        if flag is None or flag.state != "open":
            return
        flag.state = how
        out.append({"do": "clear", "id": flag.id, "seat": flag.seat, "rule": flag.rule, "how": how})
        self.messages.append(f"cleared {flag.rule} at seat {flag.seat}: {how}")

    def _open(self, flag_id: int | None) -> bool:
        return flag_id is not None and flag_id in self.flags and self.flags[flag_id].state == "open"

    def _record_override(self, out: list[Action], who: str, what: str, why: str) -> None:
        entry: Override = {"who": who, "what": what, "why": why}
        self.overrides.append(entry)
        out.append({"do": "override", "who": who, "what": what, "why": why})
        self.messages.append(f"override by {who}: {what} ({why})")

    # -- a card reading awaiting confirmation --------------------------------------------------------

    def _may_release_held(self) -> bool:
        """Whether held table inputs may be judged now (a game can hold them longer)."""
        return True

    def _release_held(self, out: list[Action]) -> None:
        while self.held and self.prompt is None and self._may_release_held():
            self._table(self.held.pop(0), out)

    def _ask_about(
        self, seat: int, ranked: Sequence[str], inp: Input, out: list[Action], which: str = "the card just placed"
    ) -> None:
        """Ask ``seat`` whether the sighting ``inp`` is ``ranked[0]``; every other possible card follows in
        turn until people say yes. The game cannot go on without the card and the camera reports a card
        once, so a sighting given up after a few names left a game waiting for ever (Garbage seed 5 at the
        camera table). Once the camera's first guesses are refused the suit is asked first
        (:func:`next_question`), so a card is named in at most about 18 presses, not 51."""
        self._put(out, Prompt.about(seat, ranked, inp), f"is {which} {ranked[0]}?")

    def _answer_prompt(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        prompt = self.prompt
        assert prompt is not None
        original = prompt.input
        yes = kind in ("short", "confirm")
        if kind == "correct" and inp.card:
            try:
                card = str(Card.parse(inp.card))
            except ValueError:
                out.append(self._say(f"{inp.card!r} is not a card"))
                return
        elif prompt.suit is not None:  # a question about the suit
            suit = prompt.suit
            self._record_override(out, who, f"{'a' if yes else 'not a'} {SUIT_NAMES[suit]}", why)
            self._ask_next(prompt, out, suit=suit if yes else None, not_suit=None if yes else suit)
            return
        elif yes:
            card = str(prompt.card)
        else:
            self._record_override(out, who, f"not {prompt.card}", why)
            self._ask_next(dataclasses.replace(prompt, refused=prompt.refused + 1), out)
            return
        self.prompt = None
        self._record_override(out, who, f"the card is {card}", why)
        confirmed = Input(
            original.src,
            original.kind,
            card,
            original.zone,
            original.to,
            original.seat,
            original.track,
            (),
            original.text,
            {**original.data, "confirmed": True},
        )
        self._table(confirmed, out)
        self._release_held(out)

    def _ask_next(
        self, prompt: Prompt, out: list[Action], *, suit: str | None = None, not_suit: str | None = None
    ) -> None:
        """The question after a "no" (or after the suit was settled): :func:`next_question`, or, when no
        card is left, the sighting given up."""
        alternatives = [
            c
            for c in prompt.alternatives
            if (suit is None or c[-1] == suit) and (not_suit is None or c[-1] != not_suit)
        ]
        question = next_question(alternatives, prompt.refused, settled=suit is not None)
        if question is None:
            self.prompt = None
            out.append(self._say("no other card can be there; the sighting is ignored: check the table"))
            self._release_held(out)
            return
        card, asked_suit, rest = question
        self._put(
            out,
            dataclasses.replace(prompt, card=card, suit=asked_suit, alternatives=tuple(rest)),
            f"then is it {card}?" if asked_suit is None else f"is it a {SUIT_NAMES[asked_suit]}?",
        )

    def _put(self, out: list[Action], prompt: Prompt, question: str) -> None:
        """Open ``prompt`` and ask its ``question`` at its seat."""
        self.prompt = prompt
        text = f"{question} press to confirm, hold to say no"
        if prompt.suit is not None:
            text += " (or name it at the terminal: correct CARD)"
        out.append({"do": "prompt", "seat": prompt.seat, "card": prompt.card, "suit": prompt.suit, "text": text})


def winner_roles(players: int, result_seats: Iterable[dict[str, Any]], score: str) -> dict[int, str]:
    """The seats' LED roles at a game's end: ``winner`` for every seat with the best ``score``, the rest idle.

    >>> winner_roles(3, [{"seat": 0, "coins": 5}, {"seat": 1, "coins": 9}, {"seat": 2, "coins": 9}], "coins")
    {0: 'idle', 1: 'winner', 2: 'winner'}
    """
    seats = list(result_seats)
    best = max(s[score] for s in seats)
    roles = dict.fromkeys(range(players), "idle")
    roles.update({s["seat"]: "winner" for s in seats if s[score] == best})
    return roles


def seat_of_zone(zone: str | None) -> int | None:
    """The seat a table zone belongs to (``seat:2``, ``capture:2`` -> 2), or None."""
    if zone and zone.startswith(("seat:", "capture:")):
        try:
            return int(zone.split(":", 1)[1])
        except ValueError:
            return None
    return None
