"""Looking at a journal file before trusting it, without changing it.

:func:`inspect` opens the file read-only (SQLite's ``mode=ro``: no write, no checkpoint), checks
in this order that it is an SQLite file (the header's magic bytes), that it has the journal's
tables and schema version, optionally that its pages are sound (``PRAGMA quick_check``), and
compares the chain of writes inside it with the seal beside it (:mod:`table.journal_seal`).
Nothing is written to a file before it is known to be a journal this cardtable reads.

:func:`keep_copies` copies the journal's files (the database, its write-ahead log and shared
memory, its seal) into a folder beside it, named by their content, so a damaged journal is kept
exactly as it was found whatever happens to it next.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from table.journal_errors import JournalDamagedError, JournalError
from table.journal_seal import Chain, SealCheck, compare, read_seal, seal_path

SQLITE_MAGIC = b"SQLite format 3\x00"
SCHEMA_VERSION = 2  # 2: entries chained by hash, the chain of writes in meta and the seal
READABLE_SCHEMAS = (1, 2)
TABLES = {
    "meta": {"key", "value"},
    "matches": {"id", "key", "game", "rules", "players", "created", "finished", "totals", "meta"},
    "games": {
        "id",
        "key",
        "match_id",
        "number",
        "game",
        "rules",
        "options",
        "players",
        "dealer",
        "created",
        "finished",
        "status",
        "result",
        "meta",
    },
    "entries": {"game_id", "seq", "kind", "seat", "body", "at"},
}


def journal_files(path: Path) -> list[Path]:
    """The files that make up a journal: the database, its WAL and shared memory, its seal."""
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm"), seal_path(path)]


def read_only_uri(path: Path, *, immutable: bool = False) -> str:
    return f"{path.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")


def connect_read_only(path: Path, *, immutable: bool = False) -> sqlite3.Connection:
    """A read-only connection (``mode=ro``): it never writes or checkpoints the database, though
    SQLite makes the empty ``-wal`` and ``-shm`` files it needs to read a WAL database.
    ``immutable``: not even those (only while no other process can write: the controller's
    lock held and no write-ahead log on disk)."""
    try:
        db = sqlite3.connect(read_only_uri(path, immutable=immutable), uri=True, check_same_thread=False, timeout=10.0)
        db.execute("PRAGMA query_only=ON")
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"{path}: cannot open: {exc}") from None
    return db


def check_header(path: Path) -> None:
    """Raise :class:`JournalError` unless ``path`` starts as an SQLite database does."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except IsADirectoryError:
        raise JournalError(f"{path}: a folder, not a journal") from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise JournalError(f"{path}: not a cardtable journal (not an SQLite database)")


def read_schema(db: sqlite3.Connection, path: Path) -> int:
    """The journal's schema version, after checking its tables and columns."""
    for table, columns in TABLES.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if not have:
            raise JournalError(f"{path}: an SQLite database but not a cardtable journal (no {table} table)")
        if not columns <= have:
            raise JournalDamagedError(f"{path}: the journal's {table} table lacks {', '.join(sorted(columns - have))}")
    row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    if row is None:
        raise JournalDamagedError(f"{path}: the journal has no schema version")
    text = str(row[0])
    if not text.isdigit() or len(text) > 6:
        raise JournalDamagedError(f"{path}: the journal's schema version is {text[:40]!r}, not a number")
    version = int(text)
    if version > SCHEMA_VERSION:
        raise JournalError(f"{path}: journal schema {version}, this cardtable reads up to {SCHEMA_VERSION}")
    if version not in READABLE_SCHEMAS:
        raise JournalDamagedError(f"{path}: the journal's schema version {version} is unknown")
    if version >= 2:
        have = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
        if "hash" not in have:
            raise JournalDamagedError(f"{path}: the journal's entries table lacks hash")
    return version


def read_chain(db: sqlite3.Connection, path: Path) -> Chain:
    row = db.execute("SELECT value FROM meta WHERE key='chain'").fetchone()
    if row is None:
        raise JournalDamagedError(f"{path}: the journal has no chain of writes")
    try:
        data = json.loads(row[0])
    except (TypeError, ValueError):
        raise JournalDamagedError(f"{path}: the journal's chain of writes is not JSON") from None
    return Chain.from_json(data, f"{path}: meta.chain")


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    rows = [str(r[0]) for r in db.execute("PRAGMA quick_check(5)")]
    if rows != ["ok"]:
        raise JournalDamagedError(f"{path}: malformed database pages ({'; '.join(rows)[:300]})")


@dataclass(frozen=True, slots=True)
class Inspection:
    """What :func:`inspect` found: the schema version, the chains (schema 2) and how they compare."""

    schema: int
    chain: Chain | None
    seal: Chain | None
    check: SealCheck


def inspect(path: Path, *, pages: bool, live: bool = False, locked: bool = False) -> Inspection:
    """Look at an existing, non-empty journal file read-only. Raises :class:`JournalError` when it
    is not a journal this cardtable reads and :class:`JournalDamagedError` when its pages are
    malformed (``pages=True``) or its tables unreadable; a disagreement with the seal is returned
    in ``check`` (the caller decides: a writer refuses, a reader warns). ``locked``: the caller
    holds the controller's lock, so with no write-ahead log on disk the file is read as immutable
    and not even SQLite's empty side files are made."""
    check_header(path)
    seal = read_seal(path)  # the seal first: the database only grows after it (see compare)
    db = connect_read_only(path, immutable=locked and not Path(f"{path}-wal").exists())
    try:
        schema = read_schema(db, path)
        if pages:
            quick_check(db, path)
        if schema < 2:
            return Inspection(schema, None, seal, SealCheck(True))
        chain = read_chain(db, path)
        return Inspection(schema, chain, seal, compare(chain, seal, seal_file=seal_path(path), live=live))
    except sqlite3.DatabaseError as exc:
        raise JournalDamagedError(f"{path}: the database is damaged ({exc})") from None
    finally:
        db.close()


def keep_copies(path: Path, why: str) -> Path:
    """Copy the journal's files into ``<journal>.kept-<digest>/`` (the digest of their content, so
    the same files are kept once) with a note of why; returns the folder."""
    files = [f for f in journal_files(path) if f.is_file()]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    folder = path.with_name(f"{path.name}.kept-{h.hexdigest()[:12]}")
    if (folder / "WHY.txt").is_file():
        return folder
    try:
        folder.mkdir(exist_ok=True)
        for f in files:
            shutil.copy2(f, folder / f.name)
        (folder / "WHY.txt").write_text(
            f"{time.strftime('%Y-%m-%d %H:%M:%S')}: copies of {path} and its files, kept because {why}\n",
            encoding="utf-8",
        )
    except OSError as exc:
        raise JournalError(f"{path}: cannot keep a copy of the journal's files in {folder}: {exc}") from None
    return folder
