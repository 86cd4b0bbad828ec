"""Camera sources, opened by a URL-like spec (like pyserial's ``serial_for_url``):

=====================  ===============================================================
``picam:`` / picam:1   Raspberry Pi camera via picamera2 (OS package ``python3-picamera2``;
                       create the venv with ``--system-site-packages`` so it can be imported)
``usb:0``              a USB camera through ``cv2.VideoCapture`` (device index)
``rtsp://...``         a network stream (also ``http://``, ``https://``)
``file:game.mp4``      a video file (a bare path to a video works too)
``folder:shots/``      the images of a folder in name order (png, jpg, bmp, tif, webp)
``sim:chinese-ten,3``  the simulated table (:mod:`vision.simtable`) with a random demo script
=====================  ===============================================================

A scheme beyond the built-in ones registers itself, as pyserial's URL handlers and gpiozero's pin
factories do: an entry point in the group ``cardtable.camera_schemes`` (the simulator's ``sim:``), or
:func:`register_scheme` at run time. This module never imports the simulator.

Options follow a ``?``: ``fps=15``, ``width=1280``, ``height=720``, ``realtime=1`` (pace a file or
the simulator at ``fps`` and drop frames a slow reader misses), ``loop=1`` (files and folders), and
for ``sim:`` also ``seed``, ``tilt``, ``yaw``, ``noise``, ``blur``, ``script=random|deck|none`` (``deck``: each frame
shows the next 13 cards of a shuffled deck laid out face up, the views ``cardtable deck learn --camera`` takes).

Live cameras capture on their own thread and :meth:`CameraSource.read` always returns the newest
frame (frames the reader was too slow for are dropped, counted in ``dropped``), so recognition never
holds capture back. Files, folders and the simulator give every frame in order unless
``realtime=1``. After a warm-up, exposure and white balance are locked where the backend allows.
"""

from __future__ import annotations

import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

import cv2
import numpy as np

from vision.errors import CameraError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mjpeg", ".mjpg")
WARMUP_FRAMES = 15
SCHEME_ENTRY_POINTS = "cardtable.camera_schemes"  # schemes that register themselves (the simulator's sim:)


@dataclass(frozen=True, eq=False)
class Frame:
    image: np.ndarray  # BGR uint8, height x width x 3
    index: int  # 0, 1, 2, ... in capture order (gaps where frames were dropped)
    timestamp: float  # seconds: time.monotonic() at capture, or the media/simulated time


