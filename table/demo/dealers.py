"""The demo's dealer machines, each the loop's :class:`~table.controller.loop.DealerPort`:

* :class:`SimulatedMachine`: the firmware bridge's simulator (``Dealer.open(backend="sim")``: a pseudo-terminal
  opened through pyserial) driven through the real :class:`firmware_bridge.dealer.Dealer`; it tells the world
  each card it physically deals before it answers the host, as a real machine's card is on the table before
  its reply arrives (Chinese Ten through the camera);
* :class:`DirectDealer`: deals a seeded deck in-process, telling the world at once (Chinese Ten, perfect senses);
* :class:`GatedDealer`: holds a deck the world loads; every card is dealt by the world's own thread, so every
  physical change, dealt cards included, happens in one order the world controls (Frog, Garbage).

:class:`DealerLife` is the machine as one life of the controller sees it: a killed controller sends nothing more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from table.cards import Card, shuffled, standard_pack
from table.controller.loop import DealerPort
from table.demo.world_log import WorldRecord

Dealt = Callable[[str, Card, str], None]
"""Told of each card a machine deals: the device's target (``seat:1``.., ``layout``), the card, its face."""


class SimulatedMachine:
    """The firmware bridge's simulated dealer machine on a pseudo-terminal, through the real :class:`Dealer`.
    ``on_shuffle`` hears the hopper's order after each shuffle, ``on_dealt`` each card dealt."""

    def __init__(
        self,
        *,
        seats: int,
        card_reader: bool,
        seed: int,
        speed: float,
        on_shuffle: Callable[[list[Card]], None],
        on_dealt: Dealt,
    ) -> None:
        from firmware_bridge.dealer import Dealer
        from firmware_bridge.simulator import Simulator
        from table.controller.adapters import MachineDealer

        class TellingSimulator(Simulator):
            """The simulator, telling the world what it physically did."""

            def record(self, action: str, **fields: Any) -> None:
                super().record(action, **fields)
                if action == "shuffle":
                    on_shuffle(list(self.hopper))
                elif action == "deal":
                    on_dealt(str(fields["target"]), Card.parse(str(fields["card"])), str(fields["face"]))

        self.simulator = TellingSimulator(seats=seats, card_reader=card_reader, seed=seed, speed=speed)
        self.device = Dealer.open(backend="sim", simulator=self.simulator, timeout=5.0)
        self.port: DealerPort = MachineDealer(self.device)

    def remaining(self) -> list[Card]:
        """The hopper, top first."""
        return list(self.simulator.hopper)

    def load(self, cards: Sequence[Card]) -> None:
        self.simulator.load_deck(list(cards))

    def stats(self) -> dict[str, Any]:
        return {
            "link": str(self.device.stats),
            "device_leds": {str(k): list(v[1]) for k, v in self.simulator.leds.items()},
        }

    def close(self) -> None:
        self.device.close()


class DirectDealer:
    """A dealer machine in-process: shuffles a seeded deck and deals from it, telling the world."""

    def __init__(self, seed: int, on_dealt: Dealt, *, card_reader: bool = True) -> None:
        self.seed = seed
        self.on_dealt = on_dealt
        self.card_reader = card_reader
        self.deck = standard_pack()
        self.leds: dict[int, tuple[int, int, int]] = {}
        self._lock = threading.RLock()
        self.shuffled_once = False

    def shuffle(self) -> None:
        """Shuffle once (seeded); a repeated SHUFFLE after a restart leaves the deck as it is, as a
        machine that already shuffled would report."""
        with self._lock:
            if not self.shuffled_once:
                self.deck = shuffled(self.deck, self.seed)
                self.shuffled_once = True

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        with self._lock:
            if not self.deck:
                return False, None, "the hopper is empty: load cards"
            card = self.deck.pop(0)
            device_target = target if ":" not in target else f"seat:{int(target.split(':')[1]) + 1}"
            self.on_dealt(device_target, card, face)
        return True, card if self.card_reader else None, "done"

    def hopper(self) -> int:
        with self._lock:
            return len(self.deck)

    def remaining(self) -> list[Card]:
        with self._lock:
            return list(self.deck)

    def load(self, cards: Sequence[Card]) -> None:
        """The deck a killed run's machine still held (already shuffled)."""
        with self._lock:
            self.deck = list(cards)
            self.shuffled_once = True

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        self.leds[seat] = rgb


