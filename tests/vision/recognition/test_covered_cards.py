"""Cards partly under others, found and named by an index corner that shows (vision.covered_cards)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.four_colour import BLUE, GREEN, four_colour_deck
from models.training.overlap_scenes import OverlapSpec, make_overlap_scene
from models.training.synth import FELT, composite, faces_deck
from vision import covered_cards
from vision.covered_cards import (
    CORNER_RADIUS,
    EDGE_INSET,
    NAMED_FROM,
    NAMED_FROM_FOUND,
    CoveredCard,
    Gradients,
    Guesses,
    Paper,
    against_whole,
    boxes_about,
    card_size,
    corner_guesses,
    doubted_outlines,
    find_paper,
    lies_on_paper,
    named_cards,
    naming_thresholds,
    off_whole_cards,
    outline_of,
    paired_guesses,
    read_covered,
    refined,
)
from vision.detect import merged_regions
from vision.errors import ModelError
from vision.events import BACK, UNKNOWN
from vision.recognizer import DEFAULT_MODEL, MODEL_LABELS, Recognition, Recognizer

WIDTH = 140.0


def _rect(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _upright(corners: list[list[float]] | np.ndarray, width: float = WIDTH, heat: list[float] | None = None) -> Guesses:
    """Corner guesses of upright cards (across to the right, down down) at ``corners``, ``width`` wide, found by the
    network at ``heat`` (none by default)."""
    at = np.asarray(corners, np.float64).reshape(-1, 2)
    n = len(at)
    across, down = np.tile([1.0, 0.0], (n, 1)), np.tile([0.0, 1.0], (n, 1))
    return Guesses(at, across, down, np.full(n, width), np.zeros(n) if heat is None else np.asarray(heat))


Ink = tuple[int, int, int]


def _covered_frame(
    under_card: str = "7H", over_card: str = "3S", *, inks: tuple[Ink, Ink] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A felt frame with ``under_card`` lying flat, and ``over_card`` on it covering all of it but its top-left
    quarter, and the two outlines; KD lies apart, whole (as other cards on a table do). ``inks``: the deck painted
    four-colour, its diamonds' and its clubs' inks (BGR)."""
    deck = four_colour_deck(faces_deck(2), *inks) if inks is not None else faces_deck(2)
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    under = _rect(400, 150, WIDTH, WIDTH * 1.4)
    over = _rect(400 + 0.45 * WIDTH, 150 + 0.5 * WIDTH * 1.4, WIDTH, WIDTH * 1.4)
    composite(frame, deck(under_card), under)
    composite(frame, deck(over_card), over)
    composite(frame, deck("KD"), _rect(900, 200, WIDTH, WIDTH * 1.4))
    return frame, under, over


@pytest.fixture(scope="module")
def covered_frame() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _covered_frame()


def test_a_segment_end_is_guessed_as_a_corner_either_way_the_card_could_lie() -> None:
    """A vertical side going down from (100, 50): as a card's long side its corner is at the top with the card to the
    right (index read across then down, as printed); as a short side, the card lies to its left."""
    guesses = corner_guesses(np.array([[100.0, 50.0, 100.0, 150.0]], np.float32), WIDTH)
    assert len(guesses) == 4  # two ends, each a long side or a short side
    long_at_top = guesses.take(np.array([0]))
    assert np.allclose(long_at_top.down[0], [0, 1]) and np.allclose(long_at_top.across[0], [1, 0])
    # the corner lies where the rounded corner's sides meet: above the segment's end and outside the paper
    assert np.allclose(long_at_top.corners[0], [100 - EDGE_INSET * WIDTH, 50 - CORNER_RADIUS * WIDTH])
    short_at_top = guesses.take(np.array([1]))
    assert np.allclose(short_at_top.across[0], [0, 1]) and np.allclose(short_at_top.down[0], [-1, 0])


