"""The Frog referee driven by synthetic inputs: deals, bids, tricks, every flag, settlement, resume.

Each test names the clause of issue 9 (or seed 002) it checks. A "truth" FrogDeal with known hands
plays the same deal beside the referee; settlements must agree with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from table.cards import Card, frog_pack, shuffled
from table.controller.core import GameSession
from table.controller.referee import DEAL_COUNT, OUT_OF_TURN, Action, Input, InputData
from table.frog.bots import HeuristicBot
from table.frog.deal import deal_cards, deal_plan
from table.frog.play import legal_plays
from table.frog.record import replay
from table.frog.referee import (
    DISCARD_COUNT,
    REVOKE,
    TRICK_DISTURBED,
    FrogReferee,
    Stage,
    export_record,
    make_referee,
)
from table.frog.rules import Contract, rule_set
from table.frog.state import FrogDeal, Phase
from table.journal import Journal

_track = itertools.count(1)


def stage_of(t: Table) -> Stage:
    """The referee's stage now (read afresh: mypy would keep an earlier assertion's narrowing)."""
    return t.ref.stage


class Table:
    """Feeds a referee the inputs a table would produce; remembers every action."""

    def __init__(self, ref: FrogReferee) -> None:
        self.ref = ref
        self.actions: list[Action] = []
        self.tracks: dict[Card, int] = {}

    def send(self, inp: Input) -> list[Action]:
        got = self.ref.handle(inp)
        self.actions.extend(got)
        return got

    def start(self) -> list[Action]:
        got = self.ref.start()
        self.actions.extend(got)
        return got

    def machine_deal(self, deck: Sequence[Card], cmds: list[Action], *, reader: bool = True) -> None:
        cards = iter(deck)
        for cmd in cmds:
            if cmd["do"] == "shuffle":
                self.send(Input("device", "shuffled", data={"id": cmd["id"]}))
            elif cmd["do"] == "deal":
                card = next(cards)
                self.send(
                    Input(
                        "device",
                        "dealt",
                        card=str(card) if reader else None,
                        data={"id": cmd["id"], "target": cmd["target"]},
                    )
                )

    def say(self, seat: int, kind: str, text: str) -> None:
        self.send(Input("terminal", kind, seat=seat, text=text))
        self.send(Input("terminal", "confirm", seat=seat))

    def face(self, card: Card, zone: str = "trick", **kw: Any) -> list[Action]:
        track = next(_track)
        self.tracks[card] = track
        return self.send(
            Input("table", "appeared", str(card), zone, track=track, candidates=((str(card), 0.99),), **kw)
        )

    def take(self, card: Card, zone: str = "trick", to: str | None = None) -> list[Action]:
        return self.send(Input("table", "removed", str(card), zone, to=to, track=self.tracks.pop(card)))

    def back(self, zone: str, kind: str = "appeared") -> list[Action]:
        return self.send(Input("table", kind, "back", zone, track=next(_track)))

    def flags(self, rule: str | None = None) -> list[Action]:
        return [a for a in self.actions if a["do"] == "flag" and (rule is None or a["rule"] == rule)]


def deck_for(seed: int) -> list[Card]:
    return shuffled(frog_pack(), seed)


def truth_deal(rules_name: str, players: int, dealer: int, deck: Sequence[Card]) -> FrogDeal:
    rules = rule_set(rules_name)
    hands, widow = deal_cards(deal_plan(rules, players, dealer), deck)
    return FrogDeal(rules, players=players, dealer=dealer, hands=hands, widow=widow)


def play_auction(t: Table, truth: FrogDeal, bots: dict[int, HeuristicBot]) -> None:
    while truth.phase in (Phase.AUCTION, Phase.TRUMP):
        seat = truth.to_act
        assert seat is not None
        if truth.phase is Phase.AUCTION:
            call = bots[seat].choose_bid(truth, seat)
            truth.bid(seat, call)
            t.say(seat, "bid", "pass" if call is None else call.word)
        else:
            suit = bots[seat].choose_trump(truth, seat)
            truth.name_trump(seat, suit)
            t.say(seat, "trump", suit.char)


def do_discard(t: Table, truth: FrogDeal, bots: dict[int, HeuristicBot], *, named: bool, backs: int = 3) -> None:
    bidder = truth.bidder
    assert bidder is not None
    widow = list(truth.widow or ())
    if truth.rules.expose_widow:
        for c in widow:
            t.face(c, "widow")
        for c in widow:
            t.take(c, "widow", to=f"seat:{bidder}")
    else:
        for _ in widow:
            t.back("widow", "removed")
    cards = bots[bidder].choose_discard(truth, bidder)
    truth.discard(bidder, cards)
    for _ in range(backs):
        t.back("widow")
    if named:
        t.send(Input("terminal", "discard", seat=bidder, data={"cards": [str(c) for c in cards]}))


def play_tricks(t: Table, truth: FrogDeal, bots: dict[int, HeuristicBot], *, until: int = 11) -> None:
    while truth.phase is Phase.PLAY and len(truth.tricks) < until:
        seat = truth.to_act
        assert seat is not None
        card = bots[seat].choose_play(truth, seat)
        trick = truth.play(seat, card)
        t.face(card)
        if trick is not None:
            for c in trick.cards:
                t.take(c, to=f"capture:{trick.winner}")


def whole_deal(t: Table, truth: FrogDeal, seed: int, *, named: bool) -> None:
    bots = {s: HeuristicBot(seed + s) for s in truth.active}
    play_auction(t, truth, bots)
    if truth.phase is Phase.DISCARD:
        do_discard(t, truth, bots, named=named)
    play_tricks(t, truth, bots)


def referee(rules: str = "foster-1909", players: int = 3, **kw: Any) -> FrogReferee:
    return make_referee(rules=rules, players=players, dealer=0, options=kw.pop("options", {"deals": 1}), **kw)


def first_contract_seed(rules: str, players: int, want: Contract | None, *, start: int = 0) -> int:
    """A seed whose first deal the heuristic bots bid to ``want`` (None: anything but a pass-out)."""
    for seed in range(start, start + 400):
        truth = truth_deal(rules, players, 0, deck_for(seed))
        bots = {s: HeuristicBot(seed + s) for s in truth.active}
        while truth.phase is Phase.AUCTION:
            seat = truth.to_act
            assert seat is not None
            truth.bid(seat, bots[seat].choose_bid(truth, seat))
        if truth.contract is not None and (want is None or truth.contract is want):
            return seed
    raise AssertionError("no such seed")


# -- dealing -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules, first, widow_at", [("foster-1909", 3, 9), ("modern", 4, 12)])
def test_machine_deals_the_packet_plan(rules: str, first: int, widow_at: int) -> None:
    """Issue 9: the dealer machine deals the rule set's packets, 3-(3)-4-4 or 4-(3)-3-4."""
    cmds = [a for a in referee(rules).start() if a["do"] == "deal"]
    assert len(cmds) == 36
    targets = [c["target"] for c in cmds]
    assert targets[:first] == ["seat:1"] * first
    assert targets[widow_at : widow_at + 3] == ["widow"] * 3
    assert sorted(Counter_of(targets).items()) == [("seat:0", 11), ("seat:1", 11), ("seat:2", 11), ("widow", 3)]


