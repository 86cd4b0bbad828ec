"""The table's journal: an SQLite (WAL) file holding every event, move, verdict and override.

The controller writes each entry *before* acting on it, so the journal is always at least as far
along as the table's state. After ``kill -9`` the same command reopens the journal, finds the
unfinished game by its key, and replays its entries into a fresh controller: nothing is lost
(every input was written before it was acted on) and nothing is doubled (replay reproduces the
state; outputs are derived from inputs, never re-sent from the journal).

Layout: ``matches`` (a series of deals: G4A to 1000, pagat margins added up), ``games`` (one deal
each, with its key, rules and final result) and ``entries`` (``(game_id, seq)`` ordered, with a
``kind`` such as ``input``, ``move``, ``flag``, ``override`` and a JSON body).

Integrity (``docs/journal.md``):

* Each entry carries ``hash``, a SHA-256 of the previous entry's hash and its own content, so a
  changed or missing entry breaks the game's chain (checked whenever a game's entries are read).
* Every write transaction advances the chain of writes (:mod:`table.journal_seal`), kept in the
  database and in the seal file beside it, so a journal shorter than it was (a damaged WAL that
  SQLite silently rolls back) is noticed and refused for writing.
* A writer is the journal's one controller (:mod:`table.journal_lock`); it checks the file before
  writing anything (:mod:`table.journal_check`): an SQLite header, the journal's schema, sound
  pages, agreement with the seal. A damaged journal is refused, unchanged, with copies of its files.
* ``Journal(path, read_only=True)`` (``history``, ``export``) opens SQLite with ``mode=ro``: it never
  writes or checkpoints, needs no lock, and reports a disagreement with the seal in ``damage``.

WAL with ``synchronous=FULL`` by default: a committed entry survives the process being killed
and the machine losing power. ``synchronous="NORMAL"`` (still safe against ``kill -9``, not
against power loss) is an option for slow SD cards.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.journal_check import (
    SCHEMA_VERSION,
    connect_read_only,
    inspect,
    keep_copies,
    read_chain,
)
from table.journal_errors import JournalBusyError, JournalDamagedError, JournalError
from table.journal_lock import ControllerLock
from table.journal_seal import Chain, SealWriter, digest, read_seal, seal_path, write_seal

__all__ = [
    "SCHEMA_VERSION",
    "Entry",
    "GameRow",
    "Journal",
    "JournalBusyError",
    "JournalDamagedError",
    "JournalError",
    "MatchRow",
    "claim",
    "default_path",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    game TEXT NOT NULL,
    rules TEXT NOT NULL,
    players INTEGER NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    totals TEXT,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS games(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    match_id INTEGER REFERENCES matches(id),
    number INTEGER NOT NULL DEFAULT 1,
    game TEXT NOT NULL,
    rules TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    players INTEGER NOT NULL,
    dealer INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    finished REAL,
    status TEXT NOT NULL DEFAULT 'open',
    result TEXT,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS games_key ON games(key, status);
CREATE TABLE IF NOT EXISTS entries(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    body TEXT NOT NULL,
    at REAL NOT NULL,
    hash TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(game_id, seq)
);
"""


@dataclass(frozen=True, slots=True)
class Entry:
    game_id: int
    seq: int
    kind: str
    seat: int | None
    body: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    key: str
    match_id: int | None
    number: int
    game: str
    rules: str
    options: dict[str, Any]
    players: int
    dealer: int
    created: float
    finished: float | None
    status: str
    result: dict[str, Any] | None
    meta: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    key: str
    game: str
    rules: str
    players: int
    created: float
    finished: float | None
    totals: dict[str, Any] | None
    meta: dict[str, Any]


def default_path() -> Path:
    """``$CARDTABLE_JOURNAL``, else ``$XDG_DATA_HOME/cardtable/journal.db`` (``~/.local/share``)."""
    env = os.environ.get("CARDTABLE_JOURNAL")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "cardtable" / "journal.db"


