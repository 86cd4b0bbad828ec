"""The journal's errors, each with the exit code the commands that use the journal return for it.

====  ======================================================================================
exit  meaning
====  ======================================================================================
2     :class:`JournalError`: the file cannot be opened, is not a cardtable journal, or is a
      journal of a newer cardtable
3     :class:`JournalDamagedError`: the journal is damaged or shorter than its seal says;
      refused for writing, nothing changed, copies of its files kept (``docs/journal.md``)
4     :class:`JournalBusyError`: another controller holds the journal
====  ======================================================================================
"""

from __future__ import annotations

from typing import ClassVar

from table.errors import TableError


class JournalError(TableError, OSError):
    """The journal file cannot be opened or written, or is not a cardtable journal."""

    exit_code: ClassVar[int] = 2


class JournalDamagedError(JournalError):
    """The journal is damaged (a malformed page, an entry that does not match its hash) or shorter
    than its seal records; nothing was written to it."""

    exit_code: ClassVar[int] = 3


class JournalBusyError(JournalError, BlockingIOError):
    """Another process is the journal's controller (it holds the journal's lock)."""

    exit_code: ClassVar[int] = 4