def Counter_of(items: Sequence[str]) -> dict[str, int]:  # noqa: N802 - reads like the builtin it mimics
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


def test_solo_slough_deals_singly_with_the_slough_at_1_4_8_and_seats_sit_out() -> None:
    """Seed 002 Solo/Slough: one card at a time, the 1st, 4th and 8th to the slough; with six
    players only the three after the dealer get cards."""
    cmds = [a for a in referee("solo-slough", 6).start() if a["do"] == "deal"]
    targets = [c["target"] for c in cmds]
    assert [i + 1 for i, t in enumerate(targets) if t == "slough"] == [1, 4, 8]
    assert set(targets) == {"slough", "seat:1", "seat:2", "seat:3"}


def test_four_players_the_dealer_sits_out() -> None:
    """Seed 002: with four players the dealer sits out and is dealt nothing."""
    cmds = [a for a in referee(players=4).start() if a["do"] == "deal"]
    assert "seat:0" not in {c["target"] for c in cmds}


def test_hand_deal_with_a_wrong_count_is_flagged_before_play() -> None:
    """Issue 9 (watching a hand deal): a seat dealt the wrong number of cards is flagged; a
    corrected deal then starts the auction."""
    t = Table(referee(dealer_machine=False, card_reader=False))
    t.start()
    for seat, n in ((1, 11), (2, 10), (0, 11)):
        for _ in range(n):
            t.back(f"seat:{seat}")
    for _ in range(3):
        t.back("widow")
    t.send(Input("button", "short", seat=0))
    assert [f["seat"] for f in t.flags(DEAL_COUNT)] == [0]
    assert "seat 2 was dealt 10 cards" in t.flags(DEAL_COUNT)[0]["message"]
    assert stage_of(t) is Stage.DEAL
    for seat in range(3):
        for _ in range(11):
            t.back(f"seat:{seat}")
    for _ in range(3):
        t.back("widow")
    t.send(Input("button", "short", seat=0))
    assert stage_of(t) is Stage.AUCTION
    assert any(a["do"] == "clear" and a["rule"] == DEAL_COUNT for a in t.actions)


