"""The tricks: plays checked for turn and revokes, tricks won, gathered, or disturbed."""

from __future__ import annotations

from table.cards import Card
from table.controller.referee import OUT_OF_TURN, Action, Input
from table.controller.referee_base import seat_of_zone
from table.errors import CardConflictError, IllegalMoveError
from table.frog.deal import WIDOW, WIDOW_SIZE
from table.frog.referee.base import (
    REVOKE,
    TRICK_DISTURBED,
    FrogTable,
    Stage,
)
from table.frog.state import Phase, Trick


class Tricks(FrogTable):
    def _played(self, card: Card, hint_seat: int | None, inp: Input, out: list[Action]) -> None:
        deal = self.deal
        if card in self.missing:  # a card taken off the trick, put back
            self._clear(out, self.missing.pop(card))
            self.trick_now_restore(card)
            return
        if deal is None or self.stage in (Stage.DEAL, Stage.NEXT, Stage.AUCTION):
            seat = hint_seat if hint_seat is not None else (deal.to_act if deal is not None else self.match.dealer)
            self.extras[card] = self._flag(
                out,
                seat if seat is not None else 0,
                OUT_OF_TURN,
                [card],
                f"{card} was played before the play began; take it back",
            )
            return
        if self.stage in (Stage.WIDOW, Stage.TAKE, Stage.DISCARD):
            if not self._try_discard(out, playing=True):
                self.on_mat.pop(card, None)
                self.held.append(inp)
                return
        seat = deal.to_act
        assert seat is not None
        owner = self._owner(card)
        if owner is None:
            owner = hint_seat
        if owner is not None and owner != seat:
            self.extras[card] = self._flag(
                out,
                owner,
                OUT_OF_TURN,
                [card],
                f"seat {owner} played {card} out of turn: it is seat {seat}'s turn; take it back",
            )
            return
        try:
            deal.verify_play(seat, card)
        except IllegalMoveError as exc:
            self.extras[card] = self._flag(
                out,
                seat,
                REVOKE,
                [card],
                f"{exc.reason} (trick {len(deal.tricks) + 1}); take it back and play a legal card",
            )
            return
        except CardConflictError as exc:
            self.on_mat.pop(card, None)
            out.append(self._say(f"cannot be: {card} {exc.reason}; check the table"))
            return
        if self.stage is Stage.GATHER:
            self.stage = Stage.PLAY  # the next lead came before the last trick was gathered
        trick = deal.play(seat, card)
        self.trick_now.append(card)
        out.append(
            {
                "do": "move",
                "deal": self.deal_no,
                "move": deal.history[-1].as_json(),
                "text": f"seat {seat} plays {card}",
            }
        )
        self.messages.append(f"seat {seat} plays {card}")
        self._new_revokes(out)
        if trick is not None:
            self._trick_done(trick, out)

    def trick_now_restore(self, card: Card) -> None:
        if card not in self.trick_now and card not in self.to_gather:
            self.trick_now.append(card)

    def _owner(self, card: Card) -> int | None:
        deal = self.deal
        if deal is None or not deal.known:
            return None
        for seat in deal.active:
            if card in (deal.hand(seat) or ()):
                return seat
        return None

    def _new_revokes(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        for revoke in deal.revokes[self.revokes_flagged :]:
            penalty = (
                "the revoking side loses the deal"
                if self.rules.revoke_penalty.value == "lose-game"
                else "reported only"
            )
            fid = self._flag(out, revoke.seat, REVOKE, [revoke.card, revoke.proof], f"{revoke.describe()}; {penalty}")
            self.revoke_flags.append(fid)
        self.revokes_flagged = len(deal.revokes)

    def _trick_done(self, trick: Trick, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        self.to_gather.extend(c for c in self.trick_now if c not in self.to_gather)
        self.trick_now = []
        self.gather_winner = trick.winner
        win_card = next(c for s, c in trick.plays if s == trick.winner)
        out.append(
            {
                "do": "trick",
                "deal": self.deal_no,
                "number": trick.number,
                "winner": trick.winner,
                "points": trick.points,
                "cards": [str(c) for c in trick.cards],
            }
        )
        out.append(
            self._say(
                f"trick {trick.number}: seat {trick.winner} wins with {win_card} "
                f"({trick.points} point{'s' if trick.points != 1 else ''}); seat {trick.winner} gathers"
            )
        )
        if deal.phase is Phase.OVER:
            for fid in self.revoke_flags:
                self._clear(out, fid, "penalty")
            self._settle(out)
            return
        self.stage = Stage.GATHER

    def _removed(self, card: Card, zone: str | None, inp: Input, out: list[Action]) -> None:
        if card in self.extras:
            self._clear(out, self.extras.pop(card))
            return
        if zone == WIDOW:
            if self.stage is Stage.TAKE:
                self.widow_taken += 1
                if self.widow_taken >= WIDOW_SIZE:
                    self.stage = Stage.DISCARD
            return
        if card in self.to_gather:
            self.to_gather.remove(card)
            taker = seat_of_zone(inp.to)
            if taker is not None and self.gather_winner is not None and taker != self.gather_winner:
                out.append(
                    self._say(
                        f"seat {taker} gathered {card}, but the trick is seat "
                        f"{self.gather_winner}'s: put it on seat {self.gather_winner}'s pile"
                    )
                )
            if not self.to_gather and self.stage is Stage.GATHER:
                self.stage = Stage.PLAY
                self.gather_winner = None
                for fid in self.revoke_flags:
                    self._clear(out, fid, "penalty")
                self.revoke_flags = []
            return
        if card in self.trick_now:
            deal = self.deal
            assert deal is not None
            seat = next((s for s, c in deal.current_trick if c is card), deal.to_act or 0)
            self.trick_now.remove(card)
            self.missing[card] = self._flag(
                out,
                seat,
                TRICK_DISTURBED,
                [card],
                f"{card} was taken off the trick before it was complete; a played card stays played: put it back",
            )
