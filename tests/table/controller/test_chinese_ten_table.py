"""Chinese Ten at the demo table, end to end: the simulated world (cheating bots, dealer machine,
seat buttons) against the real controller; the refereed result must equal the simulation's truth,
every injected cheat must be flagged and no legal move flagged.

``direct`` games use perfect senses (a check of the referee and the loop, many games quickly);
``vision`` games run the real pipeline: SimTable frames through the ONNX recogniser and tracker,
the dealer simulator on a pseudo-terminal through the firmware bridge, gpiozero mock buttons."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table.cli import main
from table.demo.config import DemoConfig, DemoResult
from table.demo.runner import run_demo

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "models" / "cardnet.onnx"
CASES = [(2, "pagat"), (3, "pagat"), (4, "pagat"), (3, "g4a"), (2, "red-frog-black-frog"), (4, "red-frog-black-frog")]


def check(result: DemoResult) -> None:
    assert result.refereed is not None, "the refereed game did not finish"
    assert result.agree, (result.refereed, result.truth)
    assert not result.missed, f"cheats not flagged: {result.missed}"
    assert not result.invented, f"flags without a cheat: {result.invented}"


@pytest.mark.parametrize(("players", "rules"), CASES)
def test_direct_game_with_cheats_is_refereed_to_the_truth(tmp_path: Path, players: int, rules: str) -> None:
    result = run_demo(
        DemoConfig(
            players=players,
            rules=rules,
            seed=players * 10 + len(rules),
            cheat=0.3,
            journal=tmp_path / "j.db",
            senses="direct",
            timeout=60,
        )
    )
    check(result)
    assert result.cheats, "the bots were meant to cheat in this game"


def test_demo_game_that_cannot_finish_ends_with_a_clear_error_after_its_timeout(tmp_path: Path) -> None:
    """No bot waits forever: a game that cannot finish in its time ends, saying where it stood."""
    # a zero time limit: no machine is fast enough to finish a game in it (0.2 s was, on an idle one)
    result = run_demo(DemoConfig(players=3, seed=4, journal=tmp_path / "j.db", senses="direct", timeout=0.0))
    assert result.refereed is None and not result.agree
    assert result.error is not None and result.error.startswith("the game did not finish within 0 s: referee in phase")
    assert result.to_json()["error"] == result.error


@pytest.mark.skipif(not MODEL.exists(), reason="the recognition model is not shipped")
@pytest.mark.parametrize(("players", "rules", "seed"), [(2, "red-frog-black-frog", 5), (3, "g4a", 6), (4, "pagat", 7)])
def test_real_pipeline_game_with_cheats_is_refereed_to_the_truth(
    tmp_path: Path, players: int, rules: str, seed: int
) -> None:
    result = run_demo(
        DemoConfig(
            players=players,
            rules=rules,
            seed=seed,
            cheat=0.15,
            fast=True,
            journal=tmp_path / "j.db",
            senses="vision",
            timeout=240,
        )
    )
    check(result)
    assert result.stats["recognizer"] == "onnx"
    assert result.frames > 300  # the camera really watched the game


def _entries(journal: Path) -> int:
    try:
        with sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.skipif(not MODEL.exists(), reason="the recognition model is not shipped")
def test_demo_killed_with_sigkill_resumes_with_the_same_command(tmp_path: Path) -> None:
    """kill -9 in the middle of the game; the same command resumes it and ends with the true score."""
    journal = tmp_path / "j.db"
    cmd = [
        sys.executable,
        "-m",
        "table",
        "demo",
        "--seed",
        "21",
        "--fast",
        "--cheat",
        "0.1",
        "--json",
        "--journal",
        str(journal),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _entries(journal) < 150 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the game ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    killed_at = _entries(journal)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["resumed"] and out["agree"], out
    assert _entries(journal) > killed_at
    assert all(f["matched"] for f in out["flags"])


def test_export_of_a_refereed_game_replays_to_the_same_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "j.db"
    result = run_demo(DemoConfig(players=3, seed=3, cheat=0.2, journal=journal, senses="direct", timeout=60))
    check(result)
    capsys.readouterr()
    assert main(["history", "--journal", str(journal)]) == 0
    listing = capsys.readouterr().out
    assert "finished" in listing and "chinese-ten pagat x3" in listing
    record = tmp_path / "game.json"
    assert main(["export", str(result.game_id), "--journal", str(journal), "--out", str(record)]) == 0
    assert main(["replay", str(record)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["seats"] == result.refereed["seats"]  # type: ignore[index]
    assert main(["export", "99", "--journal", str(journal)]) == 1


def test_export_and_history_of_a_missing_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--journal", str(tmp_path / "none.db")]) == 2
    assert "no journal" in capsys.readouterr().err


def test_play_with_an_invalid_config_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nplayers = 3\n[leds]\nerror = "red"\n')
    assert main(["play", "chinese-ten", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "leds.error" in err and "#rrggbb" in err
    assert main(["play", "chinese-ten", "--players", "5"]) == 2
    assert "table.players" in capsys.readouterr().err


@pytest.mark.skipif(not MODEL.exists(), reason="the recognition model is not shipped")
def test_play_quits_and_the_same_command_resumes(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[camera]\nspec = "sim:chinese-ten,2?script=none"\n[gpio]\npin_factory = "mock"\n'
        '[[seats]]\nname = "Ann"\nbutton = 17\n[[seats]]\nname = "Bo"\nbutton = 27\n'
    )
    cmd = [
        sys.executable,
        "-m",
        "table",
        "play",
        "chinese-ten",
        "--players",
        "2",
        "--config",
        str(cfg),
        "--journal",
        str(tmp_path / "j.db"),
    ]
    first = subprocess.run(
        cmd, cwd=ROOT, input="confirm 0 layout checked\nquit\n", capture_output=True, text=True, timeout=60
    )
    assert first.returncode == 0, first.stderr
    assert "game 1 (new)" in first.stdout and "resumes game 1" in first.stdout
    second = subprocess.run(cmd, cwd=ROOT, input="quit\n", capture_output=True, text=True, timeout=60)
    assert "game 1 (resumed)" in second.stdout


def test_match_passes_the_deal_left_and_adds_up_margins(tmp_path: Path) -> None:
    """A match over several deals: the dealer passes left, pagat margins are added up."""
    from table.demo.runner import run_match
    from table.journal import Journal

    journal = tmp_path / "j.db"
    match = run_match(DemoConfig(players=3, seed=40, journal=journal, senses="direct", timeout=60), deals=3)
    assert match.agree and len(match.deals) == 3
    margins = [
        sum(s["margin"] for d in match.deals for s in d.refereed["seats"] if s["seat"] == i)  # type: ignore[index]
        for i in range(3)
    ]
    assert [match.summary["totals"][str(i)] for i in range(3)] == margins
    with Journal(journal) as j:
        assert [g.dealer for g in j.games()] == [0, 1, 2]
        assert j.matches()[0].finished is not None


def test_g4a_match_plays_to_1000(tmp_path: Path) -> None:
    from table.demo.runner import run_match

    match = run_match(
        DemoConfig(players=3, rules="g4a", seed=5, journal=tmp_path / "j.db", senses="direct", timeout=60)
    )
    totals = list(match.summary["totals"].values())
    assert match.agree and max(totals) >= 1000 and totals.count(max(totals)) == 1
    assert all(sum(s["points"] for s in d.refereed["seats"]) == 240 for d in match.deals)  # type: ignore[index]


def test_direct_game_without_a_card_reader(tmp_path: Path) -> None:
    """Without the card reader the hands are unknown: the referee still catches the other cheats."""
    result = run_demo(
        DemoConfig(
            players=3, seed=2, cheat=0.4, card_reader=False, journal=tmp_path / "j.db", senses="direct", timeout=60
        )
    )
    check(result)
    assert result.cheats and all(c["rule"] != "out-of-turn" for c in result.cheats)


def test_terminal_view_shows_layout_seats_flags_and_leds() -> None:
    from table.demo.view import describe, render_panel

    view = {
        "rules": "pagat",
        "phase": "capture",
        "stock_left": 20,
        "layout": ["3C", "7H"],
        "pending": "7H",
        "to_act": 1,
        "seats": [{"seat": i, "hand": 8, "captured": [], "points": 0} for i in range(3)],
        "flags": [{"seat": 2, "rule": "out-of-turn", "message": "seat 2 played KD out of turn"}],
        "prompt": None,
        "messages": ["seat 0 plays 5S onto the layout"],
    }
    panel = render_panel(view, {0: "idle", 1: "turn", 2: "error"})
    assert "layout: 3C 7H" in panel and "!! seat 2" in panel and ">> seat 1" in panel
    assert "FLAG seat 2 out-of-turn" in panel and "seat 0 plays 5S" in panel
    assert (
        describe({"do": "override", "who": "seat 1", "what": "undo", "why": "misplayed"})
        == "  override by seat 1: undo (misplayed)"
    )
    asked = render_panel(dict(view, prompt={"seat": 1, "card": "7H", "alternatives": []}), {})
    suit = render_panel(dict(view, prompt={"seat": 1, "card": None, "suit": "H", "alternatives": ["7H"]}), {})
    assert "ASK seat 1: is it 7H?" in asked and "ASK seat 1: is it a heart?" in suit


def test_the_demo_players_answer_a_suit_question_by_the_card_they_see() -> None:
    """The Chinese Ten demo's players: asked "is it a club?", a player presses (yes) when a
    card the answer stands for (`questions.prompt_yes_cards`: the clubs still possible) lies on the
    mat, and holds (no) otherwise; each question is answered once."""
    from table.cards import Card
    from table.chinese_ten import rules_by_name
    from table.controller.questions import Prompt, prompt_yes_cards
    from table.controller.referee import Input
    from table.demo.chinese_ten_world import ChineseTenWorld
    from table.demo.scenes import DirectScene
    from table.demo.world import Controls

    presses: list[tuple[int, bool]] = []
    asked: list[Prompt | None] = [None]
    controls = Controls(
        leds=dict,
        prompt=lambda: asked[0],
        idle=lambda: True,
        press=lambda seat, long: presses.append((seat, long)),
        terminal=lambda inp: None,
    )
    world = ChineseTenWorld(
        rules_by_name("pagat"),
        players=3,
        seed=1,
        cheat=0.0,
        dealer=0,
        scene=DirectScene(lambda inp: None),
        controls=controls,
        on_log=lambda entry: None,
        hopper=list,
        load=lambda cards: None,
    )
    world.ids = {Card.parse("KC"): 1, Card.parse("5H"): 2}
    clubs_asked = Prompt(2, None, "C", ("KC", "2C", "9D"), 0, Input("table", "appeared"))
    clubs = prompt_yes_cards(clubs_asked)
    asked[0] = clubs_asked
    world.tick()
    world.tick()  # the same question again: not answered twice
    asked[0] = Prompt(2, None, "S", ("KS", "2S", "9D"), 0, Input("table", "appeared"))
    world.tick()
    assert clubs == ("KC", "2C") and presses == [(2, False), (2, True)]
