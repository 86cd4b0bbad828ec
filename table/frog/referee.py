"""The Frog referee: deal the packets, take the bids, watch the tricks, settle in chips.

A table game of Frog is a session of deals (``options["deals"]``, default one per player, or until a
Solo/Slough player cannot pay) with one chip ledger (:class:`table.frog.match.FrogMatch`) running
through it; every payment is journalled as a ``pay`` action.

One deal at the table:

1. **Deal.** With a dealer machine the referee shuffles and sends the packet plan of the rule set
   (:func:`table.frog.deal.deal_plan`: 3-(3)-4-4, 4-(3)-3-4, or singly with the 1st, 4th and 8th card
   to the slough), one card per command, to the active seats only (sitting-out seats get nothing).
   A card-reading machine tells each card, so every hand is known. Without a machine the dealer deals
   by hand; the camera counts the face-down cards reaching each seat and the widow, and a press says
   the deal is done (a wrong count is flagged before play).
2. **Auction, trump.** The seat to speak chooses at its button (a short press shows the next call,
   a long press accepts the one shown) or at the terminal (``Input("terminal", "bid", seat=s,
   text="frog")``, then ``confirm``). Trump for a Chico likewise (``kind="trump"``, ``text="S"``).
3. **Widow and discards (Frog).** Where the rules expose the widow, its three cards are turned face
   up in the widow zone and read; the bidder takes them up and lays three cards face down in the
   widow zone. With known hands the discards are named at the terminal (``kind="discard"``,
   ``data={"cards": [...]}``); a wrong number of face-down cards is flagged (``discard-count``).
4. **Tricks.** A card appearing in the trick area is the play of the seat whose turn it is (or of the
   seat its zone or the card reader names: ``out-of-turn``). With known hands a failure to follow
   or to trump is flagged at once (``revoke``) and the card must be taken back; with hidden hands
   the play is accepted if it could be legal and a revoke is flagged as soon as a later play proves
   it (the rule set's revoke penalty then applies at settlement). The completed trick's winner is
   lit (LED ``winner``) until its three cards are gathered; a card taken off an unfinished trick is
   flagged (``trick-disturbed``) until it is put back.
5. **Settlement** in chips with the rule set's rates and non-active payments, said as plain
   instructions ("seat 2 pays seat 0 20 chips").

Like every referee it is a pure function of its inputs (:mod:`table.controller.referee`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from table.cards import Card, Suit, format_cards
from table.controller import recognition
from table.controller.referee import DEAL_COUNT, OUT_OF_TURN, Action, Flag, Input
from table.controller.referee_base import RefereeBookkeeping, seat_of_zone
from table.errors import CardConflictError, ConfigError, IllegalMoveError, RecordError
from table.frog.deal import HAND_SIZE, WIDOW, WIDOW_SIZE, active_seats, deal_plan
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK, POINTS
from table.frog.rules import CONTRACT_WORDS, Contract, DealStyle, RuleSet, rule_set
from table.frog.state import CHICO_TRUMPS, FrogDeal, Phase, Trick
from table.journal import Entry, GameRow

GAME = "frog"
TRICK = "trick"
REVOKE = "revoke"
DISCARD_COUNT = "discard-count"
TRICK_DISTURBED = "trick-disturbed"
FROG_VIOLATIONS = (OUT_OF_TURN, REVOKE, DISCARD_COUNT, TRICK_DISTURBED, DEAL_COUNT)
TABLE_OPTIONS = ("deals",)  # options of the table session, not of the rule set
_FACES = frozenset(str(c) for c in FROG_PACK)
_SUIT_BY_CHAR = {s.char: s for s in Suit} | {s.name.lower(): s for s in Suit}


class FrogReferee(RefereeBookkeeping):
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
        self.stage = "deal"
        self.deal: FrogDeal | None = None
        self.deal_no = 1
        self.points = [0] * players
        self.deal_results: list[dict[str, Any]] = []
        self.hopper_left = 0
        self.choice: dict[str, Any] | None = None  # a bid or trump being chosen: seat, kind, options, index
        self.resyncing = False
        self.resync_seen: set[Card] = set()
        # face-down cards in the widow zone, as the referee saw them come and go; after a restart the
        # re-read's count tells what happened while the controller was down
        self.widow_backs = 0
        self.resync_backs = 0
        self._result: dict[str, Any] | None = None
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

    # -- protocol -------------------------------------------------------------------------------

    def _may_release_held(self) -> bool:
        return self.stage in ("play", "gather")

    def _flag_tag(self) -> dict[str, Any]:
        return {"deal": self.deal_no}

    @property
    def over(self) -> bool:
        return self.stage == "over"

    def result(self) -> dict[str, Any] | None:
        return self._result

    def start(self) -> list[Action]:
        out: list[Action] = []
        self._begin_deal(out)
        return out

    def pending_commands(self) -> list[Action]:
        return list(self.commands.values())

    def leds(self) -> dict[int, str]:
        roles = dict.fromkeys(range(self.players), "idle")
        if self.over and self._result:
            best = max(s["chips"] for s in self._result["seats"])
            for s in self._result["seats"]:
                if s["chips"] == best:
                    roles[s["seat"]] = "winner"
            return roles
        deal = self.deal
        if deal is not None and self.stage == "gather" and self.gather_winner is not None:
            roles[self.gather_winner] = "winner"
        elif deal is not None and deal.to_act is not None and self.stage not in ("deal", "next"):
            roles[deal.to_act] = "turn"
        if self.choice is not None:
            roles[self.choice["seat"]] = "confirm"
        if self.prompt is not None:
            roles[self.prompt["seat"]] = "confirm"
        for flag in self.flags.values():
            if flag.state == "open":
                roles[flag.seat] = "error"
        return roles

    def view(self) -> dict[str, Any]:
        deal = self.deal
        trick_points = deal.points() if deal is not None else {}
        seats = []
        for s in range(self.players):
            seats.append(
                {
                    "seat": s,
                    "active": s
                    in (deal.active if deal is not None else active_seats(self.rules, self.players, self.match.dealer)),
                    "hand": None if deal is None or deal.hand(s) is None else [str(c) for c in deal.hand(s) or ()],
                    "tricks": sum(1 for t in deal.tricks if t.winner == s) if deal else 0,
                    "points": trick_points.get(s, 0),
                    "chips": self.match.balance(s),
                }
            )
        return {
            "game": GAME,
            "rules": self.rules.name,
            "stage": self.stage,
            "deal": self.deal_no,
            "deals": self.deals_to_play,
            "dealer": self.match.dealer if deal is None else deal.dealer,
            "to_act": deal.to_act if deal is not None and not self.over else None,
            "contract": None if deal is None or deal.contract is None else self.rules.name_of(deal.contract),
            "bidder": None if deal is None else deal.bidder,
            "trump": None if deal is None or deal.trump is None else deal.trump.char,
            "trick": [str(c) for c in self.trick_now],
            "widow": None
            if deal is None or deal.widow is None or not (deal.widow_shown or deal.known)
            else [str(c) for c in deal.widow],
            "seats": seats,
            "choice": self._choice_text(),
            "flags": [f.to_action() | {"state": f.state} for f in self.flags.values() if f.state == "open"],
            "prompt": self.prompt,
            "messages": list(self.messages),
        }

    # -- helpers ----------------------------------------------------------------------------------

    def _name(self, contract: Contract | None) -> str:
        return "pass" if contract is None else self.rules.name_of(contract)

    # -- dealing ----------------------------------------------------------------------------------

    def _begin_deal(self, out: list[Action]) -> None:
        self._reset_deal()
        self.stage = "deal"
        dealer = self.match.dealer
        plan = deal_plan(self.rules, self.players, dealer)
        style = self.rules.deal_style.value
        out_seats = [s for s in range(self.players) if not any(st.seat == s for st in plan)]
        sitting = (
            f"; seat{'s' if len(out_seats) > 1 else ''} {', '.join(map(str, out_seats))} "
            f"sit{'' if len(out_seats) > 1 else 's'} out"
            if out_seats
            else ""
        )
        if self.dealer_machine:
            out.append(self._command({"do": "shuffle", "deal": self.deal_no}))
            slough = self.rules.deal_style is DealStyle.SINGLE_1_4_8
            for step in plan:
                target = ("slough" if slough else WIDOW) if step.seat is None else step.target
                for _ in range(step.count):
                    out.append(
                        self._command(
                            {
                                "do": "deal",
                                "target": target,
                                "count": 1,
                                "face": "down",
                                "purpose": "widow" if step.seat is None else "hand",
                                "seat": step.seat,
                                "deal": self.deal_no,
                            }
                        )
                    )
            self.hopper_left = sum(step.count for step in plan)
            out.append(self._say(f"deal {self.deal_no}: dealer machine deals for seat {dealer} ({style}){sitting}"))
        else:
            out.append(
                self._say(
                    f"deal {self.deal_no}: seat {dealer} deals {style}: {HAND_SIZE} cards to each "
                    f"active seat and {WIDOW_SIZE} to the widow{sitting}; press to confirm when done"
                )
            )

    def _infer_unread(self) -> None:
        """Cards dealt while the controller was down were not read (their answer was lost). The
        pack tells which cards they were; where they went is certain when they all went to one place."""
        if not self.unread:
            return
        seen = {c for h in self.dealt.values() for c in h} | set(self.widow_dealt)
        rest = [c for c in FROG_PACK if c not in seen]
        if len(rest) != len(self.unread) or len(set(self.unread)) != 1:
            return
        where = self.unread[0]
        if where is None:
            self.widow_dealt.extend(rest)
        else:
            self.dealt.setdefault(where, []).extend(rest)
        self.unread = []

    def _deal_started(self, out: list[Action], *, confirmed: bool = False) -> None:
        if self.stage != "deal":
            return
        dealer = self.match.dealer
        plan = deal_plan(self.rules, self.players, dealer)
        active = {st.seat for st in plan if st.seat is not None}
        if self.dealer_machine:
            if self.deal_done < sum(st.count for st in plan):
                return
        elif not confirmed:
            return
        else:
            wrong = []
            for seat in range(self.players):
                n = self.backs.get(f"seat:{seat}", 0)
                if seat in active and n and n != HAND_SIZE:
                    wrong.append(f"seat {seat} was dealt {n} cards, not {HAND_SIZE}")
                elif seat not in active and n:
                    wrong.append(f"seat {seat} sits out this deal but was dealt {n} cards")
            widow = self.backs.get(WIDOW, 0)
            if widow and widow != WIDOW_SIZE:
                wrong.append(f"the widow has {widow} cards, not {WIDOW_SIZE}")
            if wrong:
                if not any(f.rule == DEAL_COUNT and f.state == "open" for f in self.flags.values()):
                    self._flag(
                        out,
                        dealer,
                        DEAL_COUNT,
                        [],
                        "deal: " + "; ".join(wrong) + "; deal again or fix it, then press to confirm",
                    )
                self.backs.clear()
                return
        for f in self.flags.values():
            if f.rule == DEAL_COUNT:
                self._clear(out, f.id)
        self._infer_unread()
        known = (
            self.card_reader
            and len(self.widow_dealt) == WIDOW_SIZE
            and all(len(self.dealt.get(s, ())) == HAND_SIZE for s in active)
        )
        try:
            self.deal = self.match.new_deal(
                hands=self.dealt if known else None, widow=self.widow_dealt if known else None
            )
        except (ConfigError, CardConflictError, IllegalMoveError) as exc:
            out.append(self._say(f"the deal cannot be right: {exc}; deal again"))
            self._begin_deal(out)
            return
        deal = self.deal
        out.append(
            {
                "do": "deal-seen",
                "deal": self.deal_no,
                "dealer": deal.dealer,
                "active": list(deal.active),
                "hands": {str(s): [str(c) for c in deal.hand(s) or ()] for s in deal.active} if known else None,
                "widow": [str(c) for c in self.widow_dealt] if known else None,
            }
        )
        self.stage = "auction"
        out.append(
            self._say(
                f"deal {self.deal_no}: seats {', '.join(map(str, deal.active))} play; "
                f"seat {deal.active[0]} speaks first"
            )
        )
        self._ask_choice(out)

    # -- choices: bids and trump ------------------------------------------------------------------

    def _ask_choice(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        seat = deal.to_act
        assert seat is not None
        if deal.phase is Phase.AUCTION:
            options = ["pass" if c is None else c.word for c in deal.legal_bids(seat)]
            self.choice = {"seat": seat, "kind": "bid", "options": options, "index": 0}
        else:
            self.choice = {"seat": seat, "kind": "trump", "options": [s.char for s in CHICO_TRUMPS], "index": 0}
        out.append(self._choice_prompt())

    def _choice_label(self, kind: str, option: str) -> str:
        if kind == "bid":
            return "pass" if option == "pass" else self.rules.name_of(CONTRACT_WORDS[option])
        return _SUIT_BY_CHAR[option].name.lower()

    def _choice_text(self) -> str | None:
        c = self.choice
        if c is None:
            return None
        shown = self._choice_label(c["kind"], c["options"][c["index"]])
        return f"seat {c['seat']} {'bids' if c['kind'] == 'bid' else 'names trumps'}: {shown}?"

    def _choice_prompt(self) -> Action:
        c = self.choice
        assert c is not None
        labels = ", ".join(self._choice_label(c["kind"], o) for o in c["options"])
        text = f"{self._choice_text()} (press to change among {labels}; hold or confirm to accept)"
        return {"do": "prompt", "seat": c["seat"], "choice": c["kind"], "shown": c["options"][c["index"]], "text": text}

    def _accept_choice(self, out: list[Action], who: str, why: str) -> None:
        c = self.choice
        deal = self.deal
        assert c is not None and deal is not None
        seat, option = c["seat"], c["options"][c["index"]]
        try:
            if c["kind"] == "bid":
                contract = None if option == "pass" else CONTRACT_WORDS[option]
                deal.bid(seat, contract)
            else:
                deal.name_trump(seat, _SUIT_BY_CHAR[option])
        except IllegalMoveError as exc:
            out.append(self._say(str(exc)))
            return
        self.choice = None
        move = deal.history[-1]
        text = (
            f"seat {seat} {'passes' if option == 'pass' else 'bids ' + self._choice_label('bid', option)}"
            if c["kind"] == "bid"
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
                self.stage = "widow"
                out.append(
                    self._say(
                        f"seat {deal.bidder} plays {name}: turn the widow face up, then take it "
                        f"and lay {WIDOW_SIZE} cards face down in the widow's place"
                    )
                )
            else:
                self.stage = "take"
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
        self.stage = "play"
        out.append(
            self._say(
                f"{self.rules.name_of(deal.contract)} by seat {deal.bidder}, "
                f"{deal.trump.name.lower()} trumps; seat {deal.to_act} leads"
            )
        )
        self._release_held(out)

    # -- people -----------------------------------------------------------------------------------

    def _disputed(self, flag: Flag, out: list[Action]) -> None:
        if flag.id == self.discard_flag:
            self._try_discard(out, force=True)

    def _decide(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        c = self.choice
        if c is not None and kind in ("bid", "trump", "short", "long", "confirm", "reject"):
            self._choose(kind, inp, who, why, out)
            return
        if kind == "discard":
            self._discard_input(inp, out)
            return
        if kind in ("short", "confirm"):
            if self.stage == "deal" and not self.dealer_machine:
                self._record_override(out, who, "confirm the deal", why)
                self._deal_started(out, confirmed=True)
            elif self.stage == "next":
                self._record_override(out, who, "deal the next hand", why)
                self.deal_no += 1
                self._begin_deal(out)
            return
        if kind in ("undo", "long"):
            out.append(self._say(f"{who}: a Frog play cannot be undone at the table; dispute a flag instead"))
            return
        if kind == "correct":
            out.append(self._say("nothing to correct: no card is waiting for confirmation"))

    def _choose(self, kind: str, inp: Input, who: str, why: str, out: list[Action]) -> None:
        c = self.choice
        assert c is not None
        if inp.seat is not None and inp.seat != c["seat"]:
            out.append(
                self._say(
                    f"seat {inp.seat}: it is seat {c['seat']}'s turn to "
                    f"{'bid' if c['kind'] == 'bid' else 'name trumps'}"
                )
            )
            return
        if kind in ("bid", "trump"):
            word = inp.text.strip().lower()
            if kind != c["kind"]:
                out.append(
                    self._say(f"seat {c['seat']} is to {'bid' if c['kind'] == 'bid' else 'name trumps'}, not to {kind}")
                )
                return
            option = word
            if kind == "bid":
                contract = CONTRACT_WORDS.get(word)
                option = "pass" if word == "pass" else (contract.word if contract else word)
            else:
                suit = _SUIT_BY_CHAR.get(word.upper() if len(word) == 1 else word)
                option = suit.char if suit else word
            if option not in c["options"]:
                labels = ", ".join(self._choice_label(c["kind"], o) for o in c["options"])
                out.append(self._say(f"seat {c['seat']} cannot {kind} {inp.text!r} now; the choices are {labels}"))
                return
            c["index"] = c["options"].index(option)
            out.append(self._choice_prompt())
            return
        if kind == "short":
            c["index"] = (c["index"] + 1) % len(c["options"])
            out.append(self._choice_prompt())
            return
        if kind in ("long", "confirm"):
            self._accept_choice(out, who, why)
            return
        # reject: back to the first choice
        c["index"] = 0
        out.append(self._choice_prompt())

    # -- the table ---------------------------------------------------------------------------------

    def _table(self, inp: Input, out: list[Action]) -> None:
        kind, zone = inp.kind, inp.zone
        hint_seat = inp.seat
        if kind == "moved":  # zone: where it came from; to: where it is now
            came, zone = zone, inp.to
            if zone in (TRICK, WIDOW):
                kind = "appeared"
                hint_seat = hint_seat if hint_seat is not None else seat_of_zone(came)
            elif came in (TRICK, WIDOW):
                kind, zone = "removed", came
            else:
                return
        if kind == "turned":
            kind = "appeared"
        face = recognition.readable_face(inp.card, inp.candidates)  # an unknown is asked about, not a back
        if self.resyncing and kind == "appeared":
            known = self._known_again(inp, zone or TRICK)
            if not face and zone == WIDOW:
                self.resync_backs += 1
            if known is not None or not face:
                if known is not None:
                    self.resync_seen.add(known)
                    if inp.track is not None:
                        self.tracks[inp.track] = known
                return
        known_track = kind == "removed" and inp.track is not None and inp.track in self.tracks
        if not face and not known_track:  # a face card gathered face down keeps its track
            self._back(kind, zone, out)
            return
        if zone not in (TRICK, WIDOW):
            return
        if kind == "appeared":
            if zone == WIDOW and self.stage != "widow":
                return  # a face in the widow zone out of the showing: nothing the game needs
            card = self._identify(inp, zone, out)
            if card is None:
                return
            if card in self.on_mat:
                return  # seen twice: the tracker re-found a card
            self.on_mat[card] = zone
            if self.resyncing:  # laid while the controller was down: new to it, but on the table now
                self.resync_seen.add(card)
            if inp.track is not None:
                self.tracks[inp.track] = card
            if zone == WIDOW:
                self._widow_face(card, out)
            else:
                self._played(card, hint_seat, inp, out)
        elif kind == "removed":
            card = self.tracks.pop(inp.track, None) if inp.track is not None else None
            if card is None:
                try:
                    card = Card.parse(str(inp.card))
                except ValueError:
                    return
            if self.on_mat.pop(card, None) is None:
                return
            self._removed(card, zone, inp, out)

    def _back(self, kind: str, zone: str | None, out: list[Action]) -> None:
        """A face-down card: a hand dealt, the widow taken up, discards laid down."""
        if self.resyncing:
            return
        if zone == WIDOW:
            self.widow_backs = max(0, self.widow_backs + (1 if kind == "appeared" else -1))
        if self.stage == "deal" and kind == "appeared" and zone is not None:
            self.backs[zone] += 1
            return
        if zone != WIDOW:
            return
        if self.stage == "take" and kind == "removed":
            self.widow_taken += 1
            if self.widow_taken >= WIDOW_SIZE:
                self.stage = "discard"
            return
        if self.stage in ("take", "discard") and kind == "appeared":
            self.stage = "discard"
            self.discard_backs += 1
            self._try_discard(out)
        elif self.stage == "discard" and kind == "removed":
            self.discard_backs = max(0, self.discard_backs - 1)
            self._try_discard(out)
        elif self.stage in ("play", "gather") and kind in ("appeared", "removed"):
            self._late_discard(kind, out)

    def _known_again(self, inp: Input, zone: str) -> Card | None:
        labels = recognition.reread_labels(inp.card, inp.candidates, self._possible(zone))
        for label in labels:
            try:
                card = Card.parse(str(label))
            except ValueError:
                continue
            if card in self.on_mat and card not in self.resync_seen:
                return card
        return None

    def _possible(self, zone: str) -> set[str]:
        deal = self.deal
        gone = set(self.on_mat)
        if deal is not None:
            gone |= {c for t in deal.tricks for c in t.cards} | {c for _, c in deal.current_trick}
        gone -= set(self.missing)  # a card taken off the trick may come back
        if zone == WIDOW and deal is not None and deal.known and deal.widow is not None:
            return {str(c) for c in deal.widow if c not in gone}
        if deal is not None and deal.known and zone == TRICK:
            held = {c for s in deal.active for c in deal.hand(s) or ()} | set(self.missing)
            return {str(c) for c in held if c not in gone}
        if deal is not None and zone == TRICK:
            gone |= set(deal.discards or ())
        return {f for f in _FACES if Card.parse(f) not in gone}

    def _identify(self, inp: Input, zone: str, out: list[Action]) -> Card | None:
        if inp.data.get("confirmed"):
            return Card.parse(str(inp.card))
        candidates = inp.candidates or ((str(inp.card), 0.99),)
        reading = recognition.read_card(candidates, self._possible(zone))
        if reading.card is not None and reading.sure:
            return Card.parse(reading.card)
        deal = self.deal
        seat = deal.to_act if deal is not None and deal.to_act is not None else self.match.dealer
        ranked = recognition.ask_order(reading.ranked, candidates, _FACES)
        if not ranked:
            out.append(self._say(f"a card appeared in the {zone} that cannot be there ({inp.card}); check the table"))
            return None
        self._ask_about(seat, ranked, inp, out)
        return None

    # -- widow and discards -------------------------------------------------------------------------

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
        self.stage = "take"
        self.widow_taken = 0

    def _discard_input(self, inp: Input, out: list[Action]) -> None:
        deal = self.deal
        if deal is None or deal.phase is not Phase.DISCARD or self.stage not in ("widow", "take", "discard"):
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
        if self.stage == "widow":
            self.stage = "take"
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

    # -- tricks ---------------------------------------------------------------------------------------

    def _played(self, card: Card, hint_seat: int | None, inp: Input, out: list[Action]) -> None:
        deal = self.deal
        if card in self.missing:  # a card taken off the trick, put back
            self._clear(out, self.missing.pop(card))
            self.trick_now_restore(card)
            return
        if deal is None or self.stage in ("deal", "next", "auction", "trump"):
            seat = hint_seat if hint_seat is not None else (deal.to_act if deal is not None else self.match.dealer)
            self.extras[card] = self._flag(
                out,
                seat if seat is not None else 0,
                OUT_OF_TURN,
                [card],
                f"{card} was played before the play began; take it back",
            )
            return
        if self.stage in ("widow", "take", "discard"):
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
        if self.stage == "gather":
            self.stage = "play"  # the next lead came before the last trick was gathered
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
        self.stage = "gather"

    def _removed(self, card: Card, zone: str | None, inp: Input, out: list[Action]) -> None:
        if card in self.extras:
            self._clear(out, self.extras.pop(card))
            return
        if zone == WIDOW:
            if self.stage == "take":
                self.widow_taken += 1
                if self.widow_taken >= WIDOW_SIZE:
                    self.stage = "discard"
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
            if not self.to_gather and self.stage == "gather":
                self.stage = "play"
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

    # -- settlement -------------------------------------------------------------------------------

    def _settle(self, out: list[Action]) -> None:
        deal = self.deal
        assert deal is not None
        self.to_gather.extend(self.trick_now)
        self.trick_now = []
        self.gather_winner = None
        entries = self.match.finish(deal)
        for seat, pts in deal.points().items():
            self.points[seat] += pts
        summary = deal_summary(deal)
        self.deal_results.append(summary)
        settlement = deal.settlement
        if settlement is not None:
            out.append(
                self._say(
                    f"deal {self.deal_no}: seat {settlement.bidder} "
                    f"{self.rules.name_of(settlement.contract)} scores {settlement.scored} "
                    f"({settlement.result.value})"
                )
            )
        for e in entries:
            if e.amount:
                out.append(
                    {
                        "do": "pay",
                        "deal": self.deal_no,
                        "payer": e.payer,
                        "payee": e.payee,
                        "amount": e.amount,
                        "reason": e.reason,
                    }
                )
                out.append(
                    self._say(
                        f"{e.payer.replace(':', ' ')} pays {e.payee.replace(':', ' ')} {e.amount} "
                        f"chip{'s' if e.amount != 1 else ''} ({e.reason})"
                    )
                )
        out.append(
            {
                "do": "deal-over",
                "deal": self.deal_no,
                "summary": summary,
                "balances": [self.match.balance(s) for s in range(self.players)],
            }
        )
        for s in self.match.shortfalls[len(self.match.shortfalls) - (1 if self.match.over else 0) :]:
            out.append(self._say(f"seat {s[0]} cannot pay {s[2]} chips: seat {s[0]} loses the game"))
        if self.match.over or self.deal_no >= self.deals_to_play:
            self._finish(out)
            return
        self.stage = "next"
        if self.dealer_machine:
            out.append(
                {
                    "do": "prompt",
                    "seat": self.match.dealer,
                    "text": f"gather the cards and load the dealer "
                    f"machine; seat {self.match.dealer} deals next: press to deal",
                }
            )
        else:
            self.deal_no += 1
            self._begin_deal(out)

    def _finish(self, out: list[Action]) -> None:
        self.stage = "over"
        self.choice = None
        self._result = {
            "game": GAME,
            "rules": self.rules.name,
            "players": self.players,
            "over": True,
            "seats": [{"seat": s, "points": self.points[s], "chips": self.match.net(s)} for s in range(self.players)],
            "deals": list(self.deal_results),
        }
        if self.rules.starting_chips:
            self._result["balances"] = [self.match.balance(s) for s in range(self.players)]
            self._result["loser"] = self.match.loser
        out.append({"do": "over", "result": self._result})
        out.append(
            self._say("game over: " + ", ".join(f"seat {s} {self.match.net(s):+d} chips" for s in range(self.players)))
        )

    # -- the dealer machine ----------------------------------------------------------------------------

    def _device(self, inp: Input, out: list[Action]) -> None:
        cmd_id = inp.data.get("id")
        cmd = self.commands.get(cmd_id) if isinstance(cmd_id, int) else None
        if cmd is None:
            return
        if inp.kind == "dealt":
            del self.commands[cmd["id"]]
            self.hopper_left -= 1
            self.deal_done += 1
            card = None
            if inp.card:
                try:
                    card = Card.parse(inp.card)
                except ValueError:
                    card = None
            if card is None and self.card_reader:
                self.unread.append(int(cmd["seat"]) if cmd.get("purpose") == "hand" else None)
            elif card is not None and cmd.get("purpose") == "hand":
                self.dealt.setdefault(int(cmd["seat"]), []).append(card)
            elif card is not None:
                self.widow_dealt.append(card)
            self._deal_started(out)
        elif inp.kind == "shuffled":
            del self.commands[cmd["id"]]
        elif inp.kind == "failed":
            del self.commands[cmd["id"]]
            retry = self._command({k: v for k, v in cmd.items() if k != "id"} | {"retry_of": cmd["id"]})
            out.append(
                self._say(
                    f"dealer: {cmd['do']} to {cmd.get('target', '')} failed "
                    f"({inp.data.get('reason', 'failed')}); trying again"
                )
            )
            out.append(retry)

    # -- restart -----------------------------------------------------------------------------------

    def _control(self, inp: Input, out: list[Action]) -> None:
        if inp.kind == "resync_begin":
            self.resyncing = True
            self.resync_seen = set()
            self.resync_backs = 0
            self.tracks = {}
        elif inp.kind == "resync_end":
            self.resyncing = False
            for card in sorted(set(self.on_mat) - self.resync_seen, key=lambda c: c.index):
                zone = self.on_mat.pop(card)
                self._removed(card, zone, Input("table", "removed", str(card), zone), out)
            # face-down cards laid in (or taken from) the widow while the controller was down count
            # as if seen now
            change = "appeared" if self.resync_backs > self.widow_backs else "removed"
            for _ in range(abs(self.resync_backs - self.widow_backs)):
                self._back(change, WIDOW, out)


# -- results, records, factory ------------------------------------------------------------------------


def deal_summary(deal: FrogDeal) -> dict[str, Any]:
    """One deal's outcome in the shape of ``cardtable replay``'s Frog ``deals`` entries."""
    out: dict[str, Any] = {"dealer": deal.dealer, "active": list(deal.active), "phase": deal.phase.value}
    if deal.contract is not None:
        out.update(contract=deal.contract.word, bidder=deal.bidder, trump=deal.trump.char if deal.trump else None)
    points = deal.points()
    out["points"] = [points[s] for s in range(deal.players)]
    settlement = deal.settlement
    if settlement is not None:
        out["result"] = settlement.result.value
        out["scored"] = settlement.scored
        out["chips"] = [settlement.net(s) for s in range(deal.players)]
    if deal.revokes:
        out["revokes"] = [r.as_json() for r in deal.revokes]
    return out


def trick_points(cards: Iterable[Card]) -> int:
    return sum(POINTS[c.index] for c in cards)


def split_options(options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(rule options, table options such as ``deals``)."""
    opts = dict(options or {})
    table = {k: opts.pop(k) for k in TABLE_OPTIONS if k in opts}
    return opts, table


