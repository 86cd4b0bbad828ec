"""The JSON the table page and ``/api/*`` speak (documented in docs/web.md): typed, built once per verdict.

A :class:`State` is what the referee knows after its latest verdict; an :class:`Event` is one thing it did
(a move, a flag raised or ended, a question, an override, a message). ``/api/state`` is a ``State`` with the
game's ``moves`` so far; the live stream sends ``hello`` (the same), then ``event``, ``state`` and ``frame``.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

EventKind = Literal["move", "unmove", "flag", "clear", "prompt", "override", "say", "over"]


class SeatState(TypedDict):
    seat: int
    name: str
    led: str  # idle | turn | error | confirm | winner
    to_act: bool
    active: bool  # Frog: False for a seat sitting this deal out
    points: int | None  # Chinese Ten points; Frog trick points this deal
    chips: int | None  # Frog: the seat's chip balance
    coins: int | None  # Garbage: the seat's coin balance
    tricks: int | None  # Frog: tricks won this deal
    hand: int | list[str] | None  # cards in hand: a count, or the cards when the referee knows them
    cards: list[str]  # the seat's cards face up on the table (Garbage)
    captured: list[str]  # Chinese Ten: the seat's captured cards


class TableRow(TypedDict):
    """A line of the table as the referee knows it: the layout, the trick, the widow, the turn-up row..."""

    label: str
    cards: list[str]
    text: str


class LedgerLine(TypedDict):
    account: str
    amount: int


class FlagState(TypedDict):
    id: int
    seat: int
    rule: str
    rule_text: str  # the rule in words
    cards: list[str]
    message: str
    state: str  # open | put right | overridden


class PromptState(TypedDict):
    """The referee's open question. ``card``: "is it 7H?" (``suit``: "is it a heart?" instead); ``choices``:
    the cards that may be named instead (``correct CARD``); ``text``: the question as the seat hears it."""

    seat: int
    question: str
    card: str | None
    suit: str | None
    choices: list[str]
    text: str


class DealerState(TypedDict):
    machine: bool  # a dealer machine deals (False: the players deal by hand)
    in_flight: int  # commands sent and not yet answered
    last: str | None  # the last command, in words
    errors: list[str]  # the last few device errors


class State(TypedDict):
    live: bool  # a table is being refereed (False: the server only shows the journal's games)
    seq: int  # the number of the last event published
    game_id: int | None
    game: str | None
    rules: str | None
    players: int
    phase: str
    to_act: int | None
    seats: list[SeatState]
    table: list[TableRow]
    ledger: list[LedgerLine]
    flags: list[FlagState]  # every flag of the game, open and ended, oldest first
    prompt: PromptState | None
    asking: str | None  # another question waiting on a seat's press (a bid, "press to deal")
    messages: list[str]
    dealer: DealerState
    move_count: int  # moves made so far (the list, ``moves``, is in /api/state and the stream's hello)
    over: bool
    result: dict[str, Any] | None


class Event(TypedDict):
    seq: int
    kind: EventKind
    seat: int | None
    text: str


class SeenCardJson(TypedDict):
    card: str
    confidence: float
    corners: list[list[float]]


class ZoneJson(TypedDict):
    name: str
    label: str
    kind: str
    polygon: list[list[float]]


class FrameJson(TypedDict, total=False):
    """A frame on the stream: the picture (``jpeg``, base64; also ``/api/frame.jpg?seq=SEQ``) and what was seen."""

    seq: int
    index: int
    width: int
    height: int
    cards: list[SeenCardJson]
    zones: list[ZoneJson]
    jpeg: str


def empty_state(players: int = 0) -> State:
    """The state of a server with no live table (``cardtable history --web``) or before the first verdict."""
    return State(
        live=False,
        seq=0,
        game_id=None,
        game=None,
        rules=None,
        players=players,
        phase="",
        to_act=None,
        seats=[],
        table=[],
        ledger=[],
        flags=[],
        prompt=None,
        asking=None,
        messages=[],
        dealer=DealerState(machine=False, in_flight=0, last=None, errors=[]),
        move_count=0,
        over=False,
        result=None,
    )
