"""What the Frog and Garbage demo worlds share: a scene that reports what a camera sees, a dealer
machine whose mechanics the world drives, seat-button fingers, and a scripted world.

The world is the table's reality (the cards, the players' hands, the true game); the controller only
sees it through the scene's table events, the dealer machine's answers and the seat buttons.

* :class:`DirectScene` reports each change at once as the table event a perfect camera would
  (face-down cards as ``back``).
* :class:`GatedDealer` is a dealer machine (the loop's ``DealerPort``) whose every card is dealt by
  the world's own thread: a command waits until the world performs it, so every physical change,
  dealt cards included, happens in one order that the world controls (and a cheat never races a
  deal).
* :class:`ScriptWorld` runs a generator of steps; each step is a physical action or a wait.
* :class:`WorldRecord` is the world's log: every physical action (a card placed or taken, a card the
  dealer machine deals, a button press, a terminal entry) is written before it happens. After a kill
  the world is rebuilt from the seed and its script re-run with the log standing in for the
  controller (:meth:`ScriptWorld.fast_forward`): waits pass at once, the scene changes silently, the
  dealer deals to the logged targets, presses are skipped (they are in the journal).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from table.cards import Card
from table.controller.referee import Input

Step = Callable[[], bool]  # True: done; False: ask again next tick
FLAG_WAIT_TICKS = 3000  # how long a cheating player waits for the referee before putting things right
T = TypeVar("T")
INPUT_ENTRIES = ("press", "say", "prompt")  # world log entries that are controller inputs (journalled too)


class ReplayDiverged(RuntimeError):
    """The script re-run from the seed did something other than what the log says it did."""


class WorldRecord:
    """The world's log of physical actions. Live, each action's entry is written (``write``: the
    demo's fsynced JSON Lines file) before the action happens, so the log never lags the table or
    the journal. While ``replay`` entries remain, actions are checked against them and done
    silently instead (``quiet``)."""

    def __init__(
        self, write: Callable[[dict[str, Any]], None] | None = None, replay: Sequence[dict[str, Any]] = ()
    ) -> None:
        self.write: Callable[[dict[str, Any]], None] = write or (lambda entry: None)
        self.replay = list(replay)
        self.pos = 0

    @property
    def replaying(self) -> bool:
        return self.pos < len(self.replay)

    def do(self, entry: dict[str, Any], live: Callable[[], T], quiet: Callable[[], T]) -> T:
        if self.replaying:
            logged = self.replay[self.pos]
            if json.loads(json.dumps(entry)) != logged:
                raise ReplayDiverged(f"world log entry {self.pos + 1}: logged {logged}, the replay did {entry}")
            self.pos += 1
            return quiet()
        self.write(entry)
        return live()


class DirectScene:
    """A perfect camera over the mat: each placed, taken or moved card is one table event. Zones
    are the controller's (seats from 0)."""

    def __init__(self, post: Callable[[Input], None]) -> None:
        self.post = post
        self.cards: dict[int, tuple[str, str, bool]] = {}  # id -> (card, zone, face up)
        self._next = 1
        self._lock = threading.Lock()
        self.silent = False  # a world being rebuilt after a kill: nobody is watching

    def place(self, card: str, zone: str, *, face_up: bool = True) -> int:
        with self._lock:
            cid = self._next
            self._next += 1
            self.cards[cid] = (card, zone, face_up)
        if self.silent:
            return cid
        label = card if face_up else "back"
        self.post(Input("table", "appeared", label, zone, track=cid, candidates=((label, 0.99),) if face_up else ()))
        return cid

    def take(self, card_ids: Sequence[int], to_zone: str | None = None) -> None:
        for cid in card_ids:
            with self._lock:
                card, zone, face_up = self.cards.pop(cid)
            if self.silent:
                continue
            self.post(Input("table", "removed", card if face_up else "back", zone, to=to_zone, track=cid))

    def clear(self) -> None:
        """Everything off the mat (between deals)."""
        self.take(sorted(self.cards))

    def on_mat(self, card: str) -> bool:
        with self._lock:
            return any(c == card and up for c, _, up in self.cards.values())

    def newest_in(self, zone: str) -> str | None:
        """The face of the card laid last in ``zone`` (None: none there, or face down)."""
        with self._lock:
            faces = [(c if up else None) for c, z, up in self.cards.values() if z == zone]
        return faces[-1] if faces else None

    def show_all(self, post: Callable[[Input], None]) -> None:
        """What a freshly started camera reports: every card now on the mat (new track ids)."""
        with self._lock:
            items = sorted(self.cards.items())
        for cid, (card, zone, face_up) in items:
            label = card if face_up else "back"
            post(Input("table", "appeared", label, zone, track=cid, candidates=((label, 0.99),) if face_up else ()))


@dataclass
class DealRequest:
    target: str
    face: str
    done: threading.Event = field(default_factory=threading.Event)
    result: tuple[bool, Card | None, str] = (False, None, "cancelled")


class GatedDealer:
    """The dealer machine: holds a deck (top first), deals when the world turns the crank."""

    def __init__(self, *, card_reader: bool = True) -> None:
        self.card_reader = card_reader
        self.deck: list[Card] = []
        self.leds: dict[int, tuple[int, int, int]] = {}
        self._lock = threading.Lock()
        self._requests: list[DealRequest] = []
        self.dealt = 0
        self.record = WorldRecord()  # the world's log (the world sets its own)

    # the loop's side (dealer worker thread)
    def shuffle(self) -> None:
        """The world loads decks already in their (seeded) order: the shuffle is part of loading."""

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        request = DealRequest(target, face)
        with self._lock:
            self._requests.append(request)
        if not request.done.wait(120):
            with self._lock:
                if request in self._requests:
                    self._requests.remove(request)
            return False, None, "the machine did not answer"
        return request.result

    def hopper(self) -> int:
        with self._lock:
            return len(self.deck)

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        self.leds[seat] = rgb

    # the world's side
    def load(self, cards: Sequence[Card]) -> None:
        with self._lock:
            self.deck = list(cards)

    def pending(self) -> DealRequest | None:
        if self.record.replaying:  # the deal the log says came next (the world may act before it)
            ahead = [e["deal"] for e in self.record.replay[self.record.pos :] if "deal" in e]
            # not logged: the log ends with what the world did before the deal (the live
            # controller's command is the one it answers)
            return DealRequest(str(ahead[0][0]) if ahead else "?", "")
        with self._lock:
            return self._requests[0] if self._requests else None

    def perform(self, request: DealRequest) -> Card | None:
        """Deal the top card for ``request``; returns it (``None`` when the hopper is empty). The
        deal is logged before the card leaves the machine."""
        with self._lock:
            top = str(self.deck[0]) if self.deck else None
        return self.record.do({"deal": [request.target, top]}, lambda: self._perform(request), lambda: self._pop())

    def _pop(self) -> Card | None:
        with self._lock:
            if not self.deck:
                return None
            self.dealt += 1
            return self.deck.pop(0)

    def _perform(self, request: DealRequest) -> Card | None:
        with self._lock:
            if request in self._requests:
                self._requests.remove(request)
        card = self._pop()
        if card is None:
            request.result = (False, None, "the hopper is empty: load cards")
            request.done.set()
            return None
        request.result = (True, card if self.card_reader else None, "done")
        request.done.set()
        return card

    def cancel_all(self) -> None:
        """The controller died: its waiting commands end unanswered (the new one re-sends them)."""
        with self._lock:
            requests, self._requests = self._requests, []
        for r in requests:
            r.result = (False, None, "controller restarted")
            r.done.set()


class DealerLife:
    """The dealer machine as one life of the controller sees it. When that controller dies its
    queued commands must not reach the machine (a killed process sends nothing more)."""

    def __init__(self, dealer: GatedDealer) -> None:
        self.dealer = dealer
        self.alive = True

    def shuffle(self) -> None:
        self.dealer.shuffle()

    def deal(self, target: str, face: str) -> tuple[bool, Card | None, str]:
        if not self.alive:
            return False, None, "controller dead"
        return self.dealer.deal(target, face)

    def hopper(self) -> int:
        return self.dealer.hopper()

    def set_led(self, seat: int, rgb: tuple[int, int, int]) -> None:
        if self.alive:
            self.dealer.set_led(seat, rgb)


@dataclass
class Cheat:
    """A violation a bot committed on purpose; ``flagged`` once the referee caught it."""

    deal: int
    seat: int
    rule: str
    cards: tuple[str, ...]
    flagged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "seat": self.seat,
            "rule": self.rule,
            "cards": list(self.cards),
            "flagged": self.flagged,
        }


