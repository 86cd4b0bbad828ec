"""The page's server in a process of its own: the host's taps cross back to the controller and are journalled;
a server killed or stalled mid-game costs the game nothing; the server ends with the controller, whether the
controller stops it, is interrupted or is killed."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from table.controller.core import GameSession
from table.controller.loop import TableLoop
from table.controller.referee import Input
from table.journal import Journal
from table.web.address import parse_address
from table.web.model import Event, State, empty_state
from table.web.process import MAX_BACKLOG, ServerProcess
from table.web.table_page import TablePage
from tests.web.conftest import StreamReader, post_input, request
from tests.web.test_api import _frame

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "host-token-for-the-process-tests"


def _judge_all(loop: TableLoop) -> None:
    while loop.step(0.2):
        pass


def _gone(pid: int) -> bool:
    """``pid`` has ended (a zombie waiting for its parent to read its status has ended too)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


def _until(test: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not test() and time.monotonic() < end:
        time.sleep(0.05)
    return test()


class Game:
    def __init__(self, tmp_path: Path, errors: io.StringIO) -> None:
        self.journal = Journal(tmp_path / "j.db")
        self.session, first = GameSession.open(
            self.journal, key="t", game="chinese-ten", rules="pagat", players=3, dealer_machine=False
        )
        self.loop = TableLoop(self.session)
        self.page = TablePage.start(
            parse_address("127.0.0.1:0"),
            players=3,
            journal=tmp_path / "j.db",
            token=TOKEN,
            out=io.StringIO(),
            errors=errors,
            qr=False,
        )
        self.page.attach(self.session, self.loop, dealer_machine=False)
        self.loop.start(first)
        assert isinstance(self.page.server, ServerProcess)
        self.server: ServerProcess = self.page.server
        self.url = self.server.watch_url

    def inputs(self) -> list[Input]:
        return [Input.from_json(e.body) for e in self.journal.entries(self.session.game_id, kinds=("input",))]


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[Game, io.StringIO]]:
    errors = io.StringIO()
    g = Game(tmp_path, errors)
    try:
        yield g, errors
    finally:
        g.page.stop()
        g.loop.stop()
        g.journal.close()


def test_the_server_is_another_process_and_a_tap_crosses_back_to_be_journalled_and_judged(
    game: tuple[Game, io.StringIO],
) -> None:
    g, errors = game
    assert g.server.pid != os.getpid() and not _gone(g.server.pid)
    assert post_input(g.url, {"command": "reject", "seat": 1, "why": "no"}, TOKEN).status == 202
    _judge_all(g.loop)
    assert g.inputs() == [Input("terminal", "reject", seat=1, text="no")]
    verdicts = [e.body for e in g.journal.entries(g.session.game_id, kinds=("verdict",))]
    assert len(verdicts) == 2  # the opening, and the judged tap
    g.page.linger(0)  # after the game the controller refuses: the server says so
    refused = post_input(g.url, {"command": "undo"}, TOKEN)
    assert refused.status == 409 and "no game is being refereed" in refused.json()["error"]
    _judge_all(g.loop)
    assert len(g.inputs()) == 1 and errors.getvalue() == ""


def test_a_server_killed_mid_game_does_not_stop_the_game_and_is_reported_once(
    game: tuple[Game, io.StringIO],
) -> None:
    g, errors = game
    assert post_input(g.url, {"command": "undo", "why": "before"}, TOKEN).status == 202
    _judge_all(g.loop)
    os.kill(g.server.pid, signal.SIGKILL)
    assert _until(lambda: not g.server.alive, 10)
    for why in ("one", "two", "three"):  # the game goes on: inputs are journalled and judged, verdicts published
        g.loop.post(Input("terminal", "undo", text=why))
        started = time.monotonic()
        assert g.loop.step(5.0)
        assert time.monotonic() - started < 5.0
    g.server.publish_frame(_frame(0))
    assert [i.text for i in g.inputs()] == ["before", "one", "two", "three"]
    assert g.server.state()["game_id"] == g.session.game_id  # the controller still keeps what it published
    assert not g.page.sync(1.0)
    assert errors.getvalue().splitlines() == [
        "cardtable: the table page's server stopped (killed by signal 9); the game goes on without it"
    ]
    assert not _listening(g.server.address.port)


def _verdict(game_id: int, n: int) -> tuple[State, list[Event]]:
    state = empty_state(3) | {"game_id": game_id, "live": True, "phase": f"step {n}"}
    return State(**state), [Event(seq=0, kind="move", seat=n % 3, text=f"move {n}")]


