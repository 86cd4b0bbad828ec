"""The table page as a command runs it (``cardtable play|demo|history --web [HOST:]PORT``): the server, the two
lines and the QR code printed at start, and the hooks the controller and the camera call.

    page = TablePage.start(address, players=3, journal=path)   # prints watch: URL, host: URL?token=..., QR
    page.attach(session, loop)          # the loop's verdicts go to the page, the host's taps to the loop
    on_frame = page.camera(watcher)     # the camera thread calls on_frame(image, index) after each frame
    ...
    page.linger(None)                   # after the game: keep serving until Ctrl-C (or some seconds)
    page.stop()

With a live table the server runs in a process of its own (:class:`~table.web.process.ServerProcess`), so its
work never competes with the referee's loop for the interpreter. Without one (``cardtable history --web``:
nothing is refereed, so there is no loop to keep clear) it runs in a thread of the command's own process.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from table.controller.core import GameSession
from table.web.address import WebAddress
from table.web.camera import WatcherFrames
from table.web.errors import NoTable
from table.web.feed import TableFeed
from table.web.inputs import HostCommand
from table.web.live import LiveTable
from table.web.process import ServerProcess
from table.web.security import new_token
from table.web.server import WebServer, WebSettings

__all__ = ["NoTable", "TablePage", "print_qr"]  # NoTable: where it was first defined


class TablePage:
    """``server``: a :class:`~table.web.process.ServerProcess` (a live table; it is also the ``feed`` the
    table publishes into) or a :class:`~table.web.server.WebServer` (the journal's games only)."""

    def __init__(self, server: ServerProcess | WebServer, names: Callable[[int], str]) -> None:
        self.server = server
        self.feed: ServerProcess | TableFeed = server if isinstance(server, ServerProcess) else server.feed
        self.names = names
        self.live: LiveTable | None = None
        self._loop: Any = None

    @classmethod
    def start(
        cls,
        address: WebAddress,
        *,
        players: int = 0,
        journal: Path | None = None,
        token: str | None = None,
        names: Callable[[int], str] = lambda s: f"seat {s}",
        live: bool = True,
        out: TextIO | None = None,
        errors: TextIO | None = None,
        qr: bool = True,
    ) -> TablePage:
        """Start serving (raises :class:`~table.web.errors.AddressError` when it cannot listen,
        :class:`~table.web.errors.ServerLost` when the server's process does not start) and print ``watch: URL``,
        with a live table ``host: URL?token=...``, and the host's (else the watch) URL as a QR code. ``token``:
        table.toml's ``[web] token``; None: a new one. ``errors``: where a server that stops is reported
        (standard error by default)."""
        token = token or new_token()
        server: ServerProcess | WebServer
        if live:
            server = ServerProcess(address, token=token, players=players, journal=journal, errors=errors)
        else:
            server = WebServer(TableFeed(), WebSettings(token=token, players=players, journal=journal), address)
            server.start()
        page = cls(server, names)
        if isinstance(server, ServerProcess):
            server.on_input = page.post
        out = out or sys.stdout
        print(f"watch: {server.watch_url}", file=out, flush=True)
        if live:
            print(f"host: {server.host_url}", file=out, flush=True)
        if qr:
            print_qr(server.host_url if live else server.watch_url, out)
        return page

    def attach(self, session: GameSession, loop: Any, *, dealer_machine: bool = True) -> None:
        """Show ``session``'s game and send the host's taps to ``loop`` (a
        :class:`~table.controller.loop.TableLoop`, before it starts); a later call follows a new deal's."""
        self.live = LiveTable(self.feed, session, names=self.names, dealer_machine=dealer_machine)
        self.live.attach(loop)
        self._loop = loop

    def post(self, command: HostCommand) -> None:
        """A host's command to the table, as the terminal's input (raises :class:`NoTable` when no game is
        being refereed)."""
        loop = self._loop
        if loop is None:
            raise NoTable("no game is being refereed right now")
        loop.post(command.to_input())

    def camera(self, watcher: Any) -> Callable[[np.ndarray, int], None]:
        """What the camera thread calls after ``watcher.process`` (a ``vision.watcher.TableWatcher``)."""
        frames = WatcherFrames(watcher)
        server = self.server

        def on_frame(image: np.ndarray, index: int) -> None:
            if isinstance(server, ServerProcess):
                server.publish_frame(frames.frame(image, index))

        return on_frame

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until the server shows everything published so far (False: not within ``timeout``)."""
        return self.server.sync(timeout) if isinstance(self.server, ServerProcess) else True

    def linger(self, seconds: float | None, out: TextIO | None = None) -> None:
        """After the game: keep the page up ``seconds`` (None: until Ctrl-C), for the result and the replays."""
        self._loop = None
        if seconds is not None and seconds <= 0:
            return
        out = out or sys.stdout
        print(
            f"the table page stays up {'until Ctrl-C' if seconds is None else f'for {seconds:g} s'}: "
            f"{self.server.watch_url}",
            file=out,
            flush=True,
        )
        try:
            threading.Event().wait(seconds)
        except KeyboardInterrupt:
            pass

    def stop(self) -> None:
        self.server.stop()


def print_qr(url: str, out: TextIO) -> None:
    """``url`` as a QR code drawn with block characters (two rows of modules a line)."""
    import segno

    segno.make(url, error="l").terminal(out=out, compact=True)
    out.flush()