def make_referee(
    *,
    rules: str,
    players: int,
    dealer: int = 0,
    options: dict[str, Any] | None = None,
    card_reader: bool = False,
    dealer_machine: bool = True,
) -> FrogReferee:
    rule_opts, table = split_options(options)
    ruleset = rule_set(rules)
    if rule_opts:
        ruleset = ruleset.with_options(**rule_opts)
    return FrogReferee(
        ruleset,
        players=players,
        dealer=dealer,
        deals=table.get("deals"),
        card_reader=card_reader,
        dealer_machine=dealer_machine,
    )


def export_record(game: GameRow, entries: Iterable[Entry]) -> dict[str, Any]:
    """The Frog record of a journalled game: each deal's hands (when the machine read them) and its
    accepted decisions and plays, which ``cardtable replay`` accepts and settles the same way."""
    deals: dict[int, dict[str, Any]] = {}
    for entry in entries:
        if entry.kind != "verdict":
            continue
        for action in entry.body.get("actions", []):
            do = action.get("do")
            if do == "deal-seen":
                spec: dict[str, Any] = {"moves": []}
                if action.get("hands"):
                    spec["hands"] = action["hands"]
                    spec["widow"] = action["widow"]
                deals[int(action["deal"])] = spec
            elif do == "move" and int(action.get("deal", 0)) in deals:
                deals[int(action["deal"])]["moves"].append(action["move"])
    if not deals:
        raise RecordError("deal", f"game {game.id} never got past the deal; nothing to export")
    rule_opts, _ = split_options(game.options)
    record: dict[str, Any] = {
        "game": GAME,
        "rules": game.rules,
        "options": rule_opts,
        "players": game.players,
        "dealer": game.dealer,
        "deals": [deals[k] for k in sorted(deals)],
    }
    if game.status != "finished":
        record["note"] = "unfinished: the last deal stops where the table stopped"
    return record
