"""Backends for :class:`firmware_bridge.dealer.Dealer`, swappable as gpiozero's pin factories are.

- ``serial``: a real link opened by URL (``/dev/ttyACM0``, a pty path, ``socket://host:port``);
- ``sim``: the simulator served in-process on a pseudo-terminal, opened through pyserial like a board;
- ``mock``: the same simulated machine behind an in-memory pipe (no OS pty, no timing): unit tests.

The default is chosen lazily: the ``url`` argument, else ``$CARDTABLE_DEALER`` (a URL, ``sim`` or ``mock``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_bridge.errors import LinkError
from firmware_bridge.link import Port, open_serial
from firmware_bridge.simulator import SimServer, Simulator, serve_pty

ENV_VAR = "CARDTABLE_DEALER"


class MemoryPipe:
    """Two byte buffers and a condition: the host end behaves like a pyserial port with a 50 ms timeout."""

    def __init__(self, timeout: float = 0.05) -> None:
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self._to_device = bytearray()
        self.timeout = timeout
        self.closed = False

    # host side (pyserial-like)
    @property
    def in_waiting(self) -> int:
        return len(self._to_host)

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            if not self._to_host and not self.closed:
                self._cond.wait(self.timeout)
            if self.closed:
                raise LinkError("mock port closed")
            data = bytes(self._to_host[:size])
            del self._to_host[:size]
            return data

    def write(self, data: bytes) -> int:
        with self._cond:
            if self.closed:
                raise LinkError("mock port closed")
            self._to_device += data
            self._cond.notify_all()
        return len(data)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    # device side (simulator Wire)
    def wire(self) -> _DeviceEnd:
        return _DeviceEnd(self)


class _DeviceEnd:
    def __init__(self, pipe: MemoryPipe) -> None:
        self.pipe = pipe

    def read(self, timeout: float) -> bytes | None:
        pipe = self.pipe
        with pipe._cond:
            if not pipe._to_device and not pipe.closed:
                pipe._cond.wait(timeout)
            if pipe.closed:
                return None
            data = bytes(pipe._to_device)
            pipe._to_device.clear()
            return data

    def write(self, data: bytes) -> None:
        with self.pipe._cond:
            self.pipe._to_host += data
            self.pipe._cond.notify_all()

    def close(self) -> None:
        self.pipe.close()


@dataclass
class Backend:
    """How a Dealer reaches its device: a URL plus an opener, and whatever must be stopped on close."""

    name: str
    url: str
    opener: Callable[[str], Port]
    simulator: Simulator | None = None
    server: SimServer | None = None
    _stop: Callable[[], None] | None = None

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self._stop is not None:
            self._stop()


def serial_backend(url: str) -> Backend:
    return Backend("serial", url, open_serial)


def sim_backend(simulator: Simulator | None = None, **options: Any) -> Backend:
    sim = simulator or Simulator(**options)
    server = serve_pty(sim)
    return Backend("sim", server.url, open_serial, simulator=sim, server=server)


def mock_backend(simulator: Simulator | None = None, **options: Any) -> Backend:
    options.setdefault("speed", 1000.0)
    sim = simulator or Simulator(**options)
    pipe = MemoryPipe()
    stopping = threading.Event()
    thread = threading.Thread(target=sim.run, args=(pipe.wire(), stopping), name="dealer-mock", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        pipe.close()
        thread.join(timeout=2)
        sim.close()

    def opener(url: str) -> Port:
        if pipe.closed:
            raise LinkError("mock port closed")
        return pipe

    return Backend("mock", "mock://", opener, simulator=sim, _stop=stop)


def resolve(url: str | None, backend: str | Backend | None, **sim_options: Any) -> Backend:
    """Pick the backend: an explicit one, else from the URL, else from ``$CARDTABLE_DEALER``."""
    if isinstance(backend, Backend):
        return backend
    choice = backend or url or os.environ.get(ENV_VAR)
    if not choice:
        raise LinkError(f"no dealer port given: pass a URL or set {ENV_VAR} (a URL, 'sim' or 'mock')")
    if choice == "sim":
        return sim_backend(**sim_options)
    if choice == "mock":
        return mock_backend(**sim_options)
    if choice == "serial":
        if not url:
            raise LinkError("the serial backend needs a URL")
        return serial_backend(url)
    return serial_backend(choice)
