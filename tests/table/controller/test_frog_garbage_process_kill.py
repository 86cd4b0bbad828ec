"""Frog and Garbage demos killed for real: ``python -m table demo frog|garbage ... --json`` is
SIGKILLed mid-game (by itself at an exact world-log entry, and by the test at a moment it does not
choose), then the same command without ``--seed`` resumes the open game and must finish with the
truth's chips/coins, every cheat flagged and none invented."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from table.demo.world_log import INPUT_ENTRIES, KILL_ENV, kept_entries

ROOT = Path(__file__).resolve().parents[3]


def _command(game: str, journal: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "table",
        "demo",
        game,
        "--direct",
        "--fast",
        "--json",
        "--journal",
        str(journal),
        "--timeout",
        "120",
        *extra,
    ]


def _log(journal: Path) -> list[dict[str, Any]]:
    logs = sorted(journal.parent.glob(journal.name + ".world-*.jsonl"))
    assert len(logs) == 1, logs  # one game, resumed each time (never a second one)
    return [json.loads(line) for line in logs[0].read_text(encoding="utf-8").splitlines() if line.strip()]


def _inputs(journal: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(journal) as db:
        return [
            json.loads(body) for (body,) in db.execute("SELECT body FROM entries WHERE kind = 'input' ORDER BY seq")
        ]


def _self_killed_at(cmd: list[str], entry: int) -> None:
    """Run until the world has logged ``entry`` entries (the action not yet done), then SIGKILL."""
    done = subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, env=os.environ | {KILL_ENV: str(entry)}
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def _killed_from_outside(cmd: list[str], journal: Path, more: int) -> None:
    """SIGKILL the process once the world has logged ``more`` further entries."""
    start = len(_log(journal))
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while proc.poll() is None and len(_log(journal)) < start + more and time.monotonic() < deadline:
        time.sleep(0.002)
    assert proc.poll() is None, "the game ended before the kill"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL


def _finish(cmd: list[str]) -> dict[str, Any]:
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=150)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == 0, (out.get("error"), out.get("refereed"), out.get("truth"))
    return out


def _dealt_answers(journal: Path) -> int:
    return sum(1 for i in _inputs(journal) if i["src"] == "device" and i["kind"] == "dealt")


def test_frog_process_sigkilled_three_times_resumes_to_the_true_chips(tmp_path: Path) -> None:
    journal = tmp_path / "frog.db"
    game = ("--rules", "modern", "--players", "3", "--cheat", "0.15")
    first = _command("frog", journal, *game, "--seed", "5")
    again = _command("frog", journal, *game)  # no --seed: the open game is found in the journal
    # 1. killed the moment the dealer machine's 12th card (the second widow card) is logged: it is
    # dealt in the rebuilt world, its answer never reached the journal, so the restarted controller
    # must count it dealt (one card fewer in the hopper) instead of dealing a second card
    _self_killed_at(first, 12)
    log = _log(journal)
    assert "deal" in log[-1]
    assert _dealt_answers(journal) == sum("deal" in e for e in log) - 1
    # 2. killed after logging the first bid press, before pressing: the journal lacks it, so the
    # resumed bot presses again (and only once)
    _self_killed_at(again, 40)
    log = _log(journal)
    assert "press" in log[-1]
    heard = sum(1 for i in _inputs(journal) if i["src"] in ("button", "terminal"))
    assert heard == sum(any(k in e for k in INPUT_ENTRIES) for e in log) - 1
    # 3. killed from outside, mid-play
    _killed_from_outside(again, journal, 60)
    out = _finish(again)
    assert out["resumed"] is True
    assert out["agree"], (out["refereed"], out["truth"])
    assert out["cheats"] and out["missed"] == 0 and out["invented"] == 0
    assert len(_log(journal)) > 100  # the whole game's actions, in one log


def test_garbage_process_sigkilled_three_times_resumes_to_the_true_coins(tmp_path: Path) -> None:
    journal = tmp_path / "garbage.db"
    game = ("--players", "3", "--cheat", "0.1")
    first = _command("garbage", journal, *game, "--seed", "9")
    again = _command("garbage", journal, *game)
    # 1. killed once the machine's 4th face-up card is logged (before it lands: the camera must see
    # it land after the restart, and the machine must not deal another in its place)
    _self_killed_at(first, 7)
    log = _log(journal)
    assert "deal" in log[-1]
    assert _dealt_answers(journal) == sum("deal" in e for e in log) - 1
    # 2. and 3. killed from outside, twice
    _killed_from_outside(again, journal, 40)
    _killed_from_outside(again, journal, 90)
    out = _finish(again)
    assert out["resumed"] is True
    assert out["agree"], (out["refereed"], out["truth"])
    assert out["missed"] == 0 and out["invented"] == 0


def test_the_log_ends_before_an_input_the_journal_never_got() -> None:
    log: list[dict[str, Any]] = [
        {"deal": ["seat:0", "AS"]},
        {"press": [0, False]},
        {"prompt": [1, True]},
        {"press": [0, True]},
        {"place": ["AS", "trick", True]},
    ]
    assert kept_entries(log, heard=3) == log
    assert kept_entries(log, heard=2) == log[:3]  # the last press was lost: made again live
    assert kept_entries(log[:3], heard=1) == log[:2]  # a lost prompt answer: the prompt stays open
