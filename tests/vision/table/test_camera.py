"""One contract for every camera source: file, folder and sim run here; USB and the Pi camera run
the same checks when CARDTABLE_TEST_CAMERA names one (e.g. usb:0 or picam:), else they are skipped."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera import CameraSource, Frame, SimSource, camera_for, open_camera
from vision.errors import CameraError
from vision.simtable import SimTable
from vision.zones import layout_for

HARDWARE = os.environ.get("CARDTABLE_TEST_CAMERA")


def _image(i: int) -> np.ndarray:
    img = np.zeros((72, 128, 3), np.uint8)
    cv2.putText(img, str(i), (10, 60), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    img[:, :, 1] = 40 + 10 * i
    return img


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (128, 72))
    assert writer.isOpened()
    for i in range(12):
        writer.write(_image(i))
    writer.release()
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "shots"
    d.mkdir()
    for i in range(5):
        cv2.imwrite(str(d / f"f{i:02d}.png"), _image(i))
    (d / "f02b.png").write_bytes(b"not an image")  # skipped, counted
    (d / "notes.txt").write_text("ignored")
    return d


def check_contract(source: CameraSource, *, at_least: int, ends: bool) -> list[Frame]:
    frames = []
    with source:
        for f in source.frames(limit=at_least + 50 if ends else at_least):
            assert isinstance(f, Frame)
            assert f.image.dtype == np.uint8 and f.image.ndim == 3 and f.image.shape[2] == 3
            frames.append(f)
    assert len(frames) >= at_least
    idx = [f.index for f in frames]
    assert idx == sorted(set(idx))  # strictly increasing
    ts = [f.timestamp for f in frames]
    assert ts == sorted(ts)
    with pytest.raises(CameraError):
        source.read()  # closed
    return frames


def test_file_source(video: Path) -> None:
    frames = check_contract(camera_for(f"file:{video}"), at_least=12, ends=True)
    assert len(frames) == 12 and frames[0].image.shape == (72, 128, 3)
    assert abs(frames[3].timestamp - 0.3) < 0.02  # media time
    assert len(check_contract(camera_for(str(video)), at_least=12, ends=True)) == 12  # bare path
    looped = check_contract(camera_for(f"file:{video}?loop=1"), at_least=30, ends=False)
    assert len(looped) == 30


def test_folder_source_skips_unreadable_images(folder: Path) -> None:
    source = camera_for(f"folder:{folder}")
    frames = check_contract(source, at_least=5, ends=True)
    assert len(frames) == 5 and source.bad_frames == 1
    assert [int(f.image[0, 0, 1]) for f in frames] == [40, 50, 60, 70, 80]


def test_sim_source() -> None:
    source = camera_for("sim:chinese-ten,2?seed=1&frames=30")
    assert isinstance(source, SimSource)
    frames = check_contract(source, at_least=30, ends=True)
    assert frames[0].image.shape == (720, 1280, 3)
    assert any(f.index > 0 for f in frames)
    sim = SimTable(layout_for("frog", 3), seed=0)
    own = SimSource(sim)
    with own:
        sim.place("AH", "trick", seat=1)
        got = list(own.frames(limit=sim.settle_frames + 12))
    assert len(got) == sim.settle_frames + 12 and not sim.busy


def test_realtime_source_always_gives_the_newest_frame() -> None:
    source = camera_for("sim:chinese-ten,3?realtime=1&fps=60&script=none")
    with source:
        first = source.read()
        time.sleep(0.3)  # a slow reader (recognition taking long)
        second = source.read()
        assert first is not None and second is not None
        assert second.index - first.index >= 5 and source.dropped >= 4
        # capture runs on its own thread
        assert any(t.name.startswith("camera sim:") for t in threading.enumerate())


def test_bad_specs_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="unknown camera scheme"):
        camera_for("ftp://x")
    with pytest.raises(CameraError, match="no such video"):
        open_camera(f"file:{tmp_path / 'missing.mp4'}")
    with pytest.raises(CameraError, match="no such folder"):
        open_camera(f"folder:{tmp_path / 'nope'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="no images"):
        open_camera(f"folder:{tmp_path / 'empty'}")
    with pytest.raises(CameraError, match="not a number"):
        camera_for("sim:frog,3?fps=fast")
    with pytest.raises(CameraError, match="device number"):
        camera_for("usb:front")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 100)
    with pytest.raises(CameraError):
        src = open_camera(f"file:{bad}")
        if src.read() is None:  # some backends open it and then give nothing
            raise CameraError("empty")


@pytest.mark.skipif(not HARDWARE, reason="no camera attached (set CARDTABLE_TEST_CAMERA=usb:0 or picam:)")
def test_hardware_camera_contract() -> None:
    assert HARDWARE is not None
    source = camera_for(HARDWARE)
    check_contract(source, at_least=20, ends=False)
    assert source.live


def test_picamera_missing_is_a_clear_error() -> None:
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="system-site-packages"):
            open_camera("picam:")
    else:
        pytest.skip("picamera2 is installed: the hardware contract test covers it")
