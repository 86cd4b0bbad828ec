"""The link under faults, against the simulator's physical truth: garbled wires, reboots, unplugging,
fuzzed bytes. Every test here does real I/O over a pseudo-terminal and has a timeout."""

from __future__ import annotations

import os
import pty
import threading
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.backends import serial_backend
from firmware_bridge.dealer import Dealer, DealerEvent, DealInterrupted, DealResult, LinkEvent
from firmware_bridge.errors import LinkError
from firmware_bridge.framing import Frame
from firmware_bridge.link import Link, open_serial
from firmware_bridge.messages import ErrorCode, MsgType
from firmware_bridge.sim_backends import sim_backend
from firmware_bridge.simulator import Faults, Simulator, serve_pty
from table.cards import multi_pack, shuffled, standard_pack

DEALS = 200


@pytest.mark.timeout(120)
def test_deals_through_a_garbled_wire_reach_exactly_their_targets() -> None:
    """5% of bytes corrupted, 5% dropped, 1% of frames duplicated, both ways: none lost, none twice."""
    deck = shuffled(multi_pack(4), seed=3)
    sim = Simulator(
        seats=4, speed=200, card_reader=True, deck=deck, seed=11, faults=Faults(drop=0.05, corrupt=0.05, duplicate=0.01)
    )
    targets = [f"seat:{i % 4 + 1}" if i % 7 else "layout" for i in range(DEALS)]
    with Dealer(sim_backend(sim)) as dealer:
        reported = []
        for target in targets:
            result = dealer.deal(target).check()
            reported += result.cards
        stats = dealer.stats
    truth = sim.deals()
    assert [t["target"] for t in truth] == targets  # exactly their targets, in order
    assert [t["card"] for t in truth] == [str(c) for c in deck[:DEALS]]
    assert [str(c) for c in reported] == [t["card"] for t in truth]  # the host knows what was dealt
    assert max(Counter(t["request"] for t in truth).values()) == 1  # no request acted on twice
    assert stats.crc_errors > 0 and stats.retries > 0  # the faults really happened


@pytest.mark.timeout(60)
def test_reboot_mid_deal_is_detected_failed_rehomed_and_play_goes_on() -> None:
    sim = Simulator(seats=3, speed=50, card_reader=True, deck=standard_pack(), reboot_every=7, seed=5)
    reboots_seen: list[float] = []
    with Dealer(sim_backend(sim)) as dealer:
        dealer.add_listener(
            lambda e: (
                reboots_seen.append(time.monotonic()) if isinstance(e, LinkEvent) and e.state == "rebooted" else None
            )
        )
        results: list[DealResult] = []
        hopper_before = 52
        while len(results) < 12:
            result = dealer.deal(f"seat:{len(results) % 3 + 1}", 3)
            results.append(result)
            if result.code is ErrorCode.DEVICE_REBOOTED:
                assert "rebooted" in result.reason and result.hopper_after is not None
                assert dealer.status().homed  # the host re-homed it
                hopper_before = result.hopper_after
            else:
                assert result.ok, result
                hopper_before -= 3
        assert dealer.status().hopper == hopper_before
    truth = sim.truth
    reboots = [r for r in truth if r["action"] == "reboot"]
    failed = [r for r in results if r.code is ErrorCode.DEVICE_REBOOTED]
    assert reboots and len(failed) == len(reboots)
    for r, seen in zip(reboots, reboots_seen, strict=False):
        assert seen - (sim._t0 + r["t"]) < 1.0  # detected within one second
    deals = sim.deals()
    per_request = Counter(d["request"] for d in deals)
    assert max(per_request.values()) <= 3  # a retried DEAL never dealt again
    assert len({d["card"] for d in deals}) == len(deals)  # no card dealt twice
    known = [str(c) for r in results for c in r.cards]
    assert len(deals) - len(known) <= len(reboots)  # at most the card in flight at each reboot is unreported


@pytest.mark.timeout(60)
def test_reboots_on_a_garbled_wire_are_still_caught_within_a_second() -> None:
    sim = Simulator(
        seats=4,
        speed=20,
        card_reader=True,
        deck=multi_pack(2),
        reboot_every=5,
        seed=8,
        faults=Faults(drop=0.05, corrupt=0.05, duplicate=0.01),
    )
    seen: list[float] = []
    with Dealer(sim_backend(sim)) as dealer:
        dealer.add_listener(
            lambda e: seen.append(time.monotonic()) if isinstance(e, LinkEvent) and e.state == "rebooted" else None
        )
        results = [dealer.deal(f"seat:{i % 4 + 1}", 2) for i in range(15)]
    reboots = [sim._t0 + r["t"] for r in sim.truth if r["action"] == "reboot"]
    assert reboots and len(seen) == len(reboots)
    assert all(s - b < 1.0 for b, s in zip(reboots, seen, strict=True))
    assert sum(r.code is ErrorCode.DEVICE_REBOOTED for r in results) == len(reboots)
    assert all(r.ok or r.code is ErrorCode.DEVICE_REBOOTED for r in results)
    assert max(Counter(d["request"] for d in sim.deals()).values()) <= 2


