"""The host end of the serial link: framing, a reader thread that never dies, writes under a lock,
request/retry with the same request id, boot-id tracking, heartbeats and reconnect after unplug.

Opened by URL through pyserial: ``/dev/ttyACM0``, a pty path, ``socket://host:port``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from firmware_bridge.errors import LinkError
from firmware_bridge.framing import Frame, Packetizer
from firmware_bridge.messages import ACTIONS, FINAL_REPLIES, ErrorCode, MsgType

log = logging.getLogger(__name__)


class Port(Protocol):
    """What the link needs of a pyserial ``Serial`` (and what the in-memory mock port provides)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


def open_serial(url: str) -> Port:
    """Open ``url`` with pyserial, exclusively, with a short read timeout for the reader loop."""
    import serial  # imported here so that `cardtable replay` never pays for it

    try:
        port: Port = serial.serial_for_url(url, baudrate=115200, timeout=0.05, exclusive=True)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise LinkError(f"cannot open {url}: {exc}") from exc
    return port


@dataclass(slots=True)
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    requests: int = 0
    retries: int = 0  # resends after a send heard nothing back
    polls: int = 0  # resends asking a running command for its result
    crc_errors: int = 0
    bad_frames: int = 0
    resyncs: int = 0
    reconnects: int = 0
    link_losses: int = 0
    reboots: int = 0
    late_frames: int = 0  # replies for requests no longer waited for, frames from an old boot
    errors_by_reason: dict[str, int] = field(default_factory=dict)


