"""vision.change_regions: where a watched table changed, and the regions a recogniser detects again there."""

from __future__ import annotations

import numpy as np
import pytest

from vision.change_regions import (
    PendingRegions,
    card_length,
    changed_boxes,
    inside,
    kept_and_reused,
    overlaps,
    quad_box,
    regions_around,
    untouched_by,
)

FRAME = (720, 1280, 3)


def _card(x: float, y: float, w: float = 100, h: float = 140) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_nothing_changed_is_no_box_and_a_changed_patch_is_its_box_at_full_resolution() -> None:
    before = np.full((90, 160), 80, np.uint8)
    assert changed_boxes(before, before.copy(), FRAME) == []
    after = before.copy()
    after[10:20, 30:35] = 200  # a card put down, seen at an eighth of the size
    assert changed_boxes(before, after, FRAME) == [(240, 80, 280, 160)]
    after[10:20, 30:35] = 80 + 14  # the change gate's level: not a change
    assert changed_boxes(before, after, FRAME) == []


def test_small_frames_of_another_size_change_the_whole_frame() -> None:
    assert changed_boxes(np.zeros((90, 160), np.uint8), np.zeros((45, 80), np.uint8), FRAME) == [(0, 0, 1280, 720)]


def test_each_box_grows_by_a_card_length_cut_at_the_frame_and_overlapping_ones_merge() -> None:
    known = [_card(500, 300), _card(700, 300, 100, 160)]  # long sides 140 and 160: the median 150
    assert card_length(known) == pytest.approx(150)
    assert regions_around([(600, 400, 640, 460)], known, FRAME, grow=1.0) == [(450, 250, 790, 610)]
    assert regions_around([(10, 10, 40, 40)], known, FRAME, grow=0.5) == [(0, 0, 115, 115)]
    merged = regions_around(
        [(100, 100, 120, 120), (250, 100, 270, 120), (1100, 500, 1120, 520)], known, FRAME, grow=0.5
    )  # the first two, grown by 75 px, overlap; the third lies apart
    assert merged == [(25, 25, 345, 195), (1025, 425, 1195, 595)]
    assert not overlaps(merged[0], merged[1])


def test_regions_from_before_are_merged_in_and_nothing_new_keeps_them() -> None:
    known = [_card(500, 300)]  # long side 140
    earlier = [(0, 0, 200, 200)]
    assert regions_around([], known, FRAME, also=earlier) == earlier
    assert regions_around([(210, 100, 220, 110)], known, FRAME, also=earlier, grow=0.5) == [(0, 0, 290, 200)]


def test_too_large_a_change_or_no_known_card_is_the_whole_frame() -> None:
    known = [_card(500, 300)]
    assert regions_around([(0, 0, 900, 500)], known, FRAME) is None  # over MAX_SHARE of the frame
    assert regions_around([(0, 0, 900, 500)], known, FRAME, max_share=0.9) is not None
    assert regions_around([(600, 400, 640, 460)], [], FRAME) is None


def test_quad_boxes_and_insideness() -> None:
    box = quad_box(_card(10.2, 20.7, 30, 40))
    assert box == (10, 20, 41, 61)  # the pixels the corners lie in, the ends exclusive
    assert inside(box, (10, 20, 41, 61)) and not inside(box, (11, 20, 41, 61)) and not inside(box, (10, 20, 40, 61))
    assert overlaps(box, (40, 60, 50, 70)) and not overlaps(box, (41, 20, 50, 70))


def test_a_change_is_explained_by_a_card_new_gone_or_renamed_in_its_region() -> None:
    from vision.change_regions import unexplained

    region = (300, 200, 700, 600)
    a, b = _card(350, 250), _card(500, 250)  # 100 x 140 each
    change = (490, 240, 610, 400)  # where b is (or was)
    before = [("KH", a)]
    assert unexplained([change], [region], before, [("KH", a), ("5C", b)], FRAME) == []  # b put down
    assert unexplained([change], [region], [("KH", a), ("5C", b)], [("KH", a)], FRAME) == []  # b taken up
    assert unexplained([change], [region], [("KH", a), ("back", b)], [("KH", a), ("5C", b)], FRAME) == []  # turned
    # the card put down was missed: the change beside KH (which did not change) is unexplained
    assert unexplained([change], [region], before, [("KH", a)], FRAME) == [change]


def test_changes_on_cards_small_ones_and_ones_at_the_frames_edge_need_no_card() -> None:
    from vision.change_regions import unexplained

    region = (300, 200, 700, 720)
    a = _card(350, 250)
    cards = [("back", a)]
    assert unexplained([(360, 260, 440, 380)], [region], cards, cards, FRAME) == []  # on the pile: it grew
    assert unexplained([(500, 300, 520, 320)], [region], cards, cards, FRAME) == []  # under a quarter of a card
    assert unexplained([(500, 600, 640, 720)], [region], cards, cards, FRAME) == []  # a hand at the frame's edge
    assert unexplained([(500, 560, 640, 700)], [region], cards, cards, FRAME) == [(500, 560, 640, 700)]


