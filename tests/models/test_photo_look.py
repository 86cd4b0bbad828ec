"""models/training/photo_look.py: each effect does what it says, scenes without it stay as they were, and a card
given the printed look is still read by the shipped classifier."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import cv2
import numpy as np
import pytest

from models.training import photo_look, synth
from models.training.build_crops import parser
from models.training.overlap_scenes import OverlapSpec, make_overlap_scene


def _digest(image: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()[:16]


# make_scene and make_overlap_scene as they drew these seeds before ``SceneSpec.realism`` existed: the image's digest
# and the generator's next draw after the scene (so a draw left over or added shows even where the image would not).
BEFORE = {
    ("scene", 3): ("4802d6d0ee62db8c", 441582516),
    ("hard", 3): ("5ce122ca8ab11301", 762487309),
    ("overlap", 3): ("fa5cd11f5054ce11", 1032660844),
    ("scene", 11): ("f72acc1dfa29c47b", 274742218),
    ("hard", 11): ("7f537f9b8e254c79", 669528255),
    ("overlap", 11): ("59062902ec827878", 767954931),
}


@pytest.mark.parametrize(("kind", "seed"), sorted(BEFORE))
def test_realism_zero_draws_nothing_and_leaves_the_scenes_as_they_were(kind: str, seed: int) -> None:
    deck = synth.faces_deck(0)
    rng = np.random.default_rng(seed)
    if kind == "overlap":
        image = make_overlap_scene(rng, deck, OverlapSpec(look=synth.SceneSpec(face_down=0.0, realism=0.0))).image
    else:
        image = synth.make_scene(
            rng, deck, replace(synth.HARD if kind == "hard" else synth.SceneSpec(), realism=0.0)
        ).image
    assert (_digest(image), int(rng.integers(1 << 30))) == BEFORE[(kind, seed)]


def test_realism_one_changes_the_scene_and_realism_between_draws_once() -> None:
    deck = synth.faces_deck(0)
    plain = synth.make_scene(np.random.default_rng(3), deck)
    real = synth.make_scene(np.random.default_rng(3), deck, synth.SceneSpec(realism=1.0))
    assert _digest(real.image) != _digest(plain.image)
    rng = np.random.default_rng(5)
    assert synth.settled(rng, synth.SceneSpec(realism=0.5)).realism in (0.0, 1.0)
    assert rng.bit_generator.state != np.random.default_rng(5).bit_generator.state


def _flat(colour: tuple[int, int, int], size: int = 96) -> np.ndarray:
    return np.full((size, size, 3), colour, np.float32)


def _high_frequency(img: np.ndarray) -> float:
    grey = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean())


def test_halftone_gives_a_flat_colour_patch_fine_texture_and_keeps_its_colour() -> None:
    patch = _flat((60, 120, 200))
    printed = photo_look.halftone(np.random.default_rng(1), patch, 0.6)
    assert _high_frequency(patch) == 0.0
    assert _high_frequency(printed) > 5.0
    assert np.abs(printed.mean((0, 1)) - patch.mean((0, 1))).max() < 25  # about the same colour on average
    white = photo_look.halftone(np.random.default_rng(1), _flat((255, 255, 255)), 0.6)
    assert np.abs(white - 255).max() < 1  # no ink on bare paper


def test_misregistration_puts_colour_fringes_round_black_print() -> None:
    img = _flat((255, 255, 255))
    img[30:60, 30:60] = 0
    shifted = photo_look.misregister(np.random.default_rng(2), img, 2.0)
    assert (img.max(2) - img.min(2)).max() == 0
    assert (shifted.max(2) - shifted.min(2)).max() > 60


def test_ink_spread_makes_dark_strokes_bolder() -> None:
    img = _flat((255, 255, 255))
    img[:, 40:43] = 20

    def dark_columns(x: np.ndarray) -> int:
        return int((x.mean((0, 2)) < 200).sum())

    assert (dark_columns(img), dark_columns(photo_look.ink_spread(img, 0.5))) == (3, 5)


def test_paper_fibre_textures_white_card_stock() -> None:
    white = _flat((240, 240, 240))
    assert photo_look.paper_fibre(np.random.default_rng(3), white, 0.03).std() > 2.0


def test_worn_edges_change_the_rim_and_leave_the_middle() -> None:
    card = synth.faces_deck(0)("5H")
    bgr = card[:, :, :3].astype(np.float32)
    worn = photo_look.worn_edges(np.random.default_rng(4), bgr, card[:, :, 3], 1.0)
    h, w = bgr.shape[:2]
    rim = np.zeros((h, w), bool)
    rim[:4], rim[-4:], rim[:, :4], rim[:, -4:] = True, True, True, True
    inside = card[:, :, 3] > 127
    assert np.abs(worn - bgr)[rim & inside].mean() > 3.0
    assert np.abs(worn - bgr)[h // 3 : 2 * h // 3, w // 3 : 2 * w // 3].max() == 0.0


def test_a_bent_card_is_darker_on_one_side_and_keeps_its_corners() -> None:
    card = np.full((140, 100, 4), 200, np.float32)
    card[:, :, 3] = 255
    bent = photo_look.bend(np.random.default_rng(5), card, 0.8)
    grey = bent[:, :, :3].mean(2)
    sides = [abs(grey[:, :20].mean() - grey[:, -20:].mean()), abs(grey[:20].mean() - grey[-20:].mean())]
    assert max(sides) > 10.0
    for y, x in ((0, 0), (0, 99), (139, 0), (139, 99)):
        assert bent[y, x, 3] > 200  # the outline's corners stay where they were


def test_sheen_brightens_a_band_towards_white() -> None:
    img = _flat((100, 60, 30), 120)
    shone = photo_look.sheen(np.random.default_rng(6), img, 0.4)
    assert (shone >= img).all() and shone.max() > 160 and np.percentile(shone - img, 10) < 20


def test_vignetting_darkens_the_corners_not_the_centre() -> None:
    img = np.full((180, 320, 3), 200.0, np.float32)
    out = photo_look.vignette(img, 0.4)
    assert out[90, 160].mean() > 199 and out[0, 0].mean() < 130 and out[179, 319].mean() < 130


def test_chromatic_aberration_splits_red_from_blue_away_from_the_centre() -> None:
    img = np.full((200, 400, 3), 255, np.uint8)
    img[:, 380:384] = 0  # a black line near the right edge
    split = photo_look.chromatic_aberration(img, 0.01)
    assert (split[:, 380:384, 0].astype(int) - split[:, 380:384, 2]).max() > 100


def test_shot_noise_grows_with_the_light() -> None:
    rng = np.random.default_rng(7)
    dim, bright = (
        photo_look.shot_and_read_noise(rng, np.full((200, 200), v, np.float32), 0.002, 0.001) for v in (0.05, 0.8)
    )
    assert bright.std() > 2.5 * dim.std()
    assert abs(dim.mean() - 0.05) < 0.002 and abs(bright.mean() - 0.8) < 0.005


def test_mosaic_and_demosaic_keep_a_flat_colour() -> None:
    colour = np.array([0.2, 0.5, 0.7], np.float32)
    linear = np.broadcast_to(colour, (64, 64, 3)).astype(np.float32)
    for edge_aware in (False, True):
        back = photo_look.demosaic(photo_look.mosaic(linear), edge_aware).astype(np.float32) / photo_look.RAW_MAX
        assert np.abs(back.mean((0, 1)) - colour).max() < 0.01, edge_aware


def test_oversharpening_puts_halos_beside_an_edge() -> None:
    img = np.full((40, 40, 3), 60, np.uint8)
    img[:, 20:] = 180
    sharp = photo_look.oversharpen(cv2.GaussianBlur(img, (0, 0), 1.0), 1.5, 1.0)
    assert sharp[:, :20].min() < 55 and sharp[:, 20:].max() > 185


def test_tone_curve_and_white_balance() -> None:
    curve = photo_look.tone_curve(2.2, 0.2)
    assert curve[0] == 0 and curve[-1] == 255 and (np.diff(curve.astype(int)) >= 0).all()
    assert curve[photo_look.RAW_MAX // 5] > 255 // 5 + 40  # gamma lifts the darks
    grey = np.full((2, 2, 3), 0.5, np.float32)
    warm = photo_look.white_balance(grey, 1.0, 0.0)[0, 0]
    assert warm[2] > warm[1] > warm[0]


def test_jpeg_subsampling_blurs_colour_more_than_light() -> None:
    img = np.zeros((64, 64, 3), np.uint8)
    img[:, ::2] = (0, 0, 255)  # red and black columns one pixel wide
    full = photo_look.jpeg(img, 95, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444)
    halved = photo_look.jpeg(img, 95, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420)
    assert np.abs(halved.astype(int) - img).mean() > np.abs(full.astype(int) - img).mean() + 5


@pytest.mark.parametrize("kind", sorted(photo_look.BACKGROUNDS))
def test_the_new_tables_are_textured_and_not_black(kind: str) -> None:
    img = photo_look.BACKGROUNDS[kind](np.random.default_rng(8), 320, 180)
    assert img.shape == (180, 320, 3) and img.dtype == np.uint8
    assert img.mean() > 15 and img.std() > 3


def test_an_arm_on_the_table_is_skin_coloured_with_a_shadow() -> None:
    table = np.full((360, 640, 3), 128, np.uint8)
    photo_look.draw_arm(np.random.default_rng(9), table)
    grey = table.mean(2)
    changed = grey != 128
    assert 0.02 < changed.mean() < 0.6
    assert (grey < 120).any()  # the shadow (or the arm's darker side)
    skin = table[np.abs(table.astype(int) - 128).sum(2) > 40]
    assert len(skin) and (skin[:, 2].astype(int) >= skin[:, 0]).mean() > 0.9  # skin is redder than it is blue


def test_realistic_scenes_look_like_photographs_not_noise() -> None:
    scene = synth.make_scene(np.random.default_rng(12), synth.faces_deck(1), synth.SceneSpec(realism=1.0, n_cards=6))
    assert scene.image.shape == (720, 1280, 3) and len(scene.cards) == 6
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # pixel-to-pixel noise is small against the picture's own contrast
    assert np.abs(np.diff(grey, axis=1)).mean() < 0.25 * grey.std()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_printed_card_is_still_read_by_the_shipped_classifier(seed: int) -> None:
    """card_look at its full strength (every effect on) leaves the index readable: the shipped classifier names
    the card laid flat (``synth.flat_frame``), as it names the card without it."""
    from vision.recognizer import Recognizer

    rng = np.random.default_rng(seed)
    label = ["7H", "QS", "KD", "4C"][seed]
    card = synth.faces_deck(seed)(label)
    bgr = card[:, :, :3].astype(np.float32)
    bgr = photo_look.halftone(rng, bgr, 0.6)
    bgr = photo_look.misregister(rng, bgr, 1.0)
    bgr = photo_look.ink_spread(bgr, 0.5)
    bgr = photo_look.paper_fibre(rng, bgr, 0.04)
    bgr = photo_look.worn_edges(rng, bgr, card[:, :, 3], 1.0)
    bgr = photo_look.sheen(rng, bgr, 0.3)
    printed = photo_look.bend(rng, np.dstack([bgr, card[:, :, 3].astype(np.float32)]), 0.8)
    printed = np.clip(printed + 0.5, 0, 255).astype(np.uint8)
    assert np.abs(printed.astype(int) - card).mean() > 3  # the look did change the card
    frame, quad = synth.flat_frame(printed, 130)
    (read,) = Recognizer(threads=1).classify_quads(frame, [quad])
    assert read.card == label, (read.card, label)


def test_build_crops_takes_a_realism_and_refuses_one_outside_zero_to_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert parser().parse_args(["--scenes", "1", "--seed", "1", "--out", "x"]).realism == 0.0
    assert parser().parse_args(["--scenes", "1", "--seed", "1", "--out", "x", "--realism", "0.4"]).realism == 0.4
    with pytest.raises(SystemExit):
        parser().parse_args(["--scenes", "1", "--seed", "1", "--out", "x", "--realism", "2"])
    assert "from 0 to 1" in capsys.readouterr().err


def test_overlap_scenes_take_the_look_from_their_scene_spec() -> None:
    deck = synth.faces_deck(0)
    plain = make_overlap_scene(np.random.default_rng(3), deck)
    real = make_overlap_scene(np.random.default_rng(3), deck, OverlapSpec(look=synth.SceneSpec(realism=1.0)))
    assert _digest(real.image) != _digest(plain.image) and real.cards