# -- bids at the buttons ----------------------------------------------------------------------------


def test_buttons_cycle_the_calls_and_hold_accepts() -> None:
    """Issue 9: bids from the seat buttons, shown and confirmed (short press: next call; hold: accept)."""
    deck = deck_for(1)
    t = Table(referee())
    t.machine_deal(deck, t.start())
    assert t.ref.choice is not None and t.ref.choice.seat == 1
    t.send(Input("button", "short", seat=1))
    assert t.ref.choice.shown == "frog"
    t.send(Input("button", "short", seat=2))  # not seat 2's turn: ignored with a message
    assert t.ref.choice.seat == 1 and not t.flags()
    t.send(Input("button", "long", seat=1))
    assert t.ref.deal is not None and t.ref.deal.auction.high is Contract.FROG
    assert t.ref.choice.seat == 2


# -- whole deals: settlement equals the engine's -----------------------------------------------------


@pytest.mark.parametrize("rules", ["foster-1909", "modern", "solo-slough", "coeur-d-alene", "straight-solo"])
def test_known_hands_deal_settles_like_the_engine(rules: str) -> None:
    """Issue 9: settlement in chips with the rule set's rates; equal to the engine's own deal."""
    seed = first_contract_seed(rules, 3, None)
    deck = deck_for(seed)
    t = Table(referee(rules, card_reader=True))
    t.machine_deal(deck, t.start())
    truth = truth_deal(rules, 3, 0, deck)
    whole_deal(t, truth, seed, named=True)
    assert truth.phase is Phase.OVER and t.ref.over
    assert truth.settlement is not None
    result = t.ref.result()
    assert result is not None
    assert [s["chips"] for s in result["seats"]] == [truth.settlement.net(s) for s in range(3)]
    assert not t.flags()
    pays = [a for a in t.actions if a["do"] == "pay"]
    assert sum(a["amount"] for a in pays) == sum(p.amount for p in truth.settlement.payments)


def test_hidden_hands_deal_settles_like_the_engine_and_the_widow_is_shown() -> None:
    """Foster 1909: a Frog bidder exposes the widow; without a card reader the referee reads it from
    the camera and records it; the deal settles as the engine's."""
    seed = first_contract_seed("foster-1909", 3, Contract.FROG)
    deck = deck_for(seed)
    t = Table(referee(card_reader=False))
    t.machine_deal(deck, t.start(), reader=False)
    truth = truth_deal("foster-1909", 3, 0, deck)
    whole_deal(t, truth, seed, named=False)
    assert t.ref.deal is not None and t.ref.deal.widow_shown
    assert any(a["do"] == "move" and "widow" in a["move"] for a in t.actions)
    result = t.ref.result()
    assert result is not None and truth.settlement is not None
    assert [s["chips"] for s in result["seats"]] == [truth.settlement.net(s) for s in range(3)]