def test_a_stalled_server_costs_the_loop_nothing_and_is_sent_the_whole_state_when_it_wakes(
    tmp_path: Path, stream_reader: Callable[[str], StreamReader]
) -> None:
    errors = io.StringIO()
    server = ServerProcess(parse_address("127.0.0.1:0"), token=TOKEN, players=3, errors=errors)
    try:
        viewer = stream_reader(server.watch_url)
        assert viewer.wait_for(lambda: viewer.kinds()[:1] == ["hello"])
        for n in range(3):
            server.publish(*_verdict(1, n))
        assert viewer.wait_for(lambda: len(viewer.of("event")) == 3)
        os.kill(server.pid, signal.SIGSTOP)
        took: list[float] = []

        def publish_many() -> None:
            for n in range(3, 3 + 3 * MAX_BACKLOG):
                started = time.perf_counter()
                server.publish(*_verdict(1, n))
                took.append(time.perf_counter() - started)

        publisher = threading.Thread(target=publish_many, daemon=True)
        publisher.start()
        publisher.join(timeout=60)
        assert not publisher.is_alive() and len(took) == 3 * MAX_BACKLOG  # nothing waited on the stalled server
        assert sorted(took)[len(took) // 2] < 0.005
        os.kill(server.pid, signal.SIGCONT)
        assert server.sync(30)
        state = request(server.watch_url, "/api/state").json()
        assert state["seq"] == server.state()["seq"] == 3 + 3 * MAX_BACKLOG
        assert state["moves"] == [f"move {n}" for n in range(3 + 3 * MAX_BACKLOG)]
        # the viewer never silently misses an event: it is told to start again from the whole state
        assert viewer.wait_for(lambda: "resync" in viewer.kinds())
        assert errors.getvalue().splitlines() == [
            "cardtable: the table page's server fell behind; its viewers were sent the whole state again"
        ]
        server.publish(*_verdict(1, 9999))
        assert server.sync() and request(server.watch_url, "/api/state").json()["moves"][-1] == "move 9999"
    finally:
        os.kill(server.pid, signal.SIGCONT)
        server.stop()


def test_a_frame_is_encoded_for_a_request_when_nobody_watches(game: tuple[Game, io.StringIO]) -> None:
    g, _ = game
    assert request(g.url, "/api/frame.jpg").status == 404  # no camera yet
    g.server.publish_frame(_frame(0))
    assert g.page.sync()  # the server has heard that the camera has a frame
    assert g.server.viewer_count == 0 and g.server.frames.encoded == 0
    jpeg = request(g.url, "/api/frame.jpg")
    assert jpeg.status == 200 and jpeg.headers["content-type"] == "image/jpeg" and jpeg.body[:2] == b"\xff\xd8"
    assert g.server.frames.encoded == 1
    assert request(g.url, f"/api/frame.jpg?seq={jpeg.headers['x-frame-seq']}").body == jpeg.body


def test_stop_ends_the_server_process_and_frees_the_port(tmp_path: Path) -> None:
    page = TablePage.start(parse_address("127.0.0.1:0"), players=3, out=io.StringIO(), qr=False)
    assert isinstance(page.server, ServerProcess)
    pid, port = page.server.pid, page.server.address.port
    assert _listening(port)
    page.stop()
    assert _until(lambda: _gone(pid), 10) and not _listening(port)


_CONTROLLER = """
import io, sys, time
from table.web.address import parse_address
from table.web.table_page import TablePage
page = TablePage.start(parse_address("127.0.0.1:0"), players=3, out=io.StringIO(), qr=False)
print(page.server.pid, page.server.address.port, flush=True)
time.sleep(300)
"""


def test_no_server_is_left_listening_when_the_controller_is_killed() -> None:
    controller = subprocess.Popen(
        [sys.executable, "-c", _CONTROLLER], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert controller.stdout is not None
        line = controller.stdout.readline()
        assert line, controller.stderr.read() if controller.stderr else ""
        pid, port = (int(x) for x in line.split())
        assert _listening(port)
        controller.kill()
        controller.wait(timeout=30)
        assert _until(lambda: _gone(pid), 20), "the server outlived the controller"
        assert not _listening(port)
    finally:
        controller.kill()


def _as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_on_a_demo_ends_its_server_too(tmp_path: Path) -> None:
    demo = subprocess.Popen(
        [sys.executable, "-m", "table", "demo", "--seed", "1", "--journal", str(tmp_path / "j.db")]
        + ["--web", "127.0.0.1:0", "--web-linger", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_as_from_a_terminal,
    )
    try:
        assert demo.stdout is not None
        watch = demo.stdout.readline()
        assert watch.startswith("watch: http://127.0.0.1:"), watch
        url = watch.split()[1]
        port = int(url.rsplit(":", 1)[1].strip("/"))
        threading.Thread(target=demo.stdout.read, daemon=True).start()  # the game's lines must not fill the pipe
        assert _until(lambda: request(url, "/api/state").json()["live"], 120)
        demo.send_signal(signal.SIGINT)
        demo.wait(timeout=60)
        assert _until(lambda: not _listening(port), 20), "the server outlived the interrupted demo"
    finally:
        demo.kill()