class CameraSource(ABC):
    """One contract for every camera. Use as a context manager or call :meth:`close`."""

    live = False  # a real camera: threaded, newest frame wins

    def __init__(self, spec: str, *, fps: float = 15.0, realtime: bool = False) -> None:
        self.spec = spec
        self.fps = fps
        self.realtime = realtime or self.live
        self.dropped = 0
        self.bad_frames = 0  # unreadable frames skipped
        self._index = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._last_read = -1
        self._ended = False
        self._error: BaseException | None = None
        self._stopping = threading.Event()

    # backends implement these -----------------------------------------------------------------------
    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        """The next image (BGR) and its timestamp if the backend has one; None at the end."""

    def _release(self) -> None:  # noqa: B027 (optional hook: most backends have nothing to release)
        return None

    # the contract -------------------------------------------------------------------------------------
    def open(self) -> CameraSource:
        self._open()
        if self.realtime:
            self._thread = threading.Thread(target=self._run, name=f"camera {self.spec}", daemon=True)
            self._thread.start()
        return self

    def __enter__(self) -> CameraSource:
        return self.open()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._release()

    def read(self, timeout: float | None = 5.0) -> Frame | None:
        """The next frame (the newest one, for live and realtime sources); ``None`` when the source
        has ended. Raises :class:`CameraError` when a live camera stops delivering."""
        if self._closed:
            raise CameraError(f"{self.spec}: source is closed")
        if not self.realtime:
            return self._next_sync()
        with self._cond:
            ok = self._cond.wait_for(
                lambda: (
                    self._ended
                    or self._error is not None
                    or (self._latest is not None and self._latest.index > self._last_read)
                ),
                timeout,
            )
            if self._error is not None:
                raise CameraError(f"{self.spec}: {self._error}") from self._error
            if not ok:
                raise CameraError(f"{self.spec}: no frame for {timeout} s")
            if self._latest is None or self._latest.index <= self._last_read:
                return None
            frame = self._latest
            self.dropped += max(0, frame.index - self._last_read - 1)
            self._last_read = frame.index
            return frame

    def frames(self, limit: int | None = None) -> Iterator[Frame]:
        n = 0
        while limit is None or n < limit:
            frame = self.read()
            if frame is None:
                return
            n += 1
            yield frame

    def _next_sync(self) -> Frame | None:
        while True:
            got = self._grab()
            if got is None:
                return None
            image, ts = got
            if _valid(image):
                break
            self.bad_frames += 1
        frame = Frame(image, self._index, ts if ts is not None else self._index / self.fps)
        self._index += 1
        return frame

    def _run(self) -> None:
        period = 1.0 / self.fps if not self.live else 0.0
        next_t = time.monotonic()
        failures = 0
        while not self._stopping.is_set():
            try:
                got = self._grab()
            except Exception as exc:  # a backend failure ends the stream with a reason, never silently
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()
                return
            if got is None:
                if self.live and failures < 50:  # a dropped USB frame: try again
                    failures += 1
                    self._stopping.wait(0.02)
                    continue
                with self._cond:
                    self._ended = True
                    self._cond.notify_all()
                return
            failures = 0
            image, ts = got
            if not _valid(image):
                self.bad_frames += 1
                continue
            now = time.monotonic()
            with self._cond:
                self._latest = Frame(image, self._index, ts if ts is not None else now)
                self._index += 1
                self._cond.notify_all()
            if period:
                next_t = max(next_t + period, time.monotonic() - period)  # no burst after a slow frame
                self._stopping.wait(max(0.0, next_t - time.monotonic()))


def _valid(image: Any) -> bool:
    return isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] == 3 and image.size > 0


class VideoCaptureSource(CameraSource):
    """USB cameras, network streams and video files through OpenCV."""

    def __init__(
        self,
        spec: str,
        target: int | str,
        *,
        live: bool,
        fps: float = 15.0,
        realtime: bool = False,
        width: int | None = None,
        height: int | None = None,
        loop: bool = False,
    ) -> None:
        self.live = live
        super().__init__(spec, fps=fps, realtime=realtime)
        self.target = target
        self.width, self.height, self.loop = width, height, loop
        self._cap: cv2.VideoCapture | None = None
        self._grabbed = 0
        self._time_offset = self._last_ts = 0.0
        self.locked = False  # exposure and white balance locked after warm-up

    def _open(self) -> None:
        if isinstance(self.target, str) and not self.live and not Path(self.target).is_file():
            raise CameraError(f"{self.spec}: no such video file")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            raise CameraError(f"{self.spec}: cannot open (no such camera, stream or readable video)")
        if self.live:
            if self.width:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            if self.height:
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            cap.set(cv2.CAP_PROP_FPS, self.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # keep the driver from queueing stale frames
        else:
            media_fps = cap.get(cv2.CAP_PROP_FPS)
            if media_fps and 1 <= media_fps <= 240:
                self.fps = float(media_fps)
        self._cap = cap

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok:
            if self.loop and not self.live:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                self._time_offset = self._last_ts + 1.0 / self.fps  # time keeps running across loops
                ok, image = self._cap.read()
            if not ok:
                return None
        self._grabbed += 1
        if self.live and self._grabbed == WARMUP_FRAMES:
            self._lock_exposure()
        if self.live:
            return image, None
        self._last_ts = self._time_offset + self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
        return image, self._last_ts

    def _lock_exposure(self) -> None:
        """Freeze what auto-exposure and auto white balance settled on (V4L2: 0.25 = manual)."""
        assert self._cap is not None
        cap = self._cap
        exposure = cap.get(cv2.CAP_PROP_EXPOSURE)
        ok1 = cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25)
        if exposure:
            cap.set(cv2.CAP_PROP_EXPOSURE, exposure)
        ok2 = cap.set(cv2.CAP_PROP_AUTO_WB, 0)
        self.locked = bool(ok1 or ok2)

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()


