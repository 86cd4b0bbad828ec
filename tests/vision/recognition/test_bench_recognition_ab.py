"""The A/B speed benchmark compares like with like: the old revision's own classification path."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks import bench_recognition_ab as ab
from vision.recognizer import Recognizer


def test_the_old_side_classifies_through_its_own_recognizer_on_this_trees_models(tmp_path: Path) -> None:
    """Against HEAD the two sides are one code: the old revision's ``Recognizer`` (unpacked, its default
    model paths pointing into the unpacked folder, which holds no models) reads this tree's model files and
    gives the new side's probabilities exactly. (Before, the old side read both corners of every card
    while the new one read one corner where it was sure, and identical code differed by up to 0.09.)"""
    package = ab._old_vision("HEAD", tmp_path)
    old = ab._old_recognizer(package)
    assert old is not None
    scene = ab.scenes(1, 102)[0]
    quads = [q for _, q in scene.cards]
    new = Recognizer(threads=1)
    np.testing.assert_array_equal(
        old.model_probabilities(scene.image, quads), new.model_probabilities(scene.image, quads)
    )


def test_the_calibrated_timing_gives_each_detection_its_frame_plane(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``bench_recognition.py --speed-only --calibrated`` times the calibrated table's path: each detection gets
    its scene's table plane; without ``--calibrated`` none does."""
    from benchmarks import bench_recognition

    planes: list[object] = []
    detect = bench_recognition.detect_cards  # type: ignore[attr-defined]

    def recorded(image: np.ndarray, config: object, plane: object = None) -> list[np.ndarray]:
        planes.append(plane)
        return detect(image, config, plane=plane)  # type: ignore[arg-type]

    monkeypatch.setattr(bench_recognition, "detect_cards", recorded)
    rec = Recognizer(threads=1, learned=False)  # the shipped detector's calls are counted
    speed = bench_recognition.timing(rec, 1, 5, calibrated=True)
    assert len(planes) == 2 and all(isinstance(p, np.ndarray) and p.shape == (3, 3) for p in planes)
    assert speed["frames"] == 1 and speed["cards_per_frame"] >= 10
    planes.clear()
    bench_recognition.timing(rec, 1, 5)
    assert planes == [None, None]
