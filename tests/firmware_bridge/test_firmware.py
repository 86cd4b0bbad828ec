"""The MicroPython reference firmware under CPython: its wire code on the golden vectors, its
protocol core (request-id memory, one final reply) and its hardware driver on stubbed pins."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import pytest

from firmware_bridge.firmware import proto
from firmware_bridge.framing import Frame, Packetizer
from firmware_bridge.messages import ErrorCode, MsgType


def test_firmware_constants_match_the_host_catalogue() -> None:
    for t in MsgType:
        assert getattr(proto, t.name) == t.value, t.name
    host_only = {ErrorCode.DEVICE_REBOOTED, ErrorCode.TIMED_OUT}
    for code in ErrorCode:
        if code not in host_only and code is not ErrorCode.OK:  # OK is named OK in the firmware
            assert getattr(proto, "E_" + code.name) == code.value, code.name
        else:
            assert not hasattr(proto, "E_" + code.name), code.name


def test_firmware_encodes_golden_frames_byte_for_byte(golden: dict[str, Any]) -> None:
    for v in golden["frames"]:
        wire = proto.encode_frame(v["type"], v["request"], v["boot"], bytes.fromhex(v["payload"]))
        assert wire.hex() == v["hex"], v["name"]


def test_firmware_decodes_golden_frames_and_rejects_bad_ones(golden: dict[str, Any]) -> None:
    d = proto.Deframer()
    for v in golden["frames"]:
        frames = d.feed(bytes.fromhex(v["hex"]))
        assert frames == [(v["type"], v["request"], v["boot"], bytes.fromhex(v["payload"]))], v["name"]
    for v in golden["bad"]:
        assert d.feed(bytes.fromhex(v["hex"])) == [], v["name"]
    assert d.bad == len(golden["bad"])


# ---- stubbed Pico -------------------------------------------------------------------------------


class Physics:
    """What the stubbed pins read: a carousel whose Hall sensor fires at step 0, an exit sensor that
    sees a card a few polls after the feed wheel starts and clears after the reverse pulse."""

    def __init__(self) -> None:
        self.steps = 0
        self.dir = 1
        self.home_at = 137  # steps from power-on position to the Hall magnet
        self.feed_on = False
        self.exit_polls = 0
        self.card_out = False
        self.jam = False
        self.door = 0
        self.outputs: dict[int, int] = {}
        self.pixels: list[tuple[int, int, int]] = []


PHYS = Physics()


class StubPin:
    OUT, IN, PULL_UP = 1, 0, 1

    def __init__(self, pin: int, mode: int = 0, pull: int | None = None, *, value: int | None = None) -> None:
        self.pin = pin
        if value is not None:
            PHYS.outputs[pin] = value

    def value(self, v: int | None = None) -> int:
        from firmware_bridge.firmware import config

        if v is not None:
            if self.pin == config.STEP_PIN and v == 1:
                PHYS.steps += 1 if PHYS.outputs.get(config.DIR_PIN, 1) else -1
            PHYS.outputs[self.pin] = v
            return v
        if self.pin == config.HALL_PIN:
            return 0 if PHYS.steps == PHYS.home_at else 1
        if self.pin == config.DOOR_PIN:
            return PHYS.door
        if self.pin == config.EXIT_PIN:
            if PHYS.feed_on and not PHYS.jam:
                PHYS.exit_polls += 1
                if PHYS.exit_polls >= 3:
                    PHYS.card_out = True
            elif PHYS.card_out and not PHYS.feed_on:
                PHYS.card_out = False  # the card falls clear once the wheel stops
                return 0
            return 0 if PHYS.card_out else 1
        return PHYS.outputs.get(self.pin, 0)


class StubPWM:
    def __init__(self, pin: StubPin) -> None:
        self.pin = pin.pin

    def freq(self, f: int) -> None:
        pass

    def duty_u16(self, duty: int) -> None:
        from firmware_bridge.firmware import config

        if self.pin == config.FEED_IN1_PIN:
            PHYS.feed_on = duty > 0
            if duty:
                PHYS.exit_polls = 0


class StubNeoPixel:
    def __init__(self, pin: StubPin, n: int) -> None:
        PHYS.pixels = [(0, 0, 0)] * n

    def __setitem__(self, i: int, c: tuple[int, int, int]) -> None:
        PHYS.pixels[i] = c

    def write(self) -> None:
        pass


@pytest.fixture
def pico(monkeypatch: pytest.MonkeyPatch) -> Any:
    global PHYS
    PHYS = Physics()
    machine = types.ModuleType("machine")
    machine.Pin = StubPin  # type: ignore[attr-defined]
    machine.PWM = StubPWM  # type: ignore[attr-defined]
    neo = types.ModuleType("neopixel")
    neo.NeoPixel = StubNeoPixel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neo)
    sys.modules.pop("firmware_bridge.firmware.hardware", None)
    hardware = importlib.import_module("firmware_bridge.firmware.hardware")
    from firmware_bridge.firmware.core import Core

    out: list[bytes] = []
    hw = hardware.PicoHardware()
    core = Core(hw, out.append, 0x1234, 4, now=0)
    yield core, hw, out
    sys.modules.pop("firmware_bridge.firmware.hardware", None)


def run(core: Any, out: list[bytes], frame: Frame, *, until_ms: int = 20000) -> list[Frame]:
    """Send one frame, run the core's clock until the final reply, return every reply frame."""
    p = Packetizer()
    out.clear()
    now = 0
    core.receive(frame.encode(), now)
    replies: list[Frame] = []
    while now < until_ms:
        due = core.tick(now)
        replies += p.data_received(b"".join(out))
        out.clear()
        if any(r.request == frame.request and r.type in (0x81, 0x82, 0x85, 0x86, 0x87) for r in replies):
            break
        now += max(1, min(due, 5))
    return [r for r in replies if r.request == frame.request]


