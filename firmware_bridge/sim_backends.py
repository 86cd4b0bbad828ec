"""The simulated dealer machine as :class:`~firmware_bridge.dealer.Dealer` backends, registered by name
(entry points in the group ``cardtable.dealer_backends``, see :mod:`firmware_bridge.backends`):

- ``sim``: the simulator served in-process on a pseudo-terminal, opened through pyserial like a board;
- ``mock``: the same simulated machine behind an in-memory pipe (no OS pty, no timing): unit tests.
"""

from __future__ import annotations

import threading
from typing import Any

from firmware_bridge.backends import Backend
from firmware_bridge.errors import LinkError
from firmware_bridge.link import Port, open_serial
from firmware_bridge.simulator import Simulator, serve_pty


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


def sim_backend(simulator: Simulator | None = None, **options: Any) -> Backend:
    sim = simulator or Simulator(**options)
    server = serve_pty(sim)
    return Backend("sim", server.url, open_serial, simulator=sim, stop=server.stop)


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

    return Backend("mock", "mock://", opener, simulator=sim, stop=stop)
