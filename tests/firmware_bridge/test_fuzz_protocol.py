"""Fuzzing of protocol frames, bounded in time: well-formed frames with any type, request id, boot id and
payload, at the host (a device answering every command with them, over a pty), at the device (the
firmware core the simulator runs), and at every payload decoder. The longer run with its counts is
benchmarks/fuzz_dealer.py."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pytest finds them through the sys.path entry tests/firmware_bridge/conftest.py adds
    from tests.firmware_bridge.fake_device import BOOT, FakeDevice, standard
    from tests.firmware_bridge.host_calls import every_call
else:
    from fake_device import BOOT, FakeDevice, standard
    from host_calls import every_call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import BridgeError, FrameError
from firmware_bridge.framing import MAX_PAYLOAD, Frame, Packetizer
from firmware_bridge.messages import (
    ACTIONS,
    CardDealt,
    DealRequest,
    ErrorCode,
    Failed,
    HelloInfo,
    LedRequest,
    MsgType,
    Query,
    RequestState,
    StatusInfo,
    Timing,
    decode_codes,
    describe,
)
from firmware_bridge.simulator import Simulator

TYPES = st.one_of(st.sampled_from([int(t) for t in MsgType]), st.integers(0, 255))


def frames_for(request: int) -> st.SearchStrategy[Frame]:
    """A frame a device might send back: often about this request, often of a reply type, any payload."""
    return st.builds(
        Frame,
        type=TYPES,
        request=st.one_of(st.just(request), st.integers(0, 0xFFFF)),
        boot=st.one_of(st.just(BOOT), st.integers(0, 0xFFFF)),
        payload=st.binary(max_size=MAX_PAYLOAD),
    ).map(_short_stated_times)


def _short_stated_times(frame: Frame) -> Frame:
    """A HELLO_INFO that states at most 255 ms a card, a move and a shuffle (one too short to state them is
    lengthened): a call may wait as long as the device says its work takes (up to the host's most believed,
    minutes for a shuffle; 30 s when it states nothing), which would make the test slow, not stricter.
    benchmarks/fuzz_dealer.py lets devices state any time, or none."""
    p = frame.payload
    if frame.type != MsgType.HELLO_INFO or len(p) < 7:
        return frame
    times = p[7:15] + bytes(max(0, 15 - len(p)))
    short = p[:7] + bytes([0, times[1], 0, times[3], 0, times[5]]) + times[6:8] + p[15:]
    return Frame(frame.type, frame.request, frame.boot, short)


@st.composite
def scripts(draw: st.DrawFn) -> list[list[Frame]]:
    """For each command frame the device receives, the frames it sends back (until the script runs out)."""
    return draw(st.lists(st.lists(frames_for(0), max_size=4), min_size=1, max_size=12))


def test_decoders_refuse_with_frame_errors_only() -> None:
    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.binary(max_size=MAX_PAYLOAD))
    def check(payload: bytes) -> None:
        for decode in (
            DealRequest.decode,
            LedRequest.decode,
            HelloInfo.decode,
            StatusInfo.decode,
            CardDealt.decode,
            Failed.decode,
            Query.decode,
            RequestState.decode,
            lambda p: decode_codes(p, "DONE"),
        ):
            try:
                decode(payload)
            except FrameError:
                pass
        for t in range(256):
            assert isinstance(describe(t, payload), str)

    check()


@pytest.mark.timeout(240)
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(scripts(), st.randoms(use_true_random=False))
def test_the_host_meets_any_frames_with_a_bridge_error_or_a_result(script: list[list[Frame]], rnd: Any) -> None:
    """Whatever well-formed frames a device sends back (any type, id, boot id, payload), every Dealer call
    returns or raises a BridgeError in bounded time (within the longest it may take from the times the device
    stated, host_calls.allowed_s): never another exception, never a hang."""
    remaining = list(script)

    def answer(frame: Frame) -> list[Frame]:
        if remaining:
            sent = remaining.pop(0)
            # about half the frames answer the very request, so they reach the host's waiting code
            return [Frame(f.type, frame.request if rnd.random() < 0.5 else f.request, f.boot, f.payload) for f in sent]
        if frame.type == MsgType.HELLO:
            info = HelloInfo(1, (1, 1, 0), True, 4, 4, answers_query=True, timing=Timing(20, 20, 20))
            return [Frame(MsgType.HELLO_INFO, frame.request, BOOT, info.encode())]
        return standard(frame) or []

    with FakeDevice(answer, heartbeat_s=0.05) as device:
        try:
            dealer = Dealer.open(device.url, timeout=0.25, settle_s=0.5)
        except BridgeError:
            return
        try:
            overran = [str(call) for call in every_call(dealer) if call.overran]
            assert not overran
            assert dealer.link._thread.is_alive()
        finally:
            dealer.close()


@st.composite
def device_inputs(draw: st.DrawFn, boot: int) -> list[tuple[Frame, int]]:
    """Commands (some well made, most not) with the ms to let pass before the next."""
    command = st.builds(
        Frame,
        type=st.one_of(st.sampled_from([t for t in MsgType if t < 0x80]), st.integers(0, 255)),
        request=st.one_of(st.integers(1, 40), st.integers(0, 0xFFFF)),
        boot=st.one_of(st.just(boot), st.just(0), st.integers(0, 0xFFFF)),
        payload=st.one_of(
            st.binary(max_size=8),
            st.builds(lambda n, s: bytes([0, s, n, 0]), st.integers(0, 60), st.integers(0, 6)),
            st.builds(
                lambda r, o, c: Query(r, o, c).encode(), st.integers(0, 50), st.integers(0, 60), st.integers(0, 9)
            ),
        ),
    )
    return draw(st.lists(st.tuples(command, st.integers(0, 300)), max_size=40))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_device_never_raises_and_never_acts_twice_on_one_request(data: st.DataObject) -> None:
    sim = Simulator(seats=4, speed=50, card_reader=True, seed=1)
    out: list[bytes] = []
    core = sim._boot(out.append, 0)
    now = 0
    core.receive(Frame(MsgType.HOME, 0xFFFF, core.boot_id).encode(), now)
    reads: set[int] = set()  # ids the fuzz also used for reads, answered afresh each time
    for frame, wait in data.draw(device_inputs(core.boot_id)):
        if frame.type not in ACTIONS:
            reads.add(frame.request)
        core.receive(frame.encode(), now)
        end = now + wait
        while now < end:
            now += max(1, min(core.tick(now), end - now))
    finals: dict[int, set[bytes]] = {}
    for reply in Packetizer().data_received(b"".join(out)):
        refused = reply.type == MsgType.FAILED and reply.payload[:1] == bytes([ErrorCode.STALE_REQUEST])
        if reply.type in (MsgType.DONE, MsgType.FAILED) and reply.request not in reads and not refused:
            finals.setdefault(reply.request, set()).add(reply.encode())
    # One final reply per action, repeated whole (or, once forgotten, refused as stale): never a second one.
    assert all(len(sent) == 1 for sent in finals.values())
    runs = [d["request"] for d in sim.deals()]
    starts = Counter(r for i, r in enumerate(runs) if i == 0 or runs[i - 1] != r)
    assert all(n == 1 for n in starts.values())  # no request dealt in two runs
    out.clear()
    core.receive(Frame(MsgType.HELLO, 7777, 0).encode(), now)  # and it still answers
    assert any(f.type == MsgType.HELLO_INFO for f in Packetizer().data_received(b"".join(out)))
