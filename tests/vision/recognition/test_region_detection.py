"""benchmarks/region_detection.py: detection in a region around a card against the whole frame's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.region_detection import main, measure, region_around
from models.training.dataset import match, match_index
from models.training.evaluate import NORMAL, kind_spec
from models.training.synth import faces_deck, make_scene
from vision.detect import detect_cards, detect_in_region


def _scenes(count: int) -> list:  # type: ignore[type-arg]
    rng = np.random.default_rng(8)
    return [make_scene(rng, faces_deck(n), replace(NORMAL, n_cards=6)) for n in range(count)]


def test_a_region_is_the_card_box_grown_by_its_long_side_and_cut_at_the_frame() -> None:
    card = np.float32([[100, 50], [160, 50], [160, 140], [100, 140]])  # 60 x 90: long side 90
    assert region_around(card, (720, 1280, 3), 0.0) == (100, 50, 161, 141)
    assert region_around(card, (720, 1280, 3), 0.5) == (55, 5, 206, 186)
    assert region_around(card, (720, 1280, 3), 1.0) == (10, 0, 251, 231)  # cut at the top
    assert region_around(card + 1150, (720, 1280, 3), 1.0)[2:] == (1280, 720)


@pytest.mark.parametrize("calibrated", [False, True])
def test_a_card_is_found_in_its_region_in_frame_pixels(calibrated: bool) -> None:
    """The outlines come back in the frame's pixels (a region's own pixels would match no card), with the table
    plane moved to the region where one is given: in each scene the card whose region lies furthest from the
    frame's top-left corner is found in a region one card length around it."""
    found = 0
    for scene in _scenes(2):
        quad = max((q for _, q in scene.cards), key=lambda q: min(region_around(q, scene.image.shape, 1.0)[:2]))
        region = region_around(quad, scene.image.shape, 1.0)
        assert min(region[:2]) > 0  # else frame and region pixels coincide on an axis and the test shows less
        outlines = detect_in_region(scene.image, region, plane=scene.plane if calibrated else None)
        assert all(np.all(q >= region[:2]) and np.all(q <= region[2:]) for q in outlines)
        found += match(quad, outlines) is not None
    assert found == 2


def test_the_counts_agree_with_the_cards_listed() -> None:
    scenes = _scenes(2)
    frames = [(8, n, "own", scene) for n, scene in enumerate(scenes)]
    tallies, whole_ms = measure(frames, [0.0, 1.0], 2)
    assert len(whole_ms) == 2
    for tally in tallies.values():
        assert tally.cards == 4 and len(tally.region_ms) == 4 and len(tally.shares) == 4
        only_whole = sum(o[4] == "whole" for o in tally.only)
        only_region = sum(o[4] == "region" for o in tally.only)
        assert tally.found_whole - only_whole == tally.found_region - only_region
        assert all(0 < s <= 1 for s in tally.shares)
    assert all(a < b for a, b in zip(tallies[0.0].shares, tallies[1.0].shares, strict=True))
    direct = sum(match(quad, detect_cards(scene.image)) is not None for scene in scenes for _, quad in scene.cards[:2])
    assert tallies[0.0].found_whole == tallies[1.0].found_whole == direct > 0


def test_bad_arguments_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--grow", "-1"])
    assert "--grow" in capsys.readouterr().err


def test_a_region_sized_by_the_cards_known_around_it_finds_a_card_it_misses_alone() -> None:
    """``detect_in_region(..., deck=)``: a hard frame's TH, in a region half a card length around it, is found only
    when the region's detection is given the whole frame's other outlines to size the deck by (alone, the region
    holds too few cards for the size pass and the deck fit)."""
    spec, _ = kind_spec("hard", 2024)
    rng = np.random.default_rng(8)
    scene = [make_scene(rng, faces_deck(n % 8), spec) for n in range(13)][12]
    quad = next(q for label, q in scene.cards if label == "TH")
    whole = detect_cards(scene.image, plane=scene.plane)
    mate = match_index(quad, whole)
    assert mate is not None
    region = region_around(quad, scene.image.shape, 0.5)
    assert match(quad, detect_in_region(scene.image, region, plane=scene.plane)) is None
    deck = [q for i, q in enumerate(whole) if i != mate]
    assert match(quad, detect_in_region(scene.image, region, plane=scene.plane, deck=deck)) is not None
