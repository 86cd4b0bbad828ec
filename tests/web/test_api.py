"""The table page's API over a real server on a loopback port: state, frames, the live stream, host inputs with
and without the token, malformed inputs, limits, and many viewers coming and going."""

from __future__ import annotations

import base64
import io
import json
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cli_play import parse_command
from table.controller.core import GameSession
from table.controller.loop import TableLoop
from table.controller.referee import Input
from table.journal import Journal
from table.web.address import parse_address
from table.web.camera import CameraFrame, SeenCard, ZoneOutline
from table.web.errors import AddressError
from table.web.process import ServerProcess
from table.web.table_page import TablePage
from tests.web.conftest import StreamReader, post_input, request

TOKEN = "host-token-for-the-tests-0123"


@dataclass
class Table:
    page: TablePage
    loop: TableLoop
    session: GameSession
    journal: Journal
    url: str

    def inputs(self) -> list[Input]:
        return [Input.from_json(e.body) for e in self.journal.entries(self.session.game_id, kinds=("input",))]

    @property
    def feed(self) -> ServerProcess:
        """The feed the table publishes into: the server's process, seen from the controller."""
        assert isinstance(self.page.server, ServerProcess)
        return self.page.server


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A Chinese Ten table dealt by hand (its first question: "press to confirm when done"), served on a port."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    session, first = GameSession.open(
        journal, key="t", game="chinese-ten", rules="pagat", players=3, dealer_machine=False
    )
    loop = TableLoop(session)
    page = TablePage.start(parse_address("127.0.0.1:0"), players=3, journal=path, token=TOKEN, out=io.StringIO())
    page.attach(session, loop, dealer_machine=False)
    loop.start(first)
    assert page.sync()  # the server process has the game's first state
    try:
        yield Table(page, loop, session, journal, page.server.watch_url)
    finally:
        page.stop()
        loop.stop()
        journal.close()


def _judge_all(loop: TableLoop) -> None:
    while loop.step(0.2):
        pass


def test_the_start_lines_name_both_urls_and_the_token_is_new_each_start(tmp_path: Path) -> None:
    outs = []
    for _ in range(2):
        out = io.StringIO()
        page = TablePage.start(parse_address("127.0.0.1:0"), players=3, out=out)
        page.stop()
        outs.append(out.getvalue().splitlines())
    tokens = []
    for lines in outs:
        assert lines[0].startswith("watch: http://127.0.0.1:") and lines[0].endswith("/")
        assert lines[1].startswith("host: " + lines[0][7:] + "?token=")
        tokens.append(lines[1].split("?token=")[1])
        assert len(lines) > 10 and "█" in lines[2]  # the QR code follows
    assert tokens[0] != tokens[1] and all(len(t) >= 20 for t in tokens)


def test_a_token_configured_in_table_toml_is_the_hosts(tmp_path: Path) -> None:
    from table.config import parse_config
    from table.errors import ConfigError

    cfg = parse_config({"web": {"token": TOKEN}})
    assert cfg.web.token == TOKEN
    out = io.StringIO()
    page = TablePage.start(parse_address("127.0.0.1:0"), players=3, token=cfg.web.token, out=out, qr=False)
    try:
        assert out.getvalue().splitlines()[1].endswith(f"?token={TOKEN}")
        assert request(page.server.watch_url, "/api/host", headers={"Authorization": f"Bearer {TOKEN}"}).status == 200
    finally:
        page.stop()
    with pytest.raises(ConfigError, match="web.token"):
        parse_config({"web": {"token": "short"}})
    with pytest.raises(ConfigError, match="web.colour"):
        parse_config({"web": {"colour": "red"}})


def test_web_addresses() -> None:
    assert parse_address("8080") == parse_address("127.0.0.1:8080")
    assert parse_address("0.0.0.0:80").host == "0.0.0.0"
    assert parse_address("[::1]:9000").host == "::1"
    for bad in ("", "host:", ":80", "70000", "a:b", "::1:80", "[::1]80"):
        with pytest.raises(AddressError):
            parse_address(bad)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(AddressError, match="cannot listen"):
            TablePage.start(parse_address(f"127.0.0.1:{taken.getsockname()[1]}"), out=io.StringIO())
    finally:
        taken.close()


