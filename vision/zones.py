"""Zone layouts: where each seat's area, capture pile, the layout, stock, trick area, widow and
turn-up row lie on a play mat. Layouts are data (``vision/layouts/<game>-<players>.json``, format in
``docs/zones.md``); this module loads, validates and queries them.

Mat coordinates are millimetres, origin at the mat's top-left corner, x to the right, y down (the
view of the player in seat 1, who sits at the bottom edge).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import CalibrationError

LAYOUT_DIR = Path(__file__).with_name("layouts")
FORMAT = 1
ZONE_KINDS = ("seat", "capture", "layout", "stock", "trick", "widow", "turnup", "discard")
CARD_MM = (63.0, 88.0)  # poker-size card, width x height


@dataclass(frozen=True)
class Slot:
    """A place for one card: centre in mm and the card's rotation (degrees, counter-clockwise)."""

    x: float
    y: float
    angle: float = 0.0


@dataclass(frozen=True)
class Zone:
    name: str  # unique: "layout", "seat:2", "capture:2", ...
    kind: str  # one of ZONE_KINDS
    rect: tuple[float, float, float, float]  # x, y, width, height in mm
    label: str
    seat: int | None = None
    facing: int = 0  # side the zone's reader sits at: 0 bottom, 90 right, 180 top, 270 left
    slots: tuple[Slot, ...] = ()

    def contains(self, x: float, y: float) -> bool:
        x0, y0, w, h = self.rect
        return x0 <= x <= x0 + w and y0 <= y <= y0 + h

    @property
    def area(self) -> float:
        return self.rect[2] * self.rect[3]

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, w, h = self.rect
        return (x0 + w / 2, y0 + h / 2)


MARKER_QUIET_MM = 3.0
"""The white margin printed around each marker of a mat (``vision.mat``): ArUco finds a marker by its black border
against it."""


@dataclass(frozen=True)
class Marker:
    """An ArUco marker: id and top-left corner (mm); all markers share ``Layout.marker_mm``."""

    id: int
    x: float
    y: float