def test_pico_answers_golden_hello_and_status(pico: Any, golden: dict[str, Any]) -> None:
    core, hw, out = pico
    hello = next(v for v in golden["frames"] if v["name"] == "hello")
    replies = run(core, out, Frame(hello["type"], hello["request"], hello["boot"]))
    assert replies[-1].type == MsgType.HELLO_INFO and replies[-1].boot == 0x1234
    status = run(core, out, Frame(MsgType.STATUS, 2, 0x1234))[-1]
    assert status.type == MsgType.STATUS_INFO
    assert status.payload[1] == 0  # not homed at power-on


def test_pico_homes_on_the_hall_sensor_then_deals_with_reverse_pulse(pico: Any) -> None:
    core, hw, out = pico
    replies = run(core, out, Frame(MsgType.HOME, 3, 0x1234))
    assert [r.type for r in replies] == [MsgType.ACK, MsgType.DONE]
    assert hw.position == 0 and PHYS.steps == PHYS.home_at
    replies = run(core, out, Frame(MsgType.DEAL, 4, 0x1234, bytes([0, 2, 2, 1])))  # seat 2, 2 cards, face up
    assert replies[-1].type == MsgType.DONE, replies
    assert replies[-1].payload == bytes([2, proto.CARD_UNKNOWN, proto.CARD_UNKNOWN])
    assert sum(r.type == MsgType.CARD_DEALT for r in replies) == 2
    assert hw.hopper_count() == 50
    assert PHYS.steps == PHYS.home_at + 3200 // 9  # one position of nine (4 seats + 5 places)


def test_pico_repeat_is_answered_from_memory_without_dealing_again(pico: Any) -> None:
    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 3, 0x1234))
    first = run(core, out, Frame(MsgType.DEAL, 9, 0x1234, bytes([0, 1, 1, 0])))
    again = run(core, out, Frame(MsgType.DEAL, 9, 0x1234, bytes([0, 1, 1, 0])))
    assert again == [first[-1]] * 2  # the same final reply, one extra copy per repeat
    assert hw.hopper_count() == 51
    assert core.acted == 2  # HOME and the first DEAL; the repeat did nothing


def test_pico_jam_is_a_recoverable_failure(pico: Any) -> None:
    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 3, 0x1234))
    PHYS.jam = True
    replies = run(core, out, Frame(MsgType.DEAL, 5, 0x1234, bytes([0, 1, 1, 0])))
    assert replies[-1].type == MsgType.FAILED
    assert ErrorCode(replies[-1].payload[0]) is ErrorCode.MISFEED
    assert ErrorCode.MISFEED.recoverable
    assert hw.hopper_count() == 52


def test_pico_refuses_actions_addressed_to_another_boot(pico: Any) -> None:
    core, hw, out = pico
    replies = run(core, out, Frame(MsgType.HOME, 3, 0x9999))
    assert replies[-1].type == MsgType.FAILED and replies[-1].payload[0] == ErrorCode.STALE_BOOT
    assert hw.position is None


def test_pico_leds_follow_led_commands(pico: Any) -> None:
    core, hw, out = pico
    assert run(core, out, Frame(MsgType.LED, 6, 0x1234, bytes([3, 1, 0, 255, 0])))[-1].type == MsgType.DONE
    assert PHYS.pixels[2] == (0, 255, 0)
    hw.show_leds(300)  # solid stays on
    assert PHYS.pixels[2] == (0, 255, 0)
    run(core, out, Frame(MsgType.LED, 7, 0x1234, bytes([3, 2, 255, 0, 0])))
    hw.show_leds(260)  # blink is off in its second quarter second
    assert PHYS.pixels[2] == (0, 0, 0)


def test_pico_stops_motors_when_the_host_goes_quiet(pico: Any) -> None:
    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 3, 0x1234))
    core.receive(Frame(MsgType.DEAL, 8, 0x1234, bytes([0, 1, 5, 0])).encode(), 0)
    core.tick(0)
    core.tick(5000)  # no frame from the host for 5 s
    p = Packetizer()
    finals = [f for f in p.data_received(b"".join(out)) if f.type == MsgType.FAILED]
    assert finals and finals[-1].payload[0] == ErrorCode.HOST_SILENT
    assert PHYS.outputs[4] == 1  # stepper driver disabled