@dataclass
class DealRequest:
    target: str
    face: str
    done: threading.Event = field(default_factory=threading.Event)
    result: tuple[bool, Card | None, str] = (False, None, "cancelled")


class GatedDealer:
    """The dealer machine: holds a deck (top first), deals when the world turns the crank."""

    def __init__(self, *, card_reader: bool = True) -> None:
        self.card_reader = card_reader
        self.deck: list[Card] = []
        self.leds: dict[int, tuple[int, int, int]] = {}
        self._lock = threading.Lock()
        self._requests: list[DealRequest] = []
        self.dealt = 0
        self.record = WorldRecord()  # the world's log (the runner sets the world's)

    # the loop's side (dealer worker thread)
    def shuffle(self) -> None:
        """The world loads decks already in their (seeded) order: the shuffle is part of loading."""

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        request = DealRequest(target, face)
        with self._lock:
            self._requests.append(request)
        if not request.done.wait(120):
            with self._lock:
                if request in self._requests:
                    self._requests.remove(request)
            return False, None, "the machine did not answer"
        return request.result

    def hopper(self) -> int:
        with self._lock:
            return len(self.deck)

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        self.leds[seat] = rgb

    # the world's side
    def load(self, cards: Sequence[Card]) -> None:
        with self._lock:
            self.deck = list(cards)

    def pending(self) -> DealRequest | None:
        if self.record.replaying:  # the deal the log says came next (the world may act before it)
            ahead = [e["deal"] for e in self.record.replay[self.record.pos :] if "deal" in e]
            # not logged: the log ends with what the world did before the deal (the live
            # controller's command is the one it answers)
            return DealRequest(str(ahead[0][0]) if ahead else "?", "")
        with self._lock:
            return self._requests[0] if self._requests else None

    def perform(self, request: DealRequest) -> Card | None:
        """Deal the top card for ``request``; returns it (``None`` when the hopper is empty). The
        deal is logged before the card leaves the machine."""
        with self._lock:
            top = str(self.deck[0]) if self.deck else None
        return self.record.do({"deal": [request.target, top]}, lambda: self._perform(request), lambda: self._pop())

    def _pop(self) -> Card | None:
        with self._lock:
            if not self.deck:
                return None
            self.dealt += 1
            return self.deck.pop(0)

    def _perform(self, request: DealRequest) -> Card | None:
        with self._lock:
            if request in self._requests:
                self._requests.remove(request)
        card = self._pop()
        if card is None:
            request.result = (False, None, "the hopper is empty: load cards")
            request.done.set()
            return None
        request.result = (True, card if self.card_reader else None, "done")
        request.done.set()
        return card

    def cancel_all(self) -> None:
        """The controller died: its waiting commands end unanswered (the new one re-sends them)."""
        with self._lock:
            requests, self._requests = self._requests, []
        for r in requests:
            r.result = (False, None, "controller restarted")
            r.done.set()


class DealerLife:
    """The dealer machine as one life of the controller sees it. When that controller dies its
    queued commands must not reach the machine (a killed process sends nothing more)."""

    def __init__(self, dealer: DealerPort) -> None:
        self.dealer = dealer
        self.alive = True

    def shuffle(self) -> None:
        self.dealer.shuffle()

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        if not self.alive:
            return False, None, "controller dead"
        return self.dealer.deal(target, face)

    def hopper(self) -> int:
        return self.dealer.hopper()

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        set_led = getattr(self.dealer, "set_led", None)
        if self.alive and set_led is not None:
            set_led(seat, rgb)
