"""Plays, flips and captures: a card that captures waits until its pair is taken up; the seat done without
capturing; the flip asked for; undo; the end of the game."""

from __future__ import annotations

from typing import Any

from table.cards import Card, format_cards
from table.chinese_ten import Phase
from table.chinese_ten.referee.base import LAYOUT, ChineseTenTable, TablePhase, result_json
from table.controller.referee import CAPTURE_COMPULSORY, NON_MATCHING, WRONG_CARD, Action
from table.errors import CardConflictError, IllegalMoveError


class Captures(ChineseTenTable):
    def _play(self, seat: int, card: Card, out: list[Action]) -> None:
        st = self.state
        assert st is not None
        try:
            takes = st.takes(card)
            if takes == [()]:
                move = st.play(seat, card, ())
                self._moved(move, out)
                return
            st.verify_play(seat, card, takes[0])
        except CardConflictError as exc:
            self.physical.discard(card)
            out.append(self._say(f"cannot be: {exc.reason}"))
            return
        except IllegalMoveError as exc:
            self.physical.discard(card)
            out.append(self._say(str(exc)))
            return
        self.pending, self.pending_kind, self.taken = card, "play", []
        self.phase = TablePhase.CAPTURE

    def _flip(self, card: Card, out: list[Action]) -> None:
        st = self.state
        assert st is not None
        if self.reflip is None and self.flip_cmd in self.commands:
            # The camera saw the flipped card before the machine's answer (or the answer was lost
            # in a restart): the command is done.
            del self.commands[self.flip_cmd]
            self.hopper_left -= 1
        self.reflip = None
        try:
            takes = st.takes(card)
            if takes == [()]:
                move = st.flip(card, ())
                self._moved(move, out)
                return
            st.verify_flip(card, takes[0])
        except (IllegalMoveError, CardConflictError) as exc:
            self.physical.discard(card)
            out.append(self._say(f"flip refused: {exc}"))
            return
        self.pending, self.pending_kind, self.taken = card, "flip", []
        self.phase = TablePhase.FLIP_CAPTURE

    def _allowed(self) -> list[frozenset[Card]]:
        st = self.state
        assert st is not None and self.pending is not None
        return [frozenset((self.pending, *t)) for t in st.takes(self.pending) if t]

    def _judge_take(self, out: list[Action], *, final: bool = False) -> None:
        st = self.state
        assert st is not None and self.pending is not None
        taken = frozenset(self.taken)
        allowed = self._allowed()
        seat = st.to_act
        card = self.pending
        if taken in allowed:
            take = next(t for t in st.takes(card) if t and frozenset((card, *t)) == taken)
            move = st.play(seat, card, take) if self.pending_kind == "play" else st.flip(card, take)
            self._clear(out, self.take_flag)
            self._clear(out, self.skip_flag)
            self.take_flag = self.skip_flag = None
            self._moved(move, out)
            return
        if not taken or any(taken < a for a in allowed):
            self._clear(out, self.take_flag)
            self.take_flag = None
            return
        if self.take_flag is not None and self.flags[self.take_flag].state == "open":
            return  # already flagged; wait until it is put right
        if len(taken) < 2 and not final:
            # One card taken that is no capture: judged when the pair is complete (or at the next
            # other event), so the message can say which rule it broke.
            self.take_deferred = True
            return
        self.take_deferred = False
        targets = sorted({c for a in allowed for c in a if c is not card})
        others = sorted(c for c in taken if c is not card)
        verb = "played" if self.pending_kind == "play" else "flipped"
        if card in taken:
            rule = NON_MATCHING
            can = f"it takes {' or '.join(map(str, targets))}" if targets else "it captures nothing"
            message = (
                f"seat {seat} {verb} {card} and took it with {format_cards(others)}, which it does not "
                f"capture ({can}); put the cards back"
            )
        else:
            rule = WRONG_CARD
            message = (
                f"seat {seat} {verb} {card} and took {format_cards(others)}: a capture takes the card "
                f"just {verb}, {card}, with "
                f"{' or '.join(map(str, targets)) if targets else 'its match'}; put the cards back"
            )
        self.take_flag = self._flag(out, seat, rule, [card, *others], message)

    def _moved(self, move: Any, out: list[Action], *, explicit_empty: bool = False) -> None:
        st = self.state
        assert st is not None
        self.pending, self.pending_kind, self.taken = None, "", []
        self.physical -= set(move.take) | ({move.card} if move.take else set())
        # a card laid although it could capture says so in the record ("take": [])
        out.append({"do": "move", "move": move.to_json(explicit_empty_take=explicit_empty), "text": str(move)})
        self.messages.append(str(move))
        if st.phase is Phase.OVER:
            self._finish(out)
        elif st.phase is Phase.FLIP:
            self.phase = TablePhase.FLIP
            self._ask_flip(out)
        else:
            self.phase = TablePhase.PLAY

    def _ask_flip(self, out: list[Action]) -> None:
        self.flip_hint = None
        self.flip_ready = not self.dealer_machine
        if self.reflip is not None:
            self.flip_ready = True
            out.append(self._say(f"put {self.reflip} back on the layout as the flip"))
            return
        if self.dealer_machine:
            cmd = self._command({"do": "deal", "target": LAYOUT, "count": 1, "face": "up", "purpose": "flip"})
            self.flip_cmd = cmd["id"]
            out.append(cmd)

    def _finish(self, out: list[Action]) -> None:
        st = self.state
        assert st is not None and st.outcome is not None
        self.phase = TablePhase.OVER
        self._result = result_json(st)
        out.append({"do": "over", "result": self._result})
        pts = ", ".join(f"seat {s.seat} {s.points}" for s in st.outcome.seats)
        out.append(self._say(f"game over: {pts}"))

    def _done_without_capture(self, out: list[Action]) -> None:
        st = self.state
        assert st is not None and self.pending is not None
        card = self.pending
        takes = st.takes(card)
        if () in takes and not self.taken:
            move = st.play(st.to_act, card, ())
            self._moved(move, out, explicit_empty=True)
            return
        if self.skip_flag is not None and self.flags[self.skip_flag].state == "open":
            return
        options = sorted({c for t in takes for c in t})
        verb = "played" if self.pending_kind == "play" else "flipped"
        self.skip_flag = self._flag(
            out,
            st.to_act,
            CAPTURE_COMPULSORY,
            [card, *options],
            f"seat {st.to_act} {verb} {card} while {' and '.join(map(str, options))} lay on the layout: "
            "capture is compulsory; take the pair",
        )

    def _undo(self, out: list[Action], who: str, why: str) -> None:
        st = self.state
        if st is None or not st.history or self.pending is not None or self.commands:
            out.append(self._say(f"{who}: nothing can be undone now"))
            return
        move = st.undo()
        self._record_override(out, who, f"undo: {move}", why)
        out.append({"do": "unmove", "move": move.to_json(), "text": str(move)})
        if move.kind == "flip":
            self.reflip = move.card
        self.physical -= {move.card}
        self.phase = TablePhase.PLAY if st.phase is Phase.PLAY else TablePhase.FLIP
        if self.phase is TablePhase.FLIP:
            self._ask_flip(out)
        out.append(self._say(f"undone: {move}; put the table back as it was (layout {format_cards(st.layout)})"))
