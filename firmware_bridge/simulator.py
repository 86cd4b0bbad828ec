"""A simulated dealer machine: the reference firmware's protocol logic on simulated mechanics,
served over a pseudo-terminal, a TCP port or an in-memory pipe, with faults injected on the wire.

``serve_pty(Simulator(...))`` runs it in a background thread and gives the path to open with
pyserial exactly as ``/dev/ttyACM0`` is opened. The simulator writes what it physically did
(shuffles, deals, jams, reboots) to ``truth`` and, optionally, a JSON Lines log: the truth tests
check the host against. That log holds the deck order: keep it away from the players.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import math
import os
import pty
import random
import select
import socket
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from firmware_bridge.errors import BridgeError, RequestError
from firmware_bridge.firmware import core as firmware_core
from firmware_bridge.firmware import proto
from firmware_bridge.messages import CARD_UNKNOWN, Face, Target, TargetKind
from table.cards import ALL_CARDS, Card, standard_pack

# The firmware is untyped MicroPython code: seen from here its core is Any.
Core: Any = firmware_core.Core


@dataclass(frozen=True, slots=True)
class Timing:
    """Mechanical times in ms at speed 1 (a slow, careful home-built machine)."""

    home_ms: float = 400.0
    step_ms: float = 40.0  # carousel rotation per position
    feed_ms: float = 80.0  # friction wheel pushes one card out
    reverse_ms: float = 20.0  # reverse pulse so the next card does not follow
    exit_see_ms: float = 30.0  # card reaches the exit sensor
    exit_clear_ms: float = 40.0  # card clears the exit sensor
    see_timeout_ms: float = 200.0
    clear_timeout_ms: float = 300.0
    vibrate_ms: float = 50.0
    shuffle_ms_per_card: float = 15.0
    boot_ms: float = 150.0


@dataclass(frozen=True, slots=True)
class Faults:
    """Faults on the wire, applied in both directions."""

    drop: float = 0.0  # probability a byte is lost
    corrupt: float = 0.0  # probability a byte is changed
    duplicate: float = 0.0  # probability a whole frame is sent twice
    delay_ms: float = 0.0  # every frame from the device is held this long

    @property
    def any(self) -> bool:
        return bool(self.drop or self.corrupt or self.duplicate or self.delay_ms)


class SimReboot(BaseException):
    """Raised inside the mechanics to reboot the simulated board (not an Exception: the firmware's
    fault handler must not catch it, exactly as it cannot catch a brown-out)."""


Gen = Generator[float, None, Any]


class SimMechanics:
    """The hardware object the firmware core drives: carousel, feed wheel, exit sensor, hopper, LEDs."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.is_homed = False
        self.position: int | None = None
        self.feeds = 0
        self.dealt_since_boot = 0
        self.events: list[tuple[int, bytes]] = []

    def _wait(self, ms: float) -> float:
        return ms * self.sim.slowdown / self.sim.speed

    def homed(self) -> bool:
        return self.is_homed

    def hopper_count(self) -> int:
        return len(self.sim.hopper)

    def door_open(self) -> bool:
        return self.sim.door_is_open

    def timing(self) -> tuple[int, int, int]:
        """(card_ms, move_ms, shuffle_ms) at this speed: the most one card (a vibrate-and-retry and the
        exit sensor's timeouts included), one carousel move or homing, and a shuffle of the hopper take."""
        t, speed = self.sim.timing, self.sim.speed
        card = t.feed_ms + t.reverse_ms + t.see_timeout_ms + t.vibrate_ms + t.feed_ms + t.see_timeout_ms
        card += t.clear_timeout_ms
        move = max(t.home_ms, t.step_ms * (self.sim.seats + 5) / 2)
        shuffle = t.shuffle_ms_per_card * max(len(self.sim.hopper), 52)
        card_ms, move_ms, shuffle_ms = (min(0xFFFF, math.ceil(ms / speed)) for ms in (card, move, shuffle))
        return card_ms, move_ms, shuffle_ms

    def poll_events(self) -> list[tuple[int, bytes]]:
        events, self.events = self.events, []
        return events

    def stop(self) -> None:
        self.sim.record("stop")

    def set_led(self, seat: int, pattern: int, r: int, g: int, b: int) -> None:
        seats = range(1, self.sim.seats + 1) if seat == 0 else [seat]
        for s in seats:
            self.sim.leds[s] = (pattern, (r, g, b))

    def home(self) -> Gen:
        t = self.sim.timing
        yield self._wait(t.home_ms)
        self.is_homed = True
        self.position = 0
        self.sim.record("home")
        return proto.OK

    def rotate(self, position: int) -> Gen:
        positions = self.sim.seats + 5
        here = self.position if self.position is not None else 0
        steps = min((position - here) % positions, (here - position) % positions)
        yield self._wait(self.sim.timing.step_ms * steps)
        self.position = position
        return proto.OK

    def shuffle(self) -> Gen:
        yield self._wait(self.sim.timing.shuffle_ms_per_card * len(self.sim.hopper))
        self.sim.rng.shuffle(self.sim.hopper)
        self.sim.record("shuffle", cards=len(self.sim.hopper))
        return proto.OK

    def feed(self, face: int) -> Gen:
        sim, t = self.sim, self.sim.timing
        self.feeds += 1
        jam = bool(sim.jam_every) and self.feeds % sim.jam_every == 0
        yield self._wait(t.feed_ms + t.reverse_ms)
        if jam:  # the card never reaches the exit sensor: vibrate, retry once, give up
            yield self._wait(t.see_timeout_ms + t.vibrate_ms + t.feed_ms + t.see_timeout_ms)
            sim.record("jam", target=self._target_name())
            return proto.E_JAM, 0
        yield self._wait(t.exit_see_ms + t.exit_clear_ms)
        card = sim.hopper.pop(0)
        target = self._target_name()
        sim.record(
            "deal",
            target=target,
            card=str(card),
            face=Face(face).name.lower(),
            request=sim.core.job_req if sim.core else 0,
        )
        sim.dealt[target] = sim.dealt.get(target, 0) + 1
        self.dealt_since_boot += 1
        if sim.reboot_every and self.dealt_since_boot >= sim.reboot_every:
            raise SimReboot()
        code = card.index if sim.card_reader else CARD_UNKNOWN
        return proto.OK, code

    def _target_name(self) -> str:
        position = self.position if self.position is not None else 0
        seats = self.sim.seats
        if position < seats:
            return str(Target(TargetKind.SEAT, position + 1))
        return str(Target(TargetKind(position - seats + 1)))


