"""``cardtable journal check`` and ``cardtable journal accept``: a journal's health, and going on
with a damaged one on purpose.

:func:`verify` reads everything read-only: the file's header and schema, its pages
(``quick_check``), its chain of writes against the seal, and every game's entries against their
hashes. :func:`accept` is the way on after a journal was refused because it is shorter than its
seal (or its seal is missing or another journal's): it keeps copies of all the journal's files,
then seals the journal as it is. When writes were lost, the games still open are closed with the
status ``cut`` (what they lost cannot be replayed, so a controller starts a new game instead of
resuming a shortened one; ``export`` still writes what is left of them). Malformed
pages and entries that do not match their hashes cannot be accepted: the message says to start a
new journal (the damaged one still answers ``history`` and ``export`` as far as it can be read).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from table.journal import Journal
from table.journal_check import inspect, keep_copies, read_chain
from table.journal_errors import JournalDamagedError, JournalError
from table.journal_lock import ControllerLock
from table.journal_seal import read_seal, seal_path, write_seal

NEW_JOURNAL_HINT = (
    "start a new journal (--journal NEW.db, or move this one aside); `cardtable history` and `cardtable export` "
    "still read this one as far as it can be read"
)


@dataclass(frozen=True, slots=True)
class Health:
    games: int
    entries: int
    chain: str  # the chain of writes, described
    problem: str | None  # None: sound


def verify(path: Path) -> Health:
    """Everything about the journal at ``path`` that can be checked without writing. Raises
    :class:`JournalError` when it is not a journal this cardtable reads."""
    if not path.exists():
        raise JournalError(f"no journal at {path}")
    try:
        found = inspect(path, pages=True, live=True)
    except JournalDamagedError as exc:
        return Health(0, 0, "-", str(exc))
    with Journal(path, read_only=True) as journal:
        chain = journal.chain()
        described = "schema 1, no chain" if chain is None else chain.describe()
        try:
            ids = journal.game_ids_with_entries()
            entries = sum(sum(1 for _ in journal.entries(gid)) for gid in ids)
            games = len(journal.games())
        except JournalDamagedError as exc:
            return Health(0, 0, described, str(exc))
    problem = None if found.check.ok else f"{path}: {found.check.problem}"
    return Health(games, entries, described, problem)


def accept(path: Path) -> str:
    """Seal the journal at ``path`` as it is, after keeping copies of its files; returns what was
    done. Raises :class:`JournalDamagedError` when it cannot be accepted, :class:`JournalBusyError`
    when a controller holds it."""
    with ControllerLock.acquire(path):
        if not path.exists() or (path.is_file() and path.stat().st_size == 0):
            seal = read_seal(path)
            if seal is None:
                return f"{path}: no journal and no seal: nothing to accept"
            kept = keep_copies(path, "its journal was missing and the seal was removed")
            try:
                seal_path(path).unlink()
            except OSError as exc:
                raise JournalError(f"{seal_path(path)}: cannot remove: {exc.strerror or exc}") from None
            return f"{path}: the seal of a missing journal removed (a copy is in {kept}); a new journal starts there"
        try:
            found = inspect(path, pages=True, locked=True)
        except JournalDamagedError as exc:
            raise JournalDamagedError(f"{exc}; it cannot be accepted: {NEW_JOURNAL_HINT}") from None
        if found.schema < 2:
            return f"{path}: a schema 1 journal, upgraded when a controller next opens it: nothing to accept"
        if found.check.ok and not found.check.reseal:
            return f"{path}: the journal agrees with its seal: nothing to accept"
        with Journal(path, read_only=True) as journal:
            try:
                for gid in journal.game_ids_with_entries():
                    for _ in journal.entries(gid):
                        pass
            except JournalDamagedError as exc:
                raise JournalDamagedError(f"{exc}; it cannot be accepted: {NEW_JOURNAL_HINT}") from None
        why = found.check.problem or "its seal lagged one write behind"
        kept = keep_copies(path, f"it was accepted as it is: {why}")
        try:
            db = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
            try:
                db.execute("PRAGMA synchronous=FULL")
                db.execute("BEGIN IMMEDIATE")
                cut: list[int] = []
                if found.check.missing:
                    # the lost writes belonged to games still open: they cannot be resumed faithfully
                    cut = [int(r[0]) for r in db.execute("SELECT id FROM games WHERE status='open' ORDER BY id")]
                    result = json.dumps({"cut": f"the journal lost its last {found.check.missing} write(s)"})
                    db.execute(
                        "UPDATE games SET status='cut', finished=?, result=? WHERE status='open'", (time.time(), result)
                    )
                chain = read_chain(db, path).advance(json.dumps(["accepted", why, cut]))
                db.execute(
                    "UPDATE meta SET value=? WHERE key='chain'",
                    (json.dumps(chain.to_json(), separators=(",", ":"), sort_keys=True),),
                )
                db.execute("COMMIT")
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            raise JournalDamagedError(f"{path}: cannot accept: {exc}; {NEW_JOURNAL_HINT}") from None
        write_seal(path, chain, durable=True)
        closed = (
            f"; game(s) {', '.join(map(str, cut))} lost entries and are closed as 'cut' (export writes what is left, "
            "a new game starts in their place)"
            if cut
            else ""
        )
        return (
            f"{path}: accepted as it is ({chain.describe()}); it was refused because {why}{closed}; "
            f"copies of its files as they were are in {kept}"
        )
