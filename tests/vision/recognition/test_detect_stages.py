"""``benchmarks/detect_stages.py`` counts the frames the detector detects twice (``replan``)."""

from __future__ import annotations

import types
from dataclasses import replace

import numpy as np

from benchmarks import detect_stages


def test_count_passes_counts_each_detection_of_a_frame() -> None:
    """Every call of ``vision.detect._detect`` is counted: an uncalibrated frame with paper left outside its
    outlines (a held-out hard frame, as the ``replan`` tests use) is detected twice, a calibrated one once."""
    import vision.detect as detect
    from models.training.synth import HARD, faces_deck, make_scene

    inner = detect._detect
    try:
        runs = detect_stages._count_passes(detect)
        scene = make_scene(np.random.default_rng(2025), faces_deck(3), replace(HARD, n_cards=12))
        detect.detect_cards(scene.image, plane=scene.plane)
        assert runs["runs"] == 1
        runs.clear()
        detect.detect_cards(scene.image, replace(detect.DEFAULT_CONFIG, replan_gate=False))
        assert runs["runs"] == 2
    finally:
        detect._detect = inner  # type: ignore[assignment]


def test_count_passes_leaves_a_module_without_detect_alone() -> None:
    """An older ``--root`` whose detector has no ``_detect``: nothing is counted and nothing is replaced."""
    module = types.SimpleNamespace(detect_cards=lambda image: [])
    runs = detect_stages._count_passes(module)
    assert not runs and not hasattr(module, "_detect")
