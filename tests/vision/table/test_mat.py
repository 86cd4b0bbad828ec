"""The printable mat: markers detectable, true-size PNG and PDF, the command line."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cli import main
from vision.calibration import MarkerDetector, calibrate_once
from vision.mat import draw_mat, single_image_pdf, write_mat
from vision.zones import layout_for


@pytest.mark.parametrize("game, n", [("chinese-ten", 4), ("frog", 7), ("garbage", 8)])
def test_every_marker_is_found_on_the_drawn_mat(game: str, n: int) -> None:
    layout = layout_for(game, n)
    img = draw_mat(layout, px_per_mm=2.0)
    assert img.shape == (round(layout.height_mm * 2), round(layout.width_mm * 2), 3)
    on_table = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 60, 60))
    seen = {s.id for s in MarkerDetector().detect(on_table)}
    assert seen == layout.marker_ids
    cal = calibrate_once(layout, on_table)  # a straight-on view at 2 px/mm
    pts = np.array([[100.0, 100.0], [layout.width_mm - 50, layout.height_mm - 70]])
    assert np.abs(cal.to_mat(pts * 2.0 + 40) - pts).max() < 0.5


def test_png_is_true_size(tmp_path: Path) -> None:
    out = write_mat(layout_for("chinese-ten", 3), tmp_path / "mat.png", dpi=100)
    data = out.read_bytes()
    i = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[i + 4 : i + 13])
    assert unit == 1 and ppm_x == ppm_y == round(100 / 0.0254)
    assert zlib.crc32(data[i : i + 13]) == struct.unpack(">I", data[i + 13 : i + 17])[0]
    img = cv2.imread(str(out))
    assert img is not None and img.shape[1] == round(594 / 25.4 * 100)


def test_pdf_structure_and_page_size(tmp_path: Path) -> None:
    out = write_mat(layout_for("frog", 3), tmp_path / "mat.pdf", dpi=50)
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    media = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert media and abs(float(media.group(1)) - 594 * 72 / 25.4) < 0.01
    startxref = re.search(rb"startxref\n(\d+)", pdf)
    assert startxref
    xref = int(startxref.group(1))
    assert pdf[xref : xref + 4] == b"xref"
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", pdf)]
    for n, off in enumerate(offsets, start=1):
        assert pdf[off:].startswith(f"{n} 0 obj".encode())


def test_pdf_image_decodes_back() -> None:
    img = np.random.default_rng(0).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    pdf = single_image_pdf(img, 30, 20)
    start = pdf.index(b"stream\n") + 7
    end = pdf.index(b"\nendstream", start)
    rgb = np.frombuffer(zlib.decompress(pdf[start:end]), np.uint8).reshape(20, 30, 3)
    assert np.array_equal(rgb[:, :, ::-1], img)


def test_cli_mat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "--game", "garbage", "--players", "5", "--out", str(tmp_path / "g.pdf"), "--dpi", "40"]) == 0
    assert (tmp_path / "g.pdf").stat().st_size > 1000
    assert "garbage-5" in capsys.readouterr().out
    assert main(["mat", "--list"]) == 0
    assert "frog-7" in capsys.readouterr().out
    assert main(["mat", "--game", "poker", "--out", str(tmp_path / "x.png")]) == 2
    assert "no mat layout" in capsys.readouterr().err
    assert main(["mat", "--out", str(tmp_path / "x.gif")]) == 2
    assert main(["mat"]) == 2
