"""``--web`` on the commands: ``cardtable history --web`` serves the journal's games without a live table;
bad addresses and option mixes are refused before anything starts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from table.demo.config import DemoConfig
from table.demo.runner import run_demo
from tests.web.conftest import post_input, request

ROOT = Path(__file__).resolve().parents[2]


def _cardtable(*args: str) -> list[str]:
    return [sys.executable, "-m", "table", *args]


def _as_from_a_terminal() -> None:
    """Ctrl-C reaches the child as it does a command typed at a terminal: a test runner's worker may hand its
    children SIGINT ignored or blocked, and a child that inherits that never stops on Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_history_serves_the_journals_games_and_their_replays_without_host_controls(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    result = run_demo(DemoConfig(players=3, seed=4, journal=journal, senses="direct", timeout=300))
    assert result.agree
    proc = subprocess.Popen(
        _cardtable("history", "--journal", str(journal), "--web", "127.0.0.1:0"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_from_a_terminal,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("watch: http://127.0.0.1:"), first + (
            proc.stderr.read() if proc.poll() and proc.stderr else ""
        )
        url = first.split()[1]
        second = proc.stdout.readline()
        assert not second.startswith("host:")  # no live table: no host to be
        state = request(url, "/api/state").json()
        assert state["live"] is False and state["game"] is None
        games = request(url, "/api/games").json()["games"]
        assert [(g["id"], g["status"], g["game"]) for g in games] == [(result.game_id, "finished", "chinese-ten")]
        replay = request(url, f"/api/games/{result.game_id}/replay").json()
        assert replay["agrees"] and replay["steps"][-1]["state"]["result"] == result.refereed
        assert post_input(url, {"command": "undo"}, None).status == 401
        assert post_input(url, {"command": "undo"}, "a-guess-at-the-random-token").status == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)  # a loaded machine shuts the server down slowly
        finally:
            proc.kill()
    assert code == 0


def test_bad_web_options_are_refused_before_anything_starts(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    bad = subprocess.run(
        _cardtable("demo", "--web", "localhost:99999", "--journal", str(journal)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "port must be a number from 0 to 65535" in bad.stderr
    mixed = subprocess.run(
        _cardtable("demo", "--host-answers", "--journal", str(journal)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mixed.returncode == 2 and "--host-answers needs --web" in mixed.stderr
    assert not journal.exists()
    started = time.monotonic()
    missing = subprocess.run(
        _cardtable("history", "--journal", str(tmp_path / "none.db"), "--web", "0"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "no journal at" in missing.stderr and time.monotonic() - started < 30


def test_play_serves_the_live_table_and_a_hosts_tap_is_journalled(tmp_path: Path) -> None:
    """``cardtable play --web``: a real table (the simulated camera, mock seat buttons) with its page; the host's
    tap reaches the referee through the terminal's path; ``quit`` on stdin ends the game and the page."""
    from table.journal import Journal

    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[camera]\nspec = "sim:chinese-ten,3?script=none"\n[gpio]\npin_factory = "mock"\n'
        '[web]\ntoken = "a-configured-host-token"\n'
    )
    journal = tmp_path / "j.db"
    proc = subprocess.Popen(
        _cardtable("play", "chinese-ten", "--players", "3", "--config", str(cfg), "--journal", str(journal))
        + ["--web", "127.0.0.1:0", "--web-linger", "0"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        watch = proc.stdout.readline()
        host = proc.stdout.readline()
        assert watch.startswith("watch: http://127.0.0.1:"), watch + (
            proc.stderr.read() if proc.poll() and proc.stderr else ""
        )
        url = watch.split()[1]
        assert host.strip() == f"host: {url}?token=a-configured-host-token"
        end = time.monotonic() + 120  # the page starts first; the game follows once the camera is open
        while not (state := request(url, "/api/state").json())["live"] and time.monotonic() < end:
            time.sleep(0.2)
        assert state["live"] and state["game"] == "chinese-ten" and state["players"] == 3
        assert post_input(url, {"command": "confirm", "why": "from the test"}, "a-configured-host-token").status == 202
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if any("override by host" in m for m in request(url, "/api/state").json()["messages"]):
                break
            time.sleep(0.2)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
    assert code == 0
    with Journal(journal) as j:
        inputs = [e.body for e in j.entries(j.games()[0].id, kinds=("input",)) if e.body["src"] == "terminal"]
    assert inputs == [{"src": "terminal", "kind": "confirm", "text": "from the test"}]