def test_firmware_sources_stay_micropython_friendly() -> None:
    """No CPython-only imports in the files copied to the board; each compiles."""
    from pathlib import Path

    folder = Path(proto.__file__).parent
    for name in ("proto.py", "core.py", "config.py", "hardware.py", "main.py"):
        text = (folder / name).read_text()
        compile(text, name, "exec")
        for banned in ("from __future__", "import typing", "from dataclasses", "from collections", "import enum"):
            assert banned not in text, f"{name} uses {banned}"


# ---- request ids: never acted on twice in one boot -------------------------------------------------


def final(replies: list[Frame]) -> Frame:
    return next(r for r in reversed(replies) if r.type in (MsgType.DONE, MsgType.FAILED, MsgType.REQUEST_STATE))


def test_pico_replay_older_than_its_memory_is_refused_not_dealt_again(pico: Any) -> None:
    """The device remembers 32 final replies; a replay of a DEAL older than those used to deal again."""
    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 100, 0x1234))
    deal = Frame(MsgType.DEAL, 101, 0x1234, bytes([0, 1, 1, 0]))
    assert final(run(core, out, deal)).type == MsgType.DONE
    for i in range(40):  # 40 newer actions push the DEAL's reply out of memory
        assert final(run(core, out, Frame(MsgType.LED, 102 + i, 0x1234, bytes([1, 1, i, 0, 0])))).type == MsgType.DONE
    again = final(run(core, out, deal))
    assert again.type == MsgType.FAILED and again.payload == bytes([ErrorCode.STALE_REQUEST])
    assert hw.hopper_count() == 51  # one card, not two


def test_pico_refuses_ids_behind_its_window_and_accepts_late_ones_inside_it(pico: Any) -> None:
    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 5000, 0x1234))
    led = bytes([1, 1, 0, 0, 0])
    old = final(run(core, out, Frame(MsgType.LED, 5000 - 2500, 0x1234, led)))  # never seen, but too old to tell
    assert old.type == MsgType.FAILED and old.payload[0] == ErrorCode.STALE_REQUEST
    late = final(run(core, out, Frame(MsgType.LED, 4990, 0x1234, led)))  # a slower thread's command: not seen yet
    assert late.type == MsgType.DONE
    assert final(run(core, out, Frame(MsgType.LED, 4990, 0x1234, led))) == late  # its retry: from memory
    assert core.acted == 2


def test_pico_request_ids_wrap_around(pico: Any) -> None:
    core, hw, out = pico
    led = bytes([1, 1, 0, 0, 0])
    for request in (65533, 65535, 1, 2):
        assert final(run(core, out, Frame(MsgType.LED, request, 0x1234, led))).type == MsgType.DONE, request
    stale = final(run(core, out, Frame(MsgType.LED, 65534, 0x1234, led)))  # behind, inside the window, unseen
    assert stale.type == MsgType.DONE
    assert final_hello(run(core, out, Frame(MsgType.HELLO, 3, 0))).payload[13:15] == bytes([0, 2])  # newest: 2


def test_pico_query_tells_the_result_in_chunks_and_settles_unknown_ids(pico: Any) -> None:
    from firmware_bridge.messages import Query, RequestState, RequestStatus

    core, hw, out = pico
    run(core, out, Frame(MsgType.HOME, 10, 0x1234))
    assert final(run(core, out, Frame(MsgType.DEAL, 11, 0x1234, bytes([0, 2, 10, 0])))).type == MsgType.DONE
    pieces = []
    for offset in (0, 8):
        state = RequestState.decode(
            final(run(core, out, Frame(MsgType.QUERY, 12 + offset, 0, Query(11, offset, 1).encode()))).payload
        )
        assert state.request == 11 and state.state is RequestStatus.DONE and state.size == 11
        pieces.append(state.chunk)
    assert b"".join(pieces) == bytes([10] + [proto.CARD_UNKNOWN] * 10)
    unknown = RequestState.decode(final(run(core, out, Frame(MsgType.QUERY, 30, 0, Query(20, 0, 1).encode()))).payload)
    assert unknown.state is RequestStatus.NONE
    late = final(run(core, out, Frame(MsgType.DEAL, 20, 0x1234, bytes([0, 2, 1, 0]))))  # the settled id arrives late
    assert late.type == MsgType.FAILED and late.payload[0] == ErrorCode.STALE_REQUEST
    assert hw.hopper_count() == 42


def test_pico_states_its_times(pico: Any) -> None:
    from firmware_bridge.firmware import config
    from firmware_bridge.messages import HelloInfo

    core, hw, out = pico
    info = HelloInfo.decode(final_hello(run(core, out, Frame(MsgType.HELLO, 1, 0))).payload)
    assert info.answers_query and info.timing is not None
    assert info.timing.card_ms >= 2 * config.SEE_TIMEOUT_MS + config.CLEAR_TIMEOUT_MS
    assert info.timing.move_ms >= config.HOME_MAX_STEPS * 2 * config.STEP_US // 1000


def final_hello(replies: list[Frame]) -> Frame:
    return next(r for r in replies if r.type == MsgType.HELLO_INFO)
