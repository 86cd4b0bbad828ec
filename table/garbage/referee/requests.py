"""The engine's requests: each hand announced, every coin movement said, each finished phase's result, and the
next card dealt by the machine (or by hand) or the next decision asked for."""

from __future__ import annotations

from table.controller.questions import Choice
from table.controller.referee import Action
from table.garbage import AwaitCard, AwaitMove
from table.garbage.record import result as game_result
from table.garbage.referee.base import GarbageTable, target_of
from table.garbage.referee.instructions import instructions, phase_lines, phase_note


class Requests(GarbageTable):
    def _announce_hand(self, out: list[Action]) -> None:
        game = self.engine
        self.hand_no = game.deal
        self.phase = game.phase
        packs = self.rules.packs_for(self.players)
        out.append(
            self._say(
                f"hand {game.deal + 1} of {game.deals}: seat {game.dealer} deals "
                f"({packs} pack{'s' if packs > 1 else ''}); poker first"
            )
        )

    def _next_request(self, out: list[Action]) -> None:
        """After the engine moved on: coins to say, phase results, and the next card or decision."""
        game = self.engine
        self._pay_out(out)
        if game.deal != self.hand_no or game.phase != self.phase or game.over:
            order = self.rules.phase_order
            first = order.index(self.phase) if self.phase in order else 0
            upto = order.index(game.phase) if game.deal == self.hand_no and game.phase in order else len(order)
            for phase in order[first:upto]:
                self._phase_results(out, phase)
        if game.over:
            self._finish(out)
            return
        if game.deal != self.hand_no:
            self._announce_hand(out)
            self.placed = {k: p for k, p in self.placed.items() if p.role in ("extra", "misplaced")}
            self.reshuffles_seen = 0
            if self.dealer_machine:
                self.waiting_load = True
                out.append(
                    {
                        "do": "prompt",
                        "seat": game.dealer,
                        "text": "gather every card into the dealer "
                        f"machine; seat {game.dealer} deals next: press to deal",
                    }
                )
                return
        elif game.phase != self.phase:
            self.phase = game.phase
            out.append(self._say(f"{game.phase}: {phase_note(game.phase, game.dealer)}"))
        rnd = game.round
        if rnd is not None and rnd.reshuffles > self.reshuffles_seen:
            self.reshuffles_seen = rnd.reshuffles
            if self.dealer_machine:
                self.waiting_load = True
                out.append(
                    {
                        "do": "prompt",
                        "seat": game.dealer,
                        "text": "the stock is out: load the discards "
                        "(not the hands) into the dealer machine and press to go on",
                    }
                )
                return
            out.append(self._say("the stock is out: shuffle the discards (not the hands) into a new stock"))
        self._ask(out)

    def _ask(self, out: list[Action]) -> None:
        step = self.engine.step
        self.hint = None
        if isinstance(step, AwaitCard):
            self.choice = None
            if self.dealer_machine and not self.waiting_load:
                cmd = self._command(
                    {
                        "do": "deal",
                        "target": target_of(step),
                        "count": 1,
                        "face": "up",
                        "purpose": step.purpose,
                        "hand": self.engine.deal,
                    }
                )
                self.card_cmd = cmd["id"]
                out.append(cmd)
            return
        if isinstance(step, AwaitMove):
            options = [k for k in step.kinds if k != "discard"]
            if options:
                self.choice = Choice(step.seat, "move", tuple(options))
                out.append(self._choice_prompt())
            else:
                self.choice = None
                out.append(
                    {
                        "do": "prompt",
                        "seat": step.seat,
                        "text": f"seat {step.seat}: take the card you give up out of your hand",
                    }
                )

    def _pay_out(self, out: list[Action]) -> None:
        entries = self.engine.ledger.entries[self.ledger_seen :]
        self.ledger_seen = len(self.engine.ledger.entries)
        for e in entries:
            out.append(
                {
                    "do": "pay",
                    "hand": e.deal,
                    "phase": e.phase,
                    "payer": e.payer,
                    "payee": e.payee,
                    "amount": e.amount,
                    "reason": e.reason,
                }
            )
        for line in instructions(entries, self.players, self.engine.dealer):
            out.append(self._say(line))

    def _phase_results(self, out: list[Action], phase: str) -> None:
        """Say what a finished phase decided (poker winner and ties, bingo winner...)."""
        results = self.engine.results[self.hand_no]
        for line in phase_lines(results, phase):
            out.append(self._say(line))
        out.append(
            {
                "do": "phase-over",
                "hand": self.hand_no,
                "phase": phase,
                "balances": [self.engine.balance(s) for s in range(self.players)],
            }
        )

    def _finish(self, out: list[Action]) -> None:
        self.choice = None
        self._result = game_result(self.engine)
        out.append({"do": "over", "result": self._result})
        out.append(
            self._say(
                "match over: " + ", ".join(f"seat {s} {self.engine.balance(s)} coins" for s in range(self.players))
            )
        )
