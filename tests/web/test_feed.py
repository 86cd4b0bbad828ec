"""The feed between the table and its viewers: a slow viewer loses frames and superseded states, never events."""

from __future__ import annotations

import asyncio
import json

import pytest

from table.web.errors import TooManyViewers
from table.web.feed import TableFeed, Viewer
from table.web.model import Event, empty_state


def _messages(chunks: list[bytes]) -> list[tuple[str, dict[str, object]]]:
    out = []
    for chunk in chunks:
        kind = chunk.split(b"\n", 1)[0].removeprefix(b"event: ").decode()
        data = chunk.split(b"data: ", 1)[1].strip()
        out.append((kind, json.loads(data)))
    return out


def test_a_slow_viewer_keeps_every_event_in_order_and_only_the_latest_frame_and_state() -> None:
    async def run() -> None:
        viewer = Viewer(since=0, max_events=100)
        for n in range(1, 31):
            viewer.push([(n, json.dumps({"seq": n}).encode())], json.dumps({"seq": n}).encode())
            viewer.push_frame(json.dumps({"frame": n}).encode())
        sent = _messages(viewer.drain())
        assert [d["seq"] for k, d in sent if k == "event"] == list(range(1, 31))
        assert [d for k, d in sent if k == "state"] == [{"seq": 30}]
        assert [d for k, d in sent if k == "frame"] == [{"frame": 30}]
        assert viewer.frames_dropped == 29 and not viewer.overflowed
        assert viewer.drain() == []

    asyncio.run(run())


def test_a_viewer_too_far_behind_is_told_to_start_again_rather_than_lose_an_event() -> None:
    async def run() -> None:
        viewer = Viewer(since=0, max_events=10)
        viewer.push([(n, b"{}") for n in range(1, 12)], None)
        assert viewer.overflowed  # the stream ends with "resync"; the page reconnects and gets the whole state

    asyncio.run(run())


def test_events_a_viewers_hello_already_held_are_not_sent_twice() -> None:
    async def run() -> None:
        viewer = Viewer(since=5, max_events=10)
        viewer.push([(4, b"{}"), (5, b"{}"), (6, b'{"seq": 6}')], None)
        assert [d for k, d in _messages(viewer.drain()) if k == "event"] == [{"seq": 6}]

    asyncio.run(run())


def test_publishing_keeps_the_move_list_and_numbers_the_events() -> None:
    feed = TableFeed()
    state = empty_state(3) | {"game_id": 7, "live": True}
    feed.publish(
        state,
        [Event(seq=0, kind="move", seat=0, text="seat 0 plays 7H"), Event(seq=0, kind="say", seat=None, text="hi")],
    )
    feed.publish(state, [Event(seq=0, kind="unmove", seat=None, text="taken back: seat 0 plays 7H")])
    feed.publish(state, [Event(seq=0, kind="move", seat=0, text="seat 0 plays 8H")])
    snapshot = json.loads(feed.snapshot())
    assert snapshot["moves"] == ["seat 0 plays 8H"] and snapshot["seq"] == 4
    feed.publish(state | {"game_id": 8}, [])  # the next deal starts a new list
    assert json.loads(feed.snapshot())["moves"] == []


def test_viewers_beyond_the_limit_are_refused_and_a_leaving_one_frees_a_place() -> None:
    async def run() -> None:
        feed = TableFeed(max_viewers=2)
        first, _ = feed.add_viewer()
        feed.add_viewer()
        with pytest.raises(TooManyViewers, match="2 viewers"):
            feed.add_viewer()
        feed.remove_viewer(first)
        feed.add_viewer()
        assert feed.viewer_count == 2

    asyncio.run(run())
