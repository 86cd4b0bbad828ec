"""The controller's core: journal first, then judge, then act.

:class:`GameSession` ties one game's referee to the journal. :meth:`GameSession.submit` writes the
input, asks the referee, writes the verdict (the actions), and only then returns the actions for
the caller to carry out. :meth:`GameSession.open` either starts a new game or resumes the open
game with the same key by replaying its journalled inputs into a fresh referee; a verdict missing
after the last input (the process died between the two writes) is written then.

Actions are carried out by the loop (:mod:`table.controller.loop`); this module does no I/O but
the journal's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table.controller.referee import Action, Input, Referee
from table.controller.registry import referee_module
from table.journal import Journal

RefereeFactory = Callable[[], Referee]


@dataclass
class GameSession:
    journal: Journal
    game_id: int
    referee: Referee
    resumed: bool = False
    replayed_inputs: int = 0
    on_actions: list[Callable[[Input | None, list[Action]], None]] = field(default_factory=list)

    @classmethod
    def open(
        cls,
        journal: Journal,
        *,
        key: str,
        game: str,
        rules: str,
        players: int,
        dealer: int = 0,
        options: dict[str, Any] | None = None,
        card_reader: bool = False,
        dealer_machine: bool = True,
        match_id: int | None = None,
        number: int = 1,
        meta: dict[str, Any] | None = None,
    ) -> tuple[GameSession, list[Action]]:
        """Resume the open game with ``key``, or start a new one. Returns the session and the
        actions to carry out now (the game's first actions, or nothing after a resume: the loop
        re-sends pending dealer commands and LED states itself)."""
        module = referee_module(game)
        existing = journal.open_game(key)

        def make(dealer_seat: int, opts: dict[str, Any]) -> Referee:
            ref: Referee = module.make_referee(
                rules=rules,
                players=players,
                dealer=dealer_seat,
                options=opts,
                card_reader=card_reader,
                dealer_machine=dealer_machine,
            )
            return ref

        if existing is not None:
            referee = make(existing.dealer, existing.options)
            session = cls(journal, existing.id, referee, resumed=True)
            session._replay()
            return session, []
        game_id = journal.new_game(
            key=key,
            game=game,
            rules=rules,
            players=players,
            dealer=dealer,
            options=options or {},
            match_id=match_id,
            number=number,
            meta=(meta or {}) | {"card_reader": card_reader, "dealer_machine": dealer_machine},
        )
        referee = make(dealer, options or {})
        session = cls(journal, game_id, referee)
        actions = referee.start()
        journal.append(game_id, "verdict", {"cause": 0, "actions": actions})
        return session, actions

    def _replay(self) -> None:
        """Feed every journalled input to the fresh referee, in order."""
        entries = list(self.journal.entries(self.game_id))
        has_verdict = {e.body.get("cause") for e in entries if e.kind == "verdict"}
        if 0 not in has_verdict:
            self.journal.append(self.game_id, "verdict", {"cause": 0, "actions": self.referee.start()})
        else:
            self.referee.start()
        for entry in entries:
            if entry.kind != "input":
                continue
            actions = self.referee.handle(Input.from_json(entry.body))
            self.replayed_inputs += 1
            if entry.seq not in has_verdict:
                self.journal.append(self.game_id, "verdict", {"cause": entry.seq, "actions": actions})
        self._finish_if_over()

    def submit(self, inp: Input) -> list[Action]:
        """Journal ``inp``, judge it, journal the verdict; return the actions to carry out."""
        seq = self.journal.append(self.game_id, "input", inp.to_json(), seat=inp.seat)
        actions = self.referee.handle(inp)
        self.journal.append(self.game_id, "verdict", {"cause": seq, "actions": actions})
        self._finish_if_over()
        for callback in self.on_actions:
            callback(inp, actions)
        return actions

    def _finish_if_over(self) -> None:
        if self.referee.over:
            game = self.journal.game(self.game_id)
            if game.status == "open":
                result = self.referee.result()
                self.journal.finish_game(
                    self.game_id, result or {"redeal": True}, status="finished" if result else "redeal"
                )
