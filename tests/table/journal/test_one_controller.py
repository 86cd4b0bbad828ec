"""One controller per journal: a second process is refused at once with exit code 4 and touches
nothing, the first does not notice, and ``kill -9`` of the first leaves no stale lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from table.journal import Journal, JournalBusyError, claim
from table.journal_lock import ControllerLock

ROOT = Path(__file__).resolve().parents[3]
Cli = Callable[..., subprocess.CompletedProcess[str]]


def _writer(path: Path, *, entries: int, pause: float) -> subprocess.Popen[str]:
    """A controller in a child process: it claims the journal, then writes ``entries`` entries with a
    pause between them, printing each sequence number, and says ``done`` when it ends well."""
    script = textwrap.dedent(f"""
        import time
        from table.journal import Journal, claim
        with claim({str(path)!r}), Journal({str(path)!r}) as j:
            gid = j.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
            for i in range({entries}):
                print(j.append(gid, "input", {{"n": i}}), flush=True)
                time.sleep({pause})
        print("done", flush=True)
    """)
    return subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_first_entry(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "1", "the first controller started writing"


def test_a_second_controller_is_refused_and_the_first_does_not_notice(tmp_path: Path, cardtable: Cli) -> None:
    path = tmp_path / "x.db"
    first = _writer(path, entries=60, pause=0.05)
    try:
        _wait_for_first_entry(first)
        second = cardtable("demo", "chinese-ten", "--direct", "--fast", "--json", "--journal", str(path))
        assert second.returncode == 4, second.stderr
        assert "in use by another controller" in second.stderr and f"process {first.pid}" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1 and second.stdout == ""
        play = cardtable("play", "chinese-ten", "--journal", str(path))
        assert play.returncode == 4 and "in use by another controller" in play.stderr
        out, err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0, err
    assert out.split()[-1] == "done" and err == ""
    with Journal(path, read_only=True) as journal:
        assert [g.id for g in journal.games()] == [1], "the second made no game"
        assert [e.body["n"] for e in journal.entries(1)] == list(range(60))


def test_kill_9_leaves_no_stale_lock(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    first = _writer(path, entries=10_000, pause=0.01)
    try:
        _wait_for_first_entry(first)
        with pytest.raises(JournalBusyError):
            Journal(path)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        first.kill()
    t0 = time.monotonic()
    with Journal(path) as journal:  # the kernel released the dead controller's lock
        assert time.monotonic() - t0 < 5
        written = list(journal.entries(1))
        assert [e.body["n"] for e in written] == list(range(len(written)))
        journal.append(1, "input", {"n": len(written)})


def test_the_lock_is_shared_within_a_process_and_released_by_the_last_user(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with claim(path):
        with Journal(path) as a, Journal(path) as b:  # one process: one controller, however many handles
            gid = a.new_game(key="k", game="frog", rules="modern", players=3)
            assert b.append(gid, "input", {}) == 1 and a.append(gid, "input", {}) == 2
        held = ControllerLock._held.get(os.path.realpath(path))
        assert held is not None, "still held by the claim after the journals closed"
    assert os.path.realpath(path) not in ControllerLock._held
    probe = subprocess.run(
        [sys.executable, "-c", f"from table.journal import Journal; Journal({str(path)!r}).close(); print('ok')"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.stdout.strip() == "ok", probe.stderr
