"""The table loop: one thread judges, worker threads do the slow things.

Inputs come from anywhere (the camera worker's table events, GPIO button callbacks, the dealer
machine's replies and events, the terminal) through one queue. The loop thread takes them in
order, journals and judges each (:class:`~table.controller.core.GameSession`), then hands the
actions to workers: dealer commands to the dealer worker (a deal takes hundreds of ms and may be
retried), LED changes to the LED worker, text to the view. Nothing the loop does waits on a device
or a frame, so a slow frame or a device retry never stalls the game.

After a restart the loop first re-synchronises with the table (:meth:`TableLoop.resync`): the
tracker's first view is compared with the journalled layout, then each dealer command that was
sent but never answered is settled by the machine's card count (dealt already, or sent again).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from table.cards import Card
from table.controller.core import GameSession
from table.controller.referee import Action, Input


class DealerPort(Protocol):
    """The dealer machine as the loop uses it; seats are the table's (from 0)."""

    def shuffle(self) -> None: ...

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        """Deal one card; returns (dealt, the card when the machine reads cards, reason)."""

    def hopper(self) -> int: ...


class View(Protocol):
    def show(self, session: GameSession, inp: Input | None, actions: list[Action]) -> None: ...


@dataclass
class Worker:
    """A thread running jobs from a queue one at a time; ``busy`` while any is queued or running."""

    name: str
    jobs: queue.Queue[Callable[[], None] | None] = field(default_factory=queue.Queue)
    _running: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self.thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            self._running += 1
        self.jobs.put(job)

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._running > 0

    def _run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception as exc:  # a device error must never kill the worker
                self.errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                with self._lock:
                    self._running -= 1

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=5)


class TableLoop:
    def __init__(
        self,
        session: GameSession,
        *,
        dealer: DealerPort | None = None,
        leds: Any = None,
        view: View | None = None,
        led_colours: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        self.session = session
        self.dealer = dealer
        self.view = view
        # ``leds``: anything with apply(roles) (table.controller.adapters.LedDriver on the bridge's
        # SeatLeds). Without it, ``led_colours`` sends raw colours through the dealer port.
        self.led_driver = leds
        self.led_colours = led_colours or {}
        self.inputs: queue.Queue[Input] = queue.Queue()
        self._judging = 0
        self._lock = threading.Lock()
        self.dealer_worker = Worker("dealer")
        self.led_worker = Worker("leds")
        self.leds: dict[int, str] = {}
        self.history: list[tuple[Input | None, list[Action]]] = []
        self.listeners: list[Callable[[Input | None, list[Action]], None]] = []
        self.recovering = False

    # -- inputs (any thread) ---------------------------------------------------------------------

    def post(self, inp: Input) -> None:
        with self._lock:
            self._judging += 1
        self.inputs.put(inp)

    @property
    def judged(self) -> bool:
        """Every input posted so far has been judged (device commands may still be running)."""
        with self._lock:
            return self._judging == 0

    @property
    def idle(self) -> bool:
        """Nothing queued, nothing being judged, no device command running."""
        return self.judged and not self.dealer_worker.busy

    # -- the loop --------------------------------------------------------------------------------

    def start(self, actions: list[Action]) -> None:
        """Carry out the game's first actions (or, after a resume, restore LEDs)."""
        self._carry_out(None, actions)

    def step(self, timeout: float = 0.05) -> bool:
        """Judge one queued input if one arrives within ``timeout``; returns whether one did."""
        try:
            inp = self.inputs.get(timeout=timeout)
        except queue.Empty:
            return False
        try:
            actions = self.session.submit(inp)
            self._carry_out(inp, actions)
        finally:
            with self._lock:
                self._judging -= 1
        return True

    def run_until(self, done: Callable[[], bool], *, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not done():
            if deadline is not None and time.monotonic() > deadline:
                return False
            self.step()
        return True

    def stop(self) -> None:
        self.dealer_worker.stop()
        self.led_worker.stop()

    # -- actions ---------------------------------------------------------------------------------

    def _carry_out(self, inp: Input | None, actions: list[Action]) -> None:
        for action in actions:
            if action["do"] in ("deal", "shuffle"):
                self._send(action)
        self._update_leds()
        self.history.append((inp, actions))
        if self.view is not None:
            self.view.show(self.session, inp, actions)
        for listener in self.listeners:
            listener(inp, actions)

    def _send(self, action: Action) -> None:
        dealer = self.dealer
        if dealer is None:
            return
        cmd_id = action["id"]

        def job() -> None:
            if action["do"] == "shuffle":
                try:
                    dealer.shuffle()
                    self.post(Input("device", "shuffled", data={"id": cmd_id}))
                except Exception as exc:
                    self.post(Input("device", "failed", data={"id": cmd_id, "reason": str(exc)}))
                return
            try:
                ok, card, reason = dealer.deal(str(action["target"]), str(action.get("face", "down")))
            except Exception as exc:
                ok, card, reason = False, None, f"{type(exc).__name__}: {exc}"
            if ok:
                self.post(
                    Input(
                        "device",
                        "dealt",
                        card=None if card is None else str(card),
                        data={"id": cmd_id, "target": action["target"]},
                    )
                )
            else:
                self.post(Input("device", "failed", data={"id": cmd_id, "reason": reason}))

        self.dealer_worker.submit(job)

    def _update_leds(self) -> None:
        roles = self.session.referee.leds()
        if roles == self.leds:
            return
        changed = {seat: role for seat, role in roles.items() if self.leds.get(seat) != role}
        self.leds = dict(roles)
        if self.led_driver is not None:
            self.led_worker.submit(partial(self.led_driver.apply, dict(roles)))
            return
        raw = getattr(self.dealer, "set_led", None)
        if raw is not None:
            for seat, role in changed.items():
                self.led_worker.submit(partial(raw, seat, self.led_colours.get(role, (0, 0, 0))))

    # -- after a restart -------------------------------------------------------------------------

    def resync(self, settle: Callable[[], bool], *, timeout: float = 30.0) -> None:
        """Compare the table with the journal, then settle the dealer commands left in flight.

        ``settle()`` returns True once the camera's view has settled (the tracker has reported
        every card it sees)."""
        self.recovering = True
        in_flight = {int(a["id"]) for a in self.session.referee.pending_commands()}
        self.post(Input("control", "resync_begin"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not (settle() and self.inputs.empty()):
            self.step(0.01)
        self.post(Input("control", "resync_end"))
        while not self.inputs.empty():
            self.step(0.01)
        self.recovering = False
        self._settle_commands(in_flight)
        self._update_leds()

    def _settle_commands(self, in_flight: set[int]) -> None:
        """Settle the commands that were in flight when the old process died (commands issued
        during the resync were sent normally)."""
        pending = [a for a in self.session.referee.pending_commands() if int(a["id"]) in in_flight]
        if not pending or self.dealer is None:
            return
        try:
            hopper = self.dealer.hopper()
        except Exception:
            hopper = -1
        expected = getattr(self.session.referee, "hopper_left", None)
        for action in sorted(pending, key=lambda a: int(a["id"])):
            if action["do"] == "deal" and isinstance(expected, int) and hopper >= 0 and hopper < expected:
                # The machine has fewer cards than the journal expects: this deal happened before
                # the restart, but its answer was lost with the old process.
                expected -= 1
                self.post(
                    Input("device", "dealt", data={"id": action["id"], "target": action["target"], "recovered": True})
                )
                continue
            self._send(action)

    def describe(self) -> dict[str, Any]:
        return {"leds": dict(self.leds), "idle": self.idle}
