"""``cardtable play`` starts a real table for every game, and the same command resumes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SEATS = "".join(f'[[seats]]\nname = "{n}"\nbutton = {p}\n' for n, p in (("Ann", 17), ("Bo", 27), ("Cy", 22)))


@pytest.mark.parametrize(
    "game, first_line",
    [
        ("frog", "deals 3-(3)-4-4"),
        ("garbage", "pays the pot 5 coins (ante)"),
    ],
)
def test_play_starts_each_game_and_the_same_command_resumes(tmp_path: Path, game: str, first_line: str) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[camera]\nspec = "sim:{game},3?script=none"\n[gpio]\npin_factory = "mock"\n' + SEATS)
    cmd = [
        sys.executable,
        "-m",
        "table",
        "play",
        game,
        "--players",
        "3",
        "--config",
        str(cfg),
        "--journal",
        str(tmp_path / "j.db"),
    ]
    first = subprocess.run(cmd, cwd=ROOT, input="quit\n", capture_output=True, text=True, timeout=90)
    assert first.returncode == 0, first.stderr
    assert f"game 1 (new), {game}" in first.stdout and first_line in first.stdout
    second = subprocess.run(cmd, cwd=ROOT, input="quit\n", capture_output=True, text=True, timeout=90)
    assert second.returncode == 0 and "game 1 (resumed)" in second.stdout


@pytest.mark.parametrize(
    "game, rules, message",
    [
        ("frog", "pagat", "unknown rule set 'pagat' for frog"),
        ("garbage", "seed", "unknown rule set 'seed' for garbage"),
    ],
)
def test_play_refuses_a_rule_set_of_another_game(tmp_path: Path, game: str, rules: str, message: str) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nrules = "{rules}"\n')
    out = subprocess.run(
        [sys.executable, "-m", "table", "play", game, "--config", str(cfg)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
