"""The pip look (``vision.pip_look``): the whole card rectified, its normalisation, the model's metadata check,
and that the shipped pip model reads suits from the pips of designs it never saw."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from vision.errors import ModelError
from vision.pip_look import (
    DEFAULT_PIP_MODEL,
    PIP_H,
    PIP_W,
    RANKS,
    SUITS,
    PipLook,
    card_image,
    normalise,
    rank_of_face,
)

if TYPE_CHECKING:
    from models.training.synth import Deck


def test_the_card_image_is_the_card_upright_and_grey() -> None:
    """A card drawn dark on its top half in a frame: the image is PIP_H x PIP_W, dark above, pale below,
    whichever corner the outline starts at (``order_corners`` puts the card upright or upside down only)."""
    frame = np.full((300, 400, 3), 30, np.uint8)
    frame[60:160, 150:250] = 40  # top half of the card: dark print
    frame[160:260, 150:250] = 230  # bottom half: paper
    quad = np.array([[150, 60], [250, 60], [250, 260], [150, 260]], np.float32)
    for start in range(4):
        image = card_image(frame, np.roll(quad, start, axis=0))
        assert image.shape == (PIP_H, PIP_W) and image.dtype == np.uint8
        top, bottom = image[5 : PIP_H // 2 - 5].mean(), image[PIP_H // 2 + 5 : -5].mean()
        assert {round(float(top)), round(float(bottom))} == {40, 230}


def test_normalise_divides_by_the_paper_white_and_caps_glare() -> None:
    images = np.full((2, PIP_H, PIP_W), 200, np.uint8)
    images[0, :10] = 50  # ink
    images[1, :1] = 255  # a glare line, 1.5% of the card: the paper (98th percentile) stays the white
    out = normalise(images)
    assert out.dtype == np.float32 and out.shape == images.shape
    assert out[0, 20, 20] == pytest.approx(0.5) and out[0, 0, 0] == pytest.approx(50 / 200 - 0.5)
    assert out[1, 20, 20] == pytest.approx(0.5) and out[1, 0, 0] == pytest.approx(
        0.75
    )  # 255/200 = 1.275: capped at 1.25


def _copy_model(tmp_path: Path, meta_change: dict[str, object]) -> Path:
    path = tmp_path / "pipnet.onnx"
    shutil.copy(DEFAULT_PIP_MODEL, path)
    meta = json.loads(DEFAULT_PIP_MODEL.with_suffix(".json").read_text()) | meta_change
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize("change", [{"labels": ["S", "H", "D", "C"]}, {"input_size": {"height": 64, "width": 48}}])
def test_a_pip_model_made_for_other_labels_or_input_is_refused(tmp_path: Path, change: dict[str, object]) -> None:
    with pytest.raises(ModelError, match="expected labels"):
        PipLook(_copy_model(tmp_path, change))


def test_a_missing_or_broken_pip_model_says_which_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="metadata"):
        PipLook(tmp_path / "nothing.onnx")
    path = _copy_model(tmp_path, {})
    path.write_bytes(b"not an onnx file")
    with pytest.raises(ModelError, match="cannot load the pip model"):
        PipLook(path)


def test_no_outlines_no_run() -> None:
    suits, ranks = PipLook().read(np.zeros((50, 50, 3), np.uint8), [])
    assert suits.shape == (0, len(SUITS)) and ranks.shape == (0, len(RANKS))


def _reading(**probs: float) -> np.ndarray:
    from vision.recognizer import LABELS

    out = np.zeros(len(LABELS) + 1, np.float32)  # + "none"
    for label, p in probs.items():
        out[(*LABELS, "none").index(label.removeprefix("_"))] = p
    return out


def test_the_pip_look_weighs_an_unsure_cards_faces_by_suit_and_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    """PIP_LOOK_BELOW: an unsure card's faces are weighed by the pip model's suit and its rank (a court face by
    a third of the court class); the faces keep their total and "back" its share. Index model stubbed: 7C 0.35,
    7S 0.35, 8S 0.1, KS 0.1, back 0.1 (a tie: unknown); pip model stubbed: clubs 0.8, spades 0.2, rank 7 0.6,
    8 0.1, court 0.3. A card read sure (QH 0.99, over PIP_LOOK_BELOW) is not looked at."""
    from vision.recognizer import LABELS, Recognizer

    unsure = _reading(_7C=0.35, _7S=0.35, _8S=0.1, KS=0.1, back=0.1)
    sure = _reading(QH=0.99, QD=0.01)
    not_card = _reading(_7C=0.4, _7S=0.4, none=0.2)  # unknown, and "none" over unknown_not_a_card (0.15): dropped
    looked: list[int] = []

    def read(self: PipLook, frame: np.ndarray, quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        looked.append(len(quads))
        suits = np.tile(np.array([0.8, 0.0, 0.0, 0.2], np.float32), (len(quads), 1))
        ranks = np.zeros((len(quads), 11), np.float32)
        ranks[:, 6], ranks[:, 7], ranks[:, 10] = 0.6, 0.1, 0.3
        return suits, ranks

    monkeypatch.setattr(PipLook, "read", read)
    frame = np.full((300, 300, 3), 90, np.uint8)
    quads = [
        np.array([[20, 20], [120, 20], [120, 160], [20, 160]], np.float32),
        np.array([[150, 20], [250, 20], [250, 160], [150, 160]], np.float32),
        np.array([[20, 170], [120, 170], [120, 290], [20, 290]], np.float32),
    ]
    plain, looks = (Recognizer(threads=1, second_look=False, pip_look=look, learned=False) for look in (False, True))
    monkeypatch.setattr(
        Recognizer,
        "model_probabilities",
        lambda self, image, q, ordered=False: np.stack([unsure, sure, not_card][: len(q)]),
    )
    (p0, s0, n0), (p1, s1, n1) = plain.classify_quads(frame, quads), looks.classify_quads(frame, quads)
    assert looked == [1]  # neither the sure card nor the outline about to be dropped is read by the pip model
    assert (n0.card, n1.card) == ("unknown", "unknown")
    monkeypatch.setattr("vision.recognizer.detect_cards", lambda image, config, plane=None, ignore=(): quads)
    assert [r.card for r in looks.recognize(frame)] == ["7C", "QH"]  # and then dropped as before
    assert (p0.card, s0.card, s1.card) == ("unknown", "QH", "QH")
    assert np.array_equal(s0.probabilities, s1.probabilities)
    a, b = p0.probabilities, p1.probabilities
    i = {x: LABELS.index(x) for x in ("7C", "7S", "8S", "KS", "back")}
    assert b[i["7C"]] / b[i["7S"]] == pytest.approx(0.8 / 0.2, rel=1e-4)  # same rank, suits 0.8 : 0.2
    assert b[i["7S"]] / b[i["8S"]] == pytest.approx((a[i["7S"]] * 0.6) / (a[i["8S"]] * 0.1), rel=1e-4)
    assert b[i["7S"]] / b[i["KS"]] == pytest.approx((a[i["7S"]] * 0.6) / (a[i["KS"]] * 0.3 / 3), rel=1e-4)
    assert b[i["back"]] == pytest.approx(a[i["back"]], rel=1e-5)
    assert b[: i["back"]].sum() == pytest.approx(a[: i["back"]].sum(), rel=1e-5)
    assert p1.card == "7C"


SUIT_FLOOR, RANK_FLOOR = 232, 222  # of 240; the shipped pipnet: 240 and 233


def _motion_blurred(frame: np.ndarray, length: int) -> np.ndarray:
    import cv2

    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0 / length  # a horizontal line: the camera moving sideways
    out: np.ndarray = cv2.filter2D(frame, -1, kernel)
    return out


def test_the_shipped_pip_model_reads_held_out_number_cards_through_motion_blur(held_out_decks: dict[str, Deck]) -> None:
    """The floor the shipped pip model must meet (so that a worse one cannot land): every number card (A-10)
    of the six held-out designs laid flat 90 px wide, the frame motion-blurred 7 px, read through its true
    outline: suit and rank (of ``RANKS``), floors a little under the shipped model's counts."""
    from models.training.synth import flat_frame
    from vision.recognizer import LABELS

    pip = PipLook()
    suits_right = ranks_right = total = 0
    for name in sorted(held_out_decks):
        deck = held_out_decks[name]
        for label in LABELS[:52]:
            if label[0] in "JQK":
                continue
            frame, quad = flat_frame(deck(label), 90)
            suits, ranks = pip.read(_motion_blurred(frame, 7), [quad])
            suits_right += SUITS[int(suits[0].argmax())] == label[1]
            ranks_right += int(ranks[0].argmax()) == int(rank_of_face(np.array([LABELS.index(label)]))[0])
            total += 1
    assert total == 240
    assert suits_right >= SUIT_FLOOR and ranks_right >= RANK_FLOOR, (suits_right, ranks_right)


