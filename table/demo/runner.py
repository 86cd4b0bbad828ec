"""Run one demo game, any game: the simulated world against the real controller.

The controller is the product's: the game's referee behind :class:`~table.controller.core.GameSession` (every
input journalled in SQLite before it is judged), the :class:`~table.controller.loop.TableLoop` with its dealer
and LED workers, gpiozero seat buttons on mock pins pressed by the bots' fingers. The world
(:mod:`table.demo.world`) is seen through the senses (:mod:`table.demo.senses`: the real camera pipeline, or a
perfect camera with ``senses="direct"``) and dealt to by its dealer machine (:mod:`table.demo.dealers`). At the
end the refereed result is compared with the world's truth and every flag is paired with the cheat it caught.

Killed and run again: the controller's journal and the world's log (:mod:`table.demo.world_log`) survive a
``kill -9``. The same configuration finds the open game by its key and replays the journal into a fresh
referee; the world is rebuilt from the seed and its log; the controller re-reads the table (a new camera
pipeline reports what it sees) and settles the dealer commands left in flight, exactly as ``cardtable play``
does after a restart. A bot input the journal never got (the process died between the log and the button)
is dropped from the log and made again. ``kill_at`` does the same in-process: at those world steps the
controller is torn down at once (its loop abandoned, the journal closed) and a new one started.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from table.cards import Card
from table.config import DEFAULT_LEDS
from table.controller.core import GameSession
from table.controller.loop import DealerPort, TableLoop, View
from table.controller.referee import OUT_OF_TURN, Action, Input
from table.demo.config import GAMES, SENSES, DemoConfig, DemoResult
from table.demo.dealers import DealerLife, DirectDealer, GatedDealer, SimulatedMachine
from table.demo.scenes import RecordedScene
from table.demo.senses import CameraSenses, DirectSenses, Senses
from table.demo.world import Controls, ScriptWorld, match_flags
from table.demo.world_log import WorldLog, WorldRecord, inputs_heard, kept_entries, world_log_path
from table.errors import ConfigError
from table.journal import Journal

BUTTON_PIN_BASE = 5  # seat s's button on BCM pin 5 + s (mock pins)
HOLD_S = 0.25  # a long press; short presses are held 30 ms, far from it even on a loaded machine
GAP_S = 0.04  # between presses, past the bridge's debounce
Listener = Callable[[Input | None, list[Action]], None]


class Fingers:
    """The bots' fingers on the mock pins of the seat buttons."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory

    def press(self, seat: int, long: bool) -> None:
        pin = self.factory.pin(BUTTON_PIN_BASE + seat)
        time.sleep(GAP_S)
        pin.drive_low()
        time.sleep(HOLD_S + 0.1 if long else 0.03)
        pin.drive_high()


class Controller:
    """One life of the controller: journal, session, loop and seat buttons (rebuilt after a kill)."""

    def __init__(
        self,
        cfg: DemoConfig,
        dealer: DealerPort,
        leds: Any,
        factory: Any,
        *,
        new: bool,
        view: View | None = None,
        listeners: tuple[Listener, ...] = (),
    ) -> None:
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
            dealer=cfg.dealer,
            options=cfg.options,
            card_reader=cfg.card_reader,
            dealer_machine=True,
            match_id=cfg.match_id,
            number=cfg.number,
            meta={"demo": True, "seed": cfg.seed, "cheat": cfg.cheat},
        )
        self.life = DealerLife(dealer)
        self.loop = TableLoop(
            self.session,
            dealer=self.life,
            leds=leds,
            view=view,
            led_colours={k: _rgb(v) for k, v in DEFAULT_LEDS.items()},
        )
        self.loop.listeners.extend(listeners)
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

    def die(self, machine: Machine) -> None:
        """kill -9: nothing more is judged, sent or written (commands waiting for the machine end unanswered)."""
        self.life.alive = False
        self.buttons.close()
        machine.cancel()
        self.loop.stop()
        self.journal.close()


