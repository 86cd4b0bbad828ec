"""How the controller perceives the demo world: one thread that ticks the world and reports the table.

* :class:`DirectSenses` (``--direct``): a perfect camera (:class:`~table.demo.scenes.DirectScene`), the world
  ticked as fast as it goes: a quick check of the referee and the loop;
* :class:`CameraSenses` (the default): the world draws on :class:`vision.simtable.SimTable`; each frame goes
  through the real :class:`vision.watcher.TableWatcher` (calibration from the mat's markers, hand detection,
  the ONNX recogniser, the tracker) and its table events reach the controller. The world is ticked once a
  frame, so it acts only on what the camera has had a chance to see.

Either stops ticking the world while ``paused`` (a controller restarting) and says ``resting`` once it has.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable
from importlib.resources import as_file, files
from typing import TYPE_CHECKING, Any

from table.controller.adapters import input_from_event
from table.controller.referee import Input
from table.demo.scenes import DirectScene, Scene, SimScene

if TYPE_CHECKING:
    from vision.deck_profile import DeckProfile
    from vision.recognizer import Recognizer

FPS = 15.0
MODEL = "cardnet.onnx"  # the shipped classifier, in the models package
FACE_STYLE = 0  # the faces the simulated table draws (vision.faces), the deck ``--enrol`` enrols


def camera_recognizer() -> Recognizer:
    """The recogniser of the demo's camera path: the shipped classifier, one thread."""
    from vision.recognizer import Recognizer

    with as_file(files("models") / MODEL) as model:
        return Recognizer(model, threads=1)


class Senses(ABC):
    scene: Scene
    frames = 0
    error: str | None = None  # what stopped the senses' thread (a bug), reported with the result

    def __init__(self) -> None:
        self._resting = threading.Event()

    @abstractmethod
    def run(self, tick: Callable[[], None], stop: threading.Event, paused: threading.Event) -> None:
        """The senses' thread: tick the world and report the table until ``stop``."""

    @abstractmethod
    def idle(self) -> bool:
        """The table is quiet and the controller has been told all of it."""

    @abstractmethod
    def look_again(self, *, new_pipeline: bool) -> Callable[[], bool]:
        """A (re)started controller's first look at the table (``new_pipeline``: the old controller's camera
        pipeline died with it); the callable says when the view has settled."""

    @property
    def resting(self) -> bool:
        """The thread has seen the pause (the world does not move until it is lifted)."""
        return self._resting.is_set()

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:  # noqa: B027 - most senses hold nothing to release
        """Release what the senses hold (a video being written)."""


class DirectSenses(Senses):
    def __init__(self, post: Callable[[Input], None]) -> None:
        super().__init__()
        self.direct = DirectScene(post)
        self.scene = self.direct

    def run(self, tick: Callable[[], None], stop: threading.Event, paused: threading.Event) -> None:
        while not stop.is_set():
            if paused.is_set():
                self._resting.set()
                time.sleep(0.002)
                continue
            self._resting.clear()
            tick()
            self.frames += 1
            time.sleep(0.0003)

    def idle(self) -> bool:
        return True

    def look_again(self, *, new_pipeline: bool) -> Callable[[], bool]:
        shown = [False]

        def settled() -> bool:
            if not shown[0]:
                shown[0] = True
                self.direct.show_all()
            return True

        return settled


