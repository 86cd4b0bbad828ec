"""vision.motion_blur (the frame's motion blur from its cepstrum, and its Wiener deconvolution) and the recogniser's
blur look, which reads cards still unsure again from the deconvolved frame."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from models.training.evaluate import NORMAL
from models.training.synth import HARD, Deck, faces_deck, flat_frame, make_scene
from vision.errors import ImageError, SettingError
from vision.motion_blur import (
    MOTION_DEPTH,
    MOTION_ISOLATION,
    Motion,
    cepstral_peak,
    deblur,
    estimate_motion,
    motion_kernel,
)
from vision.recognizer import BLUR_LOOK_LENGTH, Recognizer


def _sharp_scene(seed: int) -> np.ndarray:
    """A table of own-drawn cards with no camera blur (the generator's noise and JPEG only)."""
    return make_scene(np.random.default_rng(seed), faces_deck(seed % 24), replace(NORMAL, blur=0.0)).image


def _smeared(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """``image`` blurred as the scene generator does (``synth._camera``): a ``length`` px row turned ``angle``."""
    kernel: np.ndarray = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def _angle_apart(a: float, b: float) -> float:
    return abs((a - b + 90.0) % 180.0 - 90.0)


@pytest.mark.parametrize(("length", "angle"), [(6, 0.0), (7, 37.0), (8, 90.0), (6, 151.0), (8, 118.0)])
def test_a_motion_blur_is_found_with_its_length_and_direction(length: int, angle: float) -> None:
    """The cepstrum's deepest peak lies at the blur's length and direction: within 1 px and 7 degrees (the
    generator's kernel is a row of pixels turned, not an ideal line), and deeper than MOTION_DEPTH."""
    sharp = _sharp_scene(length * 100 + int(angle))
    grey = cv2.cvtColor(_smeared(sharp, length, angle), cv2.COLOR_BGR2GRAY)
    found = estimate_motion(grey)
    assert found is not None
    assert abs(found.length - length) <= 1.0 and _angle_apart(found.angle, angle) <= 7.0, found
    assert found.depth >= MOTION_DEPTH and found.isolation >= MOTION_ISOLATION
    assert estimate_motion(grey, min_length=found.length + 0.25) is None  # a caller's shortest blur of use


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_sharp_frame_has_no_motion_blur(seed: int) -> None:
    grey = cv2.cvtColor(_sharp_scene(seed), cv2.COLOR_BGR2GRAY)
    assert estimate_motion(grey) is None
    assert cepstral_peak(grey).depth < MOTION_DEPTH  # the peak is reported whatever its depth


def test_a_card_on_plain_felt_is_not_taken_for_a_blur() -> None:
    """A card pasted flat on felt with no noise: its cepstrum has deep values in every direction, often deeper than
    MOTION_DEPTH at 5.5 px or more, but no isolated one (MOTION_ISOLATION), so no blur is reported."""
    deep_enough = 0
    for style in range(4):
        for width in (80, 100, 130, 180):
            frame, _ = flat_frame(faces_deck(style)("QC"), width)
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            peak = cepstral_peak(grey)
            deep_enough += peak.depth >= MOTION_DEPTH and peak.length >= BLUR_LOOK_LENGTH
            assert estimate_motion(grey, BLUR_LOOK_LENGTH) is None, (style, width, peak)
    assert deep_enough >= 3  # the depth alone would have taken these for blurs


def test_the_kernel_is_a_line_of_its_length_and_direction() -> None:
    """It sums to 1, is an odd square, and its spread along the direction is a box of ``length`` px (variance
    L^2 / 12) while across it stays under a pixel."""
    for length, angle in ((6.0, 30.0), (8.5, 121.0)):
        kernel = motion_kernel(Motion(length, angle, 0.0))
        assert kernel.shape[0] == kernel.shape[1] and kernel.shape[0] % 2 == 1
        assert abs(float(kernel.sum()) - 1.0) < 1e-5
        c = (kernel.shape[0] - 1) / 2
        ys, xs = np.mgrid[: kernel.shape[0], : kernel.shape[1]]
        t = np.deg2rad(angle)
        along = (xs - c) * np.cos(t) - (ys - c) * np.sin(t)  # y down: counter-clockwise as seen
        across = (xs - c) * np.sin(t) + (ys - c) * np.cos(t)
        assert abs(float((kernel * along**2).sum()) - length**2 / 12) < 0.15 * length**2 / 12
        assert float((kernel * across**2).sum()) < 0.35


def test_deblurring_restores_the_edges_a_known_motion_blur_smeared() -> None:
    """A frame smeared 7 px at 30 degrees, deconvolved for that blur: within 2 px of the sharp frame's edges (an
    index's strokes, a card's sides) it is a third closer to the sharp frame than the smeared one. (On the flat
    table between them the filter lifts the generator's noise: the frame as a whole is not closer.)"""
    sharp = _sharp_scene(5)
    smeared = _smeared(sharp, 7, 30.0)
    restored = deblur(smeared, Motion(7.0, 30.0, 1.0))
    assert restored.shape == sharp.shape and restored.dtype == np.uint8
    grey = cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY)
    near_edges = cv2.dilate(cv2.Canny(grey, 50, 150), np.ones((5, 5), np.uint8)) > 0
    near_edges[:20], near_edges[-20:], near_edges[:, :20], near_edges[:, -20:] = False, False, False, False

    def error(image: np.ndarray) -> float:
        return float(np.abs(image.astype(np.float32) - sharp)[near_edges].mean())

    assert error(restored) < 0.67 * error(smeared)


def test_bad_images_are_refused_with_what_is_wrong() -> None:
    with pytest.raises(ImageError, match="grey image"):
        cepstral_peak(np.zeros((100, 100, 3), np.uint8))
    with pytest.raises(ImageError, match="at least 23 px"):
        estimate_motion(np.zeros((20, 300), np.uint8))
    with pytest.raises(ImageError, match="BGR uint8"):
        deblur(np.zeros((50, 50), np.uint8), Motion(6.0, 0.0, 1.0))


def test_the_recogniser_refuses_blur_look_settings_it_cannot_use() -> None:
    for bad in (0.0, 1.5):
        with pytest.raises(SettingError, match="blur_look_below"):
            Recognizer(blur_look_below=bad)


def _unsure_outlines(frame: np.ndarray, rec: Recognizer) -> list[np.ndarray]:
    """Outlines 25% smaller than the cards found (their index corners cut): every card read through them is
    unsure."""
    quads = [r.corners for r in rec.recognize(frame)]
    assert len(quads) >= 4
    return [((q - q.mean(axis=0)) * 0.75 + q.mean(axis=0)).astype(np.float32) for q in quads]


def test_the_blur_look_deblurs_only_frames_with_a_long_enough_motion_blur(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cards still unsure are read again from a deconvolved patch each, in a frame smeared 7 px; in the same
    frame sharp, or smeared 4 px (under BLUR_LOOK_LENGTH: the model reads through it), nothing is deconvolved."""
    import vision.recognizer as recognizer

    rec = Recognizer(threads=1, learned=False)  # the outlines of count
    calls: list[Motion] = []

    def counting(image: np.ndarray, motion: Motion) -> np.ndarray:
        calls.append(motion)
        return deblur(image, motion)

    monkeypatch.setattr(recognizer, "deblur", counting)
    sharp = _sharp_scene(11)
    outlines = _unsure_outlines(sharp, rec)
    rec.classify_quads(sharp, outlines)
    assert calls == []
    assert BLUR_LOOK_LENGTH > 4
    rec.classify_quads(_smeared(sharp, 4, 60.0), outlines)
    assert calls == []
    read = rec.classify_quads(_smeared(sharp, 7, 60.0), outlines)
    unsure = sum(
        r.card == "unknown" or (r.card != "back" and r.confidence < rec.blur_look_below)
        for r in Recognizer(threads=1, blur_look=False).classify_quads(_smeared(sharp, 7, 60.0), outlines)
    )
    assert len(calls) == unsure > 0 and len(read) == len(outlines)
    assert all(abs(m.length - 7) <= 1 and _angle_apart(m.angle, 60.0) <= 7 for m in calls)
    calls.clear()
    Recognizer(threads=1, blur_look=False).classify_quads(_smeared(sharp, 7, 60.0), outlines)
    assert calls == []


@pytest.mark.parametrize(
    ("index", "label", "without"),
    [
        (0, "KH", "unknown"),  # the shipped detector's outline read QH, the wrong court, through the smear
        (4, "KS", "unknown"),
    ],
)
def test_held_out_cards_under_motion_blur_are_named_through_the_blur_look(
    held_out_decks: dict[str, Deck], index: int, label: str, without: str
) -> None:
    """The model card's hard frames (evaluate --seed 2024: seed 2025), gnome:neoclassical scene ``index``: a
    card in a frame smeared 6-8 px is named only through the blur look (benchmarks/blur_look.py lists them)."""
    from models.training.dataset import match

    rng = np.random.default_rng([2025, sorted(held_out_decks).index("gnome:neoclassical")])
    for _ in range(index + 1):
        scene = make_scene(rng, held_out_decks["gnome:neoclassical"], HARD)
    assert scene.blur.kind == "motion" and scene.blur.amount >= 6
    truth = next(q for lab, q in scene.cards if lab == label)
    readings = []
    for look in (False, True):
        seen = Recognizer(threads=1, blur_look=look).recognize(scene.image)
        quad = match(truth, [r.corners for r in seen])
        readings.append(next(r.card for r in seen if r.corners is quad))
    assert readings == [without, label]


def test_a_face_the_blur_look_reads_as_a_back_stays_the_face(held_out_decks: dict[str, Deck]) -> None:
    """evaluate --seed 99's hard frames (seed 100), gnome:neoclassical scene 12: a sharp frame that the estimator
    takes for one smeared 5.5 px or more. Its 7S, named under BLUR_LOOK_BELOW, is read again from a patch
    deconvolved for that blur; the ringing reads as a back's pattern (``back`` 0.82 without the rule). A card
    named a face keeps a face's name."""
    from models.training.dataset import match

    rng = np.random.default_rng([100, sorted(held_out_decks).index("gnome:neoclassical")])
    for _ in range(13):
        scene = make_scene(rng, held_out_decks["gnome:neoclassical"], HARD)
    assert scene.blur.kind == "none"
    assert estimate_motion(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), BLUR_LOOK_LENGTH) is not None
    truth = next(q for lab, q in scene.cards if lab == "7S")
    seen = Recognizer(threads=1).recognize(scene.image)
    quad = match(truth, [r.corners for r in seen])
    assert quad is not None
    assert next(r.card for r in seen if r.corners is quad) == "7S"
