"""Seat LEDs with meanings: whose turn, an error at a seat, a capture accepted, the winner, a question.

``SeatLeds`` keeps what each seat means and sends the device a command only when a seat's look
changes. Priority when several apply: error > ask > winner > capture > turn > off. Any object with
``set_led(seat, colour, pattern)`` drives it: a :class:`~firmware_bridge.dealer.Dealer`, or
:class:`RecordingLeds` where there is no machine (the demo's view, tests).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

from firmware_bridge.errors import RequestError
from firmware_bridge.messages import Pattern

Colour = tuple[int, int, int]


class LedSink(Protocol):
    def set_led(self, seat: int, colour: Colour, pattern: Pattern | str = Pattern.SOLID) -> None: ...


@dataclass(frozen=True, slots=True)
class LedColours:
    """Colours of each meaning (configurable in table.toml)."""

    turn: Colour = (0, 0, 255)
    error: Colour = (255, 0, 0)
    capture: Colour = (0, 255, 0)
    winner: Colour = (255, 170, 0)
    ask: Colour = (255, 255, 255)


@dataclass(frozen=True, slots=True)
class LedState:
    meaning: str  # "off", "turn", "capture", "winner", "ask", "error" or "raw"
    colour: Colour
    pattern: Pattern


OFF = LedState("off", (0, 0, 0), Pattern.OFF)


@dataclass
class _Seat:
    turn: bool = False
    capture: bool = False
    winner: bool = False
    ask: bool = False
    error: bool = False
    raw: LedState | None = None
    shown: LedState = field(default=OFF)


class SeatLeds:
    def __init__(self, sink: LedSink, seats: int, *, colours: LedColours | None = None) -> None:
        if seats < 1:
            raise RequestError("seats must be at least 1")
        self.sink = sink
        self.seats = seats
        self.colours = colours or LedColours()
        self._seat = {s: _Seat() for s in range(1, seats + 1)}
        self._lock = threading.RLock()

    # ---- meanings -----------------------------------------------------------------------------
    def turn(self, seat: int) -> None:
        """It is ``seat``'s turn: its LED shows the turn colour, every other seat's turn light goes out."""
        with self._lock:
            for s, st in self._seat.items():
                st.turn = s == self._check(seat)
                st.capture = False
            self._render_all()

    def error(self, seat: int) -> None:
        """Flag an error at ``seat``: blinks until :meth:`clear_error` (put right or overridden)."""
        self._set(seat, error=True)

    def clear_error(self, seat: int) -> None:
        self._set(seat, error=False)

    def capture_ok(self, seat: int) -> None:
        """A capture at ``seat`` was accepted: shown until the turn moves on."""
        self._set(seat, capture=True)

    def winner(self, seat: int) -> None:
        self._set(seat, winner=True)

    def ask(self, seat: int) -> None:
        """Ask ``seat`` to confirm something (a doubtful card): pulses until :meth:`clear_ask`."""
        self._set(seat, ask=True)

    def clear_ask(self, seat: int) -> None:
        self._set(seat, ask=False)

    def clear(self, seat: int | None = None) -> None:
        """Forget every meaning at ``seat`` (all seats when None): the LED goes out."""
        with self._lock:
            for s in [self._check(seat)] if seat is not None else list(self._seat):
                shown = self._seat[s].shown
                self._seat[s] = _Seat(shown=shown)
                self._render(s)

    # ---- raw ------------------------------------------------------------------------------------
    def set(self, seat: int, colour: Colour, pattern: Pattern | str = Pattern.SOLID) -> None:
        """Raw colour and pattern, shown until :meth:`release` (errors still show over it)."""
        p = pattern if isinstance(pattern, Pattern) else Pattern[str(pattern).upper()]
        with self._lock:
            self._seat[self._check(seat)].raw = LedState("raw", colour, p)
            self._render(seat)

    def release(self, seat: int) -> None:
        with self._lock:
            self._seat[self._check(seat)].raw = None
            self._render(seat)

    def state(self, seat: int) -> LedState:
        with self._lock:
            return self._seat[self._check(seat)].shown

    def states(self) -> dict[int, LedState]:
        with self._lock:
            return {s: st.shown for s, st in self._seat.items()}

    # ---- internals ------------------------------------------------------------------------------
    def _check(self, seat: int) -> int:
        if seat not in self._seat:
            raise RequestError(f"seat {seat} out of range 1..{self.seats}")
        return seat

    def _set(self, seat: int, **flags: bool) -> None:
        with self._lock:
            st = self._seat[self._check(seat)]
            for name, value in flags.items():
                setattr(st, name, value)
            self._render(seat)

    def _look(self, st: _Seat) -> LedState:
        c = self.colours
        if st.error:
            return LedState("error", c.error, Pattern.BLINK)
        if st.raw is not None:
            return st.raw
        if st.ask:
            return LedState("ask", c.ask, Pattern.PULSE)
        if st.winner:
            return LedState("winner", c.winner, Pattern.CHASE)
        if st.capture:
            return LedState("capture", c.capture, Pattern.SOLID)
        if st.turn:
            return LedState("turn", c.turn, Pattern.SOLID)
        return OFF

    def _render_all(self) -> None:
        for s in self._seat:
            self._render(s)

    def _render(self, seat: int) -> None:
        st = self._seat[seat]
        look = self._look(st)
        if look != st.shown:
            self.sink.set_led(seat, look.colour, look.pattern)
            st.shown = look


class RecordingLeds:
    """A sink with no hardware: remembers each seat's colour and pattern and every command sent."""

    def __init__(self) -> None:
        self.leds: dict[int, tuple[Colour, Pattern]] = {}
        self.commands: list[tuple[int, Colour, Pattern]] = []

    def set_led(self, seat: int, colour: Colour, pattern: Pattern | str = Pattern.SOLID) -> None:
        p = pattern if isinstance(pattern, Pattern) else Pattern[str(pattern).upper()]
        self.commands.append((seat, colour, p))
        self.leds[seat] = (colour, p)
