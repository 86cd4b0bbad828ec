"""``table.toml``: the table's configuration, read with :mod:`tomllib` and checked at start.

Every problem is a :class:`~table.errors.ConfigError` whose ``key`` is the dotted path of the
offending key (``seats[2].button``, ``leds.error``), so a typo is reported before play starts,
never half-way through a game. ``docs/table.toml.example`` documents every key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.errors import ConfigError

GAMES = ("chinese-ten", "frog", "garbage")
PLAYERS: dict[str, tuple[int, int]] = {"chinese-ten": (2, 4), "frog": (3, 7), "garbage": (3, 12)}


def _rule_set_names() -> dict[str, tuple[str, ...]]:
    # The engines' own registries, so a rule set added there is accepted here without a second list.
    from table.chinese_ten import RULE_SETS as chinese_ten
    from table.frog.rules import RULE_SETS as frog
    from table.garbage import RULE_SETS as garbage

    return {"chinese-ten": tuple(chinese_ten), "frog": tuple(frog), "garbage": tuple(garbage)}


RULE_SETS: dict[str, tuple[str, ...]] = _rule_set_names()
DEFAULT_RULES = {"chinese-ten": "pagat", "frog": "foster-1909", "garbage": "standard"}

# Pins a Raspberry Pi exposes as BCM GPIO numbers on its header, and those it uses itself.
GPIO_PINS = range(0, 28)
RESERVED_PINS = {2: "the I2C bus's SDA", 3: "the I2C bus's SCL", 14: "the UART's TXD", 15: "the UART's RXD"}
# The dealer machine addresses a seat LED as one byte, 0 meaning all: LED index i is sent as i + 1.
LED_INDEXES = range(0, 255)
MAX_CONFIG_BYTES = 1024 * 1024

LED_ROLES = ("idle", "turn", "error", "capture", "confirm", "winner")
DEFAULT_LEDS: dict[str, str] = {
    "idle": "#000000",
    "turn": "#0040ff",
    "error": "#ff0000",
    "capture": "#00c000",
    "confirm": "#ffb000",
    "winner": "#ffffff",
}
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


# The schemes vision.camera.camera_for opens (checked here so a typo fails at start, naming the key).
CAMERA_SCHEMES = ("picam", "usb", "rtsp", "http", "https", "file", "folder", "sim")


@dataclass(frozen=True, slots=True)
class SeatConfig:
    name: str
    button: int | None = None  # BCM pin of the seat's button
    led: int | None = None  # index of the seat's LED on the dealer machine


@dataclass(frozen=True, slots=True)
class CameraConfig:
    spec: str = "sim:"  # vision's camera spec: picam:0, usb:0, file:PATH, folder:DIR, sim: (vision/camera.py)
    mat: bool = True  # a printed mat with ArUco markers; False: fixed geometry from `layout`
    layout: str | None = None  # a zone layout file (vision/layouts/*.json) instead of the game's own
    fps: float = 15.0
    # find the cards with the learned outline networks first (vision.learned_detect); false: the shipped detector alone
    learned: bool = True
    # read the cards against this enrolled deck (`cardtable deck learn NAME ...`); None: the generic model alone
    deck: str | None = None


@dataclass(frozen=True, slots=True)
class DealerConfig:
    port: str | None = None  # None: players deal by hand
    card_reader: bool = False


@dataclass(frozen=True, slots=True)
class GpioConfig:
    pin_factory: str = "default"  # "default" (the Pi's pins) or "mock" (gpiozero's MockFactory)
    status_led: int | None = None
    buzzer: int | None = None
    hold_ms: int = 800  # a press held this long is a long press (dispute / undo)


@dataclass(frozen=True, slots=True)
class WebConfig:
    token: str | None = None  # the table page's host token; None: a new one each start


_TOKEN = re.compile(r"^[A-Za-z0-9_\-.~]{16,128}$")


@dataclass(frozen=True, slots=True)
class TableConfig:
    game: str = "chinese-ten"
    rules: str = "pagat"
    players: int = 3
    first_dealer: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    seats: tuple[SeatConfig, ...] = ()
    camera: CameraConfig = CameraConfig()
    dealer: DealerConfig = DealerConfig()
    gpio: GpioConfig = GpioConfig()
    leds: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_LEDS))
    journal: str | None = None
    match_target: int | None = None  # G4A: 1000; None: one deal (or the rule set's default)
    deals: int = 1  # deals in a match when no target applies
    web: WebConfig = WebConfig()

    def seat_name(self, seat: int) -> str:
        if seat < len(self.seats):
            return self.seats[seat].name
        return f"seat {seat}"

    def led_rgb(self, role: str) -> tuple[int, int, int]:
        text = self.leds[role]
        return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def load_config(path: str | Path, *, game: str | None = None, players: int | None = None) -> TableConfig:
    """Read and check ``table.toml``; raises :class:`ConfigError` naming the key at fault.
    ``game`` and ``players`` (from the command line) take precedence over the file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except IsADirectoryError:
        raise ConfigError(str(path), "a folder, not a table.toml") from None
    except OSError as exc:
        raise ConfigError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(str(path), f"larger than {MAX_CONFIG_BYTES // 1024} KiB: not a table.toml")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), f"not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(str(path), "not valid TOML: nested too deeply for a table.toml") from None
    cfg = parse_config(data, game=game, players=players)
    if cfg.camera.layout is not None and not Path(cfg.camera.layout).is_file():
        raise ConfigError("camera.layout", f"no layout file {cfg.camera.layout} (a path from the current folder)")
    return cfg


