"""table.toml: every mistake is a ConfigError naming the key, at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.config import load_config, parse_config
from table.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "table.toml.example"


def test_documented_example_loads() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg.game == "chinese-ten" and cfg.players == 3 and cfg.rules == "pagat"
    assert [s.name for s in cfg.seats] == ["Ann", "Bo", "Cy"]
    assert cfg.seats[1].button == 27 and cfg.dealer.port == "/dev/ttyACM0"
    assert cfg.led_rgb("error") == (255, 0, 0)


def test_empty_config_gives_defaults() -> None:
    cfg = parse_config({})
    assert (cfg.game, cfg.rules, cfg.players, cfg.dealer.port) == ("chinese-ten", "pagat", 3, None)


def test_command_line_game_and_players_win() -> None:
    cfg = parse_config({"table": {"players": 3}}, players=4)
    assert cfg.players == 4


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"tabel": {}}, "tabel"),
        ({"table": {"game": "poker"}}, "table.game"),
        ({"table": {"rules": "house"}}, "table.rules"),
        ({"table": {"players": 5}}, "table.players"),
        ({"table": {"players": "three"}}, "table.players"),
        ({"table": {"first_dealer": 3}}, "table.first_dealer"),
        ({"seats": [{"name": "A"}, {"name": "B"}]}, "seats"),
        ({"seats": [{"name": "A", "button": 40}, {"name": "B"}, {"name": "C"}]}, "seats[0].button"),
        ({"seats": [{"name": "A", "button": 17}, {"name": "B", "button": 17}, {"name": "C"}]}, "seats[1].button"),
        ({"seats": [{"name": "A", "colour": 1}, {"name": "B"}, {"name": "C"}]}, "seats[0].colour"),
        ({"seats": [{"name": ""}, {"name": "B"}, {"name": "C"}]}, "seats[0].name"),
        ({"camera": {"fps": 0}}, "camera.fps"),
        ({"camera": {"mat": "yes"}}, "camera.mat"),
        ({"camera": {"learned": 1}}, "camera.learned"),
        ({"camera": {"spec": "picamera2:0"}}, "camera.spec"),
        ({"dealer": {"port": 7}}, "dealer.port"),
        ({"gpio": {"pin_factory": "pigpio-remote"}}, "gpio.pin_factory"),
        ({"gpio": {"buzzer": 99}}, "gpio.buzzer"),
        ({"gpio": {"hold_ms": 5}}, "gpio.hold_ms"),
        ({"leds": {"error": "red"}}, "leds.error"),
        ({"leds": {"party": "#ffffff"}}, "leds.party"),
        ({"rules": {"options": 3}}, "rules.options"),
    ],
)
def test_invalid_config_names_the_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert info.value.key == key
    assert str(info.value).startswith(key + ":")


def test_the_shipped_example_parses_and_names_a_camera_vision_opens() -> None:
    from vision.camera import camera_for

    cfg = load_config(Path(__file__).parents[3] / "docs" / "table.toml.example")
    assert cfg.camera.spec == "picam:0"
    assert cfg.camera.learned is True and parse_config({"camera": {"learned": False}}).camera.learned is False
    assert parse_config({}).camera.learned is True  # the learned path is the default
    assert type(camera_for(cfg.camera.spec)).__name__ == "PiCameraSource"  # built, not opened: no camera here


def test_unreadable_or_malformed_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\ngame = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
