"""Journals made and damaged by the tests themselves: real SQLite files written by real processes.

``killed_journal(path, entries)`` runs a writer in a child process that SIGKILLs itself after its
last commit, so its write-ahead log is left on disk un-checkpointed, as after a ``kill -9``.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

KilledJournal = Callable[..., Path]


def _killed_journal(path: Path, entries: int, *, games: int = 1) -> Path:
    script = textwrap.dedent(f"""
        import os, signal
        from table.journal import Journal
        j = Journal({str(path)!r}, synchronous="NORMAL")  # after kill -9 the files are as under FULL
        ids = [j.new_game(key=f"demo:{{g}}", game="chinese-ten", rules="pagat", players=3) for g in range({games})]
        for i in range({entries}):
            j.append(ids[i % len(ids)], "input", {{"n": i, "pad": "x" * 200}})
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    assert Path(f"{path}-wal").stat().st_size > 100_000, "the killed writer left its write-ahead log"
    return path


@pytest.fixture
def killed_journal() -> KilledJournal:
    return _killed_journal


def damage_wal_middle(path: Path) -> None:
    """Overwrite 4 KB in the middle of the journal's write-ahead log (as the issue's reproduction)."""
    wal = Path(f"{path}-wal")
    size = wal.stat().st_size
    with open(wal, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(bytes(range(256)) * 16)


def digests(path: Path) -> dict[str, str]:
    """SHA-256 of each file of the journal that exists (database, WAL, seal; not the shared-memory
    index, which SQLite rebuilds for any reader)."""
    out = {}
    for f in (path, Path(f"{path}-wal"), path.with_name(path.name + ".seal")):
        if f.exists():
            out[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``cardtable ARGS`` in a child process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "table", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def damage_wal() -> Callable[[Path], None]:
    return damage_wal_middle


@pytest.fixture
def file_digests() -> Callable[[Path], dict[str, str]]:
    return digests


@pytest.fixture
def cardtable() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli
