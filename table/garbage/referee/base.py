"""The Garbage referee's state: the engine's match, the face-up cards the table holds, the decision being
chosen.

Each part is judged by its own module (``requests``, ``decisions``, ``cards``);
:class:`table.garbage.referee.referee.GarbageReferee` puts them together. A part that hands the match on to
another calls the method declared here, which the other part's module implements.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.cards import Card
from table.controller.questions import Choice
from table.controller.referee import OUT_OF_TURN, Action
from table.controller.referee_base import RefereeBookkeeping
from table.garbage import AwaitCard, GarbageGame, GarbageRules, Move

GAME = "garbage"
TURNUP = "turnup"
MISPLACED = "misplaced"
EXTRA_CARD = "extra-card"
HAND_DISTURBED = "hand-disturbed"
GARBAGE_VIOLATIONS = (MISPLACED, OUT_OF_TURN, EXTRA_CARD, HAND_DISTURBED)


def target_of(request: AwaitCard) -> str:
    """Where the awaited card goes: the seat's hand for poker cards, else the turn-up row."""
    return f"seat:{request.seat}" if request.purpose in ("deal", "buy") else TURNUP


@dataclass(slots=True)
class Placed:
    """A face-up card the referee knows lies on the table."""

    card: Card
    zone: str
    role: str  # hand | turnup | extra | misplaced
    flag: int | None = None


class GarbageTable(RefereeBookkeeping):
    """The state every part of the Garbage referee reads and changes."""

    game = GAME

    def __init__(
        self,
        rules: GarbageRules,
        *,
        players: int,
        dealer: int = 0,
        card_reader: bool = False,
        dealer_machine: bool = True,
    ) -> None:
        self._init_bookkeeping()
        self.rules = rules
        self.players = players
        self.engine = GarbageGame(players, rules=rules, first_dealer=dealer)
        self.card_reader = card_reader
        self.dealer_machine = dealer_machine
        self.card_cmd: int | None = None  # the command dealing the awaited card
        self.hint: Card | None = None  # the awaited card as the machine's reader named it
        self.hopper_left = 0
        self.placed: dict[int, Placed] = {}  # by track id
        self._untracked = -1  # ids for sightings without a track
        self.missing: dict[int, tuple[int, Card]] = {}  # flag id -> (seat, card) taken out of a live hand
        self.choice: Choice | None = None  # a decision being chosen
        self.ledger_seen = 0
        self.hand_no = 0
        self.phase = ""
        self.waiting_load = False  # a new hand (or a reshuffled stock) waits for the machine to be loaded
        self.reshuffles_seen = 0
        self.resyncing = False
        self.resync_seen: set[int] = set()

    # -- the hand-overs between parts (each implemented by its part's module) ----------------------

    def _next_request(self, out: list[Action]) -> None:
        """After the engine moved on: coins, results and the next card or decision (``requests``)."""
        raise NotImplementedError

    def _ask(self, out: list[Action]) -> None:
        """Ask for the card or the decision the engine awaits (``requests``)."""
        raise NotImplementedError

    def _choice_prompt(self) -> Action:
        """The prompt showing the decision being chosen (``decisions``)."""
        raise NotImplementedError

    def _play(self, move: Move, out: list[Action], who: str, why: str) -> bool:
        """Play a decision on the engine; False when it is refused (``decisions``)."""
        raise NotImplementedError
