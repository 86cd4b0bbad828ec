"""The table plane from the cards on it (``vision.plane_from_cards``): a homography under which every card
outline is the same rectangle, from outlines alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.training.synth import SceneSpec, faces_deck, make_scene
from vision.plane_from_cards import mean_side_vectors, plane_from_cards
from vision.quads import plane_points

FRAME = (720, 1280, 3)


def _tilted_view(tilt_degrees: float) -> np.ndarray:
    """Table millimetres -> image pixels for a 1280x720 camera ~900 mm above the table, turned by ``tilt``."""
    t = np.radians(tilt_degrees)
    rot = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    k = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
    # plane point (x, y, 0) -> camera: rot @ (x, y, 0) + (0, 0, 900)
    view: np.ndarray = k @ np.column_stack([rot[:, 0], rot[:, 1], np.array([0.0, 0.0, 900.0])])
    return view


def _deck_on_table(
    rng: np.random.Generator, n: int, to_image: np.ndarray, size: tuple[float, float] = (63.0, 88.0), noise: float = 0.3
) -> list[np.ndarray]:
    quads = []
    for i in range(n):
        centre = np.array([-280.0 + 560.0 * (i % 4) / 3, -150.0 + 300.0 * (i // 4) / max(1, (n - 1) // 4)])
        box = cv2.boxPoints(((float(centre[0]), float(centre[1])), size, float(rng.uniform(0, 180))))
        image = plane_points(box[None].astype(np.float32), tuple(to_image.ravel()))[0]
        quads.append((image + rng.normal(0, noise, image.shape)).astype(np.float32))
    return quads


def _sides_on(plane: np.ndarray, quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Short sides, long sides and the largest |cosine| between a card's sides, on ``plane``."""
    p = plane_points(np.stack(quads), tuple(np.asarray(plane, np.float64).ravel())).astype(np.float64)
    a, b = mean_side_vectors(p)
    la, lb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return np.minimum(la, lb), np.maximum(la, lb), np.abs((a * b).sum(axis=1)) / (la * lb)


@pytest.mark.parametrize("tilt", [0.0, 15.0, 30.0])
def test_the_cards_of_a_tilted_view_are_one_rectangle_on_the_plane_found(tilt: float) -> None:
    """Eight cards of one deck on a table seen 0-30 degrees off vertical, corners 0.3 px off: on the plane
    found every card is the deck's rectangle to 1.5% (in the image the far cards are up to a third smaller)
    with right angles to 1 degree, and its shape is the card's (88 / 63)."""
    to_image = _tilted_view(tilt)
    quads = _deck_on_table(np.random.default_rng(int(tilt)), 8, to_image)
    plane = plane_from_cards(quads, FRAME)
    assert plane is not None
    short, long_, cos = _sides_on(plane, quads)
    assert np.abs(short / np.median(short) - 1).max() < 0.015
    assert np.abs(long_ / np.median(long_) - 1).max() < 0.015
    assert cos.max() < np.sin(np.radians(1.0))
    assert np.median(long_) / np.median(short) == pytest.approx(88 / 63, rel=0.01)
    if tilt >= 15:  # the image itself is far from that
        i_short, _, _ = _sides_on(np.eye(3), quads)
        assert i_short.max() / i_short.min() > 1.15


def test_no_plane_from_too_few_cards_or_from_outlines_that_are_no_one_deck() -> None:
    """Three cards are too few (``min_cards``); eight whose sizes are two decks' (half of them 1.4 times the
    others) fit no one rectangle, so no plane is given rather than a wrong one."""
    to_image = _tilted_view(20.0)
    rng = np.random.default_rng(4)
    quads = _deck_on_table(rng, 8, to_image)
    assert plane_from_cards(quads[:3], FRAME) is None
    assert plane_from_cards(quads, FRAME) is not None
    big = _deck_on_table(rng, 8, to_image, size=(88.0, 123.0))
    mixed = [big[i] if i % 2 else quads[i] for i in range(8)]
    assert plane_from_cards(mixed, FRAME) is None


def test_one_outline_off_its_card_does_not_bend_the_plane() -> None:
    """One of ten outlines took in a chip beside its card (a quarter too long): the fit drops it and the
    nine others are still one rectangle on the plane found."""
    to_image = _tilted_view(25.0)
    quads = _deck_on_table(np.random.default_rng(9), 10, to_image)
    bad = quads[3].copy()
    bad[2] += 0.25 * (bad[2] - bad[1])
    bad[3] += 0.25 * (bad[3] - bad[0])
    plane = plane_from_cards([*quads[:3], bad, *quads[4:]], FRAME)
    assert plane is not None
    short, long_, _ = _sides_on(plane, [*quads[:3], *quads[4:]])
    assert np.abs(short / np.median(short) - 1).max() < 0.02
    assert np.abs(long_ / np.median(long_) - 1).max() < 0.02