def _dumps(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


def entry_hash(prev: str, game_id: int, seq: int, kind: str, seat: int | None, at: float, body: str) -> str:
    """An entry's hash: the previous entry's hash and this entry's content, as stored."""
    return digest(prev, _dumps([game_id, seq, kind, seat, at, body]))


def game_genesis(journal_id: str, game_id: int) -> str:
    """The hash the first entry of a game chains to."""
    return digest("cardtable game", journal_id, str(game_id))


class Journal:
    """One open journal file.

    A writer (the default) is the journal's controller: it holds the journal's lock (a second
    process gets :class:`JournalBusyError`) and refuses a damaged or shortened journal with
    :class:`JournalDamagedError` before writing anything. ``read_only=True`` opens it for reading
    alone (``mode=ro``): no lock, no write, no checkpoint; ``damage`` then says what disagrees with
    the seal, if anything.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "FULL", read_only: bool = False) -> None:
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"synchronous must be FULL, NORMAL or EXTRA, not {synchronous!r}")
        self.path = Path(path)
        self.read_only = read_only
        self.damage: str | None = None
        self.schema = SCHEMA_VERSION
        self._memory = str(path) == ":memory:"
        self._durable = synchronous != "NORMAL"
        self._guard = threading.RLock()
        self._lock: ControllerLock | None = None
        self._sealer: SealWriter | None = None
        self._journal_id = ""
        self._db: sqlite3.Connection | None = None
        if read_only:
            self._open_reader()
        else:
            self._open_writer(synchronous)

    # -- opening ------------------------------------------------------------------------------

    def _open_reader(self) -> None:
        if self._memory:
            raise JournalError(":memory: has no journal to read")
        if not self.path.exists():
            raise JournalError(f"{self.path}: no journal there")
        if self.path.is_file() and self.path.stat().st_size == 0:
            raise JournalError(f"{self.path}: an empty file, not a journal")
        found = inspect(self.path, pages=False, live=True)
        self.schema = found.schema
        if not found.check.ok:
            self.damage = f"{self.path}: {found.check.problem}"
        self._db = connect_read_only(self.path)
        if found.chain is not None:
            self._journal_id = found.chain.journal_id

    def _open_writer(self, synchronous: str) -> None:
        if self._memory:
            self._db = self._connect(":memory:", synchronous)
            self._create()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot make its folder: {exc.strerror or exc}") from None
        self._lock = ControllerLock.acquire(self.path)
        try:
            self._open_locked(synchronous)
            self._sealer = SealWriter(self.path, durable=self._durable)
        except BaseException:
            if self._db is not None:
                self._db.close()
                self._db = None
            self._lock.release()
            self._lock = None
            raise

    def _open_locked(self, synchronous: str) -> None:
        path = self.path
        if not path.exists() or (path.is_file() and path.stat().st_size == 0):
            seal = read_seal(path)
            if seal is not None and seal.commits > 0:
                raise JournalDamagedError(
                    f"{path}: the journal is missing or empty, but its seal {seal_path(path)} records "
                    f"{seal.describe()}: put the journal file back, or remove the seal to start a new journal there"
                )
            self._db = self._connect(str(path), synchronous)
            self._create()
            return
        try:
            found = inspect(path, pages=True, locked=True)
        except JournalDamagedError as exc:
            raise self._refuse(str(exc)) from None
        if not found.check.ok:
            raise self._refuse(f"{path}: {found.check.problem}")
        self._db = self._connect(str(path), synchronous)
        if found.schema < 2:
            kept = keep_copies(path, "it was upgraded from journal schema 1 to 2")
            self._upgrade_from_1(kept)
            return
        assert found.chain is not None
        self._journal_id = found.chain.journal_id
        if found.check.reseal:
            write_seal(path, found.chain, durable=self._durable)

    def _refuse(self, problem: str) -> JournalDamagedError:
        """The error for a journal refused for writing, after keeping copies of its files."""
        try:
            kept = f"copies of its files are in {keep_copies(self.path, problem)}"
        except JournalError as exc:
            kept = f"its files could not be copied ({exc})"
        return JournalDamagedError(
            f"{problem}. Refused: nothing was written; {kept}; `cardtable journal accept --journal {self.path}` "
            "goes on with what the journal holds (docs/journal.md)"
        )

    def _connect(self, target: str, synchronous: str) -> sqlite3.Connection:
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves so each write is one transaction.
            db = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=10.0)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={synchronous}")
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{target}: cannot open the journal: {exc}") from None
        return db

    def _create(self) -> None:
        """A new journal: the schema, a fresh id, the chain's start and the first seal."""
        db = self._conn()
        journal_id = uuid.uuid4().hex
        chain = Chain.start(journal_id)
        try:
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (str(SCHEMA_VERSION),))
            db.execute("INSERT INTO meta(key, value) VALUES('chain', ?)", (_dumps(chain.to_json()),))
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._rollback()
            raise JournalError(f"{self.path}: cannot create the journal: {exc}") from None
        self._journal_id = journal_id
        if not self._memory:
            write_seal(self.path, chain, durable=self._durable)

    def _upgrade_from_1(self, kept: Path) -> None:
        """Schema 1 to 2: hash every entry into its game's chain, start the chain of writes."""
        db = self._conn()
        journal_id = uuid.uuid4().hex
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ALTER TABLE entries ADD COLUMN hash TEXT NOT NULL DEFAULT ''")
            rows = db.execute("SELECT game_id, seq, kind, seat, body, at FROM entries ORDER BY game_id, seq").fetchall()
            last: dict[int, str] = {}
            for gid, seq, kind, seat, body, at in rows:
                h = entry_hash(last.get(gid) or game_genesis(journal_id, gid), gid, seq, kind, seat, at, body)
                db.execute("UPDATE entries SET hash=? WHERE game_id=? AND seq=?", (h, gid, seq))
                last[gid] = h
            newest = (rows[-1][0], rows[-1][1]) if rows else None
            chain = Chain.start(journal_id).advance(f"upgraded from schema 1 ({len(rows)} entries)", entry=newest)
            db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('chain', ?)", (_dumps(chain.to_json()),))
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._rollback()
            raise JournalDamagedError(
                f"{self.path}: cannot upgrade the journal from schema 1: {exc} (a copy is in {kept})"
            ) from None
        self._journal_id = journal_id
        write_seal(self.path, chain, durable=self._durable)

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._guard:
            if self._db is not None:
                try:
                    self._db.close()
                finally:
                    self._db = None
                    if self._sealer is not None:
                        self._sealer.close()
                        self._sealer = None
                    if self._lock is not None:
                        self._lock.release()
                        self._lock = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches and games -------------------------------------------------------------------

    def new_match(self, *, key: str, game: str, rules: str, players: int, meta: dict[str, Any] | None = None) -> int:
        values = (key, game, rules, players, time.time(), _dumps(meta or {}))
        with self._write("start a match") as w:
            cur = w.db.execute(
                "INSERT INTO matches(key, game, rules, players, created, meta) VALUES(?,?,?,?,?,?)", values
            )
            assert cur.lastrowid is not None
            w.note(_dumps(["match", cur.lastrowid, *values]))
        return cur.lastrowid

    def finish_match(self, match_id: int, totals: dict[str, Any]) -> None:
        values = (time.time(), _dumps(totals), match_id)
        with self._write("finish a match") as w:
            w.db.execute("UPDATE matches SET finished=?, totals=? WHERE id=?", values)
            w.note(_dumps(["finish match", *values]))

    def open_match(self, key: str) -> MatchRow | None:
        """The newest unfinished match with this key (what the same command resumes)."""
        rows = self._read(
            "SELECT * FROM matches WHERE key=? AND finished IS NULL ORDER BY id DESC LIMIT 1", (key,), "matches"
        )
        return _match_row(rows[0], self.path) if rows else None

    def match(self, match_id: int) -> MatchRow:
        rows = self._read("SELECT * FROM matches WHERE id=?", (match_id,), "matches")
        if not rows:
            raise KeyError(f"no match {match_id} in {self.path}")
        return _match_row(rows[0], self.path)

    def matches(self) -> list[MatchRow]:
        return [_match_row(r, self.path) for r in self._read("SELECT * FROM matches ORDER BY id", (), "matches")]

    def new_game(
        self,
        *,
        key: str,
        game: str,
        rules: str,
        players: int,
        dealer: int = 0,
        options: dict[str, Any] | None = None,
        match_id: int | None = None,
        number: int = 1,
        meta: dict[str, Any] | None = None,
    ) -> int:
        values = (
            key,
            match_id,
            number,
            game,
            rules,
            _dumps(options or {}),
            players,
            dealer,
            time.time(),
            _dumps(meta or {}),
        )
        with self._write("start a game") as w:
            cur = w.db.execute(
                "INSERT INTO games(key, match_id, number, game, rules, options, players, dealer, created, meta)"
                " VALUES(?,?,?,?,?,?,?,?,?,?)",
                values,
            )
            assert cur.lastrowid is not None
            w.note(_dumps(["game", cur.lastrowid, *values]))
        return cur.lastrowid

    def finish_game(self, game_id: int, result: dict[str, Any], *, status: str = "finished") -> None:
        values = (time.time(), status, _dumps(result), game_id)
        with self._write("finish a game") as w:
            w.db.execute("UPDATE games SET finished=?, status=?, result=? WHERE id=?", values)
            w.note(_dumps(["finish game", *values]))

    def set_game_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        values = (_dumps(meta), game_id)
        with self._write("note a game's details") as w:
            w.db.execute("UPDATE games SET meta=? WHERE id=?", values)
            w.note(_dumps(["game meta", *values]))

    def game(self, game_id: int) -> GameRow:
        rows = self._read("SELECT * FROM games WHERE id=?", (game_id,), "games")
        if not rows:
            raise KeyError(f"no game {game_id} in {self.path}")
        return _game_row(rows[0], self.path)

    def games(self, *, match_id: int | None = None) -> list[GameRow]:
        if match_id is None:
            rows = self._read("SELECT * FROM games ORDER BY id", (), "games")
        else:
            rows = self._read("SELECT * FROM games WHERE match_id=? ORDER BY number, id", (match_id,), "games")
        return [_game_row(r, self.path) for r in rows]

    def open_game(self, key: str) -> GameRow | None:
        """The newest unfinished game with this key: what the same command resumes."""
        rows = self._read("SELECT * FROM games WHERE key=? AND status='open' ORDER BY id DESC LIMIT 1", (key,), "games")
        return _game_row(rows[0], self.path) if rows else None

    # -- entries -----------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, body: dict[str, Any], *, seat: int | None = None) -> int:
        """Write one entry, chained to the game's last, and commit it before returning; returns its
        sequence number."""
        text = _dumps(body)
        with self._write("write an entry") as w:
            row = w.db.execute(
                "SELECT seq, hash FROM entries WHERE game_id=? ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
            seq = 1 if row is None else int(row[0]) + 1
            prev = game_genesis(self._journal_id, game_id) if row is None else str(row[1])
            at = time.time()
            h = entry_hash(prev, game_id, seq, kind, seat, at, text)
            w.db.execute(
                "INSERT INTO entries(game_id, seq, kind, seat, body, at, hash) VALUES(?,?,?,?,?,?,?)",
                (game_id, seq, kind, seat, text, at, h),
            )
            w.note(_dumps(["entry", game_id, seq, h]), entry=(game_id, seq))
        return seq

    def entries(self, game_id: int, *, kinds: tuple[str, ...] | None = None) -> Iterator[Entry]:
        """The game's entries in order, each checked against its hash and its place in the chain
        (a changed, missing or reordered entry is a :class:`JournalDamagedError`)."""
        columns = "game_id, seq, kind, seat, body, at" + (", hash" if self.schema >= 2 else "")
        rows = self._read(f"SELECT {columns} FROM entries WHERE game_id=? ORDER BY seq", (game_id,), "entries")
        prev = game_genesis(self._journal_id, game_id)
        out: list[Entry] = []
        for n, row in enumerate(rows, start=1):
            gid, seq, kind, seat, body, at = row[:6]
            where = f"{self.path}: game {game_id} entry {seq}"
            if seq != n:
                raise JournalDamagedError(f"{self.path}: game {game_id}: entry {n} is missing (the next is {seq})")
            if not isinstance(kind, str) or not (seat is None or type(seat) is int) or type(at) is not float:
                raise JournalDamagedError(f"{where}: a column holds a value of the wrong type")
            if not isinstance(body, str):
                raise JournalDamagedError(f"{where}: its body is not text")
            if self.schema >= 2:
                if row[6] != entry_hash(prev, gid, seq, kind, seat, at, body):
                    raise JournalDamagedError(f"{where}: does not match its hash (the entry or one before it changed)")
                prev = row[6]
            if kinds is None or kind in kinds:
                out.append(Entry(gid, seq, kind, seat, _loads_object(body, f"{where} body"), at))
        return iter(out)

    def count(self, game_id: int, kind: str | None = None) -> int:
        if kind is None:
            rows = self._read("SELECT COUNT(*) FROM entries WHERE game_id=?", (game_id,), "entries")
        else:
            rows = self._read("SELECT COUNT(*) FROM entries WHERE game_id=? AND kind=?", (game_id, kind), "entries")
        return int(rows[0][0])

    def game_ids_with_entries(self) -> list[int]:
        return [int(r[0]) for r in self._read("SELECT DISTINCT game_id FROM entries ORDER BY game_id", (), "entries")]

    def chain(self) -> Chain | None:
        """The chain of writes as the database holds it (None for a schema 1 journal)."""
        if self.schema < 2:
            return None
        with self._guard, self._reading("the chain of writes"):
            return read_chain(self._conn(), self.path)

    def quick_check(self) -> None:
        """Raise :class:`JournalDamagedError` when SQLite finds malformed pages."""
        from table.journal_check import quick_check

        with self._guard, self._reading("its pages"):
            quick_check(self._conn(), self.path)

    # -- internals ---------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def _read(self, sql: str, params: tuple[Any, ...], what: str) -> list[tuple[Any, ...]]:
        with self._guard, self._reading(what):
            return self._conn().execute(sql, params).fetchall()

    @contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise _db_error(self.path, exc, f"read {what}") from None

    def _write(self, doing: str) -> _Write:
        if self.read_only:
            raise JournalError(f"{self.path}: opened read-only; cannot {doing}")
        return _Write(self, doing)

    def _rollback(self) -> None:
        try:
            self._conn().execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass


class _Write:
    """One write transaction: the change, the chain of writes advanced in the same transaction,
    then (after the commit) the seal. ``note`` describes the change for the chain."""

    def __init__(self, journal: Journal, doing: str) -> None:
        self.journal = journal
        self.doing = doing
        self.db = journal._conn()
        self._change: str | None = None
        self._entry: tuple[int, int] | None = None

    def note(self, change: str, *, entry: tuple[int, int] | None = None) -> None:
        self._change = change
        self._entry = entry

    def __enter__(self) -> _Write:
        j = self.journal
        j._guard.acquire()
        if j._lock is not None:
            j._lock.commit_guard.acquire()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            self._release()
            raise _db_error(j.path, exc, self.doing) from None
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        j = self.journal
        try:
            if exc_type is not None:
                j._rollback()
                if isinstance(exc, sqlite3.DatabaseError):
                    raise _db_error(j.path, exc, self.doing) from None
                return
            assert self._change is not None, "a journal write notes its change"
            try:
                chain = read_chain(self.db, j.path).advance(self._change, entry=self._entry)
                self.db.execute("UPDATE meta SET value=? WHERE key='chain'", (_dumps(chain.to_json()),))
                self.db.execute("COMMIT")
            except sqlite3.DatabaseError as err:
                j._rollback()
                raise _db_error(j.path, err, self.doing) from None
            except JournalError:
                j._rollback()
                raise
            if j._sealer is not None:
                j._sealer.update(chain)
        finally:
            self._release()

    def _release(self) -> None:
        j = self.journal
        if j._lock is not None:
            j._lock.commit_guard.release()
        j._guard.release()


def _db_error(path: Path, exc: sqlite3.DatabaseError, doing: str) -> JournalError:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return JournalBusyError(f"{path}: cannot {doing}: another process holds the database ({text})")
    if type(exc) is sqlite3.DatabaseError or "malformed" in text or "not a database" in text:
        return JournalDamagedError(f"{path}: cannot {doing}: the database is damaged ({text})")
    return JournalError(f"{path}: cannot {doing}: {text}")


def _loads(text: object, where: str) -> Any:
    if not isinstance(text, str):
        raise JournalDamagedError(f"{where}: not text")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise JournalDamagedError(f"{where}: not valid JSON") from None


def _loads_object(text: object, where: str) -> dict[str, Any]:
    value = _loads(text, where)
    if not isinstance(value, dict):
        raise JournalDamagedError(f"{where}: expected a JSON object")
    return value


def _loads_optional(text: object, where: str) -> dict[str, Any] | None:
    return None if text is None else _loads_object(text, where)


def _int(value: object, where: str) -> int:
    if type(value) is not int:
        raise JournalDamagedError(f"{where}: expected a whole number, found {str(value)[:40]!r}")
    return value


def _number(value: object, where: str) -> float:
    if type(value) not in (int, float):
        raise JournalDamagedError(f"{where}: expected a number, found {str(value)[:40]!r}")
    return float(value)  # type: ignore[arg-type]


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise JournalDamagedError(f"{where}: expected text, found {str(value)[:40]!r}")
    return value


def _game_row(r: tuple[Any, ...], path: Path) -> GameRow:
    (gid, key, match_id, number, game, rules, options, players, dealer, created, finished, status, result, meta) = r
    w = f"{path}: game {gid}"
    return GameRow(
        _int(gid, w),
        _text(key, f"{w} key"),
        None if match_id is None else _int(match_id, f"{w} match"),
        _int(number, f"{w} number"),
        _text(game, f"{w} game"),
        _text(rules, f"{w} rules"),
        _loads_object(options, f"{w} options"),
        _int(players, f"{w} players"),
        _int(dealer, f"{w} dealer"),
        _number(created, f"{w} created"),
        None if finished is None else _number(finished, f"{w} finished"),
        _text(status, f"{w} status"),
        _loads_optional(result, f"{w} result"),
        _loads_object(meta, f"{w} meta"),
    )


def _match_row(r: tuple[Any, ...], path: Path) -> MatchRow:
    mid, key, game, rules, players, created, finished, totals, meta = r
    w = f"{path}: match {mid}"
    return MatchRow(
        _int(mid, w),
        _text(key, f"{w} key"),
        _text(game, f"{w} game"),
        _text(rules, f"{w} rules"),
        _int(players, f"{w} players"),
        _number(created, f"{w} created"),
        None if finished is None else _number(finished, f"{w} finished"),
        _loads_optional(totals, f"{w} totals"),
        _loads_object(meta, f"{w} meta"),
    )


def claim(path: str | Path) -> ControllerLock:
    """Become the controller of the journal at ``path`` until the returned lock is released: take
    the journal's lock, then make the writer's checks (a new journal is created when there is
    none). Raises :class:`JournalBusyError`, :class:`JournalDamagedError` or :class:`JournalError`
    before anything of the journal is changed. Commands hold this for their whole run, so a second
    controller is refused even between two games."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise JournalError(f"{path}: cannot make its folder: {exc.strerror or exc}") from None
    lock = ControllerLock.acquire(path)
    try:
        with Journal(path) as journal:
            try:
                for game in journal.games():
                    if game.status == "open":  # what the command may resume: its entries must hold
                        for _ in journal.entries(game.id):
                            pass
            except JournalDamagedError as exc:
                raise journal._refuse(str(exc)) from None
    except BaseException:
        lock.release()
        raise
    return lock
