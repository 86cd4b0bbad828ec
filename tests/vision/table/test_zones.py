"""Zone layouts are data: every shipped file loads, fits its mat and answers zone queries."""

from __future__ import annotations

import json

import pytest

from vision.errors import CalibrationError
from vision.zones import available_layouts, layout_for, load_layout, parse_layout, parse_mat_spec

EXPECTED = (
    {f"chinese-ten-{n}" for n in (2, 3, 4)} | {f"frog-{n}" for n in range(3, 8)} | {f"garbage-{n}" for n in range(3, 9)}
)


def test_every_game_and_player_count_has_a_layout() -> None:
    assert EXPECTED <= set(available_layouts())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_layout_is_consistent(name: str) -> None:
    layout = load_layout(available_layouts()[name])
    game, _, n = name.rpartition("-")
    assert (layout.game, layout.players) == (game, int(n))
    seats = {z.seat for z in layout.zones if z.kind == "seat"}
    assert seats == set(range(1, layout.players + 1))
    kinds = {z.kind for z in layout.zones}
    needed = {
        "chinese-ten": {"layout", "stock", "capture"},
        "frog": {"trick", "widow", "capture"},
        "garbage": {"turnup", "stock", "discard"},
    }[game]
    assert needed <= kinds
    for z in layout.zones:
        for s in z.slots:  # every slot lies in its own zone, so a card put there is assigned to it
            assert layout.zone_at(s.x, s.y) == z.name, (z.name, s)
    # markers stay clear of the zones (a card on a zone never hides a marker)
    for m in layout.markers:
        for z in layout.zones:
            x, y, w, h = z.rect
            overlap = not (m.x + layout.marker_mm <= x or x + w <= m.x or m.y + layout.marker_mm <= y or y + h <= m.y)
            assert not overlap, (m, z.name)


def test_zone_at_prefers_the_smallest_zone() -> None:
    layout = layout_for("chinese-ten", 3)
    pile = layout.zone("capture:1")
    assert layout.zone_at(*pile.centre) == "capture:1"  # inside seat:1 too
    seat = layout.zone("seat:1")
    assert layout.zone_at(seat.rect[0] + 5, seat.centre[1]) == "seat:1"
    assert layout.zone_at(2, 2) is None


def test_round_trip_through_json() -> None:
    layout = layout_for("frog", 5)
    again = parse_layout(json.loads(json.dumps(layout.to_dict())))
    assert again == layout


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"format": 9}, "unsupported format"),
        ({"zones": [{"name": "x", "kind": "pond", "rect": [0, 0, 10, 10]}]}, "kind"),
        ({"zones": [{"name": "x", "kind": "seat", "rect": [590, 0, 100, 10]}]}, "leaves"),
        ({"zones": [{"name": "x", "kind": "seat", "rect": [0, 0, 10]}]}, "rect"),
        ({"zones": [{"name": "x", "kind": "seat", "rect": [0, 0, 9, 9]}] * 2}, "repeat"),
        ({"markers": {"size_mm": 30, "at": [{"id": 1, "x": 0, "y": 0}]}}, "markers"),
        ({"mat": {"width_mm": "wide", "height_mm": 3}}, "number"),
    ],
)
def test_bad_layouts_are_rejected_with_a_reason(patch: dict[str, object], message: str) -> None:
    data = layout_for("chinese-ten", 2).to_dict() | patch
    with pytest.raises(CalibrationError, match=message):
        parse_layout(data)


def test_mat_specs() -> None:
    assert parse_mat_spec("garbage,8").players == 8
    with pytest.raises(CalibrationError, match="no mat layout"):
        parse_mat_spec("garbage,12")
    with pytest.raises(CalibrationError, match="GAME,PLAYERS"):
        parse_mat_spec("frog,x")
    with pytest.raises(CalibrationError, match="cannot read"):
        parse_mat_spec("/nonexistent/layout.json")
