"""Draw a printable play mat: ArUco markers in the outer band, the game's zones outlined and
labelled, a 100 mm scale bar to check the print scale. Output PNG or PDF (a minimal single-image
PDF written here, no extra dependency). The simulator renders the same drawing as its table."""

from __future__ import annotations

import math
import zlib
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageError
from vision.zones import MARKER_QUIET_MM, Layout, Zone

FELT = (58, 112, 46)  # BGR: a printed green; white cards stand out and it is far from skin tones
# Zones are marked by corner brackets and dashed card outlines on one even colour: a filled or fully
# outlined rectangle of a card's proportions would look like a card to the detector.
BRACKET_MM = 10.0
INK = (190, 225, 185)
PLAIN_INK = (60, 60, 60)


def aruco_dictionary(name: str = "DICT_4X4_50") -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def draw_mat(layout: Layout, *, px_per_mm: float = 4.0, plain: bool = False, labels: bool = True) -> np.ndarray:
    """The mat as a BGR image, ``px_per_mm`` pixels per millimetre. ``plain`` draws outlines on
    white (saves ink) instead of the green print."""
    if not 0.5 <= px_per_mm <= 24:
        raise ValueError(f"px_per_mm must be 0.5..24, got {px_per_mm}")
    s = px_per_mm
    w, h = round(layout.width_mm * s), round(layout.height_mm * s)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (255, 255, 255) if plain else FELT
    ink = PLAIN_INK if plain else INK
    line = max(1, round(0.6 * s))

    def px(v: float) -> int:
        return round(v * s)

    for z in sorted(layout.zones, key=lambda z: -z.area):  # big zones first, piles drawn over them
        x, y, zw, zh = z.rect
        b = min(BRACKET_MM, zw / 3, zh / 3)
        for cx, cy, dx, dy in ((x, y, 1, 1), (x + zw, y, -1, 1), (x + zw, y + zh, -1, -1), (x, y + zh, 1, -1)):
            cv2.line(img, (px(cx), px(cy)), (px(cx + dx * b), px(cy)), ink, line, cv2.LINE_AA)
            cv2.line(img, (px(cx), px(cy)), (px(cx), px(cy + dy * b)), ink, line, cv2.LINE_AA)
        for slot in z.slots:
            _dashed_card(img, slot.x, slot.y, slot.angle, layout.card_mm, s, ink)
        if labels:
            _label(img, z, s, ink)
    dictionary = aruco_dictionary(layout.dictionary)
    size = px(layout.marker_mm)
    quiet = max(2, px(MARKER_QUIET_MM))
    for m in layout.markers:
        x0, y0 = px(m.x), px(m.y)
        cv2.rectangle(
            img, (x0 - quiet, y0 - quiet), (x0 + size + quiet - 1, y0 + size + quiet - 1), (255, 255, 255), -1
        )
        img[y0 : y0 + size, x0 : x0 + size] = cv2.cvtColor(
            cv2.aruco.generateImageMarker(dictionary, m.id, size), cv2.COLOR_GRAY2BGR
        )
    if labels:
        bar_y = layout.height_mm - 14  # in the marker band, between the first two bottom markers
        bx = 6 + layout.marker_mm + 70
        cv2.line(img, (px(bx - 50), px(bar_y)), (px(bx + 50), px(bar_y)), ink, line)
        for t in (-50, 50):
            cv2.line(img, (px(bx + t), px(bar_y - 3)), (px(bx + t), px(bar_y + 3)), ink, line)
        _text(
            img,
            f"100 mm   {layout.game} {layout.players} players   {layout.mat_name}",
            (bx - 50, bar_y - 5),
            5.0,
            s,
            ink,
        )
    return img


