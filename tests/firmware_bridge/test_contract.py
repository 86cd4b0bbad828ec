"""One contract suite, run against every backend: mock (in-memory), sim (pty through pyserial) and a
real board when ``CARDTABLE_DEALER_PORT`` names one (skipped otherwise)."""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Iterator
from typing import TypeVar

import pytest

from firmware_bridge.dealer import (
    ButtonEvent,
    CardDealtEvent,
    Dealer,
    DealError,
    DoorEvent,
    HopperEmptyEvent,
)
from firmware_bridge.errors import RequestError
from firmware_bridge.messages import ErrorCode, Face, Target
from table.cards import Card, standard_pack

T = TypeVar("T")

pytestmark = pytest.mark.timeout(60)
REAL_PORT = os.environ.get("CARDTABLE_DEALER_PORT")


@pytest.fixture(params=["mock", "sim", "real"])
def dealer(request: pytest.FixtureRequest) -> Iterator[Dealer]:
    if request.param == "real":
        if not REAL_PORT:
            pytest.skip("no board attached (set CARDTABLE_DEALER_PORT)")
        d = Dealer.open(REAL_PORT)
    else:
        d = Dealer.open(backend=request.param, seats=4, card_reader=True, speed=200, seed=7)
    try:
        yield d
    finally:
        d.close()


def sim_only(d: Dealer) -> None:
    if d.simulator is None:
        pytest.skip("needs the simulator's controls")


def test_hello_reports_capabilities(dealer: Dealer) -> None:
    info = dealer.hello()
    assert info.protocol == 1 and info.seats >= 1 and info.leds >= 1 and info.boot_id != 0


def test_open_homes_the_machine(dealer: Dealer) -> None:
    status = dealer.status()
    assert status.homed and not status.busy and status.last_error is ErrorCode.OK


def test_deal_reaches_its_target_in_order(dealer: Dealer) -> None:
    sim_only(dealer)
    order = [Card.parse(c) for c in ("AS", "KH", "2C", "TD", "5S")]
    dealer.simulator.load_deck(order)
    first = dealer.deal("seat:2", 3)
    second = dealer.deal("layout", 2, face="up")
    assert first.ok and second.ok
    assert first.cards == order[:3] and second.cards == order[3:]
    assert [d.face for d in second.dealt] == [Face.UP, Face.UP]
    truth = dealer.simulator.deals()
    assert [(t["target"], t["card"], t["face"]) for t in truth] == [
        ("seat:2", "AS", "down"),
        ("seat:2", "KH", "down"),
        ("seat:2", "2C", "down"),
        ("layout", "TD", "up"),
        ("layout", "5S", "up"),
    ]


def test_card_dealt_events_arrive_for_each_card(dealer: Dealer) -> None:
    dealer.deal("seat:1", 2)
    got: list[CardDealtEvent] = []
    deadline = time.monotonic() + 5
    while len(got) < 2 and time.monotonic() < deadline:
        event = dealer.events.get(timeout=5)
        if isinstance(event, CardDealtEvent):
            got.append(event)
    assert [e.dealt.number for e in got] == [1, 2]
    assert all(e.dealt.target == Target.parse("seat:1") for e in got)


def test_empty_hopper_is_a_result_not_an_exception(dealer: Dealer) -> None:
    sim_only(dealer)
    dealer.simulator.load_deck([Card.parse("QS")])
    result = dealer.deal("seat:3", 3)
    assert not result.ok and result.code is ErrorCode.HOPPER_EMPTY and result.code.recoverable
    assert result.cards == [Card.parse("QS")]
    assert "hopper" in result.reason
    with pytest.raises(DealError) as info:
        result.check()
    assert info.value.recoverable
    assert any(isinstance(e, HopperEmptyEvent) for e in drain(dealer.events))


def test_open_door_refuses_to_deal(dealer: Dealer) -> None:
    sim_only(dealer)
    dealer.simulator.open_door()
    result = dealer.deal("seat:1")
    assert result.code is ErrorCode.DOOR_OPEN and result.dealt == ()
    assert dealer.simulator.deals() == []
    assert wait_for(dealer, DoorEvent) == DoorEvent(True)
    dealer.simulator.close_door()
    assert dealer.deal("seat:1").ok


def test_device_button_event(dealer: Dealer) -> None:
    sim_only(dealer)
    dealer.simulator.press_button(2, long=True)
    assert wait_for(dealer, ButtonEvent) == ButtonEvent(2, True)


def test_shuffle_keeps_every_card(dealer: Dealer) -> None:
    sim_only(dealer)
    assert dealer.shuffle() == 52
    assert sorted(dealer.simulator.hopper) == sorted(standard_pack())
    assert dealer.simulator.hopper != standard_pack()


def test_leds_set_seat_colours(dealer: Dealer) -> None:
    dealer.set_led(2, (255, 0, 0), "blink")
    dealer.set_led(0, (0, 0, 255))
    if dealer.simulator is not None:
        assert dealer.simulator.leds[2] == (1, (0, 0, 255))
        assert len(dealer.simulator.leds) == 4


def test_bad_arguments_are_refused_before_the_wire(dealer: Dealer) -> None:
    with pytest.raises(RequestError):
        dealer.deal("seat:99")
    with pytest.raises(RequestError):
        dealer.deal("kitchen")
    with pytest.raises(RequestError):
        dealer.deal("seat:1", 0)
    with pytest.raises(RequestError):
        dealer.deal("seat:1", face="sideways")


def drain(q: queue.Queue[T]) -> list[T]:
    out: list[T] = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def wait_for(dealer: Dealer, kind: type, timeout: float = 5.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = dealer.events.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} within {timeout} s")
