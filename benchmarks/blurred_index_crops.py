"""What the model sees of the hard cards it cannot name: the index crops of its misses, by camera blur.

    .venv/bin/python benchmarks/blurred_index_crops.py [--scenes 20] [--seed 2025] [--montage out.png]

Deals the model card's hard scenes (``evaluate``'s hard frames: held-out designs, seed 2025 is what
``evaluate --seed 2024`` uses for them), classifies every card through its true outline (no detection,
with the recogniser's second look, as "model only"), and prints per camera-blur class how many cards the
model names, leaves ``unknown`` or names wrong. ``--montage`` writes the two index crops (3x, as the
model gets them) of up to 48 misses of the strongest blur class, each labelled true > read, to judge by
eye whether the index is still legible. The montage holds third-party card art: look at it, don't
commit it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.evaluate import BLUR_CLASSES, blur_class, held_out_scenes  # noqa: E402
from models.training.synth import HARD  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402
from vision.rectify import corner_crops  # noqa: E402

TILES = 48


def _tile(image: np.ndarray, quad: np.ndarray, label: str, read: str, design: str) -> np.ndarray:
    crops = corner_crops(image, quad)
    tile = cv2.resize(np.concatenate([crops[0], crops[1]], axis=1), None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
    cv2.putText(tile, f"{label}>{read}", (2, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1)
    cv2.putText(tile, design.split(":")[-1][:12], (2, tile.shape[0] - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 0, 0), 1)
    return tile


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--montage", type=Path, help="write the misses' index crops of the strongest blur here")
    args = ap.parse_args()
    rec = Recognizer()
    counts = {k: {"cards": 0, "named": 0, "unknown": 0, "wrong": 0} for k in BLUR_CLASSES}
    tiles: list[np.ndarray] = []
    for design, scene in held_out_scenes(designs.held_out_decks(), HARD, args.scenes, args.seed):
        kind = blur_class(scene.blur)
        read = rec.classify_quads(scene.image, [q for _, q in scene.cards])
        for r, (label, quad) in zip(read, scene.cards, strict=True):
            c = counts[kind]
            c["cards"] += 1
            outcome = "named" if r.card == label else "unknown" if r.card == "unknown" else "wrong"
            c[outcome] += 1
            if outcome != "named" and kind == BLUR_CLASSES[-1] and len(tiles) < TILES:
                tiles.append(_tile(scene.image, quad, label, r.card, design))
    print(
        json.dumps(
            {
                "command": f"python benchmarks/blurred_index_crops.py --scenes {args.scenes} --seed {args.seed}",
                "model_only_by_camera_blur": counts,
            },
            indent=2,
        )
    )
    if args.montage and tiles:
        blank = np.zeros_like(tiles[0])
        rows = [
            np.concatenate(tiles[i : i + 8] + [blank] * (8 - len(tiles[i : i + 8])), axis=1)
            for i in range(0, len(tiles), 8)
        ]
        cv2.imwrite(str(args.montage), np.concatenate(rows, axis=0))
        print(f"wrote {len(tiles)} misses of '{BLUR_CLASSES[-1]}' to {args.montage}", file=sys.stderr)


if __name__ == "__main__":
    main()
