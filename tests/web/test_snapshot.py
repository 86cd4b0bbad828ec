"""The page's state for each game, read from the game's own referee: Chinese Ten points and captures, Frog chips
and tricks, Garbage coins and pots; and a Frog and a Garbage demo followed live to their refereed results."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from table.controller.registry import referee_module
from table.demo.config import DemoConfig
from table.demo.runner import run_demo
from table.web.address import parse_address
from table.web.snapshot import Ledger, rule_text, state_of
from table.web.table_page import TablePage
from tests.web.conftest import request


@pytest.mark.parametrize(
    "game, rules, figure, rows",
    [
        ("chinese-ten", "pagat", "points", ["layout"]),  # the stock is counted once the deal is done
        ("frog", "foster-1909", "chips", ["deal", "trick", "dealer"]),
        ("garbage", "standard", "coins", ["hand", "turn-up row", "awaiting", "dealer"]),
    ],
)
def test_each_games_state_names_its_own_figures(game: str, rules: str, figure: str, rows: list[str]) -> None:
    referee = referee_module(game).make_referee(
        rules=rules, players=3, dealer=0, options={}, card_reader=True, dealer_machine=True
    )
    ledger = Ledger()
    events = ledger.absorb(referee.start())
    state = state_of(referee, ledger, game_id=1, names=lambda s: f"player {s}")
    assert state["game"] == game and state["rules"] == rules and state["players"] == 3
    assert [s["name"] for s in state["seats"]] == ["player 0", "player 1", "player 2"]
    assert all(s[figure] is not None for s in state["seats"])  # type: ignore[literal-required]
    others = {"points", "chips", "coins"} - {figure} - ({"points"} if game == "frog" else set())
    assert all(s[k] is None for s in state["seats"] for k in others)  # type: ignore[literal-required]
    assert [r["label"] for r in state["table"]] == rows
    assert state["dealer"]["in_flight"] == len(referee.pending_commands()) > 0
    assert state["dealer"]["last"] is not None and state["dealer"]["last"].startswith(("deal", "shuffle"))
    assert all(e["kind"] in ("say", "prompt") for e in events)
    if game == "garbage":
        assert {line["account"] for line in state["ledger"]} >= {"pot"}


def test_rules_are_said_in_words() -> None:
    assert rule_text("out-of-turn") == "played out of turn"
    assert rule_text("some-new-rule") == "some new rule"


@pytest.mark.parametrize("game, unit", [("frog", "chips"), ("garbage", "coins")])
def test_a_frog_or_garbage_demo_is_followed_to_its_refereed_result(tmp_path: Path, game: str, unit: str) -> None:
    journal = tmp_path / "j.db"
    page = TablePage.start(parse_address("127.0.0.1:0"), players=3, journal=journal, out=io.StringIO(), qr=False)
    try:
        outcome = run_demo(
            DemoConfig(game, players=3, seed=2, cheat=0.2, journal=journal, senses="direct", timeout=300),
            page=page,
        )
        assert outcome.agree and outcome.refereed is not None
        assert page.sync()
        state = request(page.server.watch_url, "/api/state").json()
        assert state["over"] and state["result"] == outcome.refereed
        assert [s[unit] for s in state["seats"]] == [s[unit] for s in outcome.refereed["seats"]]
        assert [f["id"] for f in state["flags"]] == [f["id"] for f in outcome.flags]
    finally:
        page.stop()
