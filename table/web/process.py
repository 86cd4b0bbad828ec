"""The controller's side of the page's server process (:mod:`table.web.child`).

:class:`ServerProcess` binds the address (so a bad one is refused before anything starts), starts the server in
a process of its own (a fresh interpreter, ``python -m table.web.child``, so the server's work never holds the
controller's GIL; nothing of the controller's program is run again there) and is the feed the controller publishes into:

- :meth:`ServerProcess.publish` (the loop thread, after each verdict) keeps the state, the moves and the event
  count (:class:`~table.web.feed.Published`) and queues the verdict: it never waits on the server. A thread of
  this side pickles and sends what is queued. The queue holds at most ``MAX_BACKLOG`` verdicts: a server that far
  behind is sent the whole state instead and its viewers start again from it, so events are never silently lost
  and the queue never grows without end.
- :meth:`ServerProcess.publish_frame` (the camera thread) hands the frame to the
  :class:`~table.web.camera.FrameEncoder`; only the latest encoded frame waits to be sent, older ones are dropped.
- The host's commands come back on another thread, which posts each to the table (``on_input``) and answers.

A server that stops (killed, crashed) costs the game nothing: what is published is dropped from then on and the
loss is reported once on ``errors``. The server ends with the controller: on :meth:`stop`, and otherwise when the
link closes because the controller ended, however it ended.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TextIO

import table
from table.web import wire
from table.web.address import WebAddress, bind
from table.web.camera import CameraFrame, FrameEncoder
from table.web.child import ServerConfig
from table.web.errors import ServerLost, WebError
from table.web.feed import EncodedFrame, Published
from table.web.inputs import HostCommand
from table.web.model import Event, State

MAX_BACKLOG = 1000  # verdicts waiting to be sent
BATCH = 100  # verdicts in one message at most
START_S = 60.0  # a loaded machine starts a fresh interpreter slowly
STOP_S = 5.0


def _why(exitcode: int | None) -> str:
    if exitcode is None:
        return "its link closed"
    if exitcode < 0:
        return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


class ServerProcess:
    """The page's server in its own process, and the feed the controller publishes into. ``on_input`` posts a
    host's command to the table (raising :class:`~table.web.errors.WebError` when there is no table to post to).
    """

    def __init__(
        self,
        address: WebAddress,
        *,
        token: str,
        players: int = 0,
        journal: Path | None = None,
        on_input: Callable[[HostCommand], None] | None = None,
        errors: TextIO | None = None,
        fps: float = 8.0,
    ) -> None:
        sock = bind(address)  # raises AddressError before anything starts
        self.address = WebAddress(address.host, int(sock.getsockname()[1]))
        self.token = token
        self.on_input = on_input
        self.errors = errors
        self.viewer_count = 0
        self.alive = True
        self._stopping = False
        self._behind_said = False
        self._cond = threading.Condition()
        self._published = Published()
        self._verdicts: deque[tuple[State, tuple[Event, ...]]] = deque()
        self._reset_due = False
        self._frame: EncodedFrame | None = None
        self._control: deque[wire.ToServer] = deque()
        self._camera_said = False
        self._syncs = itertools.count(1)
        self._synced: dict[int, threading.Event] = {}
        here, there = socket.socketpair()
        self._link = Connection(here.detach())
        package_root = str(Path(table.__file__).resolve().parents[1])  # the server imports this very package
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "table.web.child"]
                + ["--link", str(there.fileno()), "--listen", str(sock.fileno()), "--parent", str(os.getpid())],
                pass_fds=(there.fileno(), sock.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # Ctrl-C at the terminal is the controller's; the server ends with it
            )
        finally:
            there.close()
            sock.close()  # the server's process holds the port now: when it ends, nothing listens there
        try:
            self._link.send(ServerConfig(self.address, token, players, journal))
            ready = self._link.poll(START_S) and isinstance(self._recv_ready(), wire.Ready)
        except OSError:
            ready = False
        if not ready:
            self.process.kill()
            self.process.wait(timeout=5)
            self._link.close()
            raise ServerLost(f"the table page's server did not start ({_why(self.process.poll())})")
        self.frames = FrameEncoder(self._on_frame, self._wanted, on_answer=self._on_frame_answer, fps=fps)
        self._sender = threading.Thread(target=self._send_loop, name="web-link-out", daemon=True)
        self._receiver = threading.Thread(target=self._receive_loop, name="web-link-in", daemon=True)
        self._sender.start()
        self._receiver.start()
        self.frames.start()

    def _recv_ready(self) -> wire.ToController | None:
        try:
            message: wire.ToController = self._link.recv()
        except (EOFError, OSError):
            return None
        return message

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def watch_url(self) -> str:
        return f"http://{self.address.url_host}:{self.address.port}/"

    @property
    def host_url(self) -> str:
        return f"{self.watch_url}?token={self.token}"

    # -- the feed (the loop thread, the camera thread) ------------------------------------------------

    def publish(self, state: State, events: Sequence[Event]) -> None:
        """A verdict's ``events`` and the ``state`` after it; returns at once."""
        with self._cond:
            self._published.add(state, events)
            if not self.alive:
                return
            if len(self._verdicts) >= MAX_BACKLOG:
                self._verdicts.clear()
                self._reset_due = True
            self._verdicts.append((state, tuple(events)))
            self._cond.notify()

    def publish_frame(self, frame: CameraFrame) -> None:
        if not self._camera_said:
            self._camera_said = True
            self._put(wire.CameraOn())
        self.frames.offer(frame)

    def state(self) -> State:
        """The latest state published, numbered as the server numbers it."""
        with self._cond:
            return self._published.state

    def sync(self, timeout: float = 10.0) -> bool:
        """Wait until the server has taken in everything published so far (False: it did not within
        ``timeout``, or it has stopped)."""
        if not self.alive:
            return False
        ident = next(self._syncs)
        done = self._synced[ident] = threading.Event()
        self._put(wire.Sync(ident))
        try:
            return done.wait(timeout) and self.alive
        finally:
            self._synced.pop(ident, None)

    def _wanted(self) -> bool:
        return self.alive and self.viewer_count > 0

    def _on_frame(self, frame: EncodedFrame) -> None:
        with self._cond:
            self._frame = frame  # a frame not sent yet is dropped for the newer one
            self._cond.notify()

    def _on_frame_answer(self, ident: int) -> None:
        self._put(wire.FrameAnswer(ident))

    def _put(self, message: wire.ToServer) -> None:
        with self._cond:
            if not self.alive:
                return
            self._control.append(message)
            self._cond.notify()

    # -- the link's threads --------------------------------------------------------------------------

    def _send_loop(self) -> None:
        while True:
            with self._cond:
                while self.alive and not (self._verdicts or self._reset_due or self._frame or self._control):
                    self._cond.wait()
                if not self.alive:
                    return
                out: list[wire.ToServer] = []
                if self._reset_due:
                    p = self._published
                    out.append(wire.Reset(p.state, tuple(p.moves), p.seq))
                    self._reset_due = False
                    self._verdicts.clear()
                if self._verdicts:
                    batch = [self._verdicts.popleft() for _ in range(min(BATCH, len(self._verdicts)))]
                    out.append(wire.Verdicts(tuple(batch)))
                if not self._verdicts:  # a frame or a word for the server goes after the verdicts before it
                    if self._frame is not None:
                        out.append(wire.Frame(self._frame))
                        self._frame = None
                    out.extend(self._control)
                    self._control.clear()
            for message in out:
                try:
                    self._link.send(message)
                except (OSError, ValueError):  # the server's end is gone (or this end was closed by stop)
                    self._lost()
                    return
                if isinstance(message, wire.Reset):
                    self._say_behind()
                elif isinstance(message, wire.Stop):
                    return

    def _receive_loop(self) -> None:
        while True:
            try:
                message: wire.ToController = self._link.recv()
            except (EOFError, OSError, ValueError):
                self._lost()
                return
            match message:
                case wire.Viewers(count=count):
                    self.viewer_count = count
                case wire.HostInput(ident=ident, command=command, deadline=deadline):
                    self._put(wire.InputAnswer(ident, self._take(command, deadline)))
                case wire.WantFrame(ident=ident):
                    self.frames.ask(ident)
                case wire.Synced(ident=ident):
                    done = self._synced.get(ident)
                    if done is not None:
                        done.set()

    def _take(self, command: HostCommand, deadline: float) -> str | None:
        """Post ``command`` to the table: None, or why it was not posted."""
        if time.monotonic() > deadline:
            return "too late: the server has answered already"
        if self.on_input is None:
            return "no live table: this server shows the journal's games only"
        try:
            self.on_input(command)
        except WebError as exc:
            return str(exc)
        return None

    def _lost(self) -> None:
        with self._cond:
            if not self.alive:
                return
            self.alive = False
            self._verdicts.clear()
            self._control.clear()
            self._frame = None
            self._cond.notify_all()
        for done in list(self._synced.values()):
            done.set()
        if self._stopping:
            return
        try:
            code: int | None = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._say(f"the table page's server stopped ({_why(code)}); the game goes on without it")

    def _say_behind(self) -> None:
        if not self._behind_said:
            self._behind_said = True
            self._say("the table page's server fell behind; its viewers were sent the whole state again")

    def _say(self, text: str) -> None:
        print(f"cardtable: {text}", file=self.errors or sys.stderr, flush=True)

    # -- the end ---------------------------------------------------------------------------------------

    def stop(self) -> None:
        """End the streams, the server and its process (killed if it does not end within ``STOP_S``)."""
        self._stopping = True
        self.frames.stop()
        self._put(wire.Stop())
        self._sender.join(timeout=STOP_S)
        self._end_process()
        self._receiver.join(timeout=2)  # the process's end of the link closed with it
        self._lost()
        self._link.close()

    def _end_process(self) -> None:
        try:
            self.process.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