def parse_config(data: Mapping[str, Any], *, game: str | None = None, players: int | None = None) -> TableConfig:
    """Check a parsed TOML mapping. ``game``/``players`` from the command line take precedence."""
    _only(data, "", {"table", "seats", "camera", "dealer", "gpio", "leds", "rules", "web"})
    table = _section(data, "table")
    _only(table, "table", {"game", "rules", "players", "first_dealer", "journal", "match_target", "deals"})
    game = game or _get(table, "table.game", str, "chinese-ten")
    if game not in GAMES:
        raise ConfigError("table.game", f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    rules = _get(table, "table.rules", str, DEFAULT_RULES[game])
    if rules not in RULE_SETS[game]:
        raise ConfigError(
            "table.rules", f"unknown rule set {rules!r} for {game}; expected one of {', '.join(RULE_SETS[game])}"
        )
    lo, hi = PLAYERS[game]
    n = players if players is not None else _get(table, "table.players", int, 3)
    if not lo <= n <= hi:
        raise ConfigError("table.players", f"{game} is played by {lo} to {hi} players, not {n}")
    first_dealer = _get(table, "table.first_dealer", int, 0)
    if not 0 <= first_dealer < n:
        raise ConfigError("table.first_dealer", f"a seat number 0 to {n - 1}, not {first_dealer}")
    journal = _get(table, "table.journal", str, None)
    match_target = _get(table, "table.match_target", int, None)
    if match_target is not None and match_target <= 0:
        raise ConfigError("table.match_target", "must be a positive number of points")
    deals = _get(table, "table.deals", int, 1)
    if deals < 1:
        raise ConfigError("table.deals", "must be at least 1")

    rules_section = _section(data, "rules")
    _only(rules_section, "rules", {"options"})
    options = dict(_section(rules_section, "rules.options"))

    seats_data = data.get("seats", [])
    if not isinstance(seats_data, list):
        raise ConfigError("seats", "expected an array of tables ([[seats]])")
    if seats_data and len(seats_data) != n:
        raise ConfigError("seats", f"{len(seats_data)} seats configured for {n} players")
    seats: list[SeatConfig] = []
    for i, s in enumerate(seats_data):
        where = f"seats[{i}]"
        if not isinstance(s, dict):
            raise ConfigError(where, "expected a table with name, button, led")
        _only(s, where, {"name", "button", "led"})
        name = _get(s, f"{where}.name", str, f"seat {i}")
        if not name.strip():
            raise ConfigError(f"{where}.name", "must not be empty")
        button = _pin(s, f"{where}.button")
        led = _get(s, f"{where}.led", int, None)
        if led is not None and led not in LED_INDEXES:
            raise ConfigError(
                f"{where}.led", f"an LED index from {LED_INDEXES[0]} to {LED_INDEXES[-1]} (the dealer's), not {led}"
            )
        seats.append(SeatConfig(name, button, led))

    cam = _section(data, "camera")
    _only(cam, "camera", {"spec", "mat", "layout", "fps", "learned", "deck"})
    fps = _get(cam, "camera.fps", (int, float), 15.0)
    if not 0 < fps <= 120:
        raise ConfigError("camera.fps", f"frames per second between 0 and 120, not {fps}")
    spec = _get(cam, "camera.spec", str, "sim:")
    if not spec:
        raise ConfigError("camera.spec", "must not be empty")
    scheme, sep, _ = spec.partition(":")
    if sep and len(scheme) > 1 and scheme.lower() not in CAMERA_SCHEMES:
        raise ConfigError(
            "camera.spec",
            f"unknown camera {spec!r}; expected one of "
            + ", ".join(f"{s}:" for s in CAMERA_SCHEMES)
            + " or a video file or image folder",
        )
    camera = CameraConfig(
        spec,
        _get(cam, "camera.mat", bool, True),
        _get(cam, "camera.layout", str, None),
        float(fps),
        _get(cam, "camera.learned", bool, True),
        _deck_name(_get(cam, "camera.deck", str, None)),
    )

    dev = _section(data, "dealer")
    _only(dev, "dealer", {"port", "card_reader"})
    port = _get(dev, "dealer.port", str, None)
    dealer = DealerConfig(port or None, _get(dev, "dealer.card_reader", bool, False))

    gp = _section(data, "gpio")
    _only(gp, "gpio", {"pin_factory", "status_led", "buzzer", "hold_ms"})
    factory = _get(gp, "gpio.pin_factory", str, "default")
    if factory not in ("default", "mock"):
        raise ConfigError("gpio.pin_factory", f"'default' or 'mock', not {factory!r}")
    hold_ms = _get(gp, "gpio.hold_ms", int, 800)
    if not 100 <= hold_ms <= 10_000:
        raise ConfigError("gpio.hold_ms", f"between 100 and 10000 ms, not {hold_ms}")
    gpio = GpioConfig(factory, _pin(gp, "gpio.status_led"), _pin(gp, "gpio.buzzer"), hold_ms)
    used: dict[int, str] = {}
    for key, pin in [(f"seats[{i}].button", s.button) for i, s in enumerate(seats)] + [
        ("gpio.status_led", gpio.status_led),
        ("gpio.buzzer", gpio.buzzer),
    ]:
        if pin is None:
            continue
        if pin in used:
            raise ConfigError(key, f"pin {pin} is already used by {used[pin]}")
        used[pin] = key
    led_indexes = [s.led for s in seats if s.led is not None]
    if len(set(led_indexes)) != len(led_indexes):
        raise ConfigError("seats", "two seats share one LED index")

    led_data = _section(data, "leds")
    _only(led_data, "leds", set(LED_ROLES))
    leds = dict(DEFAULT_LEDS)
    for role, value in led_data.items():
        if not isinstance(value, str) or not _COLOUR.match(value):
            raise ConfigError(f"leds.{role}", f"a colour written #rrggbb, not {value!r}")
        leds[role] = value.lower()

    web_section = _section(data, "web")
    _only(web_section, "web", {"token"})
    token = _get(web_section, "web.token", str, None)
    if token is not None and not _TOKEN.match(token):
        raise ConfigError("web.token", "16 to 128 characters of letters, digits and - _ . ~")

    return TableConfig(
        game=game,
        rules=rules,
        players=n,
        first_dealer=first_dealer,
        options=options,
        seats=tuple(seats),
        camera=camera,
        dealer=dealer,
        gpio=gpio,
        leds=leds,
        journal=journal,
        match_target=match_target,
        deals=deals,
        web=WebConfig(token),
    )


def _deck_name(name: str | None) -> str | None:
    """``camera.deck``: a name a deck can have (``vision.deck_profile.NAME``; whether it is enrolled is checked when
    the table starts)."""
    if name is not None and not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", name):
        raise ConfigError(
            "camera.deck", f"a deck name is 1-64 letters, digits, '.', '_' or '-' (cardtable deck list), not {name!r}"
        )
    return name


def _only(section: Mapping[str, Any], where: str, allowed: set[str]) -> None:
    for key in section:
        if key not in allowed:
            full = f"{where}.{key}" if where else key
            raise ConfigError(full, f"unknown key; expected one of {', '.join(sorted(allowed))}")


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key.rsplit(".", 1)[-1], {})
    if not isinstance(value, dict):
        raise ConfigError(key, "expected a table")
    return value


