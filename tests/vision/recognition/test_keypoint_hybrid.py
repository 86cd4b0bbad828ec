"""benchmarks/keypoint_hybrid.py: a frame is handed on to the shipped detector exactly when a cheap cue doubts the
learned outlines, and only the parts of it around the doubt are detected again."""

from __future__ import annotations

import cv2
import numpy as np

from benchmarks.keypoint_cascade import Detection
from benchmarks.keypoint_hybrid import Judge, in_regions


def _card(x: float, y: float, w: float = 100, h: float = 140) -> np.ndarray:
    return np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])


def _frame(cards: list[np.ndarray]) -> np.ndarray:
    frame = np.full((720, 1280, 3), (40, 90, 30), np.uint8)  # green felt
    for quad in cards:
        cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (235, 235, 235))
    return frame


def _found(snapped: list[np.ndarray], doubtful: list[np.ndarray] = ()) -> Detection:
    return Detection(list(snapped), list(snapped), list(snapped), list(doubtful), [0.0] * 4)


def test_an_outline_off_its_card_is_poor_and_one_on_it_is_not() -> None:
    cards = [_card(200, 200), _card(500, 300)]
    frame = _frame(cards)
    off = cards[1] + np.float32([[0, 0], [30, 0], [30, 0], [0, 0]])  # its right side 30 px out on the felt
    off_edges, doubted = Judge(0.95).poor(frame, _found([cards[0], off]))
    assert off_edges.tolist() == [False, True]
    assert doubted.tolist() == [False, False]  # no verifier: nothing doubted
    assert [len(a) for a in Judge(0.95).poor(frame, _found([]))] == [0, 0]


class _Distrust:
    """A verifier that trusts each outline as told."""

    def __init__(self, trust: list[float]) -> None:
        self.values = np.array(trust)

    def trust(self, frame: np.ndarray, quads: list[np.ndarray], levels: object = None) -> np.ndarray:
        assert len(quads) == len(self.values)
        return self.values


def test_the_verifier_makes_an_outline_poor_below_the_least_trust() -> None:
    cards = [_card(200, 200), _card(500, 300)]
    judge = Judge(0.95, verifier=_Distrust([0.9, 0.3]), trust=0.5)  # type: ignore[arg-type]
    off_edges, doubted = judge.poor(_frame(cards), _found(cards))
    assert off_edges.tolist() == [False, False] and doubted.tolist() == [False, True]


def test_paper_outside_the_outlines_is_seen() -> None:
    cards = [_card(200, 200), _card(500, 300)]
    frame = _frame(cards)
    assert Judge(0.95).paper_left(frame, _found(cards[:1]))  # the second card has no outline
    assert not Judge(0.95).paper_left(frame, _found(cards))


def test_only_the_doubtful_parts_are_detected_again_and_good_outlines_are_kept() -> None:
    cards = [_card(200, 200), _card(700, 300)]
    frame = _frame(cards)
    off = cards[1] + np.float32([[0, 0], [30, 0], [30, 0], [0, 0]])
    out = in_regions(frame, _found([cards[0], off]), np.array([False, True]))
    assert len(out) == 2
    assert np.abs(out[0] - cards[0]).max() == 0  # the supported outline as it was
    assert np.abs(np.sort(out[1], axis=0) - np.sort(cards[1], axis=0)).max() < 4  # the card found again
    # a doubtful peak where there is no card adds nothing
    assert len(in_regions(frame, _found(cards, doubtful=[_card(1000, 100)]), np.array([False, False]))) == 2


def test_regions_detected_on_the_plane_the_good_outlines_give_find_the_card_too(monkeypatch) -> None:
    import vision.detect

    # five cards of one size turned every way (cards all one way do not fix a plane's aspect)
    cards = [cv2.boxPoints(((180 + 220 * k, 360), (100, 140), 25.0 * k)).astype(np.float32) for k in range(5)]
    frame = _frame(cards)
    off = cards[4] * 1.0
    off[1:3] += np.float32([25, 10])  # one side moved out on the felt
    planes: list[object] = []
    real = vision.detect.detect_in_region
    monkeypatch.setattr(
        vision.detect,
        "detect_in_region",
        lambda *a, plane=None, **k: (planes.append(plane), real(*a, plane=plane, **k))[1],
    )
    out = in_regions(frame, _found(cards[:4] + [off]), np.array([False] * 4 + [True]), on_plane=True)
    assert len(planes) == 1 and planes[0] is not None  # the region was detected on the good outlines' plane
    assert len(out) == 5
    assert np.abs(np.sort(out[4], axis=0) - np.sort(cards[4], axis=0)).max() < 4