def test_two_edges_meeting_off_square_give_their_crossing_as_a_corner_read_clockwise() -> None:
    """A card's top edge and its left edge, seen 80 degrees apart by a tilted camera, ending short of the corner."""
    corner = np.array([300.0, 200.0])
    top = np.array([1.0, 0.0])
    left = np.array([np.cos(np.radians(80)), np.sin(np.radians(80))])
    a, b = corner + 5 * top, corner + 5 * left  # the rounded corner: the edges end a little before it
    segments = np.array([[*a, *(a + 100 * top)], [*(b + 130 * left), *b]], np.float32)
    found = paired_guesses(segments, WIDTH)
    assert len(found) == 1
    assert np.linalg.norm(found.corners[0] - corner) < 0.5
    assert np.allclose(found.across[0], top, atol=1e-3) and np.allclose(found.down[0], left, atol=1e-3)
    # edges square-ish but far apart, or nearly parallel, meet nowhere
    apart = np.array([[0, 0, 100, 0], [300, 40, 300, 200]], np.float32)
    parallel = np.array([[0, 0, 100, 0], [100, 3, 200, 6]], np.float32)
    assert len(paired_guesses(apart, WIDTH)) == 0 and len(paired_guesses(parallel, WIDTH)) == 0


def test_the_card_size_comes_from_the_whole_cards_and_an_outline_starts_at_its_corner() -> None:
    width, aspect = card_size([_rect(0, 0, 100, 140), _rect(300, 0, 140, 100), _rect(0, 300, 110, 150)]) or (0, 0)
    assert width == pytest.approx(100) and aspect == pytest.approx(1.4)
    assert card_size([]) is None
    outline = outline_of(np.array([10.0, 20.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0]), 100, 1.4)
    assert np.allclose(outline, [[10, 20], [10, 120], [-130, 120], [-130, 20]])


