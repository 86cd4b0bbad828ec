"""The Frog demo world: bots at a real table, the dealer machine dealing the packets.

The true game is a :class:`~table.frog.match.FrogMatch` whose deals are kept with hidden hands (the
widow known), fed the plays that physically happen, so a revoke a bot commits without a card
reader stands in the truth just as at a real table, and the rule set's penalty settles it. The
bots decide with the heuristic bot on a known-hands copy of the deal (bids, trump, discards) and
play a seeded random legal card.

With ``cheat`` probability a bot breaks a rule the table can see: a card played out of turn (with a
card-reading dealer, which knows whose card it is), a revoke (known hands: flagged at once and taken
back; hidden hands: it stands and a later play proves it), a card taken back off an unfinished
trick, or the Frog bidder laying four or two cards face down instead of three. A bot whose cheat is
flagged puts the table right.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from functools import partial
from typing import Any

from table.cards import Card, frog_pack, shuffled
from table.controller.referee import OUT_OF_TURN, Input
from table.demo.dealers import GatedDealer
from table.demo.scenes import Scene
from table.demo.world import Cheat, Controls, ScriptWorld, Step
from table.demo.world_log import WorldRecord
from table.frog.bots import HeuristicBot
from table.frog.match import FrogMatch
from table.frog.play import legal_plays
from table.frog.referee import DISCARD_COUNT, REVOKE, TRICK_DISTURBED, deal_summary
from table.frog.rules import RuleSet
from table.frog.state import CHICO_TRUMPS, FrogDeal, Phase


def deck_seed(seed: int, deal: int) -> int:
    return seed * 1000 + deal


class FrogWorld(ScriptWorld):
    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int,
        seed: int,
        cheat: float,
        deals: int,
        card_reader: bool,
        scene: Scene,
        dealer: GatedDealer,
        controls: Controls,
        record: WorldRecord,
    ) -> None:
        super().__init__(scene, controls, record)
        self.rules = rules
        self.players = players
        self.seed = seed
        self.cheat = cheat
        self.deals = deals
        self.card_reader = card_reader
        self.dealer = dealer
        self.rng = random.Random(seed * 7919 + 3)
        self.match = FrogMatch(rules, players, first_dealer=0)
        self.points = [0] * players
        self.summaries: list[dict[str, Any]] = []
        self.deal_no = 0
        self.discard_ids: list[int] = []
        dealer.load(shuffled(frog_pack(), deck_seed(seed, 0)))

    # -- helpers ------------------------------------------------------------------------------------

    def _cheats_now(self) -> bool:
        return self.cheat > 0 and self.rng.random() < self.cheat

    def _choose(self, seat: int, options: list[str], want: str) -> Generator[Step, None, None]:
        """Show ``want`` with short presses (the first option is shown at first), hold to accept."""
        for _ in range(options.index(want)):
            yield from self.act(lambda: self.press(seat, False))
        yield from self.act(lambda: self.press(seat, True))

    # -- the script -----------------------------------------------------------------------------------

    def script(self) -> Generator[Step, None, None]:
        for number in range(self.deals):
            if self.match.over:
                break
            self.deal_no = number + 1
            if number:
                yield from self.act(self.scene.clear)
                self.dealer.load(shuffled(frog_pack(), deck_seed(self.seed, number)))
                yield from self.act(lambda: self.press(self.match.dealer, False))
            yield from self._deal()

    def _deal(self) -> Generator[Step, None, None]:
        rules = self.rules
        plan_total = 36
        hands: dict[int, list[Card]] = {}
        widow: list[Card] = []
        widow_ids: list[int] = []
        for _ in range(plan_total):
            # a machine deals a card in a few hundred ms: the controller has judged the last one
            yield lambda: self.dealer.pending() is not None and self.idle()
            request = self.dealer.pending()
            assert request is not None
            card = self.dealer.perform(request)
            assert card is not None
            self.steps_done += 1
            if request.target.startswith("seat:"):
                hands.setdefault(int(request.target[5:]), []).append(card)
            else:
                widow.append(card)
                widow_ids.append(self.scene.place(str(card), "widow", face_up=False))
        yield self.idle
        truth = self.match.new_deal(widow=widow)
        shadow = FrogDeal(rules, players=self.players, dealer=truth.dealer, hands=hands, widow=widow)
        bots = {s: HeuristicBot(self.seed * 31 + s + 7 * self.deal_no) for s in truth.active}
        while shadow.phase in (Phase.AUCTION, Phase.TRUMP):
            seat = shadow.to_act
            assert seat is not None
            if shadow.phase is Phase.AUCTION:
                calls = shadow.legal_bids(seat)
                call = bots[seat].choose_bid(shadow, seat)
                words = ["pass" if c is None else c.word for c in calls]
                yield from self._choose(seat, words, "pass" if call is None else call.word)
                shadow.bid(seat, call)
                truth.bid(seat, call)
            else:
                suit = bots[seat].choose_trump(shadow, seat)
                yield from self._choose(seat, [s.char for s in CHICO_TRUMPS], suit.char)
                shadow.name_trump(seat, suit)
                truth.name_trump(seat, suit)
        if truth.phase is Phase.PASSED:
            yield from self._settle(truth)
            return
        short_discard = False
        if shadow.phase is Phase.DISCARD:
            short_discard = yield from self._discard(shadow, truth, bots, widow, widow_ids)
        yield from self._play(shadow, truth, short_discard)
        yield from self._settle(truth)

    def _discard(
        self, shadow: FrogDeal, truth: FrogDeal, bots: dict[int, HeuristicBot], widow: list[Card], widow_ids: list[int]
    ) -> Generator[Step, None, bool]:
        bidder = shadow.bidder
        assert bidder is not None
        if self.rules.expose_widow:
            yield from self.act(lambda: self.scene.take(widow_ids))
            faces = []
            for card in widow:
                faces.append(self.scene.place(str(card), "widow"))
                yield self.idle
            yield from self.act(lambda: self.scene.take(faces, f"seat:{bidder}"))
        else:
            yield from self.act(lambda: self.scene.take(widow_ids, f"seat:{bidder}"))
        cards = bots[bidder].choose_discard(shadow, bidder)
        shadow.discard(bidder, cards)
        truth.discard(bidder, cards)
        count = 3
        if self._cheats_now():
            count = self.rng.choice((2, 4))
            self.cheats.append(Cheat(("deal", self.deal_no), bidder, DISCARD_COUNT, ()))
        self.discard_ids = []
        for i in range(count):
            label = str(cards[i]) if i < 3 else str(next(c for c in shadow.hand(bidder) or ()))
            self.discard_ids.append(self.scene.place(label, "widow", face_up=False))
            yield self.idle
        if count == 4:
            yield from self.wait(self.led_is(bidder, "error"))
            yield from self.act(lambda: self.scene.take(self.discard_ids[-1:]))
        if self.card_reader:
            yield from self.act(
                lambda: self.terminal(
                    Input("terminal", "discard", seat=bidder, data={"cards": [str(c) for c in cards]})
                )
            )
        if count == 4:
            yield from self.wait(self.led_not(bidder, "error"))
        return count == 2

    def _play(self, shadow: FrogDeal, truth: FrogDeal, short_discard: bool) -> Generator[Step, None, None]:
        assert truth.trump is not None and truth.bidder is not None
        hands = {s: list(shadow.hand(s) or ()) for s in truth.active}
        trick_ids: list[int] = []
        hidden_revoked = False
        first = True
        while truth.phase is Phase.PLAY:
            seat = truth.to_act
            assert seat is not None
            legal = legal_plays(hands[seat], truth.led_suit, truth.trump)
            card = self.rng.choice(legal)
            kind = None
            if not first and self._cheats_now():
                options = [TRICK_DISTURBED] if len(truth.current_trick) < 2 else []
                others = [s for s in truth.active if s != seat and hands[s]]
                if self.card_reader and others:
                    options.append(OUT_OF_TURN)
                illegal = [c for c in hands[seat] if c not in legal]
                if illegal and (self.card_reader or not hidden_revoked):
                    options.append(REVOKE)
                kind = self.rng.choice(options) if options else None
            if kind == OUT_OF_TURN:
                other = self.rng.choice([s for s in truth.active if s != seat and hands[s]])
                wrong = self.rng.choice(hands[other])
                self.cheats.append(Cheat(("deal", self.deal_no), other, OUT_OF_TURN, (str(wrong),)))
                ids = [self.scene.place(str(wrong), "trick")]
                yield self.idle
                yield from self.wait(self.led_is(other, "error"))
                yield from self.act(partial(self.scene.take, ids))
                yield from self.wait(self.led_not(other, "error"))
            elif kind == REVOKE:
                bad = self.rng.choice([c for c in hands[seat] if c not in legal])
                self.cheats.append(Cheat(("deal", self.deal_no), seat, REVOKE, (str(bad),)))
                if self.card_reader:
                    ids = [self.scene.place(str(bad), "trick")]
                    yield self.idle
                    yield from self.wait(self.led_is(seat, "error"))
                    yield from self.act(partial(self.scene.take, ids))
                    yield from self.wait(self.led_not(seat, "error"))
                else:
                    card = bad  # it stands: a later play proves it
                    hidden_revoked = True
            trick_ids.append(self.scene.place(str(card), "trick"))
            hands[seat].remove(card)
            trick = truth.play(seat, card)
            yield self.idle
            if first and short_discard:
                bidder = truth.bidder
                yield from self.wait(self.led_is(bidder, "error"))
                self.discard_ids.append(self.scene.place("back", "widow", face_up=False))
                yield self.idle
                yield from self.wait(self.led_not(bidder, "error"))
            first = False
            if kind == TRICK_DISTURBED:
                self.cheats.append(Cheat(("deal", self.deal_no), seat, TRICK_DISTURBED, (str(card),)))
                taken = trick_ids.pop()
                yield from self.act(partial(self.scene.take, [taken]))
                yield from self.wait(self.led_is(seat, "error"))
                trick_ids.append(self.scene.place(str(card), "trick"))
                yield self.idle
                yield from self.wait(self.led_not(seat, "error"))
            if trick is not None:
                ids, trick_ids = trick_ids, []
                yield from self.act(partial(self.scene.take, ids, f"capture:{trick.winner}"))

    def _settle(self, truth: FrogDeal) -> Generator[Step, None, None]:
        self.match.finish(truth)
        for seat, pts in truth.points().items():
            self.points[seat] += pts
        self.summaries.append(deal_summary(truth))
        yield self.idle

    # -- results --------------------------------------------------------------------------------------

    def comparable(self, result: dict[str, Any] | None) -> Any:
        """What must agree between the referee and the truth: chips and points per seat, and per deal
        the contract, bidder, score and chips (not move indices, which differ with the widow shown)."""
        if result is None:
            return None
        deals = [
            (d.get("contract"), d.get("bidder"), d.get("scored"), d.get("chips"), d.get("points"))
            for d in result.get("deals", [])
        ]
        return result["seats"], deals, result.get("balances"), result.get("loser")

    def truth_result(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": "frog",
            "rules": self.rules.name,
            "players": self.players,
            "over": True,
            "seats": [{"seat": s, "points": self.points[s], "chips": self.match.net(s)} for s in range(self.players)],
            "deals": self.summaries,
        }
        if self.rules.starting_chips:
            out["balances"] = [self.match.balance(s) for s in range(self.players)]
            out["loser"] = self.match.loser
        return out