def test_five_players_lost_contract_pays_the_sitting_out_seats() -> None:
    """Seed 002: a losing bidder pays every player at the table, sitting-out players included; a
    winning bidder is paid by the active players only."""
    for seed in range(300):
        deck = deck_for(seed)
        truth = truth_deal("foster-1909", 5, 0, deck)
        t = Table(referee(players=5, card_reader=True))
        t.machine_deal(deck, t.start())
        whole_deal(t, truth, seed, named=True)
        if truth.settlement is not None and truth.settlement.result.value == "lost":
            break
    else:
        raise AssertionError("no lost contract found")
    result = t.ref.result()
    assert result is not None
    for seat in truth.sitting_out:
        assert result["seats"][seat]["chips"] == truth.settlement.per_player > 0


# -- flags ---------------------------------------------------------------------------------------------


def _to_first_play(
    rules: str = "foster-1909", *, reader: bool = True, want: Contract | None = None, start: int = 0
) -> tuple[Table, FrogDeal, dict[int, HeuristicBot], int]:
    seed = first_contract_seed(rules, 3, want, start=start)
    deck = deck_for(seed)
    t = Table(referee(rules, card_reader=reader))
    t.machine_deal(deck, t.start(), reader=reader)
    truth = truth_deal(rules, 3, 0, deck)
    bots = {s: HeuristicBot(seed + s) for s in truth.active}
    play_auction(t, truth, bots)
    if truth.phase is Phase.DISCARD:
        do_discard(t, truth, bots, named=reader)
    return t, truth, bots, seed


def test_known_hands_failure_to_follow_is_flagged_at_once_and_put_right() -> None:
    """Issue 9 / seed 002 (follow suit; if unable, trump): with a card-reading dealer a failure to
    follow or trump is flagged at once; taking the card back clears it; the legal card is accepted."""
    for start in range(0, 400, 7):
        t, truth, bots, _ = _to_first_play(start=start)
        assert truth.trump is not None
        while truth.phase is Phase.PLAY:
            seat = truth.to_act
            assert seat is not None
            hand = truth.hand(seat) or ()
            led = truth.led_suit
            legal = legal_plays(hand, led, truth.trump)
            illegal = [c for c in hand if c not in legal]
            if illegal:
                t.face(illegal[0])
                flags = t.flags(REVOKE)
                assert len(flags) == 1 and flags[0]["seat"] == seat and flags[0]["cards"] == [str(illegal[0])]
                assert t.ref.leds()[seat] == "error"
                t.take(illegal[0])
                assert t.actions[-1]["do"] == "clear"
                card = bots[seat].choose_play(truth, seat)
                truth.play(seat, card)
                t.face(card)
                assert t.actions[-1]["do"] in ("move", "say", "trick")
                assert t.ref.deal is not None and len(t.ref.deal.history) == len(truth.history)
                return
            card = bots[seat].choose_play(truth, seat)
            trick = truth.play(seat, card)
            t.face(card)
            if trick is not None:
                for c in trick.cards:
                    t.take(c)
    raise AssertionError("no chance to revoke found")


