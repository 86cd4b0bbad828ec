"""Nothing is written to a file before it is known to be a journal, read-only commands never write
or checkpoint, and a journal with malformed pages is refused for writing."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from table.journal import Journal, JournalDamagedError, JournalError

Digests = Callable[[Path], dict[str, str]]
Cli = Callable[..., subprocess.CompletedProcess[str]]


def _other_sqlite_database(path: Path) -> None:
    """An SQLite database in rollback-journal mode that is not a cardtable journal."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO photos(name) VALUES('beach')")
    db.commit()
    db.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_that_is_not_a_journal_is_left_exactly_as_it_was(tmp_path: Path, read_only: bool) -> None:
    text = tmp_path / "notes.db"
    text.write_bytes(b"hi\n")
    other = tmp_path / "photos.db"
    _other_sqlite_database(other)
    for path in (text, other):
        before = path.read_bytes()
        with pytest.raises(JournalError, match="not a cardtable journal") as caught:
            Journal(path, read_only=read_only)
        assert not isinstance(caught.value, JournalDamagedError)
        assert path.read_bytes() == before, "the header bytes are not switched to WAL mode"
        assert not Path(f"{path}-wal").exists() and not path.with_name(path.name + ".seal").exists()
    assert other.read_bytes()[18:20] == b"\x01\x01"  # still a rollback-journal database


def test_history_and_export_neither_write_nor_checkpoint(
    tmp_path: Path, killed_journal: Callable[..., Path], file_digests: Digests, cardtable: Cli
) -> None:
    path = killed_journal(tmp_path / "j.db", 40)
    before = file_digests(path)
    history = cardtable("history", "--journal", str(path))
    assert history.returncode == 0, history.stderr
    export = cardtable("export", "1", "--journal", str(path))
    assert export.returncode in (0, 1), export.stderr  # the bare entries are not a game's record
    assert "Traceback" not in export.stderr
    assert file_digests(path) == before
    assert Path(f"{path}-wal").stat().st_size > 100_000, "the write-ahead log is not checkpointed away"


def test_reading_needs_no_lock_and_works_beside_a_controller(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as writer:
        gid = writer.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        writer.append(gid, "input", {"n": 1})
        with Journal(path, read_only=True) as reader:
            assert [e.body for e in reader.entries(gid)] == [{"n": 1}]
            writer.append(gid, "input", {"n": 2})
            assert [e.body["n"] for e in reader.entries(gid)] == [1, 2]
            with pytest.raises(JournalError, match="read-only"):
                reader.append(gid, "input", {"n": 3})


def _malformed(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="play:chinese-ten:pagat:3", game="chinese-ten", rules="pagat", players=3)
        for i in range(300):
            journal.append(gid, "input", {"n": i, "pad": "x" * 100})
    size = path.stat().st_size
    with open(path, "r+b") as fh:  # one page in the middle of the file overwritten
        fh.seek(size // 4096 // 2 * 4096)
        fh.write(b"\xff" * 4096)
    return path


def test_a_journal_with_a_malformed_page_is_refused_for_writing(tmp_path: Path, file_digests: Digests) -> None:
    path = _malformed(tmp_path)
    before = file_digests(path)
    with pytest.raises(JournalDamagedError, match="malformed"):
        Journal(path)
    assert file_digests(path) == before
    assert list(tmp_path.glob("j.db.kept-*")), "copies of the damaged files are kept"


def test_demo_and_play_refuse_a_journal_with_a_malformed_page(
    tmp_path: Path, file_digests: Digests, cardtable: Cli
) -> None:
    path = _malformed(tmp_path)
    before = file_digests(path)
    for args in (
        ("demo", "chinese-ten", "--direct", "--fast", "--new", "--journal", str(path)),
        ("play", "chinese-ten", "--journal", str(path)),
    ):
        run = cardtable(*args)
        assert run.returncode == 3, run.stderr
        assert "malformed" in run.stderr and "Traceback" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
    assert file_digests(path) == before
