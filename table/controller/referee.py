"""What every game's referee shares: the inputs it reads, the actions it returns, its flags.

The controller journals each :class:`Input`, hands it to the game's referee, journals the actions
that come back, then carries them out (LEDs, dealer commands, messages). A referee is a pure
function of the input sequence: no clocks, no I/O, no randomness. That is what makes a journal
replay rebuild exactly the state a killed controller had.

Inputs (``src``/``kind``):

* ``table``: ``appeared`` / ``removed`` / ``moved`` / ``turned`` (``card``, ``zone``, ``to``,
  ``track``, ``candidates``: the classifier's probabilities, best first);
* ``button``: ``short`` (done / confirm) or ``long`` (dispute / undo) from ``seat``;
* ``device``: ``dealt`` (``data.id``, ``data.target``, ``card`` when the machine reads cards),
  ``failed`` (``data.id``, ``data.reason``), ``shuffled``, and other device events;
* ``terminal``: ``confirm`` / ``reject`` / ``undo`` / ``dispute`` / ``correct`` with ``seat``
  (who; ``None`` for the host) and ``text`` (why);
* ``control``: ``resync_begin`` / ``resync_end`` around the first view after a restart.

Actions are JSON objects with ``do`` naming them (:data:`ActionKind`): ``move``, ``unmove``, ``flag``,
``clear``, ``override``, ``prompt``, ``deal``, ``shuffle``, ``say``, ``over``, and the games' own
(``deal-seen``, ``trick``, ``pay``, ``deal-over``, ``phase-over``, ``supply``). :class:`Action` types
them for mypy while they stay the plain dicts the journal stores as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Required, TypedDict, cast

ActionKind = Literal[
    "move",
    "unmove",
    "flag",
    "clear",
    "override",
    "prompt",
    "deal",
    "shuffle",
    "say",
    "over",
    "deal-seen",
    "trick",
    "pay",
    "deal-over",
    "phase-over",
    "supply",
]


class Action(TypedDict, total=False):
    """One thing a referee decided, journalled as a JSON object; ``do`` names it and the other keys are
    those its kind uses (``say``: ``text``; ``flag``: ``id``, ``seat``, ``rule``, ``cards``, ``message``;
    ``deal``: ``id``, ``target``, ``count``, ``face``, ``purpose``, ``seat``; ...). A TypedDict rather
    than a dataclass: the journal's JSON and the records read from it stay exactly as they were.

    >>> say: Action = {"do": "say", "text": "seat 1 plays 7H"}
    >>> say["text"]
    'seat 1 plays 7H'
    """

    do: Required[ActionKind]
    # dealer commands (``deal``, ``shuffle``) and flags are numbered
    id: int
    retry_of: int  # a dealer command sent again after ``failed``
    target: str
    count: int
    face: str
    purpose: str
    # who and what
    seat: int | None
    card: str | None
    cards: list[str]
    suit: str | None
    rule: str
    message: str
    how: str  # a flag cleared: put right, overridden, penalty
    text: str
    who: str
    what: str
    why: str
    by: str
    # a choice offered at a seat (``prompt``)
    choice: str
    shown: str
    # the game's progress
    deal: int
    hand: int
    number: int
    phase: str
    dealer: int
    active: list[int]
    hands: dict[str, list[str]] | list[list[str]] | None  # by seat (Frog, Garbage) or in seat order
    widow: list[str] | None
    layout: list[str]
    move: dict[str, Any]
    winner: int
    points: int
    payer: str
    payee: str
    amount: int
    reason: str
    summary: dict[str, Any]
    balances: list[int]
    result: dict[str, Any] | None
    redeal: bool


class Override(TypedDict):
    """A decision people made against the referee: who, what, and why (their words or the button)."""

    who: str
    what: str
    why: str


class InputData(TypedDict, total=False):
    """An input's extra facts: a device's answer (``id``, ``target``, ``reason``, ``recovered``), a
    reading people confirmed (``confirmed``) or the camera doubts (``doubt``), the flag a dispute names
    (``flag``), discards named at the terminal (``cards``)."""

    id: int
    target: str
    reason: str
    recovered: bool
    confirmed: bool
    doubt: bool
    flag: int
    cards: list[str]


# The violations a referee flags; each flag names one of these rules.
OUT_OF_TURN = "out-of-turn"
CAPTURE_COMPULSORY = "capture-compulsory"
WRONG_CARD = "wrong-card"
NON_MATCHING = "non-matching"
TWO_CARDS = "two-cards"
DEAL_COUNT = "deal-count"
VIOLATIONS = (OUT_OF_TURN, CAPTURE_COMPULSORY, WRONG_CARD, NON_MATCHING, TWO_CARDS, DEAL_COUNT)


@dataclass(frozen=True, slots=True)
class Input:
    src: str
    kind: str
    card: str | None = None
    zone: str | None = None
    to: str | None = None
    seat: int | None = None
    track: int | None = None
    candidates: tuple[tuple[str, float], ...] = ()
    text: str = ""
    data: InputData = field(default_factory=lambda: InputData())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"src": self.src, "kind": self.kind}
        for key in ("card", "zone", "to", "seat", "track"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.candidates:
            out["candidates"] = [[c, round(p, 4)] for c, p in self.candidates]
        if self.text:
            out["text"] = self.text
        if self.data:
            out["data"] = dict(self.data)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Input:
        return cls(
            src=str(d["src"]),
            kind=str(d["kind"]),
            card=d.get("card"),
            zone=d.get("zone"),
            to=d.get("to"),
            seat=d.get("seat"),
            track=d.get("track"),
            candidates=tuple((str(c), float(p)) for c, p in d.get("candidates", [])),
            text=str(d.get("text", "")),
            data=cast(InputData, dict(d.get("data", {}))),
        )


@dataclass(slots=True)
class Flag:
    """An open violation: the seat's LED shows the error until it is put right or overridden."""

    id: int
    seat: int
    rule: str
    cards: tuple[str, ...]
    message: str
    state: str = "open"  # open | put right | overridden

    def to_action(self) -> Action:
        return {
            "do": "flag",
            "id": self.id,
            "seat": self.seat,
            "rule": self.rule,
            "cards": list(self.cards),
            "message": self.message,
        }


class Referee(Protocol):
    """One game's referee at the table. Frog and Garbage implement the same protocol."""

    game: str
    players: int

    def start(self) -> list[Action]:
        """The first actions of the game (shuffle and deal with a dealer machine, or a prompt)."""

    def handle(self, inp: Input) -> list[Action]:
        """Judge one input; the returned actions are journalled, then carried out."""

    def leds(self) -> dict[int, str]:
        """Each seat's LED role now: ``idle``, ``turn``, ``error``, ``confirm``, ``winner``."""

    def view(self) -> dict[str, Any]:
        """Everything the terminal view shows (layout, seats, captures, scores, messages)."""

    @property
    def over(self) -> bool: ...

    def result(self) -> dict[str, Any] | None:
        """``cardtable replay``'s result JSON once the game is over."""

    def pending_commands(self) -> list[Action]:
        """Dealer commands issued and not yet answered (re-sent after a restart)."""
