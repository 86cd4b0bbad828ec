"""The table page as a command runs it (``cardtable play|demo|history --web [HOST:]PORT``): the server in its
thread, the two lines and the QR code printed at start, and the hooks the controller and the camera call.

    page = TablePage.start(address, players=3, journal=path)   # prints watch: URL, host: URL?token=..., QR
    page.attach(session, loop)          # the loop's verdicts go to the page, the host's taps to the loop
    on_frame = page.camera(watcher)     # the camera thread calls on_frame(image, index) after each frame
    ...
    page.linger(None)                   # after the game: keep serving until Ctrl-C (or some seconds)
    page.stop()
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from table.controller.core import GameSession
from table.controller.referee import Input
from table.web.address import WebAddress
from table.web.camera import WatcherFrames
from table.web.errors import WebError
from table.web.feed import TableFeed
from table.web.live import LiveTable
from table.web.security import new_token
from table.web.server import WebServer, WebSettings


class NoTable(WebError, RuntimeError):
    """A host input arrived while no game is being refereed (between two deals, or after the game)."""


class TablePage:
    def __init__(self, server: WebServer, names: Callable[[int], str]) -> None:
        self.server = server
        self.feed = server.feed
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
        qr: bool = True,
    ) -> TablePage:
        """Start serving (raises :class:`~table.web.errors.AddressError` when it cannot listen) and print
        ``watch: URL``, with a live table ``host: URL?token=...``, and the host's (else the watch) URL as a
        QR code. ``token``: table.toml's ``[web] token``; None: a new one."""
        feed = TableFeed()
        page: TablePage
        settings = WebSettings(token=token or new_token(), players=players, journal=journal)
        server = WebServer(feed, settings, address)
        page = cls(server, names)
        if live:
            settings.inputs = page.post
        server.start()
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

    def post(self, inp: Input) -> None:
        loop = self._loop
        if loop is None:
            raise NoTable("no game is being refereed right now")
        loop.post(inp)

    def camera(self, watcher: Any) -> Callable[[np.ndarray, int], None]:
        """What the camera thread calls after ``watcher.process`` (a ``vision.watcher.TableWatcher``)."""
        frames = WatcherFrames(watcher)
        feed = self.feed

        def on_frame(image: np.ndarray, index: int) -> None:
            feed.publish_frame(frames.frame(image, index))

        return on_frame

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
