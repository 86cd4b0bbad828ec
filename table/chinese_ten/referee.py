"""The Chinese Ten referee: turn what the camera sees into moves, and flag what breaks the rules.

At seat ``s``'s turn:

1. a card appearing in the layout is ``s``'s play. If it can capture, ``s`` must take the pair
   away (the played card and one legal target; the special capture takes the three of the first
   layout); otherwise it joins the layout at once;
2. the top stock card is flipped (by the dealer machine on the referee's command, or by hand from
   the stock zone) and likewise captures or joins;
3. the turn passes left.

Violations are flagged the moment they happen, each with a message naming the seat, the cards and
the rule, and the seat's LED shows the error until the table is put right or the flag overridden:

* ``out-of-turn``: a card from another seat's hand (known from the dealer's card reader, or from
  the seat zone it came from) appears;
* ``two-cards``: a second card from the playing seat's hand appears;
* ``capture-compulsory``: the seat says it is done (button) while its card could capture;
* ``non-matching``: the played card is taken with a card it does not capture;
* ``wrong-card``: a layout card is taken that is neither the played card nor its capture.

The referee keeps two pictures: ``physical`` (the layout as seen) and the engine state (the legal
game). Putting right means bringing the first back to the second: the extra card taken back, the
wrongly taken cards put back, the compulsory capture made.

It is a pure function of its inputs (see :mod:`table.controller.referee`), so a journal replay
rebuilds it exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from table.cards import Card, format_cards
from table.chinese_ten import ChineseTenState, Phase, rules_by_name
from table.chinese_ten.rules import RuleSet
from table.chinese_ten.state import DEALT_TO_PLAYERS, LAYOUT_SIZE
from table.controller import recognition
from table.controller.referee import (
    CAPTURE_COMPULSORY,
    DEAL_COUNT,
    NON_MATCHING,
    OUT_OF_TURN,
    TWO_CARDS,
    WRONG_CARD,
    Action,
    Input,
)
from table.controller.referee_base import RefereeBookkeeping, seat_of_zone, winner_roles
from table.errors import CardConflictError, IllegalMoveError, RecordError
from table.journal import Entry, GameRow

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


class ChineseTenReferee(RefereeBookkeeping):
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
        self._result: dict[str, Any] | None = None

    # -- protocol -------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase in (TablePhase.OVER, TablePhase.REDEAL)

    def result(self) -> dict[str, Any] | None:
        return self._result

    def start(self) -> list[Action]:
        out: list[Action] = []
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle"}))
            for i in range(DEALT_TO_PLAYERS):
                seat = (self.dealer + 1 + i) % self.players
                out.append(
                    self._command(
                        {"do": "deal", "target": f"seat:{seat}", "count": 1, "face": "down", "purpose": "hand"}
                    )
                )
            for _ in range(LAYOUT_SIZE):
                out.append(
                    self._command({"do": "deal", "target": LAYOUT, "count": 1, "face": "up", "purpose": "layout"})
                )
            out.append(
                self._say(
                    f"dealer machine: shuffling and dealing {24 // self.players} cards to each "
                    f"seat and {LAYOUT_SIZE} face up to the layout"
                )
            )
        else:
            out.append(
                self._say(
                    f"seat {self.dealer} deals {24 // self.players} cards to each seat and "
                    f"{LAYOUT_SIZE} face up to the layout; press to confirm when done"
                )
            )
        return out

    def leds(self) -> dict[int, str]:
        if self.phase is TablePhase.OVER and self._result:
            return winner_roles(self.players, self._result["seats"], "points")
        roles = dict.fromkeys(range(self.players), "idle")
        if self.state is not None and self.phase not in (TablePhase.DEAL, TablePhase.REDEAL):
            roles[self.state.to_act] = "turn"
        return self._attention(roles, self.prompt)

    def view(self) -> dict[str, Any]:
        st = self.state
        seats = []
        for i in range(self.players):
            seats.append(
                {
                    "seat": i,
                    "hand": st.hand_count(i) if st else len(self.dealt_hands[i]),
                    "captured": [str(c) for c in st.captured(i)] if st else [],
                    "points": st.scores[i] if st else 0,
                }
            )
        return {
            "game": GAME,
            "rules": self.rules.name,
            "phase": self.phase.value,
            "to_act": st.to_act if st and not self.over else None,
            "layout": sorted(str(c) for c in (st.layout if st else ())),
            "physical": sorted(str(c) for c in self.physical),
            "pending": None if self.pending is None else str(self.pending),
            "stock_left": st.stock_left if st else None,
            "seats": seats,
            "flags": [f.to_action() | {"state": f.state} for f in self.flags.values() if f.state == "open"],
            "prompt": self.prompt,
            "messages": list(self.messages),
        }

    def _before_input(self, inp: Input, out: list[Action]) -> None:
        # one card taken that is no capture yet waits for its pair; any other input settles it
        if self.take_deferred and not (inp.src == "table" and inp.kind in ("removed", "moved")):
            self.take_deferred = False
            if self.pending is not None:
                self._judge_take(out, final=True)

    def _after_input(self, out: list[Action]) -> None:
        self._check_flags(out)

    # -- helpers --------------------------------------------------------------------------------

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

    # -- table events ---------------------------------------------------------------------------

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

    # -- plays, flips, captures -----------------------------------------------------------------

    def _play(self, seat: int, card: Card, out: list[Action]) -> None:
        st = self.state
        assert st is not None
        try:
            takes = st.takes(card)
            if takes == [()]:
                move = st.play(seat, card, ())
                self._moved(move, out)
                return
            st.verify_play(seat, card, takes[0])
        except CardConflictError as exc:
            self.physical.discard(card)
            out.append(self._say(f"cannot be: {exc.reason}"))
            return
        except IllegalMoveError as exc:
            self.physical.discard(card)
            out.append(self._say(str(exc)))
            return
        self.pending, self.pending_kind, self.taken = card, "play", []
        self.phase = TablePhase.CAPTURE

    def _flip(self, card: Card, out: list[Action]) -> None:
        st = self.state
        assert st is not None
        if self.reflip is None and self.flip_cmd in self.commands:
            # The camera saw the flipped card before the machine's answer (or the answer was lost
            # in a restart): the command is done.
            del self.commands[self.flip_cmd]
            self.hopper_left -= 1
        self.reflip = None
        try:
            takes = st.takes(card)
            if takes == [()]:
                move = st.flip(card, ())
                self._moved(move, out)
                return
            st.verify_flip(card, takes[0])
        except (IllegalMoveError, CardConflictError) as exc:
            self.physical.discard(card)
            out.append(self._say(f"flip refused: {exc}"))
            return
        self.pending, self.pending_kind, self.taken = card, "flip", []
        self.phase = TablePhase.FLIP_CAPTURE

    def _allowed(self) -> list[frozenset[Card]]:
        st = self.state
        assert st is not None and self.pending is not None
        return [frozenset((self.pending, *t)) for t in st.takes(self.pending) if t]

    def _judge_take(self, out: list[Action], *, final: bool = False) -> None:
        st = self.state
        assert st is not None and self.pending is not None
        taken = frozenset(self.taken)
        allowed = self._allowed()
        seat = st.to_act
        card = self.pending
        if taken in allowed:
            take = next(t for t in st.takes(card) if t and frozenset((card, *t)) == taken)
            move = st.play(seat, card, take) if self.pending_kind == "play" else st.flip(card, take)
            self._clear(out, self.take_flag)
            self._clear(out, self.skip_flag)
            self.take_flag = self.skip_flag = None
            self._moved(move, out)
            return
        if not taken or any(taken < a for a in allowed):
            self._clear(out, self.take_flag)
            self.take_flag = None
            return
        if self.take_flag is not None and self.flags[self.take_flag].state == "open":
            return  # already flagged; wait until it is put right
        if len(taken) < 2 and not final:
            # One card taken that is no capture: judged when the pair is complete (or at the next
            # other event), so the message can say which rule it broke.
            self.take_deferred = True
            return
        self.take_deferred = False
        targets = sorted({c for a in allowed for c in a if c is not card})
        others = sorted(c for c in taken if c is not card)
        verb = "played" if self.pending_kind == "play" else "flipped"
        if card in taken:
            rule = NON_MATCHING
            can = f"it takes {' or '.join(map(str, targets))}" if targets else "it captures nothing"
            message = (
                f"seat {seat} {verb} {card} and took it with {format_cards(others)}, which it does not "
                f"capture ({can}); put the cards back"
            )
        else:
            rule = WRONG_CARD
            message = (
                f"seat {seat} {verb} {card} and took {format_cards(others)}: a capture takes the card "
                f"just {verb}, {card}, with "
                f"{' or '.join(map(str, targets)) if targets else 'its match'}; put the cards back"
            )
        self.take_flag = self._flag(out, seat, rule, [card, *others], message)

    def _moved(self, move: Any, out: list[Action], *, explicit_empty: bool = False) -> None:
        st = self.state
        assert st is not None
        self.pending, self.pending_kind, self.taken = None, "", []
        self.physical -= set(move.take) | ({move.card} if move.take else set())
        # a card laid although it could capture says so in the record ("take": [])
        out.append({"do": "move", "move": move.to_json(explicit_empty_take=explicit_empty), "text": str(move)})
        self.messages.append(str(move))
        if st.phase is Phase.OVER:
            self._finish(out)
        elif st.phase is Phase.FLIP:
            self.phase = TablePhase.FLIP
            self._ask_flip(out)
        else:
            self.phase = TablePhase.PLAY

    def _ask_flip(self, out: list[Action]) -> None:
        self.flip_hint = None
        self.flip_ready = not self.dealer_machine
        if self.reflip is not None:
            self.flip_ready = True
            out.append(self._say(f"put {self.reflip} back on the layout as the flip"))
            return
        if self.dealer_machine:
            cmd = self._command({"do": "deal", "target": LAYOUT, "count": 1, "face": "up", "purpose": "flip"})
            self.flip_cmd = cmd["id"]
            out.append(cmd)

    def _finish(self, out: list[Action]) -> None:
        st = self.state
        assert st is not None and st.outcome is not None
        self.phase = TablePhase.OVER
        self._result = result_json(st)
        out.append({"do": "over", "result": self._result})
        pts = ", ".join(f"seat {s.seat} {s.points}" for s in st.outcome.seats)
        out.append(self._say(f"game over: {pts}"))

    # -- dealing ----------------------------------------------------------------------------------

    def _deal_layout_card(self, card: Card, out: list[Action]) -> None:
        if len(self.physical) > LAYOUT_SIZE and not self.dealer_machine:
            out.append(self._say(f"{len(self.physical)} cards on the layout: the deal puts {LAYOUT_SIZE} there"))
        self._maybe_start(out)

    def _maybe_start(self, out: list[Action], *, confirmed: bool = False) -> None:
        if self.phase is not TablePhase.DEAL:
            return
        if self.dealer_machine:
            if self.deal_done < DEALT_TO_PLAYERS + LAYOUT_SIZE or len(self.physical) < LAYOUT_SIZE:
                return
        elif not confirmed:
            return
        else:
            wrong = []
            if len(self.physical) != LAYOUT_SIZE:
                wrong.append(f"the layout shows {len(self.physical)} cards, not {LAYOUT_SIZE}")
            for seat, n in enumerate(self.seat_backs):
                if n and n != 24 // self.players:
                    wrong.append(f"seat {seat} was dealt {n} cards, not {24 // self.players}")
            if wrong:
                self._flag(
                    out,
                    self.dealer,
                    DEAL_COUNT,
                    sorted(self.physical),
                    "deal: " + "; ".join(wrong) + "; deal again or fix it, then press to confirm",
                )
                return
        self._reader_names_layout(out)
        hands = (
            self.dealt_hands
            if self.card_reader and all(len(h) == 24 // self.players for h in self.dealt_hands)
            else None
        )
        try:
            self.state = ChineseTenState(
                self.rules, players=self.players, dealer=self.dealer, layout=sorted(self.physical), hands=hands
            )
        except (IllegalMoveError, CardConflictError, ValueError) as exc:
            out.append(self._say(f"the deal cannot be right: {exc}"))
            return
        for f in self.flags.values():
            if f.rule == DEAL_COUNT:
                self._clear(out, f.id)
        st = self.state
        out.append(
            {
                "do": "deal-seen",
                "layout": [str(c) for c in st.initial_layout],
                "hands": None if hands is None else [[str(c) for c in h] for h in hands],
            }
        )
        if st.redeal_needed:
            self.phase = TablePhase.REDEAL
            out.append(self._say(st.redeal_reason))
            out.append({"do": "over", "result": None, "redeal": True})
            return
        if st.opening_capture:
            self.physical -= set(st.opening_capture)
            out.append(
                self._say(
                    f"four of a kind in the first layout: seat {self.dealer} takes "
                    f"{format_cards(st.opening_capture)} at once"
                )
            )
        self.phase = TablePhase.PLAY
        out.append(self._say(f"play starts: seat {st.to_act} to play; layout {format_cards(st.layout)}"))

    def _reader_names_layout(self, out: list[Action]) -> None:
        """The card reader named all four layout cards: where the camera read one differently (it
        saw the card before the reader's answer came), the reader's card stands."""
        if not (self.dealer_machine and self.card_reader and len(self.layout_named) == LAYOUT_SIZE):
            return
        misread = sorted(self.physical - set(self.layout_named))
        unseen = [c for c in self.layout_named if c not in self.physical]
        if len(misread) != 1 or len(unseen) != 1:
            return
        wrong, right = misread[0], unseen[0]
        self.physical = (self.physical - {wrong}) | {right}
        self.tracks = {t: right if c is wrong else c for t, c in self.tracks.items()}
        out.append(self._say(f"the camera read {wrong} on the layout; the dealer's card reader says {right}"))

    # -- device events ----------------------------------------------------------------------------

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if inp.kind == "dealt" and cmd is not None:
            del self.commands[cmd["id"]]
            self.hopper_left -= 1
            card = Card.parse(inp.card) if inp.card else None
            purpose = cmd.get("purpose")
            if purpose in ("hand", "layout"):
                self.deal_done += 1
                if purpose == "layout" and card is not None:
                    self.layout_named.append(card)
                elif purpose == "layout":
                    self.layout_unnamed += 1
                if purpose == "hand" and card is not None:
                    seat = int(str(cmd["target"]).split(":")[1])
                    self.dealt_hands[seat].append(card)
                    self.owner[card] = seat
                self._maybe_start(out)
            elif purpose == "flip" and cmd["id"] == self.flip_cmd and self.phase is TablePhase.FLIP:
                self.flip_hint = card
                self.flip_ready = True
        elif inp.kind == "shuffled" and cmd is not None:
            del self.commands[cmd["id"]]
        elif inp.kind == "failed" and cmd is not None:
            del self.commands[cmd["id"]]
            reason = inp.data.get("reason", "failed")
            retry = self._retry(cmd)
            if cmd["id"] == self.flip_cmd:
                self.flip_cmd = retry["id"]
            out.append(self._say(f"dealer: {cmd['do']} to {cmd.get('target', '')} failed ({reason}); trying again"))
            out.append(retry)

    # -- people: buttons and the terminal ---------------------------------------------------------

    def _person(self, inp: Input, out: list[Action]) -> None:
        who = "host" if inp.seat is None else f"seat {inp.seat}"
        why = inp.text or ("button" if inp.src == "button" else "terminal")
        kind = inp.kind
        if inp.src == "button":
            kind = "confirm" if inp.kind == "short" else "long"
        if self.prompt is not None and kind in ("confirm", "reject", "long", "correct"):
            self._answer_prompt(kind, inp, who, why, out)
            return
        if kind == "confirm":
            if self.phase is TablePhase.DEAL and not self.dealer_machine:
                self._record_override(out, who, "confirm the deal", why)
                self._maybe_start(out, confirmed=True)
            elif self.pending is not None and self.state is not None and inp.seat in (None, self.state.to_act):
                self._done_without_capture(out)
            return
        if kind == "long":
            # A long press disputes the seat's open flag, or else asks to undo its last move.
            open_flags = [f for f in self.flags.values() if f.state == "open" and f.seat == inp.seat]
            kind = "dispute" if open_flags else "undo"
        if kind == "dispute":
            targets = [
                f
                for f in self.flags.values()
                if f.state == "open" and (inp.seat is None or f.seat == inp.seat or inp.data.get("flag") == f.id)
            ]
            if not targets:
                out.append(self._say(f"{who}: no open flag to dispute"))
                return
            flag = targets[-1]
            self._record_override(out, who, f"dispute flag {flag.id} ({flag.rule})", why)
            self._clear(out, flag.id, "overridden")
            return
        if kind == "undo":
            self._undo(out, who, why)
            return
        if kind == "correct":
            out.append(self._say("nothing to correct: no card is waiting for confirmation"))

    def _done_without_capture(self, out: list[Action]) -> None:
        st = self.state
        assert st is not None and self.pending is not None
        card = self.pending
        takes = st.takes(card)
        if () in takes and not self.taken:
            move = st.play(st.to_act, card, ())
            self._moved(move, out, explicit_empty=True)
            return
        if self.skip_flag is not None and self.flags[self.skip_flag].state == "open":
            return
        options = sorted({c for t in takes for c in t})
        verb = "played" if self.pending_kind == "play" else "flipped"
        self.skip_flag = self._flag(
            out,
            st.to_act,
            CAPTURE_COMPULSORY,
            [card, *options],
            f"seat {st.to_act} {verb} {card} while {' and '.join(map(str, options))} lay on the layout: "
            "capture is compulsory; take the pair",
        )

    def _undo(self, out: list[Action], who: str, why: str) -> None:
        st = self.state
        if st is None or not st.history or self.pending is not None or self.commands:
            out.append(self._say(f"{who}: nothing can be undone now"))
            return
        move = st.undo()
        self._record_override(out, who, f"undo: {move}", why)
        out.append({"do": "unmove", "move": move.to_json(), "text": str(move)})
        if move.kind == "flip":
            self.reflip = move.card
        self.physical -= {move.card}
        self.phase = TablePhase.PLAY if st.phase is Phase.PLAY else TablePhase.FLIP
        if self.phase is TablePhase.FLIP:
            self._ask_flip(out)
        out.append(self._say(f"undone: {move}; put the table back as it was (layout {format_cards(st.layout)})"))

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


# -- results, exports, factory -------------------------------------------------------------------


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


def make_referee(
    *,
    rules: str,
    players: int,
    dealer: int = 0,
    options: dict[str, Any] | None = None,
    card_reader: bool = False,
    dealer_machine: bool = True,
) -> ChineseTenReferee:
    return ChineseTenReferee(
        rules_by_name(rules, **(options or {})),
        players=players,
        dealer=dealer,
        card_reader=card_reader,
        dealer_machine=dealer_machine,
    )


def export_record(game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]:
    """The record of a journalled game: the layout seen at the deal, every accepted move (undone
    moves removed), the hands rebuilt from the cards each seat played, the stock from the flips."""
    layout: list[str] | None = None
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if entry.kind != "verdict":
            continue
        for action in entry.body.get("actions", []):
            do = action.get("do")
            if do == "deal-seen":
                layout = list(action["layout"])
            elif do == "move":
                moves.append(action["move"])
            elif do == "unmove" and moves:
                moves.pop()
    if layout is None:
        raise RecordError("deal", f"game {game.id} never got past the deal; nothing to export")
    hands: list[list[str]] = [[] for _ in range(game.players)]
    stock: list[str] = []
    for m in moves:
        if "play" in m:
            hands[m["seat"]].append(m["play"])
        else:
            stock.append(m["flip"])
    record: dict[str, Any] = {
        "game": GAME,
        "rules": game.rules,
        "options": game.options,
        "players": game.players,
        "dealer": game.dealer,
        "deal": {"hands": hands, "layout": layout, "stock": stock},
        "moves": moves,
    }
    if game.status != "finished":
        record["note"] = "unfinished: hands and stock hold only the cards seen so far"
    return record
