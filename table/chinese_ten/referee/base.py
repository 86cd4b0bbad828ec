"""The Chinese Ten referee's state: what the table has seen of the deal, and where it stands (:class:`TablePhase`).

Each part of a deal is judged by its own module (``dealing``, ``layout``, ``captures``);
:class:`table.chinese_ten.referee.referee.ChineseTenReferee` puts them together. A part that hands the
deal on to another calls the method declared here, which the other part's module implements.
"""

from __future__ import annotations

import enum
from typing import Any

from table.cards import Card
from table.chinese_ten import ChineseTenState
from table.chinese_ten.rules import RuleSet
from table.controller import recognition
from table.controller.referee import Action, Input
from table.controller.referee_base import RefereeBookkeeping

GAME = "chinese-ten"
LAYOUT = "layout"
STOCK = "stock"


class TablePhase(enum.Enum):
    """Where the table stands in a deal: finer than the engine's :class:`~table.chinese_ten.Phase`, as
    the table also waits for the deal to be laid, and for the cards a play or a flip captures to be
    taken up."""

    DEAL = "deal"  # the layout is being dealt (by the machine, or by hand until a press confirms)
    PLAY = "play"  # the seat to act plays a card from hand
    CAPTURE = "capture"  # a card played: the cards it takes are being taken up
    FLIP = "flip"  # the stock's top card is to be turned
    FLIP_CAPTURE = "flip-capture"  # a flipped card: the cards it takes are being taken up
    OVER = "over"
    REDEAL = "redeal"  # the deal cannot stand (four of a rank on the layout, say): dealt again


class ChineseTenTable(RefereeBookkeeping):
    """The state every part of the Chinese Ten referee reads and changes."""

    game = GAME

    def __init__(
        self, rules: RuleSet, *, players: int, dealer: int = 0, card_reader: bool = False, dealer_machine: bool = True
    ) -> None:
        rules.check_players(players)
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.card_reader = card_reader
        self.dealer_machine = dealer_machine
        self._init_bookkeeping(messages=8)  # flags, dealer commands in flight, prompt, messages
        self.phase = TablePhase.DEAL
        self.state: ChineseTenState | None = None
        self.physical: set[Card] = set()
        self.tracks: dict[int, Card] = {}
        self.dealt_hands: list[list[Card]] = [[] for _ in range(players)]
        self.deal_done = 0
        self.hopper_left = 52  # cards the dealer machine should still hold
        self.seat_backs = [0] * players  # hand deal: face-down cards seen in each seat's zone
        self.owner: dict[Card, int] = {}  # cards the reader named as dealt to a seat
        self.layout_named: list[Card] = []  # cards the reader named as dealt to the layout
        self.layout_unnamed = 0  # layout deals answered without the card (the answer lost in a restart)
        # the card being played or flipped, awaiting its capture
        self.pending: Card | None = None
        self.pending_kind = ""
        self.taken: list[Card] = []
        self.take_flag: int | None = None
        self.skip_flag: int | None = None
        self.extras: dict[Card, int] = {}  # cards on the layout outside the game -> their flag
        self.missing: dict[Card, int] = {}  # game cards taken off the layout outside a capture -> flag
        self.flip_hint: Card | None = None
        self.flip_cmd: int | None = None
        self.take_deferred = False
        self.flip_ready = False  # the dealer has reported dealing the flip (or it is a hand flip)
        self.reflip: Card | None = None
        self.resyncing = False
        self.resync_seen: set[Card] = set()
        self.resync_doubts: list[Input] = []  # sightings the re-read could not name for sure: asked after

    def _seat_holding(self, card: Card) -> int | None:
        st = self.state
        if st is not None and st.hands_known:
            for seat in range(self.players):
                hand = st.hand(seat)
                if hand is not None and card in hand:
                    return seat
            return None
        # Hands partly known (a deal answered only by the card count after a restart): the cards
        # the reader did name still tell whose hand they came from.
        return self.owner.get(card)

    def _captured_all(self) -> set[Card]:
        st = self.state
        if st is None:
            return set()
        out: set[Card] = set()
        for seat in range(self.players):
            out.update(st.captured(seat))
        return out

    def _possible(self) -> set[str]:
        """Cards that could newly appear on the layout now."""
        st = self.state
        gone = self.physical | self._captured_all()
        if self.phase is TablePhase.DEAL:
            named = {c for c in self.layout_named if c not in self.physical}
            if named and not self._layout_unnamed_slots():
                # the card reader said which cards it dealt face up to the layout
                return {str(c) for c in named}
            # A layout card the reader has not named (yet, or ever: its answer was lost in a
            # restart): any unseen card, but not one the reader put in a hand or named elsewhere.
            exclude = gone | set(self.owner) | set(self.layout_named)
            return {str(c) for c in named} | {f for f in recognition.FACES if Card.parse(f) not in exclude}
        if st is not None and st.hands_known and self.phase in (TablePhase.PLAY, TablePhase.CAPTURE):
            cards = {c for seat in range(self.players) for c in (st.hand(seat) or ())}
            cards |= set(self.taken) | set(self.missing) | {c for c in st.layout if c not in self.physical}
            return {str(c) for c in cards if c not in gone}
        return {f for f in recognition.FACES if Card.parse(f) not in gone}

    def _layout_unnamed_slots(self) -> int:
        """Layout deals whose card the reader has not named: still in flight, or answered without it."""
        in_flight = sum(1 for c in self.commands.values() if c.get("purpose") == "layout")
        return in_flight + self.layout_unnamed

    # -- the hand-overs between parts (each implemented by its part's module) ----------------------

    def _deal_layout_card(self, card: Card, out: list[Action]) -> None:
        """A card seen arriving on the layout during the deal (``dealing``)."""
        raise NotImplementedError

    def _play(self, seat: int, card: Card, out: list[Action]) -> None:
        """``seat`` played ``card`` onto the layout (``captures``)."""
        raise NotImplementedError

    def _flip(self, card: Card, out: list[Action]) -> None:
        """The stock's top card, ``card``, was turned onto the layout (``captures``)."""
        raise NotImplementedError

    def _judge_take(self, out: list[Action], *, final: bool = False) -> None:
        """Judge the cards taken up so far for the pending play or flip (``captures``)."""
        raise NotImplementedError


def result_json(st: ChineseTenState) -> dict[str, Any]:
    outcome = st.outcome
    assert outcome is not None
    out: dict[str, Any] = {
        "game": GAME,
        "rules": st.rules.name,
        "players": st.players,
        "dealer": st.dealer,
        "over": True,
        "seats": [s.to_json() for s in outcome.seats],
    }
    if outcome.leftover:
        out["leftover"] = [str(c) for c in outcome.leftover]
    return out