class Wire(Protocol):
    """The device's end of a link."""

    def read(self, timeout: float) -> bytes | None:
        """Bytes from the host; b"" when none came in ``timeout`` s; None when no host is attached."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class Simulator:
    """The simulated machine. Thread-safe controls: ``load_deck``, ``open_door``, ``press_button``."""

    def __init__(
        self,
        *,
        seats: int = 4,
        card_reader: bool = False,
        deck: Sequence[Card] | None = None,
        seed: int | None = None,
        speed: float = 1.0,
        faults: Faults | None = None,
        reboot_every: int = 0,
        jam_every: int = 0,
        log: str | Path | IO[str] | None = None,
        heartbeat_ms: int = 250,
        timing: Timing | None = None,
        slowdown: float = 1.0,
    ) -> None:
        if not 1 <= seats <= 12:
            raise RequestError(f"seats must be 1..12, not {seats}")
        if not (math.isfinite(speed) and speed > 0):
            raise RequestError("speed must be a positive number")
        if not (math.isfinite(slowdown) and slowdown > 0):
            raise RequestError("slowdown must be a positive number")
        self.slowdown = slowdown  # a fault: the mechanics take this many times what the device states
        self.seats = seats
        self.card_reader = card_reader
        self.rng = random.Random(seed)
        self.speed = speed
        self.faults = faults or Faults()
        self.reboot_every = reboot_every
        self.jam_every = jam_every
        self.heartbeat_ms = heartbeat_ms
        self.timing = timing or Timing()
        self.hopper: list[Card] = list(deck) if deck is not None else standard_pack()
        self.door_is_open = False
        self.leds: dict[int, tuple[int, tuple[int, int, int]]] = {}
        self.dealt: dict[str, int] = {}
        self.truth: list[dict[str, Any]] = []
        self.boots = 0
        self.core: Any = None
        self.mechanics = SimMechanics(self)
        self._lock = threading.RLock()
        self._t0 = time.monotonic()
        self._log_file: IO[str] | None
        self._own_log = False
        if log is None:
            self._log_file = None
        elif isinstance(log, (str, Path)):
            self._log_file = open(log, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
            self._own_log = True
        else:
            self._log_file = log

    # ---- controls (any thread) --------------------------------------------------------------
    def load_deck(self, cards: Iterable[Card]) -> None:
        """Put these cards in the hopper, first dealt first (the demo gives the deck whose order it knows)."""
        with self._lock:
            self.hopper = list(cards)
            self.record("load", cards=len(self.hopper))

    def open_door(self) -> None:
        with self._lock:
            self.door_is_open = True
            self.mechanics.events.append((proto.DOOR, b"\x01"))

    def close_door(self) -> None:
        with self._lock:
            self.door_is_open = False
            self.mechanics.events.append((proto.DOOR, b"\x00"))

    def press_button(self, seat: int, *, long: bool = False) -> None:
        with self._lock:
            self.mechanics.events.append((proto.BUTTON, bytes((seat, 2 if long else 1))))

    def deals(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.truth if r["action"] == "deal"]

    def record(self, action: str, **fields: Any) -> None:
        entry = {"t": round(time.monotonic() - self._t0, 4), "action": action, **fields}
        with self._lock:
            self.truth.append(entry)
            if self._log_file is not None:
                self._log_file.write(json.dumps(entry) + "\n")
                self._log_file.flush()

    def close(self) -> None:
        if self._own_log and self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    # ---- the device loop ----------------------------------------------------------------------
    def _boot(self, send: Callable[[bytes], None], now: float) -> Any:
        self.boots += 1
        self.mechanics.is_homed = False
        self.mechanics.position = None
        self.mechanics.dealt_since_boot = 0
        boot_id = self.rng.randrange(1, 0x10000)
        self.record("boot", boot_id=boot_id)
        self.core = Core(
            self.mechanics,
            send,
            boot_id,
            self.seats,
            card_reader=self.card_reader,
            now=now,
            heartbeat_ms=self.heartbeat_ms,
        )
        return self.core

    def run(self, wire: Wire, stopping: threading.Event) -> None:
        """Serve the protocol on ``wire`` until ``stopping`` is set (the body of the server thread)."""
        faulty = FaultyWire(wire, self.faults, self.rng)
        now = _ms()
        core = self._boot(faulty.write, now)
        booting_until = 0.0
        due = 0.0
        while not stopping.is_set():
            timeout = max(0.0, min(due, faulty.next_due(now)) / 1000.0)
            data = faulty.read(timeout, stopping)
            now = _ms()
            with self._lock:
                if now < booting_until:
                    due = booting_until - now
                    continue  # a booting board hears nothing
                if booting_until:
                    booting_until = 0.0
                    core = self._boot(faulty.write, now)
                try:
                    if data:
                        core.receive(data, now)
                    due = core.tick(now)
                except SimReboot:
                    self.record("reboot")
                    core.job = None
                    booting_until = now + self.timing.boot_ms / self.speed
                    due = booting_until - now
            faulty.flush(now)


def _ms() -> float:
    return time.monotonic() * 1000.0


class FaultyWire:
    """Applies :class:`Faults` to both directions of a wire; delay is a FIFO so nothing reorders."""

    def __init__(self, wire: Wire, faults: Faults, rng: random.Random) -> None:
        self.wire = wire
        self.faults = faults
        self.rng = rng
        self._held: list[tuple[float, int, bytes]] = []
        self._seq = 0
        self._in_block = bytearray()

    def _mangle(self, data: bytes) -> bytes:
        f, rng = self.faults, self.rng
        if not (f.drop or f.corrupt):
            return data
        out = bytearray()
        for b in data:
            if f.drop and rng.random() < f.drop:
                continue
            if f.corrupt and rng.random() < f.corrupt:
                b ^= rng.randrange(1, 256)
            out.append(b)
        return bytes(out)

    def write(self, frame: bytes) -> None:
        if self.faults.duplicate and self.rng.random() < self.faults.duplicate:
            frame = frame + frame
        if self.faults.delay_ms:
            self._seq += 1
            heapq.heappush(self._held, (_ms() + self.faults.delay_ms, self._seq, frame))
            return
        self.wire.write(self._mangle(frame))

    def next_due(self, now: float) -> float:
        return max(0.0, self._held[0][0] - now) if self._held else 1000.0

    def flush(self, now: float) -> None:
        while self._held and self._held[0][0] <= now:
            self.wire.write(self._mangle(heapq.heappop(self._held)[2]))

    def read(self, timeout: float, stopping: threading.Event) -> bytes:
        data = self.wire.read(timeout)
        if data is None:  # nobody attached: the board idles
            stopping.wait(min(timeout, 0.02))
            return b""
        if not data or not self.faults.any:
            return data
        if self.faults.duplicate:
            out = bytearray()
            for b in data:
                self._in_block.append(b)
                if b == 0:
                    out += self._in_block
                    if self.rng.random() < self.faults.duplicate:
                        out += self._in_block
                    self._in_block.clear()
            data = bytes(out)
        return self._mangle(data)


# ---- wires ----------------------------------------------------------------------------------------


class PtyWire:
    """The master side of a pseudo-terminal. The host opens the slave path like a USB serial port."""

    def __init__(self) -> None:
        master, slave = pty.openpty()
        tty.setraw(slave)  # no echo, no line editing: 8-bit clean before the host even opens it
        self.slave_name = os.ttyname(slave)
        os.close(slave)  # keep no copy, or the master never sees the host hang up
        os.set_blocking(master, False)
        self.master = master
        self._closing = threading.Lock()  # unplug() (a timer thread) and stop() may race to close

    def read(self, timeout: float) -> bytes | None:
        if self.master < 0:
            return None
        try:
            ready, _, _ = select.select([self.master], [], [], timeout)
            if not ready:
                return b""
            return os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError:  # EIO: no slave open (host not attached or gone)
            return None

    def write(self, data: bytes) -> None:
        if self.master < 0:
            return
        with contextlib.suppress(OSError):  # buffer full or nobody attached: a lossy wire
            os.write(self.master, data)

    def close(self) -> None:
        with self._closing:
            fd, self.master = self.master, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


class TcpWire:
    """One TCP client at a time (as ser2net serves a port)."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.listener = socket.create_server((host, port))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.host = host
        self.conn: socket.socket | None = None

    def read(self, timeout: float) -> bytes | None:
        if self.conn is None:
            ready, _, _ = select.select([self.listener], [], [], timeout)
            if not ready:
                return None
            try:
                self.conn, _ = self.listener.accept()
            except OSError:
                return None
            self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conn.setblocking(False)
            return b""
        try:
            ready, _, _ = select.select([self.conn], [], [], timeout)
            if not ready:
                return b""
            data = self.conn.recv(4096)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self.conn.close()
            self.conn = None
            return None
        return data

    def write(self, data: bytes) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.sendall(data)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.listener.close()


