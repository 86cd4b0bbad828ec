"""Detection in a region around a card against detection of the whole frame: what a recogniser that detects
only where the frame changed (a card put down, the rest of the table still) would find and what it would cost.

    .venv/bin/python benchmarks/region_detection.py [--kind realistic|hard] [--seeds 2024 ...] [--scenes 20]
                                                    [--grow 0.5 ...] [--cards-per-frame 3] [--calibrated] [--json]
                                                    [--deck-hint]

The frames are ``models.training.evaluate``'s held-out ones (``found_diff.held_out_frames``). Each frame is detected
whole (``vision.detect.detect_cards``, with its table plane when ``--calibrated``); then, for each of its first
``--cards-per-frame`` cards and each ``--grow``, the region holding the card's bounding box grown by that many
lengths of its long side (cut at the frame's edges) is detected alone, the plane moved to the region's pixels. A
card is found when an outline matches it (``models.training.dataset.match``). With ``--deck-hint`` the region's
detection is given the whole frame's other outlines (all but the one that matches the card) as the deck
(``detect_cards``' ``deck``), as the table watcher gives the cards it knows: a card put down is new, the rest were
found before. Per grow: the cards, how many the
whole frame's detection and the region's find, the cards found by one only (listed), the median region's share of
the frame's area, and the mean process-CPU ms of a whole-frame detection and of a region's. One thread.

The detector judges a frame as a whole in places (the deck's size from the cards found, the table plane estimated
from them, Otsu's threshold of the paper mask), so a region with one or two cards is not a small frame of the same
kind; this measures how much that costs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.found_diff import held_out_frames  # noqa: E402
from models.training.dataset import match, match_index  # noqa: E402
from models.training.synth import Scene  # noqa: E402
from vision.detect import DEFAULT_CONFIG, DetectorConfig, detect_cards, detect_in_region  # noqa: E402


def region_around(quad: np.ndarray, shape: tuple[int, ...], grow: float) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1), end exclusive: the bounding box of ``quad`` (full-resolution corners) grown by ``grow``
    lengths of its longest side, cut at the frame of ``shape``."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    length = float(max(np.linalg.norm(q[(k + 1) % 4] - q[k]) for k in range(4)))
    h, w = shape[:2]
    x0, y0 = np.maximum(np.floor(q.min(axis=0) - grow * length), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(q.max(axis=0) + grow * length) + 1, (w, h)).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


@dataclass
class Tally:
    """One grow's counts over the frames."""

    cards: int = 0
    found_whole: int = 0
    found_region: int = 0
    only: list[tuple[int, int, str, str, str]] = field(default_factory=list)  # seed, scene, design, card, side
    region_ms: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)


def measure(
    frames: Iterable[tuple[int, int, str, Scene]],
    grows: list[float],
    per_frame: int,
    *,
    calibrated: bool = False,
    config: DetectorConfig = DEFAULT_CONFIG,
    deck_hint: bool = False,
) -> tuple[dict[float, Tally], list[float]]:
    """Each grow's ``Tally`` and the process-CPU ms of each whole-frame detection."""
    tallies = {g: Tally() for g in grows}
    whole_ms: list[float] = []
    for seed, n, design, scene in frames:
        plane = scene.plane if calibrated else None
        t0 = time.process_time()
        whole = detect_cards(scene.image, config, plane=plane)
        whole_ms.append(1000 * (time.process_time() - t0))
        h, w = scene.image.shape[:2]
        for label, quad in scene.cards[:per_frame]:
            mate = match_index(quad, whole)
            in_whole = mate is not None
            deck = [q for i, q in enumerate(whole) if i != mate] if deck_hint else []
            for grow, tally in tallies.items():
                region = region_around(quad, scene.image.shape, grow)
                t0 = time.process_time()
                found = detect_in_region(scene.image, region, config, plane, deck=deck)
                tally.region_ms.append(1000 * (time.process_time() - t0))
                in_region = match(quad, found) is not None
                tally.cards += 1
                tally.found_whole += in_whole
                tally.found_region += in_region
                tally.shares.append((region[2] - region[0]) * (region[3] - region[1]) / (w * h))
                if in_whole != in_region:
                    tally.only.append((seed, n, design, label, "whole" if in_whole else "region"))
    return tallies, whole_ms


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("realistic", "hard"), default="realistic")
    ap.add_argument("--seeds", type=int, nargs="+", default=[2024])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument("--grow", type=float, nargs="+", default=[0.5, 1.0], help="card lengths around the card")
    ap.add_argument("--cards-per-frame", type=int, default=3)
    ap.add_argument("--calibrated", action="store_true", help="give the detector each scene's table plane")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--deck-hint", action="store_true", help="give each region the whole frame's other outlines")
    args = ap.parse_args(argv)
    if any(g < 0 for g in args.grow) or args.cards_per_frame < 1:
        ap.error("--grow must be 0 or more and --cards-per-frame 1 or more")
    cv2.setNumThreads(1)
    tallies, whole_ms = measure(
        held_out_frames(args.kind, args.seeds, args.scenes),
        args.grow,
        args.cards_per_frame,
        calibrated=args.calibrated,
        deck_hint=args.deck_hint,
    )
    summary: dict[str, object] = {
        "command": " ".join(["benchmarks/region_detection.py", *(sys.argv[1:] if argv is None else argv)]),
        "whole_frame_ms_cpu": round(statistics.fmean(whole_ms), 1) if whole_ms else None,
        "by_grow": {
            str(g): {
                "cards": t.cards,
                "found_whole": t.found_whole,
                "found_region": t.found_region,
                "whole_only": sum(o[4] == "whole" for o in t.only),
                "region_only": sum(o[4] == "region" for o in t.only),
                "region_ms_cpu": round(statistics.fmean(t.region_ms), 1) if t.region_ms else None,
                "region_area_share_median": round(statistics.median(t.shares), 3) if t.shares else None,
            }
            for g, t in tallies.items()
        },
    }
    for g, t in tallies.items():
        for seed, n, design, label, side in t.only:
            row = {"grow": g, "seed": seed, "scene": n, "design": design, "card": label, "found_by": side}
            print(
                json.dumps(row)
                if args.json
                else f"grow {g:4} seed {seed:5d} scene {n:4d} {design:28s} {label:5s} found by the {side} only"
            )
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
