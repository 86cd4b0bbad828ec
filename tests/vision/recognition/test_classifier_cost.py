"""benchmarks/bench_classifier_models.py's count of the network's arithmetic, on the shipped model."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_classifier_models import macs_per_crop

MODEL = Path(__file__).resolve().parents[3] / "models" / "cardnet.onnx"


def test_the_shipped_network_costs_its_layers_multiply_accumulates_per_crop() -> None:
    """By hand from the architecture (models/training/train.py): 3x3 convolutions of 24, 40, 72 and 96 channels
    on a 48 x 32 crop halved by a 2x2 pool after each of the first three, then a 96 x 6 x 4 -> 54 layer."""
    convs = [(48 * 32, 3, 24), (24 * 16, 24, 40), (12 * 8, 40, 72), (6 * 4, 72, 96)]
    expected = sum(pixels * cin * cout * 9 for pixels, cin, cout in convs) + 96 * 6 * 4 * 54
    assert macs_per_crop(MODEL) == expected == 8_418_816
