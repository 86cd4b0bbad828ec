"""Replayed frames against the simulator over a real pseudo-terminal: a DEAL recorded off the wire and
sent again, however much later in the same boot, never deals again; a restarted host whose request ids
start behind the device's is moved past them by HELLO."""

from __future__ import annotations

import time

import pytest
import serial

from firmware_bridge.backends import serial_backend
from firmware_bridge.dealer import Dealer
from firmware_bridge.framing import Frame, Packetizer
from firmware_bridge.messages import DealRequest, ErrorCode, Face, MsgType, Target
from firmware_bridge.simulator import Simulator, serve_pty

pytestmark = pytest.mark.timeout(60)


class RawHost:
    """A host that writes frames it chose (a replay attacker, a confused second program) and reads replies."""

    def __init__(self, url: str) -> None:
        self.port = serial.serial_for_url(url, timeout=0.05, exclusive=True)
        self.packets = Packetizer()

    def ask(self, frame: Frame, wait_s: float = 5.0) -> Frame:
        self.port.write(frame.encode())
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            for reply in self.packets.data_received(self.port.read(256)):
                if reply.request == frame.request and reply.type in (MsgType.DONE, MsgType.FAILED, MsgType.HELLO_INFO):
                    return reply
        raise AssertionError(f"no final reply to {frame}")

    def close(self) -> None:
        self.port.close()


def test_a_deal_replayed_after_many_newer_commands_is_refused() -> None:
    sim = Simulator(seats=4, speed=100, seed=2)
    server = serve_pty(sim)
    try:
        with Dealer(serial_backend(server.url)) as dealer:
            assert dealer.deal("seat:2").ok
            boot = dealer.info.boot_id if dealer.info else 0
            for i in range(40):  # the device remembered 32 replies: the DEAL's is long gone
                dealer.set_led(i % 4 + 1, (i, 0, 0))
        recorded = next(r for r in sim.truth if r["action"] == "deal")["request"]
        host = RawHost(server.url)
        try:
            deal = Frame(MsgType.DEAL, recorded, boot, DealRequest(Target.parse("seat:2"), 1, Face.DOWN).encode())
            reply = host.ask(deal)
            assert reply.type == MsgType.FAILED and reply.payload[0] == ErrorCode.STALE_REQUEST
            assert host.ask(deal).payload[0] == ErrorCode.STALE_REQUEST  # and again
        finally:
            host.close()
    finally:
        server.stop()
    assert len(sim.deals()) == 1


def test_a_restarted_host_numbers_its_requests_after_the_devices_newest(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = Simulator(seats=4, speed=100, seed=2)
    server = serve_pty(sim)
    try:
        with Dealer(serial_backend(server.url)) as first:
            assert first.deal("seat:1").ok
        dealt = sim.deals()[0]["request"]
        # The next host happens to start two ids before that DEAL: after HELLO and STATUS its own DEAL would
        # carry the very id the device acted on, and be refused as a replay.
        monkeypatch.setattr("firmware_bridge.link.random.randrange", lambda a, b: dealt - 2)
        with Dealer(serial_backend(server.url)) as second:
            result = second.deal("seat:3")
            assert result.ok, result.reason
    finally:
        server.stop()
    assert [d["target"] for d in sim.deals()] == ["seat:1", "seat:3"]
