"""The journal: entries committed before they are acted on, readable after the writer is killed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from table.journal import Journal, JournalError


def test_entries_are_kept_in_order_with_their_bodies(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as j:
        gid = j.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        assert j.append(gid, "input", {"kind": "appeared", "card": "7H"}) == 1
        assert j.append(gid, "move", {"seat": 1, "play": "7H", "take": "3C"}, seat=1) == 2
        entries = list(j.entries(gid))
        assert [e.seq for e in entries] == [1, 2]
        assert entries[1].body == {"seat": 1, "play": "7H", "take": "3C"} and entries[1].seat == 1
        assert [e.kind for e in j.entries(gid, kinds=("move",))] == ["move"]
        assert j.count(gid) == 2 and j.count(gid, "input") == 1


def test_reopened_journal_continues_sequence_and_finds_open_game(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as j:
        gid = j.new_game(key="demo:1", game="chinese-ten", rules="pagat", players=2)
        j.append(gid, "input", {"n": 1})
    with Journal(path) as j:
        game = j.open_game("demo:1")
        assert game is not None and game.id == gid
        assert j.append(gid, "input", {"n": 2}) == 2
        j.finish_game(gid, {"seats": []})
        assert j.open_game("demo:1") is None
        assert j.game(gid).status == "finished"


def test_journal_is_in_wal_mode(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db"):
        pass
    db = sqlite3.connect(tmp_path / "j.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_not_a_journal_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="not a cardtable journal"):
        Journal(bad)


def test_entries_written_before_sigkill_survive(tmp_path: Path) -> None:
    """A writer killed with SIGKILL mid-stream loses nothing it had committed (append returned)."""
    path = tmp_path / "j.db"
    script = textwrap.dedent(f"""
        import sys
        from table.journal import Journal
        j = Journal({str(path)!r})
        gid = j.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        for i in range(1, 100000):
            j.append(gid, "input", {{"n": i}})
            print(i, flush=True)
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3]
    )
    assert proc.stdout is not None
    acknowledged = 0
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 50:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    with Journal(path) as j:
        bodies = [e.body["n"] for e in j.entries(1)]
    assert bodies[:acknowledged] == list(range(1, acknowledged + 1))
    assert bodies == list(range(1, len(bodies) + 1))  # no gap, nothing doubled
