"""The Garbage demo world: bots at a real table, the dealer machine dealing face up.

The true game is a :class:`~table.garbage.GarbageGame` fed the cards the machine really deals (a
seeded shuffle of the packs each hand; the discards, reshuffled with a seeded order, when the stock
runs out) and the bots' decisions (:func:`table.garbage.bots.choose_move`), made at the seat
buttons; the card given up after buying is taken out of the hand.

With ``cheat`` probability, before a bingo or put-and-take card is turned, a player breaks a rule
the camera sees: slips a card that was not dealt into a hand (``extra-card``) or takes a card out
of a hand still in play (``hand-disturbed``); once flagged, the player puts the table right. A
wrong coin claim would not be physical, so it is not among the cheats: coins are the ledger's.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from functools import partial
from typing import Any

from table.cards import Card, shuffled
from table.demo.dealers import GatedDealer
from table.demo.scenes import Scene
from table.demo.world import Cheat, Controls, ScriptWorld, Step
from table.demo.world_log import WorldRecord
from table.garbage import AwaitCard, AwaitMove, GarbageGame, GarbageRules
from table.garbage.bots import choose_move
from table.garbage.record import result as game_result
from table.garbage.referee import EXTRA_CARD, HAND_DISTURBED

ROW_CARDS = 8  # turned cards the row holds before the dealer sweeps it (the smallest layouts' row has 8 slots)


def hand_seed(seed: int, hand: int) -> int:
    return seed * 10007 + hand


class GarbageWorld(ScriptWorld):
    def __init__(
        self,
        rules: GarbageRules,
        *,
        players: int,
        seed: int,
        cheat: float,
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
        self.dealer = dealer
        self.truth = GarbageGame(players, rules=rules)
        self.rng = random.Random(seed * 31 + 1)
        self.bot_rng = random.Random(seed)
        self.in_hand: dict[int, list[tuple[Card, int]]] = {s: [] for s in range(players)}
        self.turned: list[int] = []
        dealer.load(shuffled(self.truth.pack, hand_seed(seed, 0)))

    def script(self) -> Generator[Step, None, None]:
        truth = self.truth
        hand = 0
        reshuffles = 0
        phase = truth.phase
        while not truth.over:
            if truth.deal != hand:
                hand = truth.deal
                reshuffles = 0
                yield from self.act(self.scene.clear)
                self.in_hand = {s: [] for s in range(self.players)}
                self.turned = []
                self.dealer.load(shuffled(truth.pack, hand_seed(self.seed, hand)))
                yield from self.act(lambda: self.press(truth.dealer, False))
            rnd = truth.round
            assert rnd is not None
            if rnd.reshuffles > reshuffles:
                reshuffles = rnd.reshuffles
                order = truth.stock_cards()
                random.Random(hand_seed(self.seed, hand) + reshuffles).shuffle(order)
                self.dealer.load(order)
                yield from self.act(lambda: self.press(truth.dealer, False))
            if truth.phase != phase:
                phase = truth.phase
                yield from self._tidy()
            step = truth.step
            if isinstance(step, AwaitCard):
                if step.phase in ("bingo", "put-and-take") and self.cheat > 0 and self.rng.random() < self.cheat:
                    yield from self._cheat()
                yield lambda: self.dealer.pending() is not None and self.idle()
                request = self.dealer.pending()
                assert request is not None
                if not request.target.startswith("seat:") and len(self.turned) >= ROW_CARDS:
                    # the row is full: the dealer sweeps the called cards aside (a camera could not
                    # read cards laid on top of each other)
                    swept, self.turned = self.turned, []
                    yield from self.act(partial(self.scene.take, swept))
                    yield lambda: self.dealer.pending() is not None and self.idle()
                    request = self.dealer.pending()
                    assert request is not None
                card = self.dealer.perform(request)
                assert card is not None, "the dealer machine ran out of cards"
                self.steps_done += 1
                truth.supply(card)
                cid = self.scene.place(str(card), request.target)
                if request.target.startswith("seat:"):
                    self.in_hand[int(request.target[5:])].append((card, cid))
                else:
                    self.turned.append(cid)
                yield self.idle
            else:
                assert isinstance(step, AwaitMove)
                move = choose_move(truth, self.bot_rng)
                if move.kind == "discard":
                    assert move.card is not None
                    held = self.in_hand[move.seat]
                    i = next(i for i, (c, _) in enumerate(held) if c is move.card)
                    _, cid = held.pop(i)
                    truth.play(move)
                    yield from self.act(partial(self.scene.take, [cid]))
                else:
                    options = [k for k in step.kinds if k != "discard"]
                    for _ in range(options.index(move.kind)):
                        yield from self.act(partial(self.press, move.seat, False))
                    truth.play(move)
                    yield from self.act(partial(self.press, move.seat, True))
        yield from self._tidy()

    def _tidy(self) -> Generator[Step, None, None]:
        """Hands set aside (the dealer's at put and take, all at count-up) and the turn-up row cleared."""
        truth = self.truth
        ids = list(self.turned)
        self.turned = []
        for seat in range(self.players):
            if not truth.hand(seat) or truth.over:
                ids.extend(cid for _, cid in self.in_hand[seat])
                self.in_hand[seat] = []
        if ids:
            yield from self.act(lambda: self.scene.take(ids))

    def _cheat(self) -> Generator[Step, None, None]:
        truth = self.truth
        live = [s for s in range(self.players) if truth.hand(s) and self.in_hand[s]]
        kinds = [EXTRA_CARD] + ([HAND_DISTURBED] if live else [])
        kind = self.rng.choice(kinds)
        if kind == HAND_DISTURBED:
            seat = self.rng.choice(live)
            held = self.in_hand[seat]
            card, cid = held.pop(self.rng.randrange(len(held)))
            self.cheats.append(Cheat(("deal", truth.deal), seat, HAND_DISTURBED, (str(card),)))
            yield from self.act(partial(self.scene.take, [cid]))
            yield from self.wait(self.led_is(seat, "error"))
            back: list[int] = []
            yield from self.act(lambda: back.append(self.scene.place(str(card), f"seat:{seat}")))
            held.append((card, back[0]))
            yield from self.wait(self.led_not(seat, "error"))
            return
        seat = self.rng.randrange(self.players)
        card = self.rng.choice(truth.pack)
        self.cheats.append(Cheat(("deal", truth.deal), seat, EXTRA_CARD, (str(card),)))
        ids: list[int] = []
        yield from self.act(lambda: ids.append(self.scene.place(str(card), f"seat:{seat}")))
        yield from self.wait(self.led_is(seat, "error"))
        yield from self.act(lambda: self.scene.take(ids))
        yield from self.wait(self.led_not(seat, "error"))

    def truth_result(self) -> dict[str, Any]:
        return game_result(self.truth)

    def comparable(self, result: dict[str, Any] | None) -> Any:
        """Coins per seat, the kitty and each hand's outcome must agree."""
        if result is None:
            return None
        return result["seats"], result["kitty"], result["hands"]