def test_a_guess_a_little_off_a_cards_corner_is_slid_onto_its_edges(
    covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    frame, under, _ = covered_frame
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    steps = Gradients.over(grey, [(300, 50, 700, 500)])
    off = under[0] + np.array([0.0, 0.035 * WIDTH])  # the straight edge found ends below the corner
    guess = _upright(off[None])
    fitted = refined(steps, guess, WIDTH, 1.4)
    x, y = fitted.corners[0]
    assert abs(y - under[0, 1]) < 0.35 * (off[1] - under[0, 1])  # slid up onto the top edge
    assert abs(x - under[0, 0]) <= 0.021 * WIDTH  # and kept on the side edge (its drawn border within a step)
    assert np.array_equal(fitted.across, guess.across) and np.array_equal(fitted.down, guess.down)


def test_overlapping_boxes_are_read_once() -> None:
    boxes = [(0, 0, 10, 10), (50, 50, 60, 60), (5, 5, 20, 20), (18, 0, 30, 4)]
    assert sorted(merged_regions(boxes)) == [(0, 0, 30, 20), (50, 50, 60, 60)]


def test_guesses_at_a_whole_cards_corners_or_on_it_are_left_to_it() -> None:
    """At its corner: the whole card itself; on its face: its print (nothing lies on a whole card); beside it, with
    the index away from it: a card it may cover."""
    whole = _rect(100, 100, 100, 140)
    guesses = Guesses(
        np.array([[102.0, 101.0], [150.0, 150.0], [300.0, 300.0], [150.0, 90.0]]),
        np.array([[1.0, 0], [1, 0], [1, 0], [0, -1]]),
        np.array([[0.0, 1], [0, 1], [0, 1], [1, 0]]),
        np.full(4, 100.0),
    )
    kept = off_whole_cards(guesses, [whole], 100, 1.4)
    assert kept.corners.tolist() == [[300.0, 300.0], [150.0, 90.0]]


def test_one_card_read_at_two_guesses_of_its_corner_or_at_its_far_corner_is_named_once() -> None:
    probs = np.zeros((3, len(MODEL_LABELS)), np.float32)
    seven = MODEL_LABELS.index("7H")
    probs[:, seven] = [0.95, 0.9, 0.85]
    probs[:, -1] = 1 - probs[:, seven]
    far = np.array([100.0 + 100, 100 + 140])
    guesses = Guesses(
        np.array([[100.0, 100.0], [103.0, 101.0], far]),
        np.array([[1.0, 0], [1, 0], [-1, 0]]),
        np.array([[0.0, 1], [0, 1], [0, -1]]),
        np.full(3, 100.0),
    )
    cards = named_cards(guesses, probs, MODEL_LABELS, 1.4)
    assert [(c.card, round(c.confidence, 2)) for c in cards] == [("7H", 0.95)]


@pytest.mark.parametrize(
    ("second", "at", "named"), [("7H", 0, ["7H"]), ("8S", 0, ["7H", "8S"]), ("7H", 300, ["7H", "7H"])]
)
def test_a_face_read_at_a_far_corner_off_the_deck_s_aspect_is_that_card_where_their_outlines_overlap(
    second: str, at: float, named: list[str]
) -> None:
    """A card read at its two index corners, the second (here 25 px across and 5 px down short of where the deck's
    aspect puts it: a tilted camera, a width estimated off) not taken for its far corner: where the two outlines
    estimated share most of their area it is one card (``SAME_CARD``); another face there is another card, and the
    same face apart another card of that face (a second deck's)."""
    probs = np.zeros((2, len(MODEL_LABELS)), np.float32)
    probs[0, MODEL_LABELS.index("7H")], probs[1, MODEL_LABELS.index(second)] = 0.95, 0.92
    far = np.array([100.0 + 100 - 25 + at, 100 + 140 - 5])
    guesses = Guesses(
        np.array([[100.0, 100.0], far]), np.array([[1.0, 0], [-1, 0]]), np.array([[0.0, 1], [0, -1]]), np.full(2, 100.0)
    )
    assert [c.card for c in named_cards(guesses, probs, MODEL_LABELS, 1.4)] == named


@pytest.mark.parametrize(("second", "named"), [("7H", ["7H"]), ("8S", ["7H", "8S"])])
def test_a_reading_of_a_named_face_a_third_of_a_width_off_is_that_card_and_of_another_face_another(
    second: str, named: list[str]
) -> None:
    """In a pile the next card's index lies a third of a width on: read as another face it is another card; read as
    the face named there already it is a guess a little off that card's corner (``SAME_FACE``)."""
    probs = np.zeros((2, len(MODEL_LABELS)), np.float32)
    probs[0, MODEL_LABELS.index("7H")], probs[1, MODEL_LABELS.index(second)] = 0.95, 0.92
    guesses = _upright([[100.0, 100.0], [130.0, 108.0]], 100.0)
    assert [c.card for c in named_cards(guesses, probs, MODEL_LABELS, 1.4)] == named


def test_a_card_three_quarters_covered_is_named_by_its_index_corner(
    recognizer: Recognizer, covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    frame, under, over = covered_frame
    read = recognizer.recognize(frame)
    by_card = {r.card: r for r in read}
    assert set(by_card) == {"3S", "7H", "KD"}  # 3S whole (found by its outline or, in the blob of two, by its corner)
    seven = by_card["7H"]
    assert seven.visible == "index" and seven.confidence >= 0.75
    # its outline is estimated from its index corner (and a card size): it starts there and lies on the card
    assert np.linalg.norm(seven.corners - under[0], axis=1).min() < 0.05 * WIDTH
    centre = seven.corners.mean(axis=0)
    assert under[0, 0] < centre[0] < under[1, 0] and under[0, 1] < centre[1] < under[2, 1]
    assert len(read) == 3


def test_the_covered_cards_are_read_by_the_covered_readers_classifier_and_the_whole_ones_by_cardnet(
    covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """With the card classifier as the covered-card pass's reader too, the card lying apart is read the same and the
    covered one at another confidence: the pass reads through its own model (models/covered_cardnet.onnx). (3S, on
    top, may be found whole or by its corner in the blob of the two.)"""
    frame, _, _ = covered_frame
    own = {r.card: r for r in Recognizer(threads=1).recognize(frame)}
    plain = {r.card: r for r in Recognizer(threads=1, covered_model_path=DEFAULT_MODEL).recognize(frame)}
    assert own["KD"].visible == "whole" and own["KD"].confidence == plain["KD"].confidence
    assert own["7H"].visible == "index"
    assert "7H" not in plain or plain["7H"].confidence != own["7H"].confidence


def test_a_missing_covered_reader_is_refused_and_not_looked_for_without_the_pass(tmp_path: Path) -> None:
    missing = tmp_path / "reader.onnx"
    with pytest.raises(ModelError, match=f"{missing}: no such model file"):
        Recognizer(threads=1, covered_model_path=missing)
    assert Recognizer(threads=1, covered=False, covered_model_path=missing).covered_reader is None


def test_an_unsure_outline_over_a_covered_cards_corner_is_looked_into_and_a_sure_one_is_not(
    recognizer: Recognizer, covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    """A card-sized outline drawn across the covered 7H's index corner (as the outline finder draws one over a spread
    row's neighbours): read unsurely, the paper inside it is looked at, 7H is named and the outline is no card; read
    surely, nothing on it is looked for."""
    frame, under, _ = covered_frame
    across = under - np.array([0.3 * WIDTH, 0.25 * WIDTH], np.float32)
    whole, labels = [across, _rect(900, 200, WIDTH, WIDTH * 1.4)], ["3S", "KD"]
    read = recognizer._read_one_corner
    unsure = read_covered(frame, read, whole, labels, MODEL_LABELS, [False, True])
    assert "7H" in {c.card for c in unsure.cards} and unsure.false_outlines == [0]
    sure = read_covered(frame, read, whole, labels, MODEL_LABELS, [True, True])
    assert "7H" not in {c.card for c in sure.cards} and sure.false_outlines == []


def test_a_whole_card_read_unsurely_keeps_its_own_corners(
    recognizer: Recognizer, covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    """The lone KD, read unsurely as KS (as a card of a deck the classifier does not know is): its own index corner is
    not read again as a covered card that would overrule it."""
    frame, _, _ = covered_frame
    kd = _rect(900, 200, WIDTH, WIDTH * 1.4)
    found = read_covered(frame, recognizer._read_one_corner, [kd], ["KS"], MODEL_LABELS, [False])
    assert found.false_outlines == [] and "KD" not in {c.card for c in found.cards}


@pytest.mark.parametrize("kind", ["noise", "blurred noise", "blocks", "pale noise"])
def test_frames_of_noise_give_no_card_by_an_index_corner(recognizer: Recognizer, kind: str) -> None:
    """With no whole card in the frame, its paper and card size are guessed and every straight edge is a corner
    guess: none of them is read as a card."""
    rng = np.random.default_rng(len(kind))
    noise = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    frame = {
        "noise": noise,
        "blurred noise": cv2.GaussianBlur(noise, (0, 0), 2),
        "blocks": cv2.resize(noise[:45, :80], (1280, 720), interpolation=cv2.INTER_NEAREST),
        "pale noise": (150 + noise.astype(np.float32) * 80 / 255).astype(np.uint8),
    }[kind]
    assert [r.card for r in recognizer.recognize(frame) if r.visible == "index"] == []


def test_without_the_covered_pass_the_covered_card_is_missed(
    covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    frame, _, _ = covered_frame
    read = Recognizer(threads=1, covered=False).recognize(frame)
    assert "7H" not in {r.card for r in read}
    assert all(r.visible == "whole" for r in read)


@pytest.mark.parametrize("under", ["7D", "9D", "QD", "5C", "JC"])
def test_recolouring_a_deck_s_suits_does_not_change_what_a_covered_card_is_named(
    recognizer: Recognizer, under: str
) -> None:
    """A covered diamond or club of a four-colour deck is named as its two-colour twin is, by its suit's shape,
    whatever the deck's inks (the classifier alone reads a blue diamond as a spade; a reader that learnt blue
    diamonds and green clubs would read green diamonds as clubs)."""
    named = {r.card for r in recognizer.recognize(_covered_frame(under, "3H")[0]) if r.visible == "index"}
    assert named - {"3H"} == {under}
    for inks in ((BLUE, GREEN), (GREEN, BLUE), ((0, 170, 230), (160, 40, 120))):
        frame, _, _ = _covered_frame(under, "3H", inks=inks)
        assert {r.card for r in recognizer.recognize(frame) if r.visible == "index"} - {"3H"} == {under}, inks


def _named_on(readings: list[Recognition], label: str, quad: np.ndarray, near: float) -> bool:
    ends = quad[[0, 2]]
    return any(
        r.card == label and float(np.linalg.norm(r.corners[:, None, :] - ends[None], axis=2).min()) < near
        for r in readings
    )


def test_fans_piles_and_rows_of_drawn_faces_are_named_where_an_index_shows(recognizer: Recognizer) -> None:
    """Over six overlap scenes of one of the project's drawn styles, most covered cards whose index shows are named
    (without the pass: none), and no card is named confidently where no card of that face lies."""
    deck = faces_deck(5)
    rng = np.random.default_rng(31)
    covered = named = sure_wrong = 0
    for _ in range(6):
        scene = make_overlap_scene(rng, deck, OverlapSpec())
        read = recognizer.recognize(scene.image)
        width = float(np.median([np.linalg.norm(c.quad[1] - c.quad[0]) for c in scene.cards]))
        for c in scene.cards:
            if c.index_shows and not c.whole:
                covered += 1
                named += _named_on(read, c.label, c.quad, width / 3)
        for r in read:
            if r.card in (BACK, UNKNOWN) or r.confidence < 0.9:
                continue
            if not any(c.label == r.card and _named_on([r], c.label, c.quad, width / 3) for c in scene.cards):
                sure_wrong += 1
    assert covered >= 15
    assert named >= 0.4 * covered, f"{named} of {covered} covered cards named"
    assert sure_wrong == 0


def _covered(card: str, x: float, y: float, confidence: float = 0.95) -> CoveredCard:
    outline = _rect(x, y, 100, 140)
    return CoveredCard(card, confidence, np.zeros(len(MODEL_LABELS), np.float32), outline, outline[0].copy())


def test_an_outline_round_a_row_goes_when_a_covered_cards_corner_shows_on_it_and_a_sure_card_stays() -> None:
    """Nothing lies on a whole card: a corner of another card inside an outline far larger than the deck's cards
    shows that outline was drawn round a row; inside a card-sized outline a reading under 0.9 is its print's, and
    dropped; a reading of a whole card's own face beside it is that card again."""
    cards = [_rect(0, 0, 100, 140), _rect(300, 0, 100, 140), _rect(600, 0, 260, 150)]
    assert doubted_outlines(cards, 100, 1.4) == {2}
    readings = [_covered("4C", 620, 10), _covered("9H", 330, 40, 0.85), _covered("AC", 105, 0)]
    found = against_whole(readings, cards, ["AC", "KD", "9D"], 100, {2}, [False, False, False])
    assert [c.card for c in found.cards] == ["4C"] and found.false_outlines == [2]
    # read surely, even an outline too large stays, and the reading on it goes
    sure = against_whole(readings, cards, ["AC", "KD", "9D"], 100, {2}, [False, False, True])
    assert sure.cards == [] and sure.false_outlines == []


def test_light_paper_no_whole_card_explains_is_looked_at_and_the_bare_cloth_is_not() -> None:
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    deck = faces_deck(2)
    whole = _rect(100, 100, WIDTH, WIDTH * 1.4)
    composite(frame, deck("KD"), whole)
    assert find_paper(frame, [whole], WIDTH, WIDTH).boxes == []
    composite(frame, deck("5S"), _rect(700, 300, WIDTH, WIDTH * 1.4))  # a card the detector did not give
    boxes = find_paper(frame, [whole], WIDTH, WIDTH).boxes
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert x0 <= 700 and y0 <= 300 and x1 >= 700 + WIDTH and y1 >= 300 + WIDTH * 1.4


def test_a_detection_of_changed_regions_finds_the_covered_cards_there_again_and_keeps_the_rest(
    recognizer: Recognizer,
) -> None:
    """``recognize_regions`` (the watcher's detection where the frame changed): a card seen by an index corner is
    never read through its estimated outline as a whole card; where a region touches it, the covered-card pass finds
    it again (once), where none does, it keeps its reading; a card newly covered in a region is found by its corner."""
    frame, under, over = _covered_frame()
    before = recognizer.recognize(frame)
    assert {(r.card, r.visible) for r in before} >= {("7H", "index"), ("KD", "whole")}
    known = [r.corners for r in before]
    near_seven = (int(under[0, 0]) - 20, int(under[0, 1]) - 20, int(under[0, 0]) + 60, int(under[0, 1]) + 60)
    again = recognizer.recognize_regions(frame, [near_seven], known, readings=before)
    assert sorted(r.card for r in again) == sorted(r.card for r in before)
    seven = next(r for r in again if r.card == "7H")
    assert seven.visible == "index" and np.linalg.norm(seven.corners[0] - under[0]) < 0.1 * WIDTH
    far = (1100, 550, 1200, 650)
    kept = recognizer.recognize_regions(frame, [far], known, readings=before)
    assert sorted(r.card for r in kept) == sorted(r.card for r in before)
    assert next(r for r in kept if r.card == "7H") is next(r for r in before if r.card == "7H")
    # KD is now covered by a card put on it: the region round the change gives the new card whole and KD by its corner
    changed = frame.copy()
    composite(changed, faces_deck(2)("5C"), _rect(900 + 0.3 * WIDTH, 200 + 0.45 * WIDTH * 1.4, WIDTH, WIDTH * 1.4))
    region = (880, 180, 900 + int(1.3 * WIDTH) + 20, 200 + int(1.45 * WIDTH * 1.4) + 20)
    after = {r.card: r for r in recognizer.recognize_regions(changed, [region], known, readings=before)}
    assert after["5C"].visible == "whole" and after["KD"].visible == "index"
    assert after["7H"] is next(r for r in before if r.card == "7H")


def test_guesses_keep_which_corners_the_network_found_when_taken_and_joined() -> None:
    edges = _upright([[10.0, 10.0], [50.0, 50.0]], 100.0)
    found = _upright([[90.0, 90.0]], 100.0, [0.7])
    both = edges.joined(found)
    assert both.found_by_network().tolist() == [False, False, True]
    assert both.take(np.array([2, 0])).heat.tolist() == [pytest.approx(0.7), 0.0]
    assert not edges.joined(edges).found_by_network().any()
    with pytest.raises(ValueError, match="2 guesses but 1 heats"):
        Guesses(edges.corners, edges.across, edges.down, edges.widths, np.array([0.5]))


def test_a_card_whose_corner_the_network_found_may_lie_on_less_paper() -> None:
    """Two readings agree where the network found the corner the classifier named: the card needs half its
    estimated outline on paper, not three quarters (a card's outline estimated across a fan reaches over the cloth)."""
    mask = np.zeros((100, 100), bool)  # a quarter of a 400 x 400 frame
    mask[:, :30] = True  # paper left of x = 120
    paper = Paper(mask, [])
    card = replace(_covered("7H", 0, 0), outline=_rect(20, 20, 166, 200))  # 60% of it left of x = 120
    assert not lies_on_paper(card, paper)
    assert lies_on_paper(replace(card, learned=True), paper)


def test_a_network_corner_at_the_place_of_a_surer_reading_marks_that_card_found_by_the_network() -> None:
    guesses = _upright([[100.0, 100.0], [103.0, 101.0]], heat=[0.0, 0.6])
    probs = np.zeros((2, len(MODEL_LABELS)), np.float32)
    seven = MODEL_LABELS.index("7H")
    probs[0, seven], probs[1, seven] = 0.99, 0.95
    named = named_cards(guesses, probs, MODEL_LABELS, 1.4)
    assert [(c.card, c.learned) for c in named] == [("7H", True)]


def test_the_decks_card_size_comes_from_the_cards_read_surely(
    recognizer: Recognizer, covered_frame: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    """An outline read unsurely (here a small one on the bare cloth, as the outline finder draws round part of a
    pile) does not set the deck's card size: the covered 7H is still read at the size of the card read surely."""
    frame, _, _ = covered_frame
    whole = [_rect(900, 200, WIDTH, WIDTH * 1.4), _rect(1100, 520, 60, 55)]
    found = read_covered(frame, recognizer._read_one_corner, whole, ["KD", "AD"], MODEL_LABELS, [True, False])
    assert "7H" in {c.card for c in found.cards}


def test_a_corner_the_network_found_is_named_less_surely() -> None:
    """A covered 7D's index corner read at 0.75: named where the network found the corner or an edges' guess lies
    beside one it found; not by an edges' guess alone (here one at the far side of the frame)."""
    _, under, _ = _covered_frame("7D", "3S")
    guesses = _upright(np.stack([under[0], under[0] + (3.0, 2.0), (1100.0, 80.0)]), heat=[0, 0.6, 0])
    probs = np.zeros((3, len(MODEL_LABELS)), np.float32)
    probs[:, MODEL_LABELS.index("7D")] = 0.75
    assert NAMED_FROM_FOUND < 0.75 < NAMED_FROM
    thresholds = naming_thresholds(guesses, WIDTH)
    assert thresholds.tolist() == [NAMED_FROM_FOUND, NAMED_FROM_FOUND, NAMED_FROM]
    named = named_cards(guesses, probs, MODEL_LABELS, 1.4, thresholds)
    assert [c.card for c in named] == ["7D"]
    assert named_cards(guesses, probs, MODEL_LABELS, 1.4) == []


def test_straight_edges_are_looked_for_only_about_corners_the_network_found(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blank sheet of paper beside a whole card (light paper no card explains, no index on it): the network finds
    no corner there, so its edges are not looked at; with the covered 7H beside, they are, about its corner only."""
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    kd = _rect(900, 200, WIDTH, WIDTH * 1.4)
    composite(frame, faces_deck(2)("KD"), kd)
    cv2.rectangle(frame, (150, 300), (420, 560), (235, 238, 240), -1)
    looked: list[tuple[int, int]] = []
    segments_of = covered_cards.segments_of

    def counted(grey: np.ndarray, width: float) -> np.ndarray:
        looked.append(grey.shape[:2])
        return segments_of(grey, width)

    monkeypatch.setattr(covered_cards, "segments_of", counted)
    assert recognizer.corner_finder is not None
    find = recognizer.corner_finder.find
    read = recognizer._read_one_corner
    assert read_covered(frame, read, [kd], ["KD"], MODEL_LABELS, [True], find).cards == []
    assert looked == []
    covered, _, _ = _covered_frame()
    cv2.rectangle(covered, (150, 450), (330, 700), (235, 238, 240), -1)
    found = read_covered(covered, read, [kd], ["KD"], MODEL_LABELS, [True], find)
    assert "7H" in {c.card for c in found.cards}
    assert len(looked) == 1 and looked[0][1] < 700  # the sheet's box, far from the 7H, left out
    assert boxes_about([(0, 0, 10, 10), (100, 100, 120, 120)], np.array([[125.0, 90.0]]), 10.0) == [
        (100, 100, 120, 120)
    ]