def test_a_printed_frame_among_five_outlines_is_left_out_with_drop() -> None:
    """``drop``: five outlines on a table tilted 25 degrees, one of them on a court card's printed frame (0.6 of
    its card each way), in turn each of the five. Wherever it is, with ``drop=1`` there is a plane and on it
    the other four are one rectangle of the card's shape; without, the frame bends the fit beyond what
    dropping the worst fitting card repairs at some places (no plane at all). Four outlines leave nothing to
    drop (``min_cards``)."""
    to_image = _tilted_view(25.0)
    quads = _deck_on_table(np.random.default_rng(3), 5, to_image)
    refused = 0
    for frame_at in range(5):
        centre = quads[frame_at].mean(axis=0)
        frame = ((quads[frame_at] - centre) * 0.6 + centre).astype(np.float32)
        seen = [frame if i == frame_at else q for i, q in enumerate(quads)]
        cards = [q for i, q in enumerate(quads) if i != frame_at]
        refused += plane_from_cards(seen, FRAME) is None
        plane = plane_from_cards(seen, FRAME, drop=1)
        assert plane is not None
        short, long_, cos = _sides_on(plane, cards)
        assert np.abs(short / np.median(short) - 1).max() < 0.02
        assert np.abs(long_ / np.median(long_) - 1).max() < 0.02
        assert np.abs(long_ / short - 88 / 63).max() < 0.03 and cos.max() < 0.02
        assert plane_from_cards([*cards[:3], frame], FRAME, drop=1) is None
    assert refused >= 2


def test_on_generated_scenes_the_plane_found_is_as_good_as_the_true_one() -> None:
    """Generated table scenes (their own camera tilt): the true card outlines are as much one rectangle on
    the plane found from the detector's outlines as on the scene's true plane (within a point of spread). The
    outlines are those the detector estimates the plane from: no plane yet, so no size pass on the image either
    (its rectangles have no perspective; it runs only where no plane can be estimated)."""
    from dataclasses import replace

    from vision.detect import DEFAULT_CONFIG, detect_cards

    rng = np.random.default_rng(21)
    config = replace(DEFAULT_CONFIG, estimate_plane=False, size_pass_image=False)
    for _ in range(4):
        scene = make_scene(rng, faces_deck(2), SceneSpec(n_cards=10, clutter=0))
        truths = [q for _, q in scene.cards]
        plane = plane_from_cards(detect_cards(scene.image, config), scene.image.shape)
        assert plane is not None and scene.plane is not None
        found, true = _sides_on(plane, truths)[0], _sides_on(scene.plane, truths)[0]
        assert np.abs(found / np.median(found) - 1).max() <= np.abs(true / np.median(true) - 1).max() + 0.01


def test_outlines_no_card_could_be_give_no_plane_and_no_error() -> None:
    """Points, lines, crossed or non-finite outlines (a detector bug, a bad frame) are not cards: with
    fewer than four real ones left there is no plane, and nothing raises; the real ones still give one."""
    to_image = _tilted_view(20.0)
    cards = _deck_on_table(np.random.default_rng(2), 4, to_image)
    point = np.repeat(np.array([[300, 200]], np.float32), 4, axis=0)
    line = np.array([[0, 0], [10, 10], [20, 20], [30, 30]], np.float32)
    crossed = np.array([[0, 0], [100, 100], [100, 0], [0, 100]], np.float32)
    nan = np.full((4, 2), np.nan, np.float32)
    junk = [point, line, crossed, nan]
    assert plane_from_cards(junk * 3, FRAME) is None
    assert plane_from_cards([*cards[:3], *junk], FRAME) is None
    assert plane_from_cards([*cards, *junk], FRAME) is not None
    rng = np.random.default_rng(8)
    for _ in range(200):  # random quadrilaterals: a plane or none, never an error or a non-finite map
        plane = plane_from_cards([rng.uniform(-50, 1400, (4, 2)).astype(np.float32) for _ in range(8)], FRAME)
        assert plane is None or np.isfinite(plane).all()


def test_mean_side_vectors_are_a_rectangles_sides_in_any_leading_shape() -> None:
    """``mean_side_vectors`` of a 63 x 88 rectangle turned 30 degrees are its two sides (lengths 63 and 88, at
    right angles), for one quad and for a stack of them alike."""
    box = cv2.boxPoints(((100.0, 80.0), (63.0, 88.0), 30.0)).astype(np.float64)
    a, b = mean_side_vectors(box)
    assert sorted([np.linalg.norm(a), np.linalg.norm(b)]) == pytest.approx([63.0, 88.0])
    assert float(a @ b) == pytest.approx(0.0, abs=1e-3)  # (boxPoints works in float32)
    sa, sb = mean_side_vectors(np.stack([box, box + 5.0])[None])
    assert sa.shape == (1, 2, 2) and np.allclose(sa[0, 1], a) and np.allclose(sb[0, 0], b)
