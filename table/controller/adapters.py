"""Thin adapters between the controller and the other parts: vision's table events, the dealer
machine, and seat buttons on gpiozero pins.

Seats: the controller and the engines number seats from 0; the play mat's zones (``seat:1``,
``capture:1``) and the dealer machine's targets number them from 1. The conversion happens here
and nowhere else.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from table.cards import Card
from table.controller.referee import Input

TOP_CANDIDATES = 6
FACES = tuple(r + s for s in "CDHS" for r in "A23456789TJQK")
LABELS = (*FACES, "back")


def zone_from_mat(zone: str | None) -> str | None:
    """``seat:1`` on the mat is the table's seat 0."""
    if zone and ":" in zone:
        kind, _, number = zone.partition(":")
        try:
            return f"{kind}:{int(number) - 1}"
        except ValueError:
            return zone
    return zone


def zone_to_mat(zone: str) -> str:
    if ":" in zone:
        kind, _, number = zone.partition(":")
        return f"{kind}:{int(number) + 1}"
    return zone


def input_from_event(event: Any) -> Input:
    """A ``vision.events.TableEvent`` as a controller input (zones renumbered, the classifier's
    probabilities reduced to the best few candidates)."""
    kind = getattr(event.kind, "value", str(event.kind))
    if kind == "turned_over":
        kind = "turned"
    candidates: tuple[tuple[str, float], ...] = ()
    probs = getattr(event, "probabilities", None)
    if probs is not None and kind != "removed":
        order = sorted(range(len(probs)), key=lambda i: -float(probs[i]))[:TOP_CANDIDATES]
        candidates = tuple((LABELS[i], float(probs[i])) for i in order if i < len(LABELS))
    elif event.card not in ("back", "unknown"):
        candidates = ((event.card, float(event.confidence)),)
    zone = zone_from_mat(event.zone)
    if kind == "moved":
        return Input("table", "moved", event.card, zone_from_mat(event.from_zone), zone, track=event.track_id,
                     candidates=candidates)
    return Input("table", kind, event.card, zone, track=event.track_id, candidates=candidates)


class MachineDealer:
    """The :class:`firmware_bridge.dealer.Dealer` behind the loop's :class:`DealerPort`."""

    def __init__(self, dealer: Any) -> None:
        self.dealer = dealer

    def shuffle(self) -> None:
        self.dealer.shuffle()

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        result = self.dealer.deal(zone_to_mat(target), 1, face)
        card = result.cards[0] if result.dealt else None
        return bool(result.ok), card, str(result.reason)

    def hopper(self) -> int:
        return int(self.dealer.status().hopper)

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        self.dealer.set_led(seat + 1, rgb)


class SeatButtons:
    """One gpiozero ``Button`` per seat: a press is ``short`` (done / confirm), a press held at
    least ``hold_s`` is ``long`` (dispute / undo). The hold timing is ours: mock pins ignore
    ``bounce_time``, and a real button's bounce (under ``debounce_s``) is ignored here too."""

    def __init__(self, pins: dict[int, int], post: Callable[[Input], None], *, hold_s: float = 0.8,
                 debounce_s: float = 0.02, pin_factory: Any = None) -> None:
        from gpiozero import Button

        self.post = post
        self.hold_s = hold_s
        self.debounce_s = debounce_s
        self.buttons: dict[int, Any] = {}
        self._down: dict[int, float] = {}
        self._lock = threading.Lock()
        for seat, pin in pins.items():
            button = Button(pin, pin_factory=pin_factory)
            button.when_pressed = lambda s=seat: self._pressed(s)
            button.when_released = lambda s=seat: self._released(s)
            self.buttons[seat] = button

    def _pressed(self, seat: int) -> None:
        with self._lock:
            self._down[seat] = time.monotonic()

    def _released(self, seat: int) -> None:
        with self._lock:
            start = self._down.pop(seat, None)
        if start is None:
            return
        held = time.monotonic() - start
        if held < self.debounce_s:
            return
        self.post(Input("button", "long" if held >= self.hold_s else "short", seat=seat))

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
