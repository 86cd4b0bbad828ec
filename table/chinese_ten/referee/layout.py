"""What the camera sees on the layout: a card appearing (a play, a flip, a card too many), a card taken up
(a capture, or a card taken that is none), the card named (or asked about), and the restart's re-read."""

from __future__ import annotations

from table.cards import Card
from table.chinese_ten.referee.base import LAYOUT, STOCK, ChineseTenTable, TablePhase
from table.controller import recognition
from table.controller.referee import OUT_OF_TURN, TWO_CARDS, WRONG_CARD, Action, Input
from table.controller.referee_base import seat_of_zone


class Layout(ChineseTenTable):
    def _identify(self, inp: Input, out: list[Action], *, hint: Card | None = None) -> Card | None:
        """The card an appearance shows, or None while people are asked to confirm it."""
        if inp.data.get("confirmed"):
            return Card.parse(str(inp.card))
        candidates = inp.candidates
        if not candidates and inp.card:
            candidates = ((str(inp.card), 0.99),)
        possible = self._possible()
        reading = recognition.read_card(candidates, possible, hint=None if hint is None else str(hint))
        if self.resyncing and not self._resync_named(reading):
            # Re-reading the table after a restart: a card not named for sure is not guessed. It
            # is asked about once the re-read is over (asking now would hold up the comparison).
            self.resync_doubts.append(inp)
            return None
        if reading.card is not None and reading.sure and not inp.data.get("doubt"):
            return Card.parse(reading.card)
        seat = self.state.to_act if self.state is not None else self.dealer
        # the posterior, not reading.ranked: a card-reader hint the camera doubts must not hide the others
        ranked = recognition.ask_order(recognition.posterior(candidates, possible), candidates)
        if not ranked:
            out.append(self._say(f"a card appeared on the layout that cannot be there ({inp.card}); check the table"))
            return None
        self._ask_about(
            seat, ranked, inp, out, "the card on the layout" if inp.data.get("doubt") else "the card just placed"
        )
        self.messages.append(f"confirm: is it {ranked[0]}?")
        return None

    def _resync_named(self, reading: recognition.Reading) -> bool:
        """Whether a re-read card may be taken without asking: sure, and at the deal (the layout
        must be named exactly before play starts) one the card reader named, when it has one."""
        if reading.card is None or not reading.sure:
            return False
        if self.phase is TablePhase.DEAL and self.card_reader and self.dealer_machine:
            return Card.parse(reading.card) in self.layout_named
        return True

    def _table(self, inp: Input, out: list[Action]) -> None:
        kind = inp.kind
        if kind == "moved":
            if inp.zone == LAYOUT and inp.to != LAYOUT:
                kind = "removed"
            elif inp.to == LAYOUT and inp.zone != LAYOUT:
                kind = "appeared"
                inp = Input(
                    inp.src,
                    "appeared",
                    inp.card,
                    LAYOUT,
                    None,
                    seat_of_zone(inp.zone),
                    inp.track,
                    inp.candidates,
                    inp.text,
                    inp.data,
                )
            elif inp.zone == STOCK and inp.to == LAYOUT:
                kind = "appeared"
            else:
                return
        if kind == "turned":
            kind = "appeared"
        if kind == "appeared" and (inp.card == "back" or (inp.card == "unknown" and not inp.candidates)):
            seat = seat_of_zone(inp.zone)
            if self.phase is TablePhase.DEAL and seat is not None and inp.zone == f"seat:{seat}":
                self.seat_backs[seat] += 1
            return
        zone = inp.zone
        if kind == "appeared" and zone == STOCK and not self.dealer_machine and self.phase is TablePhase.FLIP:
            zone = LAYOUT  # a hand flip turned over on the stock
        if zone != LAYOUT and inp.to != LAYOUT:
            return
        if kind == "appeared":
            self._appeared(inp, out)
            if self.resyncing and inp.track is not None and inp.track in self.tracks:
                self.resync_seen.add(self.tracks[inp.track])  # seen now, whatever it meant
        elif kind == "removed":
            card = self.tracks.pop(inp.track, None) if inp.track is not None else None
            if card is None and inp.card:
                try:
                    card = Card.parse(inp.card)
                except ValueError:
                    card = None
            if card is None or card not in self.physical:
                return  # the tracker lost something we never counted: nothing changed on the layout
            self._removed(card, inp, out)

    def _appeared(self, inp: Input, out: list[Action]) -> None:
        if inp.track is not None and self.tracks.get(inp.track) in self.physical and not self.resyncing:
            return  # the tracker relabelled a card it reported before: our reading stands
        hint = self.flip_hint if self.phase is TablePhase.FLIP else None
        if self.resyncing:
            known = self._known_again(inp)
            if known is not None:
                self.resync_seen.add(known)
                if inp.track is not None:
                    self.tracks[inp.track] = known
                return
        card = self._identify(inp, out, hint=hint)
        if card is None:
            return
        if card in self.physical:
            return  # seen twice: the tracker re-found a card it had lost
        self.physical.add(card)
        if inp.track is not None:
            self.tracks[inp.track] = card
        if self.phase is TablePhase.DEAL:
            self._deal_layout_card(card, out)
            return
        st = self.state
        assert st is not None
        if card in self.taken:  # a wrongly taken card put back
            self.taken.remove(card)
            self._judge_take(out)
            return
        if card in self.missing:
            self._clear(out, self.missing.pop(card))
            return
        if card in st.layout:  # a game card put back (after an undo)
            return
        seat = st.to_act
        owner = self._seat_holding(card)
        if owner is None:
            owner = inp.seat if inp.seat is not None else seat_of_zone(inp.zone)
        if self.phase is TablePhase.PLAY:
            if owner is not None and owner != seat:
                self._extra(
                    out,
                    owner,
                    card,
                    OUT_OF_TURN,
                    f"seat {owner} played {card} out of turn: it is seat {seat}'s turn to play",
                )
                return
            self._play(seat, card, out)
            return
        if self.phase is TablePhase.FLIP and self._is_flip(card, owner):
            self._flip(card, out)
            return
        # Any other card now is one card too many.
        if owner is not None and owner != seat:
            self._extra(
                out,
                owner,
                card,
                OUT_OF_TURN,
                f"seat {owner} played {card} out of turn: seat {seat} is still "
                f"{'capturing' if self.pending else 'to flip'}",
            )
        else:
            first = self.pending if self.pending_kind == "play" else (st.history[-1].card if st.history else None)
            self._extra(
                out, seat, card, TWO_CARDS, f"seat {seat} played a second card {card} after {first}: one card a turn"
            )

    def _known_again(self, inp: Input) -> Card | None:
        """After a restart: a card the referee already has on the layout, seen again."""
        labels = recognition.reread_labels(inp.card, inp.candidates, self._possible())
        for label in labels:
            try:
                card = Card.parse(label)
            except ValueError:
                continue
            if card in self.physical and card not in self.resync_seen:
                return card
        return None

    def _is_flip(self, card: Card, owner: int | None) -> bool:
        if self.reflip is not None:
            return card is self.reflip
        if owner is not None:
            return False  # a card from someone's hand is not the stock's
        if self.dealer_machine:
            if self.flip_hint is not None:
                return card is self.flip_hint
            # the camera may see the flipped card before the machine's report arrives
            return self.flip_ready or self.flip_cmd in self.commands
        return True

    def _extra(self, out: list[Action], seat: int, card: Card, rule: str, message: str) -> None:
        self.extras[card] = self._flag(out, seat, rule, [card], message + "; take it back")

    def _removed(self, card: Card, inp: Input, out: list[Action]) -> None:
        self.physical.discard(card)
        if self.phase is TablePhase.DEAL:
            return
        st = self.state
        assert st is not None
        if card in self.extras:
            self._clear(out, self.extras.pop(card))
            return
        if self.pending is not None and (card is self.pending or card in st.layout):
            self.taken.append(card)
            self._judge_take(out)
            return
        if card in st.layout:
            seat = st.to_act
            who = seat_of_zone(inp.to)
            taker = who if who is not None else seat
            self.missing[card] = self._flag(
                out,
                taker,
                WRONG_CARD,
                [card],
                f"seat {taker} took {card} from the layout without capturing it; put it back",
            )
        # anything else: a card the game had already moved (an opening capture, an undone move)

    # -- restart ------------------------------------------------------------------------------------

    def _control(self, inp: Input, out: list[Action]) -> None:
        if inp.kind == "resync_begin":
            self.resyncing = True
            self.resync_seen = set()
            self.tracks = {}
        elif inp.kind == "resync_end":
            self.resyncing = False
            for card in sorted(self.physical - self.resync_seen):
                self._removed(card, Input("table", "removed", str(card), LAYOUT), out)
            # The cards the re-read could not name for sure: people are asked, one at a time.
            doubts, self.resync_doubts = self.resync_doubts, []
            for doubt in doubts:
                asked = Input(
                    doubt.src,
                    doubt.kind,
                    doubt.card,
                    doubt.zone,
                    doubt.to,
                    doubt.seat,
                    doubt.track,
                    doubt.candidates,
                    doubt.text,
                    {**doubt.data, "doubt": True},
                )
                if self.prompt is None:
                    self._table(asked, out)
                else:
                    self.held.append(asked)

    def _check_flags(self, out: list[Action]) -> None:
        """Flags whose cause went away in the meantime (an extra card captured, say) are put right."""
        for card in [c for c in self.extras if c not in self.physical]:
            self._clear(out, self.extras.pop(card))
