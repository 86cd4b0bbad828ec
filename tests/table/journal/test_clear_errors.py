"""Every journal problem is one clear line and the documented exit code from every command that
opens the journal: 2 not a journal, 3 damaged (docs/journal.md). Never a traceback."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from table import cli
from table.journal import Journal, JournalDamagedError, entry_hash

Damage = Callable[[Path], None]


def _journal(tmp_path: Path) -> Path:
    """A journal with one open demo game of three entries."""
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(
            key="demo:chinese-ten:pagat:3:7:direct:reader:0",
            game="chinese-ten",
            rules="pagat",
            players=3,
            meta={"seed": 7},
        )
        for n in range(3):
            journal.append(gid, "input", {"src": "terminal", "kind": "confirm", "n": n})
    return path


def _sql(path: Path, statement: str, *params: object) -> None:
    db = sqlite3.connect(path)
    db.execute(statement, params)
    db.commit()
    db.close()


def _garbage_in_the_middle(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(size // 4096 // 2 * 4096)
        fh.write(b"garbage!" * 512)


def _entry_changed(path: Path) -> None:
    _sql(path, "UPDATE entries SET body=? WHERE seq=2", '{"src":"terminal","kind":"undo","n":1}')


def _entry_not_json_with_its_hash(path: Path) -> None:
    """A crafted entry whose hash was made to match: its body is still not JSON."""
    db = sqlite3.connect(path)
    gid, seq, kind, seat, at = db.execute("SELECT game_id, seq, kind, seat, at FROM entries WHERE seq=3").fetchone()
    prev = db.execute("SELECT hash FROM entries WHERE seq=2").fetchone()[0]
    body = '{"src": "terminal", '
    db.execute(
        "UPDATE entries SET body=?, hash=? WHERE seq=3", (body, entry_hash(prev, gid, seq, kind, seat, at, body))
    )
    db.commit()
    db.close()


def _entry_deleted(path: Path) -> None:
    _sql(path, "DELETE FROM entries WHERE seq=2")


def _options_not_json(path: Path) -> None:
    _sql(path, "UPDATE games SET options='{not json'")


def _schema_abc(path: Path) -> None:
    _sql(path, "UPDATE meta SET value='abc' WHERE key='schema'")


def _players_abc(path: Path) -> None:
    _sql(path, "UPDATE games SET players='abc'")


DAMAGE: dict[str, tuple[Damage, str]] = {
    "garbage in the middle of the file": (_garbage_in_the_middle, "malformed"),
    "an entry changed": (_entry_changed, "game 1 entry 2: does not match its hash"),
    "an entry's body not JSON": (_entry_not_json_with_its_hash, "game 1 entry 3 body: not valid JSON"),
    "an entry deleted": (_entry_deleted, "game 1: entry 2 is missing"),
    "games.options not JSON": (_options_not_json, "game 1 options: not valid JSON"),
    "schema 'abc'": (_schema_abc, "schema version is 'abc'"),
    "players 'abc'": (_players_abc, "game 1 players: expected a whole number"),
}
# what each command reads: history lists games, export reads one game's entries, demo and play
# claim the journal (resuming its open game), journal check reads everything
READS_ENTRIES = {"an entry changed", "an entry's body not JSON", "an entry deleted"}
COMMANDS = {
    "history": ["history"],
    "export": ["export", "1"],
    "demo": ["demo", "chinese-ten", "--direct", "--fast", "--json"],
    "play": ["play", "chinese-ten"],
    "journal check": ["journal", "check"],
}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_damaged_journal_is_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str, command: str
) -> None:
    path = _journal(tmp_path)
    make, said = DAMAGE[damage]
    make(path)
    code = cli.main([*COMMANDS[command], "--journal", str(path)])
    err = capsys.readouterr().err
    if command == "history" and damage in READS_ENTRIES:
        assert code == 0 and err == ""  # history lists the games, which are intact
        return
    assert code == 3, err
    assert said in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"cardtable {command}: ")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_that_is_not_a_journal_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = tmp_path / "t.db"
    path.write_text("hi\n")
    code = cli.main([*COMMANDS[command], "--journal", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "not a cardtable journal" in err and len(err.strip().splitlines()) == 1
    assert path.read_text() == "hi\n"


def test_a_changed_entry_is_named_when_its_game_is_resumed(tmp_path: Path) -> None:
    path = _journal(tmp_path)
    _entry_changed(path)
    with Journal(path, read_only=True) as journal, pytest.raises(JournalDamagedError, match="entry 2"):
        list(journal.entries(1))


def test_history_json_survives_odd_but_valid_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _journal(tmp_path)
    with Journal(path) as journal:
        journal.finish_game(1, {"seats": "not a list"})
        mid = journal.new_match(key="m", game="chinese-ten", rules="pagat", players=3)
        journal.finish_match(mid, {"totals": [1, 2]})
    assert cli.main(["history", "--journal", str(path)]) == 0
    assert cli.main(["history", "--json", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[-1])["result"] == {"seats": "not a list"}
