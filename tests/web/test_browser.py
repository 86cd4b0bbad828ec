"""The table page in a real browser (Debian's headless chromium, driven by selenium through chromedriver) against a
running ``cardtable demo --fast --cheat 0.2 --web``: the watch page shows the camera's cards outlined and named,
the seats' points moving and a flag, and has no controls; the host page answers the referee's question with a
tap, and the referee receives it as the terminal's input. The screenshots in docs/ are this test's
(``CARDTABLE_WEB_SCREENSHOTS=docs`` copies them there)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from table.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()),
    reason="Debian's chromium and chromium-driver are not installed (.ci/system-deps installs them)",
)
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1000",
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e .[dev])")
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # selenium must not look for drivers on the internet
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class Demo:
    """``cardtable demo`` in its own process; its output is read as it comes (and kept)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table", "demo", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def line(self, prefix: str, timeout: float = 180) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = [line for line in self.lines if line.startswith(prefix)]
            if found:
                return found[0][len(prefix) :].strip()
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {prefix!r} line; the demo said:\n" + "\n".join(self.lines[-30:]))

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _until(test: Callable[[], Any], timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = test()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _host_inputs(journal: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The journalled terminal inputs that have their verdict, with its actions."""
    with Journal(journal, read_only=True) as j:  # the demo under test is the journal's controller
        games = j.games()
        if not games:
            return []
        entries = list(j.entries(games[-1].id))
    verdicts = {e.body["cause"]: e.body["actions"] for e in entries if e.kind == "verdict"}
    return [
        (e.body, verdicts[e.seq])
        for e in entries
        if e.kind == "input" and e.body["src"] == "terminal" and e.seq in verdicts
    ]


def test_watch_and_host_pages_of_a_running_demo(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    journal = tmp_path / "j.db"
    demo = Demo(
        "--fast",
        "--cheat",
        "0.2",
        "--seed",
        "3",
        "--doubt",
        "0.5",
        "--host-answers",
        "--web",
        "127.0.0.1:0",
        "--web-linger",
        "600",
        "--journal",
        str(journal),
    )
    shots = tmp_path / "shots"
    shots.mkdir()
    try:
        watch_url = demo.line("watch:")
        host_url = demo.line("host:")
        assert host_url.startswith(watch_url + "?token=")

        def css(selector: str) -> list[Any]:
            return list(browser.find_elements(By.CSS_SELECTOR, selector))

        def read(selector: str, what: str = "e.textContent") -> list[Any]:
            """What the elements matching ``selector`` hold now (read in one go: the page redraws as it goes)."""
            script = f"return Array.from(document.querySelectorAll(arguments[0]), (e) => {what});"
            return list(browser.execute_script(script, selector))

        def points() -> list[int]:
            return [int(t) for t in read("#seats .figure.points b")]

        # the watch page: the camera's cards outlined and named, the seats, no controls
        browser.get(watch_url)
        watch = browser.current_window_handle
        _until(lambda: css("#overlay g.seen[data-card]"), 180, "cards outlined on the camera's frame")
        named = set(read("#overlay g.seen", "e.dataset.card"))
        assert named - {"back", "unknown"}, named
        assert css("#overlay g.zone[data-zone='layout']")
        assert css("#frame")[0].is_displayed()
        assert read("#seats .seat h3")[0].startswith("seat 0")
        assert browser.find_element(By.ID, "role").text == "watching"

        # the host page (its own tab: the token lives in that tab's session storage)
        browser.switch_to.new_window("tab")
        host = browser.current_window_handle
        browser.get(host_url)
        _until(lambda: browser.find_element(By.ID, "role").text == "host", 20, "the host's token to be accepted")
        assert "token" not in browser.current_url  # the token left the address bar
        first_question = _until(lambda: css("#prompt-controls button[data-command='confirm']"), 240, "a question")
        question = read("#prompt-text")[0]
        assert question.startswith("seat ") and "is it" in question
        browser.save_screenshot(str(shots / "web-host.png"))
        first_question[0].click()
        received = _until(lambda: _host_inputs(journal), 60, "the referee to receive the tap")
        inp, actions = received[0]
        assert inp == {"src": "terminal", "kind": "confirm", "text": "table page"}
        assert any(a["do"] == "override" and a["who"] == "host" and "the card is" in a["what"] for a in actions)

        # the game goes on as the host answers each question; the watch page sees points move and a flag
        def progressed() -> bool:
            browser.switch_to.window(host)
            for button in css("#prompt-controls button[data-command='confirm']"):
                try:
                    button.click()
                except Exception:  # the panel was redrawn under the click; the next look clicks again
                    pass
            browser.switch_to.window(watch)
            return bool(read("#flags li.flag")) and any(p > 0 for p in points())

        _until(progressed, 400, "a flag and points on the watch page")
        text, rule = read("#flags li.flag", "[e.textContent, e.dataset.rule]")[0]
        assert text.startswith("seat ") and rule in (
            "out-of-turn",
            "capture-compulsory",
            "wrong-card",
            "non-matching",
            "two-cards",
        )
        assert read("#moves li") and read("#table .row[data-row='layout'] .card")
        browser.save_screenshot(str(shots / "web-watch.png"))
        browser.set_window_size(412, 915)  # a phone: one column, nothing wider than the screen
        time.sleep(0.5)
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        browser.save_screenshot(str(shots / "web-phone.png"))
        assert css("[data-command]") == []  # the watch page has no controls, now or ever
        assert not browser.find_element(By.ID, "host-panel").is_displayed()
        # the replay viewer steps through the journalled game (this one, still being played)
        browser.set_window_size(1280, 1000)
        browser.switch_to.window(watch)
        browser.execute_script("document.querySelector('#games li button.replay').click()")
        where = _until(lambda: read("#replay-where")[0] if read("#replay-where")[0] else None, 60, "the replay")
        assert where.startswith("step 0 of ") and int(where.split()[-1]) > 5
        browser.execute_script("document.getElementById('replay-last').click()")
        assert read("#replay-where")[0] == f"step {where.split()[-1]} of {where.split()[-1]}"
        assert read("#moves li") and not browser.find_element(By.ID, "camera-panel").is_displayed()
        browser.execute_script("document.getElementById('replay-close').click()")
        _until(lambda: browser.find_element(By.ID, "camera-panel").is_displayed(), 10, "the live table again")
        taps = _host_inputs(journal)
        assert len(taps) >= 1 and all(i["src"] == "terminal" and i["kind"] == "confirm" for i, _ in taps)
    finally:
        demo.stop()
    wanted = os.environ.get("CARDTABLE_WEB_SCREENSHOTS")
    if wanted:
        for shot in shots.iterdir():
            shutil.copy(shot, ROOT / wanted / shot.name)