# ---- servers --------------------------------------------------------------------------------------


@dataclass
class SimServer:
    """A simulator running in a background thread. ``url`` is what the host opens."""

    sim: Simulator
    url: str
    _wire: Any
    _thread: threading.Thread
    _stopping: threading.Event
    _link_path: Path | None = None
    _tmpdir: str | None = None
    _restart: Callable[[], Any] | None = field(default=None, repr=False)

    def unplug(self) -> None:
        """Close the pty master: to the host this is a USB cable pulled out."""
        self._stop_thread()
        self._wire.close()
        self._remove_own_link()

    def _remove_own_link(self) -> None:
        """Remove the link only while it is still the one this server made (pointing at its pty)."""
        link = self._link_path
        if link is None:
            return
        with contextlib.suppress(OSError):
            if os.readlink(link) == getattr(self._wire, "slave_name", None):
                link.unlink()

    def plug(self) -> None:
        """A new pty behind the same path (as udev's stable by-id link): the cable is back."""
        if self._restart is None:
            raise RequestError("only a pty server can be unplugged and plugged back")
        self._restart()

    def _stop_thread(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)

    def stop(self) -> None:
        self._stop_thread()
        self._wire.close()
        self._remove_own_link()
        if self._tmpdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._tmpdir)
        self.sim.close()

    def __enter__(self) -> SimServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _start_thread(sim: Simulator, wire: Wire, name: str) -> tuple[threading.Thread, threading.Event]:
    stopping = threading.Event()
    thread = threading.Thread(target=sim.run, args=(wire, stopping), name=name, daemon=True)
    thread.start()
    return thread, stopping