@pytest.mark.parametrize("below", [0.0, 1.2])
def test_a_pip_look_threshold_outside_zero_to_one_is_refused(below: float) -> None:
    from vision.errors import SettingError
    from vision.recognizer import Recognizer

    with pytest.raises(SettingError, match="pip_look_below"):
        Recognizer(threads=1, pip_look_below=below)


def test_rank_of_face_groups_the_court_ranks() -> None:
    from vision.recognizer import LABELS

    got = {LABELS[i]: RANKS[r] for i, r in enumerate(rank_of_face(np.arange(52)))}
    assert (got["AC"], got["7D"], got["TH"], got["JS"], got["QC"], got["KD"]) == (
        "A",
        "7",
        "T",
        "court",
        "court",
        "court",
    )


def test_the_pip_crops_are_every_face_up_card_through_the_detectors_outline() -> None:
    """``models.training.pip_look.build``: one image per face-up card of each scene (backs left out), labelled
    with its face; a scene dealt with no cards gives none."""
    from models.training.pip_look import build
    from models.training.synth import LABELS, faces_deck

    images, faces, stats = build({"faces:3": faces_deck(3)}, 4, seed=11, log_every=0)
    assert images.shape[1:] == (PIP_H, PIP_W) and images.dtype == np.uint8
    assert len(images) == len(faces) == stats["cards"] > 0
    assert 0 < stats["detected"] <= stats["cards"]
    assert faces.min() >= 0 and faces.max() < LABELS.index("back")


