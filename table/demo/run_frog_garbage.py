"""``cardtable demo frog`` / ``cardtable demo garbage``: bots at a simulated table, refereed by the
real controller.

The controller is the product's: the game's referee behind :class:`~table.controller.core.GameSession`
(every input journalled in SQLite before it is judged), the :class:`~table.controller.loop.TableLoop`
with its dealer and LED workers, gpiozero seat buttons on mock pins. The dealer machine is one the world
cranks (:class:`~table.demo.frog_garbage_base.GatedDealer`). The table is seen either through the real
camera pipeline (``senses="vision"``, :mod:`table.demo.vision_frog_garbage`: the command's default for
both games) or by a perfect camera (``senses="direct"``, :class:`~table.demo.frog_garbage_base.DirectScene`:
``--direct``, kill-and-restart runs and the fast tests). The world (:mod:`table.demo.frog_world`,
:mod:`table.demo.garbage_world`) keeps the truth; at the end the refereed result is compared with it
and every flag is paired with the cheat it caught.

Killed and run again: the controller's journal and the world's log (``<journal>.world-<game>.jsonl``,
each physical action the world performs written and fsynced before it happens: a card placed or taken,
a card the dealer machine deals, a press, a terminal entry) survive a ``kill -9`` of the process. The
same command (without ``--seed`` it finds the open game of that game, rules and players; ``--new``
abandons it) opens the journal and replays it into a fresh referee; the world is rebuilt from the seed,
its script re-run against the log (:meth:`~table.demo.frog_garbage_base.ScriptWorld.fast_forward`:
waits pass at once, the table changes unseen, the machine deals the logged cards); the controller
re-reads the table (direct senses report every card; a new camera pipeline reports what it sees) and
settles the dealer commands left in flight: a card the machine dealt whose answer was lost is counted
dealt from the hopper's count, not dealt again. A bot input the journal never got (the process died
between the log and the button) is dropped from the log and made again. ``CARDTABLE_DEMO_SIGKILL_AT=N``
makes the process SIGKILL itself once the log holds N entries (tests and benchmarks).

In-process kill and restart (``kill_at``, tests and benchmarks): at those world steps the controller is
torn down at once (its loop abandoned, the journal closed), the table stays as it is, and a new
controller (with a new camera pipeline under ``senses="vision"``) opens the same journal, replays it,
re-reads the table and re-sends the dealer commands left unanswered, exactly as ``cardtable play`` does
after a restart.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.config import DEFAULT_LEDS
from table.controller.core import GameSession
from table.controller.loop import TableLoop
from table.controller.referee import Action, Input
from table.controller.referee_base import prompt_yes_cards
from table.demo.frog_garbage_base import (
    INPUT_ENTRIES,
    Cheat,
    DealerLife,
    DirectScene,
    GatedDealer,
    RecordedScene,
    ReplayDiverged,
    ScriptWorld,
    WorldRecord,
)
from table.demo.runner import WorldLog
from table.errors import ConfigError, TableError
from table.journal import Journal

GAMES = ("frog", "garbage")
KILL_ENV = "CARDTABLE_DEMO_SIGKILL_AT"
DEFAULT_RULES = {"frog": "foster-1909", "garbage": "standard"}
BUTTON_PIN_BASE = 5
HOLD_S = 0.25  # a long press; short presses are held 30 ms, far from it even on a loaded machine
GAP_S = 0.04  # between presses, past the bridge's debounce


@dataclass
class FrogGarbageDemo:
    game: str
    rules: str | None = None
    players: int = 3
    seed: int = 0
    cheat: float = 0.0
    deals: int | None = None  # Frog: deals in the session (default one per player)
    card_reader: bool = True
    journal: Path = Path("cardtable-demo.db")
    timeout: float = 300.0
    kill_at: tuple[int, ...] = ()  # world steps at which the controller is torn down and rebuilt in-process
    senses: str = "direct"  # or "vision": SimTable frames through the real camera pipeline
    verbose: bool = False
    new: bool = False  # start a new game even when one with this key is open (else it is resumed)
    host_answers: bool = False  # the players leave the referee's questions to the host (the table page)

    @property
    def rule_name(self) -> str:
        return self.rules or DEFAULT_RULES[self.game]

    @property
    def key(self) -> str:
        return (
            f"demo:{self.game}:{self.rule_name}:{self.players}:{self.seed}:{self.cheat:g}:"
            f"{int(self.card_reader)}:{self.deals}"
        )

    @property
    def options(self) -> dict[str, Any]:
        return {"deals": self.deals} if self.game == "frog" and self.deals else {}


@dataclass
class DemoOutcome:
    game_id: int
    refereed: dict[str, Any] | None
    truth: dict[str, Any] | None
    agree: bool
    flags: list[dict[str, Any]]
    cheats: list[dict[str, Any]]
    restarts: int
    seconds: float
    error: str | None = None
    messages: list[str] = field(default_factory=list)
    resumed: bool = False  # this run resumed a game a killed process left open
    answers: int = 0  # presses answering the referee's questions about a card (this run)

    @property
    def missed(self) -> list[dict[str, Any]]:
        return [c for c in self.cheats if not c["flagged"]]

    @property
    def invented(self) -> list[dict[str, Any]]:
        return [f for f in self.flags if not f["matched"]]

    def to_json(self) -> dict[str, Any]:
        return {
            "refereed": self.refereed,
            "truth": self.truth,
            "agree": self.agree,
            "flags": self.flags,
            "cheats": self.cheats,
            "missed": len(self.missed),
            "invented": len(self.invented),
            "restarts": self.restarts,
            "resumed": self.resumed,
            "answers": self.answers,
            "seconds": round(self.seconds, 2),
            "error": self.error,
        }


class Fingers:
    """The bots' fingers on the mock pins of the seat buttons (press and release, in the world's thread)."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory

    def press(self, seat: int, long: bool) -> None:
        pin = self.factory.pin(BUTTON_PIN_BASE + seat)
        time.sleep(GAP_S)
        pin.drive_low()
        time.sleep(HOLD_S + 0.1 if long else 0.03)
        pin.drive_high()