def serve_pty(sim: Simulator, *, link: str | Path | None = None) -> SimServer:
    """Serve ``sim`` on a new pseudo-terminal in a background thread.

    The returned ``url`` is a stable symlink to the pty's slave (``link``, or one in a private
    temporary folder), so :meth:`SimServer.plug` can put a fresh pty behind the same path.
    """
    tmpdir = None
    if link is None:
        tmpdir = tempfile.mkdtemp(prefix="cardtable-dealer-")
        link = Path(tmpdir) / "tty"
    link_path = Path(link)
    _check_link_free(link_path)
    wire = PtyWire()
    try:
        _point(link_path, wire.slave_name)
    except BaseException:
        wire.close()
        raise
    thread, stopping = _start_thread(sim, wire, "dealer-sim-pty")
    server = SimServer(sim, str(link_path), wire, thread, stopping, link_path, tmpdir)

    def restart() -> None:
        _check_link_free(link_path)
        new_wire = PtyWire()
        _point(link_path, new_wire.slave_name)
        server._wire = new_wire
        server._thread, server._stopping = _start_thread(sim, new_wire, "dealer-sim-pty")

    server._restart = restart
    return server


class LinkPathTaken(BridgeError, FileExistsError):
    """The path asked for the pty's link holds something this simulator did not make."""


