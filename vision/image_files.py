"""Read the images and videos a user gives: bounded in size, with a clear error for anything unreadable.

    for frame_no, frame in read_frames(Path("table.jpg"), notes=print):   # frame_no is None for a still image
        ...

An image's size is read from its header before it is decoded (PNG, JPEG, BMP, TIFF, WebP): a baseline JPEG larger
than ``MAX_PIXELS`` is decoded at a half, a quarter or an eighth of its size (libjpeg does that without holding the
whole image) and the caller is told; any other image that large is refused, a progressive JPEG too (libjpeg holds all
of its coefficients while it decodes, whatever the scale). A file over ``MAX_FILE_BYTES`` is refused before it is
read. The codecs' own messages (libjpeg's "Corrupt JPEG data", ffmpeg's "File ended prematurely") are kept off the
terminal: what went wrong is said once, in the error or the note. A video that stops before the frame count its
header gives is an error, raised after its last frame.

Standard error is redirected while a codec runs (``quiet_codecs``): this is for a command's reading of its input
files, not for a process in which other threads write to standard error at the same time.
"""

from __future__ import annotations

import os
import re
import struct
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageError

MAX_PIXELS = 40_000_000
"""The largest image read at full size (about 8400 x 4700): larger ones are shrunk (baseline JPEG) or refused."""
MAX_FILE_BYTES = 512 * 1024 * 1024
"""A still image file larger than this is refused before it is read."""
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".h264", ".mjpeg", ".mjpg"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
_SHRINK = ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4), (8, cv2.IMREAD_REDUCED_COLOR_8))

Notes = Callable[[str], None]


@dataclass
class CodecMessages:
    """What the codecs wrote to standard error inside ``quiet_codecs`` (filled in when the block ends)."""

    text: str = ""

    @property
    def first_line(self) -> str:
        """The first thing said, without ffmpeg's "[matroska,webm @ 0x55d0...] " prefix."""
        line = next((line.strip() for line in self.text.splitlines() if line.strip()), "")
        return re.sub(r"^\[[^\]]* @ 0x[0-9a-f]+\] ", "", line)


@contextmanager
def quiet_codecs() -> Iterator[CodecMessages]:
    """Keep what C libraries print on the process's standard error (file descriptor 2) off the terminal; what they
    printed is in the yielded ``CodecMessages`` once the block ends."""
    messages = CodecMessages()
    try:
        saved = os.dup(2)
    except OSError:
        yield messages
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield messages
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            messages.text = sink.read(4096).decode("utf-8", "replace")


@dataclass(frozen=True)
class ImageHeader:
    """What an image file's header says: its format, size and (JPEG) whether it is progressive."""

    kind: str  # "png", "jpeg", "bmp", "tiff", "webp"
    width: int
    height: int
    progressive: bool = False

    @property
    def pixels(self) -> int:
        return self.width * self.height


def image_header(data: bytes) -> ImageHeader | None:
    """The header of a PNG, JPEG, BMP, TIFF or WebP file, or None for other formats or a header that does not
    say (a damaged or cut file)."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return ImageHeader("png", w, h)
        if data[:2] == b"\xff\xd8":
            return _jpeg_header(data)
        if data[:2] == b"BM" and len(data) >= 26:
            w, h = struct.unpack("<ii", data[18:26])
            return ImageHeader("bmp", abs(w), abs(h))  # a negative height: rows stored top-down
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff_header(data)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_header(data)
    except struct.error:  # a header cut short
        return None
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from an image file's header (``image_header``), or None."""
    header = image_header(data)
    return None if header is None else (header.width, header.height)


def _jpeg_header(data: bytes) -> ImageHeader | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start-of-frame segment
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return ImageHeader("jpeg", w, h, progressive=marker in (0xC2, 0xC6, 0xCA, 0xCE))
        i += 2 + length
    return None


def _tiff_header(data: bytes) -> ImageHeader | None:
    """The first image's ImageWidth (256) and ImageLength (257) tags."""
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[ifd : ifd + 2])
    size: dict[int, int] = {}
    for k in range(min(count, 4096)):
        entry = data[ifd + 2 + 12 * k : ifd + 14 + 12 * k]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8 : 10 if kind == 3 else 12])[0]
    return ImageHeader("tiff", size[256], size[257]) if len(size) == 2 else None


