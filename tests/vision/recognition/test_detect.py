"""vision.detect on generated table scenes (the project's own card drawings, always available)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import pytest

from models.training.dataset import match
from models.training.synth import HARD, Deck, Scene, SceneSpec, faces_deck
from models.training.synth import make_pinned_scene as make_scene
from vision.detect import DEFAULT_CONFIG as SHIPPED
from vision.detect import detect_cards

if TYPE_CHECKING:
    from vision.detector_config import DetectorConfig
    from vision.frame_cues import FrameCues

# ``make_scene`` here is ``make_pinned_scene``: these tests pin frames, by seed and index, as they were drawn with the
# clutter
# kept clear of the cards (with a band of bare table round cards on clutter)

ONCE = dataclasses.replace(SHIPPED, replan=False)
"""The shipped detector without ``replan``: one detection, for the tests of what one pass or setting does
(a second detection on the estimated plane can find the same card another way)."""

DATA = Path(__file__).parent / "data"
MODEL = Path(__file__).resolve().parents[3] / "models" / "cardnet.onnx"


def _found(spec: SceneSpec, scenes: int, seed: int) -> tuple[int, int, int]:
    rng = np.random.default_rng(seed)
    cards = found = extra = 0
    for i in range(scenes):
        scene = make_scene(rng, faces_deck(i % 6), spec)
        quads = detect_cards(scene.image)
        hits = sum(match(q, quads) is not None for _, q in scene.cards)
        cards += len(scene.cards)
        found += hits
        extra += len(quads) - hits
    return cards, found, extra


@pytest.mark.parametrize("background", ["felt", "wood", "cloth", "light", "dark"])
def test_cards_are_found_on_every_kind_of_table(background: str) -> None:
    cards, found, extra = _found(SceneSpec(n_cards=12, background=background, clutter=1), 3, seed=11)
    assert found >= 0.9 * cards, f"{found}/{cards} found on {background}"
    assert extra <= 2


def test_hard_scenes_small_close_tilted_glare() -> None:
    cards, found, _ = _found(HARD, 4, seed=12)
    assert found >= 0.94 * cards, f"{found}/{cards}"  # measured 47/48


def test_outline_is_accurate() -> None:
    rng = np.random.default_rng(3)
    scene = make_scene(rng, faces_deck(0), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt"))
    quads = detect_cards(scene.image)
    for _, truth in scene.cards:
        q = match(truth, quads)
        assert q is not None
        width = np.linalg.norm(truth[0] - truth[1])
        err = min(np.abs(q - np.roll(truth, k, axis=0)).max() for k in (0, 2))
        assert err < 0.05 * width + 2


def test_rejects_non_bgr_input() -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        detect_cards(np.zeros((100, 100), np.uint8))


def test_empty_table_has_no_cards() -> None:
    rng = np.random.default_rng(5)
    for kind in ("felt", "wood", "cloth", "light", "dark"):
        scene = make_scene(rng, None, SceneSpec(n_cards=0, clutter=0, background=kind))
        assert detect_cards(scene.image) == []


def test_outline_on_an_inner_printed_frame_snaps_to_the_card_edge() -> None:
    """A quad on the card's printed frame line (6 px inside its edge) moves out onto the real edge."""
    from vision.detect import snap_to_edges

    frame = np.full((400, 500, 3), (40, 110, 30), np.uint8)
    edge = np.array([[150, 80], [290, 80], [290, 276], [150, 276]], np.float32)  # 140 x 196 card
    cv2.fillConvexPoly(frame, edge.astype(np.int32), (235, 240, 240))
    cv2.rectangle(frame, (156, 86), (284, 270), (30, 30, 30), 2)  # printed frame line
    inner = np.array([[157, 87], [283, 87], [283, 269], [157, 269]], np.float32)
    (snapped,) = snap_to_edges(frame, [inner])
    assert np.abs(snapped - edge).max() < 2.0, snapped


def test_cards_in_rows_a_few_pixels_apart_are_each_found() -> None:
    """Detection spec: "cards close together (a few px apart)". A saved 1080p simulator frame (the
    project's own faces) of a Garbage hand in two rows 4 mm apart: QS's outline merged with 2C's
    above it into one shape too long for a card and QS was lost. Split at the edge across the
    middle, the three whole cards in view (2C, 6D, QS) are all found and named."""
    from vision.recognizer import Recognizer

    frame = cv2.imread(str(DATA / "close_rows.png"))
    assert frame is not None
    recognizer = Recognizer(MODEL, threads=1)
    names = sorted(r.card for r in recognizer.recognize(frame) if r.visible == "whole")
    assert len(detect_cards(frame)) == 3
    assert names == ["2C", "6D", "QS"], names


def test_a_phone_twice_a_card_long_is_not_split_into_cards() -> None:
    """The split needs an edge across the middle: a plain long dark rectangle stays rejected."""
    frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(frame, (270, 100), (360, 370), (235, 238, 240), -1)  # bright, 90 x 270: 3 to 1
    assert detect_cards(frame) == []


def test_a_court_picture_in_pieces_is_not_a_group_of_cards() -> None:
    """Detector round 3: a card whose print is four squarish blocks (a court picture cut by its
    frame lines) filling over half of it. Each block is an outline of a card's size but not of a
    card's shape; counted as cards, they made the card's own outline "a group of cards", and a plain
    court card on a clean table was lost (bench scenes: bellot and neoclassical kings)."""
    frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    card = np.array([[200, 70], [428, 70], [428, 389], [200, 389]], np.float32)
    cv2.fillConvexPoly(frame, card.astype(np.int32), (235, 240, 240))
    for x, y in ((206, 120), (318, 120), (206, 229), (318, 229)):  # 104 x 101: aspect 1.03, not a card's
        cv2.rectangle(frame, (x, y), (x + 103, y + 100), (40, 40, 200), -1)
    quads = detect_cards(frame)
    assert len(quads) == 1 and match(card, quads) is not None, quads


def test_the_outline_whose_sides_lie_on_edges_wins() -> None:
    """Detector round 3: of one card's outlines the largest used to win, also when it had taken in a
    touching chip or cut a card's corner off (a side across the table, on no edge), and the card was
    missed (corners >12% off). A generated scene (seed 19, the project's own faces) where that
    happened: every card is found once the best-supported outline is chosen. Round 5 traced grey edges
    lower, the checked cloth gave the 8C's outline with a corner off the card nearly full support, and
    within the old margin (0.15 of the best) it won again as the largest; the margin is now 0.1."""
    from dataclasses import replace

    from models.training.evaluate import NORMAL
    from vision.detect import DEFAULT_CONFIG

    rng = np.random.default_rng(19)
    scene = make_scene(rng, faces_deck(19), NORMAL)
    quads = detect_cards(scene.image)
    missed = [label for label, q in scene.cards if match(q, quads) is None]
    assert len(scene.cards) == 12 and missed == [], missed
    wide = detect_cards(scene.image, replace(DEFAULT_CONFIG, pick_margin=0.15, estimate_plane=False))  # (the
    # deck fit on the plane estimated from the cards moves that outline onto the 8C too)
    assert [label for label, q in scene.cards if match(q, wide) is None] == ["8C"]


def test_an_outline_with_a_gap_is_a_card_by_its_hull() -> None:
    """Detector round 3: a white card on a pale table whose outline has a gap (faint against the
    table, by a glare spot) encloses no hole and fills to nothing, and was missed. Its convex hull is
    card-shaped and every side of it lies on edges, so it is a card. A generated scene (seed 128,
    the project's own faces) where the 2S at the lower right was missed that way."""
    from models.training.evaluate import NORMAL

    rng = np.random.default_rng(128)
    scene = make_scene(rng, faces_deck(128 % 24), NORMAL)
    quads = detect_cards(scene.image)
    (two_spades,) = [q for label, q in scene.cards if label == "2S"]
    assert match(two_spades, quads) is not None
    assert sum(match(q, quads) is not None for _, q in scene.cards) >= 11


def test_a_card_whose_outline_dips_in_is_found_by_its_hull_on_edges() -> None:
    """Detector round 3: where court art reaches a card's edge, or a pale stripe of cloth touches it,
    the card's paper blob and hole outlines dip in and fail the solidity test, and no outline of the
    card was left (bench: 8 cards of 1261, mostly court cards). A hull that is card-shaped, at least
    half covered, with every side on edges is accepted. A generated hard scene (seed 64, the
    project's own faces) where a 10 of hearts beside a pale stripe was missed that way."""
    rng = np.random.default_rng(64)
    scene = make_scene(rng, faces_deck(64 % 24), HARD)
    quads = detect_cards(scene.image)
    label, ten = scene.cards[5]
    assert label == "TH" and match(ten, quads) is not None
    assert sum(match(q, quads) is not None for _, q in scene.cards) >= 11