@pytest.mark.timeout(60)
def test_unplug_and_plug_back() -> None:
    sim = Simulator(seats=4, speed=200, seed=2)
    server = serve_pty(sim)
    events: list[LinkEvent] = []
    try:
        with Dealer(serial_backend(server.url)) as dealer:
            dealer.add_listener(lambda e: events.append(e) if isinstance(e, LinkEvent) else None)
            assert dealer.deal("seat:1").ok
            server.unplug()
            deadline = time.monotonic() + 5
            while dealer.connected and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not dealer.connected
            start = time.monotonic()
            with pytest.raises(LinkError) as info:
                dealer.deal("seat:2")
            assert time.monotonic() - start < 0.5 and "link lost" in str(info.value)
            with pytest.raises(LinkError):
                dealer.status()
            server.plug()
            deadline = time.monotonic() + 5
            while not dealer.connected and time.monotonic() < deadline:
                time.sleep(0.01)
            assert dealer.connected
            assert dealer.deal("seat:3").ok  # reconnected, re-read, re-homed, goes on
            assert dealer.status().homed
            assert dealer.stats.reconnects == 1
    finally:
        server.stop()
    states = [e.state for e in events]
    assert "lost" in states and "connected" in states
    assert [d["target"] for d in sim.deals()] == ["seat:1", "seat:3"]


@pytest.mark.timeout(60)
def test_link_lost_in_the_middle_of_a_deal_fails_it_cleanly() -> None:
    sim = Simulator(seats=4, speed=2, seed=2)
    server = serve_pty(sim)
    try:
        with Dealer(serial_backend(server.url)) as dealer:
            threading.Timer(0.3, server.unplug).start()
            with pytest.raises(DealInterrupted) as info:
                dealer.deal("seat:1", 10)
            assert "link lost" in str(info.value)
            assert len(info.value.dealt) <= len(sim.deals())
    finally:
        server.stop()


class GarbagePort:
    """A port that returns the given chunks, then nothing."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.done = threading.Event()

    @property
    def in_waiting(self) -> int:
        return len(self.chunks[0]) if self.chunks else 0

    def read(self, size: int = 1) -> bytes:
        if not self.chunks:
            self.done.set()
            time.sleep(0.005)
            return b""
        return self.chunks.pop(0)

    def write(self, data: bytes) -> int:
        return len(data)

    def close(self) -> None:
        pass


class FailingPort(GarbagePort):
    """A port whose writes fail: with the reader closing it first (``link`` set), or on its own."""

    link: Link | None = None

    def write(self, data: bytes) -> int:
        if self.link is not None:
            self.link._lost(self, OSError(5, "Input/output error"))  # the reader got there first
            raise TypeError("argument must be an int, or have a fileno() method.")  # pyserial, closed port
        raise OSError(5, "Input/output error")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("reader_first", [True, False])
def test_a_write_that_fails_as_the_link_drops_says_link_lost(reader_first: bool) -> None:
    """A deal cut by an unplugged cable must say "link lost", also when the writer loses the race with the
    reader (CI once saw "write failed (TypeError: ...)" from pyserial's closed descriptor)."""
    port = FailingPort([])
    link = Link("race://", opener=lambda url: port, heartbeat_s=60)
    port.link = link if reader_first else None
    try:
        with pytest.raises(LinkError, match="link lost"):
            link._write(b"\x00")
    finally:
        link.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=200), max_size=10))
def test_random_bytes_never_raise_out_of_the_reader(chunks: list[bytes]) -> None:
    valid = Frame(MsgType.DEVICE_HEARTBEAT, 0, 0x55, b"\x00").encode()
    port = GarbagePort([*chunks, b"\x00" + valid])
    events: list[Frame] = []
    link = Link("fuzz://", opener=lambda url: port, on_event=events.append, heartbeat_s=60)
    try:
        assert port.done.wait(5)
        assert link._thread.is_alive()
        assert link.connected
        assert any(f.boot == 0x55 for f in events) or link.boot_id is not None  # resynced after garbage
    finally:
        link.close()


@pytest.mark.timeout(30)
def test_garbage_from_a_real_pty_then_a_working_device() -> None:
    """A board spewing noise (boot loader chatter, wrong baud rate) before it speaks the protocol."""
    master, slave = pty.openpty()
    import tty

    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    link = Link(path, heartbeat_s=60)  # pyserial flushes input on open: the noise comes after
    try:
        os.write(master, os.urandom(3000))
        time.sleep(0.3)
        assert link._thread.is_alive() and link.stats.bad_frames > 0
        hello = Frame(MsgType.HELLO_INFO, 0, 0x77, bytes([1, 1, 0, 0, 0, 4, 4]))

        def answer() -> None:  # a minimal device: answer every HELLO until the pty closes
            from firmware_bridge.framing import Packetizer

            p = Packetizer()
            while True:
                try:
                    data = os.read(master, 100)
                except OSError:
                    return
                for f in p.data_received(data):
                    if f.type == MsgType.HELLO:
                        try:
                            os.write(master, Frame(MsgType.HELLO_INFO, f.request, 0x77, hello.payload).encode())
                        except OSError:  # the test closed the pty while a HELLO retry was answered
                            return

        device = threading.Thread(target=answer, daemon=True)
        device.start()
        reply = link.request(MsgType.HELLO, timeout=5)
        assert reply.final.type == MsgType.HELLO_INFO and link.boot_id == 0x77
    finally:
        link.close()
        os.close(master)
    device.join(timeout=5)


