"""What the controller and the page's server process say to each other (pickled over a socket pair between the
two; both ends are this package, so nothing else ever reads or writes it).

To the server: :class:`Verdicts` (states and events, in order, never dropped), :class:`Reset` (the whole of what
was published, when the server fell too far behind to be sent every verdict), :class:`Frame` (only the latest
waiting one is sent), :class:`CameraOn`, :class:`FrameAnswer`, :class:`InputAnswer`, :class:`Sync` and
:class:`Stop`. To the controller: :class:`Ready`, :class:`Viewers`, :class:`HostInput`, :class:`WantFrame` and
:class:`Synced`.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.web.feed import EncodedFrame
from table.web.inputs import HostCommand
from table.web.model import Event, State

# -- to the server --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdicts:
    """Verdicts in the order they were judged: each the state after it and its events."""

    items: tuple[tuple[State, tuple[Event, ...]], ...]


@dataclass(frozen=True, slots=True)
class Reset:
    state: State
    moves: tuple[str, ...]
    seq: int


@dataclass(frozen=True, slots=True)
class Frame:
    frame: EncodedFrame


@dataclass(frozen=True, slots=True)
class CameraOn:
    """The camera has offered its first frame."""


@dataclass(frozen=True, slots=True)
class FrameAnswer:
    """The controller has answered :class:`WantFrame` ``ident`` (with a :class:`Frame` before this, or none)."""

    ident: int


@dataclass(frozen=True, slots=True)
class InputAnswer:
    """:class:`HostInput` ``ident`` was posted to the table (``error`` None), or why not."""

    ident: int
    error: str | None


@dataclass(frozen=True, slots=True)
class Sync:
    ident: int


@dataclass(frozen=True, slots=True)
class Stop:
    """End the streams and the server."""


ToServer = Verdicts | Reset | Frame | CameraOn | FrameAnswer | InputAnswer | Sync | Stop

# -- to the controller ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """The server listens and reads this link."""

    pid: int


@dataclass(frozen=True, slots=True)
class Viewers:
    count: int


@dataclass(frozen=True, slots=True)
class HostInput:
    """The host's command, to be posted to the table unless ``deadline`` (``time.monotonic()``, the same clock in
    both processes) has passed: the server has answered the host by then."""

    ident: int
    command: HostCommand
    deadline: float


@dataclass(frozen=True, slots=True)
class WantFrame:
    ident: int


@dataclass(frozen=True, slots=True)
class Synced:
    """Everything sent before :class:`Sync` ``ident`` has been taken in."""

    ident: int


ToController = Ready | Viewers | HostInput | WantFrame | Synced