def test_snapping_weighs_down_a_shadows_edge_but_not_a_printed_frame_line() -> None:
    """``snap_paper``: a card's shadow 8 px wide along two sides, darker than the pale cloth. Outer edges are
    favoured (``snap_outer``: a printed frame line lies inside the card's edge), so the shadow's outer edge,
    3 px further out than the card's, wins those sides; an edge with darker pixels inside it than the cloth
    outside it is weighted down, and the sides come onto the card. A printed frame line has the white border
    outside it, as bright as the paper: it keeps its weight (``snap_paper_margin``), and an outline already on
    the card's edge stays there. Without that exemption the edge is weighted down wherever the outside is
    darker than inside four samples, and a back whose pattern reaches its edge on a table paler than the
    pattern moves in."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG, snap_to_edges

    frame: np.ndarray = np.full((400, 500, 3), (200, 205, 205), np.uint8)
    edge = np.array([[150, 80], [290, 80], [290, 276], [150, 276]], np.float32)
    cv2.fillConvexPoly(frame, np.array([[290, 86], [298, 86], [298, 284], [290, 284]], np.int32), (100, 100, 105))
    cv2.fillConvexPoly(frame, np.array([[156, 276], [298, 276], [298, 284], [156, 284]], np.int32), (100, 100, 105))
    cv2.fillConvexPoly(frame, edge.astype(np.int32), (230, 232, 232))
    frame = cv2.GaussianBlur(frame, (3, 3), 0)
    rough = edge + np.array([[0, 0], [3, 0], [3, 3], [0, 3]], np.float32)
    paper = replace(DEFAULT_CONFIG, snap_paper=0.5)
    (shipped,) = snap_to_edges(frame, [rough], replace(paper, snap_paper=1.0))
    assert np.abs(shipped - edge).max() > 6.0  # the failure this guards against: on the shadow's edge
    (snapped,) = snap_to_edges(frame, [rough], paper)
    assert np.abs(snapped - edge).max() < 2.0, snapped

    back: np.ndarray = np.full((400, 500, 3), (215, 215, 215), np.uint8)  # a table paler than the back's pattern
    cv2.fillConvexPoly(back, edge.astype(np.int32), (245, 245, 245))
    cv2.rectangle(back, (152, 82), (288, 274), (150, 110, 110), -1)  # the pattern, 2 px inside the edge
    cv2.rectangle(back, (160, 90), (280, 266), (245, 245, 245), 2)  # a white frame line in it
    back = cv2.GaussianBlur(back, (3, 3), 0)
    (kept,) = snap_to_edges(back, [edge], paper)
    assert np.abs(kept - edge).max() < 2.0, kept
    (moved,) = snap_to_edges(back, [edge], replace(paper, snap_paper_margin=-256))
    assert np.abs(moved - edge).max() > 2.0, moved


def test_snap_medians_equal_numpy_median_and_nanmedian() -> None:
    """snap_to_edges' vectorised medians must be np.median / np.nanmedian exactly (same dtype and bits)."""
    import warnings

    from vision.snapping import median_rows

    rng = np.random.default_rng(5)
    for _ in range(300):
        shape = (int(rng.integers(1, 14)), 4, 12)
        v = (rng.integers(0, 60, shape) * rng.choice([1.0, 0.5, 0.37])).astype(np.float32)
        assert np.array_equal(median_rows(v), np.median(v, axis=2, keepdims=True))
        keep = rng.random(shape) < rng.uniform(0.0, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows
            ref = np.nanmedian(np.where(keep, v, np.nan), axis=2, keepdims=True)
        got = median_rows(v, keep)
        assert got.dtype == ref.dtype and np.array_equal(got, ref, equal_nan=True)


def test_a_side_snapped_onto_a_neighbours_edge_does_not_tilt() -> None:
    """A neighbouring card whose edge fans away from this one's right side: part of that side's samples
    land on the neighbour's edge and would tilt it (bottom-right corner 4.5 px out); snapping may not make
    opposite sides less parallel, so the side keeps its rough direction."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG, snap_to_edges

    frame = np.full((400, 500, 3), (40, 110, 30), np.uint8)
    edge = np.array([[150, 80], [290, 80], [290, 276], [150, 276]], np.float32)
    cv2.fillConvexPoly(frame, edge.astype(np.int32), (235, 240, 240))
    neighbour = np.array([[310, 60], [450, 60], [450, 300], [293, 300]], np.float32)  # 3 px away at the bottom
    cv2.fillConvexPoly(frame, neighbour.astype(np.int32), (250, 250, 250))
    rough = edge + np.array([[1, 1], [-2, 1], [-2, -1], [1, -1]], np.float32)
    (unguarded,) = snap_to_edges(frame, [rough], replace(DEFAULT_CONFIG, snap_max_skew=90.0))
    assert np.abs(unguarded - edge).max() > 3.5  # the failure this guards against
    (snapped,) = snap_to_edges(frame, [rough])
    assert np.abs(snapped - edge).max() < 2.0, snapped


def test_corners_from_sides_and_parallel_neighbours_refused() -> None:
    from vision.quads import corners_from_sides

    box = np.array([[0, 0], [10, 0], [10, 14], [0, 14]], np.float32)
    direction = np.roll(box, -1, axis=0) - box
    corners = corners_from_sides(box + direction * 0.3, direction)
    assert corners is not None and np.allclose(corners, box)  # any point on each side will do
    direction[1] = direction[0]  # side 1 parallel to side 0: no corner between them
    assert corners_from_sides(box, direction) is None


def _held_out_scene(
    held_out_decks: dict[str, Deck],
    design: str,
    seed: int,
    index: int,
    spec: SceneSpec | None = None,
    *,
    pinned: bool = True,
) -> Scene:
    """Scene ``index`` of ``design`` as ``models.training.evaluate.held_out_scenes`` deals it: the k-th design in
    name order from a generator seeded [seed, k] (realistic ``NORMAL`` scenes unless ``spec``); as drawn with the
    clutter
    kept clear of the cards (``make_pinned_scene``) unless not ``pinned``."""
    from models.training.evaluate import NORMAL
    from models.training.synth import make_scene as make_scene_now

    draw = make_scene if pinned else make_scene_now
    rng = np.random.default_rng([seed, sorted(held_out_decks).index(design)])
    for _ in range(index + 1):
        scene = draw(rng, held_out_decks[design], spec or NORMAL)
    return scene


def _finds(scene: Scene, label: str, plane: np.ndarray | None, **changes: Any) -> bool:
    """Whether the detector, the shipped settings changed by ``changes`` (``replan`` off unless they name it:
    ``ONCE``), outlines ``scene``'s card ``label`` (its first, by ``match``), given the table ``plane`` or none."""
    from dataclasses import replace

    (truth,) = [q for lab, q in scene.cards if lab == label][:1]
    config = replace(ONCE, **changes)
    return match(truth, detect_cards(scene.image, config, plane=plane)) is not None


def _near_edges(frame: np.ndarray) -> np.ndarray:
    """The detector's edge map within 2 px, at detection scale (as detect_cards builds it)."""
    from vision.detect import DEFAULT_CONFIG
    from vision.edge_map import edge_map

    s = DEFAULT_CONFIG.scale
    small = cv2.resize(frame, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    channels = tuple(cv2.split(small))
    least = cv2.min(cv2.min(channels[0], channels[1]), channels[2])
    return cv2.dilate(edge_map(small, channels, least, DEFAULT_CONFIG), np.ones((5, 5), np.uint8))


def test_an_outline_with_one_corner_off_is_rebuilt_from_the_other_three() -> None:
    """False outlines (benchmarks/false_outlines.py, 2026-11-30): 9 of 19 false cards were a card's own
    outline with three corners right and one 13-30% of its width off, a side fitted onto a neighbour's or a
    shadow's edge. Such an outline's opposite sides are further from parallel than perspective allows; the
    corner is rebuilt from the other three where the rebuilt sides lie on edges."""
    from vision.detect import DEFAULT_CONFIG, skew_per_px
    from vision.snapping import repair_skewed

    frame = np.full((400, 500, 3), (40, 110, 30), np.uint8)
    card = np.array([[150, 80], [290, 80], [290, 276], [150, 276]], np.float32)
    cv2.fillConvexPoly(frame, card.astype(np.int32), (235, 240, 240))
    off = card.copy()
    off[2] += (28, 22)  # 20% of the width out, onto the cloth
    assert match(card, [off]) is None  # counted as a miss and a false card
    assert skew_per_px(off[None])[0] > DEFAULT_CONFIG.max_perspective
    (repaired,) = repair_skewed(frame, [off], _near_edges(frame), DEFAULT_CONFIG)
    assert np.abs(repaired - card).max() < 2.0, repaired
    # a card seen in perspective (opposite sides 1.8 degrees apart, 140 px: within the allowance) is left alone
    keystone = np.array([[153, 80], [287, 80], [290, 276], [150, 276]], np.float32)
    assert skew_per_px(keystone[None])[0] < DEFAULT_CONFIG.max_perspective
    (kept,) = repair_skewed(frame, [keystone], _near_edges(frame), DEFAULT_CONFIG)
    assert np.array_equal(kept, keystone)


def test_a_rebuilt_corner_off_every_edge_is_refused() -> None:
    """The rebuilt outline must lie on edges at least as well as the old one: a skewed outline that is
    the card's true shape (a card bent or cut at an angle) keeps its corners."""
    from vision.detect import DEFAULT_CONFIG
    from vision.snapping import repair_skewed

    frame = np.full((400, 500, 3), (40, 110, 30), np.uint8)
    shape = np.array([[150, 80], [290, 80], [318, 298], [150, 276]], np.float32)
    cv2.fillConvexPoly(frame, shape.astype(np.int32), (235, 240, 240))
    (kept,) = repair_skewed(frame, [shape], _near_edges(frame), DEFAULT_CONFIG)
    assert np.array_equal(kept, shape)


@pytest.mark.parametrize(("seed", "index"), [(57, 0), (76, 5)])
def test_generated_scenes_where_a_corner_was_off(seed: int, index: int) -> None:
    """Generated hard scenes (the project's own faces) where one card's outline had a corner off and the
    card was missed before the repair (found since)."""
    rng = np.random.default_rng(seed)
    scene = make_scene(rng, faces_deck(seed % 24), HARD)
    quads = detect_cards(scene.image)
    assert match(scene.cards[index][1], quads) is not None
    assert sum(match(q, quads) is not None for _, q in scene.cards) >= len(scene.cards) - 1


def test_an_open_outline_that_encloses_a_cards_area_is_tried_by_its_hull() -> None:
    """An outline with a gap whose art touches the edge line encloses a card's area, so it went to the
    filled outlines (which gave a shape that was not the card) and never to the hull test for outlines
    with a gap. It now goes to both. A generated hard scene (seed 89, the project's own faces) where the
    card at index 5 was missed that way."""
    rng = np.random.default_rng(89)
    scene = make_scene(rng, faces_deck(89 % 24), HARD)
    quads = detect_cards(scene.image)
    assert match(scene.cards[5][1], quads) is not None


@pytest.mark.parametrize(("spec_name", "seed", "indices"), [("HARD", 92, [2]), ("NORMAL", 58, [1, 6])])
def test_cards_closed_into_one_outline_are_each_found(spec_name: str, seed: int, indices: list[int]) -> None:
    """Cards a few pixels apart can close into one outline around several of them that passes as a large
    card; it used to merge with the cards inside as "one card seen twice" and win as the largest, so the
    cards were lost (and the classifier dropped the big outline as not a card). Generated scenes (the
    project's own faces) where that happened."""
    from models.training.evaluate import NORMAL

    rng = np.random.default_rng(seed)
    scene = make_scene(rng, faces_deck(seed % 24), HARD if spec_name == "HARD" else NORMAL)
    quads = detect_cards(scene.image)
    assert all(match(scene.cards[i][1], quads) is not None for i in indices)


def test_a_court_picture_in_two_card_shaped_halves_is_one_card() -> None:
    """A double-ended court picture split across its middle gives two halves of a card's shape, each a
    fifth of the card. They lie inside the card's white margin, off its outline, so the card is not a
    cluster of two cards (it would be if only the sizes counted)."""
    frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    card = np.array([[200, 70], [428, 70], [428, 389], [200, 389]], np.float32)
    cv2.fillConvexPoly(frame, card.astype(np.int32), (235, 240, 240))
    cv2.rectangle(frame, (239, 122), (389, 227), (40, 40, 200), -1)  # 150 x 105: aspect 1.43
    cv2.rectangle(frame, (239, 233), (389, 338), (200, 60, 40), -1)
    quads = detect_cards(frame)
    assert len(quads) == 1 and match(card, quads) is not None, quads


def _borderless_cards_on_cream(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """White cards with no printed border line on a cream cloth (the held-out kde:tigullio-international
    on a pale table): about 20 grey levels apart, and card and cloth both pass for paper."""
    rng = np.random.default_rng(seed)
    frame: np.ndarray = np.empty((720, 1280, 3), np.float32)
    frame[:] = (196, 210, 222)  # cream, BGR
    frame += np.linspace(-8, 8, 1280, dtype=np.float32)[None, :, None]  # light falls off across the table
    truth = []
    for k in range(6):
        cx, cy = 180 + 190 * k, 240 + 240 * (k % 2)
        w, h = 120 + 6 * k, 170 + 8 * k
        rect = ((float(cx), float(cy)), (float(w), float(h)), float(rng.uniform(-35, 35)))
        quad = cv2.boxPoints(rect).astype(np.float32)
        cv2.fillConvexPoly(frame, np.array(np.round(quad), np.int32), (220, 234, 234), lineType=cv2.LINE_AA)
        for _ in range(3):  # a few dark pips, so the inside is not blank
            px, py = cx + rng.uniform(-0.25, 0.25) * w, cy + rng.uniform(-0.25, 0.25) * h
            cv2.circle(frame, (int(px), int(py)), 9, (40, 40, 40), -1, cv2.LINE_AA)
        truth.append(quad)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.2) + rng.normal(0, 1.5, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8), truth


def test_white_cards_without_a_border_line_on_a_cream_cloth_are_found() -> None:
    """Detector round 5: a card whose edge is only paper against a pale cloth gave Canny on grey at
    30/90 too little to close an outline, and such cards were lost (kde:tigullio-international lost 11%
    of its cards in realistic scenes). Grey is now traced at 20/60; chroma, noisier on coloured felt,
    stays at 30/90. Three frames of six cards: the old thresholds find 4 of the 18 (so the frames test
    the change), the new ones 16, and nothing else."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    old = replace(DEFAULT_CONFIG, grey_low=30, grey_high=90, faint_chroma_pass=False)  # (the later pass finds some)
    found = found_before = extra = 0
    for seed in (1, 2, 3):
        frame, truth = _borderless_cards_on_cream(seed)
        quads = detect_cards(frame)
        hits = sum(match(q, quads) is not None for q in truth)
        found, extra = found + hits, extra + len(quads) - hits
        found_before += sum(match(q, detect_cards(frame, old)) is not None for q in truth)
    assert found >= 15 and extra == 0
    assert found_before <= 8


def _cards_on_a_pale_patch() -> tuple[np.ndarray, list[np.ndarray]]:
    """Two cards on a pale trapezoid patch of cloth (a place mat) on green felt. The patch is nearly card
    shaped: aspect 1.3, but its parallel sides differ by 1.4 times (the limit is 1.35, 1.49 for rough
    corners), so it is a candidate but never a card."""
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    patch = np.array([[480, 110], [800, 110], [864, 610], [416, 610]], np.float32)
    cv2.fillConvexPoly(frame, patch.astype(np.int32), (170, 190, 200), lineType=cv2.LINE_AA)
    deck = faces_deck(2)
    truth = []
    for label, (x, y) in (("9H", (500, 300)), ("QS", (660, 300))):
        card = cv2.resize(deck(label), (110, 154), interpolation=cv2.INTER_AREA)
        a = card[:, :, 3:4].astype(np.float32) / 255
        roi = frame[y : y + 154, x : x + 110]
        roi[:] = (card[:, :, :3] * a + roi * (1 - a)).astype(np.uint8)
        truth.append(np.array([[x, y], [x + 110, y], [x + 110, y + 154], [x, y + 154]], np.float32))
    return cv2.GaussianBlur(frame, (3, 3), 0), truth


def test_an_outline_that_is_no_card_does_not_merge_the_cards_inside_it() -> None:
    """a candidate that cannot pass as a card itself, holding two or more outlines that do,
    used to merge them into one group, and only the larger card came out (an 8D of gnome:simplistic on
    a striped cloth, seed 2024). It is dropped now: both cards are found."""
    frame, truth = _cards_on_a_pale_patch()
    quads = detect_cards(frame)
    assert len(quads) == 2 and all(match(q, quads) is not None for q in truth), quads


def _white_cards_on_a_pink_band(
    seed: int, band_rows: int, pink: tuple[int, int, int], centre_y: float
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Five white cards with a green cast of the light (BGR 217, 235, 221) on green felt whose top
    ``band_rows`` rows are a pale pink cloth (the table's edge, a cloth beyond it)."""
    rng = np.random.default_rng(seed)
    frame: np.ndarray = np.empty((720, 1280, 3), np.float32)
    frame[:] = (35, 80, 30)
    frame[:band_rows] = pink
    truth = []
    for k in range(5):
        cx, cy = 160 + 240 * k, centre_y + rng.uniform(-15, 15)
        quad = cv2.boxPoints(((float(cx), float(cy)), (120.0, 168.0), float(rng.uniform(-25, 25)))).astype(np.float32)
        cv2.fillConvexPoly(frame, np.array(np.round(quad), np.int32), (217, 235, 221), lineType=cv2.LINE_AA)
        for _ in range(3):  # a few red pips
            cv2.circle(
                frame,
                (int(cx + rng.uniform(-30, 30)), int(cy + rng.uniform(-50, 50))),
                8,
                (40, 40, 200),
                -1,
                cv2.LINE_AA,
            )
        truth.append(quad)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.2) + rng.normal(0, 1.5, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8), truth


def _found_with(frames: list[tuple[np.ndarray, list[np.ndarray]]], **config: Any) -> tuple[int, int]:
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    cfg = replace(DEFAULT_CONFIG, **config)
    found = extra = 0
    for frame, truth in frames:
        quads = detect_cards(frame, cfg)
        hits = sum(match(q, quads) is not None for q in truth)
        found, extra = found + hits, extra + len(quads) - hits
    return found, extra


def test_cards_across_the_edge_of_a_pale_cloth_are_found_where_canny_leaves_a_gap() -> None:
    """The gap pass: cards lying across the border of a pink band. Canny breaks each card's
    edge where the border meets it, the card's inside leaks into the table, and without the pass 5 of
    the 15 cards are found; with it all 15, and nothing else."""
    frames = [_white_cards_on_a_pink_band(seed, 200, (194, 178, 201), 200.0) for seed in (1, 2, 3)]
    assert _found_with(frames, gap_close=0, hue_pass=False)[0] <= 8
    assert _found_with(frames, hue_pass=False) == (15, 0)


def test_white_cards_on_a_pink_cloth_of_their_own_grey_are_found_by_their_hue() -> None:
    """The hue pass: the cloth (BGR 225, 215, 250) is as grey and as bright in its darkest
    channel as the cards, and its chroma differs from theirs by less than chroma's Canny threshold: no
    edge and no paper cue finds them (0 of 15). Its hue does differ (pink against green-white), and the
    magenta-green opponent edges find all 15, and nothing else."""
    frames = [_white_cards_on_a_pink_band(seed, 400, (225, 215, 250), 190.0) for seed in (1, 2, 3)]
    assert _found_with(frames, hue_pass=False, faint_chroma_pass=False)[0] == 0
    assert _found_with(frames) == (15, 0)


def _grey_cards_on_pale_felt(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Five grey cards (BGR 176, 197, 194) on a pale green felt (164, 209, 170), defocused (sigma 1.2 px):
    one brightness, and a chroma step of ~24 levels, which the edge map's chroma Canny (30/90) breaks
    into dashes. The colours are those of a validation frame where 9 of 12 cards were missed."""
    rng = np.random.default_rng(seed)
    frame: np.ndarray = np.empty((720, 1280, 3), np.float32)
    frame[:] = (164, 209, 170)
    truth = []
    for k in range(5):
        cx, cy = 160 + 240 * k, 360 + rng.uniform(-60, 60)
        quad = cv2.boxPoints(((float(cx), float(cy)), (84.0, 120.0), float(rng.uniform(-25, 25)))).astype(np.float32)
        cv2.fillConvexPoly(frame, np.array(np.round(quad), np.int32), (176, 197, 194), lineType=cv2.LINE_AA)
        for _ in range(3):  # a few red pips
            cv2.circle(
                frame,
                (int(cx + rng.uniform(-20, 20)), int(cy + rng.uniform(-35, 35))),
                6,
                (40, 40, 200),
                -1,
                cv2.LINE_AA,
            )
        truth.append(quad)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.2) + rng.normal(0, 1.5, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8), truth


def test_grey_cards_on_a_pale_felt_of_their_brightness_are_found_on_fainter_chroma_edges() -> None:
    """``faint_chroma_pass``: without it 11 of the 15 cards are found (a card whose outline
    Canny breaks, and whose paper blob merges with the pale felt, has no candidate); with the first stage
    run again on chroma edges at 15/45, all 15, and nothing else."""
    frames = [_grey_cards_on_pale_felt(seed) for seed in (1, 2, 3)]
    found, extra = _found_with(frames, faint_chroma_pass=False)
    assert found <= 12 and extra == 0
    assert _found_with(frames, faint_chroma_pass=True) == (15, 0)
    assert _found_with(frames, faint_chroma_pass=True, faint_chroma_gate=0.0) == (15, 0)


def test_the_faint_chroma_pass_runs_only_where_loose_paper_is_greyer_than_the_paper_around_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``faint_chroma_gate``: the pass costs about 12 ms a frame where it runs. Where every card was found and the
    paper left outside them is the pale felt alone (one chroma), it does not run; where grey cards lie merged with
    that felt, a card's area of the loose paper is 12 levels of chroma greyer than the rest, and it does. With
    the gate at 0 it runs on both, as before."""
    from dataclasses import replace

    import vision.detect as detect_module

    runs: list[int] = []
    inner = detect_module._faint_chroma_cards

    def counted(*args: Any, **kwargs: Any) -> list[np.ndarray]:
        runs.append(1)
        return inner(*args, **kwargs)

    monkeypatch.setattr(detect_module, "_faint_chroma_cards", counted)
    grey, _ = _grey_cards_on_pale_felt(1)
    white = np.full((720, 1280, 3), (164, 209, 170), np.uint8)  # the felt with white cards, each found,
    white[600:] = (40, 45, 50)  # and a dark table edge, so that the felt is paper beside it
    for k in range(5):
        box = cv2.boxPoints(((160.0 + 240 * k, 360.0), (84.0, 120.0), 10.0 * k)).astype(np.int32)
        cv2.fillConvexPoly(white, box, (245, 245, 245))
    config = replace(ONCE, faint_chroma_pass=True)
    assert len(detect_cards(white, config)) == 5
    counts = []
    for frame, gate in ((white, 12.0), (grey, 12.0), (white, 0.0)):
        runs.clear()
        detect_cards(frame, replace(config, faint_chroma_gate=gate))
        counts.append(len(runs))
    assert counts == [0, 1, 1]


def _place(frame: np.ndarray, card_bgra: np.ndarray, quad: np.ndarray) -> None:
    """Draw a BGRA card image onto ``frame`` (float32 BGR) at ``quad``."""
    h, w = card_bgra.shape[:2]
    warp = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    card = cv2.warpPerspective(card_bgra, warp, (frame.shape[1], frame.shape[0]), flags=cv2.INTER_AREA)
    alpha = card[:, :, 3:4].astype(np.float32) / 255
    frame[:] = card[:, :, :3] * alpha + frame * (1 - alpha)


def _checked_back(cell: int, width: int = 120, height: int = 168, border: int = 7) -> np.ndarray:
    """A card back: a white border round a blue-and-white checked panel of ``cell`` px squares."""
    img = np.full((height, width, 3), 235, np.uint8)
    yy, xx = np.mgrid[0 : height - 2 * border, 0 : width - 2 * border]
    checks = ((yy // cell + xx // cell) % 2).astype(bool)[..., None]
    img[border:-border, border:-border] = np.where(
        checks, np.array([170, 90, 60], np.uint8), np.array([235, 235, 235], np.uint8)
    )
    return np.dstack([img, np.full((height, width), 255, np.uint8)])


def _backs_on_a_striped_cloth(seed: int, cell: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Five face-down cards on a red and pale-sage striped cloth (20 px stripes) whose stripes end at the
    table's edge (a dark band at the top): the stripes' edges meet every card's outline and, joined by
    the table's edge, close round whole regions of cloth."""
    rng = np.random.default_rng(seed)
    frame: np.ndarray = np.empty((720, 1280, 3), np.float32)
    frame[:] = (60, 80, 70)
    for x in range(0, 1280, 40):
        frame[110:, x : x + 20] = (45, 50, 185)
        frame[110:, x + 20 : x + 40] = (150, 175, 150)
    truth = []
    for k in range(5):
        centre = (170.0 + 235 * k, 300 + 150 * (k % 2) + float(rng.uniform(-20, 20)))
        quad = cv2.boxPoints((centre, (120.0, 168.0), float(rng.uniform(-30, 30)))).astype(np.float32)
        _place(frame, _checked_back(cell), quad)
        truth.append(quad)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.3) + rng.normal(0, 3, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8), truth


def test_backs_on_a_striped_cloth_are_found_by_their_printed_pattern() -> None:
    """The texture pass: with 8 px checks (4 px at detection scale) blurred into the border,
    the back's pattern edges run into its outline and the stripes meet it from outside; the holes, paper
    and filled-outline passes find 1 of these 10 cards; with the pattern's dense edges 5, and nothing
    else. (Still missed: 5 of 10; with 10 px checks the pass finds only 1 more, see docs/performance.md.)"""
    frames = [_backs_on_a_striped_cloth(seed, 8) for seed in (1, 2)]
    assert _found_with(frames, texture_pass=False)[0] <= 2
    found, extra = _found_with(frames)
    assert found >= 5 and extra == 0


def _white_cards_off_the_table_edge(
    seed: int,
    beyond: float,
    card: tuple[int, int, int] = (238, 242, 242),
    cloth: tuple[int, int, int] = (236, 240, 238),
    napkins: int = 0,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Five white cards on a grained wood table whose far edge (the top 160 rows) is a white cloth of the
    cards' colour (BGR); ``beyond`` of each card's length lies on the cloth (the held-out
    kde:tigullio-international cards at seed 2024 lie so). With ``napkins`` the cloth is instead a napkin
    that many pixels wide under each card's far end (rows 40-160)."""
    rng = np.random.default_rng(seed)
    frame: np.ndarray = np.empty((720, 1280, 3), np.float32)
    frame[:] = (40, 95, 150)
    yy, xx = np.mgrid[0:720, 0:1280]
    frame += (12 * np.sin((xx + yy) / 5.0))[..., None].astype(np.float32)
    if not napkins:
        frame[:160] = cloth
    truth = []
    for k in range(5):
        cx, cy = 170.0 + 235 * k, 160 - beyond * 168 + 84
        if napkins:
            frame[40:160, int(cx - napkins / 2) : int(cx + napkins / 2)] = cloth
        quad = cv2.boxPoints(((cx, cy), (120.0, 168.0), float(rng.uniform(-8, 8)))).astype(np.float32)
        cv2.fillConvexPoly(frame, np.array(np.round(quad), np.int32), card, lineType=cv2.LINE_AA)
        for _ in range(3):
            centre = (int(cx + rng.uniform(-30, 30)), int(cy + rng.uniform(-10, 50)))
            cv2.circle(frame, centre, 9, (30, 30, 30), -1, cv2.LINE_AA)
        truth.append(quad)
    frame = cv2.GaussianBlur(frame, (0, 0), 1.2) + rng.normal(0, 2, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8), truth


@pytest.mark.parametrize("beyond", [0.0, 0.15, 0.3])
def test_white_cards_reaching_onto_a_white_table_edge_are_found_from_three_sides(beyond: float) -> None:
    """The tab pass: card and white cloth are one region of paper with no edge between them,
    so nothing else finds these cards (0 of 10). The region's outline goes round each card's three
    other sides; where the card reaches onto the cloth (15%, 30% of its length) its far end is placed
    for the proportions of the other cards found. All 10 found, within the match tolerance, and
    nothing else."""
    frames = [_white_cards_off_the_table_edge(seed, beyond) for seed in (1, 2)]
    assert _found_with(frames, tab_pass=False)[0] == 0
    assert _found_with(frames) == (10, 0)


def test_a_card_reaching_onto_a_region_not_much_larger_than_itself_is_not_taken_from_three_sides() -> None:
    """The tab pass's size guard (``tab_region``): the region a card reaches onto must be at least 4 times
    the card (a table edge, a cloth), not a blob of paper about its own size (a phone's screen coming out
    from under a card). White cards reaching onto white napkins 200 px wide (the region about twice the
    card): refused; with the guard at 1 they would pass; nothing else finds them."""
    frames = [_white_cards_off_the_table_edge(seed, 0.0, napkins=200) for seed in (1, 2)]
    assert _found_with(frames) == (0, 0)
    assert _found_with(frames, tab_region=1.0)[0] == 10


def test_a_coloured_oblong_reaching_out_of_a_region_of_its_colour_is_no_card() -> None:
    """The tab pass's chroma guard: pale cyan oblongs of a card's proportions (phone screens) reaching out
    of a pale cyan cloth have three sides on edges and no edge or colour change at the mouth, like the
    cards above, but they are not grey inside (chroma 50, a card's stock under a cast of light stays
    under 40): refused. With the guard off they would pass."""
    frames = [_white_cards_off_the_table_edge(seed, 0.15, (235, 235, 185), (233, 236, 186)) for seed in (1, 2)]
    assert _found_with(frames) == (0, 0)
    assert _found_with(frames, tab_chroma=255.0)[0] >= 8


def _open_outline(corners: list[tuple[int, int]], weak: float) -> tuple[np.ndarray, np.ndarray]:
    """An outline at detection scale drawn through ``corners``, its last side (corner 3 to corner 0)
    drawn for only ``weak`` of its length from its middle out, as a white card on a cloth of its colour
    shows: the outline's contour and the edge map dilated as the detector's ``near_edges``."""
    lines = np.zeros((360, 640), np.uint8)
    pts = [np.array(p, np.float64) for p in corners]
    for k in range(3):
        cv2.line(lines, tuple(map(int, pts[k])), tuple(map(int, pts[k + 1])), 255, 1)
    mid, half = (pts[3] + pts[0]) / 2, (pts[0] - pts[3]) / 2 * weak
    cv2.line(lines, tuple(map(int, mid - half)), tuple(map(int, mid + half)), 255, 1)
    contours, _ = cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=len), cv2.dilate(lines, np.ones((5, 5), np.uint8))


def test_an_open_outline_with_one_weak_side_is_a_card_only_when_nearly_a_card_rectangle() -> None:
    """``open_weak_side``: a white card on a pale pink cloth (held-out kde:tigullio-international,
    seed 2024) had three sides on edges and the fourth on edges for 53%: its hull was refused (every
    side needs 0.85). Such an outline is a card now when the other sides are on edges for 0.9 and the
    shape is nearly a card's rectangle; a trapezoid (sides 1.3 apart, within the usual limit of 1.35 x
    1.1 for rough corners) with the same weak side still is not."""
    from vision.detect import DEFAULT_CONFIG
    from vision.outline_candidates import Candidate, consider_open

    loose = DEFAULT_CONFIG.loose
    min_area = (DEFAULT_CONFIG.min_width * 0.5) ** 2 * DEFAULT_CONFIG.min_aspect * 0.8

    def accepted(corners: list[tuple[int, int]], weak: float, **config: Any) -> bool:
        from dataclasses import replace

        contour, near = _open_outline(corners, weak)
        out: list[Candidate] = []
        consider_open(contour, min_area, replace(loose, **config), out, near)
        return len(out) == 1

    rectangle = [(200, 100), (260, 100), (260, 184), (200, 184)]  # 60 x 84: aspect 1.4
    assert accepted(rectangle, 0.6)
    assert not accepted(rectangle, 0.6, open_weak_side=2.0)  # the old rule: every side on edges
    assert accepted(rectangle, 1.0, open_weak_side=2.0)
    assert not accepted(rectangle, 0.3)  # less than half of the side
    trapezoid = [(200, 100), (260, 100), (268, 184), (192, 184)]  # 60 against 76 (x1.27)
    assert accepted(trapezoid, 1.0)
    assert not accepted(trapezoid, 0.6)


def test_an_open_outline_whose_weak_side_is_a_faint_colour_step_is_a_card() -> None:
    """``open_step_share``: a grey card on a pale blue-grey table (held-out
    kde:tigullio-international, hard scene 114 of the model card's frames) had three sides on edges and the
    fourth on them for 24%, but the colour stepped by 13-18 all along it. The weak side is accepted when the colour (BGR
    distance, 3 px either side) steps
    by 10 or more along 80% of it; the same outline over a plain table, or a step of 6, is refused."""
    from vision.detect import DEFAULT_CONFIG
    from vision.outline_candidates import Candidate, consider_open

    loose = DEFAULT_CONFIG.loose
    min_area = (DEFAULT_CONFIG.min_width * 0.5) ** 2 * DEFAULT_CONFIG.min_aspect * 0.8
    corners = [(200, 100), (260, 100), (260, 184), (200, 184)]
    contour, near = _open_outline(corners, 0.0)

    def accepted(card: tuple[int, int, int] | None) -> bool:
        image = np.full((360, 640, 3), (190, 182, 176), np.uint8)  # pale blue-grey, BGR
        if card is not None:
            cv2.fillConvexPoly(image, np.array(corners, np.int32), card)
        out: list[Candidate] = []
        consider_open(contour, min_area, loose, out, near, image)
        return len(out) == 1

    assert accepted((200, 196, 190))  # a step of 22
    assert not accepted((194, 186, 180))  # a step of 6.9
    assert not accepted(None)  # no step at all
    out: list[Candidate] = []
    consider_open(contour, min_area, loose, out, near)  # without the image: the edge map alone
    assert not out


def _pieces(corners: list[tuple[int, int]], cut: tuple[float, float]) -> tuple[list[np.ndarray], np.ndarray]:
    """A card outline at detection scale through ``corners`` (clockwise from the top left) with the edge of a
    shadow drawn across it, from ``cut[0]`` of the way down its left side to ``cut[1]`` of the way down its
    right side; the outline has a gap where the cut meets it, so it is two open outlines: their contours
    and the edge map dilated as ``near_edges``."""
    c = np.array(corners, np.float64)
    ends = [
        tuple(map(int, np.rint(c[0] + cut[0] * (c[3] - c[0])))),
        tuple(map(int, np.rint(c[1] + cut[1] * (c[2] - c[1])))),
    ]
    lines = np.zeros((360, 640), np.uint8)
    cv2.polylines(lines, [np.array(corners, np.int32)], True, 255, 1)
    cv2.line(lines, ends[0], ends[1], 255, 1)
    near = cv2.dilate(lines, np.ones((5, 5), np.uint8))
    for end in ends:  # the outline's gaps where the shadow crosses it (dimmer paper, no step there)
        cv2.circle(lines, end, 2, 0, -1)
    cv2.line(lines, ends[0], ends[1], 0, 3)  # the cut belongs to neither piece in this drawing
    contours, _ = cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in contours if len(c) > 20], near


def test_two_open_outlines_a_shadow_cuts_a_card_into_are_one_card_when_nearly_its_rectangle() -> None:
    """``open_pairs``: the edge of a shadow across a white card on a grey table (held-out
    kde:tigullio-international, hard scene 114 of the model card's frames) cut its outline into two open
    pieces, each half the card: neither was a card, both together are. A pair whose hull is not nearly a
    card's rectangle (the soft ring of a glare spot beside a card made one), or whose pieces cover too little
    of it, is refused."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG
    from vision.outline_candidates import Candidate, open_pairs

    loose = DEFAULT_CONFIG.loose
    min_area = (DEFAULT_CONFIG.min_width * 0.5) ** 2 * DEFAULT_CONFIG.min_aspect * 0.8
    image = np.full((360, 640, 3), 150, np.uint8)

    def found(corners: list[tuple[int, int]], cut: tuple[float, float] = (0.25, 0.8)) -> list[Candidate]:
        pieces, near = _pieces(corners, cut)
        assert len(pieces) == 2
        out: list[Candidate] = []
        open_pairs(pieces, min_area, loose, out, near, image)
        return out

    card = [(200, 100), (260, 100), (260, 184), (200, 184)]
    (got,) = found(card)
    assert np.abs(np.sort(got.rough, axis=0) - np.sort(np.array(card, np.float32), axis=0)).max() <= 2
    assert len(found(card, (0.6, 0.3))) == 1
    assert not found([(200, 100), (260, 100), (272, 184), (188, 184)])  # a trapezoid
    assert not found([(200, 100), (300, 100), (300, 184), (200, 184)])  # too square for a card
    # two brackets at opposite corners, edges all round: their hulls cover half of the hull of both
    lines = np.zeros((360, 640), np.uint8)
    cv2.polylines(lines, [np.array([(200, 140), (200, 100), (260, 100)], np.int32)], False, 255, 1)
    cv2.polylines(lines, [np.array([(260, 144), (260, 184), (200, 184)], np.int32)], False, 255, 1)
    pieces, _ = cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cv2.polylines(lines, [np.array(card, np.int32)], True, 255, 1)
    near = cv2.dilate(lines, np.ones((5, 5), np.uint8))
    for cover, accepted in ((loose.open_pair_cover, 0), (0.0, 1)):
        out: list[Candidate] = []
        open_pairs(list(pieces), min_area, replace(loose, open_pair_cover=cover), out, near, image)
        assert len(out) == accepted


@pytest.mark.parametrize(
    ("design", "index", "label", "nth", "passes_off"),
    [
        ("gnome:simplistic", 15, "back", 1, {"texture_pass": False}),  # on a red and sage striped cloth
        ("gnome:simplistic", 15, "back", 2, {"texture_pass": False}),
        ("gnome:plastic", 2, "back", 0, {"paper_nested": False}),  # its inner panel's paper, on a pale cloth
        # on a pale pink cloth (its weak side is also a colour step: rule finds it too)
        ("kde:tigullio-international", 4, "8H", 0, {"open_weak_side": 2.0, "open_step_share": 2.0}),
        ("kde:tigullio-international", 18, "5C", 1, {"tab_pass": False}),  # reaching onto the white table edge
        ("kde:tigullio-international", 18, "8C", 1, {"tab_pass": False}),
    ],
)
def test_held_out_cards_the_later_passes_find(
    held_out_decks: dict[str, Deck],
    design: str,
    index: int,
    label: str,
    nth: int,
    passes_off: dict[str, Any],
) -> None:
    """Realistic held-out scenes of the model card's evaluation (``models.training.evaluate``, seed 2024,
    scene ``index`` of ``design``) where a card was missed before the texture and tab passes: found now, and not with
    the
    pass that finds it turned off."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, design, 2024, index)
    truth = [q for lab, q in scene.cards if lab == label][nth]
    assert match(truth, detect_cards(scene.image)) is not None
    # (the plane estimated from the cards off and the size pass on the image too: the deck fit and the size pass
    # find some of these cards as well)
    assert (
        match(
            truth,
            detect_cards(
                scene.image,
                replace(
                    DEFAULT_CONFIG, estimate_plane=False, size_pass_image=False, faint_chroma_pass=False, **passes_off
                ),
            ),
        )
        is None
    )


@pytest.mark.parametrize(
    ("design", "index", "label"),
    [
        ("gnome:plastic", 1, "9C"),  # motion blur 8 px
        ("kde:tigullio-international", 14, "3C"),
    ],
)
def test_the_plane_from_motion_blurred_outlines_is_not_refused(
    held_out_decks: dict[str, Deck],
    design: str,
    index: int,
    label: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``DetectorConfig.plane_spread``: hard held-out scenes of the model card's evaluation (seed 2025) whose
    outlines, a few pixels off under motion blur, spread by over 4% on the plane estimated from them. With
    that refused, the deck fit and the size pass had no plane and the card was lost; at 6% it is found."""
    from dataclasses import replace

    import vision.detect as detect_module
    from vision.detect import DEFAULT_CONFIG
    from vision.plane_from_cards import plane_from_cards

    scene = _held_out_scene(held_out_decks, design, 2025, index, HARD)
    truth = next(q for lab, q in scene.cards if lab == label)
    assert match(truth, detect_cards(scene.image)) is not None
    # (``plane_drop=0``: leaving out the outline furthest off the median area gives the 9C's frame a plane at 4%
    # too)
    assert match(truth, detect_cards(scene.image, replace(DEFAULT_CONFIG, plane_spread=0.04, plane_drop=0))) is None
    # the mechanism: the same outlines give a plane at 6% and none at 4%
    seen: list[list[np.ndarray]] = []

    def spy(quads: list[np.ndarray], shape: tuple[int, ...], **kwargs: Any) -> np.ndarray | None:
        seen.append(list(quads))
        return plane_from_cards(quads, shape, **kwargs)

    monkeypatch.setattr(detect_module, "plane_from_cards", spy)
    detect_cards(scene.image)
    assert plane_from_cards(seen[0], scene.image.shape, spread=0.04) is None
    assert plane_from_cards(seen[0], scene.image.shape, spread=0.06) is not None


def _court_cards_cut_in_two_on_stripes(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Five cream cards with a black border line on a green striped cloth, each with a dark band (a court
    figure) from one side to the opposite one: its paper is two blobs, and the border's outline runs into
    the stripes (the held-out gnome:bellot court cards at seed 99 lie so)."""
    rng = np.random.default_rng(seed)
    frame = np.zeros((720, 1280, 3), np.uint8)
    for x in range(0, 1280, 16):
        frame[:, x : x + 8] = (60, 150, 60)
        frame[:, x + 8 : x + 16] = (40, 170, 120)
    truth = []
    for k in range(5):
        centre = (180.0 + 230 * k, 360 + float(rng.uniform(-80, 80)))
        angle = float(rng.uniform(-30, 30)) + (90 if k % 2 else 0)
        quad = cv2.boxPoints((centre, (130.0 + 8 * k, 185.0 + 10 * k), angle)).astype(np.float32)
        cv2.fillConvexPoly(frame, np.array(np.round(quad), np.int32), (215, 235, 240), cv2.LINE_AA)
        cv2.polylines(frame, [np.array(np.round(quad), np.int32)], True, (20, 20, 20), 3, cv2.LINE_AA)
        c, u, v = quad.mean(axis=0), quad[1] - quad[0], quad[3] - quad[0]
        band = np.array(
            [c - 0.5 * u - 0.25 * v, c + 0.5 * u - 0.05 * v, c + 0.5 * u + 0.25 * v, c - 0.5 * u + 0.05 * v], np.float32
        )
        cv2.fillConvexPoly(frame, np.array(np.round(band), np.int32), (150, 40, 40), cv2.LINE_AA)
        cv2.fillConvexPoly(frame, np.array(np.round(band * 0.5 + c * 0.5), np.int32), (40, 40, 200), cv2.LINE_AA)
        truth.append(quad)
    noisy = cv2.GaussianBlur(frame, (0, 0), 1.0) + rng.normal(0, 2, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8), truth


def test_a_card_whose_paper_a_court_figure_cuts_in_two_is_found_from_both_pieces() -> None:
    """Paper pairs: two paper blobs that touch, neither a card, whose hull is a card with every
    side on edges. Without them 34 of these 50 cards are found, with them 48, and nothing else."""
    frames = [_court_cards_cut_in_two_on_stripes(seed) for seed in range(10)]
    assert _found_with(frames, paper_pairs=False)[0] <= 40
    found, extra = _found_with(frames)
    assert found >= 46 and extra == 0


@pytest.mark.parametrize(
    ("seed", "design", "index", "label", "passes_off"),
    [
        # a jack's figure from corner to corner: its paper is two triangles joined at the corners, covering
        # 0.47 of the hull (the rule for other outlines asks for half)
        (99, "gnome:bellot", 8, "JD", {"thin_cover": 0.5}),
        # a landscape king whose figure reaches both long sides, on a striped cloth (two paper blobs)
        (99, "gnome:bellot", 7, "KS", {"paper_pairs": False}),
        # hard scene 100 of the model card's frames: a grey card, one side a faint colour step (see above)
        (2025, "kde:tigullio-international", 0, "9H", {"open_step_share": 2.0}),
        # hard scene 114: a shadow's edge across a white card cuts its outline in two (see above)
        (2025, "kde:tigullio-international", 14, "7H", {"open_pairs": False}),
    ],
)
def test_held_out_cards_of_the_model_cards_seeds_are_found(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    passes_off: dict[str, Any],
) -> None:
    """Held-out scenes where a card was missed before the paper pairs: found now, and not with the rule that
    finds it turned off. Seed 99: realistic scenes of ``benchmarks/bench_recognition.py``; seed 2025: hard
    scenes of the model card (``evaluate --seed 2024`` deals its hard scenes from 2025); scene ``index`` of
    ``design``."""
    from dataclasses import replace

    from models.training.evaluate import NORMAL
    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, design, seed, index, HARD if seed == 2025 else NORMAL)
    (truth,) = [q for lab, q in scene.cards if lab == label]
    assert match(truth, detect_cards(scene.image)) is not None
    # (the plane estimated from the cards off and the size pass on the image too: the deck fit and the size pass
    # find some of these cards as well)
    assert (
        match(
            truth,
            detect_cards(
                scene.image,
                replace(
                    DEFAULT_CONFIG, estimate_plane=False, size_pass_image=False, faint_chroma_pass=False, **passes_off
                ),
            ),
        )
        is None
    )


def test_nested_outer_outlines_include_a_blob_inside_a_ring() -> None:
    """``contours_of(nested=True)``: a card's inside within its printed frame line is a blob inside the
    line's ring, itself inside a hole of a pale cloth's region; only the outermost outline is returned
    without it, and the blob's outline too with it (holes never)."""
    from vision.outline_candidates import contours_of

    mask = np.full((200, 300), 255, np.uint8)  # the pale cloth, paper
    cv2.rectangle(mask, (100, 40), (180, 160), 0, 3)  # the frame line's ring
    cv2.circle(mask, (140, 100), 12, 0, -1)  # a pip: a hole of the inside
    outermost = contours_of(mask, 20, holes=False)
    nested = contours_of(mask, 20, holes=False, nested=True)
    assert len(outermost) == 1 and cv2.contourArea(outermost[0]) > 50000
    areas = sorted(cv2.contourArea(c) for c in nested)
    assert len(nested) == 2 and 70 * 110 < areas[0] < 80 * 120


def test_completing_a_card_seen_on_three_sides() -> None:
    """``complete_tab``: the unseen side is the one nearest the mouth; a part seen as long as a card, or
    lying across (wider than long, card-shaped), is the card; a shorter one is extended along its sides to
    the frame's proportions; too little seen is refused."""
    from vision.later_passes import complete_tab

    def part(length: float, width: float = 60.0) -> np.ndarray:  # far side at y = 100, mouth at the top
        return np.array([[0, 100 - length], [width, 100 - length], [width, 100], [0, 100]], np.float32)

    mouth = np.array([30, 0], np.float32)

    def completed(length: float, proportions: float) -> tuple[np.ndarray, int]:
        got = complete_tab(part(length), mouth, proportions)
        assert got is not None
        return got

    whole, k = completed(84, 1.4)
    assert k == 0 and np.allclose(whole, part(84))
    across, _ = completed(45, 1.4)  # 60 x 45: a card lying across
    assert np.allclose(across, part(45))
    extended, k = completed(60, 1.4)
    assert k == 0 and np.allclose(extended, part(84), atol=1e-3)
    narrow, _ = completed(60, 1.56)  # a bridge deck's proportions
    assert np.allclose(narrow, part(60 * 1.56), atol=1e-3)
    assert complete_tab(part(40), mouth, 1.4) is None


def test_the_frames_card_proportions_are_the_median_of_the_cards_found() -> None:
    """``deck_aspect``: the median long-to-wide ratio of the cards found (any orientation), the default
    with fewer than three, clamped to card proportions."""
    from vision.later_passes import deck_aspect

    def card(w: float, h: float) -> np.ndarray:
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)

    assert deck_aspect([card(50, 78), card(78, 50), card(60, 94), card(40, 40)], 1.4) == pytest.approx(1.56, abs=0.01)
    assert deck_aspect([card(50, 78), card(60, 94)], 1.4) == 1.4
    assert deck_aspect([card(10, 40)] * 3, 1.4) == 1.75


def test_the_tab_guards_sample_colour_across_a_side_and_inside() -> None:
    """``same_across`` compares the image 3 px either side of a side; ``grey_inside`` the chroma inside
    a quad: a white card against a white cloth is the same across, against pink it is not; white stock
    is grey inside, a cyan screen is not."""
    from vision.later_passes import grey_inside, same_across

    image = np.full((100, 200, 3), 240, np.uint8)
    quad = np.array([[50, 30], [90, 30], [90, 90], [50, 90]], np.float32)  # side 0 is the top, y = 30
    assert same_across(image, quad, 0, 30.0) and grey_inside(image, quad, 40.0)
    image[:30] = (225, 200, 250)  # a pink cloth beyond the top side
    assert not same_across(image, quad, 0, 30.0) and same_across(image, quad, 1, 30.0)
    image[30:] = (235, 235, 185)  # the card pale cyan: chroma 50
    assert not grey_inside(image, quad, 40.0)


def test_outline_support_is_high_on_a_cards_outline_and_low_off_it() -> None:
    """``outline_support`` (the diagnostic of benchmarks/missed_cards.py): a card's true outline lies on
    the edge map; the same outlines over a plain felt of no cards do not."""
    from vision.detect import outline_support

    rng = np.random.default_rng(3)
    scene = make_scene(rng, faces_deck(0), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt"))
    truths = [q for _, q in scene.cards]
    on = outline_support(scene.image, truths)
    assert on.shape == (len(truths),) and on.min() >= 0.9, on
    empty = np.full(scene.image.shape, (40, 110, 40), np.uint8)
    assert outline_support(empty, truths).max() == 0.0
    assert outline_support(scene.image, []).shape == (0,)


@pytest.mark.parametrize(
    "seed, design, index, label",
    [
        (99, "gnome:bellot", 5, "QH"),
        (99, "gnome:bellot", 7, "JC"),
        (99, "gnome:bellot", 18, "JH"),
        (7, "gnome:bellot", 4, "QC"),
        (7, "kde:tigullio-international", 5, "KH"),
    ],
)
def test_held_out_court_cards_no_closed_outline_holds_are_found_by_their_size(
    held_out_decks: dict[str, Deck], seed: int, design: str, index: int, label: str
) -> None:
    """The size pass (``DetectorConfig.size_pass``, ``vision/size_search.py``) on a calibrated table: court
    cards whose figure reaches their edge on a striped cloth, beside an arm or a glare patch, missed by every
    other pass (``benchmarks/missed_cards.py``), are found as rectangles of the deck's size; not
    with the pass off. Realistic scenes of ``evaluate --seed S`` (scene ``index`` of ``design``)."""

    scene = _held_out_scene(held_out_decks, design, seed, index)
    assert _finds(scene, label, scene.plane)
    assert not _finds(scene, label, scene.plane, size_pass=False)


def test_outlines_off_the_decks_size_are_judged_on_the_plane() -> None:
    """``size_pass.off_deck_size``: the outlines whose short or long side is more than ``size_rescue_off`` off the
    median's, in the image without a plane and on the plane with one."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG
    from vision.size_pass import off_deck_size

    def rect(x: float, y: float, w: float, h: float) -> np.ndarray:
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)

    upright = [rect(10 + 60 * k, 20, 40, 56) for k in range(4)]
    config = replace(DEFAULT_CONFIG, size_rescue_off=0.15)
    assert off_deck_size([*upright, rect(300, 20, 40, 56 * 1.2)], config) == [4]  # 20% too long
    assert off_deck_size([*upright, rect(300, 20, 40, 56 * 1.2)], replace(config, size_rescue_off=0.25)) == []
    # a card lying across is the deck's size in the image; on a plane that stretches y by 1.2 (a view from the
    # side) it is not: 56 x 48 there against the others' 40 x 67
    across = [*upright, rect(300, 20, 56, 40)]
    assert off_deck_size(across, config) == []
    assert off_deck_size(across, replace(config, plane=(1.0, 0.0, 0.0, 0.0, 1.2, 0.0, 0.0, 0.0, 1.0))) == [4]


@pytest.mark.parametrize(
    "seed, design, index, label, calibrated",
    [
        (8, "gnome:plastic", 9, "7H", False),
        (54, "gnome:tigullio", 6, "JD", True),
    ],
)
def test_an_outline_off_the_decks_size_gives_way_to_the_size_pass_rectangle(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    calibrated: bool,
) -> None:
    """``size_rescue_off``: an outline more than 15% off the deck's size on the plane (one that took in the cloth
    beside its card) neither hides the card's edges from the size search nor blocks its rectangle, which takes
    its place. Hard scenes of ``evaluate --seed 7`` and ``--seed 53`` (dealt from seeds 8 and 54), once in image
    mode (the plane estimated from the cards) and once calibrated; not found with the rescue off, and no second
    outline is left on the card."""
    scene = _held_out_scene(held_out_decks, design, seed, index, HARD)
    plane = scene.plane if calibrated else None
    assert _finds(scene, label, plane)
    assert not _finds(scene, label, plane, size_rescue_off=0.0)
    (truth,) = [q for lab, q in scene.cards if lab == label]
    width = float(np.linalg.norm(truth[1] - truth[0]))
    on_card = [
        q
        for q in detect_cards(scene.image, plane=plane)
        if np.linalg.norm(q.mean(axis=0) - truth.mean(axis=0)) < width / 3
    ]
    assert len(on_card) == 1


def test_the_size_pass_takes_no_square_of_a_checked_cloth_for_a_card(held_out_decks: dict[str, Deck]) -> None:
    """A checked cloth is rectangles of every size along its squares' edges; a card has a paper margin inside
    its sides (``DetectorConfig.size_band``). Hard scene 10 of gnome:plastic at seed 8 (the hard scenes of
    ``evaluate --seed 7``): with the margin test off the pass reports squares of the cloth as cards."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, "gnome:plastic", 8, 10, HARD)
    truths = [q for _, q in scene.cards]

    def unmatched(config: DetectorConfig) -> int:
        quads = detect_cards(scene.image, config, plane=scene.plane)
        return sum(all(match(t, [q]) is None for t in truths) for q in quads)

    off = unmatched(replace(DEFAULT_CONFIG, size_pass=False))
    assert unmatched(DEFAULT_CONFIG) <= off
    assert unmatched(replace(DEFAULT_CONFIG, size_band=0.0)) > off
    # this gingham's light grid lines give a rectangle along them a margin of one pale colour: what keeps it
    # out since the pass reaches a side two pixels off its edge is that its inside is the cloth around it
    assert unmatched(replace(DEFAULT_CONFIG, size_cloth_share=2.0)) > off


def test_a_rectangle_whose_inside_is_the_cloth_around_it_is_not_a_card() -> None:
    """``inside_like_outside``: on a checked cloth a rectangle along the squares holds the same two colours
    as the ring around it; a white card with pips on that cloth holds colours the ring does not."""
    from vision.size_pass import inside_like_outside

    yy, xx = np.mgrid[0:240, 0:320]
    cloth = np.where(
        (((yy // 6) + (xx // 6)) % 2 == 0)[..., None],
        np.array([230, 220, 150], np.uint8),
        np.array([40, 90, 110], np.uint8),
    ).astype(np.uint8)
    rect = np.array([[120, 90], [180, 90], [180, 174], [120, 174]], np.float32)
    assert inside_like_outside(cloth, rect, 15.0) == 1.0
    card = cloth.copy()
    cv2.rectangle(card, (120, 90), (180, 174), (250, 250, 250), -1)
    for cx, cy in ((140, 110), (160, 150), (150, 130)):
        cv2.circle(card, (cx, cy), 5, (20, 20, 200), -1)
    assert inside_like_outside(card, rect, 15.0) < 0.2


@pytest.mark.parametrize(
    "seed, design, index, label, calibrated, needs",
    [
        (7, "kde:tigullio-international", 5, "KC", False, ("snap_early",)),  # (and size_grow before size_angles 9)
        (99, "gnome:bellot", 5, "QH", True, ("size_grow",)),
    ],
)
def test_the_size_pass_takes_the_deck_from_snapped_outlines_and_a_side_two_pixels_off(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    calibrated: bool,
    needs: tuple[str, ...],
) -> None:
    """``snap_early``: the plane estimate and the size pass take the deck's size from outlines already on
    the cards' outer edges (``kde:tigullio-international``'s rough outlines lie on its printed frame line, 5.5%
    inside, and the KC, found by no other pass, fell outside the search's size); ``size_grow`` 5: a side two
    pixels off its edge at detection scale still counts (the bellot QH lies 3 degrees from the directions
    searched). Realistic scene ``index`` of ``evaluate --seed S``: found, and not without each change. (The KC
    needed ``size_grow`` too while the search tried 6 card directions; with 9 one lies nearer its own. The QH
    needs ``size_grow`` 5 at the search's level of 0.8 (the stricter level); at 0.7 its sides reach the level
    with 3 as well.)"""

    scene = _held_out_scene(held_out_decks, design, seed, index)
    plane = scene.plane if calibrated else None
    assert _finds(scene, label, plane)
    undone: dict[str, dict[str, object]] = {
        "snap_early": {"snap_early": False},
        "size_grow": {"size_grow": 3, "size_level": 0.8},
    }
    for name in needs:
        assert not _finds(scene, label, plane, **undone[name]), name
    assert _finds(scene, label, plane, size_level=0.8)  # (the level alone does not lose it)


@pytest.mark.parametrize("calibrated", [False, True])
def test_the_size_pass_takes_a_margin_whiter_than_the_table_for_a_card_in_shadow(
    held_out_decks: dict[str, Deck], calibrated: bool
) -> None:
    """``size_whiter``: a pale ``gnome:neoclassical`` 3H on a beige table, half in an arm's shadow (hard scene
    29 of ``evaluate --seed 2024``, dealt at seed 2025). The size search finds its rectangle with every side
    on edges, but in the shadow its margin is not paper (only 27-33% of the weakest side was); it is whiter
    than the shadowed table just outside it. Found, in the image and on the calibrated table, and not when
    that test is off."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    design = "gnome:neoclassical"
    scene = _held_out_scene(held_out_decks, design, 2025, 9, HARD)
    (truth,) = [q for lab, q in scene.cards if lab == "3H"]
    plane = scene.plane if calibrated else None
    assert match(truth, detect_cards(scene.image, plane=plane)) is not None
    assert match(truth, detect_cards(scene.image, replace(DEFAULT_CONFIG, size_whiter=256.0), plane=plane)) is None


def test_the_size_pass_searches_only_where_paper_is_left_over_and_on_the_image_only_with_size_pass_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On felt where every card is found no paper is left outside them, so the pass does not search (the gate
    that keeps its cost off most frames), with a plane or on the image. On a pale table it searches with a
    calibrated plane, with the plane of the cards, and without a plane (none estimated) on the image only with
    ``size_pass_image`` (on)."""
    from dataclasses import replace

    import vision.size_pass as size_pass

    searched: list[int] = []

    def spy(*args: object, **kwargs: object) -> list[object]:
        searched.append(1)
        return []

    monkeypatch.setattr(size_pass, "rectangles_of_size", spy)
    rng = np.random.default_rng(3)
    scene = make_scene(rng, faces_deck(0), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt"))
    assert all(match(t, detect_cards(scene.image, plane=scene.plane)) is not None for _, t in scene.cards)
    assert searched == []
    detect_cards(scene.image, replace(ONCE, size_pass_image=True))
    assert searched == []
    # a pale table leaves paper outside the cards: there the pass searches, with a plane or (when asked) without
    pale = make_scene(np.random.default_rng(3), faces_deck(0), SceneSpec(n_cards=8, clutter=0, background="light"))
    detect_cards(pale.image, replace(ONCE, estimate_plane=False, size_pass_image=False))
    assert searched == []
    detect_cards(pale.image, replace(ONCE, estimate_plane=False))
    assert searched
    searched.clear()
    detect_cards(pale.image, plane=pale.plane)
    assert searched
    searched.clear()
    detect_cards(pale.image, ONCE)
    assert searched
    searched.clear()
    detect_cards(pale.image, replace(ONCE, size_pass_estimated=False, size_pass_image=False))
    assert searched == []


def _edge_maps(frame: np.ndarray, config: DetectorConfig) -> tuple[np.ndarray, np.ndarray]:
    """The detector's edge map at detection scale and the same within 2 px, as ``detect_cards`` makes them."""
    from vision.edge_map import edge_map

    s = config.scale
    small = cv2.resize(frame, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    channels = tuple(cv2.split(small))
    edges = edge_map(small, channels, cv2.min(cv2.min(channels[0], channels[1]), channels[2]), config)
    return edges, cv2.dilate(edges, np.ones((5, 5), np.uint8))


def test_the_deck_fit_moves_an_outline_that_took_in_more_than_a_card_onto_the_card() -> None:
    """``DetectorConfig.deck_fit``: on a calibrated table an outline a quarter longer than the deck's cards
    (one that took in an arm or a chip beside the card) is moved onto the deck's rectangle on the card's
    edges; the outlines that are cards already are left as they are."""
    from dataclasses import replace

    from vision.deck_fit import fit_deck
    from vision.detect import DEFAULT_CONFIG, plane_tuple
    from vision.rectify import order_corners

    scene = make_scene(
        np.random.default_rng(5), faces_deck(1), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt")
    )
    assert scene.plane is not None
    config = replace(DEFAULT_CONFIG, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    quads = detect_cards(scene.image, plane=scene.plane)
    truths = [q for _, q in scene.cards]
    assert len(quads) == len(truths) and all(match(t, quads) is not None for t in truths)
    edges, near = _edge_maps(scene.image, config)
    assert all(
        np.abs(a - b).max() < 0.5 for a, b in zip(fit_deck(scene.image, quads, edges, near, config), quads, strict=True)
    )
    q = quads[0].astype(np.float64)
    long_k = 0 if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]) else 1  # side k, from corner k
    grown = q.copy()
    push = 0.25 * (q[(long_k + 1) % 4] - q[long_k])  # corners k + 1 and k + 2 are that end of the card
    grown[(long_k + 1) % 4] += push
    grown[(long_k + 2) % 4] += push
    grown_f = grown.astype(np.float32)
    truth = next(t for t in truths if match(t, [quads[0]]) is not None)
    assert match(truth, [grown_f]) is None
    fitted = fit_deck(scene.image, [grown_f, *quads[1:]], edges, near, config)
    assert match(truth, [order_corners(fitted[0])]) is not None
    assert all(np.abs(a - b).max() < 0.5 for a, b in zip(fitted[1:], quads[1:], strict=True))
    assert (
        fit_deck(scene.image, [grown_f, *quads[1:]], edges, near, replace(config, deck_fit_shift=0.02))[0] is grown_f
    )  # searched too near, no rectangle of the deck's size there lies on edges: kept as it was


def test_the_deck_fit_moves_a_printed_frame_wider_than_tall_onto_its_card() -> None:
    """``deck_fit_small`` and ``deck_fit_across``: an outline on a court card's printed frame (drawn here inside
    a card, 0.75 of its width across and 0.45 of its length along, so wider than tall) lies on edges as well
    as any rectangle can, and its long side lies across the card's. The deck's rectangle around it is found
    only turned a quarter, and taken only because the outline is far smaller than the deck's cards and the
    rectangle has a card's paper margin: without any of these the outline stays as it was."""
    from dataclasses import replace

    from vision.deck_fit import fit_deck
    from vision.detect import DEFAULT_CONFIG, plane_tuple
    from vision.rectify import order_corners

    scene = make_scene(
        np.random.default_rng(5), faces_deck(1), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt")
    )
    assert scene.plane is not None
    config = replace(DEFAULT_CONFIG, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    quads = detect_cards(scene.image, plane=scene.plane)
    # card 3: for cards 0-2 of this scene no rectangle of the deck's size (the median outline's, which the drawn
    # frame moves a little) lies on edges as the fit asks (within 2 px for 0.9 and within 1 px for 0.9)
    quads = [quads[3], *quads[:3], *quads[4:]]
    truth = next(t for _, t in scene.cards if match(t, [quads[0]]) is not None)
    q = quads[0].astype(np.float64)
    centre = q.mean(axis=0)
    long_k = 0 if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]) else 1
    along = (q[(long_k + 1) % 4] - q[long_k]) / 2  # half the card's long side
    across = (q[(long_k + 2) % 4] - q[(long_k + 1) % 4]) / 2  # half its short side
    frame = np.array(
        [centre + sa * 0.75 * across + sb * 0.45 * along for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))], np.float32
    )
    assert np.linalg.norm(frame[1] - frame[0]) > np.linalg.norm(frame[2] - frame[1])  # wider than tall
    image = scene.image.copy()
    cv2.polylines(image, [np.round(frame).astype(np.int32)], True, (20, 20, 20), 2)
    edges, near = _edge_maps(image, config)
    small = cv2.resize(image, None, fx=config.scale, fy=config.scale, interpolation=cv2.INTER_AREA)
    least = small.min(axis=2)
    paper = (small, cv2.threshold(least, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1])  # as detect_cards's
    assert match(truth, [frame]) is None
    fitted = fit_deck(image, [frame, *quads[1:]], edges, near, config, paper)
    assert match(truth, [order_corners(fitted[0])]) is not None
    assert all(np.abs(a - b).max() < 0.5 for a, b in zip(fitted[1:], quads[1:], strict=True))
    for off in ({"deck_fit_across": False}, {"deck_fit_small": 0.0}):
        assert fit_deck(image, [frame, *quads[1:]], edges, near, replace(config, **off), paper)[0] is frame
    # the rectangle must have a card's paper margin: not known without the paper mask, and none where the
    # mask holds no paper (a phone's screen on a cloth, far smaller than a card, is not moved onto one)
    assert fit_deck(image, [frame, *quads[1:]], edges, near, config)[0] is frame
    assert (
        fit_deck(image, [frame, *quads[1:]], edges, near, config, (np.zeros_like(small), np.zeros_like(least)))[0]
        is frame
    )


@pytest.mark.parametrize("card", [1, 2])
def test_the_deck_fit_moves_a_printed_frame_onto_a_card_a_little_larger_than_the_deck(card: int) -> None:
    """``deck_fit_sizes``: the deck's rectangle is the median of the outlines found, and a card can be a few
    percent larger (cards 1 and 2 of this scene: 181 x 261 and 179 x 259 on the plane against a median of
    176 x 251). An outline on its printed frame (drawn here at 0.62 of the card) is moved onto it only when
    the rectangle's sides may differ from the deck's (by up to 8%): at the deck's own size no rectangle
    around the frame lies on the card's edges within 1 px. The other outlines stay where they were."""
    from dataclasses import replace

    from vision.deck_fit import fit_deck
    from vision.detect import DEFAULT_CONFIG, plane_tuple
    from vision.rectify import order_corners

    scene = make_scene(
        np.random.default_rng(5), faces_deck(1), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt")
    )
    assert scene.plane is not None
    config = replace(DEFAULT_CONFIG, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    found = detect_cards(scene.image, plane=scene.plane)
    quads = [found[card], *found[:card], *found[card + 1 :]]
    truth = next(t for _, t in scene.cards if match(t, [quads[0]]) is not None)
    centre = quads[0].mean(axis=0)
    frame = ((quads[0] - centre) * 0.62 + centre).astype(np.float32)
    image = scene.image.copy()
    cv2.polylines(image, [np.round(frame).astype(np.int32)], True, (20, 20, 20), 2)
    edges, near = _edge_maps(image, config)
    small = cv2.resize(image, None, fx=config.scale, fy=config.scale, interpolation=cv2.INTER_AREA)
    paper = (small, cv2.threshold(small.min(axis=2), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1])
    assert config.deck_fit_sizes == 0.08 and match(truth, [frame]) is None
    fitted = fit_deck(image, [frame, *quads[1:]], edges, near, config, paper)
    assert match(truth, [order_corners(fitted[0])]) is not None
    assert all(np.abs(a - b).max() < 0.5 for a, b in zip(fitted[1:], quads[1:], strict=True))
    assert fit_deck(image, [frame, *quads[1:]], edges, near, replace(config, deck_fit_sizes=0.0), paper)[0] is frame


def test_the_deck_fit_moves_an_outline_that_took_in_a_pale_table_beside_its_card_onto_the_card() -> None:
    """``deck_fit_off_size``: a pale strip of table beyond one end of a card (drawn here, 0.2 of its length,
    the card's width) makes an outline that took it in lie on edges as well as the card's own rectangle
    does, so the deck fit cannot better it and keeps it. With the option the deck's rectangle is taken all
    the same, because it has a paper margin and is whiter inside every side than outside it."""
    from dataclasses import replace

    from vision.deck_fit import fit_deck
    from vision.detect import DEFAULT_CONFIG, plane_tuple
    from vision.rectify import order_corners

    scene = make_scene(
        np.random.default_rng(5), faces_deck(1), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt")
    )
    assert scene.plane is not None
    config = replace(DEFAULT_CONFIG, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    quads = detect_cards(scene.image, plane=scene.plane)
    q = quads[0].astype(np.float64)
    truth = next(t for _, t in scene.cards if match(t, [quads[0]]) is not None)
    long_k = 0 if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]) else 1  # side k, from corner k
    push = 0.2 * (q[(long_k + 1) % 4] - q[long_k])  # corners k + 1 and k + 2 are that end of the card
    grown = q.copy()
    grown[(long_k + 1) % 4] += push
    grown[(long_k + 2) % 4] += push
    strip = np.array([q[(long_k + 1) % 4], grown[(long_k + 1) % 4], grown[(long_k + 2) % 4], q[(long_k + 2) % 4]])
    image = scene.image.copy()
    cv2.fillConvexPoly(image, np.round(strip).astype(np.int32), (165, 170, 175))  # a pale table, greyer than paper
    grown_f = grown.astype(np.float32)
    assert match(truth, [grown_f]) is None
    edges, near = _edge_maps(image, config)
    small = cv2.resize(image, None, fx=config.scale, fy=config.scale, interpolation=cv2.INTER_AREA)
    paper = (small, cv2.threshold(small.min(axis=2), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1])
    assert (
        fit_deck(image, [grown_f, *quads[1:]], edges, near, replace(config, deck_fit_off_size=False), paper)[0]
        is grown_f
    )
    on = replace(config, deck_fit_off_size=True)
    fitted = fit_deck(image, [grown_f, *quads[1:]], edges, near, on, paper)
    assert match(truth, [order_corners(fitted[0])]) is not None
    assert all(np.abs(a - b).max() < 0.5 for a, b in zip(fitted[1:], quads[1:], strict=True))
    assert fit_deck(image, [grown_f, *quads[1:]], edges, near, on)[0] is grown_f  # no paper mask: no margin known


def test_whiter_inside_tells_a_cards_edge_from_a_printed_frame_line_inside_it() -> None:
    """``size_pass.whiter_inside``: a white card on a green felt is whiter inside its edge than outside on
    every side; a rectangle on a frame line printed inside the card has paper on both sides, and a card half
    on a pale cloth as white as itself has one side that is not (``deck_fit_whiter`` of each side)."""
    from vision.detect import DEFAULT_CONFIG
    from vision.size_pass import whiter_inside

    image = np.full((200, 300, 3), (40, 110, 40), np.uint8)
    card = np.array([[100, 40], [200, 40], [200, 180], [100, 180]], np.float32)
    cv2.fillConvexPoly(image, card.astype(np.int32), (235, 235, 235))
    frame = np.array([[110, 52], [190, 52], [190, 168], [110, 168]], np.float32)
    cv2.polylines(image, [frame.astype(np.int32)], True, (30, 30, 30), 1)
    assert whiter_inside(image, [card, frame], DEFAULT_CONFIG).tolist() == [True, False]
    image[:, 200:] = (235, 235, 235)  # the cloth right of the card as white as the card
    assert whiter_inside(image, [card], DEFAULT_CONFIG).tolist() == [False]
    assert whiter_inside(image, [], DEFAULT_CONFIG).shape == (0,)


def test_the_size_pass_gate_searches_only_where_a_cards_area_of_paper_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """``size_pass_gate`` (on): a frame of ``bench_recognition``'s kind (seed 122, calibrated) whose only paper
    outside the outlines found is scraps (rims, a glint), no card's area, so the size pass does not search; with the
    gate off the scraps start a search, which finds nothing: the same outlines. The size-pass tests above find
    their cards with the gate on."""
    import vision.size_pass as size_pass
    from models.training.evaluate import NORMAL
    from vision.size_search import rectangles_of_size as inner

    searched: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> list[tuple[float, np.ndarray]]:
        searched.append(1)
        return inner(*args, **kwargs)

    monkeypatch.setattr(size_pass, "rectangles_of_size", spy)
    scene = make_scene(
        np.random.default_rng(122), faces_deck(0), dataclasses.replace(NORMAL, n_cards=12, card_width=(90.0, 150.0))
    )
    gated = detect_cards(scene.image, plane=scene.plane)
    assert searched == [] and len(gated) >= 12
    ungated = detect_cards(scene.image, dataclasses.replace(SHIPPED, size_pass_gate=False), plane=scene.plane)
    assert searched
    assert len(ungated) == len(gated) and all(np.array_equal(a, b) for a, b in zip(gated, ungated, strict=True))


@pytest.mark.parametrize(
    "seed, design, index, label",
    [
        (99, "gnome:plastic", 15, "QD"),
        (2024, "gnome:neoclassical", 12, "2H"),
    ],
)
@pytest.mark.parametrize("calibrated", [False, True])
def test_hard_held_out_cards_outlined_with_the_table_beside_them_are_found_off_size(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    calibrated: bool,
) -> None:
    """``deck_fit_off_size``, hard scenes of ``evaluate --seed S`` (scene ``index`` of ``design``), in the image
    (the plane of the cards) and on the calibrated table: a queen of diamonds whose outline took in the pale
    table's edge below it, and a 2 of hearts; found with the option, lost without it."""

    scene = _held_out_scene(held_out_decks, design, seed + 1, index, HARD)
    plane = scene.plane if calibrated else None
    assert _finds(scene, label, plane, deck_fit_off_size=True)
    assert not _finds(scene, label, plane, deck_fit_off_size=False)


@pytest.mark.parametrize(
    "seed, design, index, label, calibrated",
    [
        (7, "kde:tigullio-international", 4, "6H", False),
        (7, "kde:tigullio-international", 4, "6H", True),
        (99, "gnome:plastic", 19, "TH", False),
        (11, "gnome:bellot", 4, "JD", True),
    ],
)
def test_hard_held_out_cards_of_a_direction_the_grain_crowded_out_are_found_by_their_size(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    calibrated: bool,
) -> None:
    """``size_angles``, hard scenes of ``evaluate --seed S`` (scene ``index`` of ``design``), in the image and on
    the calibrated table: a 6 of hearts across a table's edge beside a diagonally striped wood (both modes), a
    10 of hearts on a checked cloth, and a jack of diamonds. The size pass finds each when it tries 9 card
    directions, not with 6."""

    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, design, seed + 1, index, HARD)
    plane = scene.plane if calibrated else None
    assert DEFAULT_CONFIG.size_angles == 9
    assert _finds(scene, label, plane)
    assert not _finds(scene, label, plane, size_angles=6)


@pytest.mark.parametrize(
    "design, index, label",
    [
        ("gnome:simplistic", 2, "6C"),
        ("kde:tigullio-international", 4, "QH"),
    ],
)
def test_held_out_cards_outlined_off_their_size_are_moved_onto_it(
    held_out_decks: dict[str, Deck], design: str, index: int, label: str
) -> None:
    """The deck fit on a calibrated table, realistic scenes of ``evaluate --seed 2024`` (scene ``index`` of
    ``design``): a 6 of clubs on a checked cloth outlined along the squares, turned a few degrees off the
    card (its sides lie on edges within 2 px but not within 1), and a queen of hearts beside an arm,
    outlined with part of the arm; both are found with the fit, neither without it."""

    scene = _held_out_scene(held_out_decks, design, 2024, index)
    assert _finds(scene, label, scene.plane)
    assert not _finds(scene, label, scene.plane, deck_fit=False)


@pytest.mark.parametrize(
    "seed, design, index, label",
    [
        (99, "kde:tigullio-international", 15, "AC"),
        (53, "gnome:plastic", 10, "back"),
    ],
)
@pytest.mark.parametrize("calibrated", [False, True])
def test_the_deck_fit_keeps_the_decks_size_when_snapping_would_pull_it_inside_the_card(
    held_out_decks: dict[str, Deck],
    seed: int,
    design: str,
    index: int,
    label: str,
    calibrated: bool,
) -> None:
    """``deck_fit_snap``: the rectangle the deck fit finds is snapped onto the edges only where no corner
    moves by 3% of a width. An ace of clubs of ``kde:tigullio-international`` (whose printed frame line lies
    just inside its edge) and a ``gnome:plastic`` back, realistic scene ``index`` of ``evaluate --seed S``, in
    the image (the plane of the cards) and on the calibrated table: found, and lost when the snap may move
    the fitted rectangle anywhere (it went onto the frame line, 4-12% of a width inside)."""

    scene = _held_out_scene(held_out_decks, design, seed, index)
    plane = scene.plane if calibrated else None
    assert _finds(scene, label, plane)
    assert not _finds(scene, label, plane, deck_fit_snap=math.inf)


def test_two_pieces_of_one_cards_paper_are_not_two_cards() -> None:
    """``_apart``: two card-shaped outlines side by side are two cards when the sides facing each other lie
    on edges (a dark gap between two white cards), and pieces of one card when they lie on plain paper."""
    from vision.detect import DEFAULT_CONFIG
    from vision.outline_candidates import _apart

    top, bottom = (
        np.array([[40, 30], [110, 30], [110, 80], [40, 80]], np.float32),
        np.array([[40, 86], [110, 86], [110, 136], [40, 136]], np.float32),
    )
    one = np.full((200, 300, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(one, (40, 30), (110, 136), (235, 240, 240), -1)  # one card: plain paper between the pieces
    two = one.copy()
    cv2.rectangle(two, (40, 81), (110, 85), (40, 110, 30), -1)  # two cards 5 px apart
    for frame, apart in ((one, False), (two, True)):
        full = cv2.resize(frame, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)  # detection scale 0.5
        assert _apart(top, bottom, _near_edges(full)) is apart
    assert DEFAULT_CONFIG.halves_apart


def test_a_large_card_whose_local_paper_is_cut_across_its_middle_is_one_card(held_out_decks: dict[str, Deck]) -> None:
    """A ``gnome:plastic`` 5C 140 px wide on a pale pink cloth (realistic scene 45 of ``evaluate --seed 11``):
    its local paper mask is two blobs, the card's ends, because mid-card the neighbourhood is all card. Those
    two card-shaped pieces made the card's own outline look like a group of two cards, and it was dropped.
    Found with ``halves_apart``, not without (nor without the size pass's rescue of outlines off the deck's
    size, ``size_rescue_off``, which finds it too)."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, "gnome:plastic", 11, 5)
    (truth,) = [q for lab, q in scene.cards if lab == "5C"]
    assert match(truth, detect_cards(scene.image)) is not None
    assert (
        match(truth, detect_cards(scene.image, replace(DEFAULT_CONFIG, halves_apart=False, size_rescue_off=0.0)))
        is None
    )


def test_without_a_calibrated_table_the_plane_of_the_cards_stands_in_for_it(
    held_out_decks: dict[str, Deck], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DetectorConfig.estimate_plane``: in a frame of an uncalibrated camera the deck fit and the size pass
    run on the plane on which the outlines found are one rectangle (``vision.plane_from_cards``). The 6 of
    clubs on a checked cloth (realistic scene 2 of gnome:simplistic at ``evaluate --seed 2024``) is found
    without a plane that way, and missed with the estimate off; given a calibrated plane, none is estimated."""
    from dataclasses import replace

    import vision.detect as detect
    from vision.plane_from_cards import plane_from_cards

    scene = _held_out_scene(held_out_decks, "gnome:simplistic", 2024, 2)
    (truth,) = [q for lab, q in scene.cards if lab == "6C"][:1]
    assert match(truth, detect_cards(scene.image, ONCE)) is not None
    assert match(truth, detect_cards(scene.image, replace(ONCE, estimate_plane=False))) is None
    estimated: list[int] = []
    real = plane_from_cards

    def spy(*args: Any, **kwargs: Any) -> np.ndarray | None:
        estimated.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(detect, "plane_from_cards", spy)
    detect_cards(scene.image, plane=scene.plane)
    assert estimated == []
    detect_cards(scene.image, ONCE)
    assert estimated == [1]


def test_a_degenerate_estimate_of_the_plane_leaves_the_frame_to_the_image_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plane estimate that is no homography (singular) is refused by ``plane_tuple``; the detector then
    judges the frame in the image, as with the estimate off, and does not fail."""
    from dataclasses import replace

    import vision.detect as detect
    from vision.detect import DEFAULT_CONFIG

    scene = make_scene(np.random.default_rng(3), faces_deck(0), SceneSpec(n_cards=8, clutter=0, background="light"))
    without = detect_cards(scene.image, replace(DEFAULT_CONFIG, estimate_plane=False))
    monkeypatch.setattr(detect, "plane_from_cards", lambda *args, **kwargs: np.zeros((3, 3)))
    degenerate = detect_cards(scene.image)
    assert len(degenerate) == len(without)
    assert all(np.abs(a - b).max() < 1e-4 for a, b in zip(degenerate, without, strict=True))


def test_the_detector_seeks_its_plane_with_the_settings_spread_and_drop(monkeypatch: pytest.MonkeyPatch) -> None:
    """``plane_spread`` and ``plane_drop`` reach ``plane_from_cards``: the shipped 0.06 and 2, and what a
    ``--detector`` setting gives instead."""
    from dataclasses import replace

    import vision.detect as detect
    from vision.plane_from_cards import plane_from_cards

    asked: list[dict[str, object]] = []
    estimate = plane_from_cards

    def spy(*args: Any, **kwargs: Any) -> np.ndarray | None:
        asked.append(kwargs)
        return estimate(*args, **kwargs)

    monkeypatch.setattr(detect, "plane_from_cards", spy)
    scene = make_scene(np.random.default_rng(3), faces_deck(0), SceneSpec(n_cards=8, clutter=0, background="light"))
    detect_cards(scene.image, ONCE)
    detect_cards(scene.image, replace(ONCE, plane_spread=0.04, plane_drop=0))
    assert asked == [{"spread": 0.06, "drop": 2}, {"spread": 0.04, "drop": 0}]


@pytest.mark.parametrize("seed, label", [(25, "4S"), (35, "5C")])
def test_a_card_squeezed_by_the_tilt_is_judged_on_the_estimated_plane(seed: int, label: str) -> None:
    """``plane_rescue``: a scene seen 30 degrees off vertical at most, whose card ``label`` is longer than
    ``max_aspect`` in the image (the tilt squeezes its short side) though on the table it is the deck's
    rectangle. Its outline is refused by the image's shape test; once the plane is estimated from the other
    cards, the candidates where no card was found are judged on it, and the card is found."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG
    from vision.plane_from_cards import mean_side_vectors

    scene = make_scene(
        np.random.default_rng(seed),
        faces_deck(seed % 6),
        SceneSpec(n_cards=10, max_tilt_deg=30.0, clutter=0, blur=0, glare=0, shadow=0),
    )
    truth = next(q for lab, q in scene.cards if lab == label)
    a, b = mean_side_vectors(truth.astype(np.float64))
    long_, short = max(np.linalg.norm(a), np.linalg.norm(b)), min(np.linalg.norm(a), np.linalg.norm(b))
    assert long_ / short > DEFAULT_CONFIG.max_aspect
    assert DEFAULT_CONFIG.plane_rescue and match(truth, detect_cards(scene.image, ONCE)) is not None
    assert match(truth, detect_cards(scene.image, replace(ONCE, plane_rescue=False))) is None


def test_the_resized_search_runs_for_small_outlines_and_with_deck_fit_sizes_all_for_every_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``deck_fit_sizes_all``: an outline that took in a quarter more than its card (not small, so not a printed
    frame) is searched at the deck's size only, at its own pose and turned a quarter; with the setting, rectangles
    of other sizes too (the grids whose side scales are not all 1). ``deck_fit_sizes=0`` tries no other size even
    for a small outline."""
    from dataclasses import replace

    import vision.deck_fit as deck_fit_module
    from vision.detect import DEFAULT_CONFIG, plane_tuple
    from vision.rectify import order_corners

    scene = make_scene(
        np.random.default_rng(5), faces_deck(1), SceneSpec(n_cards=8, blur=0, glare=0, clutter=0, background="felt")
    )
    assert scene.plane is not None
    config = replace(DEFAULT_CONFIG, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    quads = detect_cards(scene.image, plane=scene.plane)
    q = order_corners(quads[1]).astype(np.float64)
    grown = q.copy()
    grown[2] += 0.25 * (q[2] - q[1])
    grown[3] += 0.25 * (q[3] - q[0])
    small = ((q - q.mean(axis=0)) * 0.6 + q.mean(axis=0)).astype(np.float32)
    edges, near = _edge_maps(scene.image, config)
    sized: list[bool] = []
    best = deck_fit_module._best_rectangle

    def spy(pose: tuple[np.ndarray, float], coarse: np.ndarray, *args: Any) -> tuple[np.ndarray, float] | None:
        sized.append(bool((coarse[:, 3:] != 1).any()))
        return best(pose, coarse, *args)

    monkeypatch.setattr(deck_fit_module, "_best_rectangle", spy)
    for outline, settings, expected in (
        (grown, {}, False),
        (grown, {"deck_fit_sizes_all": True}, True),
        (small, {"deck_fit_sizes": 0.0}, False),
    ):
        sized.clear()
        deck_fit_module.fit_deck(
            scene.image, [outline.astype(np.float32), quads[0], *quads[2:]], edges, near, replace(config, **settings)
        )
        assert sized and any(sized) is expected


@pytest.mark.parametrize(
    ("seed", "design", "index", "label"),
    [
        (8, "gnome:bellot", 0, "QH"),  # evaluate --seed 7's hard scene 0
        (32, "kde:tigullio-international", 7, "TD"),  # evaluate --seed 31's hard scene 107
    ],
)
def test_replan_detects_again_on_the_plane_of_its_own_outlines(
    held_out_decks: dict[str, Deck], seed: int, design: str, index: int, label: str
) -> None:
    """``replan`` (on): without a calibrated table, the frame is detected again with the plane that the first
    detection's final outlines give, as if calibrated. Two held-out hard cards found only so; the result is exactly
    the calibrated detection on that estimate (it has at least as many outlines as the first)."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG
    from vision.plane_from_cards import plane_from_cards

    scene = _held_out_scene(held_out_decks, design, seed, index, HARD)
    assert not _finds(scene, label, None)
    assert _finds(scene, label, None, replan=True)
    first = detect_cards(scene.image, replace(DEFAULT_CONFIG, replan=False))
    estimate = plane_from_cards(
        first, scene.image.shape, spread=DEFAULT_CONFIG.plane_spread, drop=DEFAULT_CONFIG.plane_drop
    )
    assert estimate is not None
    again = detect_cards(scene.image)
    on_estimate = detect_cards(scene.image, plane=estimate)
    assert len(again) == len(on_estimate) >= len(first)
    assert all(np.array_equal(a, b) for a, b in zip(again, on_estimate, strict=True))


def test_replan_keeps_the_first_detection_where_the_second_has_fewer_outlines(
    held_out_decks: dict[str, Deck], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second detection with fewer outlines than the first (the plane's stricter shape tests refusing a card)
    is not taken: the first stands. The second detection is made to lose one outline here."""
    from dataclasses import replace

    import vision.detect as detect
    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, "gnome:bellot", 8, 0, HARD)
    first = detect_cards(scene.image, replace(DEFAULT_CONFIG, replan=False))
    inner = detect._detect

    def fewer_on_a_plane(cues: FrameCues, config: DetectorConfig, deck: Sequence[np.ndarray] = ()) -> list[np.ndarray]:
        out = inner(cues, config, deck)
        return out[:-1] if config.plane is not None else out

    monkeypatch.setattr(detect, "_detect", fewer_on_a_plane)
    kept = detect_cards(scene.image)
    assert len(kept) == len(first)
    assert all(np.array_equal(a, b) for a, b in zip(kept, first, strict=True))


def test_replan_fits_each_contour_of_the_frame_once(
    held_out_decks: dict[str, Deck],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second detection reuses the first one's edge map, contours and their quad fits
    (``vision.frame_cues.FrameCues``), and
    gives the outlines a detection on that plane from scratch gives (the test above): of the first look's fits,
    none is made twice, so it fits fewer contours than the two detections made apart."""
    import vision.outline_candidates as outline_candidates
    from vision.plane_from_cards import plane_from_cards
    from vision.quads import fit_quad

    scene = _held_out_scene(held_out_decks, "gnome:bellot", 8, 0, HARD)
    fitted: list[int] = []

    def counted(contour: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        fitted.append(id(contour))
        return fit_quad(contour)

    monkeypatch.setattr(outline_candidates, "fit_quad", counted)
    first = detect_cards(scene.image, ONCE)
    apart = len(fitted)
    estimate = plane_from_cards(first, scene.image.shape, spread=SHIPPED.plane_spread, drop=SHIPPED.plane_drop)
    assert estimate is not None
    detect_cards(scene.image, ONCE, plane=estimate)
    apart, fitted = len(fitted), []
    detect_cards(scene.image)
    assert 0 < len(fitted) < apart


def test_frame_cues_refuse_a_detection_with_other_settings(held_out_decks: dict[str, Deck]) -> None:
    """``FrameCues`` are shared only by detections whose settings differ in the table plane alone: judged with
    other thresholds they would not be that detection's cues, so the detection refuses them."""
    from dataclasses import replace

    from vision.detect import _detect, plane_tuple
    from vision.errors import SettingError
    from vision.frame_cues import FrameCues

    scene = _held_out_scene(held_out_decks, "gnome:bellot", 8, 0, HARD)
    cues = FrameCues(scene.image, ONCE)
    assert scene.plane is not None
    planed = replace(ONCE, plane=plane_tuple(scene.plane, scene.image.shape[:2]))
    assert len(_detect(cues, planed)) == len(detect_cards(scene.image, ONCE, plane=scene.plane))
    with pytest.raises(SettingError, match="other detector settings"):
        _detect(cues, replace(ONCE, grey_low=ONCE.grey_low + 5))


def test_replan_gate_skips_the_second_detection_where_no_paper_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """``replan_gate`` (on): where no card's area of paper lies outside the first detection's outlines (felt with
    every card found: ``bench_recognition``'s first speed frame, seed 102) there is no card for the second detection
    to find, and it is not made: one detection, the same outlines as with ``replan`` off. With the gate off the
    frame is detected twice. Where paper is left, the second detection runs: the ``replan`` tests above find their
    cards with the gate on."""
    import vision.detect as detect
    from models.training.evaluate import NORMAL
    from vision.frame_cues import FrameCues

    scene = make_scene(
        np.random.default_rng(102), faces_deck(0), dataclasses.replace(NORMAL, n_cards=12, card_width=(90.0, 150.0))
    )
    cues = FrameCues(scene.image, ONCE)
    assert detect._no_paper_left(cues, detect._detect(cues, ONCE))
    calls: list[DetectorConfig] = []
    inner = detect._detect

    def counted(cues: FrameCues, config: DetectorConfig, deck: Sequence[np.ndarray] = ()) -> list[np.ndarray]:
        calls.append(config)
        return inner(cues, config, deck)

    monkeypatch.setattr(detect, "_detect", counted)
    gated = detect_cards(scene.image)
    assert len(calls) == 1
    once = detect_cards(scene.image, ONCE)
    assert len(gated) == len(once) == 12 and all(np.array_equal(a, b) for a, b in zip(gated, once, strict=True))
    calls.clear()
    detect_cards(scene.image, dataclasses.replace(SHIPPED, replan_gate=False))
    assert len(calls) == 2 and calls[1].plane is not None


def test_paper_left_counts_a_card_of_paper_outside_the_outlines_not_their_rims() -> None:
    """``paper_left``: a card-sized blob of paper outside the outlines is paper left; the same blob under an
    outline is not, nor is the thin rim an outline a pixel inside its card's paper leaves (the opening takes it)."""
    from vision.frame_cues import paper_left

    paper = np.zeros((200, 300), np.uint8)
    paper[40:100, 50:93] = 255  # a card of paper, 43 x 60 (detection scale)
    min_area = 43 * 60 * 0.8
    assert paper_left(paper, [], min_area)
    inside = np.array([[51, 41], [91, 41], [91, 98], [51, 98]], np.float32)  # a pixel in from each side
    assert not paper_left(paper, [inside], min_area)
    elsewhere = inside + np.array([150, 0], np.float32)
    assert paper_left(paper, [elsewhere], min_area)


@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 640, 3), (3, 1, 3)])
def test_a_frame_too_small_to_resize_is_an_image_error(shape: tuple[int, int, int]) -> None:
    """A frame under two pixels across at detection scale holds no card and cannot be resized to that scale: a
    clear ``ImageError`` naming its size, not OpenCV's assertion."""
    from vision.errors import ImageError

    with pytest.raises(ImageError, match=f"too small.*{shape[1]}x{shape[0]}"):
        detect_cards(np.zeros(shape, np.uint8))
    assert detect_cards(np.zeros((4, 4, 3), np.uint8)) == []


def test_fits_are_kept_per_contour_and_read_only() -> None:
    """``Fits``: one contour's fit is computed once and returned again (the same arrays, which cannot be
    written: candidates of both detections share them); another contour with the same points is fitted apart."""
    from vision.outline_candidates import Fits

    square = np.array([[[10, 10]], [[90, 10]], [[90, 60]], [[10, 60]]], np.int32)
    fits = Fits()
    fit = fits(square)
    assert fit is not None and fits(square) is fit
    rough, hull = fit
    with pytest.raises(ValueError, match="read-only"):
        rough[0, 0] = 0.0
    assert sorted(map(tuple, rough.tolist())) == [(10, 10), (10, 60), (90, 10), (90, 60)]
    twin = square.copy()
    refit = fits(twin)
    assert refit is not fit and refit is not None and np.array_equal(refit[0], rough)
    assert fits(np.array([[[0, 0]], [[5, 5]]], np.int32)) is None  # two points: no quad


def test_replan_leaves_a_calibrated_table_and_no_estimate_alone(held_out_decks: dict[str, Deck]) -> None:
    """With the table's plane given there is nothing to estimate, and with ``estimate_plane`` off nothing may be
    estimated: ``replan`` changes no outline in either (the uncalibrated frame here is one it changes)."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG

    scene = _held_out_scene(held_out_decks, "gnome:bellot", 8, 0, HARD)
    once = detect_cards(scene.image, replace(DEFAULT_CONFIG, replan=False), plane=scene.plane)
    replanned = detect_cards(scene.image, plane=scene.plane)
    assert len(once) == len(replanned)
    assert all(np.array_equal(a, b) for a, b in zip(once, replanned, strict=True))
    in_image = replace(DEFAULT_CONFIG, estimate_plane=False)
    once = detect_cards(scene.image, replace(in_image, replan=False))
    replanned = detect_cards(scene.image, in_image)
    assert len(once) == len(replanned)
    assert all(np.array_equal(a, b) for a, b in zip(once, replanned, strict=True))
    assert not _finds(scene, "QH", None) and _finds(scene, "QH", None, replan=True)  # it would change this frame


def test_first_indices_finds_each_corner_where_the_contour_first_passes_it() -> None:
    """``later_passes._first_indices``: the tab pass's corners looked up in its contour once, at their first
    occurrence (a contour that runs out along a thin strip and back passes its points twice), as the per-corner
    search it replaces found them."""
    from vision.later_passes import _first_indices

    points = np.array([[0, 0], [5, 0], [9, 0], [5, 0], [5, 7], [0, 7], [0, 3]], np.int32)
    corners = np.array([[5, 0], [5, 7], [0, 3], [0, 0]], np.float64)  # approxPolyDP's corners come as floats
    first = _first_indices(points, corners)
    assert first == {(5, 0): 1, (5, 7): 4, (0, 3): 6, (0, 0): 0}
    for x, y in corners:
        assert first[int(x), int(y)] == int(np.flatnonzero((points == (x, y)).all(axis=1))[0])


def test_the_size_pass_takes_a_rectangle_with_one_side_washed_out_in_its_middle(
    held_out_decks: dict[str, Deck],
) -> None:
    """``size_side_support`` (0.9) and ``size_gap_support`` (0.8): every side of a size-pass rectangle lies on edges
    for 0.9, except one that may lie on them for 0.8 where its misses are one stretch clear of its ends. In
    evaluate's realistic scene 46 at seed 11 as drawn now (``gnome:plastic``, calibrated) a QD and a 4S
    lie on a pale arm under a glare spot, which washes out a stretch of a side of each to 0.88: the shipped pass
    takes both, and without the one weaker side (``size_gap_support`` 0.9, the stricter rule) it refuses
    both."""
    from dataclasses import replace

    scene = _held_out_scene(held_out_decks, "gnome:plastic", 11, 46 - 40, pinned=False)  # (the design's are 40-59)
    truths = [q for label, q in scene.cards if label in ("QD", "4S")]
    shipped = detect_cards(scene.image, plane=scene.plane)
    whole_sides = detect_cards(scene.image, replace(SHIPPED, size_gap_support=0.9), plane=scene.plane)
    assert len(truths) == 2
    assert all(match(t, shipped) is not None for t in truths) and all(match(t, whole_sides) is None for t in truths)


def test_the_size_pass_searches_the_image_where_too_few_cards_give_a_plane(held_out_decks: dict[str, Deck]) -> None:
    """``size_pass_image`` (on): seed 11's realistic scene 46 without calibration leaves three
    outlines, too few for a plane, so the size pass searches the image (the deck's size from the outlines found,
    ``size_tolerance_image``); there it finds the QD and the 4S whose side a glare spot washes out. Off, neither."""
    from dataclasses import replace

    from vision.plane_from_cards import plane_from_cards

    scene = _held_out_scene(held_out_decks, "gnome:plastic", 11, 46 - 40, pinned=False)
    truths = [q for label, q in scene.cards if label in ("QD", "4S")]
    shipped = detect_cards(scene.image)
    off = detect_cards(scene.image, replace(SHIPPED, size_pass_image=False))
    assert len(truths) == 2 and all(match(t, off) is None for t in truths)
    assert plane_from_cards(off, scene.image.shape, spread=SHIPPED.plane_spread, drop=SHIPPED.plane_drop) is None
    assert all(match(t, shipped) is not None for t in truths)


def test_the_size_pass_takes_a_card_on_a_pale_table_whose_dashed_side_misses_a_stretch(
    held_out_decks: dict[str, Deck],
) -> None:
    """``size_gap_support``, in the image (no calibration): evaluate's hard scene 44 at seed 2024 (drawn at seed 2025,
    ``gnome:plastic``, as drawn now) has a JC on a pale table under glare whose right side is a dashed line; one
    stretch of it lies off the edge map. The shipped detector finds it; with every side held to 0.9 it does not."""
    from dataclasses import replace

    scene = _held_out_scene(held_out_decks, "gnome:plastic", 2025, 44 - 40, HARD, pinned=False)
    (truth,) = [q for label, q in scene.cards if label == "JC"]
    assert match(truth, detect_cards(scene.image)) is not None
    assert match(truth, detect_cards(scene.image, replace(SHIPPED, size_gap_support=0.9))) is None
