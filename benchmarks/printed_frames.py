"""Missed cards outlined on their printed frame: how the outline, the card and the deck compare on the plane.

    .venv/bin/python benchmarks/printed_frames.py [--styles 1014,1093,1111,1133,1145,1165] [--seed 5] [--detector
    FIELD=VALUE ...]

For each realistic validation frame of the given styles (``models.training.validate_fonts.validation_scenes``,
one scene per style), detection with the shipped settings (or ``--detector``'s), calibrated and in the image:

* calibrated: for each missed card, the outline whose centre lies inside it as the deck fit sees it (on the
  scene's plane, the deck the median outline): its sides over the deck's, its centre's offset from the card's
  (card widths) and its turn from the card's (degrees), and the card's own sides over the deck's;
* image: whether the detector estimated a plane, and the spreads that ``plane_from_cards`` tests on the
  plane it would find without its spread test (median absolute deviation over the median, short and long
  sides), with the outlines the frame gave (``--detector plane_drop=0`` shows session 22's refusals).

The figures behind ``deck_fit_sizes`` and ``plane_drop`` (docs/performance.md, session 23).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vision.detect as detect_module  # noqa: E402
from models.training.dataset import match  # noqa: E402
from models.training.validate_fonts import validation_scenes  # noqa: E402
from vision.deck_fit import fit_deck  # noqa: E402
from vision.detector_settings import detector_config  # noqa: E402
from vision.plane_from_cards import mean_side_vectors, plane_from_cards  # noqa: E402
from vision.quads import plane_points  # noqa: E402


def _sides(quads: np.ndarray, plane: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Short and long sides, centres and long-side angles (degrees) of (N, 4, 2) image quads on ``plane``."""
    p = plane_points(quads.astype(np.float32), plane)
    a, b = mean_side_vectors(p)
    la, lb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    long_dir = np.where((la >= lb)[:, None], a, b)
    return (
        np.minimum(la, lb),
        np.maximum(la, lb),
        p.mean(axis=1),
        np.degrees(np.arctan2(long_dir[:, 1], long_dir[:, 0])),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--styles", default="1014,1093,1111,1133,1145,1165", help="comma-separated style numbers")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--detector", action="extend", nargs="+", default=[], metavar="FIELD=VALUE")
    args = ap.parse_args()
    config = detector_config(args.detector)
    seen: dict[str, list[Any]] = {"fit": [], "plane": []}

    def fit_spy(frame: np.ndarray, quads: list[np.ndarray], *rest: Any, **kwargs: Any) -> list[np.ndarray]:
        seen["fit"].append((list(quads), rest[2]))  # rest: edges, near_edges, config (with the plane)
        return fit_deck(frame, quads, *rest, **kwargs)

    def plane_spy(quads: list[np.ndarray], shape: tuple[int, ...], **kwargs: Any) -> np.ndarray | None:
        seen["plane"].append(list(quads))
        return plane_from_cards(quads, shape, **kwargs)

    setattr(detect_module, "fit_deck", fit_spy)  # noqa: B010 (what detect_cards calls, seen from outside)
    setattr(detect_module, "plane_from_cards", plane_spy)  # noqa: B010
    for style in (int(s) for s in args.styles.split(",")):
        for _, kind, _, scene in validation_scenes((style,), 1, args.seed):
            if kind != "realistic":
                continue
            for seen_list in seen.values():
                seen_list.clear()
            found = detect_module.detect_cards(scene.image, config, plane=scene.plane)
            missed = [(label, truth) for label, truth in scene.cards if match(truth, found) is None]
            print(f"style {style}, calibrated: {len(missed)} of {len(scene.cards)} cards missed")
            if seen["fit"] and missed:
                quads, table = seen["fit"][0]
                q = np.stack(quads)
                short, long_, centre, angle = _sides(q, table.plane)
                deck = float(np.median(short)), float(np.median(long_))
                for label, truth in missed:
                    t_short, t_long, t_centre, t_angle = _sides(truth[None], table.plane)
                    inside = [
                        i
                        for i, quad in enumerate(quads)
                        if cv2.pointPolygonTest(truth.astype(np.float32), tuple(map(float, quad.mean(axis=0))), False)
                        > 0
                    ]
                    for i in inside:
                        turn = (float(t_angle[0] - angle[i]) + 90) % 180 - 90
                        print(
                            f"  {label}: outline {short[i] / deck[0]:.2f} x {long_[i] / deck[1]:.2f} of the deck, "
                            f"centre off {np.linalg.norm(t_centre[0] - centre[i]) / deck[0]:.3f} widths, "
                            f"turned {turn:.1f} deg; the card {t_short[0] / deck[0]:.3f} x "
                            f"{t_long[0] / deck[1]:.3f} of the deck"
                        )
                    if not inside:
                        print(f"  {label}: no outline inside")
            for seen_list in seen.values():
                seen_list.clear()
            detect_module.detect_cards(scene.image, config)
            if not seen["plane"]:
                print("  image: no plane sought")
                continue
            quads = seen["plane"][0]
            given = plane_from_cards(quads, scene.image.shape, spread=config.plane_spread, drop=config.plane_drop)
            loose = plane_from_cards(quads, scene.image.shape, spread=math.inf)
            spreads = "none fits"
            if loose is not None:
                short, long_, _, _ = _sides(np.stack(quads), tuple(loose.ravel()))
                spreads = ", ".join(
                    f"{float(np.median(np.abs(x - np.median(x))) / np.median(x)):.3f}" for x in (short, long_)
                )
            print(
                f"  image: {len(quads)} outlines, plane {'estimated' if given is not None else 'refused'}; "
                f"spreads (short, long) on the plane fitted to all: {spreads}"
            )


if __name__ == "__main__":
    main()
