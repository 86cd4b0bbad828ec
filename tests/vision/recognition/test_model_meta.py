"""Model metadata is validated when the model is loaded: a mismatch is a clear ModelError."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from vision.errors import ModelError
from vision.events import BACK, N_LABELS
from vision.model_meta import load_meta
from vision.recognizer import DEFAULT_MODEL, LABELS, MODEL_LABELS, Recognizer, metadata_path

SHIPPED = json.loads(metadata_path(DEFAULT_MODEL).read_text())


def _model_with(tmp_path: Path, meta: Any) -> Path:
    model = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, model)
    text = meta if isinstance(meta, str) else json.dumps(meta)
    (tmp_path / "m.json").write_text(text)
    return model


def test_the_tracker_votes_over_the_recognisers_labels() -> None:
    """``vision.events.N_LABELS`` (the length of the tracker's vote vectors) is the recogniser's label count: the 52
    faces and the back, which comes last."""
    assert len(LABELS) == N_LABELS == 53 and LABELS[-1] == BACK and len(set(LABELS)) == N_LABELS


def test_shipped_metadata_is_valid_and_reports_held_out_accuracy() -> None:
    meta = load_meta(metadata_path(DEFAULT_MODEL), expected_labels=MODEL_LABELS)
    assert len(meta.held_out_designs) >= 6
    assert not set(meta.held_out_designs) & set(meta.training_designs)
    assert meta.accuracy["realistic"]["named"] > 0  # measured by models/training/evaluate.py
    assert DEFAULT_MODEL.stat().st_size < 3 * 1024 * 1024


def test_all_shipped_networks_together_take_at_most_five_megabytes() -> None:
    """A Pi's image carries every model: all of them together within 5 MB (the recognition issue's budget)."""
    networks = list(DEFAULT_MODEL.parent.glob("*.onnx"))
    assert len(networks) >= 7
    assert sum(p.stat().st_size for p in networks) <= 5 * 1000 * 1000


def _broken(**changes: Any) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads(json.dumps(SHIPPED))
    for key, value in changes.items():
        if value is None:
            meta.pop(key)
        else:
            meta[key] = value
    return meta


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (_broken(labels=None), "lacks 'labels'"),
        (_broken(labels=list(MODEL_LABELS[::-1])), "labels do not match"),
        (_broken(labels=["AC", "AC"]), "distinct"),
        (_broken(input_size={"height": 48, "width": 32}), "lacks 'channels'"),
        (_broken(input_size={"height": 40, "width": 32, "channels": 3}), "model reads 40x32 crops.*retrain"),
        (_broken(corner_crop=None), "lacks 'corner_crop'"),
        (_broken(corner_crop={"card_width_fraction": 0.32, "card_height_fraction": 0.4}), "of 0.32 x 0.4 .*retrain"),
        (_broken(corner_crop={"card_width_fraction": 0.9, "card_height_fraction": 0.4}), "bad corner_crop"),
        (_broken(normalisation={"method": "imagenet", "percentile": 98, "offset": 0.5}), "unknown normalisation"),
        (_broken(thresholds={"min_confidence": 2, "min_margin": 0.1, "not_a_card": 0.5}), "thresholds"),
        (
            _broken(
                thresholds={"min_confidence": 0.45, "min_margin": 0.1, "not_a_card": 0.5, "unknown_not_a_card": 0.6}
            ),
            "unknown_not_a_card at most not_a_card",
        ),
        (
            _broken(
                thresholds={"min_confidence": 0.45, "min_margin": 0.1, "not_a_card": 0.5, "unknown_not_a_card": "low"}
            ),
            "unknown_not_a_card",
        ),
        (_broken(held_out_designs=["gnome:anglo"], training_designs=["gnome:anglo"]), "both trained on and held out"),
        (_broken(accuracy=None), "lacks 'accuracy'"),
    ],
)
def test_bad_metadata_is_refused_with_a_clear_message(tmp_path: Path, meta: Any, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        Recognizer(_model_with(tmp_path, meta))


def test_missing_metadata_file(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, model)
    with pytest.raises(ModelError, match="cannot read model metadata"):
        Recognizer(model)


def test_corrupt_model_file(tmp_path: Path) -> None:
    model = _model_with(tmp_path, SHIPPED)
    model.write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match="cannot load ONNX model"):
        Recognizer(model)


def test_threads_must_be_positive() -> None:
    with pytest.raises(ValueError, match="threads"):
        Recognizer(threads=0)


def test_unknown_not_a_card_defaults_to_not_a_card_in_older_metadata(tmp_path: Path) -> None:
    older = _broken()
    del older["thresholds"]["unknown_not_a_card"]
    meta = Recognizer(_model_with(tmp_path, older)).meta
    assert meta.unknown_not_a_card == meta.not_a_card == 0.5


def test_a_retrained_models_thresholds_are_the_shipped_ones() -> None:
    """``train.base_meta`` (what a retrained model's metadata starts from) carries every threshold the shipped
    ``cardnet.json`` has, ``unknown_not_a_card`` included: without it a new model would drop outlines read
    ``unknown`` only at ``not_a_card`` again (phone screens beside the cards)."""
    from models.training.train import base_meta

    shipped = json.loads(metadata_path(DEFAULT_MODEL).read_text())["thresholds"]
    assert base_meta([], [])["thresholds"] == shipped