class Controller:
    """One life of the controller: journal, session, loop and buttons (rebuilt after a kill)."""

    def __init__(self, cfg: FrogGarbageDemo, dealer: GatedDealer, factory: Any, *, new: bool) -> None:
        from table.controller.adapters import SeatButtons

        self.journal = Journal(cfg.journal)
        if new:
            stale = self.journal.open_game(cfg.key)
            if stale is not None:
                self.journal.finish_game(stale.id, {"abandoned": True}, status="abandoned")
        self.session, self.first = GameSession.open(
            self.journal,
            key=cfg.key,
            game=cfg.game,
            rules=cfg.rule_name,
            players=cfg.players,
            options=cfg.options,
            card_reader=cfg.card_reader,
            dealer_machine=True,
            meta={"demo": True, "seed": cfg.seed, "cheat": cfg.cheat},
        )
        self.life = DealerLife(dealer)
        self.loop = TableLoop(self.session, dealer=self.life, led_colours={k: _rgb(v) for k, v in DEFAULT_LEDS.items()})
        self.presses = 0  # button inputs posted (a bot waits for its press to arrive before the next)
        self.buttons = SeatButtons(
            {s: BUTTON_PIN_BASE + s for s in range(cfg.players)},
            self._button,
            hold_s=HOLD_S,
            debounce_s=0.01,
            pin_factory=factory,
        )

    def _button(self, inp: Input) -> None:
        self.loop.post(inp)
        self.presses += 1

    @property
    def referee(self) -> Any:
        return self.session.referee

    def judged(self) -> bool:
        """Every input posted so far has been judged (dealer commands may still be waiting)."""
        return self.loop.inputs.empty() and getattr(self.loop, "_judging", 0) == 0

    def die(self, dealer: GatedDealer) -> None:
        self.life.alive = False
        self.buttons.close()
        dealer.cancel_all()
        self.loop.stop()
        self.journal.close()


