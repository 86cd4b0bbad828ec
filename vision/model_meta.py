"""Model metadata (``models/<name>.json``) beside the ONNX file, validated when loaded.

A model without its metadata, or with metadata that does not match the pipeline (other labels, another
input size, unknown normalisation), is refused with a ModelError that says what is wrong: a silent
mismatch would mislabel every card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.errors import ModelError

NORMALISATIONS = ("white-point",)


@dataclass(frozen=True)
class ModelMeta:
    labels: tuple[str, ...]
    input_height: int
    input_width: int
    channels: int
    normalisation: str  # "white-point": each crop channel / its percentile, minus offset
    percentile: float
    offset: float
    min_confidence: float
    min_margin: float
    not_a_card: float  # drop a detected outline when the "none" output is at least this probable
    # ... or at least this probable when the outline is read "unknown" (absent in the metadata: not_a_card)
    unknown_not_a_card: float
    crop_fraction: tuple[float, float]  # (width, height) of the card each index crop covers
    training_designs: tuple[str, ...]
    held_out_designs: tuple[str, ...]
    accuracy: dict[str, Any]


def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: Path) -> Any:
    if key not in data:
        raise ModelError(f"{where}: metadata lacks {key!r}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ModelError(f"{where}: {key!r} should be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def parse_meta(
    data: Any,
    where: Path,
    *,
    expected_labels: tuple[str, ...] | None = None,
    expected_crop: tuple[int, int, float, float] | None = None,
) -> ModelMeta:
    """Validate ``data``. ``expected_crop``: (height, width, width fraction, height fraction) of the index
    crops the pipeline cuts; a model trained on other crops would read every card wrong, so it is refused."""
    if not isinstance(data, dict):
        raise ModelError(f"{where}: metadata must be a JSON object")
    labels = _need(data, "labels", list, where)
    if not labels or not all(isinstance(x, str) for x in labels) or len(set(labels)) != len(labels):
        raise ModelError(f"{where}: 'labels' must be distinct strings")
    if expected_labels is not None and tuple(labels) != expected_labels:
        raise ModelError(
            f"{where}: labels do not match the recogniser's ({len(labels)} given, "
            f"{len(expected_labels)} expected: AC..KC, AD..KD, AH..KH, AS..KS, back, none)"
        )
    size = _need(data, "input_size", dict, where)
    h, w, c = (_need(size, k, int, where) for k in ("height", "width", "channels"))
    if h <= 0 or w <= 0 or c not in (1, 3):
        raise ModelError(f"{where}: bad input_size {size!r}")
    crop = _need(data, "corner_crop", dict, where)
    fw, fh = (float(_need(crop, k, (int, float), where)) for k in ("card_width_fraction", "card_height_fraction"))
    if not (0 < fw <= 0.5 and 0 < fh <= 0.5):
        raise ModelError(f"{where}: bad corner_crop {crop!r} (fractions of the card, 0..0.5)")
    if expected_crop is not None and (h, w, round(fw, 4), round(fh, 4)) != (
        expected_crop[0],
        expected_crop[1],
        round(expected_crop[2], 4),
        round(expected_crop[3], 4),
    ):
        raise ModelError(
            f"{where}: the model reads {h}x{w} crops of {fw:g} x {fh:g} of the card, the pipeline "
            f"cuts {expected_crop[0]}x{expected_crop[1]} of {expected_crop[2]:g} x "
            f"{expected_crop[3]:g}: retrain the model or use the matching vision/rectify.py"
        )
    norm = _need(data, "normalisation", dict, where)
    method = _need(norm, "method", str, where)
    if method not in NORMALISATIONS:
        raise ModelError(f"{where}: unknown normalisation {method!r} (known: {', '.join(NORMALISATIONS)})")
    percentile = float(_need(norm, "percentile", (int, float), where))
    offset = float(_need(norm, "offset", (int, float), where))
    if not 50 <= percentile <= 100:
        raise ModelError(f"{where}: normalisation percentile {percentile} outside 50..100")
    thresholds = _need(data, "thresholds", dict, where)
    min_conf = float(_need(thresholds, "min_confidence", (int, float), where))
    min_margin = float(_need(thresholds, "min_margin", (int, float), where))
    not_a_card = float(_need(thresholds, "not_a_card", (int, float), where))
    unknown_not_a_card = (
        float(_need(thresholds, "unknown_not_a_card", (int, float), where))
        if "unknown_not_a_card" in thresholds
        else not_a_card
    )
    if not (
        0 <= min_conf <= 1 and 0 <= min_margin <= 1 and 0 < not_a_card <= 1 and 0 < unknown_not_a_card <= not_a_card
    ):
        raise ModelError(f"{where}: thresholds must lie in 0..1 (unknown_not_a_card at most not_a_card)")
    train = _need(data, "training_designs", list, where)
    held = _need(data, "held_out_designs", list, where)
    if set(train) & set(held):
        raise ModelError(f"{where}: designs both trained on and held out: {sorted(set(train) & set(held))}")
    accuracy = _need(data, "accuracy", dict, where)
    return ModelMeta(
        tuple(labels),
        h,
        w,
        c,
        method,
        percentile,
        offset,
        min_conf,
        min_margin,
        not_a_card,
        unknown_not_a_card,
        (fw, fh),
        tuple(map(str, train)),
        tuple(map(str, held)),
        accuracy,
    )


def load_meta(
    path: str | Path,
    *,
    expected_labels: tuple[str, ...] | None = None,
    expected_crop: tuple[int, int, float, float] | None = None,
) -> ModelMeta:
    """Read and validate the metadata file at ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model metadata ({exc.strerror or exc})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: metadata is not valid JSON ({exc})") from exc
    return parse_meta(data, path, expected_labels=expected_labels, expected_crop=expected_crop)
