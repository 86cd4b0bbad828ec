"""The two commands as a user runs them: `cardtable dealer-sim` in a subprocess, `cardtable dealer` against it."""

from __future__ import annotations

import json
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


def test_first_line_is_the_url_and_dealer_deals_through_it(sim_url, capsys: pytest.CaptureFixture[str]) -> None:
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


def test_empty_hopper_exits_1_with_the_reason(sim_url, capsys: pytest.CaptureFixture[str]) -> None:
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