def _rgb(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


@dataclass
class Machine:
    """The world's dealer machine: the loop's port, where its seat LEDs are driven, whether it deals on its
    own (the world then waits for its commands too), and how it ends."""

    port: DealerPort
    autonomous: bool = True
    gated: GatedDealer | None = None
    simulated: SimulatedMachine | None = None
    remaining: Callable[[], list[Card]] = list  # the hopper, top first
    load: Callable[[list[Card]], None] = lambda cards: None  # the deck a killed run's machine still held

    def stats(self) -> dict[str, Any]:
        return self.simulated.stats() if self.simulated is not None else {}

    def cancel(self) -> None:
        """The controller died: its commands waiting for the machine end unanswered."""
        if self.gated is not None:
            self.gated.cancel_all()

    def close(self) -> None:
        if self.simulated is not None:
            self.simulated.close()


def run_demo(
    cfg: DemoConfig,
    *,
    view: View | None = None,
    on_start: Callable[[GameSession], None] | None = None,
    on_actions: Listener | None = None,
    page: Any = None,
) -> DemoResult:
    """Play one demo game to its end (or ``cfg.timeout``). ``view`` and ``on_actions`` hear each judged input
    and its actions; ``on_start`` gets each controller's session as it starts; ``page``: a
    :class:`table.web.table_page.TablePage` to show the game on (``--web``)."""
    from gpiozero.pins.mock import MockFactory

    t0 = time.monotonic()
    if cfg.game not in GAMES:
        raise ConfigError("game", f"the demo runs {', '.join(GAMES)}, not {cfg.game!r}")
    if cfg.senses not in SENSES:
        raise ConfigError("senses", f"{' or '.join(SENSES)}, not {cfg.senses!r}")
    cfg.journal.parent.mkdir(parents=True, exist_ok=True)
    factory = MockFactory()
    holder: dict[str, Any] = {}  # the world, the live controller, the senses: each built after what needs it
    record = WorldRecord()
    machine = _machine(cfg, holder, record)
    listeners = () if on_actions is None else (on_actions,)

    def controller(new: bool) -> Controller:
        life = Controller(cfg, machine.port, _leds(cfg, machine), factory, new=new, view=view, listeners=listeners)
        if on_start is not None:
            on_start(life.session)
        if page is not None:
            page.attach(life.session, life.loop)
        return life

    ctl = holder["ctl"] = controller(cfg.new)
    resumed = ctl.session.resumed
    wlog = WorldLog(world_log_path(cfg.journal, ctl.session.game_id), keep=resumed)
    holder["wlog"] = wlog
    record.write = wlog.append
    log = _surviving_log(cfg, ctl, wlog, machine) if resumed else []
    direct = holder.get("direct")
    if direct is not None and not any("hopper" in e for e in log):
        # the in-process machine shuffles as it is loaded; its order is logged before anything is dealt
        direct.shuffle()
        wlog.append({"hopper": [str(c) for c in direct.deck]})

    def post(inp: Input) -> None:
        holder["ctl"].loop.post(inp)

    senses: Senses
    if cfg.senses == "vision":
        senses = CameraSenses(
            cfg.game, cfg.players, cfg.seed, post, fast=cfg.fast, record=cfg.record, doubt=cfg.doubt, deck=cfg.deck
        )
        if page is not None:
            senses.on_frame = page.camera(senses.watcher)
    else:
        senses = DirectSenses(post)
    paused = threading.Event()
    fingers = Fingers(factory)

    def idle() -> bool:
        c: Controller = holder["ctl"]
        machine_busy = machine.autonomous and c.loop.dealer_worker.busy
        return not paused.is_set() and c.loop.judged and not machine_busy and senses.idle()

    def press(seat: int, long: bool) -> None:
        """Press and release, then wait until gpiozero's callback has posted it (presses of one seat in
        quick succession must not overlap)."""
        before = holder["ctl"].presses
        fingers.press(seat, long)
        until = time.monotonic() + 2
        while holder["ctl"].presses == before and time.monotonic() < until:
            time.sleep(0.001)

    controls = Controls(
        leds=lambda: dict(holder["ctl"].loop.leds),
        prompt=lambda: holder["ctl"].referee.prompt,
        idle=idle,
        press=press,
        terminal=post,
    )
    world = holder["world"] = _world(cfg, ctl, senses, machine, record, controls, wlog)
    world.answers_prompts = not cfg.host_answers
    if resumed:
        try:
            world.restore(log)
        except Exception as exc:
            _abandon(ctl, machine, wlog, senses)
            raise ConfigError(
                "journal", f"the world's log {wlog.path} does not replay from seed {cfg.seed}: {exc}; run with --new"
            ) from exc
    stop = threading.Event()
    ctl.loop.start(ctl.first)
    thread = threading.Thread(target=senses.run, args=(world.tick, stop, paused), name="senses", daemon=True)
    if resumed:
        paused.set()  # the senses look, nobody moves until the controller has re-read the table
    thread.start()
    kills = sorted(cfg.kill_at)
    restarts = 0
    deadline = time.monotonic() + cfg.timeout
    error = None
    try:
        if resumed:
            ctl.loop.resync(senses.look_again(new_pipeline=False), timeout=60)
            world.go_live()
            paused.clear()
        while time.monotonic() < deadline:
            c: Controller = holder["ctl"]
            if kills and world.steps_done >= kills[0] and not c.referee.over:
                kills.pop(0)
                _kill(c, machine, senses, world, paused)
                c = holder["ctl"] = controller(False)
                restarts += 1
                c.loop.start(c.first)
                c.loop.resync(senses.look_again(new_pipeline=True), timeout=60)
                world.go_live()
                paused.clear()
                continue
            if c.referee.over and world.finished and c.loop.idle:
                break
            if (world.finished and world.error) or senses.error:
                break
            c.loop.step(0.01)
        else:
            error = _stuck(cfg, holder["ctl"], world)
    finally:
        stop.set()
        thread.join(timeout=10)
        c = holder["ctl"]
        c.buttons.close()
        machine.cancel()
        c.loop.stop()
        machine.close()
        senses.close()
        wlog.close()
    if os.environ.get("CARDTABLE_DEMO_DEBUG"):
        print(json.dumps(c.referee.view(), default=str)[:3000], file=sys.stderr)
        print("world", world.steps_done, world.finished, world.error, c.loop.leds, file=sys.stderr)
    referee = c.referee
    refereed = referee.result()
    truth = world.truth_result() if world.finished and not world.error else None
    result = DemoResult(
        c.session.game_id,
        refereed,
        truth,
        refereed is not None and truth is not None and world.comparable(refereed) == world.comparable(truth),
        match_flags(referee.flags.values(), world.cheats),
        [ch.to_json() for ch in world.cheats],
        resumed,
        time.monotonic() - t0,
        senses.frames,
        senses.stats() | machine.stats(),
        error or world.error or senses.error,
        restarts,
        world.answers,
        list(referee.messages),
    )
    c.journal.close()
    return result


def _machine(cfg: DemoConfig, holder: dict[str, Any], record: WorldRecord) -> Machine:
    """The game's dealer machine (told of what it deals through ``holder``'s world, built later)."""
    if cfg.game != "chinese-ten":
        gated = GatedDealer(card_reader=cfg.card_reader)
        gated.record = record
        return Machine(gated, autonomous=False, gated=gated)

    def dealt(target: str, card: Card, face: str) -> None:
        holder["world"].on_dealt(target, card, face)

    if cfg.senses == "direct":
        direct = holder["direct"] = DirectDealer(cfg.seed, dealt, card_reader=cfg.card_reader)
        return Machine(direct, remaining=direct.remaining, load=direct.load)
    simulated = SimulatedMachine(
        seats=cfg.players,
        card_reader=cfg.card_reader,
        seed=cfg.seed,
        speed=cfg.sim_speed or (25.0 if cfg.fast else 1.0),
        on_shuffle=lambda hopper: holder["wlog"].append({"hopper": [str(c) for c in hopper]}),
        on_dealt=dealt,
    )
    return Machine(simulated.port, simulated=simulated, remaining=simulated.remaining, load=simulated.load)


def _leds(cfg: DemoConfig, machine: Machine) -> Any:
    """Chinese Ten's seat LEDs are the dealer machine's (over the link; recorded with direct senses); the
    other games' take raw colours through the machine's port."""
    if cfg.game != "chinese-ten":
        return None
    from firmware_bridge.leds import RecordingLeds
    from table.controller.adapters import LedDriver

    sink = machine.simulated.device if machine.simulated is not None else RecordingLeds()
    return LedDriver(sink, cfg.players, {k: _rgb(v) for k, v in DEFAULT_LEDS.items()})


def _world(
    cfg: DemoConfig,
    ctl: Controller,
    senses: Senses,
    machine: Machine,
    record: WorldRecord,
    controls: Controls,
    wlog: WorldLog,
) -> ScriptWorld:
    referee = ctl.referee
    if cfg.game == "chinese-ten":
        from table.demo.chinese_ten_world import CHEATS, ChineseTenWorld

        return ChineseTenWorld(
            referee.rules,
            players=cfg.players,
            seed=cfg.seed,
            cheat=cfg.cheat,
            dealer=cfg.dealer,
            scene=senses.scene,
            controls=controls,
            on_log=wlog.append,
            hopper=machine.remaining,
            load=machine.load,
            cheat_kinds=CHEATS if cfg.card_reader else tuple(c for c in CHEATS if c != OUT_OF_TURN),
        )
    assert machine.gated is not None
    scene = RecordedScene(senses.scene, record)
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
            dealer=machine.gated,
            controls=controls,
            record=record,
        )
    from table.demo.garbage_world import GarbageWorld

    return GarbageWorld(
        referee.rules,
        players=cfg.players,
        seed=cfg.seed,
        cheat=cfg.cheat,
        scene=scene,
        dealer=machine.gated,
        controls=controls,
        record=record,
    )