def test_state_names_the_game_its_seats_and_its_open_question(table: Table) -> None:
    reply = request(table.url, "/api/state")
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    state = reply.json()
    assert state["live"] is True and state["game"] == "chinese-ten" and state["rules"] == "pagat"
    assert state["game_id"] == table.session.game_id and state["players"] == 3
    assert [s["seat"] for s in state["seats"]] == [0, 1, 2] and all(s["points"] == 0 for s in state["seats"])
    assert state["phase"] == "deal" and state["dealer"]["machine"] is False
    assert state["moves"] == [] and state["flags"] == [] and state["prompt"] is None and state["over"] is False
    assert "deals 8 cards to each seat" in state["messages"][0]


def test_input_without_the_token_is_refused_and_nothing_is_journalled(table: Table) -> None:
    before = table.journal.count(table.session.game_id)
    no_token = post_input(table.url, {"command": "confirm"}, None)
    assert no_token.status == 401 and no_token.headers["www-authenticate"] == "Bearer"
    wrong = post_input(table.url, {"command": "confirm"}, TOKEN[:-1] + "X")
    assert wrong.status == 403
    not_bearer = post_input(table.url, {"command": "confirm"}, None, Authorization=f"Basic {TOKEN}")
    assert not_bearer.status == 401
    assert request(table.url, "/api/host").status == 401
    assert request(table.url, "/api/host", headers={"Authorization": "Bearer nope"}).status == 403
    _judge_all(table.loop)
    assert table.journal.count(table.session.game_id) == before and table.inputs() == []


def test_a_hosts_tap_is_the_terminals_input_journalled_and_refereed(table: Table) -> None:
    reply = post_input(table.url, {"command": "confirm", "why": "dealt"}, TOKEN)
    assert reply.status == 202
    reply = post_input(table.url, {"command": "dispute", "seat": 2}, TOKEN)
    assert reply.status == 202
    reply = post_input(table.url, {"command": "correct", "card": "7h"}, TOKEN)
    assert reply.status == 202 and reply.json()["accepted"] == {
        "src": "terminal",
        "kind": "correct",
        "card": "7H",
        "text": "table page",
    }
    _judge_all(table.loop)
    assert table.page.sync()
    journalled = table.inputs()
    assert journalled == [
        parse_command("confirm dealt", 3),
        parse_command("dispute 2 table page", 3),
        parse_command("correct 7H table page", 3),
    ]
    # refereed: the hand deal confirmed by the host is an override in the verdict after it
    verdicts = [e.body for e in table.journal.entries(table.session.game_id, kinds=("verdict",))]
    assert {"do": "override", "who": "host", "what": "confirm the deal", "why": "dealt"} in verdicts[1]["actions"]
    state = request(table.url, "/api/state").json()
    assert any("override by host: confirm the deal" in m for m in state["messages"])
    assert any("no open flag to dispute" in m for m in state["messages"])


