"""The auction and a Chico's trump: the seat to speak chooses at its button or the terminal."""

from __future__ import annotations

from table.controller.questions import Choice
from table.controller.referee import Action, Input
from table.errors import IllegalMoveError
from table.frog.deal import WIDOW_SIZE
from table.frog.referee.base import (
    SUIT_BY_CHAR,
    FrogTable,
    Stage,
)
from table.frog.rules import CONTRACT_WORDS
from table.frog.state import CHICO_TRUMPS, Phase


class Bidding(FrogTable):
    def _ask_choice(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        seat = deal.to_act
        assert seat is not None
        if deal.phase is Phase.AUCTION:
            options = ["pass" if c is None else c.word for c in deal.legal_bids(seat)]
            self.choice = Choice(seat, "bid", tuple(options))
        else:
            self.choice = Choice(seat, "trump", tuple(s.char for s in CHICO_TRUMPS))
        out.append(self._choice_prompt())

    def _choice_label(self, kind: str, option: str) -> str:
        if kind == "bid":
            return "pass" if option == "pass" else self.rules.name_of(CONTRACT_WORDS[option])
        return SUIT_BY_CHAR[option].name.lower()

    def _choice_text(self) -> str | None:
        c = self.choice
        if c is None:
            return None
        shown = self._choice_label(c.kind, c.shown)
        return f"seat {c.seat} {'bids' if c.kind == 'bid' else 'names trumps'}: {shown}?"

    def _choice_prompt(self) -> Action:
        c = self.choice
        assert c is not None
        labels = ", ".join(self._choice_label(c.kind, o) for o in c.options)
        text = f"{self._choice_text()} (press to change among {labels}; hold or confirm to accept)"
        return {"do": "prompt", "seat": c.seat, "choice": c.kind, "shown": c.shown, "text": text}

    def _accept_choice(self, out: list[Action], who: str, why: str) -> None:
        c = self.choice
        deal = self.deal
        assert c is not None and deal is not None
        seat, option = c.seat, c.shown
        try:
            if c.kind == "bid":
                contract = None if option == "pass" else CONTRACT_WORDS[option]
                deal.bid(seat, contract)
            else:
                deal.name_trump(seat, SUIT_BY_CHAR[option])
        except IllegalMoveError as exc:
            out.append(self._say(str(exc)))
            return
        self.choice = None
        move = deal.history[-1]
        text = (
            f"seat {seat} {'passes' if option == 'pass' else 'bids ' + self._choice_label('bid', option)}"
            if c.kind == "bid"
            else f"seat {seat} names {self._choice_label('trump', option)} trumps"
        )
        out.append({"do": "move", "deal": self.deal_no, "move": move.as_json(), "text": text, "by": who, "why": why})
        self.messages.append(text)
        self._after_decision(out)

    def _after_decision(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        if deal.phase in (Phase.AUCTION, Phase.TRUMP):
            self._ask_choice(out)
            return
        if deal.phase is Phase.PASSED:
            out.append(self._say(f"deal {self.deal_no}: everybody passed; no game"))
            self._settle(out)
            return
        assert deal.contract is not None
        name = self.rules.name_of(deal.contract)
        if deal.phase is Phase.DISCARD:
            if self.rules.expose_widow:
                self.stage = Stage.WIDOW
                out.append(
                    self._say(
                        f"seat {deal.bidder} plays {name}: turn the widow face up, then take it "
                        f"and lay {WIDOW_SIZE} cards face down in the widow's place"
                    )
                )
            else:
                self.stage = Stage.TAKE
                out.append(
                    self._say(
                        f"seat {deal.bidder} plays {name}: take the widow unseen and lay "
                        f"{WIDOW_SIZE} cards face down in its place"
                    )
                )
            if deal.known:
                out.append(self._say(f"seat {deal.bidder}: name the {WIDOW_SIZE} discards at the terminal"))
            return
        self._start_play(out)

    def _start_play(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None and deal.contract is not None and deal.trump is not None
        self.stage = Stage.PLAY
        out.append(
            self._say(
                f"{self.rules.name_of(deal.contract)} by seat {deal.bidder}, "
                f"{deal.trump.name.lower()} trumps; seat {deal.to_act} leads"
            )
        )
        self._release_held(out)

    def _choose(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        c = self.choice
        assert c is not None
        if inp.seat is not None and inp.seat != c.seat:
            out.append(
                self._say(
                    f"seat {inp.seat}: it is seat {c.seat}'s turn to {'bid' if c.kind == 'bid' else 'name trumps'}"
                )
            )
            return
        if kind in ("bid", "trump"):
            word = inp.text.strip().lower()
            if kind != c.kind:
                out.append(
                    self._say(f"seat {c.seat} is to {'bid' if c.kind == 'bid' else 'name trumps'}, not to {kind}")
                )
                return
            option = word
            if kind == "bid":
                contract = CONTRACT_WORDS.get(word)
                option = "pass" if word == "pass" else (contract.word if contract else word)
            else:
                suit = SUIT_BY_CHAR.get(word.upper() if len(word) == 1 else word)
                option = suit.char if suit else word
            if option not in c.options:
                labels = ", ".join(self._choice_label(c.kind, o) for o in c.options)
                out.append(self._say(f"seat {c.seat} cannot {kind} {inp.text!r} now; the choices are {labels}"))
                return
            self.choice = c.showing(option)
            out.append(self._choice_prompt())
            return
        if kind == "short":
            self.choice = c.stepped()
            out.append(self._choice_prompt())
            return
        if kind in ("long", "confirm"):
            self._accept_choice(out, who, why)
            return
        # reject: back to the first choice
        self.choice = c.reset()
        out.append(self._choice_prompt())
