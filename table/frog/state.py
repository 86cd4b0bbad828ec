"""One Frog deal: auction, trump, widow and discards, eleven tricks, settlement.

:class:`FrogDeal` follows verify / can / act for every decision:

=====================  =============================  ==========================  ================
decision               verify (raises)                can (bool)                  act
=====================  =============================  ==========================  ================
bid or pass            ``verify_bid(seat, c)``        ``can_bid(seat, c)``        ``bid(seat, c)``
raise Frog to Grand    ``verify_raise(seat)``         ``can_raise(seat)``         ``raise_to_grand(seat)``
name Chico's trump     ``verify_trump(seat, suit)``   ``can_trump(seat, suit)``   ``name_trump(seat, suit)``
show the widow         ``verify_widow(cards)``        ``can_show_widow(cards)``   ``show_widow(cards)``
discard 3 (Frog)       ``verify_discard(seat, cs)``   ``can_discard(seat, cs)``   ``discard(seat, cs)``
play a card            ``verify_play(seat, card)``    ``can_play(seat, card)``    ``play(seat, card)``
=====================  =============================  ==========================  ================

``c`` is a :class:`Contract` or ``None`` for a pass. Verify raises :class:`IllegalMoveError` (a
sentence naming the seat, the card and the rule) or :class:`CardConflictError` for a card that
cannot be there (not in the 36-card pack, already played, known to lie elsewhere); the state is
unchanged after either.

**Known hands** (``hands=`` given: a card-reading dealer): plays are checked against the hand and
the follow/trump rule; ``legal_plays(seat)`` lists them.

**Hidden hands** (``hands=None``): any card that could be legal is accepted. A failure to follow
(or to trump) is remembered as a claim that the seat is void; a later play of that suit by the
same seat proves a revoke, appended to ``revokes`` as a :class:`Revoke` naming the trick, seat
and card. Play goes on to the end; settlement applies ``rules.revoke_penalty`` for the first
revoke (default: the revoking side loses as if the bidder scored 0 or 120).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from table.cards import ALL_CARDS, Card, Suit, format_cards
from table.errors import CardConflictError, CardParseError, ConfigError, IllegalMoveError
from table.frog.auction import Auction
from table.frog.deal import HAND_SIZE, WIDOW_SIZE, active_seats, check_players, sitting_out
from table.frog.play import IN_PACK, POINTS, POWER, TOTAL_POINTS, breach, legal_plays
from table.frog.rules import Contract, RuleSet
from table.frog.settlement import Settlement, settle

TRICKS = 11
CHICO_TRUMPS = (Suit.CLUBS, Suit.SPADES, Suit.DIAMONDS)

# Where a card is, by card.index: a seat number (>= 0) or one of these.
_UNKNOWN, _PLAYED, _WIDOW, _DISCARD, _NOT_IN_PACK = -1, -2, -3, -4, -5


_WHERE_AT_START = tuple(_UNKNOWN if IN_PACK[i] else _NOT_IN_PACK for i in range(52))


class Phase(enum.Enum):
    AUCTION = "auction"
    TRUMP = "trump"  # a Chico bidder names the trump suit
    DISCARD = "discard"  # a Frog bidder takes the widow and discards 3
    PLAY = "play"
    OVER = "over"  # eleven tricks played; ``settlement`` is ready
    PASSED = "passed"  # everybody passed: no game, the deal passes left


class Move(NamedTuple):
    """One applied decision, as recorded: kind ``bid``, ``trump``, ``widow``, ``discard`` or ``play``.

    (A named tuple rather than a frozen dataclass: one is made per card played, and this is cheaper.)
    """

    seat: int
    kind: str
    value: Contract | Suit | Card | tuple[Card, ...] | None

    def as_json(self) -> dict[str, object]:
        v = self.value
        if self.kind == "bid":
            return {"seat": self.seat, "bid": v.word if isinstance(v, Contract) else "pass"}
        if self.kind == "trump":
            return {"seat": self.seat, "trump": v.char if isinstance(v, Suit) else None}
        if isinstance(v, tuple):
            return {"seat": self.seat, self.kind: [str(c) for c in v]}
        return {"seat": self.seat, self.kind: None if v is None else str(v)}


class Trick(NamedTuple):
    number: int  # 1..11
    leader: int
    plays: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    winner: int
    points: int

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(c for _, c in self.plays)


@dataclass(frozen=True, slots=True)
class Revoke:
    """A proven failure to follow suit (``rule="follow"``) or to trump (``rule="trump"``)."""

    trick: int  # the trick of the failure, 1..11
    seat: int
    card: Card  # the card played instead
    suit: Suit  # the suit the seat should have played
    rule: str
    proof: Card  # the later card of ``suit`` that proves it
    proof_trick: int
    move: int  # index in ``FrogDeal.history`` of the failing play (orders revokes within a trick)

    def describe(self) -> str:
        duty = "follow suit" if self.rule == "follow" else "trump"
        return (
            f"revoke: seat {self.seat} played {self.card} in trick {self.trick} but had to {duty} "
            f"({self.suit.name.lower()}), as {self.proof} in trick {self.proof_trick} shows"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "trick": self.trick,
            "seat": self.seat,
            "card": str(self.card),
            "rule": self.rule,
            "suit": self.suit.char,
            "proof": str(self.proof),
            "proof_trick": self.proof_trick,
            "move": self.move,
        }


class FrogDeal:
    """One deal at a table of ``players`` seats (0..n-1 clockwise) with ``dealer`` dealing.

    ``hands``: seat -> 11 cards for each active seat, and ``widow`` (3 cards; worked out when
    omitted) for known hands; ``hands=None`` for hidden hands (``widow`` may still be given).
    """

    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int,
        dealer: int,
        hands: Mapping[int, Iterable[Card]] | None = None,
        widow: Iterable[Card] | None = None,
    ) -> None:
        check_players(rules, players)
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.active: tuple[int, int, int] = active_seats(rules, players, dealer)
        self.sitting_out: tuple[int, ...] = sitting_out(rules, players, dealer)
        self.known = hands is not None
        self._initial = (
            None if hands is None else {s: tuple(cs) for s, cs in hands.items()},
            None if widow is None else tuple(widow),
        )
        self._where: list[int] = list(_WHERE_AT_START)
        self._hands: dict[int, list[Card]] = {s: [] for s in self.active}
        self._widow: tuple[Card, ...] | None = None
        start_hands, start_widow = self._initial
        if start_hands is not None:
            self._deal_known(start_hands, start_widow)
        elif start_widow is not None:
            self._widow = self._place(start_widow, _WIDOW, "widow", WIDOW_SIZE)
        self.auction = Auction(rules, self.active)
        self.phase = Phase.AUCTION
        self.contract: Contract | None = None
        self.bidder: int | None = None
        self.trump: Suit | None = None
        self.widow_shown = False
        self.discards: tuple[Card, ...] | None = None
        self.tricks: list[Trick] = []
        self.revokes: list[Revoke] = []
        self.history: list[Move] = []
        self.trick_points: dict[int, int] = {s: 0 for s in self.active}
        self._trick: list[tuple[int, Card]] = []
        self._turn = self.active[0]
        self._claims: dict[tuple[int, Suit], tuple[int, Card, str, int]] = {}
        self._settlement: Settlement | None = None

    # -- setting up ---------------------------------------------------------------------------

    def _place(self, cards: Iterable[Card], where: int, what: str, size: int) -> tuple[Card, ...]:
        got = tuple(cards)
        if len(got) != size:
            raise ConfigError(what, f"needs {size} cards, got {len(got)}")
        for card in got:
            if not isinstance(card, Card):
                raise ConfigError(what, f"{card!r} is not a Card")
            if not IN_PACK[card.index]:
                raise CardConflictError(card, "is not in Frog's 36-card pack (twos to fives are removed)")
            if self._where[card.index] != _UNKNOWN:
                raise CardConflictError(card, f"appears twice ({what})")
            self._where[card.index] = where
        return got

    def _deal_known(self, hands: Mapping[int, Iterable[Card]], widow: Iterable[Card] | None) -> None:
        if set(hands) != set(self.active):
            raise ConfigError(
                "hands", f"need hands for the active seats {sorted(self.active)}, got seats {sorted(hands)}"
            )
        for seat in self.active:
            self._hands[seat] = list(self._place(hands[seat], seat, f"hands[{seat}]", HAND_SIZE))
        rest = [c for c in ALL_CARDS if self._where[c.index] == _UNKNOWN]
        self._widow = self._place(rest if widow is None else widow, _WIDOW, "widow", WIDOW_SIZE)

    # -- reading the state ----------------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited, or ``None`` when the deal is over."""
        if self.phase is Phase.AUCTION:
            return self.auction.to_speak
        if self.phase in (Phase.TRUMP, Phase.DISCARD):
            return self.bidder
        if self.phase is Phase.PLAY:
            return self._turn
        return None

    @property
    def over(self) -> bool:
        return self.phase in (Phase.OVER, Phase.PASSED)

    @property
    def initial_cards(self) -> tuple[dict[int, tuple[Card, ...]] | None, tuple[Card, ...] | None]:
        """The hands and widow this deal was created with (``None`` where not given)."""
        return self._initial

    @property
    def widow(self) -> tuple[Card, ...] | None:
        """The widow's cards when known (known hands, or shown)."""
        return self._widow

    @property
    def current_trick(self) -> tuple[tuple[int, Card], ...]:
        return tuple(self._trick)

    @property
    def led_suit(self) -> Suit | None:
        return self._trick[0][1].suit if self._trick else None

    @property
    def last_trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    @property
    def winning(self) -> tuple[int, Card] | None:
        """The seat and card winning the trick in progress so far (``None`` before its first card)."""
        if not self._trick or self.trump is None:
            return None
        best_seat, best = self._trick[0]
        for seat, card in self._trick[1:]:
            if (card.suit is best.suit and POWER[card.index] > POWER[best.index]) or (
                card.suit is self.trump and best.suit is not self.trump
            ):
                best_seat, best = seat, card
        return best_seat, best

    def hand(self, seat: int) -> tuple[Card, ...] | None:
        """The seat's cards now, when hands are known (``None`` otherwise or for a sitting-out seat)."""
        if not self.known or seat not in self._hands:
            return None
        return tuple(self._hands[seat])

    def legal_plays(self, seat: int) -> list[Card] | None:
        """Cards ``seat`` may legally play now (empty when it is not its turn); ``None`` if unknown."""
        if not self.known:
            return None
        if self.phase is not Phase.PLAY or seat != self._turn:
            return []
        assert self.trump is not None
        return legal_plays(self._hands[seat], self.led_suit, self.trump)

    def legal_bids(self, seat: int) -> list[Contract | None]:
        """Calls open to ``seat`` now (``None`` = pass; Grand alone while raising)."""
        if self.phase is not Phase.AUCTION or seat != self.auction.to_speak:
            return []
        return self.auction.legal_calls()

    # -- auction ----------------------------------------------------------------------------------

    def verify_bid(self, seat: int, contract: Contract | None) -> None:
        if self.phase is not Phase.AUCTION:
            raise IllegalMoveError(f"seat {seat} cannot bid: the auction is over ({self.phase.value})")
        self.auction.verify(seat, contract)

    def can_bid(self, seat: int, contract: Contract | None) -> bool:
        return _ok(self.verify_bid, seat, contract)

    def bid(self, seat: int, contract: Contract | None) -> None:
        """Bid ``contract`` or pass (``None``). The Frog bidder's raise is ``bid(seat, GRAND)``."""
        self.verify_bid(seat, contract)
        self.auction.apply(seat, contract)
        self.history.append(Move(seat, "bid", contract))
        if self.auction.done:
            self._close_auction()

    def verify_raise(self, seat: int) -> None:
        if self.phase is not Phase.AUCTION or not self.auction.raising or seat != self.auction.to_speak:
            raise IllegalMoveError(
                f"seat {seat} cannot raise to {self.rules.name_of(Contract.GRAND)}: only a Frog bidder "
                f"just overcalled by {self.rules.name_of(Contract.CHICO)} may, at once"
            )
        self.auction.verify(seat, Contract.GRAND)

    def can_raise(self, seat: int) -> bool:
        return _ok(self.verify_raise, seat)

    def raise_to_grand(self, seat: int) -> None:
        self.verify_raise(seat)
        self.bid(seat, Contract.GRAND)

    def _close_auction(self) -> None:
        self.contract, self.bidder = self.auction.high, self.auction.bidder
        if self.contract is None:
            self.phase = Phase.PASSED
            return
        self.trump = self.rules.trump_for(self.contract)
        if self.contract is Contract.CHICO:
            self.phase = Phase.TRUMP
        elif self.contract is Contract.FROG:
            self.phase = Phase.DISCARD
            assert self.bidder is not None
            if self._widow is not None:  # the bidder takes it up
                if self.known:
                    self._hands[self.bidder].extend(self._widow)
                for card in self._widow:
                    self._where[card.index] = self.bidder
                self.widow_shown = self.rules.expose_widow
        else:
            self.phase = Phase.PLAY

    # -- trump --------------------------------------------------------------------------------------

    def verify_trump(self, seat: int, suit: Suit) -> None:
        chico = self.rules.name_of(Contract.CHICO)
        if self.phase is not Phase.TRUMP:
            raise IllegalMoveError(f"seat {seat} cannot name trumps now: only a {chico} bidder does, after the auction")
        if seat != self.bidder:
            raise IllegalMoveError(f"seat {seat} cannot name trumps: seat {self.bidder} is the bidder")
        if not isinstance(suit, Suit) or suit not in CHICO_TRUMPS:
            raise IllegalMoveError(
                f"seat {seat} cannot name {getattr(suit, 'name', suit)!s} as trumps in a {chico}: clubs, "
                f"spades or diamonds (hearts would be a {self.rules.name_of(Contract.GRAND)}, higher than "
                f"the contract won)"
            )

    def can_trump(self, seat: int, suit: Suit) -> bool:
        return _ok(self.verify_trump, seat, suit)

    def name_trump(self, seat: int, suit: Suit) -> None:
        self.verify_trump(seat, suit)
        self.trump = suit
        self.history.append(Move(seat, "trump", suit))
        self.phase = Phase.PLAY

    # -- widow and discards (Frog) --------------------------------------------------------------------

    def verify_widow(self, cards: Sequence[Card | str]) -> None:
        """Hidden hands: the camera reports the widow a Frog bidder exposes (rules.expose_widow)."""
        if self.phase is not Phase.DISCARD or self.widow_shown or not self.rules.expose_widow:
            raise IllegalMoveError(
                "the widow can only be shown once, by a Frog bidder before discarding, "
                f"and only where it is exposed ({self.rules.name} "
                f"{'exposes' if self.rules.expose_widow else 'hides'} it)"
            )
        self._check_cards(_cards(cards), WIDOW_SIZE, "widow", allowed=(_UNKNOWN, _WIDOW))

    def can_show_widow(self, cards: Sequence[Card | str]) -> bool:
        return _ok(self.verify_widow, cards)

    def show_widow(self, cards: Sequence[Card | str]) -> None:
        cards = _cards(cards)
        self.verify_widow(cards)
        assert self.bidder is not None
        if not self.known:
            for card in cards:
                self._where[card.index] = self.bidder
        self._widow = tuple(cards)
        self.widow_shown = True
        self.history.append(Move(self.bidder, "widow", tuple(cards)))

    def verify_discard(self, seat: int, cards: Sequence[Card | str] | None) -> None:
        """A Frog bidder puts 3 cards face down; ``None`` when they are not seen (hidden hands only)."""
        if self.phase is not Phase.DISCARD:
            raise IllegalMoveError(
                f"seat {seat} cannot discard now: only a "
                f"{self.rules.name_of(Contract.FROG)} bidder does, after the auction"
            )
        if seat != self.bidder:
            raise IllegalMoveError(f"seat {seat} cannot discard: seat {self.bidder} is the bidder")
        if cards is None:
            if self.known:
                raise IllegalMoveError(f"seat {seat} must name the 3 discards: the hands are known")
            return
        allowed = (seat,) if self.known else (_UNKNOWN, seat)
        self._check_cards(_cards(cards), WIDOW_SIZE, "discard", allowed=allowed, seat=seat)

    def can_discard(self, seat: int, cards: Sequence[Card | str] | None) -> bool:
        return _ok(self.verify_discard, seat, cards)

    def discard(self, seat: int, cards: Sequence[Card | str] | None) -> None:
        cards = None if cards is None else _cards(cards)
        self.verify_discard(seat, cards)
        if cards is not None:
            for card in cards:
                self._where[card.index] = _DISCARD
                if self.known:
                    self._hands[seat].remove(card)
            self.discards = tuple(cards)
        self.history.append(Move(seat, "discard", None if cards is None else tuple(cards)))
        self.phase = Phase.PLAY

    def _check_cards(
        self, cards: Sequence[Card], size: int, what: str, *, allowed: tuple[int, ...], seat: int | None = None
    ) -> None:
        if len(cards) != size or len(set(cards)) != size:
            raise IllegalMoveError(f"the {what} is {size} different cards, not {format_cards(cards)!r}")
        for card in cards:
            where = self._where[card.index]
            if where not in allowed:
                raise CardConflictError(card, self._whereabouts(card, where))

    # -- play -------------------------------------------------------------------------------------------

    def verify_play(self, seat: int, card: Card | str) -> None:
        card = _card(card)
        if self.phase is not Phase.PLAY:
            raise IllegalMoveError(f"seat {seat} cannot play {card}: no trick is being played ({self.phase.value})")
        if seat != self._turn:
            raise IllegalMoveError(f"seat {seat} cannot play {card}: it is seat {self._turn}'s turn")
        where = self._where[card.index]
        if where != seat and (self.known or where != _UNKNOWN):
            raise CardConflictError(card, self._whereabouts(card, where))
        if self.known and self._trick:
            assert self.trump is not None
            why = breach(self._hands[seat], card, self._trick[0][1].suit, self.trump)
            if why is not None:
                raise IllegalMoveError(f"seat {seat} cannot play {card}: {why}")

    def can_play(self, seat: int, card: Card | str) -> bool:
        return _ok(self.verify_play, seat, card)

    def play(self, seat: int, card: Card | str) -> Trick | None:
        """Play ``card`` (a Card or text such as ``"TH"``); returns the trick it completes, if any."""
        card = _card(card)
        self.verify_play(seat, card)
        self._where[card.index] = _PLAYED
        if self.known:
            self._hands[seat].remove(card)
        else:
            self._note_voids(seat, card)
        self.history.append(Move(seat, "play", card))
        trick = self._trick
        trick.append((seat, card))
        if len(trick) < 3:
            active = self.active
            self._turn = active[(active.index(seat) + 1) % 3]
            return None
        return self._close_trick()

    def _close_trick(self) -> Trick:
        plays = self._trick
        trump = self.trump
        best_seat, best = plays[0]
        for seat, card in plays[1:]:
            if card.suit is best.suit:
                if POWER[card.index] > POWER[best.index]:
                    best_seat, best = seat, card
            elif card.suit is trump:
                best_seat, best = seat, card
        points = POINTS[plays[0][1].index] + POINTS[plays[1][1].index] + POINTS[plays[2][1].index]
        trick = Trick(len(self.tricks) + 1, plays[0][0], tuple(plays), best_seat, points)
        self.tricks.append(trick)
        self.trick_points[best_seat] += points
        self._trick = []
        self._turn = best_seat
        if len(self.tricks) == TRICKS:
            self.phase = Phase.OVER
        return trick

    def _note_voids(self, seat: int, card: Card) -> None:
        """Hidden hands: prove earlier revokes by this card, then remember new void claims."""
        number = len(self.tricks) + 1
        claim = self._claims.pop((seat, card.suit), None)
        if claim is not None:
            trick, played, rule, move = claim
            self.revokes.append(Revoke(trick, seat, played, card.suit, rule, card, number, move))
            # one failure, one revoke: drop the other claim the same card made (follow and trump)
            for key in [k for k, v in self._claims.items() if k[0] == seat and v[0] == trick]:
                del self._claims[key]
        if self._trick:
            led = self._trick[0][1].suit
            if card.suit is not led:
                move = len(self.history)  # this play's index, appended next
                self._claims.setdefault((seat, led), (number, card, "follow", move))
                if self.trump is not None and card.suit is not self.trump:
                    self._claims.setdefault((seat, self.trump), (number, card, "trump", move))

    def _whereabouts(self, card: Card, where: int) -> str:
        if where == _NOT_IN_PACK:
            return "is not in Frog's 36-card pack (twos to fives are removed)"
        if where == _PLAYED:
            for trick in [*self.tricks, Trick(len(self.tricks) + 1, -1, tuple(self._trick), -1, 0)]:
                for s, c in trick.plays:
                    if c is card:
                        return f"was already played by seat {s} in trick {trick.number}"
            return "was already played"
        if where == _WIDOW:
            return "lies in the widow"
        if where == _DISCARD:
            return "was discarded by the bidder"
        if where >= 0:
            how = "holds it" if self.known else "took it from the exposed widow"
            return f"belongs to seat {where}'s hand (seat {where} {how})"
        return "is not available"

    # -- outcome ---------------------------------------------------------------------------------------

    def points(self) -> dict[int, int]:
        """Card points per seat of the table; the widow (or discards) count for the bidder.

        With hidden hands the widow is unseen, so the bidder's total is 120 less the opponents'.
        Before the end, trick points so far (widow not yet counted).
        """
        out = {s: 0 for s in range(self.players)}
        for seat, pts in self.trick_points.items():
            out[seat] = pts
        if self.phase is Phase.OVER and self.bidder is not None:
            out[self.bidder] = TOTAL_POINTS - sum(p for s, p in self.trick_points.items() if s != self.bidder)
        return out

    @property
    def settlement(self) -> Settlement | None:
        """The deal's payments once it is over (``None`` before, and for a passed deal)."""
        if self.phase is not Phase.OVER:
            return None
        if self._settlement is None:
            assert self.contract is not None and self.bidder is not None
            first = min(self.revokes, key=lambda r: r.move) if self.revokes else None
            revoker = first.seat if first else None
            self._settlement = settle(
                self.rules,
                contract=self.contract,
                bidder=self.bidder,
                points=self.points()[self.bidder],
                active=self.active,
                table=range(self.players),
                revoker=revoker,
            )
        return self._settlement

    # -- moves as values: apply, undo, copy, prompt -------------------------------------------------

    def apply(self, move: Move) -> None:
        """Apply a recorded :class:`Move` (as found in ``history``)."""
        seat, kind, value = move
        if kind == "bid":
            self.bid(seat, value if isinstance(value, Contract) else None)
        elif kind == "trump" and isinstance(value, Suit):
            self.name_trump(seat, value)
        elif kind == "widow" and isinstance(value, tuple):
            self.show_widow(value)
        elif kind == "discard" and (value is None or isinstance(value, tuple)):
            self.discard(seat, value)
        elif kind == "play" and isinstance(value, Card):
            self.play(seat, value)
        else:
            raise IllegalMoveError(f"seat {seat}: not a Frog move: {kind} {value!r}")

    def copy(self) -> FrogDeal:
        """An independent copy, rebuilt from the same cards and history."""
        hands, widow = self._initial
        new = FrogDeal(self.rules, players=self.players, dealer=self.dealer, hands=hands, widow=widow)
        for move in self.history:
            new.apply(move)
        return new

    def undo(self) -> Move:
        """Take back the last decision (a misread card, a slip of the tongue); returns it."""
        if not self.history:
            raise IllegalMoveError("nothing to undo: no move has been made in this deal")
        last = self.history[-1]
        hands, widow = self._initial
        fresh = FrogDeal(self.rules, players=self.players, dealer=self.dealer, hands=hands, widow=widow)
        for move in self.history[:-1]:
            fresh.apply(move)
        self.__dict__.update(fresh.__dict__)
        return last

    def prompt(self) -> str:
        """What the table waits for, in words: ``seat 2: follow suit (spades) or trump``."""
        seat = self.to_act
        if self.phase is Phase.AUCTION:
            calls = [self.rules.name_of(c) if c is not None else "pass" for c in self.auction.legal_calls()]
            if self.auction.raising:
                return f"seat {seat}: raise to {self.rules.name_of(Contract.GRAND)} or pass"
            return f"seat {seat}: bid {', '.join(calls[1:])} or pass" if len(calls) > 1 else f"seat {seat}: pass"
        if self.phase is Phase.TRUMP:
            return f"seat {seat}: name trumps (clubs, spades or diamonds)"
        if self.phase is Phase.DISCARD:
            return f"seat {seat}: take up the widow and discard 3 cards face down"
        if self.phase is Phase.PLAY:
            if not self._trick:
                return f"seat {seat}: lead to trick {len(self.tricks) + 1}"
            led = self._trick[0][1].suit.name.lower()
            trump = self.trump.name.lower() if self.trump else ""
            return f"seat {seat}: follow {led}; if void, trump ({trump}); else any card"
        if self.phase is Phase.PASSED:
            return "everybody passed: no game, the deal passes left"
        settlement = self.settlement
        if settlement is None:
            return "the deal is over"
        return (
            f"the deal is over: seat {settlement.bidder} {settlement.result.value} "
            f"{self.rules.name_of(settlement.contract)} with {settlement.scored}"
        )


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else Card.parse(card)


def _cards(cards: Sequence[Card | str]) -> list[Card]:
    return [_card(c) for c in cards]


def _ok(verify: object, *args: object) -> bool:
    try:
        verify(*args)  # type: ignore[operator]
    except (IllegalMoveError, CardConflictError, CardParseError):
        return False
    return True
