"""Seat buttons, a status LED and a buzzer on the Pi's own pins, with gpiozero.

A short press is "done / confirm"; a long press (held ``long_press_s`` or more) is "dispute / undo".
Debounce and hold timing live here, not in gpiozero's ``bounce_time`` (mock pins ignore it, and a
test must be able to prove them): edges closer than ``debounce_s`` to the last accepted edge of a
seat are ignored, and a press is classified on release by how long it was held. Pass the pin
factory explicitly (``MockFactory()`` in tests and the demo) rather than setting the global.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.errors import RequestError

Pin = int | str


@dataclass(frozen=True, slots=True)
class GpioPins:
    """Pin map (table.toml's ``[gpio]``, read by :mod:`table.config`): BCM numbers or gpiozero pin names."""

    buttons: Mapping[int, Pin]  # seat (1-based) -> pin
    status_led: Pin | None = None
    buzzer: Pin | None = None
    long_press_s: float = 1.0
    debounce_s: float = 0.05


@dataclass(frozen=True, slots=True)
class ButtonPress:
    seat: int
    long: bool  # True: dispute / undo; False: done / confirm
    held_s: float

    @property
    def meaning(self) -> str:
        return "dispute" if self.long else "confirm"


@dataclass
class _SeatState:
    pressed_at: float | None = None
    last_edge: float = float("-inf")


@dataclass
class SeatButtons:
    """One button per seat (pull-up, pressed = low). Presses go to ``events`` and ``when_pressed``/
    ``when_long_pressed`` callbacks (called in the thread that saw the edge: keep them short)."""

    pins: GpioPins
    pin_factory: Any = None
    clock: Callable[[], float] = time.monotonic
    when_pressed: Callable[[ButtonPress], None] | None = None
    when_long_pressed: Callable[[ButtonPress], None] | None = None
    events: queue.Queue[ButtonPress] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        from gpiozero import Button

        self._lock = threading.Lock()
        self._state = {seat: _SeatState() for seat in self.pins.buttons}
        self.buttons: dict[int, Any] = {}
        try:
            for seat, pin in self.pins.buttons.items():
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=self.pin_factory)
                button.when_pressed = lambda _d=None, s=seat: self._edge(s, True)
                button.when_released = lambda _d=None, s=seat: self._edge(s, False)
                self.buttons[seat] = button
        except BaseException:
            self.close()
            raise

    def _edge(self, seat: int, pressed: bool) -> None:
        now = self.clock()
        press: ButtonPress | None = None
        with self._lock:
            st = self._state[seat]
            if now - st.last_edge < self.pins.debounce_s:
                return  # contact bounce
            st.last_edge = now
            if pressed:
                st.pressed_at = now
                return
            if st.pressed_at is None:
                return  # a release without a press we accepted
            held = now - st.pressed_at
            st.pressed_at = None
            press = ButtonPress(seat, held >= self.pins.long_press_s, held)
        self._deliver(press)

    def inject(self, seat: int, *, long: bool = False) -> ButtonPress:
        """A press from elsewhere (the terminal, a demo bot), delivered exactly like a real one."""
        if seat not in self._state:
            raise RequestError(f"no button for seat {seat}")
        press = ButtonPress(seat, long, self.pins.long_press_s if long else 0.0)
        self._deliver(press)
        return press

    def _deliver(self, press: ButtonPress) -> None:
        self.events.put(press)
        callback = self.when_long_pressed if press.long else self.when_pressed
        if callback is not None:
            callback(press)

    def is_held(self, seat: int) -> bool:
        return self._state[seat].pressed_at is not None

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()

    def __enter__(self) -> SeatButtons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StatusPanel:
    """The status LED and the buzzer: ``ok()``, ``busy()``, ``fault()``, ``beep(times)``."""

    def __init__(self, pins: GpioPins, *, pin_factory: Any = None) -> None:
        from gpiozero import LED, Buzzer

        self.led = LED(pins.status_led, pin_factory=pin_factory) if pins.status_led is not None else None
        try:
            self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory) if pins.buzzer is not None else None
        except BaseException:
            if self.led is not None:
                self.led.close()
            raise

    def ok(self) -> None:
        if self.led is not None:
            self.led.on()

    def busy(self) -> None:
        if self.led is not None:
            self.led.blink(on_time=0.5, off_time=0.5)

    def fault(self) -> None:
        if self.led is not None:
            self.led.blink(on_time=0.1, off_time=0.1)

    def off(self) -> None:
        if self.led is not None:
            self.led.off()

    def beep(self, times: int = 1, *, on_time: float = 0.08, off_time: float = 0.08) -> None:
        """Beep in the background (gpiozero's own thread): never blocks the caller."""
        if self.buzzer is not None and times > 0:
            self.buzzer.beep(on_time=on_time, off_time=off_time, n=times, background=True)

    def close(self) -> None:
        for device in (self.led, self.buzzer):
            if device is not None:
                device.close()

    def __enter__(self) -> StatusPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
