"""The deal: the machine's packet plan or a hand deal counted by the camera, and the machine's answers."""

from __future__ import annotations

from table.cards import Card
from table.controller.referee import DEAL_COUNT, Action, Input
from table.errors import CardConflictError, ConfigError, IllegalMoveError
from table.frog.deal import HAND_SIZE, WIDOW, WIDOW_SIZE, deal_plan
from table.frog.play import FROG_PACK
from table.frog.referee.base import (
    FrogTable,
    Stage,
)
from table.frog.rules import DealStyle


class Dealing(FrogTable):
    def _begin_deal(self, out: list[Action]) -> None:
        self._reset_deal()
        self.stage = Stage.DEAL
        dealer = self.match.dealer
        plan = deal_plan(self.rules, self.players, dealer)
        style = self.rules.deal_style.value
        out_seats = [s for s in range(self.players) if not any(st.seat == s for st in plan)]
        sitting = (
            f"; seat{'s' if len(out_seats) > 1 else ''} {', '.join(map(str, out_seats))} "
            f"sit{'' if len(out_seats) > 1 else 's'} out"
            if out_seats
            else ""
        )
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle", "deal": self.deal_no}))
            slough = self.rules.deal_style is DealStyle.SINGLE_1_4_8
            for step in plan:
                target = ("slough" if slough else WIDOW) if step.seat is None else step.target
                for _ in range(step.count):
                    out.append(
                        self._command(
                            {
                                "do": "deal",
                                "target": target,
                                "count": 1,
                                "face": "down",
                                "purpose": "widow" if step.seat is None else "hand",
                                "seat": step.seat,
                                "deal": self.deal_no,
                            }
                        )
                    )
            self.hopper_left = sum(step.count for step in plan)
            out.append(self._say(f"deal {self.deal_no}: dealer machine deals for seat {dealer} ({style}){sitting}"))
        else:
            out.append(
                self._say(
                    f"deal {self.deal_no}: seat {dealer} deals {style}: {HAND_SIZE} cards to each "
                    f"active seat and {WIDOW_SIZE} to the widow{sitting}; press to confirm when done"
                )
            )

    def _infer_unread(self) -> None:
        """Cards dealt while the controller was down were not read (their answer was lost). The
        pack tells which cards they were; where they went is certain when they all went to one place."""
        if not self.unread:
            return
        seen = {c for h in self.dealt.values() for c in h} | set(self.widow_dealt)
        rest = [c for c in FROG_PACK if c not in seen]
        if len(rest) != len(self.unread) or len(set(self.unread)) != 1:
            return
        where = self.unread[0]
        if where is None:
            self.widow_dealt.extend(rest)
        else:
            self.dealt.setdefault(where, []).extend(rest)
        self.unread = []

    def _deal_started(self, out: list[Action], *, confirmed: bool = False) -> None:
        if self.stage is not Stage.DEAL:
            return
        dealer = self.match.dealer
        plan = deal_plan(self.rules, self.players, dealer)
        active = {st.seat for st in plan if st.seat is not None}
        if self.dealer_machine:
            if self.deal_done < sum(st.count for st in plan):
                return
        elif not confirmed:
            return
        else:
            wrong = []
            for seat in range(self.players):
                n = self.backs.get(f"seat:{seat}", 0)
                if seat in active and n and n != HAND_SIZE:
                    wrong.append(f"seat {seat} was dealt {n} cards, not {HAND_SIZE}")
                elif seat not in active and n:
                    wrong.append(f"seat {seat} sits out this deal but was dealt {n} cards")
            widow = self.backs.get(WIDOW, 0)
            if widow and widow != WIDOW_SIZE:
                wrong.append(f"the widow has {widow} cards, not {WIDOW_SIZE}")
            if wrong:
                if not any(f.rule == DEAL_COUNT and f.state == "open" for f in self.flags.values()):
                    self._flag(
                        out,
                        dealer,
                        DEAL_COUNT,
                        [],
                        "deal: " + "; ".join(wrong) + "; deal again or fix it, then press to confirm",
                    )
                self.backs.clear()
                return
        for f in self.flags.values():
            if f.rule == DEAL_COUNT:
                self._clear(out, f.id)
        self._infer_unread()
        known = (
            self.card_reader
            and len(self.widow_dealt) == WIDOW_SIZE
            and all(len(self.dealt.get(s, ())) == HAND_SIZE for s in active)
        )
        try:
            self.deal = self.match.new_deal(
                hands=self.dealt if known else None, widow=self.widow_dealt if known else None
            )
        except (ConfigError, CardConflictError, IllegalMoveError) as exc:
            out.append(self._say(f"the deal cannot be right: {exc}; deal again"))
            self._begin_deal(out)
            return
        deal = self.deal
        out.append(
            {
                "do": "deal-seen",
                "deal": self.deal_no,
                "dealer": deal.dealer,
                "active": list(deal.active),
                "hands": {str(s): [str(c) for c in deal.hand(s) or ()] for s in deal.active} if known else None,
                "widow": [str(c) for c in self.widow_dealt] if known else None,
            }
        )
        self.stage = Stage.AUCTION
        out.append(
            self._say(
                f"deal {self.deal_no}: seats {', '.join(map(str, deal.active))} play; "
                f"seat {deal.active[0]} speaks first"
            )
        )
        self._ask_choice(out)

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if cmd is None:
            return
        if inp.kind == "dealt":
            del self.commands[cmd["id"]]
            self.hopper_left -= 1
            self.deal_done += 1
            card = None
            if inp.card:
                try:
                    card = Card.parse(inp.card)
                except ValueError:
                    card = None
            seat = cmd.get("seat") if cmd.get("purpose") == "hand" else None  # None: the widow
            if card is None and self.card_reader:
                self.unread.append(seat)
            elif card is not None and seat is not None:
                self.dealt.setdefault(seat, []).append(card)
            elif card is not None:
                self.widow_dealt.append(card)
            self._deal_started(out)
        elif inp.kind == "shuffled":
            del self.commands[cmd["id"]]
        elif inp.kind == "failed":
            del self.commands[cmd["id"]]
            retry = self._retry(cmd)
            out.append(
                self._say(
                    f"dealer: {cmd['do']} to {cmd.get('target', '')} failed "
                    f"({inp.data.get('reason', 'failed')}); trying again"
                )
            )
            out.append(retry)
