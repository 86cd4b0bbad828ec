"""The learned detector first, the shipped one only on frames it leaves unexplained: what that would find and cost.
A spike for issue 5's speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_hybrid.py --model /tmp/kp.pt --checker /tmp/kc.pt \
        --kind realistic|hard|clutter --scenes 10 [--support 0.6]

Each frame is detected by ``keypoint_cascade.Cascade`` (the learned outlines, snapped), then judged by ``explained``
with cheap cues: no peak of the first stage over ``--doubt`` may lie off the outlines kept, every outline's weakest
side must lie on the shipped detector's edge map for ``--support`` of its length, and (``--paper``) no card's area of
paper (the Otsu mask of the darkest channel, as the detector's) may lie outside the outlines. A frame that fails goes to ``vision.detect.detect_cards`` (image mode, the shipped
defaults) and takes its outlines instead. Every frame is also detected by the shipped detector alone, so the
figures compare the learned outlines, the shipped ones and the hybrid on the same frames: cards found and false
outlines (``segmentation_spike.tally``), the share of frames handed on, and ms a frame (mean, median, 90th
percentile; one thread). The hybrid's time is the learned detection, the judgement and, where handed on, the whole
shipped detection; a real one would share the edge map and the paper mask with it, so the figure is an upper
bound.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.keypoint_cascade import NEAR, Cascade, Detection, short_side  # noqa: E402
from benchmarks.keypoint_spike import evaluation_scenes  # noqa: E402
from benchmarks.segmentation_spike import tally  # noqa: E402
from vision.detect import Region  # noqa: E402


def supported(frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """(Q,) for each full-resolution outline, the share of its weakest side on the shipped detector's edge map
    (``vision.detect.outline_support``: an edge pixel within 2 px at its scale)."""
    from vision.detect import outline_support

    return outline_support(frame, quads)


def sides_on_edges(frame: np.ndarray, found: Detection, support: float) -> bool:
    """Does every one of the cascade's outlines have its weakest side on edges for ``support`` of its length?"""
    return not found.snapped or bool(supported(frame, found.snapped).min() >= support)


