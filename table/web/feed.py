"""The hub between the table and its viewers, in the page's server process.

What arrives (from the controller, through :mod:`table.web.process`): :meth:`TableFeed.publish` (a state and the
events of one verdict) and :meth:`TableFeed.add_frame` (a JPEG the controller encoded). Both are stored and the
fan-out is scheduled on the server's event loop.

Viewers (the server's event loop): each has a :class:`Viewer` queue: the events in order (bounded: a viewer
that falls ``max_events`` behind is disconnected and, reconnecting, gets the whole state again, so no event is
ever silently lost), the latest state and the latest frame (older ones replaced: frames are dropped, and so are
states another state superseded).
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from table.web.errors import TooManyViewers
from table.web.model import Event, FrameJson, State, empty_state


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def sse(event: str, data: bytes, *, ident: int | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON)."""
    head = f"event: {event}\n" + (f"id: {ident}\n" if ident is not None else "")
    return head.encode() + b"data: " + data + b"\n\n"


class Published:
    """What has been published: the latest state, the game's moves so far and the number of the last event.

    The controller keeps one and the server keeps one, fed the same verdicts in the same order, so they agree;
    when the server falls too far behind, the controller's is sent whole (:meth:`TableFeed.reset`)."""

    def __init__(self) -> None:
        self.state: State = empty_state()
        self.moves: list[str] = []
        self.seq = 0

    def add(self, state: State, events: Sequence[Event]) -> tuple[State, list[tuple[int, Event]]]:
        """A verdict's ``events`` and the ``state`` after it (a ``move`` event adds to the game's move list, an
        ``unmove`` takes the last back; a state of another game starts a new list): the state and the events,
        numbered."""
        if state["game_id"] != self.state["game_id"]:
            self.moves = []
        numbered: list[tuple[int, Event]] = []
        for event in events:
            self.seq += 1
            numbered.append((self.seq, Event(**{**event, "seq": self.seq})))
            if event["kind"] == "move":
                self.moves.append(event["text"])
            elif event["kind"] == "unmove" and self.moves:
                self.moves.pop()
        self.state = State(**{**state, "seq": self.seq})
        return self.state, numbered


@dataclass(frozen=True, slots=True)
class EncodedFrame:
    """A camera frame as the controller encoded it: the JPEG and what was seen (``info``: the
    :class:`~table.web.model.FrameJson` without the picture)."""

    seq: int
    jpeg: bytes
    info: FrameJson


@dataclass(frozen=True, slots=True)
class KeptFrame:
    seq: int
    jpeg: bytes
    notice: bytes  # the FrameJson as sent on the stream (the JPEG in base64, encoded once for all the viewers)


class FrameStore:
    """The frames the server has: the last few by ``seq`` (``/api/frame.jpg?seq=``) and the latest."""

    def __init__(self, keep: int = 4) -> None:
        self._keep = keep
        self._recent: OrderedDict[int, KeptFrame] = OrderedDict()
        self._lock = threading.Lock()
        self.has_camera = False  # the camera has offered a frame (one may not have been encoded yet)

    def add(self, frame: EncodedFrame) -> KeptFrame:
        notice = FrameJson(**frame.info)
        notice["jpeg"] = base64.b64encode(frame.jpeg).decode("ascii")
        kept = KeptFrame(frame.seq, frame.jpeg, _dumps(notice))
        with self._lock:
            self.has_camera = True
            self._recent[kept.seq] = kept
            while len(self._recent) > self._keep:
                self._recent.popitem(last=False)
        return kept

    def get(self, seq: int) -> KeptFrame | None:
        with self._lock:
            return self._recent.get(seq)

    def latest(self) -> KeptFrame | None:
        with self._lock:
            return next(reversed(self._recent.values()), None)


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

    def resync(self) -> None:
        """Events were lost on the way to this server: the viewer starts again from the whole state."""
        self.overflowed = True
        self.events.clear()
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
    """``on_viewers``: called (on the server's event loop) with the number of viewers each time it changes."""

    def __init__(
        self,
        *,
        max_viewers: int = 100,
        max_events: int = 2000,
        on_viewers: Callable[[int], None] | None = None,
    ) -> None:
        self.max_viewers = max_viewers
        self.max_events = max_events
        self.on_viewers = on_viewers
        self._lock = threading.Lock()
        self._published = Published()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._viewers: set[Viewer] = set()
        self.viewer_count = 0
        self.frames = FrameStore()
        self.published = 0

    # -- what arrives (any thread) --------------------------------------------------------------

    def publish(self, state: State, events: Sequence[Event]) -> None:
        """A verdict's ``events`` and the ``state`` after it (numbered and kept as :class:`Published` does)."""
        with self._lock:
            state, numbered = self._published.add(state, events)
            self.published += 1
        loop = self._loop
        if loop is not None and self.viewer_count:
            payloads = [(seq, _dumps(event)) for seq, event in numbered]
            try:
                loop.call_soon_threadsafe(self._fanout, payloads, _dumps(state))
            except RuntimeError:  # the server's loop has closed
                pass

    def reset(self, state: State, moves: list[str], seq: int) -> None:
        """The whole of what was published (events were lost on the way here): every viewer starts again."""
        with self._lock:
            self._published.state = State(**{**state, "seq": seq})
            self._published.moves = list(moves)
            self._published.seq = seq
        self._call(self._resync_viewers)

    def add_frame(self, frame: EncodedFrame) -> None:
        kept = self.frames.add(frame)
        self._call(self._fanout_frame, kept.notice)

    # -- the server (its event loop) ------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def state(self) -> State:
        with self._lock:
            return self._published.state

    def snapshot(self) -> bytes:
        """The whole state with the moves so far (``/api/state`` and a stream's ``hello``)."""
        with self._lock:
            return _dumps({**self._published.state, "moves": list(self._published.moves)})

    def add_viewer(self) -> tuple[Viewer, bytes]:
        with self._lock:
            if len(self._viewers) >= self.max_viewers:
                raise TooManyViewers(f"{self.max_viewers} viewers are watching already")
            viewer = Viewer(self._published.seq, self.max_events)
            hello = _dumps({**self._published.state, "moves": list(self._published.moves)})
            self._viewers.add(viewer)
            self.viewer_count = len(self._viewers)
        latest = self.frames.latest()
        if latest is not None:  # the table may be still: the newcomer sees the last frame sent
            viewer.push_frame(latest.notice)
            viewer.frames_dropped = 0
        self._counted()
        return viewer, hello

    def remove_viewer(self, viewer: Viewer) -> None:
        with self._lock:
            had = viewer in self._viewers
            self._viewers.discard(viewer)
            self.viewer_count = len(self._viewers)
        if had:
            self._counted()

    def end_streams(self) -> None:
        """From any thread: end every viewer's stream (the server is stopping)."""
        self._call(self.close_viewers)

    def close_viewers(self) -> None:
        with self._lock:
            viewers = list(self._viewers)
        for viewer in viewers:
            viewer.close()

    def _counted(self) -> None:
        if self.on_viewers is not None:
            self.on_viewers(self.viewer_count)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(callback, *args)
            except RuntimeError:
                pass

    def _fanout(self, events: Sequence[tuple[int, bytes]], state: bytes) -> None:
        for viewer in list(self._viewers):
            viewer.push(events, state)

    def _resync_viewers(self) -> None:
        for viewer in list(self._viewers):
            viewer.resync()

    def _fanout_frame(self, notice: bytes) -> None:
        for viewer in list(self._viewers):
            viewer.push_frame(notice)
