"""The index-corner network (vision.index_corners): the shipped file finds index corners where they are and is refused
where it is not the file its metadata describes; the covered-card pass reads the corners it finds."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from models.training.overlap_scenes import OverlapSpec, make_overlap_scene
from models.training.synth import FELT, composite, faces_deck
from vision.covered_cards import Guesses, found_corners
from vision.errors import ModelError
from vision.index_corners import DEFAULT_META, IndexCornerFinder, decode


@pytest.fixture(scope="module")
def finder() -> IndexCornerFinder:
    return IndexCornerFinder.load()


def _rect(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _turned(quad: np.ndarray, degrees: float) -> np.ndarray:
    t = np.radians(degrees)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
    centre = quad.mean(axis=0)
    out: np.ndarray = (quad - centre) @ rot.T + centre
    return out


def _found_at(found: Guesses, at: np.ndarray, across: np.ndarray, width: float) -> bool:
    """Whether a found corner lies within 6% of a width of ``at``, turned within 12 degrees of ``across``."""
    near = np.linalg.norm(found.corners - at, axis=1) < 0.06 * width
    same_way = found.across @ across >= np.cos(np.radians(12))
    return bool((near & same_way).any())


def test_both_index_corners_of_cards_lying_apart_are_found_the_way_each_card_lies(finder: IndexCornerFinder) -> None:
    deck = faces_deck(2)
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    width = 120.0
    cards = {
        "7H": _rect(100, 100, width, width * 1.4),
        "KS": _turned(_rect(450, 120, width, width * 1.4), 30),
        "2D": _turned(_rect(800, 300, width, width * 1.4), 180),
        "QC": _turned(_rect(300, 420, width, width * 1.4), -75),
    }
    for label, quad in cards.items():
        composite(frame, deck(label), quad)
    found = finder.find(frame)
    for quad in cards.values():
        tl, tr, br, bl = quad.astype(np.float64)
        for at, across in ((tl, tr - tl), (br, bl - br)):
            assert _found_at(found, at, across / np.linalg.norm(across), width)
    # a card's other two corners are not index corners: the network's sure peaks are the index corners alone
    assert len(decode(finder.heat_and_answers(frame), 0.5)) == 2 * len(cards)
    assert np.all(np.abs(found.widths / width - 1) < 0.25)


def test_most_index_corners_that_show_in_fans_and_piles_are_found(finder: IndexCornerFinder) -> None:
    """Over four overlap scenes of one of the project's drawn styles, most index corners that show are found within
    6% of a card's width and 12 degrees (the covered-card pass reads each found one)."""
    from models.training.overlap_crops import card_corners
    from models.training.overlap_scenes import INDEX_SHOWS

    rng = np.random.default_rng(7)
    shows = found = 0
    for _ in range(4):
        scene = make_overlap_scene(rng, faces_deck(5), OverlapSpec())
        guesses = finder.find(scene.image)
        for c in card_corners(scene)[0]:
            if c.shown >= INDEX_SHOWS:
                shows += 1
                found += _found_at(guesses, c.at, c.across, c.width)
    assert shows >= 20
    assert found >= 0.8 * shows, f"{found} of {shows} index corners found"


def test_a_frame_of_bare_felt_gives_no_index_corner(finder: IndexCornerFinder) -> None:
    rng = np.random.default_rng(3)
    frame = np.clip(np.full((720, 1280, 3), FELT, np.float32) + rng.normal(0, 4, (720, 1280, 3)), 0, 255)
    assert len(finder.find(frame.astype(np.uint8))) == 0


def test_corners_found_in_the_paper_boxes_are_given_in_the_frames_pixels() -> None:
    seen: list[tuple[int, ...]] = []

    def find(image: np.ndarray) -> Guesses:
        seen.append(image.shape)
        one = np.array([[10.0, 20.0]])
        return Guesses(one, np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), np.array([50.0]))

    image = np.zeros((720, 1280, 3), np.uint8)
    found = found_corners(find, image, [(100, 50, 300, 200), (250, 100, 400, 300)])
    assert seen == [(250, 300, 3)]  # the rectangle round both boxes
    assert np.allclose(found.corners, [[110.0, 70.0]]) and np.allclose(found.widths, [50.0])


def _copied(tmp_path: Path) -> Path:
    meta = json.loads(DEFAULT_META.read_text())
    shutil.copy(DEFAULT_META.parent / meta["file"], tmp_path / meta["file"])
    shutil.copy(DEFAULT_META, tmp_path / DEFAULT_META.name)
    return tmp_path / DEFAULT_META.name


def test_a_network_file_its_metadata_does_not_describe_is_refused(tmp_path: Path) -> None:
    meta_path = _copied(tmp_path)
    assert len(IndexCornerFinder.load(meta_path).find(np.zeros((64, 64, 3), np.uint8))) == 0
    model = tmp_path / json.loads(meta_path.read_text())["file"]
    model.write_bytes(model.read_bytes()[:-10])
    with pytest.raises(ModelError, match="SHA-256 differs"):
        IndexCornerFinder.load(meta_path)
    model.unlink()
    with pytest.raises(ModelError, match="is missing"):
        IndexCornerFinder.load(meta_path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(stride=8), "this pipeline decodes"),
        (lambda m: m.pop("sha256"), "not the index-corner network's metadata"),
    ],
)
def test_metadata_for_another_network_is_refused(
    tmp_path: Path, change: Callable[[dict[str, Any]], object], message: str
) -> None:
    meta_path = _copied(tmp_path)
    meta = json.loads(meta_path.read_text())
    change(meta)
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=message):
        IndexCornerFinder.load(meta_path)


def test_damaged_metadata_is_refused(tmp_path: Path) -> None:
    meta_path = _copied(tmp_path)
    meta_path.write_text("{not json")
    with pytest.raises(ModelError, match="not the index-corner network's metadata"):
        IndexCornerFinder.load(meta_path)
