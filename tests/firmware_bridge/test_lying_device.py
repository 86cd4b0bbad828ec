"""A device that lies: more cards than asked, card codes outside the protocol, the wrong reply type.
Each is a protocol error, said in one line by `cardtable dealer` with exit code 2, never a traceback
and never "dealt 10 of 3". The devices are scripted fakes speaking the real framing over TCP."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # pytest finds it through the sys.path entry tests/firmware_bridge/conftest.py adds
    from tests.firmware_bridge.fake_device import BOOT, FakeDevice, standard
else:
    from fake_device import BOOT, FakeDevice, standard

from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import BridgeError, ProtocolError
from firmware_bridge.framing import Frame
from firmware_bridge.messages import CardDealt, DealRequest, Face, MsgType, Target, encode_codes
from table.cli import main

pytestmark = pytest.mark.timeout(30)


def deal_answer(final: Callable[[Frame, DealRequest], list[Frame]]) -> Callable[[Frame], list[Frame]]:
    def answer(frame: Frame) -> list[Frame]:
        known = standard(frame)
        if known is not None:
            return known
        if frame.type == MsgType.DEAL:
            return [Frame(MsgType.ACK, frame.request, BOOT), *final(frame, DealRequest.decode(frame.payload))]
        return [Frame(MsgType.DONE, frame.request, BOOT)]

    return answer


def done(codes: list[int]) -> Callable[[Frame, DealRequest], list[Frame]]:
    return lambda frame, _: [Frame(MsgType.DONE, frame.request, BOOT, encode_codes(codes))]


def run_cli(url: str, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["dealer", "--port", url, *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(err: str) -> None:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_done_listing_more_cards_than_asked_is_a_protocol_error(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeDevice(deal_answer(done([0xFF] * 10)), tcp=True) as device:
        code, out, err = run_cli(device.url, capsys, "deal", "--to", "seat:2", "--count", "3")
        assert code == 2 and "dealt 10 of 3" not in out
        assert_one_line(err)
        assert "10 of 3" in err and "cannot be right" in err
        with Dealer.open(device.url) as dealer, pytest.raises(ProtocolError):
            dealer.deal("seat:2", 3)


def test_a_done_listing_fewer_cards_than_asked_is_a_protocol_error() -> None:
    with FakeDevice(deal_answer(done([0xFF])), tcp=True) as device, Dealer.open(device.url) as dealer:
        with pytest.raises(ProtocolError, match="1 of 3"):
            dealer.deal("seat:2", 3)


@pytest.mark.parametrize("code", [52, 200, 0xFD])
def test_card_codes_outside_the_protocol_are_refused(code: int, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeDevice(deal_answer(done([code])), tcp=True) as device:
        exit_code, out, err = run_cli(device.url, capsys, "deal", "--to", "seat:1")
        assert exit_code == 2 and out == ""
        assert_one_line(err)
        assert f"card codes outside the protocol: {code}" in err


def test_valid_codes_pass() -> None:
    """The check refuses only what the protocol forbids: 0..51, unreadable (0xFE) and unknown (0xFF) pass."""
    with FakeDevice(deal_answer(done([0, 51, 0xFE])), tcp=True) as device, Dealer.open(device.url) as dealer:
        result = dealer.deal("seat:1", 3)
    assert result.ok and [str(c) for c in result.cards] == ["AC", "KS", "None"]
    assert result.dealt[2].unreadable


def test_a_failed_listing_more_cards_than_asked_is_a_protocol_error() -> None:
    def failed(frame: Frame, _: DealRequest) -> list[Frame]:
        return [Frame(MsgType.FAILED, frame.request, BOOT, bytes([0x01]) + encode_codes([1, 2, 3, 4]))]

    with FakeDevice(deal_answer(failed), tcp=True) as device, Dealer.open(device.url) as dealer:
        with pytest.raises(ProtocolError, match="4 of 2"):
            dealer.deal("seat:1", 2)


def test_progress_that_contradicts_the_final_reply_is_a_protocol_error() -> None:
    def lies(frame: Frame, request: DealRequest) -> list[Frame]:
        progress = CardDealt(1, 1, request.target, request.face, 7)
        return [
            Frame(MsgType.CARD_DEALT, frame.request, BOOT, progress.encode()),
            Frame(MsgType.DONE, frame.request, BOOT, encode_codes([8])),
        ]

    with FakeDevice(deal_answer(lies), tcp=True) as device, Dealer.open(device.url) as dealer:
        with pytest.raises(ProtocolError, match="card 1"):
            dealer.deal("seat:1", 1)


def test_progress_for_another_target_is_a_protocol_error() -> None:
    def elsewhere(frame: Frame, request: DealRequest) -> list[Frame]:
        progress = CardDealt(1, 1, Target.parse("seat:3"), Face.DOWN, 7)
        return [
            Frame(MsgType.CARD_DEALT, frame.request, BOOT, progress.encode()),
            Frame(MsgType.DONE, frame.request, BOOT, encode_codes([7])),
        ]

    with FakeDevice(deal_answer(elsewhere), tcp=True) as device, Dealer.open(device.url) as dealer:
        with pytest.raises(ProtocolError, match="seat:3"):
            dealer.deal("seat:1", 1)


def test_a_final_reply_of_the_wrong_type_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    def status_instead(frame: Frame, _: DealRequest) -> list[Frame]:
        return [Frame(MsgType.STATUS_INFO, frame.request, BOOT, bytes(6))]

    with FakeDevice(deal_answer(status_instead), tcp=True) as device:
        code, out, err = run_cli(device.url, capsys, "deal", "--to", "seat:2", "--count", "3")
    assert code == 2 and out == ""
    assert_one_line(err)
    assert "DEAL answered with STATUS_INFO" in err


def test_hello_answered_with_the_wrong_type_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    def wrong(frame: Frame) -> list[Frame]:
        return [Frame(MsgType.DONE, frame.request, BOOT)]

    with FakeDevice(wrong, tcp=True) as device:
        code, _, err = run_cli(device.url, capsys, "hello")
        assert code == 2
        assert_one_line(err)
        assert "HELLO answered with DONE" in err
        with pytest.raises(BridgeError):
            Dealer.open(device.url)
