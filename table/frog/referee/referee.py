"""The Frog referee at the table: its phases put together, the table's inputs routed, the view."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.cards import Card
from table.controller import recognition
from table.controller.referee import Action, Flag, Input
from table.controller.referee_base import seat_of_zone, winner_roles
from table.errors import RecordError
from table.frog.deal import WIDOW, active_seats
from table.frog.referee.base import (
    FACES,
    GAME,
    TABLE_OPTIONS,
    TRICK,
    Stage,
)
from table.frog.referee.bidding import Bidding
from table.frog.referee.dealing import Dealing
from table.frog.referee.settling import Settling
from table.frog.referee.tricks import Tricks
from table.frog.referee.widow import WidowAndDiscards
from table.frog.rules import rule_set
from table.journal import Entry, GameRow


class FrogReferee(Dealing, Bidding, WidowAndDiscards, Tricks, Settling):
    def _may_release_held(self) -> bool:
        return self.stage in (Stage.PLAY, Stage.GATHER)

    def _tag_flag(self, action: Action) -> Action:
        return {**action, "deal": self.deal_no}

    @property
    def over(self) -> bool:
        return self.stage is Stage.OVER

    def start(self) -> list[Action]:
        out: list[Action] = []
        self._begin_deal(out)
        return out

    def leds(self) -> dict[int, str]:
        if self.over and self._result:
            return winner_roles(self.players, self._result["seats"], "chips")
        roles = dict.fromkeys(range(self.players), "idle")
        deal = self.deal
        if deal is not None and self.stage is Stage.GATHER and self.gather_winner is not None:
            roles[self.gather_winner] = "winner"
        elif deal is not None and deal.to_act is not None and self.stage not in (Stage.DEAL, Stage.NEXT):
            roles[deal.to_act] = "turn"
        return self._attention(roles, self.choice, self.prompt)

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
            "stage": self.stage.value,
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
            "prompt": None if self.prompt is None else self.prompt.to_json(),
            "messages": list(self.messages),
        }

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
            if self.stage is Stage.DEAL and not self.dealer_machine:
                self._record_override(out, who, "confirm the deal", why)
                self._deal_started(out, confirmed=True)
            elif self.stage is Stage.NEXT:
                self._record_override(out, who, "deal the next hand", why)
                self.deal_no += 1
                self._begin_deal(out)
            return
        if kind in ("undo", "long"):
            out.append(self._say(f"{who}: a Frog play cannot be undone at the table; dispute a flag instead"))
            return
        if kind == "correct":
            out.append(self._say("nothing to correct: no card is waiting for confirmation"))

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
            if zone == WIDOW and self.stage is not Stage.WIDOW:
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
        return {f for f in FACES if Card.parse(f) not in gone}

    def _identify(self, inp: Input, zone: str, out: list[Action]) -> Card | None:
        if inp.data.get("confirmed"):
            return Card.parse(str(inp.card))
        candidates = inp.candidates or ((str(inp.card), 0.99),)
        reading = recognition.read_card(candidates, self._possible(zone))
        if reading.card is not None and reading.sure:
            return Card.parse(reading.card)
        deal = self.deal
        seat = deal.to_act if deal is not None and deal.to_act is not None else self.match.dealer
        ranked = recognition.ask_order(reading.ranked, candidates, FACES)
        if not ranked:
            out.append(self._say(f"a card appeared in the {zone} that cannot be there ({inp.card}); check the table"))
            return None
        self._ask_about(seat, ranked, inp, out)
        return None

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
