"""A journal shorter than it was (a damaged write-ahead log SQLite silently rolls back, an older copy
of the file) is noticed through its seal, refused for writing without a change, its files copied
aside; ``cardtable journal accept`` goes on with what it holds."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from table.journal import Journal, JournalDamagedError
from table.journal_maintenance import accept, verify
from table.journal_seal import SLOT_BYTES, SLOTS, read_seal, seal_path

Digests = Callable[[Path], dict[str, str]]
Cli = Callable[..., subprocess.CompletedProcess[str]]


def test_a_damaged_wal_is_refused_unchanged_with_copies_kept(
    tmp_path: Path, killed_journal: Callable[..., Path], damage_wal: Callable[[Path], None], file_digests: Digests
) -> None:
    path = killed_journal(tmp_path / "j.db", 171)
    damage_wal(path)
    before = file_digests(path)
    with pytest.raises(JournalDamagedError, match=r"write\(s\) missing") as caught:
        Journal(path)
    message = str(caught.value)
    # what is missing, named: the seal's last entry against the journal's
    assert "game 1 entry 171" in message and "journal accept" in message
    assert file_digests(path) == before, "a refused journal is not changed"
    kept = next(tmp_path.glob("j.db.kept-*"))
    assert str(kept.name) in message
    assert file_digests(kept / "j.db") == before, "the copies are the files as they were"
    # refused again: the same copies, not a second set
    with pytest.raises(JournalDamagedError):
        Journal(path)
    assert len(list(tmp_path.glob("j.db.kept-*"))) == 1


def test_reading_a_shortened_journal_warns_and_changes_nothing(
    tmp_path: Path, killed_journal: Callable[..., Path], damage_wal: Callable[[Path], None], file_digests: Digests
) -> None:
    path = killed_journal(tmp_path / "j.db", 171)
    damage_wal(path)
    before = file_digests(path)
    with Journal(path, read_only=True) as journal:
        assert journal.damage is not None and "missing" in journal.damage
        entries = list(journal.entries(1))
    assert 0 < len(entries) < 171
    assert file_digests(path) == before
    assert Path(f"{path}-wal").stat().st_size > 0, "a reader never checkpoints"


def test_the_commands_refuse_a_shortened_journal_with_exit_3(
    tmp_path: Path,
    killed_journal: Callable[..., Path],
    damage_wal: Callable[[Path], None],
    file_digests: Digests,
    cardtable: Cli,
) -> None:
    path = killed_journal(tmp_path / "j.db", 171)
    damage_wal(path)
    before = file_digests(path)
    history = cardtable("history", "--journal", str(path))
    assert history.returncode == 3
    assert "warning" in history.stderr and "missing" in history.stderr and "Traceback" not in history.stderr
    assert "open" in history.stdout  # still lists what it holds
    demo = cardtable("demo", "chinese-ten", "--direct", "--fast", "--json", "--journal", str(path))
    assert demo.returncode == 3, demo.stderr
    assert len(demo.stderr.strip().splitlines()) == 1 and "Refused" in demo.stderr
    assert demo.stdout == ""
    assert file_digests(path) == before


def test_an_older_copy_of_the_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        for i in range(10):
            journal.append(gid, "input", {"n": i})
    shutil.copy(path, tmp_path / "old.db")
    with Journal(path) as journal:
        journal.append(gid, "input", {"n": 10})
    shutil.copy(tmp_path / "old.db", path)
    with pytest.raises(JournalDamagedError, match=r"1 write\(s\) missing.*entry 10.*entry 11"):
        Journal(path)


def test_a_seal_two_writes_behind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        journal.append(gid, "input", {"n": 1})
        old_seal = seal_path(path).read_bytes()
        journal.append(gid, "input", {"n": 2})
        journal.append(gid, "input", {"n": 3})
    seal_path(path).write_bytes(old_seal)
    with pytest.raises(JournalDamagedError, match="2 write.* more than its seal"):
        Journal(path)
    with Journal(path, read_only=True) as journal:
        assert journal.damage is None  # a reader may see a live writer ahead of its seal


def test_a_seal_one_write_behind_is_resealed(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        journal.append(gid, "input", {"n": 1})
        behind = seal_path(path).read_bytes()
        journal.append(gid, "input", {"n": 2})
        current = read_seal(path)
    seal_path(path).write_bytes(behind)
    assert read_seal(path) != current
    with Journal(path) as journal:
        assert [e.body["n"] for e in journal.entries(gid)] == [1, 2]
    assert read_seal(path) == current


def test_a_torn_seal_slot_leaves_the_other_one_write_behind(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        journal.append(gid, "input", {"n": 1})
        current = read_seal(path)
    assert current is not None
    raw = bytearray(seal_path(path).read_bytes())
    newest = (current.commits % SLOTS) * SLOT_BYTES
    raw[newest + 40 : newest + 300] = b"\x00" * 260  # the newest slot half written when the power went
    seal_path(path).write_bytes(bytes(raw))
    behind = read_seal(path)
    assert behind is not None and behind.commits == current.commits - 1
    with Journal(path) as journal:
        assert [e.body["n"] for e in journal.entries(gid)] == [1]
    assert read_seal(path) == current
    seal_path(path).write_bytes(b"\x00" * len(raw))  # both slots gone: refused
    with pytest.raises(JournalDamagedError, match="neither of its slots"):
        Journal(path)


def test_a_missing_seal_or_a_missing_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        journal.append(journal.new_game(key="k", game="frog", rules="modern", players=3), "input", {})
    seal = seal_path(path).read_bytes()
    seal_path(path).unlink()
    with pytest.raises(JournalDamagedError, match="seal .* is missing"):
        Journal(path)
    seal_path(path).write_bytes(seal)
    path.unlink()
    with pytest.raises(JournalDamagedError, match="missing or empty, but its seal"):
        Journal(path)
    assert not path.exists(), "no new journal is made in place of a lost one"


def test_accept_goes_on_with_what_is_left_and_closes_the_cut_games(
    tmp_path: Path, killed_journal: Callable[..., Path], damage_wal: Callable[[Path], None], file_digests: Digests
) -> None:
    path = killed_journal(tmp_path / "j.db", 171, games=2)
    damage_wal(path)
    before = file_digests(path)
    with pytest.raises(JournalDamagedError):
        Journal(path)
    said = accept(path)
    assert "accepted" in said and "cut" in said
    kept = next(tmp_path.glob("j.db.kept-*"))
    assert {f.name for f in kept.iterdir()} >= set(before)  # the files as they were, kept
    health = verify(path)
    assert health.problem is None and 0 < health.entries < 171
    with Journal(path) as journal:  # a controller opens it again
        games = journal.games()
        assert {g.status for g in games} == {"cut"}
        assert all(g.result and "lost its last" in g.result["cut"] for g in games)
        assert journal.open_game("demo:0") is None  # a new game starts, not a shortened one resumed


def test_journal_check_and_accept_commands(
    tmp_path: Path, killed_journal: Callable[..., Path], damage_wal: Callable[[Path], None], cardtable: Cli
) -> None:
    path = killed_journal(tmp_path / "j.db", 120)
    sound = cardtable("journal", "check", "--journal", str(path))
    assert sound.returncode == 0 and "sound" in sound.stdout and "120 entries" in sound.stdout
    damage_wal(path)
    damaged = cardtable("journal", "check", "--journal", str(path))
    assert damaged.returncode == 3 and "missing" in damaged.stderr
    accepted = cardtable("journal", "accept", "--journal", str(path))
    assert accepted.returncode == 0 and "accepted" in accepted.stdout
    again = cardtable("journal", "check", "--journal", str(path))
    assert again.returncode == 0, again.stderr
    assert json.loads(cardtable("history", "--json", "--journal", str(path)).stdout.splitlines()[0])["status"] == "cut"
