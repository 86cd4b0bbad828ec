"""The interim main job: ``cardtable demo`` prints a bot game of Chinese Ten as a readable table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table import cli
from table.chinese_ten.record import replay


def test_demo_prints_layout_hands_captures_and_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--seed", "3", "--fast"]) == 0
    out = capsys.readouterr().out
    assert "Chinese Ten (pagat), 3 players, seed 3" in out
    assert out.count("layout:") >= 2 and "hand:" in out and "captured" in out
    assert "turn 24" in out and "turn 25" not in out
    assert "seat  points  margin  captured" in out
    assert "captured the most points" in out or "tie for the most points" in out


@pytest.mark.parametrize("players, rules", [(2, "pagat"), (4, "red-frog-black-frog"), (3, "g4a")])
def test_demo_json_and_record_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], players: int,
                                     rules: str) -> None:
    path = tmp_path / "demo.json"
    args = ["demo", "chinese-ten", "--players", str(players), "--rules", rules, "--seed", "5", "--json",
            "--cheat", "--record", str(path)]
    assert cli.main(args) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["result"]["over"] is True
    assert replay(json.loads(path.read_text())) == shown["result"]


def test_demo_symbols_and_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--seed", "1", "--fast", "--symbols", "--bots", "random"]) == 0
    out = capsys.readouterr().out
    assert "♥" in out or "♦" in out
    assert "seat 0: random bot" in out


@pytest.mark.parametrize("args, message", [
    (["--rules", "taiwan"], "unknown Chinese Ten rule set"),
    (["--players", "5"], "not 5"),
    (["--rules", "g4a", "--players", "2"], "g4a rules are for 3 players, not 2"),
    (["--bots", "clever"], "bots"),
])
def test_demo_bad_options_exit_2_without_traceback(capsys: pytest.CaptureFixture[str], args: list[str],
                                                   message: str) -> None:
    assert cli.main(["demo", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
