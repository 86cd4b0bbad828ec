"""The state of one Chinese Ten deal, driven by verify / can / act.

Create it from a known deal, or with what a referee at a real table knows::

    state = ChineseTenState(rules, players=3, dealer=0, layout=layout)   # hands and stock unseen
    state = ChineseTenState.from_deal(rules, deal, dealer=0)             # everything known
    state = ChineseTenState.from_deck(rules, deck, players=3, dealer=0)  # deck top first

Then, while ``state.phase`` is ``Phase.PLAY`` the seat ``state.to_act`` plays a card from hand,
and while it is ``Phase.FLIP`` the same seat flips the top stock card:

* ``verify_play(seat, card, take=None)`` raises :class:`IllegalMoveError` with a sentence naming
  the seat, the cards and the rule (or :class:`CardConflictError` when the card cannot be there);
  it returns the cards the play would capture. ``can_play`` answers ``bool``; ``play`` applies.
* ``verify_flip(card=None, take=None)`` / ``can_flip`` / ``flip``: ``card`` is the card the camera saw
  (required when the stock order is unknown; with a known stock it must be the top card).
* ``take``: ``None`` means "the only possible capture" (an error when several cards could be taken),
  a :class:`Card` (or text) chooses the target, a list gives a special capture's three cards, and an
  empty list lays the card without capturing (allowed only when capture is not compulsory).
* ``takes(card)`` lists every legal take of ``card`` now; ``capture_options(card)`` the layout cards
  it could capture. ``legal_moves`` is a lazy view of :class:`Move` values.
* ``undo()`` pops the last move; ``history`` replays the game; ``outcome`` is set once the deal is over;
  ``prompt`` says in words what the table waits for; ``copy()`` gives an independent state.

Hands may be ``None`` (hidden: a played card is accepted when it has not been seen anywhere yet)
and the stock may be ``None`` (each flipped card comes from outside). A failed call never changes
the state.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from table.cards import ALL_CARDS, Card, Rank, format_cards
from table.chinese_ten.moves import LegalMoves, Move
from table.chinese_ten.rules import TRIPLE_RANKS, RuleSet
from table.chinese_ten.scoring import card_points, margin_json, settle
from table.errors import CardConflictError, CardParseError, ConfigError, IllegalMoveError

PACK_SIZE = 52
LAYOUT_SIZE = 4
DEALT_TO_PLAYERS = 24  # 24/n cards to each of n players
STOCK_SIZE = PACK_SIZE - DEALT_TO_PLAYERS - LAYOUT_SIZE


class Phase(enum.Enum):
    PLAY = "play"  # ``to_act`` plays a card from hand
    FLIP = "flip"  # ``to_act`` flips the top stock card
    OVER = "over"  # hands and stock empty; ``outcome`` is set
    REDEAL = "redeal"  # the first layout held three or four of a kind under the redeal rule


# The rank a card captures: numerals pair up to ten, 10 and pictures take their own rank.
_PARTNER_OF_RANK: dict[Rank, Rank] = {r: (Rank(10 - r) if r <= 9 else r) for r in Rank}
# Hot-path table indexed by Card.index.
_PARTNER: tuple[Rank, ...] = tuple(_PARTNER_OF_RANK[c.rank] for c in ALL_CARDS)


def partner_rank(rank: Rank) -> Rank:
    """The rank a card of ``rank`` captures: numerals pair up to ten, 10 and pictures match."""
    return _PARTNER_OF_RANK[rank]


_RANK_NAMES = {Rank.ACE: "ace", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king", Rank.TEN: "ten"}


def rank_name(rank: Rank, plural: bool = False) -> str:
    """``jack``, ``7``; plural ``jacks``, ``7s``."""
    return _RANK_NAMES.get(rank, str(int(rank))) + ("s" if plural else "")


def _a(rank: Rank) -> str:
    """``a 7``, ``an 8``, ``an ace``."""
    name = rank_name(rank)
    return ("an " if name[0] in "a8" else "a ") + name


TakeArg = Card | str | Sequence[Card | str] | None


@dataclass(frozen=True, slots=True)
class Deal:
    """A deal as the table saw it: ``hands[i]`` is seat i's hand, ``stock`` top first.

    ``hands`` and ``stock`` may be ``None`` when they are not known (hidden hands, an unseen stock).
    """

    layout: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...] | None = None
    stock: tuple[Card, ...] | None = None

    @classmethod
    def from_deck(cls, deck: Sequence[Card], *, players: int, dealer: int = 0) -> Deal:
        """Deal a 52-card deck (top first): one card at a time clockwise, starting with the dealer's
        left-hand neighbour (seat ``dealer + 1``), until each holds 24/n; then four layout cards;
        the rest is the stock, top first."""
        if players not in (2, 3, 4):
            raise ConfigError("players", f"Chinese Ten is for 2, 3 or 4 players, not {players}")
        if len(deck) != PACK_SIZE:
            raise ConfigError("deck", f"a deck has {PACK_SIZE} cards, not {len(deck)}")
        hands: list[list[Card]] = [[] for _ in range(players)]
        for i in range(DEALT_TO_PLAYERS):
            hands[(dealer + 1 + i) % players].append(deck[i])
        return cls(
            layout=tuple(deck[DEALT_TO_PLAYERS : DEALT_TO_PLAYERS + LAYOUT_SIZE]),
            hands=tuple(tuple(h) for h in hands),
            stock=tuple(deck[DEALT_TO_PLAYERS + LAYOUT_SIZE :]),
        )


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    captured: tuple[Card, ...]
    points: int
    margin: int | Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "captured": [str(c) for c in self.captured],
            "points": self.points,
            "margin": margin_json(self.margin),
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished deal. ``leftover``: layout cards given to the last capturer at the
    end (only possible when capture is not compulsory)."""

    seats: tuple[SeatResult, ...]
    leftover: tuple[Card, ...] = ()

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(s.points for s in self.seats)

    @property
    def margins(self) -> tuple[int | Fraction, ...]:
        return tuple(s.margin for s in self.seats)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the most points (several on a tie)."""
        best = max(self.points)
        return tuple(s.seat for s in self.seats if s.points == best)

    def to_json(self) -> dict[str, Any]:
        return {"seats": [s.to_json() for s in self.seats]}


def _as_card(card: Card | str) -> Card:
    return card if card.__class__ is Card else Card.parse(card)  # type: ignore[arg-type]


class ChineseTenState:
    """One deal of Chinese Ten. See the module docstring for the protocol."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int,
        layout: Iterable[Card | str],
        dealer: int = 0,
        hands: Sequence[Iterable[Card | str]] | None = None,
        stock: Iterable[Card | str] | None = None,
    ) -> None:
        rules.check_players(players)
        if not 0 <= dealer < players:
            raise ConfigError("dealer", f"the dealer must be a seat 0 to {players - 1}, not {dealer}")
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.hand_size = DEALT_TO_PLAYERS // players
        self._points = card_points(rules, players)
        self._special = rules.special_capture
        self._compulsory = rules.capture_compulsory
        self._located = bytearray(PACK_SIZE)  # 1: the card's place is known (seen face up or in a known hand/stock)
        self._layout: list[Card] = []
        self._hands: list[list[Card]] | None = None
        self._stock: tuple[Card, ...] | None = None
        self._hand_counts = [self.hand_size] * players
        self._captured: list[list[Card]] = [[] for _ in range(players)]
        self._scores = [0] * players
        self._flips = 0
        self._history: list[Move] = []
        self._undo: list[tuple[tuple[tuple[int, Card], ...], int, int | None]] = []
        self._last_capturer: int | None = None
        self.opening_capture: tuple[Card, ...] = ()
        self._origin: dict[int, str] = {}
        self.initial_layout = tuple(self._place_known("layout", "the layout", layout, LAYOUT_SIZE))
        self._layout = list(self.initial_layout)
        if hands is not None:
            if len(hands) != players:
                raise ConfigError("hands", f"{players} players need {players} hands, not {len(hands)}")
            self._hands = [
                self._place_known("hands", f"seat {i}'s hand", h, self.hand_size) for i, h in enumerate(hands)
            ]
        if stock is not None:
            self._stock = tuple(self._place_known("stock", "the stock", stock, STOCK_SIZE))
        self.initial_hands = None if self._hands is None else tuple(tuple(h) for h in self._hands)
        self.initial_stock = self._stock
        self._to_act = dealer if rules.dealer_plays_first else (dealer + 1) % players
        self._phase = Phase.PLAY
        self.redeal_reason = ""
        self._opening()

    @classmethod
    def from_deal(cls, rules: RuleSet, deal: Deal, *, players: int | None = None, dealer: int = 0) -> ChineseTenState:
        if players is None:
            if deal.hands is None:
                raise ConfigError("players", "give the number of players when the hands are hidden")
            players = len(deal.hands)
        return cls(rules, players=players, dealer=dealer, layout=deal.layout, hands=deal.hands, stock=deal.stock)

    @classmethod
    def from_deck(cls, rules: RuleSet, deck: Sequence[Card], *, players: int, dealer: int = 0) -> ChineseTenState:
        rules.check_players(players)
        return cls.from_deal(rules, Deal.from_deck(deck, players=players, dealer=dealer), dealer=dealer)

    def _place_known(self, key: str, where: str, cards: Iterable[Card | str], size: int) -> list[Card]:
        out = [_as_card(c) for c in cards]
        if len(out) != size:
            raise ConfigError(key, f"{where} must hold {size} cards, not {len(out)}")
        for card in out:
            if self._located[card.index]:
                raise CardConflictError(card, f"{card} is dealt twice: in {self._origin[card.index]} and in {where}")
            self._located[card.index] = 1
            self._origin[card.index] = where
        return out

    def _opening(self) -> None:
        """Three or four of a kind in the first layout (seed 000's redeal, seeds 001/003's captures)."""
        counts: dict[Rank, list[Card]] = {}
        for card in self._layout:
            counts.setdefault(card.rank, []).append(card)
        for rank, same in counts.items():
            if len(same) < 3 or rank not in TRIPLE_RANKS:
                continue
            if not self._special:
                self._phase = Phase.REDEAL
                self.redeal_reason = (
                    f"the first layout holds {len(same)} {rank_name(rank, True)} "
                    f"({format_cards(same)}): under the redeal rule the same dealer "
                    "gathers the cards and deals again"
                )
                return
            if len(same) == 4:
                # Four of a kind go to the dealer at once (seeds 001/003).
                self.opening_capture = tuple(same)
                self._layout = []
                self._captured[self.dealer].extend(same)
                self._scores[self.dealer] += sum(self._points[c.index] for c in same)
                self._last_capturer = self.dealer

    # -- what the table can see ---------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def to_act(self) -> int:
        """The seat whose turn it is (to play, then to flip)."""
        return self._to_act

    @property
    def over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def redeal_needed(self) -> bool:
        return self._phase is Phase.REDEAL

    @property
    def layout(self) -> tuple[Card, ...]:
        return tuple(self._layout)

    def hand(self, seat: int) -> tuple[Card, ...] | None:
        """Seat's hand, or ``None`` when hands are hidden."""
        return None if self._hands is None else tuple(self._hands[seat])

    @property
    def hands_known(self) -> bool:
        return self._hands is not None

    @property
    def stock_known(self) -> bool:
        return self._stock is not None

    def hand_count(self, seat: int) -> int:
        return self._hand_counts[seat]

    @property
    def stock_left(self) -> int:
        return STOCK_SIZE - self._flips

    @property
    def stock_top(self) -> Card | None:
        """The next card to flip when the stock order is known."""
        if self._stock is None or self._flips >= STOCK_SIZE:
            return None
        return self._stock[self._flips]

    def captured(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._captured[seat])

    @property
    def scores(self) -> tuple[int, ...]:
        """Points captured so far, per seat."""
        return tuple(self._scores)

    def card_points(self, card: Card | str) -> int:
        return self._points[_as_card(card).index]

    @property
    def point_table(self) -> tuple[int, ...]:
        """Points of every card in this deal, indexed by ``Card.index``."""
        return self._points

    @property
    def history(self) -> tuple[Move, ...]:
        return tuple(self._history)

    @property
    def moves_made(self) -> int:
        return len(self._history)

    @property
    def prompt(self) -> str:
        """What the table waits for, in words: ``seat 1: play a card from hand``."""
        if self._phase is Phase.PLAY:
            return f"seat {self._to_act}: play a card from hand"
        if self._phase is Phase.FLIP:
            return f"seat {self._to_act}: flip the top stock card"
        if self._phase is Phase.REDEAL:
            return self.redeal_reason
        return "the deal is over"

    def copy(self) -> ChineseTenState:
        """An independent copy (to try moves without touching this state; ``undo`` is cheaper)."""
        new = object.__new__(ChineseTenState)
        new.__dict__.update(self.__dict__)
        new._layout = list(self._layout)
        new._hands = None if self._hands is None else [list(h) for h in self._hands]
        new._hand_counts = list(self._hand_counts)
        new._captured = [list(c) for c in self._captured]
        new._scores = list(self._scores)
        new._located = bytearray(self._located)
        new._history = list(self._history)
        new._undo = list(self._undo)
        return new

    def is_seen(self, card: Card | str) -> bool:
        """Whether the card's place is known (face up, captured, or in a known hand or stock)."""
        return bool(self._located[_as_card(card).index])

    # -- captures ------------------------------------------------------------------------------

    def capture_options(self, card: Card | str) -> list[Card]:
        """The layout cards ``card`` could capture now. A card takes one of them, except a special
        capture (the fourth of a rank after three in the first layout), which takes them all."""
        partner = _PARTNER[_as_card(card).index]
        return [c for c in self._layout if c.rank is partner]

    def is_special_capture(self, card: Card | str) -> bool:
        card = _as_card(card)
        return self._special and card.rank in TRIPLE_RANKS and len(self.capture_options(card)) >= 3

    def takes(self, card: Card | str) -> list[tuple[Card, ...]]:
        """Every legal ``take`` for ``card`` in the current phase; ``()`` means joining the layout."""
        if card.__class__ is not Card:
            card = Card.parse(card)  # type: ignore[arg-type]
        partner = _PARTNER[card.index]
        options = [c for c in self._layout if c.rank is partner]
        if not options:
            return [()]
        out: list[tuple[Card, ...]]
        if self._special and len(options) >= 3 and card.rank in TRIPLE_RANKS:
            out = [tuple(options)]
        else:
            out = [(c,) for c in options]
        if not self._compulsory and self._phase is Phase.PLAY:
            out.append(())
        return out

    def _resolve(self, seat: int, verb: str, card: Card, take: TakeArg, compulsory: bool) -> tuple[Card, ...]:
        partner = _PARTNER[card.index]
        options = [c for c in self._layout if c.rank is partner]
        special = self._special and len(options) >= 3 and card.rank in TRIPLE_RANKS
        if take is None:
            if not options:
                return ()
            if special or len(options) == 1:
                return tuple(options)
            raise IllegalMoveError(
                f"seat {seat} {verb} {card} with {' and '.join(map(str, options))} on the "
                "layout: say which one it takes (one card captures exactly one card)"
            )
        wanted: tuple[Card, ...]
        if take.__class__ is tuple and not special:
            # Fast path (bots, history replays): a tuple of at most one Card.
            if not take:
                if options and compulsory:
                    raise IllegalMoveError(
                        f"seat {seat} {verb} {card} while {options[0]} lay on the layout: capture is compulsory"
                    )
                return ()
            if len(take) == 1 and take[0] in options:
                return take  # type: ignore[return-value]
        if isinstance(take, Card | str):
            wanted = (_as_card(take),)
        else:
            try:
                wanted = tuple(_as_card(t) for t in take)
            except (TypeError, AttributeError, CardParseError):
                raise IllegalMoveError(
                    f"seat {seat} {verb} {card}: take must be a card or a list of cards, not {take!r}"
                ) from None
        if not wanted:
            if options and compulsory:
                raise IllegalMoveError(
                    f"seat {seat} {verb} {card} while {options[0]} lay on the layout: capture is compulsory"
                )
            return ()
        if special:
            if len(wanted) != len(options) or set(wanted) != set(options):
                raise IllegalMoveError(
                    f"seat {seat} {verb} {card}, the fourth {rank_name(card.rank)}: it takes all three "
                    f"{rank_name(card.rank, True)} {format_cards(options)} of the first layout, "
                    f"not {format_cards(wanted)}"
                )
            return tuple(options)
        if len(wanted) > 1:
            raise IllegalMoveError(
                f"seat {seat} {verb} {card} and took {format_cards(wanted)}: one card captures exactly one card"
            )
        target = wanted[0]
        if target in options:
            return (target,)
        if target not in self._layout:
            raise IllegalMoveError(f"seat {seat} {verb} {card} to take {target}, but {target} is not on the layout")
        if card.rank <= 9:
            why = f"{_a(card.rank)} takes {_a(partner)} (numerals add up to ten)"
        else:
            why = f"{_a(card.rank)} takes only {_a(card.rank)}"
        raise IllegalMoveError(f"seat {seat} {verb} {card} to take {target}: {why}")

    def _place(self, seat: int, card: Card, taken: tuple[Card, ...]) -> tuple[tuple[int, Card], ...]:
        layout = self._layout
        if not taken:
            layout.append(card)
            return ()
        removed = []
        for target in taken:
            i = layout.index(target)
            removed.append((i, target))
            del layout[i]
        captured = self._captured[seat]
        captured.append(card)
        captured.extend(taken)
        points = self._points
        gained = points[card.index]
        for target in taken:
            gained += points[target.index]
        self._scores[seat] += gained
        self._last_capturer = seat
        return tuple(removed)

    # -- playing a card from hand --------------------------------------------------------------

    def _refuse_phase(self, seat: int, verb: str, card: object, wanted: Phase) -> IllegalMoveError:
        if self._phase is Phase.OVER:
            return IllegalMoveError(f"seat {seat} {verb} {card} but the deal is over")
        if self._phase is Phase.REDEAL:
            return IllegalMoveError(f"seat {seat} {verb} {card} but {self.redeal_reason}")
        if wanted is Phase.PLAY:
            return IllegalMoveError(
                f"seat {seat} {verb} {card} but seat {self._to_act} must flip the top stock card first"
            )
        return IllegalMoveError(f"seat {seat} {verb} {card} but seat {self._to_act} must play a card from hand first")

    def verify_play(self, seat: int, card: Card | str, take: TakeArg = None) -> tuple[Card, ...]:
        """Raise :class:`IllegalMoveError` (or :class:`CardConflictError`) unless ``seat`` may play
        ``card`` taking ``take``; return the cards it would capture."""
        return self._verify_play(seat, _as_card(card), take)

    def _verify_play(self, seat: int, card: Card, take: TakeArg) -> tuple[Card, ...]:
        if self._phase is not Phase.PLAY:
            raise self._refuse_phase(seat, "played", card, Phase.PLAY)
        if seat != self._to_act:
            raise IllegalMoveError(f"seat {seat} played {card} out of turn: it is seat {self._to_act}'s turn to play")
        hands = self._hands
        if hands is not None:
            if card not in hands[seat]:
                raise IllegalMoveError(
                    f"seat {seat} played {card} but does not hold it ({card} is {self._where(card)})"
                )
        elif self._located[card.index]:
            raise CardConflictError(card, f"seat {seat} played {card}, but {card} is already {self._where(card)}")
        return self._resolve(seat, "played", card, take, self._compulsory)

    def can_play(self, seat: int, card: Card | str, take: TakeArg = None) -> bool:
        try:
            self.verify_play(seat, card, take)
        except (IllegalMoveError, CardConflictError, CardParseError):
            return False
        return True

    def play(self, seat: int, card: Card | str, take: TakeArg = None) -> Move:
        """Play ``card`` from ``seat``'s hand; returns the :class:`Move` appended to the history."""
        if card.__class__ is not Card:
            card = Card.parse(card)  # type: ignore[arg-type]
        taken = self._verify_play(seat, card, take)
        hand_pos = -1
        if self._hands is not None:
            hand = self._hands[seat]
            hand_pos = hand.index(card)
            del hand[hand_pos]
        else:
            self._located[card.index] = 1
        self._hand_counts[seat] -= 1
        previous_capturer = self._last_capturer
        removed = self._place(seat, card, taken)
        move = Move("play", seat, card, taken)
        self._history.append(move)
        self._undo.append((removed, hand_pos, previous_capturer))
        self._phase = Phase.FLIP
        return move

    # -- flipping the top stock card -------------------------------------------------------------

    def verify_flip(
        self, card: Card | str | None = None, take: TakeArg = None, *, seat: int | None = None
    ) -> tuple[Card, tuple[Card, ...]]:
        """Raise unless the top stock card may be flipped as ``card`` taking ``take``; return the card
        and what it would capture. With an unknown stock ``card`` is required and must not have been
        seen (:class:`CardConflictError`); with a known stock it must be the top card."""
        who = self._to_act if seat is None else seat
        if self._phase is not Phase.FLIP or who != self._to_act:
            shown = "a card" if card is None else _as_card(card)
            if self._phase is not Phase.FLIP:
                raise self._refuse_phase(who, "flipped", shown, Phase.FLIP)
            raise IllegalMoveError(f"seat {who} flipped {shown} out of turn: it is seat {self._to_act}'s turn to flip")
        stock = self._stock
        if stock is not None:
            top = stock[self._flips]
            if card is None:
                flipped = top
            else:
                flipped = card if card.__class__ is Card else _as_card(card)
                if flipped is not top:
                    raise CardConflictError(flipped, f"seat {who} flipped {flipped}, but the top stock card is {top}")
        else:
            if card is None:
                raise IllegalMoveError(f"seat {who} flipped a card, but the stock is not known here: say which card")
            flipped = _as_card(card)
            if self._located[flipped.index]:
                raise CardConflictError(
                    flipped, f"seat {who} flipped {flipped}, but {flipped} is already {self._where(flipped)}"
                )
        return flipped, self._resolve(who, "flipped", flipped, take, True)

    def can_flip(self, card: Card | str | None = None, take: TakeArg = None, *, seat: int | None = None) -> bool:
        try:
            self.verify_flip(card, take, seat=seat)
        except (IllegalMoveError, CardConflictError, CardParseError):
            return False
        return True

    def flip(self, card: Card | str | None = None, take: TakeArg = None, *, seat: int | None = None) -> Move:
        """Flip the top stock card (``card``: the card seen); the turn then passes left."""
        flipped, taken = self.verify_flip(card, take, seat=seat)
        who = self._to_act
        if self._stock is None:
            self._located[flipped.index] = 1
        self._flips += 1
        previous_capturer = self._last_capturer
        removed = self._place(who, flipped, taken)
        move = Move("flip", who, flipped, taken)
        self._history.append(move)
        self._undo.append((removed, -1, previous_capturer))
        if self._flips == STOCK_SIZE:
            self._phase = Phase.OVER
        else:
            self._phase = Phase.PLAY
            self._to_act = (who + 1) % self.players
        return move

    # -- generic moves, undo ---------------------------------------------------------------------

    def apply(self, move: Move) -> Move:
        """Apply a :class:`Move` (from ``legal_moves`` or a history)."""
        if move.kind == "play":
            return self.play(move.seat, move.card, move.take)
        return self.flip(move.card, move.take, seat=move.seat)

    def can_apply(self, move: Move) -> bool:
        if move.kind == "play":
            return self.can_play(move.seat, move.card, move.take)
        return self.can_flip(move.card, move.take, seat=move.seat)

    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self._iter_legal, self.can_apply)

    def _iter_legal(self) -> Iterator[Move]:
        seat = self._to_act
        if self._phase is Phase.PLAY:
            kind = "play"
            if self._hands is not None:
                candidates: Iterable[Card] = list(self._hands[seat])
            else:
                candidates = [c for c in ALL_CARDS if not self._located[c.index]]
        elif self._phase is Phase.FLIP:
            kind = "flip"
            if self._stock is not None:
                candidates = [self._stock[self._flips]]
            else:
                candidates = [c for c in ALL_CARDS if not self._located[c.index]]
        else:
            return
        for card in candidates:
            for take in self.takes(card):
                yield Move(kind, seat, card, take)  # type: ignore[arg-type]

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._history:
            raise IllegalMoveError("there is no move to take back")
        move = self._history.pop()
        removed, hand_pos, previous_capturer = self._undo.pop()
        seat = move.seat
        if move.take:
            captured = self._captured[seat]
            del captured[len(captured) - len(move.take) - 1 :]
            points = self._points
            self._scores[seat] -= points[move.card.index] + sum(points[c.index] for c in move.take)
            for i, card in reversed(removed):
                self._layout.insert(i, card)
        else:
            self._layout.pop()
        self._last_capturer = previous_capturer
        self._to_act = seat
        if move.kind == "play":
            if self._hands is not None:
                self._hands[seat].insert(hand_pos, move.card)
            else:
                self._located[move.card.index] = 0
            self._hand_counts[seat] += 1
            self._phase = Phase.PLAY
        else:
            self._flips -= 1
            if self._stock is None:
                self._located[move.card.index] = 0
            self._phase = Phase.FLIP
        return move

    # -- the end -----------------------------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """Set once hands and stock are empty: captures, points and margins per seat."""
        if self._phase is not Phase.OVER:
            return None
        if any(self._hand_counts) or self._flips != STOCK_SIZE:  # pragma: no cover - guarded by the phases
            raise AssertionError("deal over with cards left in hand or stock")
        captured = [list(c) for c in self._captured]
        scores = list(self._scores)
        leftover = tuple(self._layout)
        if leftover:
            if self._compulsory:  # pragma: no cover - the rules make this impossible
                raise AssertionError(f"compulsory capture left {format_cards(leftover)} on the layout")
            taker = self.dealer if self._last_capturer is None else self._last_capturer
            captured[taker].extend(leftover)
            scores[taker] += sum(self._points[c.index] for c in leftover)
        margins = settle(self.rules, scores)
        seats = tuple(SeatResult(i, tuple(captured[i]), scores[i], margins[i]) for i in range(self.players))
        return Outcome(seats, leftover)

    def _where(self, card: Card) -> str:
        """Where a card is known to be, for messages."""
        if card in self._layout:
            return "on the layout"
        for seat, cards in enumerate(self._captured):
            if card in cards:
                return f"among seat {seat}'s captures"
        if self._hands is not None:
            for seat, hand in enumerate(self._hands):
                if card in hand:
                    return f"in seat {seat}'s hand"
        if self._stock is not None and card in self._stock[self._flips :]:
            return "in the stock"
        return "not seen yet"

    def __repr__(self) -> str:
        return (
            f"<ChineseTenState {self.rules.name} players={self.players} dealer={self.dealer} "
            f"phase={self._phase.value} to_act={self._to_act} layout=[{format_cards(self._layout)}]>"
        )