class FolderSource(CameraSource):
    """The images of a folder, in name order; unreadable files are skipped and counted."""

    def __init__(
        self, spec: str, folder: str, *, fps: float = 15.0, realtime: bool = False, loop: bool = False
    ) -> None:
        super().__init__(spec, fps=fps, realtime=realtime)
        self.folder = Path(folder)
        self.loop = loop
        self._files: list[Path] = []
        self._pos = 0

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise CameraError(f"{self.spec}: no such folder")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise CameraError(f"{self.spec}: no images ({', '.join(IMAGE_SUFFIXES)}) in the folder")

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        while True:
            if self._pos >= len(self._files):
                if not self.loop:
                    return None
                self._pos = 0
            path = self._files[self._pos]
            self._pos += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return image, None
            self.bad_frames += 1
            if self.bad_frames >= len(self._files) and self.loop:
                return None


class PiCameraSource(CameraSource):
    """The Raspberry Pi camera through picamera2 ("RGB888" is BGR in memory, as OpenCV wants)."""

    live = True

    def __init__(
        self, spec: str, camera_num: int = 0, *, fps: float = 15.0, width: int = 1280, height: int = 720
    ) -> None:
        super().__init__(spec, fps=fps, realtime=True)
        self.camera_num, self.width, self.height = camera_num, width, height
        self._cam: Any = None
        self._grabbed = 0
        self.locked = False

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise CameraError(
                f"{self.spec}: picamera2 is not importable ({exc}); install python3-picamera2 "
                "and create the venv with --system-site-packages"
            ) from None
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_video_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"},
                controls={"FrameRate": self.fps},
                buffer_count=2,
            )
            cam.configure(config)
            cam.start()
        except Exception as exc:
            raise CameraError(f"{self.spec}: cannot start the camera: {exc}") from exc
        self._cam = cam

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        image = self._cam.capture_array("main")
        self._grabbed += 1
        if self._grabbed == WARMUP_FRAMES:
            md = self._cam.capture_metadata()
            controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
            for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
                if key in md:
                    controls[key] = md[key]
            self._cam.set_controls(controls)
            self.locked = True
        return np.ascontiguousarray(image[:, :, :3]), None

    def _release(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam.close()


class SimSource(CameraSource):
    """Frames from a :class:`vision.simtable.SimTable`. With ``script="random"`` it keeps the table
    busy with random plays (placing, capturing, flipping the stock); with ``script="deck"`` each frame shows
    the next 13 cards of a shuffled deck laid out face up (``vision.simtable.DeckLayout``); with ``script="none"``
    the caller (the demo controller) queues actions on ``source.sim`` itself."""

    def __init__(
        self,
        sim: Any,
        *,
        spec: str = "sim:",
        fps: float | None = None,
        realtime: bool = False,
        script: str = "none",
        seed: int = 0,
        limit: int | None = None,
    ) -> None:
        super().__init__(spec, fps=fps or sim.fps, realtime=realtime)
        self.sim = sim
        self.script = script
        self.limit = limit
        self._rng = random.Random(seed)
        self.last_sim_frame: Any = None

    def _open(self) -> None:
        if self.script not in ("none", "random", "deck"):
            raise CameraError(f"{self.spec}: script must be random, deck or none")
        if self.script == "random":
            from vision.simtable import RandomPlay

            self._play: Any = RandomPlay(self.sim, seed=self._rng.randrange(1 << 30))
        elif self.script == "deck":
            from vision.simtable import DeckLayout

            self._play = DeckLayout(self.sim, seed=self._rng.randrange(1 << 30))

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        if self.limit is not None and self._index >= self.limit:
            return None
        if self.script == "deck" or (self.script == "random" and not self.sim.busy):
            self._play.step()
        f = self.sim.next_frame()
        self.last_sim_frame = f
        return f.image, f.timestamp


def _options(query: str) -> dict[str, str]:
    return dict(parse_qsl(query, keep_blank_values=True))


def number_option(opts: dict[str, str], key: str, default: float, spec: str) -> float:
    """The number option ``key`` of ``spec`` (``default`` when absent); a :class:`CameraError` if it is not one."""
    try:
        return float(opts.get(key, default))
    except ValueError:
        raise CameraError(f"{spec}: option {key}={opts[key]!r} is not a number") from None


def flag_option(opts: dict[str, str], key: str) -> bool:
    """Whether the yes/no option ``key`` is on (``1``, ``true``, ``yes``); off when absent."""
    return opts.get(key, "0") in ("1", "true", "yes")


SchemeOpener = Callable[[str, str, dict[str, str]], CameraSource]
"""Builds (not opens) the source of a spec from the spec, what follows its ``scheme:`` and its options."""

_schemes: dict[str, SchemeOpener] = {}


def register_scheme(scheme: str, opener: SchemeOpener) -> None:
    """Open ``scheme:...`` specs with ``opener`` (at run time; installed schemes are entry points)."""
    _schemes[scheme] = opener


def scheme_opener(scheme: str) -> SchemeOpener | None:
    """The opener registered for ``scheme``: at run time, else by an installed entry point; None if none."""
    if scheme not in _schemes:
        for point in entry_points(group=SCHEME_ENTRY_POINTS, name=scheme):
            _schemes[scheme] = point.load()
    return _schemes.get(scheme)


def scheme_names() -> list[str]:
    """The schemes registered now (the built-in ones are not listed)."""
    return sorted({*_schemes, *(point.name for point in entry_points(group=SCHEME_ENTRY_POINTS))})


def open_camera(spec: str, **overrides: Any) -> CameraSource:
    """Open a camera by spec (see the module doc). The source is opened; close it when done."""
    source = camera_for(spec, **overrides)
    return source.open()


def camera_for(spec: str, **overrides: Any) -> CameraSource:
    """Build (not open) the source for ``spec``."""
    if not spec:
        raise CameraError("empty camera spec")
    base, _, query = spec.partition("?") if not spec.startswith(("rtsp:", "http:", "https:")) else (spec, "", "")
    opts = _options(query)
    opts.update({k: str(v) for k, v in overrides.items()})
    fps = number_option(opts, "fps", 15.0, spec)
    realtime = flag_option(opts, "realtime")
    loop = flag_option(opts, "loop")
    width = int(number_option(opts, "width", 1280, spec))
    height = int(number_option(opts, "height", 720, spec))
    scheme, sep, rest = base.partition(":")
    if not sep or len(scheme) == 1:  # a bare path (or a Windows drive letter)
        scheme, rest = ("folder", base) if Path(base).is_dir() else ("file", base)
    scheme = scheme.lower()
    if scheme == "picam":
        return PiCameraSource(spec, int(rest or 0), fps=fps, width=width, height=height)
    if scheme == "usb":
        try:
            index = int(rest or 0)
        except ValueError:
            raise CameraError(f"{spec}: usb:N needs a device number") from None
        return VideoCaptureSource(spec, index, live=True, fps=fps, width=width, height=height)
    if scheme in ("rtsp", "http", "https"):
        return VideoCaptureSource(spec, spec, live=True, fps=fps, width=width, height=height)
    if scheme == "file":
        return VideoCaptureSource(spec, rest, live=False, fps=fps, realtime=realtime, loop=loop)
    if scheme == "folder":
        return FolderSource(spec, rest, fps=fps, realtime=realtime, loop=loop)
    opener = scheme_opener(scheme)
    if opener is not None:
        return opener(spec, rest, opts)
    known = ", ".join(["picam:", "usb:N", "rtsp://", "file:", "folder:", *(f"{name}:" for name in scheme_names())])
    raise CameraError(
        f"{spec}: unknown camera scheme {scheme!r} ({known}; a scheme installed as an entry point needs the "
        "package reinstalled: make setup)"
    )
