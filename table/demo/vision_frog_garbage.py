"""Frog and Garbage demo senses through the real camera pipeline (the default of ``cardtable demo
frog|garbage``; ``--direct`` swaps in the perfect camera).

Status: Frog deals and Garbage matches are refereed through it with the true chips and coins, every
cheat flagged (figures in docs/performance.md, ``benchmarks/bench_demo_frog_garbage.py --vision``).
Every Garbage card lies on its own slot (eight per seat: seven cards and a bought or slipped-in one;
the world sweeps the turn-up row after eight cards), because a camera cannot read cards laid on top
of each other. Limits: a face-down card laid on a face-down pile cannot always be counted by a camera
(a fourth Frog discard stacked on one of the three may go unseen); the world waits for a quiet,
settled table before each action, so a loaded machine makes a game slower, not wrong. Kill and
restart with these senses (a fresh watcher re-reads the table) is spot-checked for Frog only; the
measured kill runs (in-process and SIGKILL) use the direct senses."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from table.controller.adapters import input_from_event, zone_to_mat
from table.controller.referee import Input

MODEL = Path(__file__).resolve().parents[2] / "models" / "cardnet.onnx"


class SimScene:
    """The worlds' scene calls (controller zones, seats from 0) on a :class:`SimTable`."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.labels: dict[int, tuple[str, str]] = {}  # id -> (card, zone)
        self._lock = threading.Lock()

    def place(self, card: str, zone: str, *, face_up: bool = True) -> int:
        seat = int(zone.split(":")[1]) + 1 if zone.startswith(("seat:", "capture:")) else None
        cid = int(self.sim.place(card, zone_to_mat(zone), face_up=face_up, seat=seat))
        with self._lock:
            self.labels[cid] = (card, zone)
        return cid

    def take(self, card_ids: Sequence[int], to_zone: str | None = None) -> None:
        ids = list(card_ids)
        seat = None
        if to_zone is not None and ":" in to_zone:
            seat = int(to_zone.split(":")[1]) + 1
        pile = zone_to_mat(to_zone) if to_zone is not None and to_zone.startswith("capture:") else None
        self.sim.take(ids, pile, face_up=False, seat=seat)
        with self._lock:
            for cid in ids:
                self.labels.pop(cid, None)

    def clear(self) -> None:
        with self._lock:
            ids = sorted(self.labels)
        cards = set(self.sim.cards)
        self.take([i for i in ids if i in cards] + [i for i in sorted(cards) if i not in ids])

    def on_mat(self, card: str) -> bool:
        with self._lock:
            return any(c == card for c, _ in self.labels.values())

    def newest_in(self, zone: str) -> str | None:
        """The card laid last in ``zone`` (ids grow with each card laid), None if none."""
        with self._lock:
            faces = [c for _, (c, z) in sorted(self.labels.items()) if z == zone]
        return faces[-1] if faces else None


class CameraSenses:
    """Renders frames, runs the watcher, posts its events; ticks the world once per frame."""

    def __init__(self, game: str, players: int, seed: int, post: Callable[[Input], None], *, fast: bool = True) -> None:
        from vision.recognizer import Recognizer
        from vision.simtable import SimTable
        from vision.watcher import TableWatcher
        from vision.zones import layout_for

        self.layout = layout_for(game, players)
        self.sim = SimTable(self.layout, seed=seed, fps=15.0)
        self.scene = SimScene(self.sim)
        self.watcher = TableWatcher(self.layout, Recognizer(MODEL, threads=1))
        self.post = post
        self.fast = fast
        self.frames = 0
        self.error: str | None = None
        self.on_frame: Callable[[Any, int], None] | None = None  # the table page's camera hook
        self._quiet = 0
        self._signature: tuple[int, int] = (0, 0)

    def idle(self) -> bool:
        signature = (self.sim._order, len(self.sim.cards))
        # a card dropped face down on a pile may leave the tracker unsure for good: a quiet table
        # for a second is settled enough
        return (
            not self.sim.busy
            and signature == self._signature
            and self._quiet >= 3
            and (self.watcher.tracker.settled or self._quiet >= 15)
        )

    def run(
        self, tick: Callable[[], None], stop: threading.Event, paused: threading.Event, resting: threading.Event
    ) -> None:
        period = 1.0 / self.sim.fps
        try:
            while not stop.is_set():
                if paused.is_set():
                    resting.set()
                else:
                    resting.clear()
                    tick()
                frame = self.sim.next_frame()
                watcher = self.watcher
                events = watcher.process(frame.image, frame_index=frame.index, timestamp=frame.timestamp)
                if watcher is not self.watcher:
                    events = []  # a killed controller's pipeline: what it saw dies with it
                for event in events:
                    self.post(input_from_event(event))
                if self.on_frame is not None:
                    self.on_frame(frame.image, frame.index)
                signature = (self.sim._order, len(self.sim.cards))
                busy = self.sim.busy or frame.hand or bool(events) or signature != self._signature
                self._signature = signature
                self._quiet = 0 if busy else self._quiet + 1
                self.frames += 1
                if not self.fast:
                    time.sleep(period)
        except Exception as exc:  # reported by the runner
            self.error = f"{type(exc).__name__}: {exc}"
