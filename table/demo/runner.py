"""Run one demo game: the simulated world against the real controller.

Senses (``senses``):

* ``vision`` (the default): the world draws on :class:`vision.simtable.SimTable`; frames go through
  the real :class:`vision.watcher.TableWatcher` (calibration from the mat's markers, hand
  detection, the ONNX recogniser, the tracker) and its table events to the controller. The dealer
  machine is the firmware bridge's simulator on a pseudo-terminal, driven through the real
  :class:`firmware_bridge.dealer.Dealer`. Seat buttons are gpiozero buttons on MockFactory pins.
* ``direct``: the same controller and world, with the camera and dealer replaced by perfect
  in-process stand-ins (:mod:`table.demo.direct`): a quick check of the referee alone.

Kill and restart: the controller's journal and the world's log (``<journal>.world-<game>.jsonl``)
are both written before anything acts on them. The same command finds the open game by its key,
replays the journal into the referee, fast-forwards the world to its logged position, lets the
camera re-read the table and settles the dealer commands left in flight.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.cards import Card
from table.config import DEFAULT_LEDS
from table.controller.core import GameSession
from table.controller.loop import DealerPort, TableLoop, View
from table.controller.referee import OUT_OF_TURN, Action, Input
from table.controller.referee_base import prompt_yes_cards
from table.demo.direct import DirectDealer, DirectScene
from table.demo.world import CHEATS, Observed, World
from table.journal import Journal

BUTTON_PIN_BASE = 5  # seat s's button on BCM pin 5 + s (mock pins)
HOLD_S = 0.3


@dataclass
class DemoConfig:
    game: str = "chinese-ten"
    rules: str = "pagat"
    players: int = 3
    seed: int = 0
    fast: bool = False
    cheat: float = 0.0
    journal: Path = Path("cardtable-demo.db")
    senses: str = "vision"
    card_reader: bool = True
    record: str | None = None
    timeout: float = 600.0
    sim_speed: float | None = None  # dealer mechanics speed-up (default: 25 with --fast, else 1)
    new: bool = False  # start a new game even when one with this key is open
    dealer: int = 0
    match_id: int | None = None
    number: int = 1  # the deal's number within its match
    doubt: float = 0.0  # the camera doubts a card appearing on the layout with this probability: the referee asks
    host_answers: bool = False  # the players leave the referee's questions to the host (the table page)

    @property
    def key(self) -> str:
        base = (
            f"demo:{self.game}:{self.rules}:{self.players}:{self.seed}:{self.cheat:g}:{self.senses}"
            f":{int(self.card_reader)}"
        )
        return base if self.match_id is None else f"{base}:deal{self.number}"


@dataclass
class DemoResult:
    game_id: int
    refereed: dict[str, Any] | None
    truth: dict[str, Any] | None
    flags: list[dict[str, Any]]
    cheats: list[dict[str, Any]]
    resumed: bool
    seconds: float
    frames: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # why the game did not finish (its time ran out), None when it did

    @property
    def agree(self) -> bool:
        return self.refereed is not None and self.truth is not None and _seats(self.refereed) == _seats(self.truth)

    @property
    def missed(self) -> list[dict[str, Any]]:
        return [c for c in self.cheats if not c["flagged"]]

    @property
    def invented(self) -> list[dict[str, Any]]:
        return [f for f in self.flags if not f["matched"]]

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "refereed": self.refereed,
            "truth": self.truth,
            "agree": self.agree,
            "flags": self.flags,
            "cheats": self.cheats,
            "resumed": self.resumed,
            "seconds": round(self.seconds, 2),
            "frames": self.frames,
            "error": self.error,
        }


def _seats(result: dict[str, Any]) -> list[tuple[int, int, list[str]]]:
    return [(s["seat"], s["points"], sorted(s["captured"])) for s in result.get("seats", [])]


def _rgb(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


class WorldLog:
    """The world's append-only log (JSON Lines, flushed and fsynced per entry)."""

    def __init__(self, path: Path, *, keep: bool) -> None:
        self.path = path
        self.entries: list[dict[str, Any]] = []
        if keep and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    self.entries.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a line cut short by a kill: nothing after it was written
        self._fh = open(path, "a" if keep else "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._lock = threading.Lock()

    def append(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._fh.write(json.dumps(entry) + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


class Presser:
    """The bots' fingers on the mock GPIO pins of the seat buttons."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory
        self._pending = 0
        self._lock = threading.Lock()

    def press(self, seat: int, long: bool) -> None:
        """Press (after a short pause, so two presses in a row are not taken for contact bounce)
        and release after 50 ms, or after the hold time for a long press."""
        pin = self.factory.pin(BUTTON_PIN_BASE + seat)
        with self._lock:
            self._pending += 1

        def release() -> None:
            pin.drive_high()
            with self._lock:
                self._pending -= 1

        def push() -> None:
            pin.drive_low()
            threading.Timer(HOLD_S + 0.15 if long else 0.05, release).start()

        threading.Timer(0.1, push).start()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._pending > 0


def run_demo(
    cfg: DemoConfig,
    *,
    view: View | None = None,
    on_start: Callable[[GameSession], None] | None = None,
    page: Any = None,
) -> DemoResult:
    """``page``: a :class:`table.web.table_page.TablePage` to show the game on (``--web``)."""
    from gpiozero.pins.mock import MockFactory

    from table.controller.adapters import SeatButtons
    from table.controller.referee_chinese_ten import ChineseTenReferee

    t0 = time.monotonic()
    cfg.journal.parent.mkdir(parents=True, exist_ok=True)
    journal = Journal(cfg.journal)
    if cfg.new:
        open_game = journal.open_game(cfg.key)
        if open_game is not None:
            journal.finish_game(open_game.id, {"abandoned": True}, status="abandoned")
    session, first = GameSession.open(
        journal,
        key=cfg.key,
        game=cfg.game,
        rules=cfg.rules,
        players=cfg.players,
        dealer=cfg.dealer,
        card_reader=cfg.card_reader,
        dealer_machine=True,
        match_id=cfg.match_id,
        number=cfg.number,
        meta={"demo": True, "seed": cfg.seed, "cheat": cfg.cheat},
    )
    if on_start is not None:
        on_start(session)
    referee = session.referee
    assert isinstance(referee, ChineseTenReferee)
    wlog = WorldLog(Path(f"{cfg.journal}.world-{session.game_id}.jsonl"), keep=session.resumed)
    loop = TableLoop(session, view=view)
    if page is not None:
        page.attach(session, loop)
    prompts = [0]

    def count_prompts(inp: Input | None, actions: list[Action]) -> None:
        prompts[0] += sum(1 for a in actions if a["do"] == "prompt")

    loop.listeners.append(count_prompts)
    factory = MockFactory()
    buttons = SeatButtons(
        {s: BUTTON_PIN_BASE + s for s in range(cfg.players)}, loop.post, hold_s=HOLD_S, pin_factory=factory
    )
    presser = Presser(factory)

    def observe() -> Observed:
        prompt = referee.prompt
        return Observed(
            dict(loop.leds),
            None if prompt is None else prompt_yes_cards(prompt),
            None if prompt is None else prompt["seat"],
            prompts[0],
        )

    senses: _Senses
    if cfg.senses == "direct":
        senses = _DirectSenses(cfg, loop)
    else:
        from table.demo.vision_senses import VisionSenses

        senses = VisionSenses(cfg, loop)
        if page is not None:
            senses.on_frame = page.camera(senses.watcher)
    world = World(
        rules=referee.rules,
        players=cfg.players,
        seed=cfg.seed,
        cheat=cfg.cheat,
        dealer=cfg.dealer,
        scene=senses.scene,
        observe=observe,
        idle=lambda: senses.idle() and loop.idle and not presser.busy,
        press=presser.press,
        on_log=wlog.append,
        hopper=senses.hopper,
        cheat_kinds=CHEATS if cfg.card_reader else tuple(c for c in CHEATS if c != OUT_OF_TURN),
    )
    world.answers_prompts = not cfg.host_answers
    senses.attach(world, wlog)
    loop.dealer = senses.dealer
    from firmware_bridge.leds import RecordingLeds
    from table.controller.adapters import LedDriver

    # the seat LEDs are on the dealer machine (the simulator's, over the link); direct: recorded
    loop.led_driver = LedDriver(
        getattr(senses, "device", None) or RecordingLeds(), cfg.players, {k: _rgb(v) for k, v in DEFAULT_LEDS.items()}
    )
    try:
        if session.resumed:
            senses.restore(world, wlog.entries)
        senses.start()
        loop.start(first)
        if session.resumed:
            loop.resync(senses.settled, timeout=60)
            world.hold_live = False
        finished = loop.run_until(lambda: referee.over and world.finished and loop.idle, timeout=cfg.timeout)
        error = None if finished else _stuck(cfg, referee, world, loop)
    finally:
        senses.stop()
        loop.stop()
        buttons.close()
        wlog.close()
    if os.environ.get("CARDTABLE_DEMO_DEBUG"):
        import sys

        print(json.dumps(referee.view(), default=str)[:3000], file=sys.stderr)
        print(
            "world",
            world.steps_done,
            world.finished,
            world.truth is not None and world.truth.phase,
            len(world.dealt_log),
            world.flips,
            loop.dealer_worker.errors,
            loop.leds,
            file=sys.stderr,
        )
        sim = getattr(senses, "sim", None)
        watcher: Any = getattr(senses, "watcher", None)
        if sim is not None and watcher is not None:
            print(
                "sim",
                [(c.card, c.zone, round(c.x), round(c.y)) for c in sim.cards.values() if c.zone == "layout"],
                file=sys.stderr,
            )
            print(
                "tracks",
                [(t.label, t.zone, round(t.x), round(t.y), t.misses, t.fresh) for t in watcher.tracker.tracks.values()],
                file=sys.stderr,
            )
    refereed = referee.result()
    truth = world.truth_result()
    flags = _match_flags(referee, world)
    result = DemoResult(
        session.game_id,
        refereed,
        truth,
        flags,
        [c.to_json() for c in world.cheats],
        session.resumed,
        time.monotonic() - t0,
        senses.frames,
        senses.stats(),
        error,
    )
    journal.close()
    return result


def _stuck(cfg: DemoConfig, referee: Any, world: World, loop: TableLoop) -> str:
    """Why a demo game did not finish in time: what the referee and the table were each waiting for."""
    view = referee.view()
    open_flags = [f"{f['rule']} at seat {f['seat']}" for f in view["flags"]]
    return (
        f"the game did not finish within {cfg.timeout:g} s: referee in phase {view['phase']} "
        f"(seat {view['to_act']} to act, layout {' '.join(view['layout']) or '-'}, "
        f"open flags {', '.join(open_flags) or 'none'}, prompt {view['prompt'] and view['prompt']['card']}); "
        f"table: {world.steps_done} bot actions, game {'over' if world.finished else 'not over'}; "
        f"dealer commands in flight {len(referee.pending_commands())}, LEDs {loop.leds}"
    )


@dataclass
class MatchResult:
    deals: list[DemoResult]
    summary: dict[str, Any]

    @property
    def agree(self) -> bool:
        return bool(self.deals) and all(d.agree for d in self.deals)


def run_match(cfg: DemoConfig, *, deals: int | None = None, view: View | None = None, page: Any = None) -> MatchResult:
    """Deal after deal (the deal passing left) until the match is over: the rule set's target
    (G4A: 1000 points) or ``deals`` deals with margins added up. Each deal is a demo game with
    its own seed (``seed + deal - 1``); a killed match resumes in the deal it was in."""
    from table.chinese_ten import rules_by_name
    from table.controller.match import MatchPlan

    rules = rules_by_name(cfg.rules)
    target = rules.match_target if deals is None else None
    cfg.journal.parent.mkdir(parents=True, exist_ok=True)
    base = DemoConfig(**{**cfg.__dict__})
    with Journal(cfg.journal) as journal:
        plan = MatchPlan(
            journal,
            f"{cfg.key}:match",
            cfg.game,
            cfg.rules,
            cfg.players,
            deals=deals or 1,
            target=target,
            totals_of=rules.match_total,
        )
    out: list[DemoResult] = []
    while True:
        with Journal(cfg.journal) as journal:
            plan.journal = journal
            if plan.over:
                break
            number, dealer = plan.next_deal()
        deal_cfg = DemoConfig(
            **{
                **base.__dict__,
                "seed": base.seed + number - 1,
                "dealer": dealer,
                "match_id": plan.match_id,
                "number": number,
            }
        )
        result = run_demo(deal_cfg, view=view, page=page)
        out.append(result)
        if result.refereed is None and result.truth is not None:
            break  # the deal did not finish: stop here, the same command resumes it
        with Journal(cfg.journal) as journal:
            plan.journal = journal
            plan.record(result.refereed)
    return MatchResult(out, plan.summary())


def _match_flags(referee: Any, world: World) -> list[dict[str, Any]]:
    """Pair each flag with the injected cheat it caught (same seat and rule, a card in common)."""
    out = []
    open_cheats = list(world.cheats)
    for flag in referee.flags.values():
        matched = None
        for cheat in open_cheats:
            if cheat.seat == flag.seat and cheat.rule == flag.rule and set(cheat.cards) & set(flag.cards):
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


class _Senses:
    scene: Any
    dealer: DealerPort
    frames = 0

    def attach(self, world: World, wlog: WorldLog) -> None: ...

    def hopper(self) -> list[Card]:
        return []

    def restore(self, world: World, log: list[dict[str, Any]]) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def idle(self) -> bool:
        return True

    def settled(self) -> bool:
        return True

    def stats(self) -> dict[str, Any]:
        return {}


class _DirectSenses(_Senses):
    """Perfect senses in-process; the world is ticked by a small thread."""

    def __init__(self, cfg: DemoConfig, loop: TableLoop) -> None:
        self.cfg = cfg
        self.loop = loop
        self.scene = DirectScene(loop.post)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def attach(self, world: World, wlog: WorldLog) -> None:
        self.world = world
        base = DirectDealer(self.cfg.seed, world.on_dealt, card_reader=self.cfg.card_reader)
        self.direct = base
        self.dealer = base
        if not any("hopper" in e for e in wlog.entries):
            base.shuffle()
            wlog.append({"hopper": [str(c) for c in base.deck]})

    def hopper(self) -> list[Card]:
        return self.direct.remaining()

    def restore(self, world: World, log: list[dict[str, Any]]) -> None:
        self.scene.silent = True
        hopper = world.fast_forward(log)
        self.scene.silent = False
        if hopper is not None:
            self.direct.deck = hopper
            self.direct.shuffled_once = True

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="world", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.loop.recovering:
                time.sleep(0.001)
                continue
            self.world.tick()
            self.frames += 1
            time.sleep(0.0005)

    def settled(self) -> bool:
        if not getattr(self, "_shown", False):
            self._shown = True
            self.scene.show_all()
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
