"""The hub between the table and its viewers.

Producers (any thread): :meth:`TableFeed.publish` (a state and the events of one verdict, from the controller's
loop thread) and :meth:`TableFeed.publish_frame` (from the camera thread). Both return at once: the state and
events are serialised once, stored, and the fan-out is scheduled on the server's event loop; a frame is only
handed to the encoder thread. What a publish costs does not depend on how many viewers there are.

Viewers (the server's event loop): each has a :class:`Viewer` queue: the events in order (bounded: a viewer
that falls ``max_events`` behind is disconnected and, reconnecting, gets the whole state again, so no event is
ever silently lost), the latest state and the latest frame (older ones replaced: frames are dropped, and so are
states another state superseded).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from table.web.camera import CameraFrame, EncodedFrame, FrameEncoder
from table.web.errors import TooManyViewers
from table.web.model import Event, State, empty_state


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def sse(event: str, data: bytes, *, ident: int | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON)."""
    head = f"event: {event}\n" + (f"id: {ident}\n" if ident is not None else "")
    return head.encode() + b"data: " + data + b"\n\n"


class Viewer:
    """One live page's queue; touched only on the server's event loop."""

    def __init__(self, since: int, max_events: int) -> None:
        self.since = since  # events up to this seq were in the hello
        self.max_events = max_events
        self.events: deque[tuple[int, bytes]] = deque()
        self.state: bytes | None = None
        self.frame: bytes | None = None
        self.wake = asyncio.Event()
        self.overflowed = False
        self.closed = False
        self.frames_dropped = 0

    def push(self, events: Sequence[tuple[int, bytes]], state: bytes | None) -> None:
        for seq, payload in events:
            if seq > self.since:
                self.events.append((seq, payload))
        if len(self.events) > self.max_events:
            self.overflowed = True
            self.events.clear()
        if state is not None:
            self.state = state
        self.wake.set()

    def push_frame(self, notice: bytes) -> None:
        if self.frame is not None:
            self.frames_dropped += 1
        self.frame = notice
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    def drain(self) -> list[bytes]:
        """What to send now, in order: the events, then the state, then the frame."""
        out = [sse("event", payload, ident=seq) for seq, payload in self.events]
        self.events.clear()
        if self.state is not None:
            out.append(sse("state", self.state))
            self.state = None
        if self.frame is not None:
            out.append(sse("frame", self.frame))
            self.frame = None
        return out


class TableFeed:
    def __init__(self, *, max_viewers: int = 100, max_events: int = 2000, fps: float = 8.0) -> None:
        self.max_viewers = max_viewers
        self.max_events = max_events
        self._lock = threading.Lock()
        self._state: State = empty_state()
        self._moves: list[str] = []
        self._seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._viewers: set[Viewer] = set()
        self.viewer_count = 0
        self.frames = FrameEncoder(self._on_frame, lambda: self.viewer_count > 0, fps=fps)
        self.published = 0

    # -- producers (any thread) -----------------------------------------------------------------

    def publish(self, state: State, events: Sequence[Event]) -> None:
        """A verdict's ``events`` and the ``state`` after it (a ``move`` event adds to the game's move list, an
        ``unmove`` takes the last back; a state of another game starts a new list)."""
        with self._lock:
            if state["game_id"] != self._state["game_id"]:
                self._moves = []
            numbered: list[tuple[int, bytes]] = []
            for event in events:
                self._seq += 1
                numbered.append((self._seq, _dumps({**event, "seq": self._seq})))
                if event["kind"] == "move":
                    self._moves.append(event["text"])
                elif event["kind"] == "unmove" and self._moves:
                    self._moves.pop()
            state = State(**{**state, "seq": self._seq})
            self._state = state
            self.published += 1
        loop = self._loop
        if loop is not None and self.viewer_count:
            payload = _dumps(state)
            try:
                loop.call_soon_threadsafe(self._fanout, numbered, payload)
            except RuntimeError:  # the server's loop has closed
                pass

    def publish_frame(self, frame: CameraFrame) -> None:
        self.frames.offer(frame)

    # -- the server (its event loop) ------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def state(self) -> State:
        with self._lock:
            return self._state

    def snapshot(self) -> bytes:
        """The whole state with the moves so far (``/api/state`` and a stream's ``hello``)."""
        with self._lock:
            return _dumps({**self._state, "moves": list(self._moves)})

    def add_viewer(self) -> tuple[Viewer, bytes]:
        with self._lock:
            if len(self._viewers) >= self.max_viewers:
                raise TooManyViewers(f"{self.max_viewers} viewers are watching already")
            viewer = Viewer(self._seq, self.max_events)
            hello = _dumps({**self._state, "moves": list(self._moves)})
            self._viewers.add(viewer)
            self.viewer_count = len(self._viewers)
        latest = self.frames.latest()
        if latest is not None:  # the table may be still: the newcomer sees the last frame sent
            viewer.push_frame(latest.notice)
            viewer.frames_dropped = 0
        return viewer, hello

    def remove_viewer(self, viewer: Viewer) -> None:
        with self._lock:
            self._viewers.discard(viewer)
            self.viewer_count = len(self._viewers)

    def end_streams(self) -> None:
        """From any thread: end every viewer's stream (the server is stopping)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.close_viewers)
            except RuntimeError:
                pass

    def close_viewers(self) -> None:
        with self._lock:
            viewers = list(self._viewers)
        for viewer in viewers:
            viewer.close()

    def _fanout(self, events: Sequence[tuple[int, bytes]], state: bytes) -> None:
        for viewer in list(self._viewers):
            viewer.push(events, state)

    def _on_frame(self, frame: EncodedFrame) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._fanout_frame, frame.notice)
        except RuntimeError:
            pass

    def _fanout_frame(self, notice: bytes) -> None:
        for viewer in list(self._viewers):
            viewer.push_frame(notice)
