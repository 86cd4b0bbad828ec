"""What the host knows of each command in flight: whether the device has it, the progress heard, and
its final reply as it is put together from REQUEST_STATE chunks (see docs/protocol.md, QUERY)."""

from __future__ import annotations

import queue
from collections.abc import Callable

from firmware_bridge.errors import LinkError
from firmware_bridge.framing import Frame
from firmware_bridge.messages import MsgType


class NoFinalReply(LinkError):
    """No final reply in time: the device stayed silent, never took the command, or took longer than the
    command needs. ``accepted``: whether the device had the command (it may still be acting on it);
    ``progress``: the progress frames heard before."""

    def __init__(self, message: str, request: int, *, accepted: bool, progress: tuple[Frame, ...] = ()) -> None:
        super().__init__(message)
        self.request = request
        self.accepted = accepted
        self.progress = progress


class NoRecord(Exception):
    """Internal: a QUERY answered that the device has no record of the request."""


class Assembly:
    """A final reply's payload put together from REQUEST_STATE chunks (and what progress already said)."""

    def __init__(self, mtype: int, size: int, known: dict[int, int]) -> None:
        self.type = mtype
        self.size = size
        self.bytes: dict[int, int] = {i: b for i, b in known.items() if 0 <= i < size}

    def add(self, offset: int, chunk: bytes) -> None:
        for i, b in enumerate(chunk, start=offset):
            if i < self.size:
                self.bytes[i] = b

    def next_offset(self) -> int:
        return next((i for i in range(self.size) if i not in self.bytes), 0)

    @property
    def complete(self) -> bool:
        return len(self.bytes) == self.size

    def payload(self) -> bytes:
        return bytes(self.bytes[i] for i in range(self.size))


class Pending:
    __slots__ = (
        "request",
        "type",
        "boot",
        "frames",
        "accepted",
        "settling",
        "lost",
        "aliases",
        "assembly",
        "on_running",
        "next_nudge",
    )

    def __init__(self, request: int, mtype: int, boot: int) -> None:
        self.request = request
        self.type = mtype
        self.boot = boot
        self.frames: queue.SimpleQueue[Frame | BaseException] = queue.SimpleQueue()
        self.accepted = False  # ACK, progress or a state heard: the device has the command
        self.settling = False  # asking after the host gave up: "no record" is an answer, not an error
        self.lost = 0  # sends that heard nothing back before the next one: what redundancy is for
        self.aliases: list[int] = []  # ids of the QUERYs asking about this request
        self.assembly: Assembly | None = None
        self.on_running: Callable[[], None] | None = None  # settling: stop it again while it runs
        self.next_nudge = 0.0

    @property
    def name(self) -> str:
        try:
            return MsgType(self.type).name
        except ValueError:
            return f"type {self.type:#04x}"


def progress_codes(progress: list[Frame]) -> dict[int, int]:
    """Card number -> code, from CARD_DEALT progress frames."""
    codes: dict[int, int] = {}
    for frame in progress:
        if len(frame.payload) == 6:
            codes[frame.payload[0]] = frame.payload[5]
    return codes
