"""The whole recogniser (detect + rectify + the shipped ONNX model) on generated scenes and saved images.

Accuracy floors here are set below the measured figures (docs/performance.md) so that a clearly worse
model or detector cannot land; they are not the targets.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models.training.dataset import match
from models.training.synth import Deck, SceneSpec, faces_deck, flat_frame, paste_flat
from models.training.synth import make_pinned_scene as make_scene
from vision.errors import ImageError, SettingError
from vision.recognizer import (
    LABELS,
    ONE_CORNER_SURE,
    SECOND_LOOK_BELOW,
    SECOND_LOOK_SCALES,
    SECOND_LOOK_SHIFTS,
    SECOND_LOOK_ZOOMS,
    Recognition,
    Recognizer,
)

# ``make_scene`` here is ``make_pinned_scene``: these tests pin frames, by seed and index, as they were drawn with the
# clutter
# kept clear of the cards (with a band of bare table round cards on clutter)

DATA = Path(__file__).parent / "data"
needs_designs = pytest.mark.skipif(
    not Path("/usr/share/aisleriot/cards").is_dir() or shutil.which("rsvg-convert") is None,
    reason="gnome-cards-data / librsvg2-bin not installed (.ci/system-deps installs them)",
)


def _score(rec: Recognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray]]) -> tuple[int, int, int]:
    seen = rec.recognize(image)
    quads = [r.corners for r in seen]
    found = named = 0
    for label, quad in truth:
        q = match(quad, quads)
        if q is not None:
            found += 1
            named += next(r for r in seen if r.corners is q).card == label
    return found, named, len(seen) - found


def test_recognition_result_shape(recognizer: Recognizer) -> None:
    rng = np.random.default_rng(1)
    scene = make_scene(rng, faces_deck(0), SceneSpec(n_cards=5))
    seen = recognizer.recognize(scene.image)
    assert seen and all(isinstance(r, Recognition) for r in seen)
    for r in seen:
        assert r.card in LABELS or r.card == "unknown"
        assert r.corners.shape == (4, 2) and r.corners.dtype == np.float32
        assert r.probabilities.shape == (53,) and abs(float(r.probabilities.sum()) - 1) < 1e-4
        assert 0 <= r.confidence <= 1
        assert 0.5 < r.presence <= 1  # recognize drops outlines the model calls "none"


def test_own_drawn_cards_on_generated_tables(recognizer: Recognizer) -> None:
    rng = np.random.default_rng(21)
    cards = found = named = false = 0
    for i in range(8):
        scene = make_scene(rng, faces_deck(30 + i), SceneSpec(n_cards=10))  # styles not trained on
        f, n, x = _score(recognizer, scene.image, scene.cards)
        cards += len(scene.cards)
        found, named, false = found + f, named + n, false + x
    # measured: found 73/77 (model v4), 75/77 (v5, v6), 76/77 (v6 with the detectors since snapped sides
    # stay parallel), 76/77 (v9, detector round 5, and with passes and second look), 77/77 (v9,
    # code); named 73, 75, 76, 76, 76, 77; false 3, 2, 1, 1, 1, 0 (outlines of real cards off by
    # more than the 12% match)
    assert found >= 0.93 * cards, f"found {found}/{cards}"
    assert named >= 0.92 * cards, f"named {named}/{cards}"
    assert false <= 3


@needs_designs
def test_held_out_designs_in_table_scenes(recognizer: Recognizer, held_out_decks: dict[str, Deck]) -> None:
    """Designs the model never saw, in realistic scenes."""
    cards = named = 0
    for k, (_, deck) in enumerate(sorted(held_out_decks.items())):
        rng = np.random.default_rng([77, k])
        for _ in range(2):
            scene = make_scene(rng, deck, SceneSpec(n_cards=10, card_width=(100.0, 200.0)))
            _, n, _ = _score(recognizer, scene.image, scene.cards)
            cards += len(scene.cards)
            named += n
    assert named >= 0.93 * cards, f"named {named}/{cards}"


@needs_designs
def test_shipped_model_floor_on_fixed_held_out_renders(recognizer: Recognizer, held_out_decks: dict[str, Deck]) -> None:
    """Every label of every held-out design, laid flat on a plain table at a known outline: the model
    alone (no detection) must name at least the floor. A worse model cannot land."""
    labels = ["AC", "7D", "TH", "QS", "KD", "JC", "2H", "9S", "5C", "3D", "8H", "6S", "back"]
    right = total = 0
    for _, deck in sorted(held_out_decks.items()):
        for chunk in (labels[:7], labels[7:]):
            frame = np.full((400, 1280, 3), (40, 100, 35), np.uint8)
            quads = []
            for j, label in enumerate(chunk):
                img = cv2.resize(deck(label), (140, 196), interpolation=cv2.INTER_AREA)
                x, y = 20 + j * 175, 100
                a = img[:, :, 3:4].astype(np.float32) / 255
                roi = frame[y : y + 196, x : x + 140]
                roi[:] = (img[:, :, :3] * a + roi * (1 - a)).astype(np.uint8)
                quads.append(np.array([[x, y], [x + 140, y], [x + 140, y + 196], [x, y + 196]], np.float32))
            res = recognizer.classify_quads(frame, quads)
            right += sum(r.card == lab for r, lab in zip(res, chunk, strict=True))
            total += len(chunk)
    assert right >= 0.94 * total, (
        f"{right}/{total} held-out renders named"
    )  # measured 78/78 (v9 with the second look; v9 alone 77, v6 76, v4 and v5 75)


def _flat_cards(deck: Deck, chunk: list[str], inset: float) -> tuple[np.ndarray, list[np.ndarray]]:
    """Cards 100 x 140 px flat on felt in a row (``synth.paste_flat``, as ``flat_frame`` lays one card), with
    outlines shrunk about their centres by ``inset`` (an outline on a printed frame line instead of the card's
    edge)."""
    frame = np.full((400, 1280, 3), (40, 100, 35), np.uint8)
    quads = []
    for j, label in enumerate(chunk):
        x, y = 30 + j * 175, 120
        paste_flat(frame, deck(label), x, y, 100, 140)
        # half a pixel right of and below the card's edges (flat_frame's outline is exact): the counts the
        # tests below quote were measured through these outlines
        q = np.array([[x, y], [x + 100, y], [x + 100, y + 140], [x, y + 140]], np.float32)
        quads.append((q - q.mean(axis=0)) * inset + q.mean(axis=0))
    return cv2.GaussianBlur(frame, (3, 3), 0), quads


@needs_designs
def test_a_second_look_names_unsure_cards_whose_outline_is_off(held_out_decks: dict[str, Deck]) -> None:
    """Recognizer.SECOND_LOOK_SCALES: held-out designs read through outlines 10% inside the card. Without
    the second look 64 of 78 are named, 12 unknown, 2 wrong (measured, model v9); with its rescaled
    outlines 68, 8, 2 (69 named, 2 wrong, with the zoomed crops of SECOND_LOOK_ZOOMS too). The suit look
    (SUIT_LOOK_SHIFT, tested on its own below) is left out here: on
    these outlines its crops cover 0.12-0.36 of the card's height, two kings' court art (bellot's and
    neoclassical's KD go from named to unknown; 66 named)."""
    labels = ["AC", "7D", "TH", "QS", "KD", "JC", "2H", "9S", "5C", "3D", "8H", "6S", "back"]
    tallies = []
    for second_look in (False, True):
        rec = Recognizer(threads=1, pip_look=False, second_look=second_look, suit_look=False)
        right = wrong = 0
        for _, deck in sorted(held_out_decks.items()):
            for chunk in (labels[:7], labels[7:]):
                frame, quads = _flat_cards(deck, chunk, 0.9)
                res = rec.classify_quads(frame, quads)
                right += sum(r.card == lab for r, lab in zip(res, chunk, strict=True))
                wrong += sum(r.card not in (lab, "unknown") for r, lab in zip(res, chunk, strict=True))
        tallies.append((right, wrong))
    (before, wrong_before), (after, wrong_after) = tallies
    assert after >= before + 3 and wrong_after <= wrong_before, tallies


@needs_designs
def test_the_second_look_also_reads_through_moved_outlines(
    held_out_decks: dict[str, Deck],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recognizer.SECOND_LOOK_SHIFTS: held-out designs read through outlines moved 7% of the card's width
    down and to the right (an outline a few pixels off the card, the same way at both index corners). With
    the moved outlines the second look names more of them than with its rescaled ones alone (measured: 70
    against 65 of 78, model v9; with the zoomed crops and the shipped model 71 against 68, none wrong), none
    more wrong."""
    import vision.recognizer as recognizer_module

    labels = ["AC", "7D", "TH", "QS", "KD", "JC", "2H", "9S", "5C", "3D", "8H", "6S", "back"]
    rec = Recognizer(threads=1, pip_look=False)
    tallies = []
    for shifts in ((), SECOND_LOOK_SHIFTS):
        monkeypatch.setattr(recognizer_module, "SECOND_LOOK_SHIFTS", shifts)
        right = wrong = 0
        for _, deck in sorted(held_out_decks.items()):
            for chunk in (labels[:7], labels[7:]):
                frame, quads = _flat_cards(deck, chunk, 1.0)
                res = rec.classify_quads(frame, [q + np.array([7.0, 9.8], np.float32) for q in quads])
                right += sum(r.card == lab for r, lab in zip(res, chunk, strict=True))
                wrong += sum(r.card not in (lab, "unknown") for r, lab in zip(res, chunk, strict=True))
        tallies.append((right, wrong))
    (before, wrong_before), (after, wrong_after) = tallies
    assert after > before and wrong_after <= wrong_before, tallies


@needs_designs
def test_a_guess_among_named_cards_gets_the_second_look(held_out_decks: dict[str, Deck]) -> None:
    """Recognizer.SECOND_LOOK_BELOW: in the model card's realistic scene 4 of gnome:bellot (evaluate, seed
    2024) a 6D is read 5D at 0.48 through its detected outline (6D at 0.92 through the true one). Named
    cards under 0.55 get the second look: it is no longer a wrong 5D (unknown: the referee asks). (With the
    detector's plane estimated from the cards, the deck fit outlines it better and it is named 6D at once:
    the second look is tested on the outline without that.)"""
    from dataclasses import replace

    from models.training.evaluate import NORMAL
    from vision.detect import DEFAULT_CONFIG

    rng = np.random.default_rng([2024, sorted(held_out_decks).index("gnome:bellot")])
    for _ in range(5):
        scene = make_scene(rng, held_out_decks["gnome:bellot"], NORMAL)
    truth = next(q for label, q in scene.cards if label == "6D")
    readings = []
    for below in (0.0, SECOND_LOOK_BELOW):
        seen = Recognizer(
            threads=1,
            pip_look=False,
            second_look_below=below,
            learned=False,
            detector=replace(DEFAULT_CONFIG, estimate_plane=False),
        ).recognize(scene.image)
        quad = match(truth, [r.corners for r in seen])
        readings.append(next(r.card for r in seen if r.corners is quad))
    assert readings[0] == "5D" and readings[1] in ("6D", "unknown"), readings
    seen = Recognizer(threads=1, pip_look=False, second_look_below=0.0).recognize(scene.image)
    assert next(r.card for r in seen if r.corners is match(truth, [r.corners for r in seen])) == "6D"


@needs_designs
@pytest.mark.parametrize(
    ("design", "seed", "index", "label", "calibrated", "at_055"),
    [
        ("gnome:bellot", 11, 8, "QC", False, "JC"),  # read JC at 0.64: wrong
        ("gnome:plastic", 31, 5, "JC", True, "unknown"),  # JC at 0.553, then the pip look's clubs-or-spades
    ],
)
def test_guesses_up_to_0_7_get_the_second_look(
    held_out_decks: dict[str, Deck],
    design: str,
    seed: int,
    index: int,
    label: str,
    calibrated: bool,
    at_055: str,
) -> None:
    """SECOND_LOOK_BELOW (0.7): the two realistic held-out cards found and not named at 0.55
    (evaluate --scenes 20 --seed 11 / --seed 31 --calibrated; scene ``index`` of ``design``) are named
    through the second look. One detection (``replan`` off), as then: the second detection on the estimated
    plane outlines the bellot QC so that it is named at 0.55 too."""
    from dataclasses import replace

    from models.training.evaluate import NORMAL
    from vision.detect import DEFAULT_CONFIG

    rng = np.random.default_rng([seed, sorted(held_out_decks).index(design)])
    for _ in range(index + 1):
        scene = make_scene(rng, held_out_decks[design], NORMAL)
    truth = next(q for lab, q in scene.cards if lab == label)
    readings = []
    for below in (0.55, SECOND_LOOK_BELOW):
        seen = Recognizer(
            threads=1, second_look_below=below, detector=replace(DEFAULT_CONFIG, replan=False), learned=False
        ).recognize(scene.image, plane=scene.plane if calibrated else None)
        quad = match(truth, [r.corners for r in seen])
        readings.append(next(r.card for r in seen if r.corners is quad))
    assert readings == [at_055, label]


def test_the_second_look_costs_nothing_when_the_model_is_sure(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Own-drawn cards at their true outlines are named at once: one model run over their first index
    corners, and a second over the second corners of those not sure at the first (ONE_CORNER_SURE), no
    more. The same cards through outlines 25% too small are all unsure: one more run, over 4 rescaled
    outlines, 8 moved ones, the zoomed crops and one suit look each (two crops apiece)."""
    frame, quads = _flat_cards(faces_deck(0), ["AC", "7D", "TH", "QS", "KD", "2H"], 1.0)
    runs: list[int] = []
    real = recognizer.classifier.infer

    def counting(batch: np.ndarray) -> np.ndarray:
        runs.append(len(batch))
        return real(batch)

    monkeypatch.setattr(recognizer.classifier, "infer", counting)
    assert [r.card for r in recognizer.classify_quads(frame, quads)] == ["AC", "7D", "TH", "QS", "KD", "2H"]
    assert runs[0] == 6 and len(runs) <= 2 and sum(runs) < 12  # most own-drawn cards are sure at one corner
    small = [(q - q.mean(axis=0)) * 0.75 + q.mean(axis=0) for q in quads]
    first = Recognizer(threads=1, second_look=False, pip_look=False).classify_quads(frame, small)
    unsure = sum(r.card == "unknown" or r.confidence < SECOND_LOOK_BELOW for r in first)
    assert unsure >= 1
    runs.clear()
    recognizer.classify_quads(frame, small)
    assert runs[0] == 6 and len(runs) in (2, 3)
    assert runs[-1] == 2 * (len(SECOND_LOOK_SCALES) + 4 * len(SECOND_LOOK_SHIFTS) + len(SECOND_LOOK_ZOOMS) + 1) * unsure


def _marked_crops(
    frame: np.ndarray, quads: Sequence[np.ndarray], *, corners: tuple[int, ...] = (0, 1), **_: object
) -> np.ndarray:
    """Stub of ``Recognizer._crops``: white crops whose first pixel is 10 * card + corner + 1 (through
    ``preprocess``'s white point it stays readable), so a stubbed network knows which card's corner it reads; a
    card is told by its outline's left edge (20 px a card)."""
    crops = np.full((len(quads), len(corners), 48, 32, 3), 255, np.uint8)
    for i, quad in enumerate(quads):
        card = round(float(quad[0, 0]) / 20)
        crops[i, :, 0, 0, :] = np.array([10 * card + k + 1 for k in corners])[:, None]
    return crops


def test_a_card_sure_at_its_first_corner_is_not_read_at_its_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """ONE_CORNER_SURE: the first corners of all cards in one run; only the cards whose first corner's top
    output is under it get their second corner read (a second run), and those are named from both corners
    exactly as without the rule; a sure card from its first corner alone ("none" counts as an output)."""
    qc, qs, none = LABELS.index("QC"), LABELS.index("QS"), len(LABELS)
    logits = {  # (card, corner) -> the stubbed network's reading
        (0, 1): (qc, 8.0),
        (0, 2): (qs, 8.0),  # sure QC at its first corner (its second would disagree)
        (1, 1): (qs, 1.0),
        (1, 2): (qs, 3.0),  # unsure QS at the first, sure at the second
        (2, 1): (none, 8.0),
        (2, 2): (qc, 8.0),  # sure "not a card" at its first corner
    }
    runs: list[list[tuple[int, int]]] = []

    def infer(batch: np.ndarray) -> np.ndarray:
        marks = [divmod(round(float((row[0, 0, 0] + offset) * 255)), 10) for row in batch]
        runs.append(marks)
        out = np.zeros((len(batch), len(LABELS) + 1), np.float32)
        for row, mark in zip(out, marks, strict=True):
            label, value = logits[mark]
            row[label] = value
        return out

    cut: list[tuple[int, tuple[int, ...]]] = []  # (outlines, corners) of each call that cuts crops

    def recording(frame: np.ndarray, quads: Sequence[np.ndarray], **kw: Any) -> np.ndarray:
        cut.append((len(quads), kw.get("corners", (0, 1))))
        return _marked_crops(frame, quads, **kw)

    monkeypatch.setattr(Recognizer, "_crops", staticmethod(recording))
    quads = [
        np.array([[0, 0], [10, 0], [10, 14], [0, 14]], np.float32) + np.array([20 * i, 0], np.float32) for i in range(3)
    ]
    frame = np.zeros((40, 80, 3), np.uint8)
    cascade, both = Recognizer(threads=1), Recognizer(threads=1, one_corner_sure=None)
    offset = cascade.meta.offset
    for rec in (cascade, both):
        monkeypatch.setattr(rec.classifier, "infer", infer)
    p = cascade.model_probabilities(frame, quads)
    assert runs == [[(0, 1), (1, 1), (2, 1)], [(1, 2)]]
    assert cut == [(3, (0,)), (1, (1,))]  # the second corner is cut only for the unsure card
    runs.clear()
    reference = both.model_probabilities(frame, quads)
    assert runs == [[(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]]
    assert np.allclose(p[1], reference[1], rtol=1e-6)  # the unsure card: both corners, as before
    assert p[0].argmax() == qc and p[0, qc] == pytest.approx(np.exp(8) / (np.exp(8) + len(LABELS)), rel=1e-5)
    assert reference[0, qc] == pytest.approx(reference[0, qs])  # both corners would have tied it
    assert p[2].argmax() == none and p[2, none] >= ONE_CORNER_SURE


def test_an_outline_read_unknown_is_dropped_at_a_lower_not_a_card_probability(monkeypatch: pytest.MonkeyPatch) -> None:
    """The metadata's ``unknown_not_a_card`` (0.15) and ``not_a_card`` (0.5): ``recognize`` drops an outline whose
    "none" output reaches the first when it is read ``unknown`` (a phone's screen beside the cards), and the
    second whatever it is read; ``classify_quads`` (true outlines) keeps every outline, reading such ones
    ``unknown``. Without ``unknown_not_a_card`` in the metadata both are ``not_a_card``."""
    import dataclasses

    import vision.recognizer as recognizer

    qh, none = LABELS.index("QH"), len(LABELS)
    rows = np.zeros((4, len(LABELS) + 1))
    rows[:, :none] = 0.7 / len(LABELS)  # spread: read "unknown" ...
    rows[0, qh] = rows[3, qh] = 0.65  # ... but for outlines 0 and 3, read QH
    rows[:, none] = (0.3, 0.3, 0.1, 0.6)
    quads = [np.array([[x, 0], [x + 10, 0], [x + 10, 14], [x, 14]], np.float32) for x in (0, 12, 24, 36)]
    monkeypatch.setattr(recognizer, "detect_cards", lambda frame, config, plane=None, ignore=(): quads)
    frame = np.zeros((40, 60, 3), np.uint8)
    rec = Recognizer(threads=1, pip_look=False, second_look=False, learned=False)
    monkeypatch.setattr(rec, "model_probabilities", lambda image, quads, ordered=False: rows.copy())
    assert (rec.meta.unknown_not_a_card, rec.meta.not_a_card) == (0.15, 0.5)
    kept = rec.recognize(frame)
    assert [(r.card, round(r.presence, 2)) for r in kept] == [("QH", 0.7), ("unknown", 0.9)]
    assert [r.card for r in rec.classify_quads(frame, quads)] == ["QH", "unknown", "unknown", "unknown"]
    # another detector's outlines are judged as recognize judges its own
    assert [(r.card, round(r.presence, 2)) for r in rec.recognize_outlines(frame, quads)] == [
        ("QH", 0.7),
        ("unknown", 0.9),
    ]
    rec.meta = dataclasses.replace(rec.meta, unknown_not_a_card=rec.meta.not_a_card)  # older metadata
    assert [r.card for r in rec.recognize(frame)] == ["QH", "unknown", "unknown"]


@pytest.mark.parametrize("sure", [0.5, 1.2, -1.0])
def test_a_one_corner_threshold_outside_half_to_one_is_refused(sure: float) -> None:
    with pytest.raises(SettingError, match="one_corner_sure"):
        Recognizer(threads=1, one_corner_sure=sure)


def test_the_suit_look_moves_an_unsure_card_between_suits_only(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SUIT_LOOK_SHIFT: the moved crops' suits weigh the faces; the faces keep their total and "back" its
    share. Model readings stubbed: every crop reads QC 0.3, QS 0.3, 2S 0.1, back 0.3, except the moved
    crops of the suit look, which read 8C 0.6, 8S 0.2, 5H 0.2."""
    reading = np.zeros(len(LABELS) + 1, np.float32)
    for label, p in (("QC", 0.3), ("QS", 0.3), ("2S", 0.1), ("back", 0.3)):
        reading[LABELS.index(label)] = p
    moved = np.zeros_like(reading)
    for label, p in (("8C", 0.6), ("8S", 0.2), ("5H", 0.2)):
        moved[LABELS.index(label)] = p
    batches: list[int] = []
    looks = len(SECOND_LOOK_SCALES) + 4 * len(SECOND_LOOK_SHIFTS)  # no zoomed crops: the suit look alone

    def infer(self: Recognizer, crops: np.ndarray) -> np.ndarray:
        batches.append(len(crops))
        out = np.tile(reading, (len(crops), 1))
        if len(crops) == looks + 1:  # one unsure card's second look: rescaled and moved readings, then its suit look
            out[looks] = moved
        return out

    monkeypatch.setattr(Recognizer, "_infer", infer)
    frame = np.full((300, 300, 3), 90, np.uint8)
    quad = np.array([[100, 80], [200, 80], [200, 220], [100, 220]], np.float32)
    (plain,) = Recognizer(
        threads=1, pip_look=False, suit_look=False, second_look_zooms=(), one_corner_sure=None
    ).classify_quads(frame, [quad])
    batches.clear()
    (looked,) = Recognizer(threads=1, pip_look=False, second_look_zooms=(), one_corner_sure=None).classify_quads(
        frame, [quad]
    )
    assert batches == [1, looks + 1]
    p0, p1 = plain.probabilities, looked.probabilities
    qc, qs, two_s, back = (LABELS.index(x) for x in ("QC", "QS", "2S", "back"))
    assert p0[qc] == pytest.approx(p0[qs])  # without the look a tie: unknown
    assert plain.card == "unknown"
    assert p1[qc] / p1[qs] == pytest.approx(0.6 / 0.2, rel=1e-4)  # clubs 0.6 against spades 0.2
    assert p1[qs] / p1[two_s] == pytest.approx(p0[qs] / p0[two_s], rel=1e-4)  # within a suit, unchanged
    assert p1[back] == pytest.approx(p0[back], rel=1e-5)
    assert p1[:back].sum() == pytest.approx(p0[:back].sum(), rel=1e-5)
    assert looked.card == "QC"


@pytest.mark.parametrize("zooms", [(1.15, 1.3), (1.1, 1.2, 1.3)])
def test_zoomed_readings_join_the_second_looks_mean(monkeypatch: pytest.MonkeyPatch, zooms: tuple[float, ...]) -> None:
    """Recognizer's ``second_look_zooms``: each zoomed reading is one more member of the geometric mean, beside
    the first look, the rescaled outlines' readings and the surest moved one, and its faces summed by suit
    weigh the mean's faces as the suit look's do. Model readings stubbed: every crop reads QC 0.45, QS 0.45,
    back 0.1, except the zoomed ones, which read QC 0.8, QS 0.1, back 0.1 (clubs 0.8, spades 0.1); so QC over
    QS is 8 to the power of the zoomed readings' share of the members, times 8 for each zoomed reading's
    suits, "back" keeps its share, and the tie becomes QC."""
    reading = np.zeros(len(LABELS) + 1, np.float32)
    zoomed = np.zeros_like(reading)
    qc, qs, back = (LABELS.index(x) for x in ("QC", "QS", "back"))
    reading[[qc, qs, back]] = 0.45, 0.45, 0.1
    zoomed[[qc, qs, back]] = 0.8, 0.1, 0.1
    looks = len(SECOND_LOOK_SCALES) + 4 * len(SECOND_LOOK_SHIFTS)
    batches: list[int] = []

    def infer(self: Recognizer, crops: np.ndarray) -> np.ndarray:
        out = np.tile(reading, (len(crops), 1))
        if len(crops) > 1:  # the second look of one card: its zoomed readings (if any) after the outlines'
            out[looks:] = zoomed
            batches.append(len(crops))
        return out

    monkeypatch.setattr(Recognizer, "_infer", infer)
    frame = np.full((300, 300, 3), 90, np.uint8)
    quad = np.array([[100, 80], [200, 80], [200, 220], [100, 220]], np.float32)
    (read,) = Recognizer(
        threads=1, pip_look=False, suit_look=False, second_look_zooms=zooms, one_corner_sure=None
    ).classify_quads(frame, [quad])
    members = 1 + len(SECOND_LOOK_SCALES) + 1 + len(zooms)
    p = read.probabilities
    assert p[qc] / p[qs] == pytest.approx(8.0 ** (len(zooms) / members) * 8.0 ** len(zooms), rel=1e-4)
    mean_back = 0.1 ** (1 - len(zooms) / members) * 0.1 ** (len(zooms) / members)  # 0.1: every reading's back
    mean_faces = 0.45 ** (1 - len(zooms) / members) * 0.8 ** (len(zooms) / members) + 0.45 ** (
        1 - len(zooms) / members
    ) * 0.1 ** (len(zooms) / members)
    assert p[back] == pytest.approx(mean_back / (mean_back + mean_faces), rel=1e-4)
    assert read.card == "QC"
    (plain,) = Recognizer(
        threads=1, pip_look=False, suit_look=False, second_look_zooms=(), one_corner_sure=None
    ).classify_quads(frame, [quad])
    assert plain.card == "unknown" and plain.probabilities[qc] == pytest.approx(plain.probabilities[qs])
    assert batches == [looks + len(zooms), looks]


@pytest.mark.parametrize("zooms", [(0.9,), (1.2, 2.5)])
def test_zooms_that_would_cut_outside_the_index_corner_are_refused(zooms: tuple[float, ...]) -> None:
    with pytest.raises(SettingError, match="second_look_zooms"):
        Recognizer(threads=1, second_look_zooms=zooms)


@needs_designs
@pytest.mark.parametrize(("seed", "index"), [(99, 7), (99, 8), (99, 16), (2024, 4), (2024, 6)])
def test_the_suit_look_names_a_jumbo_index_queen_of_clubs(
    held_out_decks: dict[str, Deck],
    seed: int,
    index: int,
) -> None:
    """SUIT_LOOK_SHIFT: gnome:plastic's QC (a jumbo index whose club the crop cuts at its top lobe) in
    realistic scenes of the model card (seed 2024) and of bench_recognition (seed 99), read through its
    true outline: unknown without the suit look (QC and QS about even), QC with it. A scene may deal from
    two or three packs: one more QC named in each, none read as another card."""
    from models.training.evaluate import NORMAL

    rng = np.random.default_rng([seed, sorted(held_out_decks).index("gnome:plastic")])
    for _ in range(index + 1):
        scene = make_scene(rng, held_out_decks["gnome:plastic"], NORMAL)
    truths = [q for label, q in scene.cards if label == "QC"]  # a scene may deal from two packs
    # the zoomed crops (tested on their own below) name some of these queens already: the suit look alone here
    without, with_look = (
        [
            r.card
            for r in Recognizer(threads=1, pip_look=False, suit_look=look, second_look_zooms=()).classify_quads(
                scene.image, truths
            )
        ]
        for look in (False, True)
    )
    assert with_look.count("QC") > without.count("QC"), (without, with_look)
    assert set(without + with_look) <= {"QC", "unknown"}, (without, with_look)


@needs_designs
@pytest.mark.parametrize("width", [80, 100, 130])
def test_zoomed_crops_name_the_jumbo_index_queen_of_clubs_laid_flat(
    held_out_decks: dict[str, Deck],
    width: int,
) -> None:
    """SECOND_LOOK_ZOOMS: gnome:plastic's QC laid flat and square on felt, read through its true outline
    (benchmarks/read_flat_card.py): without the zoomed crops the second look leaves it unknown (QS 0.40 / QC
    0.35 at 80 px, QC 0.40-0.45 / QS 0.36-0.41 at 100-130 px; measured), with them it is QC (0.74-0.80)."""
    frame, quad = flat_frame(held_out_decks["gnome:plastic"]("QC"), width)
    (without,) = Recognizer(threads=1, pip_look=False, second_look_zooms=()).classify_quads(frame, [quad])
    (zoomed,) = Recognizer(threads=1, pip_look=False).classify_quads(frame, [quad])
    assert (without.card, zoomed.card) == ("unknown", "QC"), (without.card, zoomed.card)


def test_no_false_cards_on_clutter_only_tables(recognizer: Recognizer) -> None:
    rng = np.random.default_rng(31)
    false = 0
    for _ in range(20):
        scene = make_scene(rng, None, SceneSpec(n_cards=0, clutter=int(rng.integers(2, 6))))
        false += len(recognizer.recognize(scene.image))
    assert false <= 1, f"{false} false cards in 20 clutter-only frames"  # measured 0


def test_saved_images(recognizer: Recognizer) -> None:
    """JPEG files written once by tests/vision/recognition/data/make_data.py (our own drawings)."""
    truth = json.loads((DATA / "truth.json").read_text())
    for name, cards in truth.items():
        image = cv2.imread(str(DATA / name))
        assert image is not None, name
        quads = [(c["card"], np.array(c["corners"], np.float32)) for c in cards]
        found, named, false = _score(recognizer, image, quads)
        named_floor = 0.6 * len(quads) if name == "hard.jpg" else len(quads) - 1
        assert found >= len(quads) - 1 and named >= named_floor and false <= 1, (name, found, named, false)


def test_upside_down_and_sideways_are_the_same_card(recognizer: Recognizer) -> None:
    from vision.faces import render_face

    card = render_face("8C", width=150, height=210, style=3)
    names = set()
    for rot in (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE):
        img = card if rot is None else cv2.rotate(card, rot)
        frame = np.full((500, 500, 3), (120, 60, 20), np.uint8)
        h, w = img.shape[:2]
        frame[100 : 100 + h, 100 : 100 + w] = img
        (r,) = recognizer.recognize(frame)
        names.add(r.card)
    assert names == {"8C"}


@pytest.mark.parametrize(
    "bad",
    [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8), np.zeros((100, 100, 3), np.float32), "frame.png"],
)
def test_bad_frames_are_image_errors(recognizer: Recognizer, bad: Any) -> None:
    """Any value that is no BGR uint8 frame (``bad`` is typed ``Any`` so that one that is no array reaches it)."""
    with pytest.raises(ImageError):
        recognizer.recognize(bad)


def test_classify_quads_keeps_order_and_count(recognizer: Recognizer) -> None:
    rng = np.random.default_rng(8)
    scene = make_scene(rng, faces_deck(0), SceneSpec(n_cards=6, clutter=0))
    quads = [q for _, q in scene.cards] + [np.array([[5, 5], [60, 5], [60, 90], [5, 90]], np.float32)]
    res = recognizer.classify_quads(scene.image, quads)
    assert len(res) == len(quads)
    assert res[-1].card == "unknown"  # bare table: not a card
    assert res[-1].presence < 0.5 and min(r.presence for r in res[:-1]) > 0.9
    assert recognizer.classify_quads(scene.image, []) == []
    kept = recognizer.recognize_outlines(scene.image, quads)  # the bare table's outline dropped, the cards kept
    assert [r.card for r in kept] == [r.card for r in res[:-1]]


def test_recognizer_limits_blas_to_its_threads() -> None:
    """OpenBLAS's workers spin on another core between numpy's tiny products: the recogniser's thread count
    holds for BLAS too ."""
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits(limits=2, user_api="blas"):
        Recognizer(threads=1)
        blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and set(blas) == {1}


@pytest.mark.parametrize("below", [-0.1, 1.5, float("nan")])
def test_a_second_look_threshold_outside_0_to_1_is_refused(below: float) -> None:
    with pytest.raises(SettingError, match="second_look_below"):
        Recognizer(threads=1, second_look_below=below)
