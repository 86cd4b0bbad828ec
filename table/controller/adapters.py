"""Thin adapters between the controller and the other parts: vision's table events, the dealer
machine, and seat buttons on gpiozero pins.

Seats: the controller and the engines number seats from 0; the play mat's zones (``seat:1``,
``capture:1``) and the dealer machine's targets number them from 1. The conversion happens here
and nowhere else.
"""

from __future__ import annotations

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
        return Input(
            "table",
            "moved",
            event.card,
            zone_from_mat(event.from_zone),
            zone,
            track=event.track_id,
            candidates=candidates,
        )
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
    """The firmware bridge's gpiozero :class:`~firmware_bridge.gpio.SeatButtons` for table seats
    ``pins`` (seat from 0 -> BCM pin), posting each press to the loop as an input: ``short``
    (done / confirm) or ``long`` (held ``hold_s`` or more: dispute / undo). Debounce and hold
    timing are the bridge's (mock pins ignore gpiozero's ``bounce_time``)."""

    def __init__(
        self,
        pins: dict[int, int],
        post: Callable[[Input], None],
        *,
        hold_s: float = 0.8,
        debounce_s: float = 0.02,
        pin_factory: Any = None,
    ) -> None:
        from firmware_bridge.gpio import GpioPins
        from firmware_bridge.gpio import SeatButtons as BridgeButtons

        self.post = post
        gpio = GpioPins({seat + 1: pin for seat, pin in pins.items()}, long_press_s=hold_s, debounce_s=debounce_s)
        self.bridge = BridgeButtons(
            gpio, pin_factory=pin_factory, when_pressed=self._deliver, when_long_pressed=self._deliver
        )
        self.buttons = self.bridge.buttons

    def _deliver(self, press: Any) -> None:
        self.post(Input("button", "long" if press.long else "short", seat=int(press.seat) - 1))

    def close(self) -> None:
        self.bridge.close()


class LedDriver:
    """The referee's LED roles per seat (``idle``, ``turn``, ``error``, ``confirm``, ``winner``) on the
    firmware bridge's :class:`~firmware_bridge.leds.SeatLeds` (which sends a device command only
    when a seat's look changes)."""

    def __init__(self, sink: Any, seats: int, colours: dict[str, tuple[int, int, int]] | None = None) -> None:
        from firmware_bridge.leds import LedColours, SeatLeds

        c = colours or {}
        base = LedColours()
        self.leds = SeatLeds(
            sink,
            seats,
            colours=LedColours(
                turn=c.get("turn", base.turn),
                error=c.get("error", base.error),
                capture=c.get("capture", base.capture),
                winner=c.get("winner", base.winner),
                ask=c.get("confirm", base.ask),
            ),
        )
        self.seats = seats

    def apply(self, roles: dict[int, str]) -> None:
        leds = self.leds
        turn = [s for s, r in roles.items() if r == "turn"]
        if turn:
            leds.turn(turn[0] + 1)
        for seat in range(self.seats):
            role = roles.get(seat, "idle")
            n = seat + 1
            if role == "error":
                leds.error(n)
            else:
                leds.clear_error(n)
            if role == "confirm":
                leds.ask(n)
            else:
                leds.clear_ask(n)
            if role == "winner":
                leds.winner(n)
            if role == "idle" and not turn:
                leds.clear(n)
