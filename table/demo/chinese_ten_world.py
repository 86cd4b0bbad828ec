"""The Chinese Ten demo world: bots at a real table, the dealer machine dealing and flipping.

The true game is a :class:`~table.chinese_ten.ChineseTenState` set up from the cards the machine really
dealt. Bots play by a script: wait for the seat's turn (its LED), place a card, take the pair, wait for the
flip, take its pair. With ``cheat`` probability a bot breaks a rule first (a card out of turn, a second card,
a compulsory capture skipped, a non-matching or wrong card taken), waits for the referee's flag, then puts the
table right.

The machine deals on its own (the controller's commands), telling the world each card it lays. The world's
log holds the machine's hopper after its shuffle, each card dealt and the count of the bots' actions: after a
kill the world is rebuilt from the seed and fast-forwarded to the same position (:meth:`ChineseTenWorld.restore`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Sequence
from functools import partial
from typing import Any

from table.cards import Card
from table.chinese_ten import ChineseTenState, Phase, RuleSet
from table.chinese_ten.bots import make_bots
from table.chinese_ten.moves import Move
from table.chinese_ten.state import DEALT_TO_PLAYERS, LAYOUT_SIZE
from table.controller.questions import prompt_yes_cards
from table.controller.referee import CAPTURE_COMPULSORY, NON_MATCHING, OUT_OF_TURN, TWO_CARDS, WRONG_CARD
from table.demo.scenes import Scene
from table.demo.world import Cheat, Controls, ScriptWorld, Step

CHEATS = (OUT_OF_TURN, TWO_CARDS, CAPTURE_COMPULSORY, NON_MATCHING, WRONG_CARD)
FLAG_WAIT_TICKS = 400  # how long a cheating bot waits for the referee before putting things right


class ChineseTenWorld(ScriptWorld):
    """``on_log`` writes the world's log; ``hopper`` is what the machine holds once the deal is done (the stock,
    top first); ``load`` gives a rebuilt machine the deck a killed run's machine still held. Without the
    dealer's card reader nothing tells the camera whose hand a card came from, so a play out of turn looks like
    the playing seat's own: the bots then do not try it (``cheat_kinds``)."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        players: int,
        seed: int,
        cheat: float,
        dealer: int,
        scene: Scene,
        controls: Controls,
        on_log: Callable[[dict[str, Any]], None],
        hopper: Callable[[], list[Card]],
        load: Callable[[list[Card]], None],
        cheat_kinds: tuple[str, ...] = CHEATS,
        bots: Sequence[str] = (),
    ) -> None:
        super().__init__(scene, controls)
        self.rules = rules
        self.players = players
        self.seed = seed
        self.cheat = cheat
        self.dealer = dealer
        self.on_log = on_log
        self.hopper = hopper
        self.load = load
        self.cheat_kinds = cheat_kinds
        self.bots = bots
        kinds = list(self.bots) or ["greedy"] * self.players
        self._bots = make_bots(kinds, self.seed)
        self.rng = random.Random(self.seed * 1_000_003 + 17)
        self.hands: list[list[Card]] = [[] for _ in range(self.players)]
        self.layout_dealt: list[Card] = []
        self.dealt_log: list[tuple[str, Card]] = []
        self.deck: list[Card] = []  # the machine's deck in dealing order, once known
        self.truth: ChineseTenState | None = None
        self.ids: dict[Card, int] = {}  # scene ids of the cards on the mat
        self.flips: list[Card] = []
        self.fast_forward_to = 0
        self.turn = 0
        self.hold_live = False
        self._instant = False
        self.restoring = False
        self._restore_hopper: list[Card] = []

    # -- physical inputs from the dealer machine ---------------------------------------------------

    def on_dealt(self, target: str, card: Card, face: str) -> None:
        """The machine put ``card`` at ``target`` (device names: ``seat:1``.., ``layout``)."""
        self.dealt_log.append((target, card))
        if not self.restoring:
            self.on_log({"dealt": [target, str(card), face]})
        if target.startswith("seat:"):
            self.hands[int(target.split(":")[1]) - 1].append(card)
        elif target == "layout":
            self._scene_place(card, "layout", seat=None, animate=False)
            if len(self.layout_dealt) < LAYOUT_SIZE and self.truth is None:
                self.layout_dealt.append(card)
            else:
                self.flips.append(card)
        if len(self.dealt_log) == DEALT_TO_PLAYERS + LAYOUT_SIZE and self.truth is None:
            self.deal_complete(list(self._restore_hopper) if self.restoring else self.hopper())

    def deal_complete(self, hopper: Sequence[Card]) -> None:
        """The deal is done; ``hopper`` is what the machine still holds (the stock, top first)."""
        hands = [list(h) for h in self.hands]
        self.deck = [c for _, c in self.dealt_log] + list(hopper)
        self.truth = ChineseTenState(
            self.rules,
            players=self.players,
            dealer=self.dealer,
            layout=self.layout_dealt,
            hands=hands,
            stock=list(hopper),
        )

    # -- the script --------------------------------------------------------------------------------

    def answer_prompt(self) -> None:
        """People confirm the card the referee names when it lies on the mat, and say no otherwise."""
        if self.hold_live or not self.answers_prompts:
            return
        prompt = self.controls.prompt()
        if prompt is None or prompt is self._answered:
            return
        self._answered = prompt
        on_mat = {str(c) for c in self.ids}
        right = any(card in on_mat for card in prompt_yes_cards(prompt))
        self.answers += 1
        self.controls.press(prompt.seat, not right)

    def go_live(self) -> None:
        self.hold_live = False

    def _scene_place(self, card: Card, zone: str, *, seat: int | None, animate: bool = True) -> None:
        self.ids[card] = self.scene.place(
            str(card), zone, face_up=True, seat=seat, animate=animate and not self._fast()
        )

    def _scene_take(self, cards: Sequence[Card], seat: int, *, to_capture: bool = True) -> None:
        ids = [self.ids.pop(c) for c in cards]
        self.scene.take(ids, f"capture:{seat}" if to_capture else None, seat=seat, animate=not self._fast())

    def _fast(self) -> bool:
        return self._instant or self.steps_done < self.fast_forward_to

    def _act(self, do: Callable[[], None]) -> Generator[Step, None, None]:
        """One physical action: counted (the world's position), carried out, then wait until the
        table has settled and the controller has seen it. While fast-forwarding after a restart
        actions happen at once and silently; the first live one waits until ``hold_live`` drops."""
        fast = self._fast()
        if not fast and self.hold_live:
            yield lambda: not self.hold_live
        self._instant = fast
        self.steps_done += 1
        if not fast:
            self.on_log({"step": self.steps_done})
        do()
        self._instant = False
        if not fast:
            yield self.idle

    def _wait(self, cond: Callable[[], bool], ticks: int) -> Generator[Step, None, None]:
        if self._fast():
            return
        left = [ticks]

        def step() -> bool:
            left[0] -= 1
            return cond() or left[0] <= 0

        yield step

    def _flipped(self, flips_done: int) -> bool:
        return len(self.flips) > flips_done

    def script(self) -> Generator[Step, None, None]:
        yield lambda: self.truth is not None
        truth = self.truth
        assert truth is not None
        if truth.opening_capture:  # four of a kind in the first layout: the dealer takes them at once
            yield from self._act(lambda: self._scene_take(list(truth.opening_capture), self.dealer))
        while truth.phase in (Phase.PLAY, Phase.FLIP):
            seat = truth.to_act
            if truth.phase is Phase.PLAY:
                self.turn += 1
                move = self._bots[seat].choose(truth)
                yield from self._wait(self.led_is(seat, "turn"), 2000)
                kind = self._pick_cheat(truth, move)
                yield from self._play(truth, move, kind)
                truth.play(move.seat, move.card, move.take)
            else:
                flips_done = truth.moves_made // 2
                yield partial(self._flipped, flips_done)
                if not self._fast():
                    yield self.idle  # the flipped card is seen before anyone touches it
                if self.flips[flips_done] is not truth.stock_top:
                    raise RuntimeError(
                        f"the machine flipped {self.flips[flips_done]}, the stock top is {truth.stock_top}"
                    )
                move = self._bots[seat].choose(truth)
                if move.take:
                    yield from self._act(partial(self._scene_take, [move.card, *move.take], move.seat))
                truth.flip(move.card, move.take)
        # opening captures at the deal are the dealer's to gather
        yield from ()

    def _pick_cheat(self, truth: ChineseTenState, move: Move) -> str | None:
        if self.cheat <= 0 or self.rng.random() >= self.cheat:
            return None
        seat = move.seat
        hand = truth.hand(seat) or ()
        others = [s for s in range(self.players) if s != seat and (truth.hand(s) or ())]
        non_targets = [c for c in truth.layout if c not in move.take]
        options = []
        if others and OUT_OF_TURN in self.cheat_kinds:
            options.append(OUT_OF_TURN)
        if move.take and len(move.take) == 1:
            if len(hand) >= 2:
                options.append(TWO_CARDS)
            if () not in truth.takes(move.card):
                options.append(CAPTURE_COMPULSORY)
            if non_targets:
                options.append(NON_MATCHING)
                options.append(WRONG_CARD)
        if not options:
            return None
        return self.rng.choice(options)

    def _play(self, truth: ChineseTenState, move: Move, kind: str | None) -> Generator[Step, None, None]:
        seat, card = move.seat, move.card
        pair = [card, *move.take]
        if kind == OUT_OF_TURN:
            other = self.rng.choice([s for s in range(self.players) if s != seat and (truth.hand(s) or ())])
            wrong = self.rng.choice(list(truth.hand(other) or ()))
            self.cheats.append(Cheat(("turn", self.turn), other, kind, (str(wrong),)))
            yield from self._act(lambda: self._scene_place(wrong, "layout", seat=other))
            yield from self._wait(self.led_is(other, "error"), FLAG_WAIT_TICKS)
            yield from self._act(lambda: self._scene_take([wrong], other, to_capture=False))
            yield from self._wait(self.led_not(other, "error"), FLAG_WAIT_TICKS)
        yield from self._act(lambda: self._scene_place(card, "layout", seat=seat))
        if kind == TWO_CARDS:
            second = self.rng.choice([c for c in (truth.hand(seat) or ()) if c is not card])
            self.cheats.append(Cheat(("turn", self.turn), seat, kind, (str(card), str(second))))
            yield from self._act(lambda: self._scene_place(second, "layout", seat=seat))
            yield from self._wait(self.led_is(seat, "error"), FLAG_WAIT_TICKS)
            yield from self._act(lambda: self._scene_take([second], seat, to_capture=False))
        elif kind == CAPTURE_COMPULSORY:
            self.cheats.append(Cheat(("turn", self.turn), seat, kind, (str(card),)))
            yield from self._act(lambda: None if self._fast() else self.press(seat, False))
            yield from self._wait(self.led_is(seat, "error"), FLAG_WAIT_TICKS)
        elif kind in (NON_MATCHING, WRONG_CARD):
            bystander = self.rng.choice([c for c in truth.layout if c not in move.take])
            wrong_pair = [card, bystander] if kind == NON_MATCHING else [move.take[0], bystander]
            self.cheats.append(Cheat(("turn", self.turn), seat, kind, tuple(str(c) for c in wrong_pair)))
            yield from self._act(lambda: self._scene_take(wrong_pair, seat))
            yield from self._wait(self.led_is(seat, "error"), FLAG_WAIT_TICKS)
            for back in wrong_pair:
                yield from self._act(partial(self._scene_place, back, "layout", seat=seat))
        if move.take:
            yield from self._act(lambda: self._scene_take(pair, seat))
        yield from self._wait(self.led_not(seat, "error"), FLAG_WAIT_TICKS)

    # -- restart ---------------------------------------------------------------------------------

    def restore(self, log: Sequence[dict[str, Any]]) -> None:
        """Rebuild the table from the world's log (after a kill): the deals the machine made and the
        actions the bots took, all at once and unseen; the machine gets the deck it still held."""
        steps = [int(e["step"]) for e in log if "step" in e]
        self.fast_forward_to = max(steps, default=0)
        self.hold_live = True
        self.restoring = True
        self.scene.silent = True
        hopper: list[Card] | None = None
        try:
            for entry in log:
                if "hopper" in entry:
                    hopper = [Card.parse(c) for c in entry["hopper"]]
                elif "dealt" in entry:
                    target, card_text, face = entry["dealt"]
                    card = Card.parse(card_text)
                    if hopper is not None and card in hopper:
                        hopper.remove(card)
                    self._restore_hopper = hopper or []
                    self.on_dealt(target, card, face)
                elif "step" in entry:
                    while self.steps_done < int(entry["step"]) and not self.finished:
                        before = self.steps_done
                        self.tick()
                        if self.steps_done == before:
                            break
        finally:
            self.restoring = False
            self.scene.silent = False
        if hopper is not None:
            self.load(hopper)

    # -- results -----------------------------------------------------------------------------------

    def truth_result(self) -> dict[str, Any] | None:
        st = self.truth
        if st is None or st.outcome is None:
            return None
        from table.chinese_ten.referee import result_json

        return result_json(st)

    def comparable(self, result: dict[str, Any] | None) -> Any:
        """Each seat's points and captured cards."""
        if result is None:
            return None
        return [(s["seat"], s["points"], sorted(s["captured"])) for s in result.get("seats", [])]