def _dashed_card(
    img: np.ndarray,
    cx: float,
    cy: float,
    angle: float,
    card_mm: tuple[float, float],
    s: float,
    ink: tuple[int, int, int],
) -> None:
    w, h = card_mm
    a = math.radians(angle)
    c, si = math.cos(a), math.sin(a)
    corners = [
        (cx + dx * c + dy * si, cy - dx * si + dy * c)
        for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    ]
    for i in range(4):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
        n = max(3, int(math.hypot(x1 - x0, y1 - y0) / 3))  # 3 mm steps: short dashes, wide gaps
        for k in range(1, n - 1, 3):
            t0, t1 = k / n, min(1.0, (k + 1) / n)
            cv2.line(
                img,
                (round((x0 + (x1 - x0) * t0) * s), round((y0 + (y1 - y0) * t0) * s)),
                (round((x0 + (x1 - x0) * t1) * s), round((y0 + (y1 - y0) * t1) * s)),
                ink,
                max(1, round(0.4 * s)),
                cv2.LINE_AA,
            )


def _text(
    img: np.ndarray,
    text: str,
    org_mm: tuple[float, float],
    height_mm: float,
    s: float,
    ink: tuple[int, int, int],
    *,
    upside_down: bool = False,
) -> None:
    scale = height_mm * s / 22.0  # Hershey simplex glyphs are about 22 px tall at scale 1
    thick = max(1, round(scale * 1.6))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    patch = np.zeros((th + base + 4, tw + 4), np.uint8)
    cv2.putText(patch, text, (2, th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, cv2.LINE_AA)
    x0, y0 = round(org_mm[0] * s), round(org_mm[1] * s) - th - 2
    if upside_down:  # read from the far side: turn it and anchor it at its right end
        patch = patch[::-1, ::-1]
        x0 -= patch.shape[1]
    x1, y1 = min(img.shape[1], x0 + patch.shape[1]), min(img.shape[0], y0 + patch.shape[0])
    x0c, y0c = max(0, x0), max(0, y0)
    if x1 <= x0c or y1 <= y0c:
        return
    alpha = patch[y0c - y0 : y1 - y0, x0c - x0 : x1 - x0, None].astype(np.float32) / 255.0
    roi = img[y0c:y1, x0c:x1]
    roi[:] = (roi * (1 - alpha) + np.array(ink, np.float32) * alpha).astype(np.uint8)


def _label(img: np.ndarray, z: Zone, s: float, ink: tuple[int, int, int]) -> None:
    x, y, w, h = z.rect
    if z.facing == 180:
        _text(img, z.label, (x + w - 2, y + h - 2), 6.0, s, ink, upside_down=True)
        return
    _text(img, z.label, (x + 2, y + 8), 6.0, s, ink)


# --- output ---------------------------------------------------------------------------------------


def write_mat(layout: Layout, out: str | Path, *, dpi: float = 150.0, plain: bool = False) -> Path:
    """Write the mat at true size to ``out`` (.png or .pdf)."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ImageError(f"{path}: the mat is written as .png or .pdf")
    img = draw_mat(layout, px_per_mm=dpi / 25.4, plain=plain)
    if suffix == ".png":
        ok, data = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
        if not ok:
            raise ImageError(f"{path}: PNG encoding failed")
        blob = _png_with_dpi(bytes(data), dpi)
    else:
        blob = single_image_pdf(img, layout.width_mm, layout.height_mm)
    path.write_bytes(blob)
    return path


def _png_with_dpi(png: bytes, dpi: float) -> bytes:
    """Insert a pHYs chunk so printers and viewers know the true size."""
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + ppm.to_bytes(4, "big") * 2 + b"\x01"
    chunk = (9).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def single_image_pdf(img_bgr: np.ndarray, width_mm: float, height_mm: float) -> bytes:
    """A one-page PDF whose page is exactly ``width_mm`` x ``height_mm`` showing ``img_bgr``
    (Flate-compressed RGB, lossless so the markers keep sharp edges)."""
    h, w = img_bgr.shape[:2]
    rgb = np.ascontiguousarray(img_bgr[:, :, ::-1])
    data = zlib.compress(rgb.tobytes(), 6)
    pw, ph = width_mm * 72 / 25.4, height_mm * 72 / 25.4
    content = f"q {pw:.3f} 0 0 {ph:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.3f} {ph:.3f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode()
        + data
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
