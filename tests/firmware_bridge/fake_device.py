"""Scripted devices for tests: the real framing over a pseudo-terminal or a TCP port (``socket://``),
answering each command frame with whatever the test's ``answer`` function returns.

A device that lies, never finishes or answers with the wrong type is easy to write here; the host
under test opens it with pyserial exactly as it opens a board.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import socket
import threading
import time
import tty
from collections.abc import Callable

from firmware_bridge.framing import Frame, Packetizer
from firmware_bridge.messages import HelloInfo, MsgType, StatusInfo

BOOT = 0x4242

Answer = Callable[[Frame], list[Frame]]


def hello_info(frame: Frame, *, boot: int = BOOT, seats: int = 4) -> Frame:
    return Frame(MsgType.HELLO_INFO, frame.request, boot, HelloInfo(1, (1, 0, 0), False, seats, seats).encode())


def status_info(frame: Frame, *, boot: int = BOOT, hopper: int = 52) -> Frame:
    from firmware_bridge.messages import ErrorCode

    return Frame(
        MsgType.STATUS_INFO, frame.request, boot, StatusInfo(hopper, True, False, False, ErrorCode.OK, 0).encode()
    )


def standard(frame: Frame, *, boot: int = BOOT) -> list[Frame] | None:
    """The answers every fake gives alike: HELLO, STATUS, HOME (done at once), CONFIG. None for the rest."""
    if frame.type == MsgType.HELLO:
        return [hello_info(frame, boot=boot)]
    if frame.type == MsgType.STATUS:
        return [status_info(frame, boot=boot)]
    if frame.type in (MsgType.HOME, MsgType.CONFIG, MsgType.STOP):
        return [Frame(MsgType.DONE, frame.request, boot)]
    return None


class FakeDevice:
    """Serves ``answer`` on a pty (``url`` is the slave's path) or on a TCP port (``socket://``).

    Every command frame received is kept in ``received`` (heartbeats too, in ``heartbeats``).
    """

    def __init__(self, answer: Answer, *, tcp: bool = False, heartbeat_s: float = 0.0, boot: int = BOOT) -> None:
        self.answer = answer
        self.boot = boot
        self.heartbeat_s = heartbeat_s
        self.received: list[Frame] = []
        self.heartbeats = 0
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self._master = -1
        if tcp:
            self._listener = socket.create_server(("127.0.0.1", 0))
            self.url = f"socket://127.0.0.1:{self._listener.getsockname()[1]}"
        else:
            master, slave = pty.openpty()
            tty.setraw(slave)
            self.url = os.ttyname(slave)
            os.close(slave)
            self._master = master
        self._thread = threading.Thread(target=self._serve, name="fake-device", daemon=True)
        self._thread.start()

    def _read(self) -> bytes | None:
        if self._listener is not None:
            if self._conn is None:
                ready, _, _ = select.select([self._listener], [], [], 0.02)
                if ready:
                    self._conn, _ = self._listener.accept()
                return b""
            ready, _, _ = select.select([self._conn], [], [], 0.02)
            if not ready:
                return b""
            try:
                data = self._conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                self._conn.close()
                self._conn = None
            return data
        readable, _, _ = select.select([self._master], [], [], 0.02)
        if not readable:
            return b""
        try:
            return os.read(self._master, 4096)
        except OSError:  # no host attached yet, or it hung up
            time.sleep(0.01)
            return b""

    def write(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            if self._listener is not None:
                if self._conn is not None:
                    self._conn.sendall(data)
            elif self._master >= 0:
                os.write(self._master, data)

    def send(self, *frames: Frame) -> None:
        self.write(b"".join(f.encode() for f in frames))

    def _serve(self) -> None:
        packets = Packetizer()
        next_beat = time.monotonic()
        while not self._stopping.is_set():
            data = self._read()
            if data is None:
                continue
            for frame in packets.data_received(data):
                if frame.type == MsgType.HEARTBEAT:
                    self.heartbeats += 1
                    continue
                self.received.append(frame)
                self.send(*self.answer(frame))
            if self.heartbeat_s and time.monotonic() >= next_beat:
                next_beat = time.monotonic() + self.heartbeat_s
                self.send(Frame(MsgType.DEVICE_HEARTBEAT, 0, self.boot, b"\x00"))

    def commands(self, mtype: MsgType) -> list[Frame]:
        return [f for f in self.received if f.type == mtype]

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        if self._listener is not None:
            self._listener.close()
        if self._master >= 0:
            os.close(self._master)
            self._master = -1

    def __enter__(self) -> FakeDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
