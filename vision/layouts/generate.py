"""Regenerate the shipped zone layouts: ``python -m vision.layouts.generate``.

The JSON files beside this script are the source of truth that the mat printer, the calibration,
the simulator and the tracker read (format: docs/zones.md). This script only saves hand-arithmetic
when the geometry is changed; edit the JSON directly for one-off tweaks.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
MATS = {
    "A3": (420.0, 297.0),
    "A2": (594.0, 420.0),
    "cloth-800x600": (800.0, 600.0),
    "cloth-1000x700": (1000.0, 700.0),
    "cloth-1250x850": (1250.0, 850.0),
}
BAND = 44.0  # markers live in the outer band; zones inside it
MARKER = 32.0
CARD_W, CARD_H = 63.0, 88.0
PITCH_X, PITCH_Y = 69.0, 92.0


def marker_size(mat: str) -> float:
    """Bigger markers on the 1.25 m cloth: at 1080p its 32 mm markers are ~36 px, too few for the
    detector once the camera is turned (38 mm, 3 mm from the edge, still fits the 44 mm band)."""
    return 38.0 if mat == "cloth-1250x850" else MARKER


def markers(w: float, h: float, s: float = MARKER) -> list[dict[str, float]]:
    m = 6.0 if s <= MARKER else 3.0
    at = [(m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s)]
    n_long = max(1, round(w / 350))
    for k in range(1, n_long + 1):
        x = w * k / (n_long + 1) - s / 2
        at += [(x, m), (x, h - m - s)]
    at += [(m, h / 2 - s / 2), (w - m - s, h / 2 - s / 2)]
    return [{"id": i, "x": round(x, 1), "y": round(y, 1)} for i, (x, y) in enumerate(at)]


def zone(
    name: str,
    kind: str,
    label: str,
    rect: tuple[float, float, float, float],
    *,
    seat: int | None = None,
    facing: int = 0,
    slots: list[tuple[float, float, float]] | None = None,
) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name, "kind": kind, "label": label, "rect": [round(v, 1) for v in rect]}
    if seat is not None:
        d["seat"] = seat
    if facing:
        d["facing"] = facing
    if slots:
        d["slots"] = [[round(x, 1), round(y, 1), a] for x, y, a in slots]
    return d


def seat_blocks(n: int, w: float, h: float, block_h: float) -> list[tuple[int, tuple[float, float, float, float], int]]:
    """Seat rectangles along the bottom (right to left) then the top (left to right): play passes
    to the left, i.e. clockwise seen from above."""
    bottom, top = math.ceil(n / 2), n // 2
    inner_w = w - 2 * BAND
    out = []
    bw = inner_w / bottom
    for i in range(bottom):
        x = w - BAND - (i + 1) * bw
        out.append((i + 1, (x + 2, h - BAND - block_h, bw - 4, block_h), 0))
    if top:
        tw = inner_w / top
        for i in range(top):
            out.append((bottom + i + 1, (BAND + i * tw + 2, BAND, tw - 4, block_h), 180))
    return out


def capture_zone(seat: int, rect: tuple[float, float, float, float], facing: int) -> dict[str, Any]:
    x, y, bw, bh = rect
    cw, ch = CARD_H + 12, min(CARD_W + 9, bh)  # a card lying sideways (it may overhang the band a little)
    cx = x + bw - cw if facing == 0 else x  # at the player's right hand
    cy = y + (bh - ch) / 2
    return zone(
        f"capture:{seat}",
        "capture",
        f"{seat} captures",
        (cx, cy, cw, ch),
        seat=seat,
        facing=facing,
        slots=[(cx + cw / 2, cy + ch / 2, 90.0)],
    )


def chinese_ten(n: int) -> dict[str, Any]:
    w, h = MATS["A2"]
    zones = []
    block = 58.0
    for seat, rect, facing in seat_blocks(n, w, h, block):
        zones.append(zone(f"seat:{seat}", "seat", f"Seat {seat}", rect, seat=seat, facing=facing))
        zones.append(capture_zone(seat, rect, facing))
    top, bottom = BAND + block + 4, h - BAND - block - 4
    # two rows of six with gaps of 9 mm and more: the detector must see each card's own edges
    rows = [top + 4 + CARD_H / 2 + 6, bottom - 4 - CARD_H / 2 - 6]
    pitch = 72.0
    lay_w = 6 * pitch + 4
    slots = [(BAND + 2 + CARD_W / 2 + k * pitch, yy, 0.0) for yy in rows for k in range(6)]
    zones.append(zone("layout", "layout", "Layout", (BAND, top, lay_w, bottom - top), slots=slots))
    sx = BAND + lay_w + 4
    zones.append(
        zone(
            "stock",
            "stock",
            "Stock",
            (sx, top, w - BAND - sx, bottom - top),
            slots=[(sx + (w - BAND - sx) / 2, (top + bottom) / 2, 0.0)],
        )
    )
    return doc("chinese-ten", n, "A2", zones)


def frog(n: int) -> dict[str, Any]:
    w, h = MATS["A2"]
    zones = []
    block = 58.0
    for seat, rect, facing in seat_blocks(n, w, h, block):
        zones.append(zone(f"seat:{seat}", "seat", f"Seat {seat}", rect, seat=seat, facing=facing))
        zones.append(capture_zone(seat, rect, facing) | {"label": f"{seat} tricks"})
    top, bottom = BAND + block + 4, h - BAND - block - 4
    mid = (top + bottom) / 2
    widow_w = 2 * PITCH_X
    zones.append(
        zone(
            "widow",
            "widow",
            "Widow",
            (BAND, top, widow_w, bottom - top),
            slots=[
                (BAND + CARD_W / 2 + 2, top + CARD_H / 2, 0.0),
                (BAND + CARD_W / 2 + 2 + PITCH_X, top + CARD_H / 2, 0.0),
                (BAND + CARD_W / 2 + 2, bottom - CARD_H / 2, 0.0),
            ],
        )
    )
    cx = w / 2
    zones.append(
        zone(
            "trick",
            "trick",
            "Trick",
            (cx - 1.5 * PITCH_X - 6, top, 3 * PITCH_X + 12, bottom - top),
            slots=[(cx + k * PITCH_X, mid, 0.0) for k in (-1, 0, 1)],
        )
    )
    return doc("frog", n, "A2", zones)


HAND_SLOTS = 8  # seven cards and a bought one (or one slipped in): every card of a hand lies on its own
HAND_PITCH_X, HAND_PITCH_Y = 71.0, 97.0  # 8-9 mm between a hand's cards: with 4 mm the detector merged two rows


def garbage_mat(n: int) -> str:
    """The smallest cloth on which every seat has room for HAND_SLOTS cards side by side in two rows
    (four seats along an edge need 1.25 m) and the turn-up row still fits between the seats."""
    return "cloth-800x600" if n <= 4 else "cloth-1000x700" if n <= 6 else "cloth-1250x850"


def garbage(n: int) -> dict[str, Any]:
    mat = garbage_mat(n)
    w, h = MATS[mat]
    widths = [rect[2] for _, rect, _ in seat_blocks(n, w, h, 0.0)]
    rows = max(math.ceil(HAND_SLOTS / int(bw // HAND_PITCH_X)) for bw in widths)
    block_h = (rows - 1) * HAND_PITCH_Y + CARD_H + 8
    zones = []
    for seat, rect, facing in seat_blocks(n, w, h, block_h):
        x, y, bw, bh = rect
        per_row = math.ceil(HAND_SLOTS / rows)
        cols = [min(per_row, HAND_SLOTS - r * per_row) for r in range(rows)]
        slots = []
        for r, c in enumerate(cols):
            x0 = x + (bw - c * HAND_PITCH_X) / 2 + HAND_PITCH_X / 2
            row_y = y + 4 + CARD_H / 2 + r * HAND_PITCH_Y
            if facing == 180:
                row_y = y + bh - 4 - CARD_H / 2 - r * HAND_PITCH_Y
            slots += [(x0 + k * HAND_PITCH_X, row_y, float(facing)) for k in range(c)]
        zones.append(zone(f"seat:{seat}", "seat", f"Seat {seat}", rect, seat=seat, facing=facing, slots=slots))
    top, bottom = BAND + block_h + 4, h - BAND - block_h - 4
    # the turn-up row beside the stock and discard piles (about 2.4 card widths), as many rows as fit
    # the first card 8 mm in from the zone: the mat's mid-side marker sits level with the row, and a
    # card 5 mm from it merged with its white border (seen on the 1250x850 cloth at 1080p)
    inset = 8.0
    per_row = int((w - 2 * BAND - 4 - inset - 2 * (CARD_W + 10)) // PITCH_X)
    row_w = per_row * PITCH_X + 4 + inset
    n_rows = max(1, min(2, int((bottom - top - 8) // PITCH_Y)))
    y0 = top + (bottom - top - n_rows * PITCH_Y) / 2 + PITCH_Y / 2  # centred between the seats
    ys = [y0 + r * PITCH_Y for r in range(n_rows)]
    slots = [(BAND + 2 + inset + CARD_W / 2 + k * PITCH_X, yy, 0.0) for yy in ys for k in range(per_row)]
    zones.append(zone("turnup", "turnup", "Turn-up row", (BAND, top, row_w, bottom - top), slots=slots))
    sx = BAND + row_w + 4
    half = (w - BAND - sx) / 2
    for i, (name, label) in enumerate((("stock", "Stock"), ("discard", "Discards"))):
        x0 = sx + i * half
        zones.append(
            zone(name, name, label, (x0, top, half, bottom - top), slots=[(x0 + half / 2, (top + bottom) / 2, 0.0)])
        )
    return doc("garbage", n, mat, zones)


def doc(game: str, n: int, mat: str, zones: list[dict[str, Any]]) -> dict[str, Any]:
    w, h = MATS[mat]
    return {
        "format": 1,
        "game": game,
        "players": n,
        "mat": {"name": mat, "width_mm": w, "height_mm": h},
        "card_mm": [CARD_W, CARD_H],
        "markers": {"dictionary": "DICT_4X4_50", "size_mm": marker_size(mat), "at": markers(w, h, marker_size(mat))},
        "zones": zones,
    }


def main() -> None:
    docs = [chinese_ten(n) for n in (2, 3, 4)] + [frog(n) for n in range(3, 8)] + [garbage(n) for n in range(3, 9)]
    for d in docs:
        path = HERE / f"{d['game']}-{d['players']}.json"
        path.write_text(json.dumps(d, indent=1) + "\n")
        print(path)


if __name__ == "__main__":
    main()
