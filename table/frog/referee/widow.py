"""The widow shown, taken and discarded (Frog): face-down cards counted, discards named."""

from __future__ import annotations

from table.cards import Card, format_cards
from table.controller.referee import Action, Input
from table.errors import CardConflictError, IllegalMoveError
from table.frog.deal import WIDOW, WIDOW_SIZE
from table.frog.referee.base import (
    DISCARD_COUNT,
    FrogTable,
    Stage,
)
from table.frog.rules import Contract
from table.frog.state import Phase


class WidowAndDiscards(FrogTable):
    def _back(self, kind: str, zone: str | None, out: list[Action]) -> None:
        """A face-down card: a hand dealt, the widow taken up, discards laid down."""
        if self.resyncing:
            return
        if zone == WIDOW:
            self.widow_backs = max(0, self.widow_backs + (1 if kind == "appeared" else -1))
        if self.stage is Stage.DEAL and kind == "appeared" and zone is not None:
            self.backs[zone] += 1
            return
        if zone != WIDOW:
            return
        if self.stage is Stage.TAKE and kind == "removed":
            self.widow_taken += 1
            if self.widow_taken >= WIDOW_SIZE:
                self.stage = Stage.DISCARD
            return
        if self.stage in (Stage.TAKE, Stage.DISCARD) and kind == "appeared":
            self.stage = Stage.DISCARD
            self.discard_backs += 1
            self._try_discard(out)
        elif self.stage is Stage.DISCARD and kind == "removed":
            self.discard_backs = max(0, self.discard_backs - 1)
            self._try_discard(out)
        elif self.stage in (Stage.PLAY, Stage.GATHER) and kind in ("appeared", "removed"):
            self._late_discard(kind, out)

    def _widow_face(self, card: Card, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        self.widow_faces.append(card)
        if len(self.widow_faces) < WIDOW_SIZE:
            return
        shown = tuple(self.widow_faces)
        if deal.known:
            if set(shown) != set(deal.widow or ()):
                out.append(
                    self._say(
                        f"the widow shows {format_cards(shown)} but the machine dealt "
                        f"{format_cards(deal.widow or ())}; check the table"
                    )
                )
            deal.widow_shown = True
            out.append(self._say(f"the widow: {format_cards(shown)}"))
        else:
            try:
                deal.show_widow(shown)
            except (IllegalMoveError, CardConflictError) as exc:
                out.append(self._say(f"the widow cannot be {format_cards(shown)}: {exc}"))
                self.widow_faces = []
                return
            out.append(
                {
                    "do": "move",
                    "deal": self.deal_no,
                    "move": deal.history[-1].as_json(),
                    "text": f"the widow: {format_cards(shown)}",
                }
            )
            self.messages.append(f"the widow: {format_cards(shown)}")
        self.stage = Stage.TAKE
        self.widow_taken = 0

    def _discard_input(self, inp: Input, out: list[Action]) -> None:
        deal = self.deal
        if (
            deal is None
            or deal.phase is not Phase.DISCARD
            or self.stage not in (Stage.WIDOW, Stage.TAKE, Stage.DISCARD)
        ):
            out.append(self._say("no discard is expected now"))
            return
        raw = inp.data.get("cards")
        if raw is None and inp.text.strip():
            raw = inp.text.split()
        cards: tuple[Card, ...] | None = None
        if raw:
            try:
                cards = tuple(Card.parse(str(c)) for c in raw)
            except ValueError as exc:
                out.append(self._say(f"the discards must be cards: {exc}"))
                return
        seat = deal.bidder if inp.seat is None else inp.seat
        assert seat is not None
        try:
            deal.verify_discard(seat, cards)
        except (IllegalMoveError, CardConflictError) as exc:
            out.append(self._say(str(exc)))
            return
        self.discard_named = cards
        self.discard_declared = True
        if self.stage is Stage.WIDOW:
            self.stage = Stage.TAKE
        self._try_discard(out)

    def _try_discard(self, out: list[Action], *, force: bool = False, playing: bool = False) -> bool:
        """Complete the discard once three cards lie face down (and, with known hands, are named).

        ``playing``: the first card of the play has appeared; a camera that saw no discards at all
        lets play begin, but one, two (or more than three) face-down cards are flagged."""
        deal = self.deal
        assert deal is not None and deal.bidder is not None
        if deal.phase is not Phase.DISCARD:
            return True
        bidder = deal.bidder
        frog = self.rules.name_of(Contract.FROG)
        n = self.discard_backs
        if not force:
            if n > WIDOW_SIZE or (playing and 0 < n < WIDOW_SIZE):
                if not self._open(self.discard_flag):
                    fix = f"take {n - WIDOW_SIZE} back" if n > WIDOW_SIZE else f"add {WIDOW_SIZE - n}"
                    self.discard_flag = self._flag(
                        out,
                        bidder,
                        DISCARD_COUNT,
                        [],
                        f"seat {bidder} laid {n} card{'s' if n != 1 else ''} face down; a {frog} bidder discards "
                        f"exactly {WIDOW_SIZE}: {fix}",
                    )
                return False
            if n < WIDOW_SIZE and not (playing and n == 0):
                return False
        if deal.known and self.discard_named is None:
            if playing:
                out.append(self._say(f"seat {bidder}: name the {WIDOW_SIZE} discards at the terminal before play"))
            return False
        self._clear(out, self.discard_flag)
        self.discard_flag = None
        deal.discard(bidder, self.discard_named)
        out.append(
            {
                "do": "move",
                "deal": self.deal_no,
                "move": deal.history[-1].as_json(),
                "text": f"seat {bidder} discards {WIDOW_SIZE} cards",
            }
        )
        self.messages.append(f"seat {bidder} has discarded")
        self._start_play(out)
        return True

    def _late_discard(self, kind: str, out: list[Action]) -> None:
        """A face-down card laid on (or taken off) the discards once play has begun."""
        deal = self.deal
        if deal is None or deal.contract is not Contract.FROG or deal.bidder is None:
            return
        # Signed: a camera that loses a face-down discard for a moment reports it removed, then
        # appeared again when it re-finds it; that is the same card, not a fourth one.
        self.extra_discards += 1 if kind == "appeared" else -1
        if self.extra_discards > 0 and not self._open(self.discard_flag):
            self.discard_flag = self._flag(
                out,
                deal.bidder,
                DISCARD_COUNT,
                [],
                f"seat {deal.bidder} laid {WIDOW_SIZE + self.extra_discards} cards face down; a "
                f"{self.rules.name_of(Contract.FROG)} bidder discards exactly {WIDOW_SIZE}: take "
                f"{self.extra_discards} back",
            )
        elif self.extra_discards <= 0:
            self._clear(out, self.discard_flag)
