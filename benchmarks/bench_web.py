"""The table page's costs, measured (results in docs/performance.md, "Table page").

1. The referee loop's latency (an input posted to ``TableLoop`` until it is journalled, judged and carried out,
   the page's listener included) for the same journalled Chinese Ten game replayed input by input, paced like a
   busy table, in four conditions: without the page; with the page and no viewer; with the page and
   ``--viewers`` live viewers (server-sent-event clients in another process, each reading the whole stream as
   the page does, frames included); and the same with headless Chromium showing the page too (its rendering
   runs on this machine's two cores, where at a real table it runs on a phone). With the page a camera thread
   offers 1280x720 frames of a moving table at 15 a second. Conditions take turns round by round, so the
   machine's other load falls on all of them alike.
2. Event-to-page latency: from the moment an event is published to the moment the page's ``EventSource`` in
   Chromium receives it (``--no-browser`` skips it), and to the Python viewers.
3. The page's weight before any frame: the HTML, script, style and icon, and the state at a game's end.

    .venv/bin/python benchmarks/bench_web.py                       # 5 rounds, 20 viewers, with Chromium
    .venv/bin/python benchmarks/bench_web.py --rounds 1 --no-browser
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# -- the viewers' process (run as: bench_web.py --viewer-process URL N) ----------------------------


def _viewer(url: str, arrivals: list[tuple[int, float]], stop: threading.Event, counts: dict[str, int]) -> None:
    where = urlsplit(url)
    stream = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=30)
    stream.request("GET", "/api/stream")
    resp = stream.getresponse()
    kind = ""
    while not stop.is_set():
        line = resp.readline()
        if not line:
            return
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            kind = text[7:]
        elif text.startswith("data: "):
            now = time.time()
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "event":
                arrivals.append((int(json.loads(text[6:])["seq"]), now))
            elif kind == "frame":
                counts["frame_bytes"] = counts.get("frame_bytes", 0) + len(text)


def viewer_process(url: str, n: int) -> None:
    """``n`` viewers until stdin closes; then their arrivals (seq, wall time) and counts as JSON on stdout."""
    stop = threading.Event()
    arrivals: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    counts: list[dict[str, int]] = [{} for _ in range(n)]
    threads = [
        threading.Thread(target=_viewer, args=(url, arrivals[i], stop, counts[i]), daemon=True) for i in range(n)
    ]
    for t in threads:
        t.start()
    print("ready", flush=True)
    sys.stdin.read()
    stop.set()
    print(json.dumps({"arrivals": arrivals, "counts": counts}), flush=True)


# -- the benchmark ----------------------------------------------------------------------------------


def journalled_game(journal: Path, seed: int) -> tuple[list[Any], dict[str, Any]]:
    """A refereed demo game (perfect senses, cheating bots): its inputs, and how to open one like it."""
    from table.controller.referee import Input
    from table.demo.config import DemoConfig
    from table.demo.runner import run_demo
    from table.journal import Journal

    result = run_demo(DemoConfig(players=3, seed=seed, cheat=0.2, journal=journal, senses="direct", timeout=120))
    with Journal(journal) as j:
        game = j.game(result.game_id)
        inputs = [Input.from_json(e.body) for e in j.entries(result.game_id, kinds=("input",))]
    opening = {
        "game": game.game,
        "rules": game.rules,
        "players": game.players,
        "dealer": game.dealer,
        "card_reader": bool(game.meta.get("card_reader")),
        "dealer_machine": bool(game.meta.get("dealer_machine", True)),
    }
    return inputs, opening


def camera_frames() -> list[Any]:
    """Two frames of the simulated table (a card moving between them), as the camera thread would offer."""
    from table.web.camera import CameraFrame, SeenCard
    from vision.simtable import SimTable
    from vision.zones import layout_for

    sim = SimTable(layout_for("chinese-ten", 3), seed=1)
    ids = [sim.place(c, "layout", face_up=True, animate=False) for c in ("7H", "QS", "2C", "9D")]
    out = []
    for _ in range(2):
        for _tick in range(12):  # the table settles
            frame = sim.next_frame()
        cards = tuple(
            SeenCard(c.card, 0.99, tuple((float(x), float(y)) for x, y in sim.card_corners(c)))
            for c in sim.cards.values()
        )
        out.append(CameraFrame(frame.image, frame.index, cards, ()))
        sim.move(ids[0], "stock", animate=False)
    return out


def run_condition(
    condition: str,
    inputs: list[Any],
    opening: dict[str, Any],
    *,
    viewers: int,
    pace_s: float,
    browser: Any,
    viewer_nice: int = 0,
    journal_dir: str | None = None,
) -> dict[str, Any]:
    from table.controller.core import GameSession
    from table.controller.loop import TableLoop
    from table.journal import Journal
    from table.web.address import parse_address
    from table.web.process import ServerProcess
    from table.web.table_page import TablePage

    with tempfile.TemporaryDirectory(dir=journal_dir) as tmp:
        journal = Journal(Path(tmp) / "j.db")
        session, first = GameSession.open(journal, key="bench", **opening)
        loop = TableLoop(session)
        page = None
        published: dict[int, float] = {}
        proc = None
        stop = threading.Event()
        camera: threading.Thread | None = None
        browser_arrivals: list[tuple[int, float]] = []
        if condition != "no page":
            page = TablePage.start(parse_address("127.0.0.1:0"), players=opening["players"], out=open(os.devnull, "w"))
            page.attach(session, loop)
            feed = page.server
            assert isinstance(feed, ServerProcess)
            publish = feed.publish

            def timed(state: Any, events: Any) -> None:
                publish(state, events)
                now = time.time()
                seq = feed.state()["seq"]
                for n in range(seq - len(events) + 1, seq + 1):
                    published[n] = now

            feed.publish = timed  # type: ignore[method-assign]
            frames = camera_frames()

            def offer() -> None:
                i = 0
                while not stop.wait(1 / 15):
                    feed.publish_frame(frames[i % 2])  # a moving table: every frame differs from the last
                    i += 1

            camera = threading.Thread(target=offer, daemon=True)
            camera.start()
            if condition in ("viewers", "viewers and a browser"):
                proc = subprocess.Popen(
                    ["nice", "-n", str(viewer_nice), sys.executable, __file__, "--viewer-process"]
                    + [page.server.watch_url, str(viewers)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
                watching_since = time.monotonic()
                if condition == "viewers and a browser":
                    browser.get(page.server.watch_url)
                    browser.execute_script(
                        "window.benchSeen = []; const s = new EventSource('/api/stream');"
                        "s.addEventListener('event', (e) =>"
                        " window.benchSeen.push([JSON.parse(e.data).seq, Date.now()]));"
                    )
                end = time.monotonic() + 10
                watching = viewers + (2 if condition == "viewers and a browser" else 0)
                while feed.viewer_count < watching and time.monotonic() < end:
                    time.sleep(0.05)
                time.sleep(0.5)
        loop.start(first)
        latencies = []
        next_at = time.perf_counter()
        for inp in inputs:
            next_at += pace_s
            delay = next_at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            t0 = time.perf_counter()
            loop.post(inp)
            loop.step(1.0)
            latencies.append(time.perf_counter() - t0)
        time.sleep(1.0)  # the last events reach the viewers
        out: dict[str, Any] = {"latencies": latencies}
        if condition == "viewers and a browser":
            browser_arrivals = [(int(s), t / 1000) for s, t in browser.execute_script("return window.benchSeen")]
            out["browser"] = [t - published[s] for s, t in browser_arrivals if s in published]
        if proc is not None:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.close()
            out["viewer_seconds"] = time.monotonic() - watching_since
            report = json.loads(proc.stdout.read())
            proc.wait(timeout=30)
            out["viewers"] = [t - published[s] for arr in report["arrivals"] for s, t in arr if s in published]
            out["viewer_counts"] = report["counts"]
            out["events_published"] = len(published)
        if condition == "viewers and a browser":
            browser.get("about:blank")
        stop.set()
        if camera is not None:
            camera.join()
        if page is not None:
            server = page.server
            assert isinstance(server, ServerProcess)
            out["frames_encoded"] = server.frames.encoded
            out["state_bytes"] = len(_get(page.server.watch_url, "/api/state"))
            page.stop()
        loop.stop()
        journal.close()
    return out


def _get(url: str, path: str) -> bytes:
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=30)
    try:
        conn.request("GET", path)
        return conn.getresponse().read()
    finally:
        conn.close()


def page_weight() -> dict[str, int]:
    """The bytes of the page's files, as served (no compression)."""
    from table.web.server import load_assets

    return {name: len(body) for name, (body, _) in load_assets().items()}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def open_browser(tmp: Path) -> Any:
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewer-process", nargs=2, metavar=("URL", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--pace-ms", type=float, default=20.0, help="between two inputs (default 20: 50 a second)")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument(
        "--viewer-nice",
        type=int,
        default=0,
        help="run the viewers' process at this niceness (the viewers are the phones' work, not the table's)",
    )
    parser.add_argument(
        "--journal-dir",
        default=None,
        help="where the replayed games' journals go (default: the system's temporary folder; /dev/shm takes the "
        "disk's fsync out of the figures, leaving the processor's share)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    if args.viewer_process:
        viewer_process(args.viewer_process[0], int(args.viewer_process[1]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        inputs, opening = journalled_game(Path(tmp) / "game.db", args.seed)
        browser = None if args.no_browser else open_browser(Path(tmp) / "chromium")
        conditions = ("no page", "no viewer", "viewers") + (() if args.no_browser else ("viewers and a browser",))
        runs: dict[str, list[dict[str, Any]]] = {c: [] for c in conditions}
        try:
            for r in range(args.rounds):
                for condition in conditions:
                    runs[condition].append(
                        run_condition(
                            condition,
                            inputs,
                            opening,
                            viewers=args.viewers,
                            pace_s=args.pace_ms / 1000,
                            browser=browser,
                            viewer_nice=args.viewer_nice,
                            journal_dir=args.journal_dir,
                        )
                    )
                print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
        finally:
            if browser is not None:
                browser.quit()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "inputs": len(inputs),
        "rounds": args.rounds,
        "viewers": args.viewers,
        "pace_ms": args.pace_ms,
        "viewer_nice": args.viewer_nice,
        "journal_dir": args.journal_dir or tempfile.gettempdir(),
        "loop_ms": {},
    }
    for condition in conditions:
        lat = [x * 1000 for run in runs[condition] for x in run["latencies"]]
        medians = [statistics.median(run["latencies"]) * 1000 for run in runs[condition]]
        report["loop_ms"][condition] = {
            "median": round(statistics.median(lat), 3),
            "mean": round(statistics.fmean(lat), 3),
            "p95": round(percentile(lat, 0.95), 3),
            "round_medians": [round(m, 3) for m in medians],
        }
    with_viewers = runs["viewers"]
    viewer_lat = [x * 1000 for run in with_viewers for x in run["viewers"]]
    report["event_to_viewer_ms"] = {
        "count": len(viewer_lat),
        "median": round(statistics.median(viewer_lat), 1),
        "p95": round(percentile(viewer_lat, 0.95), 1),
        "max": round(max(viewer_lat), 1),
        "expected": sum(run["events_published"] for run in with_viewers) * args.viewers,
    }
    if not args.no_browser:
        page_lat = [x * 1000 for run in runs["viewers and a browser"] for x in run["browser"]]
        report["event_to_page_ms"] = {
            "count": len(page_lat),
            "median": round(statistics.median(page_lat), 1),
            "p95": round(percentile(page_lat, 0.95), 1),
            "max": round(max(page_lat), 1),
        }
    report["frames_per_viewer_per_s"] = round(
        statistics.fmean(
            sum(c.get("frame", 0) for c in run["viewer_counts"]) / args.viewers / run["viewer_seconds"]
            for run in with_viewers
        ),
        1,
    )
    sizes = page_weight()
    report["page_bytes"] = sizes | {"total": sum(sizes.values())}
    report["state_bytes_at_the_end"] = max(run["state_bytes"] for run in runs["no viewer"])
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
