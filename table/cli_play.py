"""``cardtable play chinese-ten --players N [--config table.toml]``: referee a real table.

The camera (``camera.spec``: the Pi camera, a USB camera, a file, or ``sim:`` to try it out) goes
through the recogniser and tracker; the dealer machine (``dealer.port``) shuffles, deals and flips,
or the players deal by hand and the camera checks the layout; the seat buttons (``seats[i].button``)
confirm, undo and dispute. The terminal takes the same commands, one a line::

    confirm [SEAT] [why]    press a seat's button (answers "is it 7H?", confirms a hand deal)
    reject [SEAT] [why]     say no to "is it 7H?"
    correct CARD [why]      the card in question is CARD
    undo [SEAT] [why]       take back the last move
    dispute [SEAT] [why]    override the seat's open flag
    quit                    stop; the same command later resumes the game

``--web [HOST:]PORT`` serves the table page beside the game (docs/web.md): the camera's view, the game as the
referee knows it, flags, questions and moves; the host's page (its URL carries the token, printed at start and
drawn as a QR code) answers with a tap, which becomes the same input as the terminal's command.

Every input is journalled before it is acted on; killed and started again with the same command,
the game continues where it was. The command is the journal's one controller while it runs.

Exit codes: 0 the game finished (or quit); 1 the table stopped on an error; 2 bad configuration, or
the journal is not a journal; 3 the journal is damaged or shorter than its seal records (refused,
nothing written: ``docs/journal.md``); 4 another controller holds the journal.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from table.config import TableConfig, check_gpio, check_rules, load_config, parse_config
from table.errors import ConfigError, TableError
from table.journal import JournalError, claim, default_path

COMMANDS = ("confirm", "reject", "correct", "undo", "dispute", "quit")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=["chinese-ten", "frog", "garbage"], help="the game at the table")
    parser.add_argument(
        "--players", type=int, default=None, help="Chinese Ten 2-4, Frog 3-7, Garbage 3-8 (default: table.toml, else 3)"
    )
    parser.add_argument("--config", type=Path, default=None, help="table.toml (see docs/table.toml.example)")
    parser.add_argument(
        "--journal", type=Path, default=None, help=f"SQLite journal (default: table.toml or {default_path()})"
    )
    parser.add_argument(
        "--deck", default=None, metavar="NAME", help="read the cards against this enrolled deck (default: table.toml)"
    )
    from vision.cli_deck import add_decks_dir_argument  # numpy and the profiles only when the command is built

    add_decks_dir_argument(parser)
    from table.web.address import add_web_argument

    add_web_argument(parser, "the game live, with the host's controls")


def parse_command(line: str, players: int) -> Any:
    """A terminal line as a controller input, or None for an empty line; raises ValueError."""
    from table.cards import Card
    from table.controller.referee import Input

    words = line.split()
    if not words:
        return None
    cmd = words[0].lower()
    if cmd not in COMMANDS:
        raise ValueError(f"unknown command {cmd!r}; one of {', '.join(COMMANDS)}")
    if cmd == "quit":
        return "quit"
    rest = words[1:]
    seat = None
    card = None
    if cmd == "correct":
        if not rest:
            raise ValueError("correct needs the card, e.g. 'correct 7H'")
        card = str(Card.parse(rest.pop(0)))
    elif rest and rest[0].isdigit():
        seat = int(rest.pop(0))
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat}: seats are 0 to {players - 1}")
    return Input("terminal", cmd, card=card, seat=seat, text=" ".join(rest))


def run(args: argparse.Namespace) -> int:
    try:
        if args.config:
            cfg = load_config(args.config, game=args.game, players=args.players)
        else:
            cfg = parse_config({}, game=args.game, players=args.players)
        check_rules(cfg)  # the game's own referee checks the rule set, its options and the player count
        _check_layout(cfg)
        check_gpio(cfg)
    except (ConfigError, ValueError) as exc:
        print(f"cardtable play: configuration: {exc}", file=sys.stderr)
        return 2
    try:
        profile = _deck_profile(cfg, args)  # an unknown or damaged deck is said before the journal is opened
    except ValueError as exc:
        print(f"cardtable play: {exc}", file=sys.stderr)
        return 2
    journal_path = args.journal or (Path(cfg.journal) if cfg.journal else default_path())
    try:
        lock = claim(journal_path)  # held until the table stops: one controller per journal
    except JournalError as exc:
        print(f"cardtable play: {exc}", file=sys.stderr)
        return exc.exit_code
    with lock:
        try:
            return _play(cfg, args, journal_path, profile)
        except JournalError as exc:
            print(f"cardtable play: {exc}", file=sys.stderr)
            return exc.exit_code
        except (TableError, OSError) as exc:
            print(f"cardtable play: {exc}", file=sys.stderr)
            return 1


def _check_layout(cfg: TableConfig) -> None:
    """A zone layout file given in ``camera.layout`` must load (checked before the journal is opened)."""
    if cfg.camera.layout is None:
        return
    from vision.errors import VisionError
    from vision.zones import load_layout

    try:
        load_layout(cfg.camera.layout)
    except (VisionError, OSError, ValueError) as exc:
        raise ConfigError("camera.layout", f"{cfg.camera.layout}: {exc}") from None


def _deck_profile(cfg: TableConfig, args: argparse.Namespace) -> Any:
    """The enrolled deck the cards are read against (``--deck``, else ``camera.deck``), or None; raises
    ``vision.deck_profile.DeckError`` (a ValueError) for one not enrolled or not readable."""
    deck = getattr(args, "deck", None) or cfg.camera.deck
    if deck is None:
        return None
    from vision.deck_profile import DeckStore

    return DeckStore(getattr(args, "decks_dir", None)).load(deck)


def _play(cfg: TableConfig, args: argparse.Namespace, journal_path: Path, profile: Any = None) -> int:
    from table.config import DEFAULT_LEDS
    from table.controller.adapters import LedDriver, MachineDealer, SeatButtons, input_from_event
    from table.controller.core import GameSession
    from table.controller.loop import TableLoop
    from table.demo.view import TerminalView, score_table
    from table.journal import Journal
    from vision.camera import open_camera
    from vision.recognizer import Recognizer
    from vision.watcher import TableWatcher
    from vision.zones import layout_for, load_layout

    page = None
    if args.web is not None:
        from table.web.table_page import TablePage

        # raises AddressError (a TableError) when it cannot listen, before anything else starts
        page = TablePage.start(
            args.web, players=cfg.players, journal=journal_path, token=cfg.web.token, names=cfg.seat_name
        )
    journal = Journal(journal_path)
    key = f"play:{cfg.game}:{cfg.rules}:{cfg.players}"
    session, first = GameSession.open(
        journal,
        key=key,
        game=cfg.game,
        rules=cfg.rules,
        players=cfg.players,
        dealer=cfg.first_dealer,
        options=dict(cfg.options),
        card_reader=cfg.dealer.card_reader,
        dealer_machine=cfg.dealer.port is not None,
    )
    names = [cfg.seat_name(i) for i in range(cfg.players)]
    print(
        f"cardtable play: game {session.game_id} ({'resumed' if session.resumed else 'new'}), "
        f"{cfg.game} {cfg.rules}, {cfg.players} players; journal {journal_path}",
        flush=True,
    )
    loop = TableLoop(session, view=TerminalView(names=names))
    if page is not None:
        page.attach(session, loop, dealer_machine=cfg.dealer.port is not None)
    device = None
    if cfg.dealer.port:
        from firmware_bridge.dealer import Dealer

        device = Dealer.open(cfg.dealer.port)
        loop.dealer = MachineDealer(device)
        loop.led_driver = LedDriver(device, cfg.players, {role: cfg.led_rgb(role) for role in DEFAULT_LEDS})
    factory: Any = None
    if cfg.gpio.pin_factory == "mock":
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    pins = {i: s.button for i, s in enumerate(cfg.seats) if s.button is not None}
    buttons = SeatButtons(pins, loop.post, hold_s=cfg.gpio.hold_ms / 1000, pin_factory=factory) if pins else None
    layout = load_layout(cfg.camera.layout) if cfg.camera.layout else layout_for(cfg.game, cfg.players)
    camera = open_camera(cfg.camera.spec)
    recognizer = Recognizer(threads=1, learned=cfg.camera.learned)
    if profile is not None:  # a card of another deck is "unknown" to the referee, which asks about it
        from vision.deck_match import DeckReader
        from vision.events import UNKNOWN

        watcher = TableWatcher(layout, DeckReader(recognizer, profile, foreign=UNKNOWN))
    else:
        watcher = TableWatcher(layout, recognizer)
    on_frame = page.camera(watcher) if page is not None else None
    stopping = threading.Event()
    quit_requested = threading.Event()

    def watch() -> None:
        while not stopping.is_set():
            frame = camera.read(timeout=1.0)
            if frame is None:
                continue
            try:
                for event in watcher.process(frame.image, frame_index=frame.index, timestamp=frame.timestamp):
                    loop.post(input_from_event(event))
                if on_frame is not None:
                    on_frame(frame.image, frame.index)
            except Exception as exc:  # one bad frame never stops the table
                print(f"cardtable play: frame {frame.index} skipped: {exc}", file=sys.stderr)

    def terminal() -> None:
        for line in sys.stdin:
            try:
                inp = parse_command(line, cfg.players)
            except ValueError as exc:
                print(f"  ? {exc}", flush=True)
                continue
            if inp == "quit":
                quit_requested.set()
                return
            if inp is not None:
                loop.post(inp)

    camera_thread = threading.Thread(target=watch, name="camera", daemon=True)
    camera_thread.start()
    threading.Thread(target=terminal, name="terminal", daemon=True).start()
    try:
        loop.start(first)
        if session.resumed:
            loop.resync(lambda: watcher.tracker.settled and watcher.stats.frames >= 10)
        loop.run_until(lambda: session.referee.over or quit_requested.is_set())
    finally:
        stopping.set()
        # let the camera thread leave onnxruntime/OpenCV before the interpreter exits: a daemon thread
        # killed inside native code aborts the process ("FATAL: exception not rethrown")
        camera_thread.join(timeout=10)
        loop.stop()
        camera.close()
        if buttons is not None:
            buttons.close()
        if device is not None:
            device.close()
    result = session.referee.result()
    if result:
        print(score_table(result, names))
        print(f"`cardtable export {session.game_id}` writes the game record")
    else:
        print(f"stopped; `cardtable play {cfg.game} --players {cfg.players}` resumes game {session.game_id}")
    journal.close()
    if page is not None:
        page.linger(args.web_linger)
        page.stop()
    return 0
