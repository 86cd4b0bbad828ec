"""The live table's side of the page: after each verdict, on the controller's loop thread, the state and the
verdict's events go to the feed (:class:`~table.web.process.ServerProcess`, which queues them for the page's
server process: nothing waits on the server or a viewer). A resumed game's moves and flags so far are read from
its journalled verdicts first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from table.controller.core import GameSession
from table.controller.referee import Action, Input
from table.web.model import Event, State
from table.web.snapshot import Ledger, state_of


class Publisher(Protocol):
    def publish(self, state: State, events: Sequence[Event]) -> None: ...


class LiveTable:
    def __init__(
        self,
        feed: Publisher,
        session: GameSession,
        *,
        names: Callable[[int], str] = lambda s: f"seat {s}",
        dealer_machine: bool = True,
        dealer_errors: Callable[[], Sequence[str]] = tuple,
    ) -> None:
        self.feed = feed
        self.session = session
        self.names = names
        self.dealer_machine = dealer_machine
        self.dealer_errors = dealer_errors
        self.ledger = Ledger()
        events: list[Event] = []
        for entry in session.journal.entries(session.game_id, kinds=("verdict",)):
            events.extend(self.ledger.absorb(entry.body.get("actions", [])))
        self._publish(events)

    def attach(self, loop: Any) -> None:
        """Follow ``loop`` (a :class:`~table.controller.loop.TableLoop`): its listeners run after each verdict."""
        loop.listeners.append(self.on_verdict)
        self.dealer_errors = lambda: list(loop.dealer_worker.errors)

    def on_verdict(self, inp: Input | None, actions: list[Action]) -> None:
        # The game's first actions (``inp`` None) were journalled before the loop carried them out: read already.
        self._publish([] if inp is None else self.ledger.absorb(actions))

    def _publish(self, events: list[Event]) -> None:
        state = state_of(
            self.session.referee,
            self.ledger,
            game_id=self.session.game_id,
            names=self.names,
            dealer_machine=self.dealer_machine,
            dealer_errors=self.dealer_errors(),
        )
        self.feed.publish(state, events)
