"""The Garbage referee: face-up deals, the four phases in order, every coin said as an instruction.

A table game of Garbage is the engine's whole match (:class:`table.garbage.GarbageGame`: a hand of
poker, bingo, put and take and count-up per dealer, the deal passing left) with one coin ledger.

Cards. Whenever the engine awaits a card, the dealer machine is told to deal it (face up to
``seat:N`` for a poker card or a bought card, to the ``turnup`` row for a bingo call, a put-and-take
card or a count-up card), or, without a machine, the dealer deals or turns it by hand. The card is
read where the camera sees it land (the machine's card reader, when it has one, is a hint). With
several packs duplicate cards are expected, not errors; a card is impossible only when every copy
of it is already out of the stock.

Decisions (buying a card, stud betting) are chosen at the seat's button (a short press shows the
next choice, a hold accepts it) or at the terminal (``Input("terminal", "buy", seat=s)`` or
``kind="move", text="raise"``, then ``confirm``); the card given up after buying is the one the
player takes out of the hand (or ``Input("terminal", "discard", seat=s, card="7H")``).

Violations the camera sees, flagged at once with the seat's LED showing the error until put right:

* ``misplaced``: the awaited card lands in the wrong place (a turned card in a seat's hand, a poker
  card in the turn-up row or at another seat);
* ``out-of-turn``: a card dealt or turned while a player's decision is awaited;
* ``extra-card``: a card appears in a seat's hand that was not dealt to it;
* ``hand-disturbed``: a card is taken out of a hand that is still in play.

Every coin movement is a ``pay`` action and a plain instruction ("seat 4 pays the pot 6 coins";
"the dealer, seat 2, collects 7 coins from each player"). Like every referee it is a pure function
of its inputs (:mod:`table.controller.referee`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from table.cards import Card
from table.controller import recognition
from table.controller.referee import OUT_OF_TURN, Action, Flag, Input
from table.controller.referee_base import RefereeBookkeeping, winner_roles
from table.errors import CardConflictError, ConfigError, IllegalMoveError, RecordError
from table.garbage import AwaitCard, AwaitMove, GarbageGame, GarbageRules, Move
from table.garbage.core import MOVE_KINDS, HandResults
from table.garbage.hands import describe
from table.garbage.record import result as game_result
from table.garbage.rules import rules_from_json
from table.journal import Entry, GameRow
from table.ledger import Entry as LedgerEntry

GAME = "garbage"
TURNUP = "turnup"
MISPLACED = "misplaced"
EXTRA_CARD = "extra-card"
HAND_DISTURBED = "hand-disturbed"
GARBAGE_VIOLATIONS = (MISPLACED, OUT_OF_TURN, EXTRA_CARD, HAND_DISTURBED)
_ACCOUNTS = {"pot": "the pot", "bingo": "the bingo coins", "kitty": "the kitty"}


def _seat_of_zone(zone: str | None) -> int | None:
    if zone and zone.startswith("seat:"):
        try:
            return int(zone.split(":", 1)[1])
        except ValueError:
            return None
    return None


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


class GarbageReferee(RefereeBookkeeping):
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
        self.choice: dict[str, Any] | None = None
        self.ledger_seen = 0
        self.hand_no = 0
        self.phase = ""
        self.waiting_load = False  # a new hand (or a reshuffled stock) waits for the machine to be loaded
        self.reshuffles_seen = 0
        self.resyncing = False
        self.resync_seen: set[int] = set()
        self._result: dict[str, Any] | None = None

    # -- protocol -----------------------------------------------------------------------------------

    def _tag_flag(self, action: Action) -> Action:
        return {**action, "hand": self.engine.deal}

    @property
    def over(self) -> bool:
        return self.engine.over

    def result(self) -> dict[str, Any] | None:
        return self._result

    def start(self) -> list[Action]:
        out: list[Action] = []
        self.hopper_left = len(self.engine.pack)
        self._announce_hand(out)
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle", "deal": 0}))
        self._next_request(out)
        return out

    def leds(self) -> dict[int, str]:
        if self.over and self._result:
            return winner_roles(self.players, self._result["seats"], "coins")
        roles = dict.fromkeys(range(self.players), "idle")
        step = self.engine.step
        if isinstance(step, AwaitMove):
            roles[step.seat] = "turn"
        elif isinstance(step, AwaitCard) and not self.over:
            roles[self.engine.dealer] = "turn"
        return self._attention(roles, self.choice, self.prompt)

    def view(self) -> dict[str, Any]:
        game = self.engine
        hands = [[str(c) for c in game.hand(s)] for s in range(self.players)]
        return {
            "game": GAME,
            "rules": self.rules.name,
            "hand": game.deal + 1 if not self.over else game.deals,
            "hands": game.deals,
            "phase": game.phase,
            "dealer": game.dealer,
            "awaiting": game.step.describe(),
            "seats": [{"seat": s, "cards": hands[s], "coins": game.balance(s)} for s in range(self.players)],
            "pots": {k: game.ledger.balance(k) for k in _ACCOUNTS},
            "turnup": [str(p.card) for p in self.placed.values() if p.zone == TURNUP],
            "choice": self._choice_text(),
            "flags": [f.to_action() | {"state": f.state} for f in self.flags.values() if f.state == "open"],
            "prompt": self.prompt,
            "messages": list(self.messages),
        }

    # -- helpers ------------------------------------------------------------------------------------

    # -- the engine's requests ----------------------------------------------------------------------

    def _announce_hand(self, out: list[Action]) -> None:
        game = self.engine
        self.hand_no = game.deal
        self.phase = game.phase
        packs = self.rules.packs_for(self.players)
        out.append(
            self._say(
                f"hand {game.deal + 1} of {game.deals}: seat {game.dealer} deals "
                f"({packs} pack{'s' if packs > 1 else ''}); poker first"
            )
        )

    def _next_request(self, out: list[Action]) -> None:
        """After the engine moved on: coins to say, phase results, and the next card or decision."""
        game = self.engine
        self._pay_out(out)
        if game.deal != self.hand_no or game.phase != self.phase or game.over:
            order = self.rules.phase_order
            first = order.index(self.phase) if self.phase in order else 0
            upto = order.index(game.phase) if game.deal == self.hand_no and game.phase in order else len(order)
            for phase in order[first:upto]:
                self._phase_results(out, phase)
        if game.over:
            self._finish(out)
            return
        if game.deal != self.hand_no:
            self._announce_hand(out)
            self.placed = {k: p for k, p in self.placed.items() if p.role in ("extra", "misplaced")}
            self.reshuffles_seen = 0
            if self.dealer_machine:
                self.waiting_load = True
                out.append(
                    {
                        "do": "prompt",
                        "seat": game.dealer,
                        "text": "gather every card into the dealer "
                        f"machine; seat {game.dealer} deals next: press to deal",
                    }
                )
                return
        elif game.phase != self.phase:
            self.phase = game.phase
            out.append(self._say(f"{game.phase}: {_phase_note(game.phase, game.dealer)}"))
        rnd = game.round
        if rnd is not None and rnd.reshuffles > self.reshuffles_seen:
            self.reshuffles_seen = rnd.reshuffles
            if self.dealer_machine:
                self.waiting_load = True
                out.append(
                    {
                        "do": "prompt",
                        "seat": game.dealer,
                        "text": "the stock is out: load the discards "
                        "(not the hands) into the dealer machine and press to go on",
                    }
                )
                return
            out.append(self._say("the stock is out: shuffle the discards (not the hands) into a new stock"))
        self._ask(out)

    def _ask(self, out: list[Action]) -> None:
        step = self.engine.step
        self.hint = None
        if isinstance(step, AwaitCard):
            self.choice = None
            if self.dealer_machine and not self.waiting_load:
                cmd = self._command(
                    {
                        "do": "deal",
                        "target": target_of(step),
                        "count": 1,
                        "face": "up",
                        "purpose": step.purpose,
                        "hand": self.engine.deal,
                    }
                )
                self.card_cmd = cmd["id"]
                out.append(cmd)
            return
        if isinstance(step, AwaitMove):
            options = [k for k in step.kinds if k != "discard"]
            if options:
                self.choice = {"seat": step.seat, "options": options, "index": 0}
                out.append(self._choice_prompt())
            else:
                self.choice = None
                out.append(
                    {
                        "do": "prompt",
                        "seat": step.seat,
                        "text": f"seat {step.seat}: take the card you give up out of your hand",
                    }
                )

    def _pay_out(self, out: list[Action]) -> None:
        entries = self.engine.ledger.entries[self.ledger_seen :]
        self.ledger_seen = len(self.engine.ledger.entries)
        for e in entries:
            out.append(
                {
                    "do": "pay",
                    "hand": e.deal,
                    "phase": e.phase,
                    "payer": e.payer,
                    "payee": e.payee,
                    "amount": e.amount,
                    "reason": e.reason,
                }
            )
        for line in instructions(entries, self.players, self.engine.dealer):
            out.append(self._say(line))

    def _phase_results(self, out: list[Action], phase: str) -> None:
        """Say what a finished phase decided (poker winner and ties, bingo winner...)."""
        results = self.engine.results[self.hand_no]
        for line in phase_lines(results, phase):
            out.append(self._say(line))
        out.append(
            {
                "do": "phase-over",
                "hand": self.hand_no,
                "phase": phase,
                "balances": [self.engine.balance(s) for s in range(self.players)],
            }
        )

    def _finish(self, out: list[Action]) -> None:
        self.choice = None
        self._result = game_result(self.engine)
        out.append({"do": "over", "result": self._result})
        out.append(
            self._say(
                "match over: " + ", ".join(f"seat {s} {self.engine.balance(s)} coins" for s in range(self.players))
            )
        )

    # -- choices ------------------------------------------------------------------------------------

    def _choice_text(self) -> str | None:
        c = self.choice
        if c is None:
            return None
        step = self.engine.step
        prompt = step.prompt if isinstance(step, AwaitMove) else ""
        return f"seat {c['seat']}: {c['options'][c['index']]}? ({prompt})"

    def _choice_prompt(self) -> Action:
        c = self.choice
        assert c is not None
        return {
            "do": "prompt",
            "seat": c["seat"],
            "choice": "move",
            "shown": c["options"][c["index"]],
            "text": f"{self._choice_text()} press to change among {', '.join(c['options'])}; hold or confirm to accept",
        }

    def _play(self, move: Move, out: list[Action], who: str, why: str) -> bool:
        try:
            self.engine.play(move)
        except IllegalMoveError as exc:
            out.append(self._say(str(exc)))
            return False
        self.choice = None
        out.append(
            {
                "do": "move",
                "hand": self.engine.deal if not self.over else self.hand_no,
                "move": _move_json(move),
                "text": str(move),
                "by": who,
                "why": why,
            }
        )
        self.messages.append(str(move))
        self._next_request(out)
        return True

    # -- people ---------------------------------------------------------------------------------------

    def _disputed(self, flag: Flag, out: list[Action]) -> None:
        self.missing.pop(flag.id, None)

    def _decide(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        if self.waiting_load and kind in ("short", "confirm"):
            self.waiting_load = False
            # a new hand's pack or the reshuffled discards: the loop's lost-answer check counts from here
            self.hopper_left = len(self.engine.stock_cards())
            self._record_override(out, who, "the dealer machine is loaded", why)
            out.append(self._command({"do": "shuffle", "deal": self.engine.deal}))
            self._ask(out)
            return
        step = self.engine.step
        if kind == "discard" and isinstance(step, AwaitMove) and "discard" in step.kinds:
            try:
                card = Card.parse(str(inp.card or inp.text))
            except ValueError:
                out.append(self._say(f"{inp.card or inp.text!r} is not a card"))
                return
            self._play(Move(step.seat if inp.seat is None else inp.seat, "discard", card), out, who, why)
            return
        c = self.choice
        if c is None:
            if kind in MOVE_KINDS or kind == "move":
                out.append(self._say(f"no decision is expected now: {step.describe()}"))
            elif kind == "undo":
                out.append(self._say(f"{who}: Garbage moves cannot be undone at the table; dispute a flag instead"))
            return
        if inp.seat is not None and inp.seat != c["seat"]:
            out.append(self._say(f"seat {inp.seat}: it is seat {c['seat']}'s decision"))
            return
        if kind in MOVE_KINDS or kind == "move":
            word = (inp.text if kind == "move" else kind).strip().lower()
            if word not in c["options"]:
                out.append(self._say(f"seat {c['seat']} cannot {word} now; the choices are {', '.join(c['options'])}"))
                return
            c["index"] = c["options"].index(word)
            out.append(self._choice_prompt())
        elif kind == "short":
            c["index"] = (c["index"] + 1) % len(c["options"])
            out.append(self._choice_prompt())
        elif kind in ("long", "confirm"):
            self._play(Move(c["seat"], c["options"][c["index"]]), out, who, why)
        elif kind == "reject":
            c["index"] = 0
            out.append(self._choice_prompt())

    # -- the table ------------------------------------------------------------------------------------

    def _table(self, inp: Input, out: list[Action]) -> None:
        kind, zone = inp.kind, inp.zone
        if kind == "moved":
            self._table(Input("table", "removed", inp.card, inp.zone, track=inp.track), out)
            kind, zone = "appeared", inp.to
        if kind == "turned":
            kind = "appeared"
        # "unknown": the camera could not agree on a face; its candidates still go to a question
        if not recognition.readable_face(inp.card, inp.candidates) or zone is None:
            return
        if kind == "removed":
            self._removed(inp, zone, out)
            return
        if kind != "appeared":
            return
        if self.resyncing:
            known = self._known_again(inp, zone)
            if known is not None:
                self.resync_seen.add(known)
                return
        if zone != TURNUP and _seat_of_zone(zone) is None:
            return
        before = set(self.placed)
        self._appeared(inp, zone, out)
        if self.resyncing:  # laid while the controller was down: new to it, but on the table now
            self.resync_seen |= set(self.placed) - before

    def _known_again(self, inp: Input, zone: str) -> int | None:
        # The reading first, the runner-up only if no known card has that face: a 4H re-seen must
        # not take the place of the 4D beside it (which would leave the 4H "taken out of the hand").
        # A sure reading of a card still in the stock is that card (a 5D turned while the controller
        # was down, runner-up 3D, must not take the known 3D's place).
        labels = recognition.reread_labels(inp.card, inp.candidates, {str(c) for c in self.engine.stock_cards()})
        for label in labels:
            for key, p in self.placed.items():
                if key not in self.resync_seen and p.zone == zone and str(p.card) == label:
                    if inp.track is not None and inp.track != key:
                        self.placed[inp.track] = self.placed.pop(key)
                        return inp.track
                    return key
        return None

    def _track(self, inp: Input) -> int:
        if inp.track is not None:
            return inp.track
        self._untracked -= 1
        return self._untracked

    def _identify(self, inp: Input, zone: str, out: list[Action], *, supply: bool) -> Card | None:
        if inp.data.get("confirmed"):
            return Card.parse(str(inp.card))
        candidates = inp.candidates or ((str(inp.card), 0.99),)
        if supply:
            possible = {str(c) for c in set(self.engine.stock_cards())}
        else:
            possible = set(recognition.FACES)
        hint = None if self.hint is None or not supply else str(self.hint)
        reading = recognition.read_card(candidates, possible, hint=hint)
        if reading.card is not None and reading.sure:
            return Card.parse(reading.card)
        ranked = recognition.ask_order(reading.ranked, candidates)
        if not ranked:
            out.append(self._say(f"a card appeared in {zone} that cannot be there ({inp.card}); check the table"))
            return None
        self._ask_about(self.engine.dealer, ranked, inp, out)
        return None

    def _appeared(self, inp: Input, zone: str, out: list[Action]) -> None:
        step = self.engine.step
        seat = _seat_of_zone(zone)
        key = self._track(inp)
        if key in self.placed:
            return  # seen twice
        # a card taken out of a live hand, put back
        for fid, (mseat, mcard) in list(self.missing.items()):
            if seat == mseat and str(mcard) in {str(inp.card), *(c for c, _ in inp.candidates[:1])}:
                del self.missing[fid]
                self.placed[key] = Placed(mcard, zone, "hand")
                self._clear(out, fid)
                return
        awaited = isinstance(step, AwaitCard) and not self.waiting_load and zone == target_of(step)
        card = self._identify(inp, zone, out, supply=awaited)
        if card is None:
            return
        if (
            isinstance(step, AwaitCard)
            and not self.waiting_load
            and (
                zone == target_of(step)
                or (
                    # a machine's card moved by someone (the reader named it); by hand, a dealer's slip
                    not self.dealer_machine or card is self.hint
                )
            )
        ):
            if zone == target_of(step):
                self._supply(key, card, zone, out)
                return
            dealer = self.engine.dealer
            if step.purpose in ("deal", "buy"):
                where = "the turn-up row" if zone == TURNUP else f"seat {seat}'s place"
                message = (
                    f"{card} was dealt to {where}; it is seat {step.seat}'s card ({step.describe()}): move it there"
                )
            else:
                message = (
                    f"{card} was turned into seat {seat}'s hand; turned cards go to the turn-up row "
                    f"({step.describe()}): move it there"
                )
            fid = self._flag(out, dealer, MISPLACED, [card], message)
            self.placed[key] = Placed(card, zone, "misplaced", fid)
            return
        if zone == TURNUP:
            when = (
                f"while seat {step.seat} is to decide"
                if isinstance(step, AwaitMove)
                else f"when the table awaits: {step.describe()}"
            )
            fid = self._flag(out, self.engine.dealer, OUT_OF_TURN, [card], f"{card} was turned {when}; put it back")
            self.placed[key] = Placed(card, zone, "extra", fid)
            return
        assert seat is not None
        fid = self._flag(
            out,
            seat,
            EXTRA_CARD,
            [card],
            f"{card} appeared in seat {seat}'s hand but was not dealt to it; take it away",
        )
        self.placed[key] = Placed(card, zone, "extra", fid)

    def _supply(self, key: int, card: Card, zone: str, out: list[Action]) -> None:
        game = self.engine
        try:
            game.verify_card(card)
        except (CardConflictError, IllegalMoveError) as exc:
            out.append(self._say(f"cannot be: {exc}; check the card"))
            return
        step = game.step
        assert isinstance(step, AwaitCard)
        hand = game.deal
        if self.card_cmd is not None and self.card_cmd in self.commands:
            # seen before the machine's answer (or the answer was lost in a restart): it is done
            del self.commands[self.card_cmd]
            self.hopper_left -= 1
        self.card_cmd = None
        game.supply(card)
        self.placed[key] = Placed(card, zone, "hand" if step.purpose in ("deal", "buy") else "turnup")
        out.append(
            {
                "do": "supply",
                "hand": hand,
                "card": str(card),
                "purpose": step.purpose,
                "seat": step.seat,
                "number": step.number,
            }
        )
        self.messages.append(f"{step.describe()}: {card}")
        self._next_request(out)

    def _removed(self, inp: Input, zone: str, out: list[Action]) -> None:
        key = inp.track
        placed = self.placed.pop(key, None) if key is not None else None
        if placed is None:
            for k, p in self.placed.items():  # no track: the first card of that face in the zone
                if p.zone == zone and str(p.card) == inp.card:
                    placed = self.placed.pop(k)
                    break
        if placed is None:
            return
        if placed.role in ("extra", "misplaced"):
            self._clear(out, placed.flag)
            return
        seat = _seat_of_zone(zone)
        if placed.role != "hand" or seat is None:
            return
        step = self.engine.step
        if isinstance(step, AwaitMove) and step.seat == seat and "discard" in step.kinds:
            if self._play(Move(seat, "discard", placed.card), out, f"seat {seat}", "taken out of the hand"):
                return
        live = self.engine.hand(seat)
        if placed.card in live and self.engine.deal == self.hand_no:
            fid = self._flag(
                out,
                seat,
                HAND_DISTURBED,
                [placed.card],
                f"seat {seat} took {placed.card} out of its hand while the hand is still in play "
                f"({self.engine.phase}); put it back",
            )
            self.missing[fid] = (seat, placed.card)

    # -- the dealer machine ---------------------------------------------------------------------------

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if cmd is None:
            return
        del self.commands[cmd["id"]]
        if inp.kind == "dealt":
            self.hopper_left -= 1
            if inp.card and cmd["id"] == self.card_cmd:
                try:
                    self.hint = Card.parse(inp.card)
                except ValueError:
                    self.hint = None
        elif inp.kind == "failed":
            retry = self._retry(cmd)
            if cmd["id"] == self.card_cmd:
                self.card_cmd = retry["id"]
            out.append(
                self._say(
                    f"dealer: {cmd['do']} to {cmd.get('target', '')} failed "
                    f"({inp.data.get('reason', 'failed')}); trying again"
                )
            )
            out.append(retry)

    # -- restart --------------------------------------------------------------------------------------

    def _control(self, inp: Input, out: list[Action]) -> None:
        if inp.kind == "resync_begin":
            self.resyncing = True
            self.resync_seen = set()
            # A restarted camera numbers its tracks from 1 again: the known cards move to keys no
            # track can have, or re-keying a re-seen card would overwrite another not yet re-seen.
            rekeyed: dict[int, Placed] = {}
            for p in self.placed.values():
                self._untracked -= 1
                rekeyed[self._untracked] = p
            self.placed = rekeyed
        elif inp.kind == "resync_end":
            self.resyncing = False
            for key in [k for k in self.placed if k not in self.resync_seen]:
                p = self.placed[key]
                self._removed(Input("table", "removed", str(p.card), p.zone, track=key), p.zone, out)


# -- plain instructions ---------------------------------------------------------------------------------


def _who(account: str, dealer: int) -> str:
    if account in _ACCOUNTS:
        return _ACCOUNTS[account]
    seat = account.replace(":", " ")
    return f"the dealer, {seat}," if account == f"seat:{dealer}" else seat


def _coins(n: int) -> str:
    return f"{n} coin{'s' if n != 1 else ''}"


def instructions(entries: Sequence[LedgerEntry], players: int, dealer: int) -> list[str]:
    """The coin movements as the table says them: ``seat 4 pays the pot 6 coins``; payments of one
    amount for one reason to one payee grouped: ``the dealer, seat 2, collects 7 coins from each
    player``; ``seat 1 and seat 3 each pay the pot 2 coins``."""
    lines: list[str] = []
    i = 0
    while i < len(entries):
        e = entries[i]
        j = i + 1
        while (
            j < len(entries)
            and (entries[j].payee, entries[j].amount, entries[j].reason) == (e.payee, e.amount, e.reason)
            and entries[j].payer.startswith("seat:")
        ):
            j += 1
        batch = entries[i:j]
        why = f" ({e.reason})" if e.reason else ""
        if len(batch) > 1 and e.payer.startswith("seat:"):
            payers = [b.payer for b in batch]
            if e.payee == f"seat:{dealer}" and len(batch) == players - 1:
                lines.append(f"the dealer, seat {dealer}, collects {_coins(e.amount)} from each player{why}")
            elif len(batch) == players and e.payee in _ACCOUNTS:
                lines.append(f"every player pays {_ACCOUNTS[e.payee]} {_coins(e.amount)}{why}")
            else:
                who = ", ".join(p.replace(":", " ") for p in payers[:-1]) + " and " + payers[-1].replace(":", " ")
                lines.append(f"{who} each pay {_who(e.payee, dealer).rstrip(',')} {_coins(e.amount)}{why}")
        else:
            payee = _who(e.payee, dealer).rstrip(",")
            if e.payer in _ACCOUNTS:
                lines.append(f"{payee} takes {_coins(e.amount)} from {_ACCOUNTS[e.payer]}{why}")
            else:
                lines.append(f"{_who(e.payer, dealer)} pays {payee} {_coins(e.amount)}{why}".replace(",, ", ", "))
        i = j
    return lines


def _phase_note(phase: str, dealer: int) -> str:
    return {
        "poker": "antes in, five cards face up to each player",
        "bingo": f"seat {dealer} turns cards; a coin on each card of the rank called",
        "put-and-take": f"seat {dealer}'s hand is set aside; on the k-th card each match puts k, then takes k",
        "count-up": f"hands to the discards; seat {dealer} counts ace to king; a hit pays the dealer its rank",
    }.get(phase, phase)


def phase_lines(results: HandResults, phase: str) -> list[str]:
    """What a finished phase decided, for the table."""
    lines: list[str] = []
    if phase == "poker" and results.poker is not None:
        p = results.poker
        for seat in p.seats:
            if seat in p.values:
                lines.append(f"poker: seat {seat} shows {describe(p.values[seat])}")
        if len(p.winners) == 1:
            lines.append(f"poker: seat {p.winners[0]} wins the pot of {_coins(p.pot)}")
        elif p.winners:
            shares = ", ".join(f"seat {s} {p.shares.get(s, 0)}" for s in p.winners)
            lines.append(
                f"poker: tie between seats {', '.join(map(str, p.winners))}: they share the pot of "
                f"{_coins(p.pot)} ({shares})"
            )
    elif phase == "bingo" and results.bingo is not None:
        b = results.bingo
        if b.abandoned:
            lines.append("bingo: nobody can cover every card (all copies of a rank are in hands): not played")
        elif b.winners:
            who = " and ".join(f"seat {s}" for s in b.winners)
            lines.append(
                f"bingo after {len(b.calls)} calls: {who} {'wins' if len(b.winners) == 1 else 'share'} {_coins(b.pot)}"
            )
        elif b.to_kitty:
            lines.append(f"bingo tied: {_coins(b.to_kitty)} go to the kitty")
    elif phase == "put-and-take" and results.put_and_take is not None:
        pt = results.put_and_take
        lines.append(
            f"put and take over: the dealer collected {_coins(pt.dealer_collected)} and paid "
            f"{_coins(pt.dealer_paid)} for a dry pot"
        )
    elif phase == "count-up" and results.count_up is not None:
        cu = results.count_up
        hits = [t.number for t in cu.turns if t.hit]
        lines.append(
            f"count-up: hits on {', '.join(map(str, hits)) if hits else 'nothing'}; the dealer "
            f"{'wins' if cu.dealer_net >= 0 else 'loses'} {_coins(abs(cu.dealer_net))}"
        )
    return lines


# -- records, factory ---------------------------------------------------------------------------------


def _move_json(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": move.seat, "move": move.kind}
    if move.card is not None:
        out["card"] = str(move.card)
    return out


def rules_for(rules: str, options: dict[str, Any] | None) -> GarbageRules:
    return rules_from_json({"base": rules, **(options or {})})


def make_referee(
    *,
    rules: str,
    players: int,
    dealer: int = 0,
    options: dict[str, Any] | None = None,
    card_reader: bool = False,
    dealer_machine: bool = True,
) -> GarbageReferee:
    ruleset = rules_for(rules, options)
    try:
        ruleset.validate(players)
    except ConfigError:
        raise
    return GarbageReferee(
        ruleset, players=players, dealer=dealer, card_reader=card_reader, dealer_machine=dealer_machine
    )


def export_record(game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]:
    """The Garbage record of a journalled match: each hand's cards in the order the table saw them
    (``cards``) and every decision (``moves``); ``cardtable replay`` reproduces the coins."""
    hands: dict[int, list[str]] = {}
    moves: list[dict[str, Any]] = []
    for entry in entries:
        if entry.kind != "verdict":
            continue
        for action in entry.body.get("actions", []):
            if action.get("do") == "supply":
                hands.setdefault(int(action["hand"]), []).append(str(action["card"]))
            elif action.get("do") == "move":
                moves.append(action["move"])
    if not hands:
        raise RecordError("deals", f"game {game.id} has no card dealt yet; nothing to export")
    record: dict[str, Any] = {
        "game": GAME,
        "players": game.players,
        "rules": {"base": game.rules, **game.options},
        "first_dealer": game.dealer,
        "deals": [{"cards": hands[k]} for k in sorted(hands)],
        "moves": moves,
    }
    if game.status != "finished":
        record["note"] = "unfinished: the last hand stops where the table stopped"
    return record