@dataclass(frozen=True)
class Layout:
    game: str
    players: int
    mat_name: str
    width_mm: float
    height_mm: float
    marker_mm: float
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    dictionary: str = "DICT_4X4_50"
    card_mm: tuple[float, float] = CARD_MM

    @property
    def name(self) -> str:
        return f"{self.game}-{self.players}"

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"layout {self.name} has no zone {name!r} (zones: {', '.join(self.zone_names)})")

    @cached_property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    @cached_property
    def _by_area(self) -> tuple[Zone, ...]:
        return tuple(sorted(self.zones, key=lambda z: z.area))

    def zone_at(self, x: float, y: float) -> str | None:
        """The smallest zone containing the point (a capture pile wins over its seat area), or
        ``None`` for a point on the mat outside every zone."""
        for z in self._by_area:
            if z.contains(x, y):
                return z.name
        return None

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The four corners (mm) of a marker, clockwise from top-left as ArUco reports them."""
        for m in self.markers:
            if m.id == marker_id:
                s = self.marker_mm
                return np.array([[m.x, m.y], [m.x + s, m.y], [m.x + s, m.y + s], [m.x, m.y + s]], np.float32)
        raise KeyError(marker_id)

    def marker_areas(self, margin_mm: float = MARKER_QUIET_MM) -> list[np.ndarray]:
        """Each marker's square (mm, clockwise from top-left) grown by ``margin_mm`` on every side: with the default,
        the marker and its printed white margin."""
        grow = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * margin_mm
        return [self.marker_corners(m.id) + grow for m in self.markers]

    @cached_property
    def marker_ids(self) -> frozenset[int]:
        return frozenset(m.id for m in self.markers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "players": self.players,
            "mat": {"name": self.mat_name, "width_mm": self.width_mm, "height_mm": self.height_mm},
            "card_mm": list(self.card_mm),
            "markers": {
                "dictionary": self.dictionary,
                "size_mm": self.marker_mm,
                "at": [{"id": m.id, "x": m.x, "y": m.y} for m in self.markers],
            },
            "zones": [_zone_dict(z) for z in self.zones],
        }


def _zone_dict(z: Zone) -> dict[str, Any]:
    d: dict[str, Any] = {"name": z.name, "kind": z.kind, "label": z.label, "rect": list(z.rect)}
    if z.seat is not None:
        d["seat"] = z.seat
    if z.facing:
        d["facing"] = z.facing
    if z.slots:
        d["slots"] = [[s.x, s.y, s.angle] for s in z.slots]
    return d


def _num(d: dict[str, Any], key: str, where: str) -> float:
    v = d.get(key)
    if not isinstance(v, int | float) or isinstance(v, bool):
        raise CalibrationError(f"{where}: {key!r} must be a number, got {v!r}")
    return float(v)


def parse_layout(data: Any, *, source: str = "layout") -> Layout:
    """Validate a layout document (see docs/zones.md) and build a :class:`Layout`."""
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: a layout is a JSON object")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"{source}: unsupported format {data.get('format')!r} (expected {FORMAT})")
    try:
        mat = data["mat"]
        width, height = _num(mat, "width_mm", f"{source}: mat"), _num(mat, "height_mm", f"{source}: mat")
        mk = data["markers"]
        size = _num(mk, "size_mm", f"{source}: markers")
        markers = tuple(Marker(int(m["id"]), _num(m, "x", source), _num(m, "y", source)) for m in mk["at"])
        zones = []
        for i, z in enumerate(data["zones"]):
            where = f"{source}: zones[{i}]"
            rect = z["rect"]
            if not (isinstance(rect, list) and len(rect) == 4 and all(isinstance(v, int | float) for v in rect)):
                raise CalibrationError(f"{where}: rect must be [x, y, width, height] in mm")
            if z["kind"] not in ZONE_KINDS:
                raise CalibrationError(f"{where}: kind {z['kind']!r} is not one of {', '.join(ZONE_KINDS)}")
            x, y, w, h = (float(v) for v in rect)
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width + 1e-6 or y + h > height + 1e-6:
                raise CalibrationError(f"{where}: rect {rect} is empty or leaves the {width}x{height} mm mat")
            slots = tuple(
                Slot(float(s[0]), float(s[1]), float(s[2]) if len(s) > 2 else 0.0) for s in z.get("slots", [])
            )
            zones.append(
                Zone(
                    str(z["name"]),
                    str(z["kind"]),
                    (x, y, w, h),
                    str(z.get("label", z["name"])),
                    int(z["seat"]) if z.get("seat") is not None else None,
                    int(z.get("facing", 0)),
                    slots,
                )
            )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CalibrationError):
            raise
        raise CalibrationError(f"{source}: malformed layout ({type(exc).__name__}: {exc})") from None
    names = [z.name for z in zones]
    if len(set(names)) != len(names):
        raise CalibrationError(f"{source}: zone names repeat")
    ids = [m.id for m in markers]
    if len(markers) < 4 or len(set(ids)) != len(ids) or not all(0 <= i < 50 for i in ids):
        raise CalibrationError(f"{source}: need at least 4 markers with distinct ids 0..49")
    card = data.get("card_mm", list(CARD_MM))
    return Layout(
        str(data["game"]),
        int(data["players"]),
        str(mat.get("name", "custom")),
        width,
        height,
        size,
        markers,
        tuple(zones),
        str(mk.get("dictionary", "DICT_4X4_50")),
        (float(card[0]), float(card[1])),
    )


def load_layout(path: str | Path) -> Layout:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"cannot read layout {p}: {exc}") from None
    return parse_layout(data, source=str(p))


def available_layouts() -> dict[str, Path]:
    """``{"chinese-ten-3": path, ...}`` for every shipped layout."""
    return {p.stem: p for p in sorted(LAYOUT_DIR.glob("*.json"))}


def layout_for(game: str, players: int) -> Layout:
    """The shipped layout of ``game`` for ``players`` players."""
    path = LAYOUT_DIR / f"{game}-{players}.json"
    if not path.exists():
        have = ", ".join(available_layouts())
        raise CalibrationError(f"no mat layout for {game} with {players} players (have: {have})")
    return load_layout(path)


def parse_mat_spec(spec: str) -> Layout:
    """``GAME,N`` (a shipped layout) or a path to a layout file."""
    if "," in spec and not spec.endswith(".json"):
        game, _, n = spec.partition(",")
        try:
            players = int(n)
        except ValueError:
            raise CalibrationError(f"mat spec {spec!r}: expected GAME,PLAYERS like chinese-ten,3") from None
        return layout_for(game.strip(), players)
    return load_layout(spec)