def _webp_header(data: bytes) -> ImageHeader | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return ImageHeader("webp", w & 0x3FFF, h & 0x3FFF)
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return ImageHeader("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return ImageHeader("webp", w, h)
    return None


def _megapixels() -> str:
    return f"{MAX_PIXELS // 1_000_000} million pixels"


def decode_flag(header: ImageHeader | None, notes: Notes | None = None) -> tuple[int, int]:
    """(cv2.imdecode flag, shrink factor) for an image with this header; raises ImageError for one too large to
    read at all. ``notes`` hears of an image that will be read shrunk."""
    if header is None or header.pixels <= MAX_PIXELS:
        return cv2.IMREAD_COLOR, 1
    size = f"{header.width}x{header.height}"
    if header.kind != "jpeg":
        raise ImageError(
            f"image too large: {size} is over {_megapixels()} (shrink it, or save it as a baseline JPEG, which is "
            "read shrunk)"
        )
    if header.progressive:
        raise ImageError(
            f"image too large: {size} is over {_megapixels()}, and a progressive JPEG is held whole while it is "
            "decoded (shrink it, or save it as a baseline JPEG, which is read shrunk)"
        )
    for factor, flag in _SHRINK:
        if header.pixels / factor**2 <= MAX_PIXELS:
            if notes is not None:
                notes(f"{size} is over {_megapixels()}: read at 1/{factor} size")
            return flag, factor
    raise ImageError(f"image too large: {size} is over {_megapixels()} even at an eighth of its size")


def read_image(path: Path, notes: Notes | None = None) -> np.ndarray:
    """A still image, BGR uint8; raises ImageError saying why it cannot be read. ``notes`` hears of an image read
    shrunk, and of one decoded despite damage (what the codec said of it)."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ImageError(f"file too large ({size / 2**20:.0f} MiB; at most {MAX_FILE_BYTES // (1024 * 1024)} MiB)")
    data = path.read_bytes()
    if not data:
        raise ImageError("not a readable image (empty file)")
    flag, _ = decode_flag(image_header(data), notes)
    with quiet_codecs() as said:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    if image is None:
        if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
            raise ImageError("not a readable image (a JPEG cut short: it has no end marker)")
        raise ImageError("not a readable image" + (f" ({said.first_line})" if said.first_line else ""))
    if image.shape[0] * image.shape[1] > MAX_PIXELS:  # a format whose header was not read
        raise ImageError(f"image too large: {image.shape[1]}x{image.shape[0]} is over {_megapixels()}")
    if said.first_line and notes is not None:
        notes(f"damaged image, read as far as it could be decoded ({said.first_line})")
    return np.asarray(image)


def read_frames(
    path: Path, max_frames: int | None = None, notes: Notes | None = None
) -> Iterator[tuple[int | None, np.ndarray]]:
    """(frame index, or None for a still image; BGR frame). Raises ImageError for unreadable input, and after the
    last frame of a video that ends before its header's frame count; ``notes`` hears of an image read shrunk or
    damaged. ``max_frames`` (at least 1): at most this many frames of a video."""
    if max_frames is not None and max_frames < 1:
        raise ValueError(f"max_frames must be at least 1, got {max_frames}")
    if not path.exists():
        raise ImageError("no such file")
    if path.is_dir():
        raise ImageError("is a directory")
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        try:
            yield None, read_image(path, notes)
            return
        except ImageError as exc:
            if path.suffix.lower() in IMAGE_SUFFIXES or str(exc) != "not a readable image":
                raise  # an image by its name or its content: not tried as a video
    yield from _video_frames(path, max_frames)


def _video_frames(path: Path, max_frames: int | None) -> Iterator[tuple[int, np.ndarray]]:
    with quiet_codecs():
        capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened():
            raise ImageError("not a readable image or video")
        width, height = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
        if width * height > MAX_PIXELS:
            raise ImageError(f"video frames too large: {width}x{height} is over {_megapixels()}")
        expected = max(0, int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0))
        count = 0
        last_said = ""  # what the codec said while the last frame was read
        while max_frames is None or count < max_frames:
            with quiet_codecs() as said:
                ok, frame = capture.read()
            last_said = said.first_line
            if not ok or frame is None:
                break
            if frame.shape[0] * frame.shape[1] > MAX_PIXELS:
                raise ImageError(f"video frames too large: {frame.shape[1]}x{frame.shape[0]}")
            yield count, frame
            count += 1
        why = f" ({last_said})" if last_said else ""
        if count == 0:
            raise ImageError(f"not a readable image or video (no frames){why}")
        wanted = expected if max_frames is None else min(expected, max_frames)
        if count < wanted:
            raise ImageError(f"the video ended at frame {count} of {expected}: it is cut short or damaged{why}")
    finally:
        capture.release()
