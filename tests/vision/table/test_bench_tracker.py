"""benchmarks/bench_tracker.py's detection measurement: what it times finds every card it claims to."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_tracker import bench_detection

MODEL = Path(__file__).resolve().parents[3] / "models" / "cardnet.onnx"


@pytest.mark.skipif(not MODEL.exists(), reason="models/cardnet.onnx not shipped yet")
def test_each_timed_detection_finds_the_twelve_cards_and_the_regions_grow_with_their_length() -> None:
    row = bench_detection(repeats=1)
    assert row["cards_in_view"] == 12
    counted = [k for k in row if k.endswith("_cards")]
    assert len(counted) == 7 and all(row[k] == 12 for k in counted)
    assert 0 < row["regions_0.5_share"] < row["regions_1.0_share"] < 0.45
    assert all(row[k] > 0 for k in ("detect_whole_with_markers", "recognize_regions_0.5", "classify_only"))


def test_the_quiet_measurement_times_frames_with_nothing_to_recognise() -> None:
    from benchmarks.bench_tracker import bench_quiet

    row = bench_quiet(frames=40)
    assert row["frames"] == 40
    assert 30 <= row["nothing_recognised"] <= 40  # the rest are the watcher's refreshes
    assert row["ms_median"] > 0
