"""Reading what a user gives: sizes from the header, giant images shrunk or refused before they are decoded, clear
errors, no codec chatter on stderr, a video cut short noticed."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.image_files as image_files
from vision.errors import ImageError
from vision.image_files import ImageHeader, image_header, image_size, read_frames, read_image


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height (its pixels are not there: nothing may try to decode them)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


def _scene(width: int = 200, height: int = 100) -> np.ndarray:
    image = np.full((height, width, 3), 60, np.uint8)
    cv2.rectangle(image, (width // 4, height // 4), (width // 2, height - 10), (240, 240, 240), -1)
    return image


@pytest.mark.parametrize(
    ("ext", "params", "kind"),
    [
        (".png", [], "png"),
        (".jpg", [], "jpeg"),
        (".bmp", [], "bmp"),
        (".tiff", [], "tiff"),
        (".webp", [cv2.IMWRITE_WEBP_QUALITY, 80], "webp"),
        (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101], "webp"),  # lossless (VP8L)
    ],
)
def test_the_size_comes_from_the_header(ext: str, params: list[int], kind: str) -> None:
    ok, data = cv2.imencode(ext, _scene(50, 30), params)
    assert ok
    assert image_header(data.tobytes()) == ImageHeader(kind, 50, 30)
    assert image_size(data.tobytes()) == (50, 30)


def test_a_progressive_jpeg_says_so_and_other_or_cut_headers_say_nothing() -> None:
    ok, data = cv2.imencode(".jpg", _scene(50, 30), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    assert ok and image_header(data.tobytes()) == ImageHeader("jpeg", 50, 30, progressive=True)
    assert image_header(b"GIF89a....") is None
    assert image_header(b"II*\x00\x08\x00") is None  # a TIFF cut inside its header
    assert image_header(_png_header(20000, 20000)[:20]) is None


def test_a_giant_png_is_refused_before_it_is_decoded_with_the_limit_in_the_message(tmp_path: Path) -> None:
    giant = tmp_path / "giant.png"
    giant.write_bytes(_png_header(20000, 20000))
    with pytest.raises(ImageError, match="too large: 20000x20000 is over 40 million pixels"):
        read_image(giant)


def test_a_jpeg_over_the_limit_is_read_shrunk_and_the_user_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(image_files, "MAX_PIXELS", 5_000)  # 200 x 100 is over it, a quarter of that is not
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), _scene())
    notes: list[str] = []
    image = read_image(path, notes.append)
    assert image.shape == (50, 100, 3)
    assert len(notes) == 1 and notes[0].startswith("200x100 is over") and notes[0].endswith("read at 1/2 size")
    monkeypatch.setattr(image_files, "MAX_PIXELS", 1_000)  # an eighth of it is under this
    assert read_image(path).shape == (13, 25, 3)


def test_a_progressive_jpeg_or_another_format_over_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(image_files, "MAX_PIXELS", 2_000)
    progressive = tmp_path / "progressive.jpg"
    cv2.imwrite(str(progressive), _scene(), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    with pytest.raises(ImageError, match="progressive JPEG is held whole"):
        read_image(progressive)
    webp = tmp_path / "big.webp"
    cv2.imwrite(str(webp), _scene())
    with pytest.raises(ImageError, match="too large: 200x100"):
        read_image(webp)
    monkeypatch.setattr(image_files, "MAX_PIXELS", 200)  # 20,000 pixels are over it even at an eighth
    with pytest.raises(ImageError, match="even at an eighth"):
        read_image(_baseline(tmp_path))


def _baseline(tmp_path: Path) -> Path:
    path = tmp_path / "baseline.jpg"
    cv2.imwrite(str(path), _scene())
    return path


def test_a_file_over_the_byte_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(image_files, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.png"
    cv2.imwrite(str(path), _scene())
    with pytest.raises(ImageError, match="file too large"):
        read_image(path)


def test_an_unreadable_jpeg_is_one_clear_error_and_nothing_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.jpg"
    ok, data = cv2.imencode(".jpg", _scene())
    for length in (40, len(data) // 2):
        path.write_bytes(data.tobytes()[:length])
        with pytest.raises(ImageError, match=r"not a readable image \(a JPEG cut short: it has no end marker\)"):
            read_image(path)
    assert capfd.readouterr().err == ""


def test_a_damaged_jpeg_is_read_with_one_note_and_nothing_from_libjpeg_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "damaged.jpg"
    ok, encoded = cv2.imencode(".jpg", np.random.default_rng(1).integers(0, 255, (100, 200, 3), np.uint8))
    data = bytearray(encoded.tobytes())
    data[len(data) // 2 : len(data) // 2 + 4] = b"\xff\xd0\x00\x00"  # a marker inside the scan's data
    path.write_bytes(bytes(data))
    notes: list[str] = []
    image = read_image(path, notes.append)
    assert image.shape == (100, 200, 3)
    assert len(notes) == 1 and notes[0].startswith("damaged image") and "Corrupt JPEG data" in notes[0]
    assert capfd.readouterr().err == ""


def test_empty_missing_and_folder_inputs_say_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        list(read_frames(empty))
    with pytest.raises(ImageError, match="no such file"):
        list(read_frames(tmp_path / "missing.jpg"))
    with pytest.raises(ImageError, match="directory"):
        list(read_frames(tmp_path))
    for bad in (0, -1):
        with pytest.raises(ValueError, match="at least 1"):
            list(read_frames(empty, max_frames=bad))


def _video(path: Path, frames: int, fourcc: str = "MJPG") -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip(f"OpenCV cannot write {fourcc} into {path.suffix} here")
    rng = np.random.default_rng(2)
    for _ in range(frames):
        writer.write(rng.integers(0, 255, (48, 64, 3), np.uint8))
    writer.release()


@pytest.mark.parametrize(("name", "fourcc"), [("whole.mkv", "MJPG"), ("whole.avi", "MJPG"), ("whole.mp4", "mp4v")])
def test_a_whole_video_gives_all_its_frames_and_no_error(tmp_path: Path, name: str, fourcc: str) -> None:
    whole = tmp_path / name
    _video(whole, 20, fourcc)
    assert [i for i, _ in read_frames(whole)] == list(range(20))
    assert [i for i, _ in read_frames(whole, max_frames=5)] == list(range(5))
    assert [i for i, _ in read_frames(whole, max_frames=50)] == list(range(20))


@pytest.mark.parametrize("name", ["whole.mkv", "whole.avi"])
def test_a_video_cut_short_is_an_error_after_its_last_frame_and_quiet(
    tmp_path: Path, name: str, capfd: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / name
    _video(whole, 20)
    cut = tmp_path / f"cut{whole.suffix}"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) * 11 // 20])
    got: list[int] = []
    with pytest.raises(ImageError, match=r"ended at frame \d+ of 20: it is cut short or damaged"):
        for i, _ in read_frames(cut):
            assert i is not None
            got.append(i)
    assert 0 < len(got) < 20 and got == list(range(len(got)))
    assert capfd.readouterr().err == ""
    with pytest.raises(ImageError) as error:
        list(read_frames(cut))
    assert " @ 0x" not in str(
        error.value
    )  # ffmpeg's own prefix is not repeated  # ffmpeg's "File ended prematurely" and the like stay off the terminal
    assert len(list(read_frames(cut, max_frames=len(got)))) == len(got)  # the frames asked for were all there