def _get(section: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    name = key.rsplit(".", 1)[-1]
    if name not in section:
        return default
    value = section[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    else:
        ok = isinstance(value, kinds)
    if not ok:
        names = " or ".join(k.__name__ for k in kinds)
        raise ConfigError(key, f"expected {names}, got {value!r}")
    return value


def _pin(section: Mapping[str, Any], key: str) -> int | None:
    pin = _get(section, key, int, None)
    if pin is None:
        return None
    if pin not in GPIO_PINS:
        raise ConfigError(key, f"a BCM GPIO pin 0 to 27, not {pin}")
    if pin in RESERVED_PINS:
        raise ConfigError(key, f"pin {pin} is {RESERVED_PINS[pin]} on a Raspberry Pi; choose another pin")
    return pin  # type: ignore[no-any-return]


def check_rules(cfg: TableConfig, *, card_reader: bool | None = None, dealer_machine: bool | None = None) -> None:
    """Ask the game's own referee whether it takes the rule set, its options and the player count;
    a problem is a :class:`ConfigError` naming the whole key (``rules.options.capture_compulsory``,
    ``table.players``)."""
    from table.controller.registry import referee_module

    try:
        referee_module(cfg.game).make_referee(
            rules=cfg.rules,
            players=cfg.players,
            dealer=cfg.first_dealer,
            options=dict(cfg.options),
            card_reader=cfg.dealer.card_reader if card_reader is None else card_reader,
            dealer_machine=(cfg.dealer.port is not None) if dealer_machine is None else dealer_machine,
        )
    except ConfigError as exc:
        raise ConfigError(_full_key(cfg, exc.key), exc.reason) from None
    except (ValueError, TypeError) as exc:  # a value of a type the rule set cannot take
        raise ConfigError("rules.options", str(exc)) from None


def _full_key(cfg: TableConfig, key: str) -> str:
    head = key.split(".", 1)[0].split("[", 1)[0]
    if head in cfg.options:
        return f"rules.options.{key}"
    if key in ("players", "rules", "first_dealer"):
        return f"table.{key}"
    return key


def check_gpio(cfg: TableConfig) -> None:
    """With the Pi's own pins (``gpio.pin_factory = "default"``) and a pin configured, make sure this
    machine has GPIO at all, so a table started off a Pi says how to run without it."""
    used = [(f"seats[{i}].button", s.button) for i, s in enumerate(cfg.seats)]
    used += [("gpio.status_led", cfg.gpio.status_led), ("gpio.buzzer", cfg.gpio.buzzer)]
    first = next((key for key, pin in used if pin is not None), None)
    if first is None or cfg.gpio.pin_factory == "mock":
        return
    import warnings

    from gpiozero import Device
    from gpiozero.exc import GPIOZeroError

    try:
        with warnings.catch_warnings():  # gpiozero warns once per library it tries
            warnings.simplefilter("ignore")
            Device.ensure_pin_factory()
    except (GPIOZeroError, OSError) as exc:
        raise ConfigError(
            first,
            f"this machine has no GPIO pins for it ({exc}); to play without buttons, leave out the seats' "
            'button keys (the terminal takes confirm, undo, dispute), or try them with [gpio] pin_factory = "mock"',
        ) from None
