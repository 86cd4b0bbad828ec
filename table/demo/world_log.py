"""The demo world's log: each physical action the world performs (a card placed or taken, a card the dealer
machine deals, a press, a terminal entry) is written and fsynced before it happens, so after a ``kill -9``
the world can be rebuilt exactly where the controller's journal left it.

The log lives next to the journal (``<journal>.world-<game id>.jsonl``, JSON Lines). A world replays it
in one of two ways: :class:`WorldRecord` checks each action of the script re-run from the seed against
the logged one (Frog, Garbage); the Chinese Ten world fast-forwards to the logged step count and the
machine's logged deals.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from table.journal import Journal

KILL_ENV = "CARDTABLE_DEMO_SIGKILL_AT"
"""With ``N`` in the environment the demo SIGKILLs itself once its world's log holds N entries (tests and
benchmarks): the world has logged an action it has not done yet, the moment between the log and the table."""
INPUT_ENTRIES = ("press", "say", "prompt")  # log entries that are controller inputs (journalled too)
T = TypeVar("T")


def world_log_path(journal: Path, game_id: int) -> Path:
    """The world's log of game ``game_id``, next to the journal."""
    return Path(f"{journal}.world-{game_id}.jsonl")


class WorldLog:
    """The world's append-only log (JSON Lines, flushed and fsynced per entry). With ``keep`` the entries
    already there are read (a line cut short by a kill ends them) and appended to; else it starts empty."""

    def __init__(self, path: Path, *, keep: bool) -> None:
        self.path = path
        self.entries: list[dict[str, Any]] = []
        if keep and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    self.entries.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a line cut short by a kill: nothing after it was written
        self._fh = open(path, "a" if keep else "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._lock = threading.Lock()
        self._kill_at = int(os.environ.get(KILL_ENV, "0") or 0)
        self._written = len(self.entries)

    def append(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._fh.write(json.dumps(entry) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._written += 1
            if self._kill_at and self._written == self._kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    def replace(self, entries: Sequence[dict[str, Any]]) -> None:
        """Make the log hold ``entries`` only (a new file renamed over the old: never half of one)."""
        with self._lock:
            self._fh.close()
            tmp = self.path.with_name(self.path.name + ".tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(e) + "\n" for e in entries)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.entries = list(entries)
            self._written = len(self.entries)
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def close(self) -> None:
        self._fh.close()


class ReplayDiverged(RuntimeError):
    """The script re-run from the seed did something other than what the log says it did."""


class WorldRecord:
    """The world's log of physical actions as the script sees it. Live, each action's entry is written
    (``write``: :meth:`WorldLog.append`) before the action happens, so the log never lags the table or the
    journal. While ``replay`` entries remain, actions are checked against them and done silently instead
    (``quiet``)."""

    def __init__(
        self, write: Callable[[dict[str, Any]], None] | None = None, replay: Sequence[dict[str, Any]] = ()
    ) -> None:
        self.write: Callable[[dict[str, Any]], None] = write or (lambda entry: None)
        self.replay = list(replay)
        self.pos = 0

    @property
    def replaying(self) -> bool:
        return self.pos < len(self.replay)

    def do(self, entry: dict[str, Any], live: Callable[[], T], quiet: Callable[[], T]) -> T:
        if self.replaying:
            logged = self.replay[self.pos]
            if json.loads(json.dumps(entry)) != logged:
                raise ReplayDiverged(f"world log entry {self.pos + 1}: logged {logged}, the replay did {entry}")
            self.pos += 1
            return quiet()
        self.write(entry)
        return live()


def inputs_heard(journal: Journal, game_id: int) -> int:
    """The bots' inputs the journal holds (seat buttons, terminal entries)."""
    return sum(1 for e in journal.entries(game_id, kinds=("input",)) if e.body.get("src") in ("button", "terminal"))


def kept_entries(log: list[dict[str, Any]], heard: int) -> list[dict[str, Any]]:
    """What of the world's log really happened. A bot waits until each input of its own was judged
    before it does anything else, so only the last logged inputs can be missing from the journal
    (``heard`` of them reached it): the script's next step is then that lost input, made again
    live. A lost answer to a prompt is dropped too (the prompt is still open and is answered again)."""
    out = []
    inputs = 0
    for entry in log:
        if any(k in entry for k in INPUT_ENTRIES):
            inputs += 1
            if inputs > heard:
                if "prompt" in entry:
                    continue
                break
        out.append(entry)
    return out