class RebootedWhileWaiting(LinkError):
    """Internal signal: the device rebooted while an action was in flight (Dealer turns it into a result)."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"device rebooted (boot id {old:#06x} -> {new:#06x}) while the command was in flight")
        self.old = old
        self.new = new


@dataclass(frozen=True, slots=True)
class Reply:
    final: Frame
    progress: tuple[Frame, ...]
    attempts: int
    round_trip_s: float


class _Pending:
    __slots__ = ("request", "type", "boot", "frames")

    def __init__(self, request: int, mtype: int, boot: int) -> None:
        self.request = request
        self.type = mtype
        self.boot = boot
        self.frames: queue.SimpleQueue[Frame | BaseException] = queue.SimpleQueue()


class Link:
    """A framed, self-healing link to one device."""

    MIN_RTO_S = 0.003
    MAX_RTO_S = 0.25
    MAX_POLL_S = 0.05

    def __init__(
        self,
        url: str,
        *,
        opener: Callable[[str], Port] = open_serial,
        on_event: Callable[[Frame], None] | None = None,
        on_state: Callable[[str, str], None] | None = None,
        heartbeat_s: float = 1.0,
        reconnect_s: float = 0.2,
        silence_s: float = 3.0,
    ) -> None:
        self.url = url
        self._opener = opener
        self.on_event = on_event or (lambda frame: None)
        self.on_state = on_state or (lambda state, reason: None)
        self.heartbeat_s = heartbeat_s
        self.reconnect_s = reconnect_s
        self.silence_s = silence_s  # no frame from the device this long: report it silent
        self.silent = False
        self.stats = LinkStats()
        self.boot_id: int | None = None
        self._retired_boots: set[int] = set()
        self._boot_candidate: int | None = None
        self._packetizer = Packetizer()
        self._port: Port | None = None
        self._down_reason = "not opened"
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._ids = itertools.cycle(range(1, 0x10000))
        for _ in range(random.randrange(0x10000)):  # start anywhere: ids remembered from an earlier host
            next(self._ids)
        self._srtt: float | None = None
        self._last_tx = 0.0
        self.last_rx = 0.0
        self.copies = 1  # each command frame is written this many times back to back
        self.auto_copies = True
        self.reply_copies_due: int | None = None  # the device should be told (CONFIG) to match
        self._attempts_window: list[int] = []
        self._stopping = threading.Event()
        self._port = self._open()  # the first open fails loudly; later ones are retried
        self._thread = threading.Thread(target=self._reader, name=f"link-reader {url}", daemon=True)
        self._thread.start()

    # ---- state -----------------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._port is not None

    @property
    def rto(self) -> float:
        """Retry timeout: three smoothed round trips, bounded."""
        if self._srtt is None:
            return 0.05
        return min(max(3 * self._srtt, self.MIN_RTO_S), self.MAX_RTO_S)

    def _open(self) -> Port:
        port = self._opener(self.url)
        with contextlib.suppress(Exception):
            port.write(b"\x00")  # end whatever half frame the device was receiving
        return port

    def close(self) -> None:
        self._stopping.set()
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(Exception):
                cancel = getattr(port, "cancel_read", None)
                if cancel is not None:
                    cancel()
        self._thread.join(timeout=2)
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()
        self._fail_all(LinkError("link closed"))

    # ---- reader thread -----------------------------------------------------------------------------
    def _reader(self) -> None:
        while not self._stopping.is_set():
            port = self._port
            if port is None:
                self._reconnect()
                continue
            try:
                data = port.read(port.in_waiting or 1)
            except Exception as exc:  # SerialException, OSError, anything: the link is lost, not the thread
                self._lost(port, exc)
                continue
            if data:
                self._data_received(data)
            self._heartbeat()

    def _data_received(self, data: bytes) -> None:
        try:
            frames = self._packetizer.data_received(data)
        except Exception:  # the packetizer does not raise; this is belt and braces for the thread
            log.exception("packetizer failed")
            return
        self._sync_stats()
        for frame in frames:
            try:
                self._dispatch(frame)
            except Exception:
                log.exception("dispatch of %r failed", frame)

    def _sync_stats(self) -> None:
        p = self._packetizer.stats
        s = self.stats
        s.frames_in, s.bad_frames, s.crc_errors, s.resyncs = p.frames, p.bad_frames, p.crc_errors, p.resyncs
        s.errors_by_reason = dict(p.errors_by_reason)

    def _dispatch(self, frame: Frame) -> None:
        if frame.type < 0x80:
            self.stats.late_frames += 1  # our own frames echoed back: not from a device
            return
        self.last_rx = time.monotonic()
        if self.silent:
            self.silent = False
            self.on_state("alive", "the device is heard again")
        said_so = frame.type in (MsgType.BOOT, MsgType.HELLO_INFO)  # the device states its boot id
        if frame.boot in self._retired_boots and not said_so:
            self.stats.late_frames += 1
            return
        if self.boot_id is None:
            self.boot_id = frame.boot
        elif frame.boot != self.boot_id:
            # A new boot id is believed when the device states it, or on a second frame that agrees;
            # one frame alone could be the rare garbled frame that passed the CRC.
            if not said_so and frame.boot != self._boot_candidate:
                self._boot_candidate = frame.boot
                self.stats.late_frames += 1
                return
            self._boot_candidate = None
            self._retired_boots.discard(frame.boot)
            self._rebooted(self.boot_id, frame.boot)
        else:
            self._boot_candidate = None
        if frame.request:
            with self._state_lock:
                pending = self._pending.get(frame.request)
            if pending is not None and frame.type != MsgType.DEVICE_HEARTBEAT:
                pending.frames.put(frame)
                return
            if frame.type not in (MsgType.CARD_DEALT,):
                self.stats.late_frames += 1
                return
        self.on_event(frame)

    def _rebooted(self, old: int, new: int) -> None:
        self.stats.reboots += 1
        self._retired_boots.add(old)
        self.boot_id = new
        with self._state_lock:
            pendings = list(self._pending.values())
        for pending in pendings:
            if pending.type in ACTIONS and pending.boot == old:
                pending.frames.put(RebootedWhileWaiting(old, new))
        self.on_state("rebooted", f"boot id {old:#06x} -> {new:#06x}")

    def _lost(self, port: Port, exc: BaseException) -> None:
        if self._stopping.is_set():
            return
        self.stats.link_losses += 1
        self._down_reason = f"link lost ({exc.__class__.__name__}: {exc}); reconnecting to {self.url}"
        self._port = None  # after the reason: a writer that sees no port must read why
        with contextlib.suppress(Exception):
            port.close()
        self._fail_all(LinkError(self._down_reason))
        self.on_state("lost", self._down_reason)

    def _reconnect(self) -> None:
        if self._stopping.wait(self.reconnect_s):
            return
        try:
            port = self._open()
        except Exception:  # still unplugged
            return
        self._packetizer = Packetizer()  # stats carry on in self.stats only through the new counters
        self._port = port
        self.stats.reconnects += 1
        self.on_state("connected", f"reconnected to {self.url}")

    def _heartbeat(self) -> None:
        now = time.monotonic()
        if self.last_rx and not self.silent and now - self.last_rx > self.silence_s:
            self.silent = True
            self.on_state("silent", f"no frame from the device for {self.silence_s:g} s")
        if now - self._last_tx >= self.heartbeat_s:
            with contextlib.suppress(LinkError):
                self._write(Frame(MsgType.HEARTBEAT, 0, self.boot_id or 0).encode())

    def _fail_all(self, exc: BaseException) -> None:
        with self._state_lock:
            pendings = list(self._pending.values())
        for pending in pendings:
            pending.frames.put(exc)

    # ---- writing and requests ---------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            raise LinkError(self._down_reason)
        with self._write_lock:
            try:
                port.write(data)
            except Exception as exc:
                if self._port is not port:  # lost and closed under us by the reader: say why
                    raise LinkError(self._down_reason) from exc
                raise LinkError(f"link lost: write failed ({exc.__class__.__name__}: {exc})") from exc
        self._last_tx = time.monotonic()
        self.stats.frames_out += 1

    def send_event(self, mtype: MsgType, payload: bytes = b"") -> None:
        self._write(Frame(mtype, 0, self.boot_id or 0, payload).encode())

    def request(
        self,
        mtype: MsgType,
        payload: bytes = b"",
        *,
        timeout: float = 2.0,
        on_progress: Callable[[Frame], None] | None = None,
    ) -> Reply:
        """Send a command and wait for its one final reply, resending the same request id until it comes.

        Raises :class:`LinkError` when the link is down or lost, or no final reply came within
        ``timeout`` s of silence, and :class:`RebootedWhileWaiting` when the device rebooted under an action.
        """
        request = next(self._ids)
        boot = self.boot_id or 0
        pending = _Pending(request, mtype, boot)
        data = Frame(mtype, request, boot, payload).encode()
        progress: list[Frame] = []
        with self._state_lock:
            self._pending[request] = pending
        self.stats.requests += 1
        start = time.monotonic()
        attempts = 0
        lost = 0  # sends that heard nothing back before the next one: what redundancy is for
        last_answered = True
        running = False
        poll = self.rto
        deadline = start + timeout
        try:
            while True:
                # one more copy per unanswered send: a garbled line gets redundancy at once, a clean one none
                self._write(data * min(self.copies + lost, self.MAX_COPIES))
                if attempts:
                    if last_answered:
                        self.stats.polls += 1
                    else:
                        self.stats.retries += 1
                attempts += 1
                answered = False
                wait_until = min(deadline, time.monotonic() + (poll if running else self.rto))
                while True:
                    remaining = wait_until - time.monotonic()
                    if remaining <= 0:
                        break
                    try:
                        item = pending.frames.get(timeout=remaining)
                    except queue.Empty:
                        break
                    if isinstance(item, BaseException):
                        raise item
                    answered = True
                    if attempts == 1 and not running:  # Karn: time only the first answer to a first try
                        self._sample_rtt(time.monotonic() - start)
                    if item.type in FINAL_REPLIES:
                        return Reply(item, tuple(progress), attempts, time.monotonic() - start)
                    if item.type == MsgType.CARD_DEALT:
                        progress.append(item)
                        if on_progress is not None:
                            on_progress(item)
                        poll = self.rto  # it is moving: the result may be near
                    elif not running:
                        poll = self.rto
                    running = True  # ACK or progress: the device has it; poll for the result
                    deadline = max(deadline, time.monotonic() + timeout)  # silence, not duration, times out
                    wait_until = min(deadline, time.monotonic() + poll)
                last_answered = answered
                if not answered:
                    lost += 1
                if time.monotonic() >= deadline:
                    raise LinkError(f"no answer to {mtype.name} (request {request}) after {attempts} tries")
                if running:  # back off while the device is busy; poll briskly again after a loss
                    poll = min(poll * 2, self.MAX_POLL_S) if answered else self.rto
        finally:
            with self._state_lock:
                del self._pending[request]
            self._adapt(1 + lost)

    MAX_COPIES = 8

    def _sample_rtt(self, rtt: float) -> None:
        self._srtt = rtt if self._srtt is None else 0.875 * self._srtt + 0.125 * rtt

    def _adapt(self, attempts: int) -> None:
        """Redundancy follows the loss rate: copies go up while requests need retries, down when they stop."""
        if not self.auto_copies:
            return
        window = self._attempts_window
        window.append(attempts)
        if len(window) < 8:
            return
        mean = sum(window) / len(window)
        copies = self.copies
        if mean >= 1.5 and copies < self.MAX_COPIES:
            copies += 1
        elif mean <= 1.05 and copies > 1 and len(window) >= 32:
            copies -= 1
        elif len(window) < 32:
            return
        window.clear()
        if copies != self.copies:
            self.copies = copies
            self.reply_copies_due = copies


def error_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return f"0x{code:02x}"


__all__ = ["Link", "LinkStats", "Reply", "RebootedWhileWaiting", "open_serial"]