def explained(frame: np.ndarray, found: Detection, support: float, paper: bool = False) -> bool:
    """Are the cascade's outlines (``found``) all of ``frame``'s cards, as far as cheap cues tell? No doubtful peak
    (``Detection.doubtful``) off them, each one's weakest side on the shipped detector's edge map for ``support`` of
    its length (``supported``), and (``paper``) no card's area of paper outside them (``vision.frame_cues.paper_left``
    on the Otsu mask of the darkest channel, as the shipped detector's)."""
    from vision.detector_config import DEFAULT_CONFIG as config
    from vision.frame_cues import at_detection_scale, min_card_area, paper_left

    if found.doubtful or not sides_on_edges(frame, found, support):
        return False
    if not paper:
        return True
    _, _, least = at_detection_scale(frame, config)
    _, mask = cv2.threshold(least, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return not paper_left(mask, [(q + 0.5) * config.scale - 0.5 for q in found.snapped], min_card_area(config))


def doubtful_regions(shape: tuple[int, ...], quads: list[np.ndarray], grow: float = 0.6) -> list[Region]:
    """The parts of a frame of ``shape`` to detect again: each outline's bounding box grown by ``grow`` of its larger
    side on every side (a card the outline is off holds the outline's place), clipped to the frame, those that
    overlap merged into one box."""
    height, width = shape[:2]
    boxes = []
    for q in quads:
        (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
        pad = grow * max(x1 - x0, y1 - y0)
        boxes.append([max(0, int(x0 - pad)), max(0, int(y0 - pad)), min(width, int(x1 + pad) + 1),
                      min(height, int(y1 + pad) + 1)])
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return [(b[0], b[1], b[2], b[3]) for b in boxes if b[2] > b[0] and b[3] > b[1]]


def in_regions(frame: np.ndarray, found: Detection, support: float) -> list[np.ndarray]:
    """The cascade's well-supported outlines, and the shipped detector's (``detect_in_region``, the supported ones as
    the deck) in the ``doubtful_regions`` of its doubtful peaks and its poorly supported outlines, where no supported
    outline already lies."""
    from vision.detect import detect_in_region

    scores = supported(frame, found.snapped) if found.snapped else np.zeros(0)
    good = [q for q, v in zip(found.snapped, scores, strict=True) if v >= support]
    poor = [q for q, v in zip(found.snapped, scores, strict=True) if v < support]
    out = list(good)
    for region in doubtful_regions(frame.shape, poor + found.doubtful):
        for quad in detect_in_region(frame, region, deck=good):
            if all(np.linalg.norm(quad.mean(axis=0) - g.mean(axis=0)) > NEAR * short_side(g) for g in good):
                out.append(quad)
    return out


def _scenes(kind: str, scenes: int, seed: int) -> Iterator[Any]:
    """``keypoint_spike.evaluation_scenes``, or for "speed" ``scenes`` of the recognition benchmark's speed frames
    (``bench_recognition.speed_scenes``; ``seed`` is not theirs: they are drawn as that benchmark draws them)."""
    if kind != "speed":
        yield from evaluation_scenes(kind, scenes, seed)
        return
    from benchmarks.bench_recognition import speed_scenes

    yield from speed_scenes(scenes)


def evaluate(cascade: Cascade, kind: str, scenes: int, seed: int, support: float, paper: bool = False,
             regions: bool = False) -> dict[str, Any]:
    from vision.detect import detect_cards

    blank = {"cards": 0, "found": 0, "found_snapped": 0, "false_snapped": 0, "located": 0, "frames": 0}
    counts = {"learned": dict(blank), "shipped": dict(blank), "hybrid": dict(blank)}
    times: dict[str, list[float]] = {"learned": [], "shipped": [], "hybrid": []}
    handed_on = doubtful = off_edges = 0  # frames handed on; with a doubtful peak; with a side off edges
    for scene in _scenes(kind, scenes, seed):
        found = cascade.detect(scene.image)
        t0 = time.perf_counter()
        ok = explained(scene.image, found, support, paper)
        t1 = time.perf_counter()
        shipped = detect_cards(scene.image)
        t2 = time.perf_counter()
        if ok:
            hybrid, hand_on_ms = found.snapped, 0.0
        elif regions:
            hybrid = in_regions(scene.image, found, support)
            hand_on_ms = 1000 * (time.perf_counter() - t2)
        else:
            hybrid, hand_on_ms = shipped, 1000 * (t2 - t1)
        handed_on += not ok
        doubtful += bool(found.doubtful)
        off_edges += not sides_on_edges(scene.image, found, support)
        times["learned"].append(sum(found.ms))
        times["shipped"].append(1000 * (t2 - t1))
        times["hybrid"].append(sum(found.ms) + 1000 * (t1 - t0) + hand_on_ms)
        for name, quads in (("learned", found.snapped), ("shipped", shipped), ("hybrid", hybrid)):
            tally(counts[name], scene.cards, quads, quads)
    frames = counts["hybrid"]["frames"]
    return {"kind": kind, "seed": seed, "support": support, "paper": paper, "regions": regions, "doubt": cascade.doubt, "frames": frames, "handed_on": handed_on,
            "doubtful": doubtful, "off_edges": off_edges,
            **{name: {"cards": c["cards"], "found": c["found"], "false": c["false_snapped"]}
               for name, c in counts.items()},
            "ms_mean_median_p90": {name: [round(float(np.mean(t)), 2), round(float(np.median(t)), 2),
                                          round(float(np.quantile(t, 0.9)), 2)] for name, t in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, required=True, help="a trained first stage (keypoint_spike.py train)")
    parser.add_argument("--checker", type=Path, required=True, help="a trained checker (keypoint_cascade.py train)")
    parser.add_argument("--kind", choices=("realistic", "hard", "clutter", "speed"), default="realistic")
    parser.add_argument("--scenes", type=int, default=10,
                        help="scenes a held-out design (clutter: as many frames; speed: frames)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--support", type=float, default=0.8, help="the least share of each side on edges")
    parser.add_argument("--doubt", type=float, default=0.1, help="the least peak that makes a frame doubtful")
    parser.add_argument("--paper", action="store_true", help="hand on frames with paper outside the outlines too")
    parser.add_argument("--regions", action="store_true",
                        help="detect again only around doubtful peaks and poorly supported outlines (in_regions)")
    args = parser.parse_args()
    cascade = Cascade(args.model, args.checker, doubt=args.doubt)
    print(evaluate(cascade, args.kind, args.scenes, args.seed, args.support, args.paper, args.regions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