class CameraSenses(Senses):
    """The simulated table through the real camera pipeline. ``fast``: frames as fast as they go (else at
    15 a second); ``record``: the frames written to a video; ``doubt``: the probability that a card appearing on
    the layout is reported as doubted, so the referee asks about it (as about a card the camera cannot name for
    sure); ``deck``: an enrolled deck the cards are read against (``vision.deck_match.DeckReader``; a card of
    another deck is ``unknown`` to the referee, as with ``cardtable play --deck``); ``on_frame``: called with each
    frame and its index (the table page's camera)."""

    def __init__(
        self,
        game: str,
        players: int,
        seed: int,
        post: Callable[[Input], None],
        *,
        fast: bool,
        record: str | None,
        doubt: float = 0.0,
        deck: DeckProfile | None = None,
    ) -> None:
        from vision.simtable import SimTable
        from vision.watcher import TableWatcher
        from vision.zones import layout_for

        super().__init__()
        self.game = game
        self.layout = layout_for(game, players)
        self.sim = SimTable(self.layout, seed=seed, fps=FPS, face_style=FACE_STYLE)
        self.sims = SimScene(self.sim)
        self.scene = self.sims
        self.recognizer = camera_recognizer()
        self.deck = deck
        self.reader: Any = self.recognizer  # what the watcher reads cards with: the recogniser, or it and the deck
        if deck is not None:
            from vision.deck_match import DeckReader
            from vision.events import UNKNOWN

            self.reader = DeckReader(self.recognizer, deck, foreign=UNKNOWN)
        self.watcher = TableWatcher(self.layout, self.reader)
        self.post = post
        self.fast = fast
        self.doubt = doubt
        self._doubts = random.Random(seed * 7919 + 1)
        self.on_frame: Callable[[Any, int], None] | None = None
        self._quiet = 0
        self._signature: tuple[int, int] = (0, 0)
        self._writer: Any = None
        if record:
            import cv2

            fourcc = cv2.VideoWriter.fourcc(*"mp4v")
            self._writer = cv2.VideoWriter(record, fourcc, FPS, (self.sim.camera.width, self.sim.camera.height))

    def run(self, tick: Callable[[], None], stop: threading.Event, paused: threading.Event) -> None:
        period = 1.0 / self.sim.fps
        next_at = time.monotonic()
        try:
            while not stop.is_set():
                if paused.is_set():
                    self._resting.set()
                else:
                    self._resting.clear()
                    tick()
                frame = self.sim.next_frame()
                watcher = self.watcher
                events = watcher.process(frame.image, frame_index=frame.index, timestamp=frame.timestamp)
                if watcher is not self.watcher:
                    events = []  # a killed controller's pipeline: what it saw dies with it
                for event in events:
                    self.post(self._doubted(input_from_event(event)))
                if self.on_frame is not None:
                    self.on_frame(frame.image, frame.index)
                if self._writer is not None:
                    self._writer.write(frame.image)
                signature = self.sims.signature()  # any change to the table restarts the count
                busy = self.sim.busy or frame.hand or bool(events) or signature != self._signature
                self._signature = signature
                self._quiet = 0 if busy else self._quiet + 1
                self.frames += 1
                if not self.fast:
                    next_at += period
                    delay = next_at - time.monotonic()
                    if delay > 0:
                        stop.wait(delay)
                    else:
                        next_at = time.monotonic()
        except Exception as exc:  # reported with the result; the runner's timeout ends the game
            self.error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()

    def _doubted(self, inp: Input) -> Input:
        if self.doubt and inp.kind == "appeared" and inp.zone == "layout" and self._doubts.random() < self.doubt:
            return dataclasses.replace(inp, data={**inp.data, "doubt": True})
        return inp

    def idle(self) -> bool:
        if self.sim.busy or self.sims.signature() != self._signature:
            return False
        if self.game == "chinese-ten":
            # The layout (and any card not yet placed in a zone) decided; face-down capture piles may
            # stay unreadable without holding the game up. After two seconds of quiet, settled anyway.
            return (self._quiet >= 3 and self._layout_settled()) or self._quiet >= 30
        # a card dropped face down on a pile may leave the tracker unsure for good: a quiet table
        # for a second is settled enough
        return self._quiet >= 3 and (self.watcher.tracker.settled or self._quiet >= 15)

    def _layout_settled(self) -> bool:
        tracker = self.watcher.tracker
        need = tracker.config.votes_needed
        if self.watcher.last_occluded:
            return False
        return all(
            t.confirmed and t.misses == 0 and t.fresh >= need
            for t in tracker.tracks.values()
            if t.zone in (None, "layout", "stock")
        )

    def look_again(self, *, new_pipeline: bool) -> Callable[[], bool]:
        """``new_pipeline``: a new watcher (no calibration, no tracks; the recogniser's model kept), taken by
        the camera's thread from its next frame on. The view has settled once it has calibrated and looked
        long enough to confirm every card: a re-read that ended on a quiet but still uncalibrated view took the
        whole table for new cards (a Garbage hand's cards flagged as slipped in). A view that never settles (a
        card left unreadable) ends the re-read after 200 frames."""
        from vision.watcher import TableWatcher

        if new_pipeline:
            self.watcher = TableWatcher(self.layout, self.reader)
        first = self.frames

        def settled() -> bool:
            tracker = self.watcher.tracker
            looked = tracker.frames_seen >= 8 and tracker.settled
            return bool(self.frames >= first + 8 and self.idle() and (looked or self.frames >= first + 200))

        return settled

    def stats(self) -> dict[str, Any]:
        st = self.watcher.stats
        return {
            "recognizer": "onnx" if self.deck is None else f"onnx, deck {self.deck.name}",
            "frames": st.frames,
            "recognised": st.recognised,
            "recognised_around_changes": st.regional,
            "occluded": st.occluded,
            "skipped_static": st.skipped_static,
            "seconds": {k: round(v, 2) for k, v in st.seconds.items()},
            "camera_error": self.error,
        }

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
