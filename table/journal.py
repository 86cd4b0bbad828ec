"""The table's journal: an SQLite (WAL) file holding every event, move, verdict and override.

The controller writes each entry *before* acting on it, so the journal is always at least as far
along as the table's state. After ``kill -9`` the same command reopens the journal, finds the
unfinished game by its key, and replays its entries into a fresh controller: nothing is lost
(every input was written before it was acted on) and nothing is doubled (replay reproduces the
state; outputs are derived from inputs, never re-sent from the journal).

Layout: ``matches`` (a series of deals: G4A to 1000, pagat margins added up), ``games`` (one deal
each, with its key, rules and final result) and ``entries`` (``(game_id, seq)`` ordered, with a
``kind`` such as ``input``, ``move``, ``flag``, ``override`` and a JSON body).

WAL with ``synchronous=FULL`` by default: a committed entry survives the process being killed
and the machine losing power. ``synchronous="NORMAL"`` (still safe against ``kill -9``, not
against power loss) is an option for slow SD cards.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.errors import TableError

SCHEMA_VERSION = 1

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
    PRIMARY KEY(game_id, seq)
);
"""


class JournalError(TableError, OSError):
    """The journal file cannot be opened or written (or is not a cardtable journal)."""


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


class Journal:
    """One open journal file. Single writer: one controller process per file at a time."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"synchronous must be FULL, NORMAL or EXTRA, not {synchronous!r}")
        self.path = Path(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves so each append is one transaction.
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta(key, value) VALUES('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise JournalError(f"{path}: journal schema {row[0]}, this cardtable reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{path}: not a usable journal ({exc})") from None
        self._next_seq: dict[int, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches and games -------------------------------------------------------------------

    def new_match(self, *, key: str, game: str, rules: str, players: int, meta: dict[str, Any] | None = None) -> int:
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO matches(key, game, rules, players, created, meta) VALUES(?,?,?,?,?,?)",
                (key, game, rules, players, time.time(), _dumps(meta or {})),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_match(self, match_id: int, totals: dict[str, Any]) -> None:
        with self._tx():
            self._db.execute(
                "UPDATE matches SET finished=?, totals=? WHERE id=?", (time.time(), _dumps(totals), match_id)
            )

    def open_match(self, key: str) -> MatchRow | None:
        """The newest unfinished match with this key (what the same command resumes)."""
        row = self._db.execute(
            "SELECT * FROM matches WHERE key=? AND finished IS NULL ORDER BY id DESC LIMIT 1", (key,)
        ).fetchone()
        return None if row is None else _match_row(row)

    def match(self, match_id: int) -> MatchRow:
        row = self._db.execute("SELECT * FROM matches WHERE id=?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id} in {self.path}")
        return _match_row(row)

    def matches(self) -> list[MatchRow]:
        return [_match_row(r) for r in self._db.execute("SELECT * FROM matches ORDER BY id")]

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
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO games(key, match_id, number, game, rules, options, players, dealer, created, meta)"
                " VALUES(?,?,?,?,?,?,?,?,?,?)",
                (
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
                ),
            )
        assert cur.lastrowid is not None
        self._next_seq[cur.lastrowid] = 1
        return cur.lastrowid

    def finish_game(self, game_id: int, result: dict[str, Any], *, status: str = "finished") -> None:
        with self._tx():
            self._db.execute(
                "UPDATE games SET finished=?, status=?, result=? WHERE id=?",
                (time.time(), status, _dumps(result), game_id),
            )

    def set_game_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        with self._tx():
            self._db.execute("UPDATE games SET meta=? WHERE id=?", (_dumps(meta), game_id))

    def game(self, game_id: int) -> GameRow:
        row = self._db.execute("SELECT * FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        return _game_row(row)

    def games(self, *, match_id: int | None = None) -> list[GameRow]:
        if match_id is None:
            rows = self._db.execute("SELECT * FROM games ORDER BY id")
        else:
            rows = self._db.execute("SELECT * FROM games WHERE match_id=? ORDER BY number, id", (match_id,))
        return [_game_row(r) for r in rows]

    def open_game(self, key: str) -> GameRow | None:
        """The newest unfinished game with this key: what the same command resumes."""
        row = self._db.execute(
            "SELECT * FROM games WHERE key=? AND status='open' ORDER BY id DESC LIMIT 1", (key,)
        ).fetchone()
        return None if row is None else _game_row(row)

    # -- entries -----------------------------------------------------------------------------

    def append(self, game_id: int, kind: str, body: dict[str, Any], *, seat: int | None = None) -> int:
        """Write one entry and commit it before returning; returns its sequence number."""
        seq = self._next_seq.get(game_id)
        if seq is None:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id=?", (game_id,)).fetchone()
            seq = int(row[0]) + 1
        try:
            with self._tx():
                self._db.execute(
                    "INSERT INTO entries(game_id, seq, kind, seat, body, at) VALUES(?,?,?,?,?,?)",
                    (game_id, seq, kind, seat, _dumps(body), time.time()),
                )
        except sqlite3.DatabaseError as exc:
            self._next_seq.pop(game_id, None)
            raise JournalError(f"{self.path}: cannot write entry: {exc}") from None
        self._next_seq[game_id] = seq + 1
        return seq

    def entries(self, game_id: int, *, kinds: tuple[str, ...] | None = None) -> Iterator[Entry]:
        rows = self._db.execute(
            "SELECT game_id, seq, kind, seat, body, at FROM entries WHERE game_id=? ORDER BY seq", (game_id,)
        )
        for gid, seq, kind, seat, body, at in rows.fetchall():
            if kinds is None or kind in kinds:
                yield Entry(gid, seq, kind, seat, json.loads(body), at)

    def count(self, game_id: int, kind: str | None = None) -> int:
        if kind is None:
            row = self._db.execute("SELECT COUNT(*) FROM entries WHERE game_id=?", (game_id,)).fetchone()
        else:
            row = self._db.execute(
                "SELECT COUNT(*) FROM entries WHERE game_id=? AND kind=?", (game_id, kind)
            ).fetchone()
        return int(row[0])

    # -- internals ---------------------------------------------------------------------------

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def _game_row(r: tuple[Any, ...]) -> GameRow:
    (gid, key, match_id, number, game, rules, options, players, dealer, created, finished, status, result, meta) = r
    return GameRow(
        gid,
        key,
        match_id,
        number,
        game,
        rules,
        json.loads(options),
        players,
        dealer,
        created,
        finished,
        status,
        None if result is None else json.loads(result),
        json.loads(meta),
    )


def _match_row(r: tuple[Any, ...]) -> MatchRow:
    mid, key, game, rules, players, created, finished, totals, meta = r
    return MatchRow(
        mid,
        key,
        game,
        rules,
        players,
        created,
        finished,
        None if totals is None else json.loads(totals),
        json.loads(meta),
    )
