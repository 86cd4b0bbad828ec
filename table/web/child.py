"""The page's server process: the server (:mod:`table.web.server`) on the socket the controller bound, fed
what the controller publishes through the link (:mod:`table.web.wire`), and handing the host's commands back.

Started by the controller as ``python -m table.web.child --link FD --listen FD --parent PID`` (the two
descriptors are handed to it: the link, a socket pair, and the listening socket), it first reads its
:class:`ServerConfig` from the link (the token is never on a command line). Its main thread then reads the
link, and ends the process when the controller says :class:`~table.web.wire.Stop`, when the link closes (the
controller ended, however it ended) or when the process's parent is no longer the controller. Ctrl-C at the
terminal is the controller's to handle: this process is in a session of its own, ignores it, and ends with
the controller.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import queue
import signal
import socket
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from table.web import wire
from table.web.address import WebAddress
from table.web.errors import NoTable, TableSilent
from table.web.feed import TableFeed
from table.web.inputs import HostCommand
from table.web.server import WebServer, WebSettings

INPUT_WAIT_S = 5.0  # the controller posts a host input within this, or not at all
FRAME_WAIT_S = 2.0
PARENT_CHECK_S = 1.0
STOP_GRACE_S = 8.0


@dataclass(frozen=True, slots=True)
class ServerConfig:
    address: WebAddress
    token: str
    players: int
    journal: Path | None


class _Waiting:
    """Answers the controller owes, by ident: each a future on the server's event loop."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._futures: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}

    def new(self) -> tuple[int, asyncio.Future[Any]]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            ident = next(self._ids)
            self._futures[ident] = (loop, future)
        return ident, future

    def forget(self, ident: int) -> None:
        with self._lock:
            self._futures.pop(ident, None)

    def settle(self, ident: int, value: Any) -> None:
        """From the link's thread."""
        with self._lock:
            found = self._futures.pop(ident, None)
        if found is None:  # given up on already
            return
        loop, future = found

        def done() -> None:
            if not future.done():
                future.set_result(value)

        try:
            loop.call_soon_threadsafe(done)
        except RuntimeError:
            pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m table.web.child", description="the table page's server")
    parser.add_argument("--link", type=int, required=True)
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    link = Connection(args.link)
    sock = socket.socket(fileno=args.listen)
    try:
        config = link.recv()
    except (EOFError, OSError):
        return
    if isinstance(config, ServerConfig):
        serve(link, sock, config, args.parent)


def serve(link: Connection, sock: socket.socket, config: ServerConfig, parent: int) -> None:
    outbox: queue.SimpleQueue[wire.ToController | None] = queue.SimpleQueue()
    waiting = _Waiting()

    def write() -> None:
        while (message := outbox.get()) is not None:
            try:
                link.send(message)
            except OSError:
                return

    writer = threading.Thread(target=write, name="web-link-out", daemon=True)
    writer.start()

    async def inputs(command: HostCommand) -> None:
        ident, future = waiting.new()
        outbox.put(wire.HostInput(ident, command, time.monotonic() + INPUT_WAIT_S))
        try:
            error = await asyncio.wait_for(future, INPUT_WAIT_S + 1.0)
        except TimeoutError:
            raise TableSilent("the table did not answer in time; the input was not taken") from None
        finally:
            waiting.forget(ident)
        if error is not None:
            raise NoTable(error)

    async def fresh_frame() -> None:
        ident, future = waiting.new()
        outbox.put(wire.WantFrame(ident))
        try:
            await asyncio.wait_for(future, FRAME_WAIT_S)
        except TimeoutError:
            pass  # the latest frame the server has will do
        finally:
            waiting.forget(ident)

    feed = TableFeed(on_viewers=lambda count: outbox.put(wire.Viewers(count)))
    settings = WebSettings(
        token=config.token, players=config.players, journal=config.journal, inputs=inputs, fresh_frame=fresh_frame
    )
    server = WebServer(feed, settings, config.address, sock=sock).start()
    outbox.put(wire.Ready(os.getpid()))
    try:
        _read(link, feed, waiting, outbox, parent)
    finally:
        # the server must not outlive this function: a shutdown that hangs ends the process anyway
        threading.Timer(STOP_GRACE_S, os._exit, args=(0,)).start()
        server.stop()
        outbox.put(None)
        writer.join(timeout=2)
        link.close()
        os._exit(0)  # nothing of this process is left to wind down


def _read(
    link: Connection,
    feed: TableFeed,
    waiting: _Waiting,
    outbox: queue.SimpleQueue[wire.ToController | None],
    parent: int,
) -> None:
    while True:
        try:
            if not link.poll(PARENT_CHECK_S):
                if os.getppid() != parent:  # the controller is gone, though something still holds its end
                    return
                continue
            message: wire.ToServer = link.recv()
        except (EOFError, OSError):
            return
        match message:
            case wire.Verdicts(items=items):
                for state, events in items:
                    feed.publish(state, events)
            case wire.Frame(frame=frame):
                feed.add_frame(frame)
            case wire.CameraOn():
                feed.frames.has_camera = True
            case wire.FrameAnswer(ident=ident):
                waiting.settle(ident, None)
            case wire.InputAnswer(ident=ident, error=error):
                waiting.settle(ident, error)
            case wire.Reset(state=state, moves=moves, seq=seq):
                feed.reset(state, list(moves), seq)
            case wire.Sync(ident=ident):
                outbox.put(wire.Synced(ident))
            case wire.Stop():
                return


if __name__ == "__main__":
    # run as table.web.child, not as __main__: the link's messages name this module's classes by that name
    from table.web.child import main as child_main

    child_main()
