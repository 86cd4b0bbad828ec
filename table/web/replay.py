"""The replay viewer's data: a journalled game stepped through again.

The game's journalled inputs are fed, in order, to a fresh referee of the same game, rules and players (as a
restarted controller does); a step is kept after each input whose verdict did something a person sees (a move,
a flag raised or ended, a question, an override, the end), with the state after it. The last step's result is
checked against the result the journal holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from table.controller.referee import Input
from table.controller.registry import referee_module
from table.errors import TableError
from table.journal import GameRow, Journal
from table.web.errors import WebError
from table.web.model import Event, State
from table.web.snapshot import Ledger, state_of

SHOWN = frozenset(("move", "unmove", "flag", "clear", "prompt", "override", "over"))


class GameSummary(TypedDict):
    id: int
    game: str
    rules: str
    players: int
    status: str
    started: float
    finished: float | None
    match: int | None
    number: int
    scores: str


class ReplayStep(TypedDict):
    step: int
    input: str  # the input that led to it, in words
    events: list[Event]
    state: State
    moves: list[str]


class Replay(TypedDict):
    game: GameSummary
    steps: list[ReplayStep]
    journalled_result: dict[str, Any] | None
    agrees: bool  # the replayed result equals the journalled one


class ReplayError(WebError, ValueError):
    """A journalled game that cannot be stepped through (no such game, or its entries do not replay)."""


def summary(game: GameRow) -> GameSummary:
    seats = (game.result or {}).get("seats", [])
    scores = " ".join(
        f"{s.get('seat')}:{s.get('chips', s.get('coins', s.get('points')))}" for s in seats if isinstance(s, dict)
    )
    return GameSummary(
        id=game.id,
        game=game.game,
        rules=game.rules,
        players=game.players,
        status=game.status,
        started=game.created,
        finished=game.finished,
        match=game.match_id,
        number=game.number,
        scores=scores,
    )


def list_games(journal_path: Path) -> list[GameSummary]:
    with Journal(journal_path, read_only=True) as journal:
        return [summary(g) for g in reversed(journal.games())]


def describe_input(inp: Input) -> str:
    words = [inp.src, inp.kind]
    if inp.card:
        words.append(inp.card)
    if inp.zone:
        words.append(f"in {inp.zone}" if not inp.to else f"from {inp.zone} to {inp.to}")
    if inp.seat is not None:
        words.append(f"seat {inp.seat}")
    if inp.text:
        words.append(f"({inp.text})")
    return " ".join(words)


def replay_game(journal_path: Path, game_id: int) -> Replay:
    with Journal(journal_path, read_only=True) as journal:
        try:
            game = journal.game(game_id)
        except KeyError:
            raise ReplayError(f"no game {game_id} in the journal") from None
        entries = list(journal.entries(game_id, kinds=("input",)))
    try:
        referee = referee_module(game.game).make_referee(
            rules=game.rules,
            players=game.players,
            dealer=game.dealer,
            options=dict(game.options),
            card_reader=bool(game.meta.get("card_reader", False)),
            dealer_machine=bool(game.meta.get("dealer_machine", True)),
        )
        ledger = Ledger()
        machine = bool(game.meta.get("dealer_machine", True))
        steps: list[ReplayStep] = []

        def keep(text: str, events: list[Event]) -> None:
            state = state_of(referee, ledger, game_id=game.id, dealer_machine=machine, live=False)
            steps.append(ReplayStep(step=len(steps), input=text, events=events, state=state, moves=list(ledger.moves)))

        keep("the game starts", ledger.absorb(referee.start()))
        for entry in entries:
            inp = Input.from_json(entry.body)
            events = ledger.absorb(referee.handle(inp))
            if any(e["kind"] in SHOWN for e in events):
                keep(describe_input(inp), events)
        if len(steps) == 1 or steps[-1]["state"]["over"] != bool(referee.over):
            keep("the last input", [])
    except (TableError, ValueError, KeyError, TypeError) as exc:
        raise ReplayError(f"game {game_id} does not replay: {type(exc).__name__}: {exc}") from None
    result = referee.result()
    return Replay(
        game=summary(game),
        steps=steps,
        journalled_result=game.result,
        agrees=game.status != "finished" or result == game.result,
    )