def test_hidden_hands_revoke_is_flagged_when_a_later_play_proves_it() -> None:
    """Issue 9 / seed 002: without a card reader a failure to follow is accepted as possibly legal and
    flagged when a later card of that suit proves it; the lose-game penalty settles the deal."""
    for start in range(0, 600, 11):
        t, truth, bots, _ = _to_first_play(reader=False, start=start)
        hidden = FrogDeal(truth.rules, players=3, dealer=0, widow=None)
        for m in truth.history:
            if m.kind == "bid":
                hidden.bid(m.seat, m.value)  # type: ignore[arg-type]
            elif m.kind == "trump":
                hidden.name_trump(m.seat, m.value)  # type: ignore[arg-type]
            elif m.kind == "discard":
                hidden.discard(m.seat, None)
        revoked = False
        assert truth.trump is not None
        while truth.phase is Phase.PLAY:
            seat = truth.to_act
            assert seat is not None
            hand = list(truth.hand(seat) or ())
            legal = legal_plays(hand, truth.led_suit, truth.trump)
            illegal = [c for c in hand if c not in legal]
            if illegal and not revoked:
                card = illegal[0]
                revoked = True
                truth._hands[seat].remove(card)  # the truth's hand follows the physical play
                truth._hands[seat].append(card)
                # play it in the truth as a hidden deal would accept it
                truth.known = False
                truth.play(seat, card)
                truth.known = True
                truth._hands[seat].remove(card)
            else:
                card = bots[seat].choose_play(truth, seat) if truth.known else legal[0]
                truth.play(seat, card)
            hidden.play(seat, card)
            t.face(card)
            if len(hidden.current_trick) == 0:
                for c in hidden.tricks[-1].cards:
                    t.take(c)
        if not revoked:
            continue
        assert hidden.revokes, "every revoke is proven by the end"
        flags = t.flags(REVOKE)
        assert [f["seat"] for f in flags] == [r.seat for r in hidden.revokes]
        result = t.ref.result()
        assert result is not None and hidden.settlement is not None
        assert [s["chips"] for s in result["seats"]] == [hidden.settlement.net(s) for s in range(3)]
        assert result["deals"][0]["scored"] in (0, 120)
        return
    raise AssertionError("no chance to revoke found")


def test_card_played_out_of_turn_is_flagged() -> None:
    """Issue 9: the seat is known from the card reader; a card from another seat's hand is out of turn."""
    t, truth, _, _ = _to_first_play()
    seat = truth.to_act
    other = next(s for s in truth.active if s != seat)
    card = (truth.hand(other) or ())[0]
    t.face(card)
    flags = t.flags(OUT_OF_TURN)
    assert len(flags) == 1 and flags[0]["seat"] == other
    t.take(card)
    assert t.actions[-1] == {
        "do": "clear",
        "id": flags[0]["id"],
        "seat": other,
        "rule": OUT_OF_TURN,
        "how": "put right",
    }


def test_out_of_turn_from_a_seat_zone_without_card_reader() -> None:
    """Issue 9: without hands known, a card moved from another seat's zone into the trick is out of turn."""
    t, truth, _, _ = _to_first_play(reader=False)
    seat = truth.to_act
    other = next(s for s in truth.active if s != seat)
    card = (truth.hand(other) or ())[0]
    t.send(Input("table", "moved", str(card), f"seat:{other}", to="trick", track=999, candidates=((str(card), 0.99),)))
    assert [f["seat"] for f in t.flags(OUT_OF_TURN)] == [other]


@pytest.mark.parametrize("backs", [4, 2])
def test_wrong_number_of_discards_is_flagged(backs: int) -> None:
    """Seed 002: a Frog bidder discards exactly three; four face-down cards are flagged at once, two
    when play begins; the right number clears the flag and play goes on."""
    seed = first_contract_seed("modern", 3, Contract.FROG)
    deck = deck_for(seed)
    t = Table(referee("modern", card_reader=False))
    t.machine_deal(deck, t.start(), reader=False)
    truth = truth_deal("modern", 3, 0, deck)
    bots = {s: HeuristicBot(seed + s) for s in truth.active}
    play_auction(t, truth, bots)
    assert truth.phase is Phase.DISCARD
    do_discard(t, truth, bots, named=False, backs=backs)
    seat = truth.to_act
    assert seat is not None
    card = bots[seat].choose_play(truth, seat)
    truth.play(seat, card)
    t.face(card)
    flags = t.flags(DISCARD_COUNT)
    assert len(flags) == 1 and flags[0]["seat"] == truth.bidder
    assert f"laid {backs} cards" in flags[0]["message"]
    if backs == 4:
        t.back("widow", "removed")
    else:
        t.back("widow")
    assert any(a["do"] == "clear" and a["rule"] == DISCARD_COUNT for a in t.actions)
    assert t.ref.deal is not None and t.ref.deal.current_trick == truth.current_trick