def _check_link_free(link: Path) -> None:
    """Refuse a link path that holds anything but a stale pty link.

    A regular file, a folder, or a link to anything that exists is someone else's: it is never replaced
    (nor deleted on exit). A dangling link into ``/dev/pts/`` is what a killed simulator leaves
    behind: that one is replaced.
    """
    if not os.path.lexists(link):
        return
    if link.is_symlink():
        target = os.readlink(link)
        if target.startswith("/dev/pts/") and not os.path.exists(link):
            return
        raise LinkPathTaken(f"will not replace {link}: it is a link to {target}, not a stale pty link of a simulator")
    raise LinkPathTaken(f"will not replace {link}: it exists and is not a link this simulator made")


def _point(link: Path, target: str) -> None:
    """Make ``link`` point at ``target`` at once (a temporary link of a unique name, then a rename)."""
    tmp = Path(tempfile.mktemp(prefix=f".{link.name}.", dir=link.parent))
    os.symlink(target, tmp)
    try:
        os.replace(tmp, link)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def serve_tcp(sim: Simulator, port: int = 0, *, host: str = "127.0.0.1") -> SimServer:
    """Serve ``sim`` on a TCP port (0: any free port); ``url`` is ``socket://host:port``."""
    wire = TcpWire(port, host)
    thread, stopping = _start_thread(sim, wire, "dealer-sim-tcp")
    return SimServer(sim, f"socket://{host}:{wire.port}", wire, thread, stopping)


__all__ = ["Faults", "Timing", "Simulator", "SimServer", "serve_pty", "serve_tcp", "ALL_CARDS"]
