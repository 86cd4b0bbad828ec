"""Each entry is chained to the one before by hash; every write advances the chain of writes kept in
the database and in the seal; a schema 1 journal is upgraded after a copy of it is kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from table.journal import SCHEMA_VERSION, Journal, entry_hash, game_genesis
from table.journal_seal import read_seal

SCHEMA_1 = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches(id INTEGER PRIMARY KEY, key TEXT NOT NULL, game TEXT NOT NULL, rules TEXT NOT NULL,
    players INTEGER NOT NULL, created REAL NOT NULL, finished REAL, totals TEXT, meta TEXT NOT NULL DEFAULT '{}');
CREATE TABLE games(id INTEGER PRIMARY KEY, key TEXT NOT NULL, match_id INTEGER REFERENCES matches(id),
    number INTEGER NOT NULL DEFAULT 1, game TEXT NOT NULL, rules TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}',
    players INTEGER NOT NULL, dealer INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, finished REAL,
    status TEXT NOT NULL DEFAULT 'open', result TEXT, meta TEXT NOT NULL DEFAULT '{}');
CREATE TABLE entries(game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, kind TEXT NOT NULL,
    seat INTEGER, body TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY(game_id, seq));
INSERT INTO meta VALUES('schema', '1');
INSERT INTO games(key, game, rules, players, created) VALUES('k', 'chinese-ten', 'pagat', 3, 1.5);
INSERT INTO entries VALUES(1, 1, 'input', NULL, '{"n":1}', 2.5);
INSERT INTO entries VALUES(1, 2, 'input', 1, '{"n":2}', 3.5);
"""


def test_each_entry_hashes_the_one_before_and_its_own_content(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        journal.append(gid, "input", {"n": 1})
        journal.append(gid, "verdict", {"cause": 1, "actions": []}, seat=2)
        chain = journal.chain()
    assert chain is not None and chain.commits == 3 and chain.last_entry == (gid, 2)
    assert read_seal(path) == chain
    db = sqlite3.connect(path)
    rows = db.execute("SELECT game_id, seq, kind, seat, at, body, hash FROM entries ORDER BY seq").fetchall()
    prev = game_genesis(chain.journal_id, gid)
    for g, seq, kind, seat, at, body, h in rows:
        assert h == entry_hash(prev, g, seq, kind, seat, at, body)
        prev = h


def test_every_kind_of_write_advances_the_chain_and_the_seal(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        seen = []
        mid = journal.new_match(key="m", game="chinese-ten", rules="pagat", players=3)
        seen.append(journal.chain())
        gid = journal.new_game(key="g", game="chinese-ten", rules="pagat", players=3, match_id=mid)
        seen.append(journal.chain())
        journal.set_game_meta(gid, {"seed": 1})
        seen.append(journal.chain())
        journal.finish_game(gid, {"seats": []})
        seen.append(journal.chain())
        journal.finish_match(mid, {"totals": {}})
        seen.append(journal.chain())
        assert [c.commits for c in seen if c] == [1, 2, 3, 4, 5]
        assert len({c.head for c in seen if c}) == 5
        assert all(b and a and b.prev == a.head for a, b in zip(seen, seen[1:], strict=False))
        assert read_seal(path) == seen[-1]


def test_a_schema_1_journal_is_upgraded_after_a_copy_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    before = path.read_bytes()
    with Journal(path, read_only=True) as journal:  # read as it is, not upgraded
        assert journal.schema == 1 and [e.body["n"] for e in journal.entries(1)] == [1, 2]
    assert path.read_bytes() == before
    with Journal(path) as journal:
        assert journal.schema == SCHEMA_VERSION
        assert [e.body["n"] for e in journal.entries(1)] == [1, 2]
        assert journal.append(1, "input", {"n": 3}) == 3
    kept = next(tmp_path.glob("old.db.kept-*"))
    assert (kept / "old.db").read_bytes() == before
    assert "schema 1" in (kept / "WHY.txt").read_text()
    with Journal(path, read_only=True) as journal:
        assert journal.damage is None and [e.body["n"] for e in journal.entries(1)] == [1, 2, 3]
    seal = read_seal(path)
    assert seal is not None and seal.commits == 2 and seal.last_entry == (1, 3)