def _rgb(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def run(
    cfg: FrogGarbageDemo,
    *,
    on_actions: Callable[[Input | None, list[Action]], None] | None = None,
    page: Any = None,
) -> DemoOutcome:
    """``page``: a :class:`table.web.table_page.TablePage` to show the game on (``--web``)."""
    from gpiozero.pins.mock import MockFactory

    t0 = time.monotonic()
    if cfg.game not in GAMES:
        raise ConfigError("game", f"this demo runs {', '.join(GAMES)}, not {cfg.game!r}")
    cfg.journal.parent.mkdir(parents=True, exist_ok=True)
    factory = MockFactory()
    dealer = GatedDealer(card_reader=cfg.card_reader)
    ctl = Controller(cfg, dealer, factory, new=cfg.new)
    resumed = ctl.session.resumed
    wlog = WorldLog(world_log_path(cfg.journal, ctl.session.game_id), keep=resumed)
    replay: list[dict[str, Any]] = []
    if resumed:
        heard = _inputs_heard(ctl.journal, ctl.session.game_id)
        if heard and not wlog.entries:
            wlog.close()
            ctl.die(dealer)
            raise ConfigError(
                "journal",
                f"game {ctl.session.game_id} is open but the world's log "
                f"{wlog.path} is gone, so the table cannot be rebuilt; run with --new",
            )
        kept = kept_entries(wlog.entries, heard)
        if len(kept) < len(wlog.entries):  # inputs lost with the process: out of the log, made again live
            wlog.close()
            _rewrite(wlog.path, kept)
            wlog = WorldLog(wlog.path, keep=True)
        replay = [e for e in kept if "prompt" not in e]  # answers to prompts are not the script's
    record = WorldRecord(_crash_test(wlog), replay)
    dealer.record = record
    fingers = Fingers(factory)
    holder = {"ctl": ctl}
    paused = threading.Event()

    def post(inp: Input) -> None:
        holder["ctl"].loop.post(inp)

    camera: Any = None
    scene: Any
    if cfg.senses == "vision":
        from table.demo.vision_frog_garbage import CameraSenses

        camera = CameraSenses(cfg.game, cfg.players, cfg.seed, post)
        scene = camera.scene
        if page is not None:
            camera.on_frame = page.camera(camera.watcher)
    else:
        scene = DirectScene(post)

    def idle() -> bool:
        return not paused.is_set() and holder["ctl"].judged() and (camera is None or camera.idle())

    def leds() -> dict[int, str]:
        return dict(holder["ctl"].loop.leds)

    def press(seat: int, long: bool) -> None:
        """Press and release, then wait until gpiozero's callback has posted it (presses of one
        seat in quick succession must not overlap)."""
        before = holder["ctl"].presses
        fingers.press(seat, long)
        until = time.monotonic() + 2
        while holder["ctl"].presses == before and time.monotonic() < until:
            time.sleep(0.001)

    world = _make_world(cfg, ctl, RecordedScene(scene, record), dealer, leds, idle, press, post)
    world.record = record
    if resumed:
        # the table as the killed process left it: the script re-run from the seed, the log standing in
        # for the controller; then the controller re-reads it (below) before anyone moves
        try:
            world.fast_forward()
        except ReplayDiverged as exc:
            wlog.close()
            ctl.die(dealer)
            raise ConfigError(
                "journal", f"the world's log {wlog.path} does not replay from seed {cfg.seed}: {exc}; run with --new"
            ) from exc
    if on_actions is not None:
        ctl.loop.listeners.append(on_actions)
    if page is not None:
        page.attach(ctl.session, ctl.loop)
    stop = threading.Event()

    resting = threading.Event()  # the world's thread has seen the pause

    def tick() -> None:
        while not stop.is_set():
            if paused.is_set():
                resting.set()
                time.sleep(0.002)
                continue
            resting.clear()
            world.tick()
            if world.finished:
                return
            time.sleep(0.0003)

    answered: list[Any] = [None]
    answers = [0]

    def answer_prompt() -> None:
        """People confirm (short press) the card the referee names when it is the card just laid where
        the referee asks about, and say no (hold) otherwise (``confirms``)."""
        prompt = holder["ctl"].referee.prompt
        if cfg.host_answers or prompt is None or prompt is answered[0] or not idle():
            return
        answered[0] = prompt
        long = not confirms(scene, prompt)
        answers[0] += 1
        record.write({"prompt": [int(prompt["seat"]), long]})  # counted, not replayed: a lost answer is asked again
        press(int(prompt["seat"]), long)

    def camera_tick() -> None:
        answer_prompt()
        world.tick()

    ctl.loop.start(ctl.first)
    if camera is not None:
        thread = threading.Thread(
            target=camera.run, args=(camera_tick, stop, paused, resting), name="camera", daemon=True
        )
    else:
        thread = threading.Thread(target=tick, name="world", daemon=True)
    if resumed:
        paused.set()  # the camera looks, nobody moves until the controller has re-read the table
    thread.start()
    kills = sorted(cfg.kill_at)
    restarts = 0
    deadline = time.monotonic() + cfg.timeout
    error = None
    try:
        if resumed:
            _resync(ctl, scene, camera)
            paused.clear()
        while time.monotonic() < deadline:
            c = holder["ctl"]
            if kills and world.steps_done >= kills[0] and not c.referee.over:
                kills.pop(0)
                paused.set()
                # The players stop while the controller restarts: what they did so far reaches the
                # journal (a press lost in a real restart is simply pressed again).
                drain = time.monotonic() + 5
                while not (resting.is_set() or world.finished) and time.monotonic() < drain:
                    c.loop.step(0.005)
                time.sleep(0.05)  # button callbacks fire on gpiozero's thread
                while not c.judged() and time.monotonic() < drain:
                    c.loop.step(0.01)
                c.die(dealer)  # kill -9: nothing more is judged or written
                if camera is not None:
                    _new_watcher(camera)  # the dead controller's camera pipeline dies with it
                new = Controller(cfg, dealer, factory, new=False)
                if on_actions is not None:
                    new.loop.listeners.append(on_actions)
                if page is not None:
                    page.attach(new.session, new.loop)
                holder["ctl"] = new
                restarts += 1
                new.loop.start(new.first)
                _resync(new, scene, camera)
                paused.clear()
                continue
            if c.referee.over and world.finished and c.judged():
                break
            if (world.finished and world.error) or (camera is not None and camera.error):
                break
            c.loop.step(0.01)
        else:
            error = f"timed out after {cfg.timeout:.0f} s"
    finally:
        stop.set()
        thread.join(timeout=5)
        holder["ctl"].buttons.close()
        dealer.cancel_all()
        holder["ctl"].loop.stop()
        wlog.close()
    c = holder["ctl"]
    referee = c.referee
    refereed = referee.result()
    truth = world.truth_result() if world.finished and not world.error else None
    comparable = _comparable(cfg.game)
    flags = match_flags(list(referee.flags.values()), world.cheats)
    outcome = DemoOutcome(
        c.session.game_id,
        refereed,
        truth,
        refereed is not None and truth is not None and comparable(refereed) == comparable(truth),
        flags,
        [ch.to_json() for ch in world.cheats],
        restarts,
        time.monotonic() - t0,
        error or world.error or (camera.error if camera is not None else None),
        list(referee.messages),
        resumed,
        answers[0],
    )
    c.journal.close()
    return outcome


def _crash_test(wlog: WorldLog) -> Callable[[dict[str, Any]], None]:
    """``wlog.append``; with ``CARDTABLE_DEMO_SIGKILL_AT=N`` in the environment (tests, benchmarks)
    the process SIGKILLs itself once the log holds N entries: the world has logged an action it has
    not done yet, exactly the moment between the log and the table."""
    at = int(os.environ.get(KILL_ENV, "0") or 0)
    count = [len(wlog.entries)]

    def write(entry: dict[str, Any]) -> None:
        wlog.append(entry)
        count[0] += 1
        if at and count[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)

    return write


def world_log_path(journal: Path, game_id: int) -> Path:
    """The world's log next to the journal, as the Chinese Ten demo keeps it."""
    return Path(f"{journal}.world-{game_id}.jsonl")


def _inputs_heard(journal: Journal, game_id: int) -> int:
    """The bots' inputs the journal holds (seat buttons, terminal entries)."""
    return sum(1 for e in journal.entries(game_id, kinds=("input",)) if e.body.get("src") in ("button", "terminal"))


def kept_entries(log: list[dict[str, Any]], heard: int) -> list[dict[str, Any]]:
    """What of the world's log really happened. A bot waits until each input of its own was judged
    before it does anything else, so only the last logged inputs can be missing from the journal
    (``heard`` of them reached it): the script's next step is then that lost input, made again
    live. A lost answer to a prompt is dropped too (the prompt is still open and is answered again)."""
    out = []
    inputs = 0
    for entry in log:
        if any(k in entry for k in INPUT_ENTRIES):
            inputs += 1
            if inputs > heard:
                if "prompt" in entry:
                    continue
                break
        out.append(entry)
    return out


def _rewrite(path: Path, entries: list[dict[str, Any]]) -> None:
    """Replace the world's log with ``entries`` (a new file renamed over the old: never half of one)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(e) + "\n" for e in entries)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _new_watcher(camera: Any) -> None:
    """A restarted controller's camera pipeline: a new watcher (no calibration, no tracks), the
    recogniser's model kept. The camera's thread takes it from its next frame on."""
    from vision.watcher import TableWatcher

    old = camera.watcher
    camera.watcher = TableWatcher(old.layout, old.recognizer)


def confirms(scene: Any, prompt: dict[str, Any]) -> bool:
    """Whether a player looking at the table confirms the referee's "is the card just placed X?" (or "is
    it a heart?"): the card laid last in the zone the question is about is one of the prompt's yes cards
    (any of them on the mat when the prompt names no zone)."""
    zone = (prompt.get("input") or {}).get("zone")
    yes = prompt_yes_cards(prompt)
    return bool(scene.newest_in(str(zone)) in yes) if zone else any(scene.on_mat(card) for card in yes)


def _resync(ctl: Controller, scene: Any, camera: Any) -> None:
    """A (re)started controller compares the table with its journal: direct senses report every
    card on the mat at once; a camera's new pipeline reports what it sees once its view settles.
    Then the dealer commands left in flight are settled."""
    if camera is None:
        shown = [False]

        def settled() -> bool:
            if not shown[0]:
                shown[0] = True
                scene.show_all(ctl.loop.post)
            return True
    else:
        first = camera.frames

        def settled() -> bool:
            # The new pipeline must have calibrated and looked long enough to confirm every card: a
            # resync that ended on a quiet but still uncalibrated view took the whole table for new
            # cards (a Garbage hand's cards flagged as slipped in). A view that never settles (a card
            # left unreadable) ends the re-read after 200 frames.
            tracker = camera.watcher.tracker
            looked = tracker.frames_seen >= 8 and tracker.settled
            return bool(camera.frames >= first + 8 and camera.idle() and (looked or camera.frames >= first + 200))

    ctl.loop.resync(settled, timeout=60)


def _comparable(game: str) -> Callable[[dict[str, Any] | None], Any]:
    if game == "frog":
        from table.demo.frog_world import comparable as frog_comparable

        return frog_comparable
    from table.demo.garbage_world import comparable as garbage_comparable

    return garbage_comparable


def _make_world(
    cfg: FrogGarbageDemo,
    ctl: Controller,
    scene: Any,
    dealer: GatedDealer,
    leds: Callable[[], dict[int, str]],
    idle: Callable[[], bool],
    press: Callable[[int, bool], None],
    terminal: Callable[[Input], None],
) -> ScriptWorld:
    referee = ctl.referee
    if cfg.game == "frog":
        from table.demo.frog_world import FrogWorld

        return FrogWorld(
            referee.rules,
            players=cfg.players,
            seed=cfg.seed,
            cheat=cfg.cheat,
            deals=referee.deals_to_play,
            card_reader=cfg.card_reader,
            scene=scene,
            dealer=dealer,
            leds=leds,
            idle=idle,
            press=press,
            terminal=terminal,
        )
    from table.demo.garbage_world import GarbageWorld

    return GarbageWorld(
        referee.rules,
        players=cfg.players,
        seed=cfg.seed,
        cheat=cfg.cheat,
        scene=scene,
        dealer=dealer,
        leds=leds,
        idle=idle,
        press=press,
        terminal=terminal,
    )


def match_flags(flags: list[Any], cheats: list[Cheat]) -> list[dict[str, Any]]:
    """Pair each flag with the cheat it caught: same seat and rule, a card in common (or none named)."""
    out = []
    open_cheats = list(cheats)
    for flag in flags:
        matched = None
        for cheat in open_cheats:
            cards_agree = bool(set(cheat.cards) & set(flag.cards)) or not (cheat.cards or flag.cards)
            if cheat.seat == flag.seat and cheat.rule == flag.rule and cards_agree:
                matched = cheat
                break
        if matched is not None:
            matched.flagged = True
            open_cheats.remove(matched)
        out.append(
            {
                "id": flag.id,
                "seat": flag.seat,
                "rule": flag.rule,
                "cards": list(flag.cards),
                "message": flag.message,
                "state": flag.state,
                "matched": matched is not None,
            }
        )
    return out


# -- command line -----------------------------------------------------------------------------------


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--players", type=int, default=3, help="Frog 3-7 (by rule set), Garbage 3-8 (default 3)")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="shuffle seed (default: resume the open demo game of this game, rules and players, or a new seed)",
    )
    parser.add_argument("--new", action="store_true", help="start a new game even if this one is open")
    parser.add_argument(
        "--rules",
        default=None,
        help="Frog: foster-1909 (default), modern, solo-slough, "
        "straight-solo, coeur-d-alene; Garbage: standard (default), stud, buy, ...",
    )
    parser.add_argument("--deals", type=int, default=None, help="Frog: deals in the session (default one per player)")
    parser.add_argument("--fast", action="store_true", help="no live view pauses")
    parser.add_argument("--cheat", type=float, default=0.0, metavar="P", help="bots break a rule with probability P")
    parser.add_argument("--no-card-reader", action="store_true", help="the dealer machine does not read cards")
    parser.add_argument(
        "--vision", action="store_true", help="the simulated table through the real camera pipeline (the default)"
    )
    parser.add_argument(
        "--direct", action="store_true", help="perfect in-process senses instead of the camera pipeline"
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="give up after this many seconds")
    parser.add_argument("--journal", type=Path, default=Path("cardtable-demo.db"), help="SQLite journal")
    parser.add_argument(
        "--json", action="store_true", help='print {"refereed": ..., "truth": ..., "agree": ..., "flags": [...]}'
    )


def resume_seed(args: argparse.Namespace) -> int | None:
    """The seed of the newest open demo game of this game, rule set and player count (a killed run
    to resume), as ``cardtable demo`` finds Chinese Ten's."""
    from table.cli_demo import _resume_seed

    rules = args.rules or DEFAULT_RULES[args.game]
    return _resume_seed(Path(args.journal), f"demo:{args.game}:{rules}:{args.players}:")


def run_cli(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None or getattr(args, "new", False) else resume_seed(args)
    seed = seed if seed is not None else int(time.time()) % 100_000
    # both games are watched through the real camera pipeline unless --direct asks for perfect senses
    senses = "direct" if getattr(args, "direct", False) else "vision"
    cfg = FrogGarbageDemo(
        args.game,
        rules=args.rules,
        players=args.players,
        seed=seed,
        cheat=args.cheat,
        deals=getattr(args, "deals", None),
        card_reader=not getattr(args, "no_card_reader", False),
        journal=args.journal,
        senses=senses,
        timeout=float(getattr(args, "timeout", 900.0)),
        new=bool(getattr(args, "new", False)),
        host_answers=bool(getattr(args, "host_answers", False)),
    )
    quiet = bool(args.json)

    def show(inp: Input | None, actions: list[Action]) -> None:
        for a in actions:
            if a["do"] in ("say", "move"):
                print(f"  {a['text']}", flush=True)
            elif a["do"] == "flag":
                print(f"  FLAG seat {a['seat']} {a['rule']}: {a['message']}", flush=True)
            elif a["do"] == "clear":
                print(f"  cleared: seat {a['seat']} {a['rule']} ({a['how']})", flush=True)

    try:
        outcome = run(cfg, on_actions=None if quiet else show, page=getattr(args, "page", None))
    except (ConfigError, TableError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(outcome.to_json()))
        return 0 if outcome.agree and not outcome.error else 1
    print()
    if outcome.refereed:
        unit = "chips" if cfg.game == "frog" else "coins"
        for s in outcome.refereed["seats"]:
            value = s["chips"] if cfg.game == "frog" else s["coins"]
            print(f"seat {s['seat']}: {value:+d} {unit}" if cfg.game == "frog" else f"seat {s['seat']}: {value} {unit}")
    print(
        f"flags: {len(outcome.flags)} ({len(outcome.invented)} not matching a cheat); cheats: "
        f"{len(outcome.cheats)} ({len(outcome.missed)} missed)"
    )
    print(
        "refereed result equals the simulation's truth"
        if outcome.agree
        else f"refereed result DIFFERS from the truth{': ' + outcome.error if outcome.error else ''}"
    )
    return 0 if outcome.agree else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardtable demo")
    configure(parser)
    return run_cli(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
