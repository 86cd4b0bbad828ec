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
    np.testing.assert_array_equal(old.model_probabilities(scene.image, quads), new.model_probabilities(scene.image, quads))
