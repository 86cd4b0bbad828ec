"""The Frog referee's state: what the table has seen of the deal, and where it stands (:class:`Stage`).

Each phase of a deal is judged by its own module (``dealing``, ``bidding``, ``widow``, ``tricks``,
``settling``); :class:`table.frog.referee.referee.FrogReferee` puts them together. A phase that hands
the deal on to the next calls the method declared here, which the next phase's module implements.
"""

from __future__ import annotations

import enum
from collections import Counter
from typing import Any

from table.cards import Card, Suit
from table.controller.questions import Choice
from table.controller.referee import DEAL_COUNT, OUT_OF_TURN, Action
from table.controller.referee_base import RefereeBookkeeping
from table.errors import ConfigError
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK
from table.frog.rules import Contract, RuleSet
from table.frog.state import FrogDeal

GAME = "frog"
TRICK = "trick"
REVOKE = "revoke"
DISCARD_COUNT = "discard-count"
TRICK_DISTURBED = "trick-disturbed"
FROG_VIOLATIONS = (OUT_OF_TURN, REVOKE, DISCARD_COUNT, TRICK_DISTURBED, DEAL_COUNT)
TABLE_OPTIONS = ("deals",)  # options of the table session, not of the rule set
FACES = frozenset(str(c) for c in FROG_PACK)
SUIT_BY_CHAR = {s.char: s for s in Suit} | {s.name.lower(): s for s in Suit}


class Stage(enum.Enum):
    """Where the table stands in a deal: finer than the engine's :class:`~table.frog.state.Phase`, as the
    table also waits for the widow to be shown and taken, for a trick to be gathered and for the next
    deal to be called for."""

    DEAL = "deal"  # the cards are being dealt (by the machine, or by hand until a press confirms)
    AUCTION = "auction"  # bids, then a Chico's trump
    WIDOW = "widow"  # the widow is to be turned face up and read
    TAKE = "take"  # the bidder takes the widow up
    DISCARD = "discard"  # the bidder lays the discards face down
    PLAY = "play"
    GATHER = "gather"  # a trick is complete; its winner gathers it
    NEXT = "next"  # the deal is settled; a press deals the next one
    OVER = "over"


class FrogTable(RefereeBookkeeping):
    """The state every phase of the Frog referee reads and changes."""

    game = GAME

    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int,
        dealer: int = 0,
        deals: int | None = None,
        card_reader: bool = False,
        dealer_machine: bool = True,
    ) -> None:
        self._init_bookkeeping()
        self.rules = rules
        self.players = players
        self.match = FrogMatch(rules, players, first_dealer=dealer)
        if deals is not None and (not isinstance(deals, int) or isinstance(deals, bool) or deals < 1):
            raise ConfigError("deals", f"expected a whole number of deals, 1 or more, not {deals!r}")
        self.deals_to_play = deals if deals is not None else players
        self.card_reader = card_reader
        self.dealer_machine = dealer_machine
        self.stage = Stage.DEAL
        self.deal: FrogDeal | None = None
        self.deal_no = 1
        self.points = [0] * players
        self.deal_results: list[dict[str, Any]] = []
        self.hopper_left = 0
        self.choice: Choice | None = None  # a bid or trump being chosen
        self.resyncing = False
        self.resync_seen: set[Card] = set()
        # face-down cards in the widow zone, as the referee saw them come and go; after a restart the
        # re-read's count tells what happened while the controller was down
        self.widow_backs = 0
        self.resync_backs = 0
        self._reset_deal()

    def _reset_deal(self) -> None:
        self.deal = None
        self.dealt: dict[int, list[Card]] = {}
        self.widow_dealt: list[Card] = []
        self.unread: list[int | None] = []  # where cards went whose reading was lost
        self.deal_done = 0
        self.backs: Counter[str] = Counter()  # hand deal: face-down cards seen arriving per zone
        self.on_mat: dict[Card, str] = {}  # face-up cards the referee knows lie in the trick or widow zone
        self.tracks: dict[int, Card] = {}
        self.extras: dict[Card, int] = {}  # cards in the trick area outside the game -> their flag
        self.missing: dict[Card, int] = {}  # played cards taken off an unfinished trick -> their flag
        self.trick_now: list[Card] = []  # the unfinished trick's cards
        self.to_gather: list[Card] = []  # finished tricks' cards still on the table
        self.gather_winner: int | None = None
        self.revokes_flagged = 0
        self.revoke_flags: list[int] = []
        self.widow_faces: list[Card] = []
        self.widow_taken = 0
        self.discard_backs = 0
        self.discard_named: tuple[Card, ...] | None = None
        self.discard_declared = False
        self.discard_flag: int | None = None
        self.extra_discards = 0

    def _name(self, contract: Contract | None) -> str:
        return "pass" if contract is None else self.rules.name_of(contract)

    # -- the hand-overs between phases (each implemented by its phase's module) -------------------

    def _begin_deal(self, out: list[Action]) -> None:
        """A new deal: shuffle and deal (``dealing``)."""
        raise NotImplementedError

    def _ask_choice(self, out: list[Action]) -> None:
        """Ask the seat to speak for its bid or trump (``bidding``)."""
        raise NotImplementedError

    def _start_play(self, out: list[Action]) -> None:
        """The contract is settled: the play begins (``bidding``)."""
        raise NotImplementedError

    def _try_discard(self, out: list[Action], *, force: bool = False, playing: bool = False) -> bool:
        """Complete the discard when it can be (``widow``)."""
        raise NotImplementedError

    def _settle(self, out: list[Action]) -> None:
        """The deal is over: pay and settle (``settling``)."""
        raise NotImplementedError
