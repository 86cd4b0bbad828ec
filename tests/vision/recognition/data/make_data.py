"""Writes the saved test images (our own procedurally drawn cards; no third-party art) and truth.json.

.venv/bin/python tests/vision/recognition/data/make_data.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))

from models.training.synth import HARD, SceneSpec, faces_deck, make_scene  # noqa: E402


def main() -> None:
    truth = {}
    specs = [
        ("felt.jpg", SceneSpec(n_cards=12, background="felt"), 40),
        ("wood_clutter.jpg", SceneSpec(n_cards=10, background="wood", clutter=4), 41),
        ("hard.jpg", HARD, 42),
    ]
    for name, spec, seed in specs:
        rng = np.random.default_rng(seed)
        scene = make_scene(rng, faces_deck(seed), spec)
        cv2.imwrite(str(HERE / name), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        truth[name] = [{"card": label, "corners": np.round(q, 1).tolist()} for label, q in scene.cards]
    (HERE / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


if __name__ == "__main__":
    main()
