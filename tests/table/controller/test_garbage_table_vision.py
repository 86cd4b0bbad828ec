"""Garbage through the real camera pipeline: simulated camera frames of the table go
through the ONNX recogniser, the watcher and the tracker, and the table events they produce are
refereed by the real controller. A whole three-player match (every player deals once) with
cheating bots: a card slipped into a hand and a card taken out of a live hand are both seen by the
camera alone; every cheat flagged, none invented, the coins equal to the simulation's truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.demo.config import DemoConfig
from table.demo.runner import run_demo
from vision.zones import layout_for


def test_every_garbage_layout_has_a_slot_for_each_card_of_the_largest_hand() -> None:
    """Seven cards and a bought (or slipped-in) one each lie on their own slot inside the seat's
    area, and the turn-up row holds the eight cards the world turns before sweeping it."""
    from table.demo.garbage_world import ROW_CARDS

    for players in range(3, 9):
        layout = layout_for("garbage", players)
        for seat in range(1, players + 1):
            zone = layout.zone(f"seat:{seat}")
            assert len(zone.slots) >= 8, (players, seat)
            x, y, w, h = zone.rect
            for slot in zone.slots:  # the whole card inside the seat's rectangle
                assert x + 31.5 <= slot.x <= x + w - 31.5 and y + 44 <= slot.y <= y + h - 44, (players, seat, slot)
        assert len(layout.zone("turnup").slots) >= ROW_CARDS, players


@pytest.mark.timeout(600)  # a whole match through the camera and three resumes: minutes on a 2-core machine
def test_garbage_match_through_the_camera_killed_three_times_equals_truth(tmp_path: Path) -> None:
    """standard, 3 players, seed 1, through the camera pipeline: both kinds of cheat happen, and the
    controller dies three times (journal closed, loop abandoned); a new one, with a new camera pipeline
    numbering its tracks from 1, re-reads the table. The refereed coins, kitty and every hand's outcome
    equal the truth's, every cheat is flagged and no flag matches no cheat."""
    cfg = DemoConfig(
        "garbage",
        rules="standard",
        players=3,
        seed=1,
        cheat=0.1,
        journal=tmp_path / "killed.db",
        senses="vision",
        timeout=500,
        kill_at=(40, 120, 200),
        fast=True,
    )
    out = run_demo(cfg)
    assert out.error is None and out.restarts == 3
    assert out.truth is not None and len(out.truth["hands"]) == 3
    assert out.agree, (out.refereed, out.truth)
    assert {c["rule"] for c in out.cheats} == {"extra-card", "hand-disturbed"}, out.cheats
    assert not out.missed and not out.invented, out.flags


def test_the_demos_players_confirm_only_the_card_just_laid_where_they_are_asked() -> None:
    """Found in the camera benchmark (Garbage short, 8 players, 3 packs, seed 14): the camera could not
    decide on a KC dealt to seat 7 (KS 0.33, KC 0.14), the referee asked "is the card just placed KS?",
    and the simulated dealer confirmed because a KS lay elsewhere on the mat; the match's bingo then
    paid a winner too many. A player looks at the card just laid in the zone asked about."""
    from table.controller.questions import Prompt
    from table.controller.referee import Input
    from table.demo.scenes import DirectScene, Scene, SimScene
    from table.demo.world import confirms
    from vision.simtable import SimTable

    def sighting(zone: str | None) -> Input:
        return Input("table", "appeared", zone=zone)

    direct = DirectScene(lambda inp: None)
    sim = SimScene(SimTable(layout_for("garbage", 8), seed=1))
    for scene in (direct, sim):
        scene.place("KS", "seat:4")
        scene.place("9D", "seat:7")
        scene.place("KC", "seat:7")

        def asked(card: str, zone: str | None, scene: Scene = scene) -> bool:
            return confirms(scene, Prompt(4, card, None, (), 0, sighting(zone)))

        assert not asked("KS", "seat:7")  # a KS is on the mat, but not the card just laid there
        assert asked("KC", "seat:7")
        assert not asked("9D", "seat:7")  # laid there, but not last
        assert asked("KS", "seat:4") and not asked("KS", "turnup")
        assert asked("KS", None)  # no zone in the question: any such card on the mat

        def suit(asked_suit: str, left: list[str], zone: str | None, scene: Scene = scene) -> bool:
            return confirms(scene, Prompt(4, None, asked_suit, tuple(left), 0, sighting(zone)))

        # "is it a club?": yes when the card just laid there is a club still possible
        assert suit("C", ["KC", "2C", "9D"], "seat:7") and not suit("D", ["KC", "9D", "2D"], "seat:7")
        assert not suit("S", ["KS", "3S"], "seat:7")  # a spade lies elsewhere on the mat
        assert suit("S", ["KS", "3S"], None) and not suit("H", ["KH", "3H"], None)
    direct.place("AH", "seat:2", face_up=False)
    assert not confirms(direct, Prompt(2, "AH", None, (), 0, sighting("seat:2")))  # face down: not seen