class RecordedScene:
    """The world's hands on the scene: each change logged before it is made; replayed silently
    (a :class:`DirectScene` posts nothing, a camera's simulated table changes at once, unseen)."""

    def __init__(self, scene: Any, record: WorldRecord) -> None:
        self.scene = scene
        self.record = record

    def place(self, card: str, zone: str, *, face_up: bool = True) -> int:
        cid: int = self.record.do(
            {"place": [card, zone, face_up]},
            lambda: self.scene.place(card, zone, face_up=face_up),
            lambda: self._quietly(lambda: self.scene.place(card, zone, face_up=face_up)),
        )
        return cid

    def take(self, card_ids: Sequence[int], to_zone: str | None = None) -> None:
        ids = list(card_ids)
        self.record.do(
            {"take": [ids, to_zone]},
            lambda: self.scene.take(ids, to_zone),
            lambda: self._quietly(lambda: self.scene.take(ids, to_zone)),
        )

    def clear(self) -> None:
        self.record.do({"clear": True}, self.scene.clear, lambda: self._quietly(self.scene.clear))

    def on_mat(self, card: str) -> bool:
        return bool(self.scene.on_mat(card))

    def newest_in(self, zone: str) -> str | None:
        face: str | None = self.scene.newest_in(zone)
        return face

    def _quietly(self, do: Callable[[], T]) -> T:
        sim = getattr(self.scene, "sim", None)
        if sim is not None:  # a camera's simulated table: no hands, no frames, the cards simply lie there
            self.scene.sim = _Instant(sim)
        else:
            self.scene.silent = True
        try:
            return do()
        finally:
            if sim is not None:
                self.scene.sim = sim
            else:
                self.scene.silent = False