def test_card_taken_off_an_unfinished_trick_is_flagged_until_put_back() -> None:
    """Issue 9 (the trick checked): a played card stays played."""
    t, truth, bots, _ = _to_first_play()
    seat = truth.to_act
    assert seat is not None
    card = bots[seat].choose_play(truth, seat)
    truth.play(seat, card)
    t.face(card)
    t.take(card)
    flags = t.flags(TRICK_DISTURBED)
    assert len(flags) == 1 and flags[0]["seat"] == seat
    t.face(card)
    assert t.actions[-1]["do"] == "clear" and t.actions[-1]["rule"] == TRICK_DISTURBED


def test_trick_winner_is_lit_until_the_trick_is_gathered() -> None:
    """Issue 9: the trick winner computed and lit; the gathered trick checked."""
    t, truth, bots, _ = _to_first_play()
    trick = None
    while trick is None:
        seat = truth.to_act
        assert seat is not None
        card = bots[seat].choose_play(truth, seat)
        trick = truth.play(seat, card)
        t.face(card)
    assert t.ref.leds()[trick.winner] == "winner"
    assert any(a["do"] == "trick" and a["winner"] == trick.winner for a in t.actions)
    for c in trick.cards:
        t.take(c, to=f"capture:{trick.winner}")
    assert t.ref.leds()[trick.winner] == "turn"


def test_dispute_overrides_a_flag_and_is_recorded() -> None:
    """Issue 8 (people stay in charge): a long press disputes the seat's open flag, recorded with who."""
    t, truth, _, _ = _to_first_play()
    seat = truth.to_act
    other = next(s for s in truth.active if s != seat)
    t.face((truth.hand(other) or ())[0])
    t.send(Input("button", "long", seat=other, text="I was told to"))
    assert any(a["do"] == "override" and a["who"] == f"seat {other}" for a in t.actions)
    assert t.actions[-1]["how"] == "overridden"


# -- sessions, journal, records ---------------------------------------------------------------------


def _drive_session(session: GameSession, inputs: list[Input]) -> list[Action]:
    out: list[Action] = []
    for inp in inputs:
        out.extend(session.submit(inp))
    return out


def _recorded_inputs(rules: str, players: int, deals: int, seed: int, *, reader: bool) -> tuple[list[Input], Table]:
    """Run a session of ``deals`` deals on a bare referee and return every input it was given."""
    ref = make_referee(rules=rules, players=players, dealer=0, options={"deals": deals}, card_reader=reader)
    t = Table(ref)
    inputs: list[Input] = []
    original = t.send

    def send(inp: Input) -> list[Action]:
        inputs.append(inp)
        return original(inp)

    t.send = send  # type: ignore[method-assign]
    cmds = t.start()
    for d in range(deals):
        deck = deck_for(seed * 10 + d)
        t.machine_deal(deck, cmds, reader=reader)
        assert ref.deal is not None
        truth = truth_deal(rules, players, ref.deal.dealer, deck)
        whole_deal(t, truth, seed + d, named=reader)
        if ref.over:
            break
        got = t.send(Input("button", "short", seat=ref.match.dealer))
        cmds = [a for a in got if a["do"] in ("shuffle", "deal")]
    return inputs, t


def test_chip_ledger_across_deals_is_conserved_and_passes_the_deal(tmp_path: Path) -> None:
    """Seed 002: the dealer passes left; the chip ledger runs across deals and sums to zero."""
    _, t = _recorded_inputs("foster-1909", 4, 4, 3, reader=True)
    ref = t.ref
    assert ref.over
    result = ref.result()
    assert result is not None
    assert sum(s["chips"] for s in result["seats"]) == 0
    assert [d["dealer"] for d in result["deals"]] == [0, 1, 2, 3]
    assert ref.match.ledger.total == 0


