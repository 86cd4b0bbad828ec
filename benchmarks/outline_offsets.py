"""How far the detector's outlines lie from the cards' true edges, side by side.

    .venv/bin/python benchmarks/outline_offsets.py [--kind realistic|hard] [--scenes 20] [--seed 99]
                                                   [--calibrated] [--json]

The frames are those of ``models.training.evaluate`` (as ``missed_cards.py`` deals them). For every card that
an outline of ``detect_cards`` matches (``models.training.dataset.match``), each of its four sides' signed
offset from the card's true side: how far the outline side's midpoint lies from the true side's line, along
the true side's outward normal (positive: outside the card), in full-resolution pixels. The summary gives, per
camera blur (``evaluate.blur_class``), per held-out design and for all frames, the number of sides, their mean,
median, 10th and 90th percentile offsets, and the share more than 2 px off either way. A systematic offset shows in the
mean
and median; an outline's scatter in the percentiles.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.missed_cards import add_frame_arguments, held_out_frames  # noqa: E402
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import blur_class  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.rectify import order_corners  # noqa: E402


def side_offsets(truth: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """(4,): for each side of the (4, 2) ``truth``, the signed distance (outward positive) of the matching side
    of ``outline`` (its corners in any order) from it, measured at the outline side's midpoint."""
    t = order_corners(np.asarray(truth, np.float32)).astype(np.float64)
    o = order_corners(np.asarray(outline, np.float32)).astype(np.float64)
    # the cyclic order of the outline's corners that lies nearest the truth's (a card near 45 degrees can be
    # ordered from another corner)
    o = min((np.roll(o, k, axis=0) for k in range(4)), key=lambda r: float(np.abs(r - t).sum()))
    a, b = t, np.roll(t, -1, axis=0)
    d = b - a
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1) / np.linalg.norm(d, axis=1, keepdims=True)
    outward = np.sign((((a + b) / 2 - t.mean(axis=0)) * normal).sum(axis=1, keepdims=True))
    normal *= np.where(outward < 0, -1.0, 1.0)
    mid = (o + np.roll(o, -1, axis=0)) / 2
    out: np.ndarray = ((mid - a) * normal).sum(axis=1)
    return out


def summarise(offsets: list[float]) -> dict[str, float | int]:
    """The summary of one group of side offsets (px)."""
    x = np.asarray(offsets, np.float64)
    if not len(x):
        return {"sides": 0}
    p10, p90 = np.percentile(x, [10, 90])
    return {
        "sides": len(x),
        "mean": round(float(x.mean()), 2),
        "median": round(float(np.median(x)), 2),
        "p10": round(float(p10), 2),
        "p90": round(float(p90), 2),
        "over_2px": round(float((np.abs(x) > 2.0).mean()), 4),
    }


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frame_arguments(ap, kind="hard", given="detector")
    ap.add_argument("--json", action="store_true", help="the summary on one line")
    args = ap.parse_args(argv)
    groups: dict[str, list[float]] = {}
    designs: dict[str, list[float]] = {}
    cards = found = 0
    for _, design, scene in held_out_frames(args):
        outlines = detect_cards(scene.image, plane=scene.plane if args.calibrated else None)
        for _, truth in scene.cards:
            cards += 1
            outline = match(truth, outlines)
            if outline is None:
                continue
            found += 1
            offsets = side_offsets(truth, outline).tolist()
            groups.setdefault(blur_class(scene.blur), []).extend(offsets)
            groups.setdefault("all", []).extend(offsets)
            designs.setdefault(design, []).extend(offsets)
    summary: dict[str, object] = {
        "command": " ".join(["benchmarks/outline_offsets.py", *(sys.argv[1:] if argv is None else argv)]),
        "cards": cards,
        "found": found,
        "by_blur": {k: summarise(v) for k, v in sorted(groups.items())},
        "by_design": {k: summarise(v) for k, v in sorted(designs.items())},
    }
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
