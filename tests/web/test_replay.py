"""A refereed game on the table page: live (its stream and state follow the referee, verdict by verdict) and
afterwards (the journal's games and the replay viewer's steps, which end where the journal ended)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from table.demo.config import DemoConfig
from table.demo.runner import run_demo
from table.journal import Journal
from table.web.address import parse_address
from table.web.replay import ReplayError, replay_game
from table.web.table_page import TablePage
from tests.web.conftest import StreamReader, post_input, request


def test_the_page_follows_a_refereed_game_and_replays_it_from_the_journal(
    tmp_path: Path, stream_reader: Callable[[str], StreamReader]
) -> None:
    journal = tmp_path / "j.db"
    page = TablePage.start(parse_address("127.0.0.1:0"), players=3, journal=journal, token="t" * 20, out=io.StringIO())
    try:
        viewer = stream_reader(page.server.watch_url)
        assert viewer.wait_for(lambda: viewer.kinds()[:1] == ["hello"])
        result = run_demo(
            DemoConfig(players=3, seed=3, cheat=0.2, journal=journal, senses="direct", timeout=300), page=page
        )
        assert result.refereed is not None and result.agree and result.flags
        assert page.sync()
        url = page.server.watch_url
        state = request(url, "/api/state").json()
        assert viewer.wait_for(lambda: bool(viewer.of("state")) and viewer.of("state")[-1]["seq"] == state["seq"])
        assert state["over"] and state["result"] == result.refereed
        assert [s["points"] for s in state["seats"]] == [s["points"] for s in result.refereed["seats"]]
        with Journal(journal) as j:
            moves: list[str] = []
            for e in j.entries(result.game_id, kinds=("verdict",)):
                for a in e.body["actions"]:
                    if a["do"] == "move":
                        moves.append(a["text"])
                    elif a["do"] == "unmove":
                        moves.pop()
        assert state["moves"] == moves and state["move_count"] == len(moves)
        assert [f["rule"] for f in state["flags"]] == [f["rule"] for f in result.flags]
        assert all(f["state"] != "open" for f in state["flags"])
        streamed = [e for e in viewer.of("event") if e["kind"] == "move"]
        assert [e["text"] for e in streamed] == moves
        assert [e["kind"] for e in viewer.of("event")].count("flag") == len(result.flags)
        # after the game the host's taps have no table to go to
        assert post_input(url, {"command": "undo"}, "t" * 20).status == 202
        page.linger(0)
        assert post_input(url, {"command": "undo"}, "t" * 20).status == 409
        games = request(url, "/api/games").json()["games"]
        assert [(g["id"], g["status"]) for g in games] == [(result.game_id, "finished")]
        replay = request(url, f"/api/games/{result.game_id}/replay").json()
        assert replay["agrees"] and replay["journalled_result"] == result.refereed
        last = replay["steps"][-1]
        assert last["state"]["result"] == result.refereed and last["moves"] == moves
        assert [s["step"] for s in replay["steps"]] == list(range(len(replay["steps"])))
        assert replay["steps"][0]["moves"] == [] and replay["steps"][0]["input"] == "the game starts"
        assert request(url, "/api/games/999/replay").status == 404
    finally:
        page.stop()


def test_a_game_whose_journal_does_not_replay_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as j:
        gid = j.new_game(key="k", game="chinese-ten", rules="pagat", players=3, meta={"dealer_machine": False})
        j.append(gid, "input", {"src": "table", "card": "7H"})  # a damaged entry: no kind
    with pytest.raises(ReplayError, match=f"game {gid} does not replay"):
        replay_game(path, gid)
