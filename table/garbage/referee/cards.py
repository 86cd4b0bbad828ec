"""The cards on the table: a face-up card appearing (the awaited card, or one misplaced, turned out of turn
or too many) or taken away (a discard, or a card out of a live hand), the card named (or asked about); the
dealer machine's answers; the restart's re-read."""

from __future__ import annotations

from table.cards import Card
from table.controller import recognition
from table.controller.referee import OUT_OF_TURN, Action, Input
from table.errors import CardConflictError, IllegalMoveError
from table.garbage import AwaitCard, AwaitMove, Move
from table.garbage.referee.base import EXTRA_CARD, HAND_DISTURBED, MISPLACED, TURNUP, GarbageTable, Placed, target_of


def _seat_of_zone(zone: str | None) -> int | None:
    if zone and zone.startswith("seat:"):
        try:
            return int(zone.split(":", 1)[1])
        except ValueError:
            return None
    return None


class TableCards(GarbageTable):
    def _table(self, inp: Input, out: list[Action]) -> None:
        kind, zone = inp.kind, inp.zone
        if kind == "moved":
            self._table(Input("table", "removed", inp.card, inp.zone, track=inp.track), out)
            kind, zone = "appeared", inp.to
        if kind == "turned":
            kind = "appeared"
        # "unknown": the camera could not agree on a face; its candidates still go to a question
        if not recognition.readable_face(inp.card, inp.candidates) or zone is None:
            return
        if kind == "removed":
            self._removed(inp, zone, out)
            return
        if kind != "appeared":
            return
        if self.resyncing:
            known = self._known_again(inp, zone)
            if known is not None:
                self.resync_seen.add(known)
                return
        if zone != TURNUP and _seat_of_zone(zone) is None:
            return
        before = set(self.placed)
        self._appeared(inp, zone, out)
        if self.resyncing:  # laid while the controller was down: new to it, but on the table now
            self.resync_seen |= set(self.placed) - before

    def _known_again(self, inp: Input, zone: str) -> int | None:
        # The reading first, the runner-up only if no known card has that face: a 4H re-seen must
        # not take the place of the 4D beside it (which would leave the 4H "taken out of the hand").
        # A sure reading of a card still in the stock is that card (a 5D turned while the controller
        # was down, runner-up 3D, must not take the known 3D's place).
        labels = recognition.reread_labels(inp.card, inp.candidates, {str(c) for c in self.engine.stock_cards()})
        for label in labels:
            for key, p in self.placed.items():
                if key not in self.resync_seen and p.zone == zone and str(p.card) == label:
                    if inp.track is not None and inp.track != key:
                        self.placed[inp.track] = self.placed.pop(key)
                        return inp.track
                    return key
        return None

    def _track(self, inp: Input) -> int:
        if inp.track is not None:
            return inp.track
        self._untracked -= 1
        return self._untracked

    def _identify(self, inp: Input, zone: str, out: list[Action], *, supply: bool) -> Card | None:
        if inp.data.get("confirmed"):
            return Card.parse(str(inp.card))
        candidates = inp.candidates or ((str(inp.card), 0.99),)
        if supply:
            possible = {str(c) for c in set(self.engine.stock_cards())}
        else:
            possible = set(recognition.FACES)
        hint = None if self.hint is None or not supply else str(self.hint)
        reading = recognition.read_card(candidates, possible, hint=hint)
        if reading.card is not None and reading.sure:
            return Card.parse(reading.card)
        ranked = recognition.ask_order(reading.ranked, candidates)
        if not ranked:
            out.append(self._say(f"a card appeared in {zone} that cannot be there ({inp.card}); check the table"))
            return None
        self._ask_about(self.engine.dealer, ranked, inp, out)
        return None

    def _appeared(self, inp: Input, zone: str, out: list[Action]) -> None:
        step = self.engine.step
        seat = _seat_of_zone(zone)
        key = self._track(inp)
        if key in self.placed:
            return  # seen twice
        # a card taken out of a live hand, put back
        for fid, (mseat, mcard) in list(self.missing.items()):
            if seat == mseat and str(mcard) in {str(inp.card), *(c for c, _ in inp.candidates[:1])}:
                del self.missing[fid]
                self.placed[key] = Placed(mcard, zone, "hand")
                self._clear(out, fid)
                return
        awaited = isinstance(step, AwaitCard) and not self.waiting_load and zone == target_of(step)
        card = self._identify(inp, zone, out, supply=awaited)
        if card is None:
            return
        if (
            isinstance(step, AwaitCard)
            and not self.waiting_load
            and (
                zone == target_of(step)
                or (
                    # a machine's card moved by someone (the reader named it); by hand, a dealer's slip
                    not self.dealer_machine or card is self.hint
                )
            )
        ):
            if zone == target_of(step):
                self._supply(key, card, zone, out)
                return
            dealer = self.engine.dealer
            if step.purpose in ("deal", "buy"):
                where = "the turn-up row" if zone == TURNUP else f"seat {seat}'s place"
                message = (
                    f"{card} was dealt to {where}; it is seat {step.seat}'s card ({step.describe()}): move it there"
                )
            else:
                message = (
                    f"{card} was turned into seat {seat}'s hand; turned cards go to the turn-up row "
                    f"({step.describe()}): move it there"
                )
            fid = self._flag(out, dealer, MISPLACED, [card], message)
            self.placed[key] = Placed(card, zone, "misplaced", fid)
            return
        if zone == TURNUP:
            when = (
                f"while seat {step.seat} is to decide"
                if isinstance(step, AwaitMove)
                else f"when the table awaits: {step.describe()}"
            )
            fid = self._flag(out, self.engine.dealer, OUT_OF_TURN, [card], f"{card} was turned {when}; put it back")
            self.placed[key] = Placed(card, zone, "extra", fid)
            return
        assert seat is not None
        fid = self._flag(
            out,
            seat,
            EXTRA_CARD,
            [card],
            f"{card} appeared in seat {seat}'s hand but was not dealt to it; take it away",
        )
        self.placed[key] = Placed(card, zone, "extra", fid)

    def _supply(self, key: int, card: Card, zone: str, out: list[Action]) -> None:
        game = self.engine
        try:
            game.verify_card(card)
        except (CardConflictError, IllegalMoveError) as exc:
            out.append(self._say(f"cannot be: {exc}; check the card"))
            return
        step = game.step
        assert isinstance(step, AwaitCard)
        hand = game.deal
        if self.card_cmd is not None and self.card_cmd in self.commands:
            # seen before the machine's answer (or the answer was lost in a restart): it is done
            del self.commands[self.card_cmd]
            self.hopper_left -= 1
        self.card_cmd = None
        game.supply(card)
        self.placed[key] = Placed(card, zone, "hand" if step.purpose in ("deal", "buy") else "turnup")
        out.append(
            {
                "do": "supply",
                "hand": hand,
                "card": str(card),
                "purpose": step.purpose,
                "seat": step.seat,
                "number": step.number,
            }
        )
        self.messages.append(f"{step.describe()}: {card}")
        self._next_request(out)

    def _removed(self, inp: Input, zone: str, out: list[Action]) -> None:
        key = inp.track
        placed = self.placed.pop(key, None) if key is not None else None
        if placed is None:
            for k, p in self.placed.items():  # no track: the first card of that face in the zone
                if p.zone == zone and str(p.card) == inp.card:
                    placed = self.placed.pop(k)
                    break
        if placed is None:
            return
        if placed.role in ("extra", "misplaced"):
            self._clear(out, placed.flag)
            return
        seat = _seat_of_zone(zone)
        if placed.role != "hand" or seat is None:
            return
        step = self.engine.step
        if isinstance(step, AwaitMove) and step.seat == seat and "discard" in step.kinds:
            if self._play(Move(seat, "discard", placed.card), out, f"seat {seat}", "taken out of the hand"):
                return
        live = self.engine.hand(seat)
        if placed.card in live and self.engine.deal == self.hand_no:
            fid = self._flag(
                out,
                seat,
                HAND_DISTURBED,
                [placed.card],
                f"seat {seat} took {placed.card} out of its hand while the hand is still in play "
                f"({self.engine.phase}); put it back",
            )
            self.missing[fid] = (seat, placed.card)

    # -- the dealer machine ---------------------------------------------------------------------------

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if cmd is None:
            return
        del self.commands[cmd["id"]]
        if inp.kind == "dealt":
            self.hopper_left -= 1
            if inp.card and cmd["id"] == self.card_cmd:
                try:
                    self.hint = Card.parse(inp.card)
                except ValueError:
                    self.hint = None
        elif inp.kind == "failed":
            retry = self._retry(cmd)
            if cmd["id"] == self.card_cmd:
                self.card_cmd = retry["id"]
            out.append(
                self._say(
                    f"dealer: {cmd['do']} to {cmd.get('target', '')} failed "
                    f"({inp.data.get('reason', 'failed')}); trying again"
                )
            )
            out.append(retry)

    # -- restart --------------------------------------------------------------------------------------

    def _control(self, inp: Input, out: list[Action]) -> None:
        if inp.kind == "resync_begin":
            self.resyncing = True
            self.resync_seen = set()
            # A restarted camera numbers its tracks from 1 again: the known cards move to keys no
            # track can have, or re-keying a re-seen card would overwrite another not yet re-seen.
            rekeyed: dict[int, Placed] = {}
            for p in self.placed.values():
                self._untracked -= 1
                rekeyed[self._untracked] = p
            self.placed = rekeyed
        elif inp.kind == "resync_end":
            self.resyncing = False
            for key in [k for k in self.placed if k not in self.resync_seen]:
                p = self.placed[key]
                self._removed(Input("table", "removed", str(p.card), p.zone, track=key), p.zone, out)