def _surviving_log(cfg: DemoConfig, ctl: Controller, wlog: WorldLog, machine: Machine) -> list[dict[str, Any]]:
    """The world's log of the killed run, less the inputs that never reached the journal (made again live)."""
    heard = inputs_heard(ctl.journal, ctl.session.game_id)
    if heard and not wlog.entries:
        wlog.close()
        ctl.die(machine)
        machine.close()
        raise ConfigError(
            "journal",
            f"game {ctl.session.game_id} is open but the world's log {wlog.path} is gone, so the table "
            "cannot be rebuilt; run with --new",
        )
    if cfg.game == "chinese-ten":
        return list(wlog.entries)
    kept = kept_entries(wlog.entries, heard)
    if len(kept) < len(wlog.entries):
        wlog.replace(kept)
    return kept


def _abandon(ctl: Controller, machine: Machine, wlog: WorldLog, senses: Senses) -> None:
    wlog.close()
    ctl.die(machine)
    machine.close()
    senses.close()


def _kill(c: Controller, machine: Machine, senses: Senses, world: ScriptWorld, paused: threading.Event) -> None:
    """Tear the controller down in-process. The players stop while it restarts: what they did so far reaches
    the journal first (a press lost in a real restart is simply pressed again)."""
    paused.set()
    drain = time.monotonic() + 5
    while not (senses.resting or world.finished) and time.monotonic() < drain:
        c.loop.step(0.005)
    time.sleep(0.05)  # button callbacks fire on gpiozero's thread
    while not c.loop.judged and time.monotonic() < drain:
        c.loop.step(0.01)
    c.die(machine)


