"""The two commands as a user runs them: `cardtable dealer-sim` in a subprocess, `cardtable dealer` against it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from table.cli import main

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def sim_url(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    log = tmp_path / "truth.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "table.cli",
            "dealer-sim",
            "--pty",
            "--seats",
            "3",
            "--card-reader",
            "--speed",
            "50",
            "--deck",
            "AS,KH,2C,TD,5S,9H",
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    try:
        yield url, log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_first_line_is_the_url_and_dealer_deals_through_it(
    sim_url: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, log = sim_url
    assert Path(url).exists()
    assert main(["dealer", "--port", url, "hello"]) == 0
    assert "3 seats" in capsys.readouterr().out
    assert main(["dealer", "--port", url, "--json", "deal", "--to", "seat:2", "--count", "3", "--face", "up"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["cards"] == ["AS", "KH", "2C"] and result["ok"]
    assert main(["dealer", "--port", url, "leds", "--seat", "2", "--colour", "red", "--pattern", "blink"]) == 0
    truth = [json.loads(line) for line in log.read_text().splitlines()]
    deals = [t for t in truth if t["action"] == "deal"]
    assert [(d["target"], d["card"], d["face"]) for d in deals] == [
        ("seat:2", "AS", "up"),
        ("seat:2", "KH", "up"),
        ("seat:2", "2C", "up"),
    ]


def test_empty_hopper_exits_1_with_the_reason(sim_url: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = sim_url
    assert main(["dealer", "--port", url, "deal", "--to", "layout", "--count", "8"]) == 1
    assert "hopper is empty" in capsys.readouterr().out


def test_bad_port_and_bad_target_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dealer", "--port", "/dev/nonexistent-dealer", "status"]) == 2
    assert "cannot open" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["dealer", "--port", "x", "deal", "--to", "kitchen"])
    assert info.value.code == 2


def test_tcp_server(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "table.cli", "dealer-sim", "--tcp", "0", "--speed", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        assert main(["dealer", "--port", url, "deal", "--to", "seat:1"]) == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "abc", "1e9"])
def test_bad_timeouts_are_one_clear_error_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["dealer", "--port", "socket://127.0.0.1:9", "--timeout", value, "status"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert (
        "Traceback" not in err and f"--timeout: seconds must be a number above 0 and at most 3600, not '{value}'" in err
    )


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["leds", "--seat", "300"], "--seat"),
        (["leds", "--seat", "-1"], "--seat"),
        (["deal", "--to", "seat:1", "--count", "53"], "--count"),
        (["deal", "--to", "seat:1", "--count", "x"], "--count"),
    ],
)
def test_out_of_range_numbers_are_refused_before_the_wire(
    args: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["dealer", "--port", "socket://127.0.0.1:9", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "bytes must be in range" not in err
    assert f"argument {flag}: " in err and repr(args[-1]) in err


def test_a_seat_the_machine_lacks_is_one_line_exit_2(
    sim_url: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, _ = sim_url
    assert main(["dealer", "--port", url, "leds", "--seat", "9"]) == 2
    err = capsys.readouterr().err
    assert err == "dealer: seat 9: the machine has 3 seats (0 addresses every seat)\n"


def run_sim(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "table.cli", "dealer-sim", "--speed", "50", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def refused(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The output of a simulator expected to exit at once; one still serving is stopped, not left behind."""
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the simulator started instead of refusing") from None


def test_sim_refuses_to_replace_a_file_that_is_not_its_link(tmp_path: Path) -> None:
    precious = tmp_path / "f.txt"
    precious.write_text("keep me\n")
    proc = run_sim("--link", str(precious))
    out, err = refused(proc)
    assert proc.returncode == 2 and out == ""
    assert "will not replace" in err and "Traceback" not in err
    assert not precious.is_symlink() and precious.read_text() == "keep me\n"
    other = tmp_path / "other-link"
    other.symlink_to(precious)
    proc = run_sim("--link", str(other))
    _, err = refused(proc)
    assert proc.returncode == 2 and "will not replace" in err
    assert os.readlink(other) == str(precious) and precious.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "other-link"]  # no temporary link left


def test_sim_link_is_made_and_removed_and_a_stale_pty_link_replaced(tmp_path: Path) -> None:
    link = tmp_path / "ttyDEALER"
    link.symlink_to("/dev/pts/999999")  # what a killed simulator leaves: a link to a pty that is gone
    proc = run_sim("--link", str(link))
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    try:
        assert url == str(link) and os.readlink(link).startswith("/dev/pts/") and os.path.exists(link)
        assert main(["dealer", "--port", url, "hello"]) == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert not os.path.lexists(link)


def test_sim_removes_only_its_own_link(tmp_path: Path) -> None:
    """Someone put their own file where the link was while the simulator ran: it stays."""
    from firmware_bridge.simulator import Simulator, serve_pty

    link = tmp_path / "tty"
    server = serve_pty(Simulator(speed=50), link=link)
    link.unlink()
    link.write_text("mine now\n")
    server.stop()
    assert link.read_text() == "mine now\n"
