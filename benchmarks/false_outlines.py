"""What the false cards in card scenes are: each detected outline that matches no card, against the card it
lies on.

    .venv/bin/python benchmarks/false_outlines.py [--scenes 8] [--picture out.png]

Held-out designs, realistic (seed 2024) and hard (seed 2025) scenes as ``models.training.evaluate`` makes
them. For every outline the recogniser reports that matches no card (corners within 12% of the card's
width, ``models.training.dataset.match``), it prints the overlap (IoU) with the nearest true card, whether
that card was found by another outline, and how far each corner is from the card's nearest corner, in card
widths. ``--picture`` draws each case (green: the card, red: the outline).

It also reports how far from parallel opposite sides are, as the sine of the angle between them per pixel
of their distance (what ``DetectorConfig.max_perspective`` bounds): the largest over every true card of
the scenes, and each false outline's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import NORMAL, held_out_scenes  # noqa: E402
from models.training.synth import HARD  # noqa: E402
from vision.detect import skew_per_px  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402
from vision.rectify import order_corners  # noqa: E402


def iou(a: np.ndarray, b: np.ndarray) -> float:
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(cv2.convexHull(a32), cv2.convexHull(b32))
    return float(inter / (cv2.contourArea(a32) + cv2.contourArea(b32) - inter + 1e-9))


def skew_of(quad: np.ndarray) -> float:
    return float(skew_per_px(order_corners(quad).astype(np.float32)[None])[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=8, help="scenes per held-out design and kind")
    ap.add_argument("--picture", type=Path)
    args = ap.parse_args()
    rec = Recognizer()
    cases: list[dict[str, Any]] = []
    tiles: list[np.ndarray] = []
    true_skew: list[float] = []
    for spec, seed, kind in ((NORMAL, 2024, "realistic"), (HARD, 2025, "hard")):
        for design, scene in held_out_scenes(designs.held_out_decks(), spec, args.scenes, seed):
            seen = rec.recognize(scene.image)
            quads = [r.corners for r in seen]
            found = [match(q, quads) for _, q in scene.cards]
            true_skew += [skew_of(q) for _, q in scene.cards]
            for r in seen:
                if any(f is r.corners for f in found):
                    continue
                overlaps = [iou(r.corners, q) for _, q in scene.cards]
                j = int(np.argmax(overlaps)) if overlaps else -1
                case = {
                    "kind": kind,
                    "design": design,
                    "read": r.card,
                    "iou": round(overlaps[j], 2) if overlaps else 0.0,
                    "skew_per_px": round(skew_of(r.corners), 5),
                }
                if overlaps and overlaps[j] > 0.05:
                    label, truth = scene.cards[j]
                    t = order_corners(truth)
                    width = float(np.linalg.norm(t[0] - t[1]))
                    case |= {
                        "card": label,
                        "card_found_by_another": found[j] is not None,
                        "corner_errors": [
                            round(float(np.linalg.norm(c - t, axis=1).min()) / width, 2) for c in r.corners
                        ],
                    }
                    if args.picture is not None:
                        img = scene.image.copy()
                        cv2.polylines(img, [truth.astype(np.int32).reshape(-1, 1, 2)], True, (0, 255, 0), 1)
                        cv2.polylines(img, [r.corners.astype(np.int32).reshape(-1, 1, 2)], True, (0, 0, 255), 1)
                        x, y = (int(v) for v in truth.mean(0))
                        tiles.append(
                            cv2.copyMakeBorder(img, 120, 120, 120, 120, cv2.BORDER_CONSTANT)[y : y + 240, x : x + 240]
                        )
                cases.append(case)
    for c in cases:
        print(json.dumps(c))
    on_card = [c for c in cases if "corner_errors" in c]
    one_corner = [c for c in on_card if sorted(c["corner_errors"])[2] <= 0.08]
    print(
        json.dumps(
            {
                "command": f"benchmarks/false_outlines.py --scenes {args.scenes}",
                "false_outlines": len(cases),
                "on_a_card": len(on_card),
                "its_card_found_by_another": sum(c["card_found_by_another"] for c in on_card),
                "one_corner_off_three_within_8pct": len(one_corner),
                "true_cards": len(true_skew),
                "true_card_skew_per_px_max": round(max(true_skew), 5),
                "false_outline_skew_per_px": sorted(c["skew_per_px"] for c in cases),
            }
        )
    )
    if args.picture is not None and tiles:
        blank = np.zeros_like(tiles[0])
        rows = [np.hstack(tiles[i : i + 5] + [blank] * (5 - len(tiles[i : i + 5]))) for i in range(0, len(tiles), 5)]
        cv2.imwrite(str(args.picture), np.vstack(rows))


if __name__ == "__main__":
    main()