def _stuck(cfg: DemoConfig, ctl: Controller, world: ScriptWorld) -> str:
    """Why a demo game did not finish in time: what the referee and the table were each waiting for."""
    referee = ctl.referee
    view = referee.view()
    open_flags = [f"{f.rule} at seat {f.seat}" for f in referee.flags.values() if f.state == "open"]
    prompt = referee.prompt
    layout = f", layout {' '.join(view['layout']) or '-'}" if "layout" in view else ""
    return (
        f"the game did not finish within {cfg.timeout:g} s: referee in phase {view.get('phase', view.get('stage'))} "
        f"(seat {view.get('to_act')} to act{layout}, open flags {', '.join(open_flags) or 'none'}, "
        f"prompt {prompt and prompt.card}); table: {world.steps_done} bot actions, game "
        f"{'over' if world.finished else 'not over'}; dealer commands in flight {len(referee.pending_commands())}, "
        f"LEDs {ctl.loop.leds}"
    )


@dataclass
class MatchResult:
    deals: list[DemoResult]
    summary: dict[str, Any]

    @property
    def agree(self) -> bool:
        return bool(self.deals) and all(d.agree for d in self.deals)


def run_match(cfg: DemoConfig, *, deals: int | None = None, view: View | None = None, page: Any = None) -> MatchResult:
    """Chinese Ten deal after deal (the deal passing left) until the match is over: the rule set's target
    (G4A: 1000 points) or ``deals`` deals with margins added up. Each deal is a demo game with its own seed
    (``seed + deal - 1``); a killed match resumes in the deal it was in."""
    from table.chinese_ten import rules_by_name
    from table.controller.match import MatchPlan

    rules = rules_by_name(cfg.rule_name)
    target = rules.match_target if deals is None else None
    cfg.journal.parent.mkdir(parents=True, exist_ok=True)
    with Journal(cfg.journal) as journal:
        plan = MatchPlan(
            journal,
            f"{cfg.key}:match",
            cfg.game,
            cfg.rule_name,
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
        deal_cfg = replace(cfg, seed=cfg.seed + number - 1, dealer=dealer, match_id=plan.match_id, number=number)
        result = run_demo(deal_cfg, view=view, page=page)
        out.append(result)
        if result.refereed is None:
            break  # the deal did not finish: stop here, the same command resumes it
        with Journal(cfg.journal) as journal:
            plan.journal = journal
            plan.record(result.refereed)
    return MatchResult(out, plan.summary())
