"""The fast, camera-less stand-ins of the demo world (``cardtable demo --direct`` and unit tests):
a scene that reports each change as a table event at once, and a dealer that deals from a
seeded deck in-process. The controller behind them is the real one; only the senses are direct.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from table.cards import Card, shuffled, standard_pack
from table.controller.adapters import zone_from_mat
from table.controller.referee import Input


class DirectScene:
    """Implements the world's ``Scene``: every change is reported immediately and perfectly."""

    def __init__(self, post: Callable[[Input], None]) -> None:
        self.post = post
        self.cards: dict[int, tuple[str, str]] = {}  # id -> (card, zone)
        self._next = 1
        self.busy = False
        self.silent = False

    def place(
        self,
        card: str,
        zone: str,
        *,
        face_up: bool = True,
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
    ) -> int:
        cid = self._next
        self._next += 1
        self.cards[cid] = (card, zone)
        if not self.silent:
            self.post(Input("table", "appeared", card, zone_from_mat(zone), track=cid, candidates=((card, 0.99),)))
        return cid

    def take(
        self,
        card_ids: Sequence[int],
        to_zone: str | None,
        *,
        face_up: bool | None = False,
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
        name: str = "take",
    ) -> None:
        for cid in card_ids:
            card, zone = self.cards.pop(cid)
            if not self.silent:
                self.post(Input("table", "removed", card, zone_from_mat(zone), track=cid))

    def show_all(self) -> None:
        """What a freshly started camera reports: every card now on the mat."""
        for cid, (card, zone) in sorted(self.cards.items()):
            self.post(
                Input("table", "appeared", card, zone_from_mat(zone), track=100000 + cid, candidates=((card, 0.99),))
            )


class DirectDealer:
    """A dealer machine in-process: shuffles a seeded deck and deals from it, telling the world."""

    def __init__(
        self,
        seed: int,
        on_dealt: Callable[[str, Card, str], None],
        *,
        card_reader: bool = True,
        deck: Sequence[Card] | None = None,
    ) -> None:
        self.seed = seed
        self.on_dealt = on_dealt
        self.card_reader = card_reader
        self.deck = list(deck) if deck is not None else standard_pack()
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

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        self.leds[seat] = rgb
