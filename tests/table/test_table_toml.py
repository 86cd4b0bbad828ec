"""table.toml's checker against careless and hostile files: every mistake is one ConfigError naming
the whole key, found at start; `cardtable play` turns it into one line and exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from table import cli
from table.config import check_gpio, check_rules, load_config, parse_config
from table.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "table.toml.example"


def _uncommented_example() -> str:
    """The example with every commented-out key (``# key = value``) switched on."""
    return re.sub(r"^# (\w+ = )", r"\1", EXAMPLE.read_text(), flags=re.MULTILINE)


def test_every_key_of_the_example_is_accepted_commented_out_ones_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the example's layout path is from the repository's folder
    text = _uncommented_example()
    switched = set(re.findall(r"^# (\w+) = ", EXAMPLE.read_text(), flags=re.MULTILINE))
    assert {"capture_compulsory", "layout", "journal", "match_target"} <= switched
    path = tmp_path / "table.toml"
    path.write_text(text)
    cfg = load_config(path)
    assert cfg.options == {"capture_compulsory": False} and cfg.camera.layout is not None
    check_rules(cfg)  # the game's referee takes the options the example names
    check_rules(load_config(EXAMPLE))


@pytest.mark.parametrize(
    ("toml", "key", "said"),
    [
        ("[[seats]]\nbutton = 2\n[[seats]]\n[[seats]]\n", "seats[0].button", "I2C"),
        ("[[seats]]\n[[seats]]\nbutton = 15\n[[seats]]\n", "seats[1].button", "UART"),
        ("[gpio]\nstatus_led = 3\n", "gpio.status_led", "I2C"),
        ("[gpio]\nbuzzer = 14\n", "gpio.buzzer", "UART"),
        ("[[seats]]\nled = 100000\n[[seats]]\n[[seats]]\n", "seats[0].led", "0 to 254"),
        ("[[seats]]\nled = -1\n[[seats]]\n[[seats]]\n", "seats[0].led", "0 to 254"),
        ('[camera]\nlayout = "no/such/layout.json"\n', "camera.layout", "no layout file"),
    ],
)
def test_pins_leds_and_files_are_checked(tmp_path: Path, toml: str, key: str, said: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == key and said in info.value.reason, info.value


@pytest.mark.parametrize(
    ("game", "options", "key"),
    [
        ("chinese-ten", "compulsory_capture = false", "rules.options.compulsory_capture"),
        ("chinese-ten", "capture_compulsory = 3", "rules.options.capture_compulsory"),
        ("chinese-ten", "card_points = { XX = 3 }", "rules.options.card_points"),
        ("frog", "penalty_frog = 3", "rules.options.penalty_frog"),
        ("garbage", 'ante = "x"', "rules.options.ante"),
    ],
)
def test_errors_under_rules_options_name_the_whole_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, options: str, key: str
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(f"[rules.options]\n{options}\n")
    with pytest.raises(ConfigError) as info:
        check_rules(load_config(path, game=game))
    assert info.value.key == key
    assert cli.main(["play", game, "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardtable play: configuration: {key}: ") and len(err.splitlines()) == 1


def test_too_many_players_names_table_players() -> None:
    with pytest.raises(ConfigError) as info:
        check_rules(parse_config({"table": {"players": 4, "rules": "g4a"}}))
    assert info.value.key == "table.players" and "g4a rules are for 3 players" in info.value.reason


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"x = " + b"{ y = " * 3000 + b"1" + b" }" * 3000 + b"\n", "nested too deeply"),
        (b"\xff\xfe[table]\n", "not UTF-8"),
        (b"# " + b"x" * (1024 * 1024 + 10), "larger than 1024 KiB"),
    ],
)
def test_hostile_files_are_one_config_error(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=said):
        load_config(path)


def test_a_malformed_layout_file_is_a_configuration_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = tmp_path / "layout.json"
    layout.write_text('{"zones": 3}')
    path = tmp_path / "table.toml"
    path.write_text(f'[camera]\nlayout = "{layout}"\n')
    journal = tmp_path / "j.db"
    assert cli.main(["play", "chinese-ten", "--config", str(path), "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardtable play: configuration: camera.layout: ") and len(err.splitlines()) == 1
    assert not journal.exists(), "the configuration is checked before the journal is opened"


def _gpio_here() -> bool:
    probe = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", "from gpiozero import Device; Device.ensure_pin_factory()"],
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"},
        timeout=60,
    )
    return probe.returncode == 0


def test_a_button_off_a_pi_says_how_to_run_without_gpio(tmp_path: Path) -> None:
    if _gpio_here():
        pytest.skip("this machine has GPIO pins: the message for a machine without them cannot be seen here")
    path = tmp_path / "table.toml"
    path.write_text("[[seats]]\nbutton = 17\n[[seats]]\n[[seats]]\n")
    run = subprocess.run(
        [sys.executable, "-m", "table", "play", "chinese-ten", "--config", str(path), "--journal", str(tmp_path / "j")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"},
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("cardtable play: configuration: seats[0].button: this machine has no GPIO pins")
    assert 'pin_factory = "mock"' in run.stderr and len(run.stderr.splitlines()) == 1
    with pytest.raises(ConfigError):
        check_gpio(parse_config({"seats": [{"button": 17}, {}, {}]}))
    check_gpio(parse_config({"seats": [{"button": 17}, {}, {}], "gpio": {"pin_factory": "mock"}}))