def test_only_the_outlines_no_region_holds_wholly_are_kept() -> None:
    from vision.change_regions import kept_outside

    inner, across, apart = _card(320, 220), _card(650, 220), _card(900, 400)
    kept = kept_outside([inner, across, apart], [(300, 200, 700, 600)])
    assert [k.tolist() for k in kept] == [across.tolist(), apart.tolist()]


def test_pending_regions_gather_changes_until_settled_and_start_whole() -> None:
    known = [_card(500, 300), _card(700, 300, 100, 160)]  # half a card length: 75 px
    before = np.full((90, 160), 80, np.uint8)
    after = before.copy()
    after[10:20, 30:35] = 200  # (240, 80, 280, 160) at full resolution
    pending = PendingRegions()
    assert pending.note(before, after, FRAME, known) == []  # nothing detected yet: the whole frame is due
    assert pending.regions([], [], known, FRAME) is None
    pending.whole_detected([], FRAME)
    changes = pending.note(before, after, FRAME, known)
    assert changes == [(240, 80, 280, 160)]
    assert pending.regions(changes, [], known, FRAME) == [(165, 5, 355, 235)]
    missing = [_card(1000, 500)]  # a card no region holds gets its own
    assert pending.regions([], missing, known, FRAME) == [
        (165, 5, 355, 235),
        (925, 425, 1176, 716),
    ]  # (its box ends exclusive)
    pending.settled()
    assert pending.regions([], [], known, FRAME) is None  # nothing left to detect: no regions
    pending.whole_next()
    assert pending.note(before, after, FRAME, known) == [] and pending.regions([], [], known, FRAME) is None


def test_after_a_change_at_the_frames_edge_the_first_detection_without_one_is_whole() -> None:
    """``PendingRegions``' edge rule: fingers at the edge may hide a card the regions' detection missed, and their
    change needs no card to explain it; once the changes stop reaching the edge, the whole frame is detected."""
    known = [_card(500, 300)]
    pending = PendingRegions()
    pending.whole_detected([], FRAME)
    before = np.full((90, 160), 80, np.uint8)
    fingers = before.copy()
    fingers[70:90, 40:50] = 200  # from the bottom edge
    changes = pending.note(before, fingers, FRAME, known)
    assert changes == [(320, 560, 400, 720)]
    assert pending.regions(changes, [], known, FRAME) is not None  # while they are there: the regions
    gone = pending.note(fingers, before, FRAME, known)  # they leave: a change at the edge again
    assert pending.regions(gone, [], known, FRAME) is not None
    assert pending.regions([], [], known, FRAME) is None  # the first frame without: the whole frame
    pending.whole_detected([], FRAME)
    pending.note(before, before, FRAME, known)
    inner = before.copy()
    inner[40:50, 40:50] = 200  # a change inside the frame, no edge seen since the whole detection
    changes = pending.note(before, inner, FRAME, known)
    assert pending.regions(changes, [], known, FRAME) is not None and pending.regions([], [], known, FRAME) is not None
    pending.whole_detected(pending.note(before, fingers, FRAME, known), FRAME)  # whole, with a hand still at the edge
    assert pending.regions([], [], known, FRAME) is None


def test_a_card_is_untouched_only_where_no_region_shares_a_pixel_with_its_box() -> None:
    known = [_card(100, 100), _card(400, 100), _card(700, 100)]  # boxes (100, 100, 201, 241), ...
    regions = [(150, 0, 300, 300), (801, 241, 900, 300)]  # over the first card; beside the third, corner to corner
    assert untouched_by(known, regions) == [False, True, True]
    assert untouched_by(known, [(0, 0, 1280, 720)]) == [False, False, False]
    assert untouched_by(known, []) == [True, True, True]


def test_a_regions_detection_reads_again_the_cards_across_a_region_and_reuses_the_untouched_ones() -> None:
    known = [_card(100, 100), _card(400, 100), _card(700, 100)]
    regions = [(0, 0, 300, 300), (450, 0, 600, 300)]  # holds the first card, crosses the second, misses the third
    kept, reused = kept_and_reused(known, regions, ["AS", "KH", "7C"])
    assert len(kept) == 1 and np.array_equal(kept[0], known[1]) and reused == ["7C"]
    kept, reused = kept_and_reused(known, regions, [])  # no readings: every card outside a region is read again
    assert len(kept) == 2 and reused == []
    kept, reused = kept_and_reused(known, regions, ["AS"])  # readings that do not match the outlines count for none
    assert len(kept) == 2 and reused == []
