"""The deal: the machine's deal (or a hand deal the camera counts and a press confirms), the layout read
against the card reader's names, and the dealer machine's answers."""

from __future__ import annotations

from table.cards import Card, format_cards
from table.chinese_ten import ChineseTenState
from table.chinese_ten.referee.base import LAYOUT, ChineseTenTable, TablePhase
from table.chinese_ten.state import DEALT_TO_PLAYERS, LAYOUT_SIZE
from table.controller.referee import DEAL_COUNT, Action, Input
from table.errors import CardConflictError, IllegalMoveError


class Dealing(ChineseTenTable):
    def _begin_deal(self, out: list[Action]) -> None:
        """Deal by the machine (shuffle, then the hands face down and the layout face up), or ask the dealer
        to deal by hand."""
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle"}))
            for i in range(DEALT_TO_PLAYERS):
                seat = (self.dealer + 1 + i) % self.players
                out.append(
                    self._command(
                        {"do": "deal", "target": f"seat:{seat}", "count": 1, "face": "down", "purpose": "hand"}
                    )
                )
            for _ in range(LAYOUT_SIZE):
                out.append(
                    self._command({"do": "deal", "target": LAYOUT, "count": 1, "face": "up", "purpose": "layout"})
                )
            out.append(
                self._say(
                    f"dealer machine: shuffling and dealing {24 // self.players} cards to each "
                    f"seat and {LAYOUT_SIZE} face up to the layout"
                )
            )
        else:
            out.append(
                self._say(
                    f"seat {self.dealer} deals {24 // self.players} cards to each seat and "
                    f"{LAYOUT_SIZE} face up to the layout; press to confirm when done"
                )
            )

    def _deal_layout_card(self, card: Card, out: list[Action]) -> None:
        if len(self.physical) > LAYOUT_SIZE and not self.dealer_machine:
            out.append(self._say(f"{len(self.physical)} cards on the layout: the deal puts {LAYOUT_SIZE} there"))
        self._maybe_start(out)

    def _maybe_start(self, out: list[Action], *, confirmed: bool = False) -> None:
        if self.phase is not TablePhase.DEAL:
            return
        if self.dealer_machine:
            if self.deal_done < DEALT_TO_PLAYERS + LAYOUT_SIZE or len(self.physical) < LAYOUT_SIZE:
                return
        elif not confirmed:
            return
        else:
            wrong = []
            if len(self.physical) != LAYOUT_SIZE:
                wrong.append(f"the layout shows {len(self.physical)} cards, not {LAYOUT_SIZE}")
            for seat, n in enumerate(self.seat_backs):
                if n and n != 24 // self.players:
                    wrong.append(f"seat {seat} was dealt {n} cards, not {24 // self.players}")
            if wrong:
                self._flag(
                    out,
                    self.dealer,
                    DEAL_COUNT,
                    sorted(self.physical),
                    "deal: " + "; ".join(wrong) + "; deal again or fix it, then press to confirm",
                )
                return
        self._reader_names_layout(out)
        hands = (
            self.dealt_hands
            if self.card_reader and all(len(h) == 24 // self.players for h in self.dealt_hands)
            else None
        )
        try:
            self.state = ChineseTenState(
                self.rules, players=self.players, dealer=self.dealer, layout=sorted(self.physical), hands=hands
            )
        except (IllegalMoveError, CardConflictError, ValueError) as exc:
            out.append(self._say(f"the deal cannot be right: {exc}"))
            return
        for f in self.flags.values():
            if f.rule == DEAL_COUNT:
                self._clear(out, f.id)
        st = self.state
        out.append(
            {
                "do": "deal-seen",
                "layout": [str(c) for c in st.initial_layout],
                "hands": None if hands is None else [[str(c) for c in h] for h in hands],
            }
        )
        if st.redeal_needed:
            self.phase = TablePhase.REDEAL
            out.append(self._say(st.redeal_reason))
            out.append({"do": "over", "result": None, "redeal": True})
            return
        if st.opening_capture:
            self.physical -= set(st.opening_capture)
            out.append(
                self._say(
                    f"four of a kind in the first layout: seat {self.dealer} takes "
                    f"{format_cards(st.opening_capture)} at once"
                )
            )
        self.phase = TablePhase.PLAY
        out.append(self._say(f"play starts: seat {st.to_act} to play; layout {format_cards(st.layout)}"))

    def _reader_names_layout(self, out: list[Action]) -> None:
        """The card reader named all four layout cards: where the camera read one differently (it
        saw the card before the reader's answer came), the reader's card stands."""
        if not (self.dealer_machine and self.card_reader and len(self.layout_named) == LAYOUT_SIZE):
            return
        misread = sorted(self.physical - set(self.layout_named))
        unseen = [c for c in self.layout_named if c not in self.physical]
        if len(misread) != 1 or len(unseen) != 1:
            return
        wrong, right = misread[0], unseen[0]
        self.physical = (self.physical - {wrong}) | {right}
        self.tracks = {t: right if c is wrong else c for t, c in self.tracks.items()}
        out.append(self._say(f"the camera read {wrong} on the layout; the dealer's card reader says {right}"))

    # -- device events ----------------------------------------------------------------------------

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if inp.kind == "dealt" and cmd is not None:
            del self.commands[cmd["id"]]
            self.hopper_left -= 1
            card = Card.parse(inp.card) if inp.card else None
            purpose = cmd.get("purpose")
            if purpose in ("hand", "layout"):
                self.deal_done += 1
                if purpose == "layout" and card is not None:
                    self.layout_named.append(card)
                elif purpose == "layout":
                    self.layout_unnamed += 1
                if purpose == "hand" and card is not None:
                    seat = int(str(cmd["target"]).split(":")[1])
                    self.dealt_hands[seat].append(card)
                    self.owner[card] = seat
                self._maybe_start(out)
            elif purpose == "flip" and cmd["id"] == self.flip_cmd and self.phase is TablePhase.FLIP:
                self.flip_hint = card
                self.flip_ready = True
        elif inp.kind == "shuffled" and cmd is not None:
            del self.commands[cmd["id"]]
        elif inp.kind == "failed" and cmd is not None:
            del self.commands[cmd["id"]]
            reason = inp.data.get("reason", "failed")
            retry = self._retry(cmd)
            if cmd["id"] == self.flip_cmd:
                self.flip_cmd = retry["id"]
            out.append(self._say(f"dealer: {cmd['do']} to {cmd.get('target', '')} failed ({reason}); trying again"))
            out.append(retry)
