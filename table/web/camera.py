"""The camera's side of the page, in the controller's process: what the camera thread publishes
(:class:`CameraFrame`: the image, the cards it recognised and the mat's zones, all in image pixels) and
:class:`FrameEncoder`, which turns the latest frame into a JPEG for the page's server in a thread of its own.

The camera thread only hands over references (:meth:`FrameEncoder.offer`); the encoder sends a frame when
the table moved or what was recognised changed, at most ``fps`` a second, none while the table is still and
none while nobody watches (unless the server asks for one, :meth:`FrameEncoder.ask`). The server sends a frame
to the viewers inside its stream message, so a viewer costs the server one write a frame, not a request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from table.web.feed import EncodedFrame
from table.web.model import FrameJson, SeenCardJson, ZoneJson

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class SeenCard:
    card: str
    confidence: float
    corners: tuple[Point, ...]  # image pixels


@dataclass(frozen=True, slots=True)
class ZoneOutline:
    name: str
    label: str
    kind: str
    polygon: tuple[Point, ...]  # image pixels


@dataclass(frozen=True, slots=True)
class CameraFrame:
    """One camera frame as the page shows it. ``image`` (BGR) is not changed after it is published."""

    image: np.ndarray
    index: int
    cards: tuple[SeenCard, ...]
    zones: tuple[ZoneOutline, ...]


def seen_cards(observations: Sequence[Any]) -> tuple[SeenCard, ...]:
    """Recognitions (anything with ``card``, ``confidence`` and ``corners``) as :class:`SeenCard`."""
    out = []
    for o in observations:
        corners = np.asarray(o.corners, np.float64).reshape(-1, 2)
        out.append(SeenCard(str(o.card), float(o.confidence), tuple((float(x), float(y)) for x, y in corners)))
    return tuple(out)


class ZoneOutlines:
    """The mat's zones in image pixels for a calibration (kept while the calibration is the same object)."""

    def __init__(self) -> None:
        self._for: object = None
        self._zones: tuple[ZoneOutline, ...] = ()

    def of(self, layout: Any, calibration: Any) -> tuple[ZoneOutline, ...]:
        if calibration is None:
            return ()
        if calibration is not self._for:
            zones = []
            for z in layout.zones:
                x, y, w, h = z.rect
                corners = calibration.to_image(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64))
                zones.append(ZoneOutline(z.name, z.label, z.kind, tuple((float(a), float(b)) for a, b in corners)))
            self._for, self._zones = calibration, tuple(zones)
        return self._zones


class WatcherFrames:
    """Frames of a ``vision.watcher.TableWatcher``: call :meth:`frame` right after ``watcher.process``."""

    def __init__(self, watcher: Any) -> None:
        self.watcher = watcher
        self.zones = ZoneOutlines()

    def frame(self, image: np.ndarray, index: int) -> CameraFrame:
        w = self.watcher
        return CameraFrame(image, index, seen_cards(w.last_observations), self.zones.of(w.layout, w.calibration))


class FrameEncoder:
    """Encodes the latest offered frame when someone looks (``wanted()``) or asks (:meth:`ask`), on its own
    thread; ``on_frame`` gets each frame encoded, ``on_answer`` each ask once it is answered (after the frame it
    encoded for it, if any)."""

    def __init__(
        self,
        on_frame: Callable[[EncodedFrame], None],
        wanted: Callable[[], bool],
        *,
        on_answer: Callable[[int], None] = lambda ident: None,
        fps: float = 8.0,
        max_width: int = 800,
        quality: int = 70,
        still_level: int = 10,
    ) -> None:
        self.on_frame = on_frame
        self.on_answer = on_answer
        self.wanted = wanted
        self.period = 1.0 / fps
        self.max_width = max_width
        self.quality = quality
        self.still_level = still_level
        self._latest: CameraFrame | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one encoding at a time
        self._asked: list[int] = []
        self._asked_lock = threading.Lock()
        self._seq = 0
        self._sent_from: CameraFrame | None = None
        self._sent_thumb: np.ndarray | None = None
        self._sent_cards: tuple[tuple[str, tuple[Point, ...]], ...] = ()
        self._last_at = 0.0
        self._thread: threading.Thread | None = None
        self.encoded = 0

    # -- the camera thread ----------------------------------------------------------------------

    def offer(self, frame: CameraFrame) -> None:
        self._latest = frame
        self._wake.set()

    # -- the server's asks (any thread) ---------------------------------------------------------

    def ask(self, ident: int) -> None:
        """Encode the latest frame if it is newer than the last one encoded, whoever watches; then answer
        ``ident``."""
        with self._asked_lock:
            self._asked.append(ident)
        self._wake.set()

    # -- the encoder thread ---------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="web-frames", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._asked_lock:
                asked, self._asked = self._asked, []
            if not asked and not self.wanted():
                continue
            wait = self._last_at + self.period - time.monotonic()
            if wait > 0 and self._stop.wait(wait):
                return
            frame = self._latest
            if frame is not None and frame is not self._sent_from:
                try:
                    encoded = self.encode(frame, only_if_changed=not asked)
                except Exception:  # a frame that cannot be encoded is skipped; the next one is tried
                    encoded = None
                if encoded is not None:
                    self.on_frame(encoded)
            for ident in asked:
                self.on_answer(ident)

    def encode(self, frame: CameraFrame, *, only_if_changed: bool = False) -> EncodedFrame | None:
        """Encode ``frame`` (None when ``only_if_changed`` and neither the picture nor the cards moved)."""
        with self._lock:
            self._last_at = time.monotonic()
            image = frame.image
            small = cv2.resize(image, (80, 45), interpolation=cv2.INTER_AREA)
            thumb = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
            cards = tuple((c.card, tuple((round(x), round(y)) for x, y in c.corners)) for c in frame.cards)
            still = (
                self._sent_thumb is not None
                and int(cv2.absdiff(thumb, self._sent_thumb).max()) <= self.still_level
                and cards == self._sent_cards
            )
            self._sent_from = frame
            if only_if_changed and still:
                return None
            h, w = image.shape[:2]
            scale = min(1.0, self.max_width / w)
            if scale < 1.0:
                image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if not ok:
                raise ValueError("the frame could not be encoded as JPEG")
            self._seq += 1
            info = FrameJson(
                seq=self._seq,
                index=frame.index,
                width=int(image.shape[1]),
                height=int(image.shape[0]),
                cards=[
                    SeenCardJson(card=c.card, confidence=round(c.confidence, 3), corners=_scaled(c.corners, scale))
                    for c in frame.cards
                ],
                zones=[
                    ZoneJson(name=z.name, label=z.label, kind=z.kind, polygon=_scaled(z.polygon, scale))
                    for z in frame.zones
                ],
            )
            self._sent_thumb, self._sent_cards = thumb, cards
            self.encoded += 1
            return EncodedFrame(self._seq, buf.tobytes(), info)

    @property
    def has_camera(self) -> bool:
        return self._latest is not None


def _scaled(points: Sequence[Point], scale: float) -> list[list[float]]:
    return [[round(x * scale, 1), round(y * scale, 1)] for x, y in points]
