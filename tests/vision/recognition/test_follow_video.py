"""benchmarks/follow_video.py: --follow against whole detections on a recorded play."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.follow_video import main

MODEL = Path(__file__).resolve().parents[3] / "models" / "cardnet.onnx"


@pytest.mark.skipif(not MODEL.exists(), reason="models/cardnet.onnx not shipped yet")
def test_every_frame_is_counted_once_and_the_whole_detections_name_the_clear_frames() -> None:
    result = main(["--actions", "2", "--seed", "3", "--json"])
    frames = result["frames"]
    assert isinstance(frames, int) and frames > 20
    follow, whole = result["follow"], result["whole"]
    assert isinstance(follow, dict) and isinstance(whole, dict)
    assert sum(result["follow_detections"].values()) == frames  # type: ignore[union-attr]
    assert 0 < follow["clear_frames"] == whole["clear_frames"] < frames
    assert whole["clear_frames_equal_truth"] == whole["clear_frames"]  # the whole detection names every clear frame
    assert follow["clear_frames_equal_truth"] >= whole["clear_frames"] - 2
    assert result["follow_detections"]["unchanged"] > 0  # type: ignore[index]
