"""The simulated table: frames, hands, scripted actions and their expected events."""

from __future__ import annotations

import numpy as np
import pytest

from vision.simtable import RandomPlay, SimCamera, SimTable
from vision.zones import layout_for


@pytest.fixture
def sim() -> SimTable:
    return SimTable(layout_for("chinese-ten", 3), seed=7, camera=SimCamera(tilt_deg=20))


def test_frames_are_camera_sized_and_deterministic(sim: SimTable) -> None:
    sim.place("QH", "layout", animate=False)
    a = sim.render()
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    other = SimTable(layout_for("chinese-ten", 3), seed=7, camera=SimCamera(tilt_deg=20))
    other.place("QH", "layout", animate=False)
    assert np.array_equal(a, other.render())


def test_place_is_hidden_by_a_hand_for_a_third_of_its_frames(sim: SimTable) -> None:
    before = sim.render()
    cid = sim.place("7S", "layout", seat=2)
    assert cid not in sim.cards  # queued: it arrives under the hand
    frames = sim.run()
    assert sum(f.hand for f in frames) >= len(frames) / 3
    assert cid in sim.cards and sim.cards[cid].zone == "layout"
    finished = [a for f in frames for a in f.finished]
    assert len(finished) == 1
    action = finished[0]
    assert [(e.kind, e.card, e.zone) for e in action.expected] == [("appeared", "7S", "layout")]
    assert not frames[action.settled_frame - frames[0].index].hand
    assert frames[action.settled_frame - frames[0].index - 1].hand
    # the hand is skin-coloured and large in the frames it appears in
    hand_frame = next(f for f in frames if f.hand).image
    assert np.abs(hand_frame.astype(int) - before.astype(int)).sum(axis=2).astype(bool).mean() > 0.02


def test_capture_flip_and_turn_expected_events(sim: SimTable) -> None:
    a = sim.place("3D", "layout", animate=False)
    b = sim.place("7H", "layout", animate=False)
    sim.set_stock(["2C", "KS"])
    sim.take([a, b], "capture:1", seat=1)
    sim.run()
    assert sim.cards[a].zone == sim.cards[b].zone == "capture:1" and not sim.cards[a].face_up
    flipped = sim.flip_stock("layout", seat=2)
    sim.turn_over(flipped, seat=3)
    sim.move(b, "capture:2", face_up=True, seat=1)
    frames = sim.run()
    acts = [x for f in frames for x in f.finished]
    assert [x.name for x in acts] == ["flip_stock", "turn_over", "move"]
    assert [(e.kind, e.card, e.zone) for e in acts[0].expected] == [("appeared", "KS", "layout")]
    assert [(e.kind, e.card, e.zone) for e in acts[1].expected] == [("turned_over", "back", "layout")]
    # 7H lay face down on top of seat 1's pile (a back, like the card under it): only its arrival,
    # face up, on seat 2's pile can be seen
    assert [(e.kind, e.card, e.zone) for e in acts[2].expected] == [("appeared", "7H", "capture:2")]


def test_face_up_move_is_one_move(sim: SimTable) -> None:
    a = sim.place("AH", "layout", animate=False)
    sim.move(a, "capture:3", face_up=True, seat=3)
    acts = [x for f in sim.run() for x in f.finished]
    assert [(e.kind, e.card, e.zone, e.from_zone) for e in acts[0].expected] == [("moved", "AH", "capture:3", "layout")]


def test_still_frames_are_fast_to_make(sim: SimTable) -> None:
    for i in range(12):
        sim.place(f"{'A23456789TJQ'[i]}S", "layout", animate=False)
    sim.render()
    frames = [sim.next_frame() for _ in range(5)]
    assert all(not f.hand for f in frames)  # (speed itself is measured in benchmarks/bench_tracker.py)


def test_random_play_keeps_cards_conserved() -> None:
    sim = SimTable(layout_for("chinese-ten", 2), seed=3)
    play = RandomPlay(sim, seed=3)
    for _ in range(40):
        play.step()
        sim.run()
        on_table = [c.card for c in sim.cards.values()]
        assert len(on_table) == len(set(on_table))  # one pack: never two of a card
        assert len(on_table) + len(play.hand) <= 52


def test_unknown_zone_and_card_are_errors(sim: SimTable) -> None:
    with pytest.raises(KeyError):
        sim.place("QH", "pond", animate=False)
    with pytest.raises(KeyError):
        sim.remove(999)
    with pytest.raises(ValueError):
        sim.flip_stock("layout")