@pytest.mark.parametrize("reader", [True, False])
def test_journal_export_replays_to_the_same_result(tmp_path: Path, reader: bool) -> None:
    """Issue 8/9: ``cardtable export`` of a journalled Frog session is a record ``cardtable replay``
    settles exactly as the referee did."""
    inputs, bare = _recorded_inputs("foster-1909", 3, 3, 5, reader=reader)
    with Journal(tmp_path / "j.db") as journal:
        session, _ = GameSession.open(
            journal, key="t", game="frog", rules="foster-1909", players=3, options={"deals": 3}, card_reader=reader
        )
        _drive_session(session, inputs)
        assert session.referee.over
        game = journal.game(session.game_id)
        record = export_record(game, journal.entries(session.game_id))
    replayed = replay(record)
    result = session.referee.result()
    assert result is not None and bare.ref.result() == result
    assert replayed["seats"] == result["seats"]
    assert replayed["deals"] == result["deals"]


def test_resume_after_kill_rebuilds_the_same_state(tmp_path: Path) -> None:
    """Issue 9: a referee is a pure function of its inputs, so a journal replay after kill -9
    rebuilds the state and the game finishes with the same settlement."""
    inputs, bare = _recorded_inputs("solo-slough", 4, 2, 8, reader=False)
    cut = len(inputs) * 3 // 5
    path = tmp_path / "j.db"
    journal = Journal(path)
    session, _ = GameSession.open(
        journal, key="k", game="frog", rules="solo-slough", players=4, options={"deals": 2}, card_reader=False
    )
    _drive_session(session, inputs[:cut])
    before = session.referee.view()
    journal.close()  # the process dies here
    with Journal(path) as journal2:
        resumed, first = GameSession.open(
            journal2, key="k", game="frog", rules="solo-slough", players=4, options={"deals": 2}, card_reader=False
        )
        assert resumed.resumed and first == []
        assert resumed.referee.view() == before
        _drive_session(resumed, inputs[cut:])
        assert resumed.referee.result() == bare.ref.result()


def test_a_card_whose_reading_was_lost_in_a_restart_is_inferred() -> None:
    """Issue 8/9 (resume): a dealt card whose answer died with the controller comes back as a
    recovered deal without its card; the pack tells which card it was, so hands stay known."""
    deck = deck_for(2)
    t = Table(referee(card_reader=True))
    cmds = t.start()
    cards = iter(deck)
    for i, cmd in enumerate(c for c in cmds if c["do"] == "deal"):
        card = next(cards)
        lost = i == 20
        data: InputData = {"id": cmd["id"], "target": cmd["target"]}
        if lost:
            data["recovered"] = True
        t.send(Input("device", "dealt", card=None if lost else str(card), data=data))
    assert t.ref.deal is not None and t.ref.deal.known
    truth = truth_deal("foster-1909", 3, 0, deck)
    assert {s: sorted(truth.hand(s) or (), key=lambda c: c.index) for s in truth.active} == {
        s: sorted(t.ref.deal.hand(s) or (), key=lambda c: c.index) for s in truth.active
    }


def test_a_discard_the_camera_loses_and_refinds_during_play_is_not_a_fourth() -> None:
    """Discard count (exactly three): a face-down discard reported removed and then appeared again
    once play has begun is the camera re-finding the same card, not a fourth discard; a card really
    added after that is still flagged."""
    seed = first_contract_seed("modern", 3, Contract.FROG)
    deck = deck_for(seed)
    t = Table(referee("modern", card_reader=False))
    t.machine_deal(deck, t.start(), reader=False)
    truth = truth_deal("modern", 3, 0, deck)
    bots = {s: HeuristicBot(seed + s) for s in truth.active}
    play_auction(t, truth, bots)
    do_discard(t, truth, bots, named=False)
    seat = truth.to_act
    assert seat is not None
    card = bots[seat].choose_play(truth, seat)
    truth.play(seat, card)
    t.face(card)
    t.back("widow", "removed")
    t.back("widow")
    assert not t.flags(DISCARD_COUNT)
    t.back("widow")
    flags = t.flags(DISCARD_COUNT)
    assert len(flags) == 1 and "laid 4 cards" in flags[0]["message"]