def test_the_edge_test_on_the_cascades_half_frame_is_the_shipped_detectors_own() -> None:
    from benchmarks.keypoint_cascade import pyramid
    from benchmarks.keypoint_hybrid import support_on
    from vision.detect import outline_support

    cards = [_card(200, 200), _card(500, 300)]
    frame = _frame(cards)
    quads = cards + [cards[1] + np.float32([[0, 0], [30, 0], [30, 0], [0, 0]]), cards[0] + 5]
    expected = outline_support(frame, quads)
    assert expected.min() < 0.95 <= expected.max()  # some on edges, some not: the comparison can fail
    assert np.array_equal(support_on(frame, quads, pyramid(frame)[0]), expected)
    assert np.array_equal(support_on(frame, quads, None), expected)


def test_grey_edges_alone_do_not_see_a_white_card_on_a_pale_cloth_of_its_brightness() -> None:
    from benchmarks.keypoint_cascade import pyramid
    from benchmarks.keypoint_hybrid import support_on

    frame = np.full((720, 1280, 3), (255, 228, 228), np.uint8)  # a pale blue cloth, grey 233
    card = _card(400, 200)
    cv2.fillConvexPoly(frame, card.astype(np.int32), (235, 235, 235))  # a white card, grey 235
    half = pyramid(frame)[0]
    assert support_on(frame, [card], half)[0] == 1.0  # the chroma edges hold it
    assert support_on(frame, [card], half, grey_only=True)[0] == 0.0


def test_the_judge_on_frame_steps_makes_the_same_outlines_poor_as_on_the_edge_map() -> None:
    cards = [_card(200, 200), _card(500, 300)]
    frame = _frame(cards)
    quads = cards + [cards[1] + np.float32([[0, 0], [30, 0], [30, 0], [0, 0]])]
    assert Judge(0.95, step=20).poor(frame, _found(quads))[0].tolist() == [False, False, True]


def test_a_frame_is_flawless_only_with_every_card_found_and_nothing_false() -> None:
    from benchmarks.keypoint_hybrid import flawless
    from benchmarks.segmentation_spike import new_counts, tally

    cards = [("AS", _card(200, 200)), ("KH", _card(500, 300))]
    for outlines, expected in (
        ([cards[0][1], cards[1][1]], True),
        ([cards[0][1]], False),
        ([cards[0][1], cards[1][1], _card(900, 100)], False),
    ):
        counts = new_counts()
        tally(counts, cards[:1], [cards[0][1]], [cards[0][1]])  # a frame before, found whole
        before = dict(counts)
        tally(counts, cards, outlines, outlines)
        assert flawless(before, counts) is expected


def test_recognitions_are_counted_as_the_evaluation_counts_them() -> None:
    from types import SimpleNamespace

    from benchmarks.keypoint_hybrid import name_cards

    cards = [("AS", _card(200, 200)), ("KH", _card(500, 300)), ("2C", _card(800, 100))]
    seen = [
        SimpleNamespace(card="AS", corners=_card(201, 199)),
        SimpleNamespace(card="KD", corners=_card(500, 300)),
        SimpleNamespace(card="unknown", corners=_card(1000, 400)),
    ]  # named, wrong, and on no card
    naming = {"named": 0, "unknown": 0, "wrong": 0, "false_cards": 0}
    name_cards(naming, cards, seen)
    assert naming == {"named": 1, "unknown": 0, "wrong": 1, "false_cards": 1}  # 2C is missed, not counted
    name_cards(naming, cards[2:], [SimpleNamespace(card="unknown", corners=cards[2][1])])
    assert naming == {"named": 1, "unknown": 1, "wrong": 1, "false_cards": 1}


def test_the_judge_rescues_as_the_shipped_rescue_does_and_clears_both_flags_of_an_outline_it_replaces() -> None:
    """``Judge.rescued`` is ``vision.outline_judge.rescue`` (tested with the shipped judge) on the spike's judge: a
    poor outline replaced by its outline before snapping has neither flag left; one still poor keeps its own."""
    cards = [_card(200, 200), _card(500, 300), _card(800, 200)]
    frame = _frame(cards)
    pulled = cards[1] + np.float32([[0, 0], [30, 0], [30, 0], [0, 0]])  # snapped 30 px out onto the felt
    lost = cards[2] + np.float32([[0, 0], [40, 0], [40, 0], [0, 0]])  # off before snapping and after
    found = Detection([], [cards[0], cards[1], lost], [cards[0], pulled, lost], [], [0.0] * 4)
    judge = Judge(0.95, verifier=_Distrust([1.0] * 4), step=20, rescue=True)  # type: ignore[arg-type]  (2 poor x 2 tries)
    rescued, off_edges, doubted = judge.rescued(
        frame, found, np.array([False, True, True]), np.array([False, True, False])
    )
    assert off_edges.tolist() == [False, False, True] and doubted.tolist() == [False, False, False]
    assert rescued.snapped[1] is cards[1] and rescued.snapped[2] is lost
    assert rescued.kept == found.kept and rescued.doubtful == found.doubtful