def test_opening_a_missing_port_says_which() -> None:
    with pytest.raises(LinkError, match="/dev/nonexistent"):
        open_serial("/dev/nonexistent-dealer")


@pytest.mark.timeout(30)
def test_a_silent_device_is_reported_then_heard_again() -> None:
    hb = Frame(MsgType.DEVICE_HEARTBEAT, 0, 0x42, b"\x00").encode()
    port = GarbagePort([hb])
    states: list[str] = []
    link = Link("quiet://", opener=lambda url: port, on_state=lambda s, r: states.append(s), silence_s=0.2)
    try:
        deadline = time.monotonic() + 5
        while "silent" not in states and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.silent and "silent" in states
        port.chunks.append(hb)
        while "alive" not in states and time.monotonic() < deadline:
            time.sleep(0.01)
        assert states[-1] == "alive" and not link.silent
    finally:
        link.close()


@pytest.mark.timeout(30)
def test_jam_stops_the_deal_with_what_was_dealt_and_the_retry_goes_on() -> None:
    from firmware_bridge.dealer import JamEvent

    deck = standard_pack()
    sim = Simulator(seats=2, speed=200, card_reader=True, deck=deck, jam_every=3, seed=1)
    with Dealer(sim_backend(sim)) as dealer:
        first = dealer.deal("seat:1", 5)
        assert first.code is ErrorCode.JAM and first.code.recoverable and len(first.dealt) == 2
        assert "stuck" in first.reason
        rest = dealer.deal("seat:1", 2).check()  # jam_every=3 counts feeds: feeds 4 and 5 go through
        deadline = time.monotonic() + 5
        events: list[DealerEvent] = []
        while not any(isinstance(e, JamEvent) for e in events) and time.monotonic() < deadline:
            events.append(dealer.events.get(timeout=5))
    assert [str(c) for c in first.cards + rest.cards] == [str(c) for c in deck[:4]]  # the jammed card stays
    assert [t["action"] for t in sim.truth if t["action"] in ("deal", "jam")] == ["deal", "deal", "jam", "deal", "deal"]


@pytest.mark.timeout(30)
def test_one_stray_frame_with_another_boot_id_is_not_a_reboot() -> None:
    def hb(boot: int) -> bytes:
        return Frame(MsgType.DEVICE_HEARTBEAT, 0, boot, b"\x00").encode()

    port = GarbagePort([hb(0x10), hb(0x99), hb(0x10)])
    states: list[str] = []
    link = Link("stray://", opener=lambda url: port, on_state=lambda s, r: states.append(s), heartbeat_s=60)
    try:
        assert port.done.wait(5)
        assert link.boot_id == 0x10 and "rebooted" not in states  # a lone frame is not believed
        port.done.clear()
        port.chunks += [hb(0x20), hb(0x20)]  # two frames agree: the device rebooted
        assert port.done.wait(5)
        assert link.boot_id == 0x20 and states.count("rebooted") == 1
        port.done.clear()
        port.chunks += [Frame(MsgType.BOOT, 0, 0x30, bytes([1, 1, 0, 0, 0, 4, 4])).encode()]
        assert port.done.wait(5)
        assert link.boot_id == 0x30 and states.count("rebooted") == 2  # BOOT says so at once
    finally:
        link.close()


@pytest.mark.timeout(30)
def test_a_slow_wire_delays_but_loses_nothing() -> None:
    sim = Simulator(seats=2, speed=200, faults=Faults(delay_ms=30, duplicate=0.2), seed=4)
    with Dealer(sim_backend(sim)) as dealer:
        start = time.monotonic()
        info = dealer.hello()
        assert time.monotonic() - start >= 0.03 and info.seats == 2
        for i in range(6):
            assert dealer.deal(f"seat:{i % 2 + 1}").ok
    assert [d["target"] for d in sim.deals()] == ["seat:1", "seat:2"] * 3


@pytest.mark.timeout(30)
def test_a_socket_port_says_how_many_bytes_wait() -> None:
    """pyserial's socket:// port says 1 however many bytes wait, so the reader took one byte a call and
    fell behind a device repeating its replies on a bad line; the link's port tells the true count."""
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    port = open_serial(f"socket://127.0.0.1:{server.getsockname()[1]}")
    conn, _ = server.accept()
    try:
        conn.sendall(bytes(range(1, 201)))
        deadline = time.monotonic() + 5
        while port.in_waiting < 200 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert port.in_waiting == 200
        assert port.read(port.in_waiting) == bytes(range(1, 201))
        assert port.in_waiting == 0
    finally:
        port.close()
        conn.close()
        server.close()
