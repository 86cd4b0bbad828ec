"""The table loop never waits on a device: a slow deal runs on the dealer worker while inputs are
judged; the journal holds each input before its verdict."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from table.cards import Card
from table.controller.core import GameSession
from table.controller.loop import TableLoop
from table.controller.referee import Input
from table.journal import Journal


class SlowDealer:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.release = threading.Event()
        self.deals = 0

    def shuffle(self) -> None:
        self.release.wait(self.seconds)

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        self.release.wait(self.seconds)
        self.deals += 1
        return True, None, "done"

    def hopper(self) -> int:
        return 52 - self.deals


def test_a_slow_dealer_does_not_stall_judging(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as journal:
        session, first = GameSession.open(journal, key="k", game="chinese-ten", rules="pagat", players=3)
        dealer = SlowDealer(5.0)
        loop = TableLoop(session, dealer=dealer)
        try:
            loop.start(first)  # a shuffle and 28 deals queued on the dealer worker
            assert not loop.idle
            t0 = time.monotonic()
            loop.post(Input("terminal", "dispute", seat=1, text="nothing to dispute"))
            assert loop.step(timeout=1.0)
            assert time.monotonic() - t0 < 0.5
            kinds = [e.kind for e in journal.entries(session.game_id)]
            assert kinds[-2:] == ["input", "verdict"]
        finally:
            dealer.release.set()
            loop.stop()


def test_resume_rebuilds_the_referee_and_writes_a_missing_verdict(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        session, _ = GameSession.open(
            journal, key="k", game="chinese-ten", rules="pagat", players=2, dealer_machine=False
        )
        session.submit(Input("table", "appeared", "3C", "layout", track=1, candidates=(("3C", 0.99),)))
        # the process dies after journalling this input, before its verdict
        journal.append(
            session.game_id,
            "input",
            Input("table", "appeared", "9D", "layout", track=2, candidates=(("9D", 0.99),)).to_json(),
        )
    with Journal(path) as journal:
        again, actions = GameSession.open(
            journal, key="k", game="chinese-ten", rules="pagat", players=2, dealer_machine=False
        )
        assert again.resumed and actions == [] and again.replayed_inputs == 2
        kinds = [e.kind for e in journal.entries(again.game_id)]
        assert kinds.count("input") == kinds.count("verdict") - 1  # + the start's verdict
        assert {str(c) for c in again.referee.physical} == {"3C", "9D"}  # type: ignore[attr-defined]
