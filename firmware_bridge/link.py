"""The host end of the serial link: framing, a reader thread that never dies, writes under a lock,
request/retry with the same request id, boot-id tracking, heartbeats and reconnect after unplug.

Opened by URL through pyserial: ``/dev/ttyACM0``, a pty path, ``socket://host:port``.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import queue
import random
import struct
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from firmware_bridge.errors import FrameError, LinkError
from firmware_bridge.framing import Frame, Packetizer
from firmware_bridge.messages import (
    ACTIONS,
    FINAL_REPLIES,
    ErrorCode,
    MsgType,
    Query,
    RequestState,
    RequestStatus,
    known_final_bytes,
)
from firmware_bridge.pending import Assembly, NoFinalReply, NoRecord, Pending, progress_codes

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
    if url.startswith("socket://"):
        return SocketPort(port)
    return port


class SocketPort:
    """pyserial's ``socket://`` port with a true ``in_waiting``.

    pyserial's says 1 whenever any byte waits, so a reader asking for ``in_waiting`` bytes got one byte
    per call: three system calls a byte in Python, which on a busy machine could not keep up with a
    device repeating its replies on a bad line. The socket's own count (FIONREAD) lets it take all.
    """

    def __init__(self, port: Any) -> None:
        self._port = port

    @property
    def in_waiting(self) -> int:
        try:
            count = fcntl.ioctl(self._port.fileno(), termios.FIONREAD, b"\0\0\0\0")
            return int(struct.unpack("i", count)[0])
        except (OSError, ValueError, AttributeError):
            return int(self._port.in_waiting)

    def read(self, size: int = 1) -> bytes:
        return bytes(self._port.read(size))

    def write(self, data: bytes) -> int | None:
        written: int | None = self._port.write(data)
        return written

    def close(self) -> None:
        self._port.close()


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
        self._pending: dict[int, Pending] = {}
        # Start anywhere (ids an earlier host used may be remembered); HELLO_INFO then says where the
        # device's newest action id is, and resync_ids moves past it.
        self._next_id = random.randrange(1, 0x10000)
        self._id_lock = threading.Lock()
        self.answers_query = False  # the device answers QUERY (HELLO_INFO says so): polls ask for the result
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
        for pending in self._waiting():
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

    def _waiting(self) -> list[Pending]:
        """Every request waited for, once (a request polled with QUERY is also filed under their ids)."""
        with self._state_lock:
            return list({id(p): p for p in self._pending.values()}.values())

    def _fail_all(self, exc: BaseException) -> None:
        for pending in self._waiting():
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

    def new_request_id(self) -> int:
        """The next request id (1..65535, wrapping, never 0)."""
        with self._id_lock:
            request = self._next_id
            self._next_id = request % 0xFFFF + 1
            return request

    def resync_ids(self, newest: int) -> None:
        """Number the next requests after ``newest``, the device's newest action id (from HELLO_INFO):
        a device refuses action ids at or behind the ones it has acted on this boot."""
        if not newest:
            return
        with self._id_lock:
            ahead = (self._next_id - newest) & 0xFFFF
            if not 0 < ahead < 0x8000:
                self._next_id = newest % 0xFFFF + 1

    def request(
        self,
        mtype: MsgType,
        payload: bytes = b"",
        *,
        timeout: float = 2.0,
        limit: float | None = None,
        on_progress: Callable[[Frame], None] | None = None,
    ) -> Reply:
        """Send a command and wait for its one final reply, resending the same request id until the device
        has it, then polling for the result (QUERY, or the command again on a device without QUERY).

        ``timeout``: how long the device may stay silent (no frame of any kind), and how long it may take
        to accept the command. ``limit``: the most seconds the whole command may take (from what it asks
        of the machine; ``timeout`` when None). Progress never extends it.

        Raises :class:`NoFinalReply` (a :class:`LinkError`) when either runs out, :class:`LinkError` when
        the link is down or lost, and :class:`RebootedWhileWaiting` when the device rebooted under an action.
        """
        request = self.new_request_id()
        boot = self.boot_id or 0
        pending = Pending(request, mtype, boot)
        with self._state_lock:
            self._pending[request] = pending
        self.stats.requests += 1
        try:
            return self._exchange(
                pending,
                Frame(mtype, request, boot, payload).encode(),
                timeout=timeout,
                limit=timeout if limit is None else limit,
                on_progress=on_progress,
            )
        finally:
            self._forget(pending)
            self._adapt(1 + pending.lost)

    def send(self, mtype: MsgType, payload: bytes = b"") -> None:
        """Write a command once under a fresh request id, waiting for nothing (a repeated STOP)."""
        self._write(Frame(mtype, self.new_request_id(), self.boot_id or 0, payload).encode() * self.copies)

    def outcome(
        self,
        request: int,
        mtype: MsgType,
        *,
        timeout: float = 2.0,
        on_running: Callable[[], None] | None = None,
    ) -> Frame | None:
        """Ask the device what became of ``request`` (QUERY), after the host stopped waiting for it.

        Returns its final reply (DONE or FAILED, from the device's memory), or None when the device has no
        record of it: it never acted on it, and from that answer on it never will. Waits while the device
        says the request is still running. Raises :class:`NoFinalReply` when no answer comes in ``timeout``
        s, or :class:`LinkError` when the device does not answer QUERY. ``on_running`` is called (at most
        twice a second) while the device says the request runs: to stop it again.
        """
        if not self.answers_query:
            raise LinkError("the device does not answer QUERY: it cannot say what became of a request")
        pending = Pending(request, mtype, self.boot_id or 0)
        pending.accepted = True
        pending.settling = True
        pending.on_running = on_running
        with self._state_lock:
            if request in self._pending:
                raise LinkError(f"request {request} is still being waited for")
            self._pending[request] = pending
        try:
            reply = self._exchange(pending, b"", timeout=timeout, limit=timeout, on_progress=None)
        except NoRecord:
            return None
        finally:
            self._forget(pending)
        return reply.final

    def _forget(self, pending: Pending) -> None:
        with self._state_lock:
            for rid in (pending.request, *pending.aliases):
                if self._pending.get(rid) is pending:
                    del self._pending[rid]

    def _send_poll(self, pending: Pending, command: bytes, copies: int) -> None:
        """Ask a running command for its result: QUERY (a fresh id, answered to this pending) or, on a
        device without QUERY, the command again (answered ACK while running, then from memory)."""
        if not self.answers_query:
            self._write(command * copies)
            return
        query_id = self.new_request_id()
        with self._state_lock:
            self._pending[query_id] = pending
            pending.aliases.append(query_id)
            while len(pending.aliases) > self.MAX_ALIASES:  # answers to old polls are no longer awaited
                old = pending.aliases.pop(0)
                if self._pending.get(old) is pending:
                    del self._pending[old]
        offset = pending.assembly.next_offset() if pending.assembly is not None else 0
        query = Query(pending.request, offset, copies).encode()
        self._write(Frame(MsgType.QUERY, query_id, self.boot_id or 0, query).encode() * copies)

    def _exchange(
        self,
        pending: Pending,
        command: bytes,
        *,
        timeout: float,
        limit: float,
        on_progress: Callable[[Frame], None] | None,
    ) -> Reply:
        start = time.monotonic()
        progress: list[Frame] = []
        attempts = 0
        last_answered = True
        poll = self.rto
        finish_by = start + max(limit, timeout)  # the command's cap; a silent device is given up sooner
        while True:
            # one more copy per unanswered send: a garbled line gets redundancy at once, a clean one none
            copies = min(self.copies + pending.lost, self.MAX_COPIES)
            if pending.accepted:
                self._send_poll(pending, command, copies)
            else:
                self._write(command * copies)
            if attempts:
                if last_answered:
                    self.stats.polls += 1
                else:
                    self.stats.retries += 1
            attempts += 1
            answered = False
            now = time.monotonic()
            wait_until = min(finish_by, now + (poll if pending.accepted else self.rto))
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
                if attempts == 1 and not pending.accepted:  # Karn: time only the first answer to a first try
                    self._sample_rtt(time.monotonic() - start)
                final = self._take(pending, item, progress, on_progress)
                if final is not None:
                    return Reply(final, tuple(progress), attempts, time.monotonic() - start)
                if pending.accepted:
                    wait_until = min(finish_by, time.monotonic() + poll)
            last_answered = answered
            if not answered:
                pending.lost += 1
            now = time.monotonic()
            silent_for = now - max(self.last_rx, start)
            if silent_for >= timeout:
                said = "no answer to" if not pending.accepted else "the device went silent during"
                raise NoFinalReply(
                    f"{said} {pending.name} (request {pending.request}): nothing heard for {silent_for:.1f} s, "
                    f"{attempts} tries",
                    pending.request,
                    accepted=pending.accepted,
                    progress=tuple(progress),
                )
            if now >= finish_by:
                what = "no result for" if pending.accepted else "the device never took"
                raise NoFinalReply(
                    f"{what} {pending.name} (request {pending.request}) in {finish_by - start:.1f} s "
                    f"({attempts} tries), longer than the device says it takes",
                    pending.request,
                    accepted=pending.accepted,
                    progress=tuple(progress),
                )
            # back off while the device is busy; poll briskly again after a loss
            poll = min(poll * 2, self.MAX_POLL_S) if answered else self.rto

    def _take(
        self,
        pending: Pending,
        item: Frame,
        progress: list[Frame],
        on_progress: Callable[[Frame], None] | None,
    ) -> Frame | None:
        """Account for one frame answering ``pending``; return the final reply once it is known."""
        if item.type == MsgType.REQUEST_STATE:
            try:
                state = RequestState.decode(item.payload)
            except FrameError:
                return None
            if state.request != pending.request:
                return None
            if state.state is RequestStatus.NONE:
                if pending.settling:
                    raise NoRecord()
                if pending.accepted:
                    raise NoFinalReply(
                        f"the device has no record of {pending.name} (request {pending.request}) any more",
                        pending.request,
                        accepted=True,
                        progress=tuple(progress),
                    )
                return None
            pending.accepted = True
            if state.state is RequestStatus.RUNNING:
                if pending.on_running is not None and time.monotonic() >= pending.next_nudge:
                    pending.next_nudge = time.monotonic() + 0.5
                    pending.on_running()
                return None
            if pending.assembly is None or pending.assembly.type != state.state:
                known = known_final_bytes(pending.type, state.state, state.size, progress_codes(progress))
                pending.assembly = Assembly(int(state.state), state.size, known)
            pending.assembly.add(state.offset, state.chunk)
            if pending.assembly.complete:
                return Frame(pending.assembly.type, pending.request, item.boot, pending.assembly.payload())
            return None
        if item.request != pending.request:
            return None  # an answer to one of our QUERYs that is not a REQUEST_STATE (a device refusing it)
        if item.type in FINAL_REPLIES:
            return item
        if item.type == MsgType.CARD_DEALT:
            progress.append(item)
            if on_progress is not None:
                on_progress(item)
        pending.accepted = True  # ACK or progress: the device has it; poll for the result
        return None

    MAX_COPIES = 8
    MAX_ALIASES = 64

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


__all__ = ["Link", "LinkStats", "NoFinalReply", "Reply", "RebootedWhileWaiting", "open_serial"]