def test_the_pip_network_gives_suit_and_rank_logits() -> None:
    torch = pytest.importorskip("torch")
    from models.training.pip_look import build_net

    net = build_net().eval()
    with torch.no_grad():
        out = net(torch.zeros(2, 1, PIP_H, PIP_W))
    assert tuple(out.shape) == (2, len(SUITS) + len(RANKS))


def test_pip_metadata_that_is_not_an_object_or_names_another_normalisation_is_refused(tmp_path: Path) -> None:
    path = _copy_model(tmp_path, {"normalisation": "white-point"})
    with pytest.raises(ModelError, match="normalisation"):
        PipLook(path)
    path.with_suffix(".json").write_text("[1, 2]")
    with pytest.raises(ModelError, match="JSON object"):
        PipLook(path)


def test_the_pip_models_accuracy_record_counts_number_and_court_cards(held_out_decks: dict[str, Deck]) -> None:
    """``pip_look --accuracy``: on one realistic and one hard scene of each held-out design, every face-up card
    is counted once as a number or a court card, and the shipped model reads most number cards' suits right."""
    from models.training.evaluate import NORMAL, held_out_scenes
    from models.training.pip_look import accuracy
    from models.training.synth import HARD

    got = accuracy(DEFAULT_PIP_MODEL, scenes=1)
    for kind, spec, seed in (("realistic", NORMAL, 2024), ("hard", HARD, 2025)):
        faces = [
            label
            for _, scene in held_out_scenes(held_out_decks, spec, 1, seed)
            for label, _ in scene.cards
            if label != "back"
        ]
        record = got[kind]
        assert isinstance(record, dict)
        assert record["number_cards"] == sum(f[0] not in "JQK" for f in faces) > 0
        assert record["court_cards"] == sum(f[0] in "JQK" for f in faces)
        assert record["number_suit"] >= 0.9


def test_a_network_with_other_outputs_under_pip_metadata_is_refused(tmp_path: Path) -> None:
    """The index model (54 outputs) given the pip model's metadata: refused at load for its output width."""
    from vision.recognizer import DEFAULT_MODEL

    path = _copy_model(tmp_path, {})
    shutil.copy(DEFAULT_MODEL, path)
    with pytest.raises(ModelError, match="gives 54 outputs"):
        PipLook(path)