@pytest.mark.parametrize("reader", [True, False])
def test_reread_card_played_while_down_is_not_taken_for_a_known_one_by_its_runner_up(reader: bool) -> None:
    """Resume after kill: a card played while the controller was down is re-read before the card
    already on the trick, with that card as its runner-up. A sure reading of a card that may be
    played is that card; matched by the runner-up, the known card would later count as a new play."""
    t, truth, bots, _ = _to_first_play(reader=reader)
    first = truth.to_act
    assert first is not None
    led = bots[first].choose_play(truth, first)
    truth.play(first, led)
    t.face(led)
    second = truth.to_act
    assert second is not None
    card = bots[second].choose_play(truth, second)
    truth.play(second, card)
    before = len(t.flags())
    t.send(Input("control", "resync_begin"))
    for c, runner_up in ((card, led), (led, card)):
        t.tracks[c] = next(_track)
        t.send(
            Input(
                "table",
                "appeared",
                str(c),
                "trick",
                track=t.tracks[c],
                candidates=((str(c), 0.97), (str(runner_up), 0.01)),
            )
        )
    t.send(Input("control", "resync_end"))
    assert t.flags()[before:] == []
    deal = t.ref.deal
    assert deal is not None and [c for _, c in deal.current_trick] == [led, card]
    play_tricks(t, truth, bots)
    assert t.flags()[before:] == []
    assert t.ref.deal is not None and t.ref.deal.tricks == truth.tricks


def test_card_the_camera_cannot_agree_on_is_identified_not_taken_for_a_back() -> None:
    """A face-up card played to the trick but reported `unknown` (the camera's votes did not agree)
    with its candidates: it was counted as a face-down card and the play never happened. Now it is
    read from the candidates (here the only possible one) and the deal goes on as the engine's."""
    t, truth, bots, seed = _to_first_play(reader=True)
    seat = truth.to_act
    assert seat is not None
    card = bots[seat].choose_play(truth, seat)
    truth.play(seat, card)
    track = next(_track)
    t.tracks[card] = track
    got = t.send(
        Input("table", "appeared", "unknown", "trick", track=track, candidates=((str(card), 0.48), ("back", 0.2)))
    )
    assert [a["move"] for a in got if a["do"] == "move"] == [{"seat": seat, "play": str(card)}], got
    play_tricks(t, truth, bots)
    assert t.ref.deal is not None and t.ref.deal.points() == truth.points()


def test_a_played_card_none_of_whose_candidates_is_right_is_asked_about_until_named(answer_until_named: Any) -> None:
    """As in Garbage (a camera run that waited for ever): a card played to the trick and
    reported `unknown` with six wrong candidates, all possible. The player refuses the first three by
    name, is asked the suit, then the cards of that suit best first, until the true one is named;
    confirmed, the play is made and the deal goes on as the engine's."""
    t, truth, bots, _ = _to_first_play(reader=True)
    seat = truth.to_act
    assert seat is not None
    card = bots[seat].choose_play(truth, seat)
    held = [c for s in truth.active for c in truth.hand(s) or ()]
    wrong = [w for w in dict.fromkeys(str(c) for c in held if c != card) if w[-1] != str(card)[-1]][:6]
    truth.play(seat, card)
    track = next(_track)
    t.tracks[card] = track
    moves: list[Action] = []
    got = t.send(
        Input(
            "table",
            "appeared",
            "unknown",
            "trick",
            track=track,
            candidates=tuple((w, 0.1 - 0.01 * k) for k, w in enumerate(wrong)),
        )
    )

    def send(inp: Input) -> list[Action]:
        out = t.send(inp)
        moves.extend(a for a in out if a["do"] == "move")
        return out

    asked = answer_until_named(send, got, str(card), seat, most=40)
    names = [q for q in asked if len(q) == 2]
    assert names[:3] == wrong[:3] and asked[3] == wrong[3][-1], asked
    assert names[-1] == str(card) and len(set(names)) == len(names) and len(asked) <= 3 + 3 + 13
    assert [a["move"] for a in moves] == [{"seat": seat, "play": str(card)}], moves
    play_tricks(t, truth, bots)
    assert t.ref.deal is not None and t.ref.deal.points() == truth.points()