@pytest.mark.parametrize(
    "body, status, says",
    [
        (b"{not json", 400, "not JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (json.dumps({"command": "shuffle"}).encode(), 400, "command must be one of"),
        (json.dumps({"command": "confirm", "seat": 3}).encode(), 400, "seat must be a number from 0 to 2"),
        (json.dumps({"command": "confirm", "seat": True}).encode(), 400, "seat must be"),
        (json.dumps({"command": "correct"}).encode(), 400, "correct needs the card"),
        (json.dumps({"command": "correct", "card": "1Z"}).encode(), 400, "card:"),
        (json.dumps({"command": "confirm", "card": "7H"}).encode(), 400, "only correct takes a card"),
        (json.dumps({"command": "undo", "file": "/etc/passwd"}).encode(), 400, "unknown field 'file'"),
        (json.dumps({"command": "undo", "why": "x" * 201}).encode(), 400, "at most 200"),
        (b"\xff\xfe", 400, "not JSON"),
        (json.dumps({"command": "undo", "why": "x" * 3000}).encode(), 413, "at most 2048 bytes"),
    ],
)
def test_malformed_inputs_get_an_error_and_the_game_goes_on(table: Table, body: bytes, status: int, says: str) -> None:
    reply = post_input(table.url, body, TOKEN)
    assert reply.status == status and says in reply.json()["error"]
    form = post_input(table.url, b"command=undo", TOKEN, **{"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 415
    _judge_all(table.loop)
    assert table.inputs() == []
    assert post_input(table.url, {"command": "undo"}, TOKEN).status == 202
    _judge_all(table.loop)
    assert [i.kind for i in table.inputs()] == ["undo"]


def test_inputs_are_rate_limited_per_client(table: Table) -> None:
    answers: list[int] = []
    while 429 not in answers and len(answers) < 40:  # 5 a second refill: 40 in a row outrun it on any machine
        answers.append(post_input(table.url, {"command": "undo"}, TOKEN).status)
    assert answers[:10] == [202] * 10 and answers[-1] == 429
    refused = post_input(table.url, {"command": "undo"}, "wrong-token-but-limited-too")
    assert refused.status == 429 and int(refused.headers["retry-after"]) >= 1
    _judge_all(table.loop)
    assert len(table.inputs()) == answers.count(202)


def test_nothing_but_the_page_its_assets_and_the_api_is_served(table: Table) -> None:
    page = request(table.url, "/")
    assert page.status == 200 and b"/assets/app.js" in page.body
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer" and page.headers["x-content-type-options"] == "nosniff"
    assert request(table.url, "/assets/app.js").status == 200
    for path in (
        "/assets/../server.py",
        "/assets/%2e%2e%2fserver.py",
        "/assets/..%2f..%2fjournal.py",
        "/assets/index.html",
        "/assets/server.py",
        "/etc/passwd",
        "/api/../../etc/passwd",
        "/api/games/1/../../../j.db",
        "/j.db",
    ):
        reply = request(table.url, path)
        assert reply.status == 404, path
        assert b"import" not in reply.body and b"SQLite" not in reply.body
    assert request(table.url, "/api/state", method="DELETE").status == 405


def _frame(shift: int) -> CameraFrame:
    image = np.full((720, 1280, 3), 40, np.uint8)
    cv2.rectangle(image, (100 + shift, 100), (260 + shift, 330), (255, 255, 255), -1)
    corners = ((100.0 + shift, 100.0), (260.0 + shift, 100.0), (260.0 + shift, 330.0), (100.0 + shift, 330.0))
    zone = ZoneOutline("layout", "Layout", "layout", ((50.0, 50.0), (900.0, 50.0), (900.0, 500.0), (50.0, 500.0)))
    return CameraFrame(image, shift, (SeenCard("7H", 0.98, corners),), (zone,))


def test_frames_are_sent_when_the_table_moves_and_not_while_it_is_still(
    table: Table, stream_reader: Callable[[str], StreamReader]
) -> None:
    assert request(table.url, "/api/frame.jpg").status == 404  # no camera yet
    viewer = stream_reader(table.url)
    assert viewer.wait_for(lambda: viewer.kinds()[:1] == ["hello"])
    table.feed.publish_frame(_frame(0))
    assert viewer.wait_for(lambda: len(viewer.of("frame")) == 1)
    notice = viewer.of("frame")[0]
    assert notice["width"] == 800 and notice["height"] == 450  # scaled to the page's width: 1280 -> 800
    corners = [[round(x * 0.625, 1), round(y * 0.625, 1)] for x, y in _frame(0).cards[0].corners]
    assert notice["cards"] == [{"card": "7H", "confidence": 0.98, "corners": corners}]
    assert notice["zones"][0]["label"] == "Layout"
    jpeg = request(table.url, f"/api/frame.jpg?seq={notice['seq']}")
    assert jpeg.status == 200 and jpeg.headers["content-type"] == "image/jpeg"
    assert base64.b64decode(notice["jpeg"]) == jpeg.body  # the stream carries the same picture
    picture = cv2.imdecode(np.frombuffer(jpeg.body, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None
    assert picture.shape == (450, 800, 3) and picture[150, 110].mean() > 200 and picture[400, 700].mean() < 80
    for _ in range(5):  # the same table again: nothing to send
        table.feed.publish_frame(_frame(0))
        time.sleep(0.15)
    assert len(viewer.of("frame")) == 1
    newcomer = stream_reader(table.url)  # joins a still table: sees the last frame sent, once
    assert newcomer.wait_for(lambda: newcomer.kinds()[:2] == ["hello", "frame"])
    assert newcomer.of("frame") == [notice]
    table.feed.publish_frame(_frame(200))  # the card moved
    assert viewer.wait_for(lambda: len(viewer.of("frame")) == 2)
    assert viewer.of("frame")[1]["cards"][0]["corners"][0] == [187.5, 62.5]


def test_the_stream_says_hello_then_each_verdicts_events_and_state(
    table: Table, stream_reader: Callable[[str], StreamReader]
) -> None:
    viewer = stream_reader(table.url)
    assert viewer.wait_for(lambda: len(viewer.messages) >= 1)
    hello = viewer.of("hello")[0]
    assert viewer.status == 200 and hello["game_id"] == table.session.game_id and hello["moves"] == []
    assert post_input(table.url, {"command": "confirm"}, TOKEN).status == 202
    _judge_all(table.loop)
    assert viewer.wait_for(lambda: len(viewer.of("state")) >= 1)
    events = viewer.of("event")
    # confirmed with no card dealt: the referee records the host's override and flags the deal
    assert [e["kind"] for e in events] == ["override", "flag"]
    assert [e["seq"] for e in events] == [hello["seq"] + 1, hello["seq"] + 2]
    assert "confirm the deal" in events[0]["text"] and events[1]["seat"] == 0
    state = viewer.of("state")[-1]
    assert state["seq"] == events[-1]["seq"]
    assert [(f["rule"], f["state"]) for f in state["flags"]] == [("deal-count", "open")]
    assert state["seats"][0]["led"] == "error"


def said_hello(viewer: StreamReader) -> bool:
    return viewer.kinds()[:1] == ["hello"]


def heard_events(viewer: StreamReader, count: int) -> bool:
    return len(viewer.of("event")) >= count


def test_fifty_viewers_connect_get_every_event_and_leave(
    table: Table, stream_reader: Callable[[str], StreamReader]
) -> None:
    viewers = [stream_reader(table.url) for _ in range(50)]
    assert all(v.wait_for(partial(said_hello, v)) for v in viewers)
    end = time.monotonic() + 10  # the server process tells the controller how many watch
    while table.feed.viewer_count < 50 and time.monotonic() < end:
        time.sleep(0.05)
    assert table.feed.viewer_count == 50
    for why in ("one", "two", "three"):
        assert post_input(table.url, {"command": "undo", "why": why}, TOKEN).status == 202
    _judge_all(table.loop)
    for v in viewers:
        assert v.wait_for(partial(heard_events, v, 3)), v.kinds()
    first = [(e["seq"], e["text"]) for e in viewers[0].of("event")]
    assert len(first) == 3 and len({seq for seq, _ in first}) == 3
    assert all([(e["seq"], e["text"]) for e in v.of("event")] == first for v in viewers)
    for v in viewers[:25]:
        v.close()
    end = time.monotonic() + 30
    while table.feed.viewer_count > 25 and time.monotonic() < end:
        time.sleep(0.05)
    assert table.feed.viewer_count == 25
    for v in viewers[25:]:
        v.close()
    while table.feed.viewer_count and time.monotonic() < end + 30:
        time.sleep(0.05)
    assert table.feed.viewer_count == 0
    assert request(table.url, "/api/state").status == 200
