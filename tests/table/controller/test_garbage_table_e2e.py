"""Garbage end to end: bots at the simulated table, the real controller, cheats flagged, coins
equal to the simulation's truth, and a controller killed and restarted mid-match (issue 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.demo.config import DemoConfig
from table.demo.runner import run_demo


@pytest.mark.parametrize(
    "rules, players, reader",
    [
        ("standard", 3, True),
        ("buy", 4, False),
        ("seven-card", 3, True),
        ("bingo-kitty", 5, True),
        ("short", 6, False),  # three packs: duplicates expected
    ],
)
def test_rule_set_refereed_equals_truth_with_cheats(tmp_path: Path, rules: str, players: int, reader: bool) -> None:
    cfg = DemoConfig(
        "garbage",
        rules=rules,
        players=players,
        seed=2,
        cheat=0.1,
        card_reader=reader,
        journal=tmp_path / "j.db",
        timeout=120,
        senses="direct",
    )
    out = run_demo(cfg)
    assert out.error is None
    assert out.agree, (out.refereed, out.truth)
    assert out.cheats and not out.missed and not out.invented
    assert out.refereed is not None and out.refereed["coins_total"] == players * 100


def test_controller_killed_and_restarted_finishes_with_the_true_coins(tmp_path: Path) -> None:
    out = run_demo(
        DemoConfig(
            "garbage",
            players=3,
            seed=9,
            cheat=0.1,
            journal=tmp_path / "k.db",
            kill_at=(12, 70, 150),
            timeout=120,
            senses="direct",
        )
    )
    assert out.restarts == 3
    assert out.agree and not out.missed and not out.invented
