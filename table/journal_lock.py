"""One controller per journal: an OS lock on ``<journal>.lock``, held for the controller's life.

The lock is ``flock(LOCK_EX | LOCK_NB)`` on a file beside the journal. The kernel releases it when
the holding process ends in any way (``kill -9`` included), so a dead controller never leaves a
stale lock behind, and the lock file itself is never deleted (deleting it would let two processes
lock two different files of the same name). A second process asking for the lock is refused at
once with :class:`JournalBusyError`, before it reads or writes anything of the journal, so the
first never notices.

Within one process the lock is shared: a command that holds it for its whole run (``cardtable
play``, ``cardtable demo``) can open and close the journal as often as it likes, and every
:class:`~table.journal.Journal` writer of that process counts as the same controller.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import ClassVar

from table.journal_errors import JournalBusyError, JournalError


def lock_path(journal: Path) -> Path:
    """Where the lock of ``journal`` lives: ``journal.db.lock`` beside ``journal.db``."""
    return journal.with_name(journal.name + ".lock")


class ControllerLock:
    """The controller lock of one journal, shared by everything in this process that writes it.

    :meth:`acquire` returns the process's lock for the journal (taking it from the OS on first
    use); each :meth:`release` gives one use back, and the last one unlocks. ``commit_guard``
    serialises this process's writes to the journal and its seal.
    """

    _held: ClassVar[dict[str, ControllerLock]] = {}
    _registry_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, key: str, fd: int) -> None:
        self.key = key
        self._fd = fd
        self._uses = 1
        self.commit_guard = threading.RLock()

    @classmethod
    def acquire(cls, journal: str | Path) -> ControllerLock:
        """This process's controller lock of ``journal``; raises :class:`JournalBusyError` when
        another process holds it, :class:`JournalError` when the lock file cannot be made."""
        key = os.path.realpath(journal)
        with cls._registry_guard:
            held = cls._held.get(key)
            if held is not None:
                held._uses += 1
                return held
            path = lock_path(Path(key))
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise JournalError(f"{journal}: cannot make its lock file {path}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                raise JournalBusyError(
                    f"{journal}: in use by another controller{holder}; one controller at a time: "
                    "let it finish or stop it, then run this again"
                ) from None
            except OSError as exc:
                os.close(fd)
                raise JournalError(f"{journal}: cannot lock {path}: {exc.strerror or exc}") from None
            _write_holder(fd)
            lock = cls(key, fd)
            cls._held[key] = lock
            return lock

    def release(self) -> None:
        with self._registry_guard:
            self._uses -= 1
            if self._uses > 0:
                return
            self._held.pop(self.key, None)
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)

    def __enter__(self) -> ControllerLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _write_holder(fd: int) -> None:
    """Note the holder's process id in the lock file (for the message a second process gets)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # the lock holds without the note


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (process {text})" if text.isdigit() else ""
