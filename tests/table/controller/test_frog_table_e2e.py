"""Frog end to end: bots at the simulated table, the real controller (journal, table loop, seat
buttons on gpiozero mock pins, dealer machine commands), cheats flagged, settlement equal to the
simulation's truth, and a controller killed and restarted mid-game (issue 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.demo.config import DemoConfig
from table.demo.runner import run_demo


@pytest.mark.parametrize(
    "rules, players, reader",
    [
        ("foster-1909", 3, True),  # 3-(3)-4-4, widow exposed, hands known
        ("modern", 4, False),  # 4-(3)-3-4, widow hidden, dealer sits out, hands hidden
        ("solo-slough", 6, True),  # singly with the slough at 1, 4, 8; three sit out
        ("straight-solo", 5, False),
        ("coeur-d-alene", 3, True),
    ],
)
def test_rule_set_refereed_equals_truth_with_cheats(tmp_path: Path, rules: str, players: int, reader: bool) -> None:
    """Every cheat flagged, none invented, chips equal to the truth; per rule set."""
    cfg = DemoConfig(
        "frog",
        rules=rules,
        players=players,
        seed=4,
        cheat=0.2,
        card_reader=reader,
        journal=tmp_path / "j.db",
        timeout=120,
        senses="direct",
    )
    out = run_demo(cfg)
    assert out.error is None
    assert out.agree, (out.refereed, out.truth)
    assert not out.missed and not out.invented
    assert (
        out.refereed is not None
        and sum(s["chips"] for s in out.refereed["seats"]) == 0
        or out.refereed is not None
        and "balances" in out.refereed
    )


def test_cheats_of_every_kind_are_caught(tmp_path: Path) -> None:
    """Out of turn, revoke, trick disturbed and discard count all occur and are all caught."""
    kinds: set[str] = set()
    for seed, reader in ((8, True), (11, False)):
        out = run_demo(
            DemoConfig(
                "frog",
                players=3,
                seed=seed,
                cheat=0.3,
                card_reader=reader,
                journal=tmp_path / f"{seed}.db",
                timeout=120,
                senses="direct",
            )
        )
        assert out.agree and not out.missed and not out.invented
        kinds |= {c["rule"] for c in out.cheats}
    assert kinds >= {"out-of-turn", "revoke", "trick-disturbed", "discard-count"}


def test_controller_killed_and_restarted_finishes_with_the_true_chips(tmp_path: Path) -> None:
    """Issue 9: resume after kill: the journal replay rebuilds the referee; the game ends true."""
    out = run_demo(
        DemoConfig(
            "frog",
            rules="modern",
            players=3,
            seed=7,
            cheat=0.15,
            card_reader=True,
            journal=tmp_path / "k.db",
            kill_at=(10, 45, 90),
            timeout=120,
            senses="direct",
        )
    )
    assert out.restarts == 3
    assert out.agree and not out.missed and not out.invented
