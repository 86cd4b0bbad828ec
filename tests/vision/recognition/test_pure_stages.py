"""vision.classify: preprocess -> infer -> postprocess as pure functions, checked on saved crops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classify import decide, order_statistic, postprocess, preprocess, softmax
from vision.model_meta import ModelMeta, load_meta
from vision.recognizer import DEFAULT_MODEL, LABELS, MODEL_LABELS, Recognizer, metadata_path


@pytest.fixture(scope="module")
def meta() -> ModelMeta:
    return load_meta(metadata_path(DEFAULT_MODEL), expected_labels=MODEL_LABELS)


def test_preprocess_shape_and_white_point(meta: ModelMeta) -> None:
    crops = np.full((3, 2, meta.input_height, meta.input_width, 3), 200, np.uint8)
    crops[:, :, 10:20, 5:15] = (0, 0, 180)  # red ink
    x = preprocess(crops, meta)
    assert x.shape == (6, 3, meta.input_height, meta.input_width) and x.dtype == np.float32
    assert np.allclose(x[:, :, 0, 0], 1.0 - meta.offset)  # paper maps to white
    dim = preprocess((crops * 0.5).astype(np.uint8), meta)  # half the light: same input
    assert np.abs(dim - x).max() < 0.05
    assert x[0, 2, 15, 10] > x[0, 0, 15, 10] + 0.5  # red stays red (channel 2 is R in BGR)


def test_preprocess_of_one_corner_per_card_is_those_crops_of_the_pair(meta: ModelMeta) -> None:
    """The one-corner-first look (``Recognizer(one_corner_sure=...)``) preprocesses (N, 1) crops: each is
    normalised alone, so it is the same input as in the (N, 2) batch."""
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 256, (5, 2, meta.input_height, meta.input_width, 3), dtype=np.uint8)
    both = preprocess(crops, meta)
    assert np.array_equal(preprocess(crops[:, :1], meta), both[0::2])
    assert np.array_equal(preprocess(crops[[1, 3], 1:], meta), both[[3, 7]])


def test_order_statistic_is_the_partitions_kth_value() -> None:
    """preprocess's white point: the k-th smallest value of each row, counted (not partitioned), for any k and for
    rows of one value, of 0 and 255 only, and of random ones."""
    rng = np.random.default_rng(3)
    rows = np.concatenate(
        [rng.integers(0, 256, (6, 300)), np.full((1, 300), 255), np.zeros((1, 300)), rng.choice([0, 255], (2, 300))]
    ).astype(np.uint8)
    for k in (0, 1, 150, 293, 299):
        assert np.array_equal(order_statistic(rows, k), np.partition(rows, k, axis=1)[:, k]), k
    with pytest.raises(ValueError, match="order statistic 300"):
        order_statistic(rows, 300)


def test_softmax_of_single_crops_is_postprocess_of_a_crop_paired_with_itself() -> None:
    logits = np.random.default_rng(1).normal(size=(4, 54)).astype(np.float32) * 4
    assert np.allclose(softmax(logits), postprocess(np.repeat(logits, 2, axis=0)), rtol=1e-6)
    assert np.allclose(softmax(logits).sum(axis=1), 1.0)


def test_preprocess_refuses_wrong_shapes(meta: ModelMeta) -> None:
    with pytest.raises(ValueError, match="expected crops"):
        preprocess(np.zeros((2, 40, 32, 3), np.uint8), meta)


def test_postprocess_combines_the_two_corners() -> None:
    logits = np.zeros((4, 5), np.float32)
    logits[0, 1] = logits[1, 1] = 6.0  # card 0: both corners say 1
    logits[2, 3] = 8.0  # card 1: one corner sure of 3, the other unsure
    probs = postprocess(logits)
    assert probs.shape == (2, 5) and np.allclose(probs.sum(axis=1), 1)
    assert probs[0].argmax() == 1 and probs[0, 1] > 0.95
    assert probs[1].argmax() == 3 and probs[1, 3] < probs[0, 1]


def test_decide_says_unknown_when_unsure() -> None:
    labels = ("a", "b", "c")
    probs = np.array([[0.9, 0.05, 0.05], [0.5, 0.45, 0.05], [0.34, 0.33, 0.33]], np.float32)
    out = decide(probs, labels, min_confidence=0.6, min_margin=0.2)
    assert [x[0] for x in out] == ["a", "unknown", "unknown"]
    assert out[0][1] == pytest.approx(0.9)


def test_saved_crops_give_the_same_answer_as_the_recognizer(recognizer: Recognizer, tmp_path: Path) -> None:
    """The stages run on crops saved to disk give what the recogniser gives on the frame."""
    import cv2

    from vision.faces import render_face
    from vision.rectify import corner_crops

    frame = np.full((400, 400, 3), (40, 110, 30), np.uint8)
    card = render_face("KD", width=140, height=196)
    frame[100:296, 130:270] = card
    quad = np.array([[130, 100], [270, 100], [270, 296], [130, 296]], np.float32)
    crops = corner_crops(frame, quad)
    for k in (0, 1):
        cv2.imwrite(str(tmp_path / f"c{k}.png"), crops[k])
    read = [cv2.imread(str(tmp_path / f"c{k}.png")) for k in (0, 1)]
    assert read[0] is not None and read[1] is not None
    saved = np.stack([read[0], read[1]])[None]
    probs = postprocess(recognizer.classifier.infer(preprocess(saved, recognizer.meta)))
    assert MODEL_LABELS[int(probs[0].argmax())] == "KD"
    (rec,) = recognizer.classify_quads(frame, [quad])
    assert rec.card == "KD" and rec.probabilities.shape == (len(LABELS),)