class _Instant:
    """A :class:`vision.simtable.SimTable` whose changes happen at once, without a hand."""

    def __init__(self, sim: Any) -> None:
        self._sim = sim

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)

    def place(self, *args: Any, **kwargs: Any) -> Any:
        return self._sim.place(*args, **kwargs | {"animate": False})

    def take(self, *args: Any, **kwargs: Any) -> Any:
        return self._sim.take(*args, **kwargs | {"animate": False})


class ScriptWorld:
    """A world run by a generator script, one tick at a time from the world's thread."""

    def __init__(
        self,
        *,
        leds: Callable[[], dict[int, str]],
        idle: Callable[[], bool],
        press: Callable[[int, bool], None],
        terminal: Callable[[Input], None],
    ) -> None:
        self.leds = leds
        self.idle = idle
        self.record = WorldRecord()
        self._press = press
        self._terminal = terminal
        self.cheats: list[Cheat] = []
        self.steps_done = 0
        self.finished = False
        self.error: str | None = None
        self._script: Generator[Step, None, None] | None = None
        self._waiting: Step | None = None

    def script(self) -> Generator[Step, None, None]:
        raise NotImplementedError

    def truth_result(self) -> dict[str, Any]:
        """The true game's result, in the referee's result shape."""
        raise NotImplementedError

    def press(self, seat: int, long: bool) -> None:
        """A bot's finger on its seat button (skipped in a replay: the journal has it)."""
        self.record.do({"press": [seat, long]}, lambda: self._press(seat, long), lambda: None)

    def terminal(self, inp: Input) -> None:
        """Something a player enters at the terminal (skipped in a replay: the journal has it)."""
        self.record.do({"say": inp.to_json()}, lambda: self._terminal(inp), lambda: None)

    def fast_forward(self) -> None:
        """Re-run the script up to the end of ``record.replay``: the table, the dealer's deck, the
        truth and every random draw as they were when the log ended (waits pass at once)."""
        if self._script is None:
            self._script = self.script()
        self._waiting = None
        while self.record.replaying and not self.finished:
            try:
                self._waiting = next(self._script)
            except StopIteration:
                self.finished = True
            except ReplayDiverged:
                raise
            except Exception as exc:
                self.error = f"{type(exc).__name__}: {exc}"
                self.finished = True
        if self.record.replaying:
            raise ReplayDiverged(
                f"the script ended with {len(self.record.replay) - self.record.pos} logged actions not replayed"
            )
        # the wait the script stopped at is asked live from the next tick on

    def tick(self) -> None:
        if self.finished:
            return
        if self._script is None:
            self._script = self.script()
        for _ in range(64):
            if self._waiting is not None:
                if not self._waiting():
                    return
                self._waiting = None
            try:
                self._waiting = next(self._script)
            except StopIteration:
                self.finished = True
                return
            except Exception as exc:  # a world bug ends the demo with a message, not a hang
                self.error = f"{type(exc).__name__}: {exc}"
                self.finished = True
                return

    def act(self, do: Callable[[], object]) -> Generator[Step, None, None]:
        """One physical action, then wait until the controller has judged it."""
        self.steps_done += 1
        do()
        yield self.idle

    def wait(self, cond: Callable[[], bool], ticks: int = FLAG_WAIT_TICKS) -> Generator[Step, None, None]:
        left = [ticks]

        def step() -> bool:
            left[0] -= 1
            return cond() or left[0] <= 0

        yield step

    def led_is(self, seat: int, role: str) -> Callable[[], bool]:
        return lambda: self.idle() and self.leds().get(seat) == role

    def led_not(self, seat: int, role: str) -> Callable[[], bool]:
        return lambda: self.idle() and self.leds().get(seat) != role


def pause(seconds: float) -> None:
    time.sleep(seconds)
