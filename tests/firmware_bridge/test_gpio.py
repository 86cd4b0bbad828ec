"""Seat buttons, status LED and buzzer on gpiozero's MockFactory: press, long press, debounce, config."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.errors import RequestError
from firmware_bridge.gpio import ButtonPress, GpioPins, SeatButtons, StatusPanel


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


PINS = GpioPins({1: 5, 2: 6, 3: 13}, status_led=17, buzzer=27, long_press_s=1.0, debounce_s=0.05)


def press(factory: MockFactory, clock: Clock, pin: int, held: float) -> None:
    factory.pin(pin).drive_low()
    clock.now += held
    factory.pin(pin).drive_high()
    clock.now += 0.2


def test_short_press_confirms_and_long_press_disputes(factory: MockFactory) -> None:
    clock = Clock()
    confirmed: list[ButtonPress] = []
    disputed: list[ButtonPress] = []
    with SeatButtons(
        PINS, pin_factory=factory, clock=clock, when_pressed=confirmed.append, when_long_pressed=disputed.append
    ) as buttons:
        press(factory, clock, 6, 0.2)
        press(factory, clock, 13, 1.5)
        assert [(p.seat, p.meaning) for p in confirmed] == [(2, "confirm")]
        assert [(p.seat, p.meaning) for p in disputed] == [(3, "dispute")]
        assert buttons.events.qsize() == 2


def test_contact_bounce_is_one_press(factory: MockFactory) -> None:
    clock = Clock()
    with SeatButtons(PINS, pin_factory=factory, clock=clock) as buttons:
        pin = factory.pin(5)
        pin.drive_low()
        for _ in range(5):  # bouncing contacts within 10 ms
            clock.now += 0.002
            pin.drive_high()
            clock.now += 0.002
            pin.drive_low()
        assert buttons.is_held(1)
        clock.now += 0.3
        pin.drive_high()
        presses = [buttons.events.get_nowait() for _ in range(buttons.events.qsize())]
        assert len(presses) == 1 and not presses[0].long
        assert presses[0].held_s == pytest.approx(0.3, abs=0.03)


def test_hold_just_under_the_threshold_is_a_confirm(factory: MockFactory) -> None:
    clock = Clock()
    with SeatButtons(PINS, pin_factory=factory, clock=clock) as buttons:
        press(factory, clock, 5, 0.99)
        press(factory, clock, 5, 1.0)
        got = [buttons.events.get_nowait().long for _ in range(2)]
        assert got == [False, True]


def test_status_led_and_buzzer(factory: MockFactory) -> None:
    with StatusPanel(PINS, pin_factory=factory) as panel:
        panel.ok()
        assert factory.pin(17).state
        panel.off()
        assert not factory.pin(17).state
        panel.beep(2)
        panel.fault()


def test_injected_press_is_delivered_like_a_real_one(factory: MockFactory) -> None:
    got: list[ButtonPress] = []
    with SeatButtons(PINS, pin_factory=factory, when_long_pressed=got.append) as buttons:
        buttons.inject(3, long=True)
        assert got == [ButtonPress(3, True, 1.0)] and buttons.events.get_nowait().meaning == "dispute"
        with pytest.raises(RequestError, match="no button for seat 9"):
            buttons.inject(9)
