"""Seat LEDs: meanings, priorities, and that only changes reach the device."""

from __future__ import annotations

import pytest

from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import RequestError
from firmware_bridge.leds import LedColours, RecordingLeds, SeatLeds
from firmware_bridge.messages import Pattern


def test_turn_moves_from_seat_to_seat() -> None:
    sink = RecordingLeds()
    leds = SeatLeds(sink, 3)
    leds.turn(1)
    leds.turn(2)
    assert leds.state(1).meaning == "off" and leds.state(2).meaning == "turn"
    assert sink.leds[2] == (LedColours().turn, Pattern.SOLID)
    assert sink.leds[1] == ((0, 0, 0), Pattern.OFF)


def test_error_shows_over_everything_until_cleared() -> None:
    sink = RecordingLeds()
    leds = SeatLeds(sink, 3)
    leds.turn(2)
    leds.error(2)
    leds.set(2, (1, 2, 3))
    assert leds.state(2).meaning == "error" and leds.state(2).pattern is Pattern.BLINK
    leds.clear_error(2)
    assert leds.state(2).meaning == "raw"
    leds.release(2)
    assert leds.state(2).meaning == "turn"


def test_capture_shows_until_the_turn_moves_and_winner_persists() -> None:
    leds = SeatLeds(RecordingLeds(), 2)
    leds.turn(1)
    leds.capture_ok(1)
    assert leds.state(1).meaning == "capture"
    leds.turn(2)
    assert leds.state(1).meaning == "off"
    leds.winner(2)
    leds.ask(1)
    assert leds.states()[2].meaning == "winner" and leds.states()[1].meaning == "ask"
    leds.clear()
    assert all(s.meaning == "off" for s in leds.states().values())


def test_unchanged_looks_send_nothing() -> None:
    sink = RecordingLeds()
    leds = SeatLeds(sink, 4)
    leds.turn(1)
    sent = len(sink.commands)
    leds.turn(1)
    leds.clear_error(3)
    assert len(sink.commands) == sent == 1


def test_bad_seat_is_refused() -> None:
    with pytest.raises(RequestError, match="seat 3 out of range"):
        SeatLeds(RecordingLeds(), 2).error(3)


@pytest.mark.timeout(30)
def test_seat_leds_drive_the_dealer_machine() -> None:
    with Dealer.open(backend="mock", seats=3) as dealer:
        leds = SeatLeds(dealer, 3)
        leds.turn(3)
        leds.error(1)
        assert dealer.simulator.leds[3] == (Pattern.SOLID, LedColours().turn)
        assert dealer.simulator.leds[1] == (Pattern.BLINK, LedColours().error)
