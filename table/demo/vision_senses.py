"""The demo's real senses: the simulated table seen through the real vision pipeline, and the
simulated dealer machine on a pseudo-terminal driven through the real firmware bridge.

One camera thread does, per frame: tick the world (bots decide and start actions), render the next
frame of :class:`vision.simtable.SimTable`, run it through :class:`vision.watcher.TableWatcher`
(calibration from the mat's ArUco markers, hand detection, the ONNX recogniser, the tracker) and
post the resulting table events to the controller's loop. The dealer simulator reports what it
physically does to the world (a card landing on the layout appears in the scene) before it answers
the host, exactly as a real machine's card is on the table before its reply arrives.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table.cards import Card
from table.controller.adapters import MachineDealer, input_from_event
from table.controller.loop import TableLoop
from table.controller.referee import Input
from table.demo.runner import DemoConfig, WorldLog, _Senses
from table.demo.world import World

MODEL = Path(__file__).resolve().parents[2] / "models" / "cardnet.onnx"


class VisionSenses(_Senses):
    def __init__(self, cfg: DemoConfig, loop: TableLoop) -> None:
        from vision.simtable import SimTable
        from vision.watcher import TableWatcher
        from vision.zones import layout_for

        self.cfg = cfg
        self.loop = loop
        self.layout = layout_for(cfg.game, cfg.players)
        self.sim = SimTable(self.layout, seed=cfg.seed, fps=15.0)
        self.scene = self.sim
        self.recognizer_name = "onnx"
        recognizer: Any
        if MODEL.exists():
            from vision.recognizer import Recognizer

            recognizer = Recognizer(MODEL, threads=1)
        else:  # only until the model ships: say so loudly, the result is then not the real pipeline's
            from vision.simtable import SimOracle

            print(
                f"cardtable demo: no model at {MODEL}; the simulator's truth stands in for the recogniser",
                file=sys.stderr,
            )
            recognizer = SimOracle(self.sim)
            self.recognizer_name = "sim-oracle"
        self.watcher = TableWatcher(self.layout, recognizer)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._quiet_frames = 0
        self._signature: tuple[int, int] = (0, 0)
        self._writer: Any = None
        self.error: str | None = None
        self.on_frame: Callable[[Any, int], None] | None = None  # the table page's camera hook
        self._doubts = random.Random(cfg.seed * 7919 + 1)

    # -- the dealer machine ------------------------------------------------------------------------

    def attach(self, world: World, wlog: WorldLog) -> None:
        from firmware_bridge.dealer import Dealer
        from firmware_bridge.simulator import Simulator, serve_pty

        self.world = world
        speed = self.cfg.sim_speed or (25.0 if self.cfg.fast else 1.0)

        class WorldSimulator(Simulator):
            """The firmware bridge's simulator, telling the world what it physically did."""

            def record(self, action: str, **fields: Any) -> None:
                super().record(action, **fields)
                if action == "shuffle":
                    wlog.append({"hopper": [str(c) for c in self.hopper]})
                elif action == "deal":
                    world.on_dealt(str(fields["target"]), Card.parse(str(fields["card"])), str(fields["face"]))

        self.machine = WorldSimulator(
            seats=self.cfg.players, card_reader=self.cfg.card_reader, seed=self.cfg.seed, speed=speed
        )
        self.server = serve_pty(self.machine)
        self.device = Dealer.open(self.server.url, timeout=5.0)
        self.dealer = MachineDealer(self.device)

    def hopper(self) -> list[Card]:
        return list(self.machine.hopper)

    def restore(self, world: World, log: list[dict[str, Any]]) -> None:
        hopper = world.fast_forward(log)
        if hopper is not None:
            self.machine.load_deck(hopper)

    # -- the camera ----------------------------------------------------------------------------------

    def start(self) -> None:
        if self.cfg.record:
            import cv2

            fourcc = cv2.VideoWriter.fourcc(*"mp4v")
            self._writer = cv2.VideoWriter(
                self.cfg.record, fourcc, 15.0, (self.sim.camera.width, self.sim.camera.height)
            )
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.sim.fps
        next_at = time.monotonic()
        try:
            while not self._stop.is_set():
                self.world.tick()
                frame = self.sim.next_frame()
                events = self.watcher.process(frame.image, frame_index=frame.index, timestamp=frame.timestamp)
                for event in events:
                    self.loop.post(self._doubted(input_from_event(event)))
                if self.on_frame is not None:
                    self.on_frame(frame.image, frame.index)
                if self._writer is not None:
                    self._writer.write(frame.image)
                signature = (self.sim._order, len(self.sim.cards))  # any change to the table restarts the count
                busy = self.sim.busy or frame.hand or bool(events) or signature != self._signature
                self._signature = signature
                self._quiet_frames = 0 if busy else self._quiet_frames + 1
                self.frames += 1
                if not self.cfg.fast:
                    next_at += period
                    delay = next_at - time.monotonic()
                    if delay > 0:
                        self._stop.wait(delay)
                    else:
                        next_at = time.monotonic()
        except Exception as exc:  # reported by the runner; the loop's timeout ends the game
            import traceback

            self.error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()

    def _doubted(self, inp: Input) -> Input:
        """With ``--doubt P``, a card appearing on the layout is reported as doubted with probability P, so the
        referee asks the seat to confirm it (as it does for a card the camera cannot name for sure)."""
        if (
            self.cfg.doubt
            and inp.kind == "appeared"
            and inp.zone == "layout"
            and self._doubts.random() < self.cfg.doubt
        ):
            return dataclasses.replace(inp, data={**inp.data, "doubt": True})
        return inp

    def idle(self) -> bool:
        signature = (self.sim._order, len(self.sim.cards))
        if self.sim.busy or signature != self._signature:
            return False
        # The layout (and any card not yet placed in a zone) decided; face-down capture piles may
        # stay unreadable without holding the game up. After two seconds of quiet, settled anyway.
        return (self._quiet_frames >= 3 and self._layout_settled()) or self._quiet_frames >= 30

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

    def settled(self) -> bool:
        return self.frames >= 12 and self.idle()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._writer is not None:
            self._writer.release()
        self.device.close()
        self.server.stop()

    def stats(self) -> dict[str, Any]:
        st = self.watcher.stats
        return {
            "recognizer": self.recognizer_name,
            "frames": st.frames,
            "recognised": st.recognised,
            "recognised_around_changes": st.regional,
            "occluded": st.occluded,
            "skipped_static": st.skipped_static,
            "seconds": {k: round(v, 2) for k, v in st.seconds.items()},
            "camera_error": self.error,
            "link": str(self.device.stats),
            "device_leds": {str(k): list(v[1]) for k, v in self.machine.leds.items()},
        }
